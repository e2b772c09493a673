//! `passivity-lab gui`: the desktop app (built with the default `gui`
//! feature).

use std::path::PathBuf;

#[derive(clap::Args, Default)]
pub struct Args {
    /// Scenario (TOML) or robot (URDF) to open; the embedded point-mass
    /// torsion experiment if absent.
    open: Option<PathBuf>,
    /// Render --frames frames, save the window to this PNG (and what was on
    /// screen to the same name with .json), and exit.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot (default 30), or before
    /// exiting when no screenshot is asked for.
    #[arg(long)]
    frames: Option<u32>,
}

/// Whether a window can open here (an X11 or Wayland display is set).
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

#[cfg(feature = "gui")]
pub fn run(args: Args) -> anyhow::Result<()> {
    if !display_available() {
        anyhow::bail!(
            "no display: neither DISPLAY nor WAYLAND_DISPLAY is set (run under a desktop, or \
             xvfb-run; `passivity-lab run` runs scenarios headless)"
        );
    }
    passivity_lab::app::run(passivity_lab::app::AppOptions {
        open: args.open,
        screenshot: args.screenshot,
        frames: args.frames,
    })
}

#[cfg(not(feature = "gui"))]
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!(
        "this binary was built without the desktop app (--no-default-features); \
         build with the default features to get `passivity-lab gui`"
    )
}
