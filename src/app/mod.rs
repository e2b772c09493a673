//! The desktop app (feature `gui`; docs/src/app.md): Bevy + egui around the
//! same scenarios and the same [`crate::sim::Simulation`] code as the
//! headless runner; the app owns no dynamics of its own. One plugin per
//! concern:
//!
//! - [`session`]: the scenario, its live simulations, fixed stepping,
//!   recording, live edits, export;
//! - [`robot_view`]: the robots from their URDF visuals (or simple shapes),
//!   every variant side by side or overlaid as ghosts;
//! - [`trails`]: end-effector paths against the desired path;
//! - [`task_space`]: end-effector frame, velocity and operational-space
//!   inertia ellipsoid;
//! - [`inertia_view`]: adaptive estimates as inertia ellipsoids against
//!   the truth's, red where not physical;
//! - [`balance_view`]: a standing robot's CoM, support polygon, friction
//!   cones, distributed forces and desired wrench ([`stance_geometry`]);
//! - [`chain_view`]: a closed chain's loop closures (green closed, red
//!   open) and its independent and dependent joints ([`chain_geometry`]);
//! - [`torsion_view`]: the Transport view (frames parallel-transported
//!   along each run, [`transported_frames`]) and the contorsion force;
//! - [`camera`]: the orbit camera and the 3-D viewport;
//! - [`interaction`]: pulling bodies with the mouse and dragging the
//!   target handle, recorded into the scenario ([`picking`] finds the body);
//! - [`layout`]: which panels are open and where the plots are docked;
//! - [`panels`]: scenario, playback, controller and factorization editors;
//! - [`plots`]: live egui_plot time series, one line per variant
//!   ([`lyapunov_plot`]: V on a linear, log or relative scale), and the
//!   torque spectra;
//! - [`sweep_panel`]: a sweep run in the background, its curve;
//! - [`capture`]: screenshots, and scripted captures that exit;
//! - [`file_dialog`]: the native *Open* dialog;
//! - [`recording`]: animated GIF recordings of the window;
//! - [`shortcut_help`]: the keys, listed on F1 or `?`.

pub mod balance_view;
pub mod camera;
pub mod capture;
pub mod chain_geometry;
pub mod chain_view;
pub mod contacts;
pub mod divergence_plot;
pub mod editors;
pub mod file_dialog;
pub mod fonts;
pub mod inertia_view;
pub mod interaction;
pub mod layout;
pub mod lyapunov_plot;
pub mod markdown;
pub mod number_fields;
pub mod panels;
pub mod picking;
pub mod plots;
pub mod recording;
pub mod robot_view;
pub mod session;
pub mod shortcut_help;
pub mod spectrum_plot;
pub mod stance_geometry;
pub mod sweep_panel;
pub mod task_space;
pub mod torsion_view;
pub mod trails;
pub mod transported_frames;
pub mod visuals;

use crate::plot::palette::{self, Rgb};
use bevy::prelude::*;
use bevy::window::WindowResolution;
use std::path::PathBuf;

pub use session::{ScenarioSource, SessionPlugin};

/// How the app was started.
#[derive(Clone, Debug, Default)]
pub struct AppOptions {
    /// Scenario (TOML) or URDF to open; the embedded default if absent.
    pub open: Option<PathBuf>,
    /// Save a screenshot here after `frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot (or before exiting).
    pub frames: Option<u32>,
    /// Record the window to this GIF for this many seconds, then exit.
    pub record: Option<(PathBuf, f64)>,
    /// Playback speed at the start (simulated seconds per wall-clock
    /// second; 1 if absent).
    pub speed: Option<f64>,
    /// Move the plots to their next dock at this frame of a scripted capture.
    pub move_plots_at: Option<u32>,
}

/// A gizmo group's config drawn in front of everything (depth bias -1),
/// its lines `width` pixels wide: for markers that sit inside the links.
pub fn in_front_gizmos(width: f32) -> GizmoConfig {
    GizmoConfig {
        depth_bias: -1.0,
        line: GizmoLineConfig { width, ..default() },
        ..default()
    }
}

/// The colour of variant `i` (3-D tint and trail): the figures' colour,
/// [`crate::plot::palette::colour`].
pub fn variant_color(i: usize) -> Color {
    let Rgb(r, g, b) = palette::colour(i);
    Color::srgb_u8(r, g, b)
}

/// A palette colour for egui.
pub fn color32(Rgb(r, g, b): Rgb) -> bevy_egui::egui::Color32 {
    bevy_egui::egui::Color32::from_rgb(r, g, b)
}

/// The colour of variant `i` for egui (plot line, legend, labels).
pub fn variant_color32(i: usize) -> bevy_egui::egui::Color32 {
    color32(palette::colour(i))
}

/// Every plugin of the app except Bevy's and egui's own.
pub struct LabPlugins {
    pub source: ScenarioSource,
}

impl Plugin for LabPlugins {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            SessionPlugin {
                source: self.source.clone(),
            },
            camera::CameraPlugin,
            robot_view::RobotViewPlugin,
            trails::TrailsPlugin,
            task_space::TaskSpacePlugin,
            torsion_view::TorsionViewPlugin,
            contacts::ContactsPlugin,
            balance_view::BalanceViewPlugin,
            chain_view::ChainViewPlugin,
            inertia_view::InertiaViewPlugin,
            interaction::InteractionPlugin,
            interaction::HandlesPlugin,
        ))
        .add_plugins((
            layout::LayoutPlugin,
            panels::PanelsPlugin,
            plots::PlotsPlugin,
            sweep_panel::SweepPanelPlugin,
            capture::CapturePlugin,
            recording::RecordingPlugin,
            shortcut_help::ShortcutHelpPlugin,
            file_dialog::FileDialogPlugin,
            fonts::FontsPlugin,
        ));
    }
}

/// Opens the window and runs until it is closed (or a scripted capture is done).
pub fn run(options: AppOptions) -> anyhow::Result<()> {
    let source = match &options.open {
        Some(path) => ScenarioSource::from_path(path),
        None => ScenarioSource::EmbeddedDefault,
    };
    let exit = App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "passivity-lab".into(),
                resolution: WindowResolution::from((1440u32, 860u32)),
                ..default()
            }),
            ..default()
        }))
        .add_plugins(bevy_egui::EguiPlugin::default())
        .add_plugins(LabPlugins { source })
        .insert_resource(capture::ScriptedCapture::new(
            options.screenshot,
            options.frames,
            options.move_plots_at,
        ))
        .insert_resource(recording::Recorder::scripted(options.record))
        .insert_resource(session::Playback::at_speed(options.speed.unwrap_or(1.0)))
        .run();
    match exit {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => anyhow::bail!("the app exited with code {code}"),
    }
}
