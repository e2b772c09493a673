//! *Browse…*: the desktop's own file dialog (the `rfd` crate through the
//! XDG desktop portal, libdbus loaded at run time, zenity as its fallback:
//! nothing to build against), run on a thread of its own so that the
//! window keeps drawing; the file picked opens as a typed or dropped one.

use super::session::{Notices, ScenarioSource, SessionCommand};
use bevy::prelude::*;
use std::path::PathBuf;
use std::thread::JoinHandle;

/// The dialog under way, if any: its thread returns the file picked (None
/// when the user cancelled or no dialog could open).
#[derive(Resource, Default)]
pub struct FileDialog {
    picked: Option<JoinHandle<Option<PathBuf>>>,
}

impl FileDialog {
    /// Opens the dialog, unless one is open already.
    pub fn browse(&mut self) {
        if self.picked.is_some() {
            return;
        }
        self.picked = Some(std::thread::spawn(|| {
            rfd::FileDialog::new()
                .set_title("Open a scenario or a robot")
                .add_filter("scenario or URDF", &["toml", "urdf"])
                .pick_file()
        }));
    }

    /// Whether a dialog is open.
    pub fn is_open(&self) -> bool {
        self.picked.is_some()
    }
}

pub struct FileDialogPlugin;

impl Plugin for FileDialogPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FileDialog>()
            .add_systems(Update, open_picked_file);
    }
}

fn open_picked_file(
    mut dialog: ResMut<FileDialog>,
    mut commands: MessageWriter<SessionCommand>,
    mut notices: ResMut<Notices>,
) {
    if !dialog.picked.as_ref().is_some_and(|h| h.is_finished()) {
        return;
    }
    let Some(handle) = dialog.picked.take() else {
        return;
    };
    match handle.join() {
        Ok(Some(path)) => {
            commands.write(SessionCommand::Open(ScenarioSource::from_path(&path)));
        }
        Ok(None) => notices.info(
            "no file picked (without a desktop portal or zenity no dialog opens: type the path or drop the file)",
        ),
        Err(_) => notices.error("the file dialog failed"),
    }
}
