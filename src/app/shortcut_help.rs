//! The keys and mouse gestures, listed in a window over the view on F1 or
//! `?` (either again, Escape or its close button hides it).

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts, EguiPrimaryContextPass};

/// Every key and gesture of the app and what it does.
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("Space", "play or pause"),
    ("S", "advance one record period"),
    ("R", "back to the scenario's view"),
    (
        "V",
        "point mass: the still view of Wensing, Englsberger & Slotine (2023), Fig. 6, or a close-up",
    ),
    ("C", "hide or show the controls"),
    ("P", "hide or show the plots"),
    ("D", "move the plots: below the view, right of it, floating"),
    ("F12", "screenshot under screenshots/"),
    ("F1 or ?", "this list"),
    ("left drag", "turn the camera"),
    ("right or middle drag", "pan"),
    ("wheel", "zoom"),
    ("Ctrl + left drag", "pull a body toward the cursor"),
    ("left drag on the yellow ball", "move the target"),
    ("drop a file", "open a scenario (.toml) or a robot (.urdf)"),
];

/// Whether the list is shown.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShortcutHelp {
    pub open: bool,
}

pub struct ShortcutHelpPlugin;

impl Plugin for ShortcutHelpPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ShortcutHelp>()
            .add_systems(EguiPrimaryContextPass, shortcut_window);
    }
}

fn shortcut_window(mut contexts: EguiContexts, mut help: ResMut<ShortcutHelp>) -> Result {
    let ctx = contexts.ctx_mut()?;
    let typing = ctx.egui_wants_keyboard_input();
    let (toggle, escape) = ctx.input(|i| {
        (
            i.key_pressed(egui::Key::F1) || i.key_pressed(egui::Key::Questionmark),
            i.key_pressed(egui::Key::Escape),
        )
    });
    if toggle && !typing {
        help.open = !help.open;
    }
    if escape {
        help.open = false;
    }
    let mut open = help.open;
    egui::Window::new("Keys and mouse")
        .open(&mut open)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("shortcuts").striped(true).show(ui, |ui| {
                for (keys, what) in SHORTCUTS {
                    ui.label(egui::RichText::new(*keys).strong());
                    ui.label(*what);
                    ui.end_row();
                }
            });
        });
    if help.open != open {
        help.open = open;
    }
    Ok(())
}
