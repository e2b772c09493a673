//! `passivity-lab gui`: the desktop app (built with the default `gui`
//! feature).

use std::path::{Path, PathBuf};

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
    /// Record the window to this animated GIF for --seconds seconds, from
    /// the 30th frame rendered (the first show black while pipelines
    /// compile), write it, say what was written, and exit.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Length of the --record recording, seconds (default 5, at most 600).
    #[arg(long, requires = "record")]
    seconds: Option<f64>,
    /// Playback speed at the start, simulated seconds per wall-clock second
    /// (0.05 to 20, as the panel's slider; default 1).
    #[arg(long)]
    speed: Option<f64>,
    /// Scripted captures: at this frame, move the plots to their next dock
    /// (as the D key does), to check that what egui drew before does not
    /// stay on screen.
    #[arg(long, hide = true, requires = "screenshot")]
    move_plots_at: Option<u32>,
}

/// The --record request, checked before the window opens.
fn recording(args: &Args) -> anyhow::Result<Option<(PathBuf, f64)>> {
    let Some(path) = &args.record else {
        return Ok(None);
    };
    check_output_file("--record", path, "gif", "an animated GIF")?;
    let seconds = args.seconds.unwrap_or(5.0);
    anyhow::ensure!(
        seconds.is_finite() && seconds > 0.0 && seconds <= 600.0,
        "--seconds {seconds}: must be more than 0 and at most 600"
    );
    Ok(Some((path.clone(), seconds)))
}

/// An output file's path (`flag`'s value), checked before the window
/// opens: it ends in `.extension`, its folder exists, and it names nothing
/// but a regular file (the capture replaces the file; a device such as
/// /dev/null is never touched).
fn check_output_file(flag: &str, path: &Path, extension: &str, what: &str) -> anyhow::Result<()> {
    let named = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension));
    anyhow::ensure!(
        named,
        "{flag} {}: the file is {what}; give a path ending in .{extension}",
        path.display()
    );
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        anyhow::ensure!(
            dir.is_dir(),
            "{flag} {}: the folder {} does not exist",
            path.display(),
            dir.display()
        );
    }
    passivity_lab::io::regular_file_target(path)
        .map_err(|e| anyhow::anyhow!("{flag} {}: {e}", path.display()))?;
    Ok(())
}

/// The --screenshot path, if any: a PNG (see [`check_output_file`]).
fn check_screenshot(path: Option<&Path>) -> anyhow::Result<()> {
    path.map_or(Ok(()), |p| {
        check_output_file("--screenshot", p, "png", "a PNG")
    })
}

/// --speed must be within the panel slider's range.
fn check_speed(speed: Option<f64>) -> anyhow::Result<()> {
    if let Some(s) = speed {
        anyhow::ensure!(
            (0.05..=20.0).contains(&s),
            "--speed {s}: must be from 0.05 to 20 (simulated seconds per wall-clock second)"
        );
    }
    Ok(())
}

/// Whether a window can open here: an X11 display is set. The app is built
/// with Bevy's X11 backend only (no system packages needed), so a Wayland
/// session opens it through XWayland, which sets `DISPLAY`.
pub fn display_available() -> bool {
    std::env::var_os("DISPLAY").is_some_and(|s| !s.is_empty())
}

#[cfg(feature = "gui")]
pub fn run(args: Args) -> anyhow::Result<()> {
    let record = recording(&args)?;
    check_screenshot(args.screenshot.as_deref())?;
    check_speed(args.speed)?;
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
        record,
        speed: args.speed,
        move_plots_at: args.move_plots_at,
    })
}

#[cfg(not(feature = "gui"))]
pub fn run(args: Args) -> anyhow::Result<()> {
    recording(&args)?;
    check_screenshot(args.screenshot.as_deref())?;
    check_speed(args.speed)?;
    anyhow::bail!(
        "this binary was built without the desktop app (--no-default-features); \
         build with the default features to get `passivity-lab gui`"
    )
}

#[cfg(test)]
mod tests {
    use super::{check_output_file, check_screenshot};
    use std::path::Path;

    fn refusal(path: &Path) -> String {
        check_screenshot(Some(path)).unwrap_err().to_string()
    }

    #[test]
    fn output_paths_must_have_their_extension_an_existing_folder_and_no_device_or_folder() {
        let dir = std::env::temp_dir().join(format!("pl-gui-args-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("folder.png")).unwrap();
        std::fs::write(dir.join("old.png"), b"an older capture").unwrap();

        assert!(check_screenshot(None).is_ok());
        assert!(check_screenshot(Some(&dir.join("new.png"))).is_ok());
        assert!(check_screenshot(Some(&dir.join("old.png"))).is_ok());
        assert!(refusal(Path::new("/dev/null")).contains("path ending in .png"));
        assert!(refusal(&dir.join("missing/shot.png")).contains("does not exist"));
        assert!(refusal(&dir.join("folder.png")).contains("not a regular file"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/dev/null", dir.join("device.png")).unwrap();
            assert!(refusal(&dir.join("device.png")).contains("not a regular file"));
            // The recording is held to the same rules.
            std::os::unix::fs::symlink("/dev/null", dir.join("device.gif")).unwrap();
            let record = |p: &Path| check_output_file("--record", p, "gif", "an animated GIF");
            assert!(record(&dir.join("new.gif")).is_ok());
            let err = record(&dir.join("device.gif")).unwrap_err().to_string();
            assert!(
                err.contains("--record") && err.contains("not a regular file"),
                "{err}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
