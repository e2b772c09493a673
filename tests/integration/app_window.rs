//! The desktop app in a real window: every shipped scenario opens, renders,
//! saves a screenshot that is not blank and shows the robots where the app
//! says they are, and the app exits cleanly. Needs a display; CI runs it
//! under Xvfb with software Vulkan:
//!
//!     xvfb-run -a -s "-screen 0 1440x900x24" cargo test --test integration app_window:: -- --ignored
#![cfg(feature = "gui")]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// An RGB(A) screenshot.
struct Image {
    width: usize,
    height: usize,
    channels: usize,
    pixels: Vec<u8>,
}

impl Image {
    fn read(path: &Path) -> Image {
        let file = std::io::BufReader::new(std::fs::File::open(path).expect("screenshot"));
        let mut reader = png::Decoder::new(file).read_info().expect("a PNG");
        let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut pixels).expect("PNG data");
        pixels.truncate(info.buffer_size());
        Image {
            width: info.width as usize,
            height: info.height as usize,
            channels: info.color_type.samples(),
            pixels,
        }
    }

    fn rgb(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * self.channels;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }

    /// Standard deviation of the grey level over the whole image.
    fn grey_deviation(&self) -> f64 {
        let grey: Vec<f64> = (0..self.height)
            .flat_map(|y| (0..self.width).map(move |x| (x, y)))
            .map(|(x, y)| self.rgb(x, y).iter().map(|&c| f64::from(c)).sum::<f64>() / 3.0)
            .collect();
        let mean = grey.iter().sum::<f64>() / grey.len() as f64;
        (grey.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / grey.len() as f64).sqrt()
    }

    /// Whether a pixel is brighter than the dark background and the faint
    /// grid (a channel above 110 of 255).
    fn bright(&self, x: usize, y: usize) -> bool {
        self.rgb(x, y).iter().any(|&c| c > 110)
    }

    /// Pixels in `rect` that belong to a lit surface: bright, and so are
    /// their eight neighbours. Gizmo lines (trails, axes, ellipses, arrows)
    /// are two pixels wide, so they have none; a drawn robot has many.
    fn solid_pixels(&self, rect: [f64; 4]) -> usize {
        let x0 = (rect[0].max(1.0) as usize).min(self.width - 2);
        let y0 = (rect[1].max(1.0) as usize).min(self.height - 2);
        let x1 = (rect[2].max(1.0) as usize).min(self.width - 2);
        let y1 = (rect[3].max(1.0) as usize).min(self.height - 2);
        (y0..=y1)
            .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
            .filter(|&(x, y)| (0..9).all(|k| self.bright(x + k % 3 - 1, y + k / 3 - 1)))
            .count()
    }
}

fn capture(open: Option<&Path>, name: &str) -> (Image, serde_json::Value) {
    capture_at_speed(open, name, 1.0)
}

/// [`capture`] with the playback at `speed` (x real time).
fn capture_at_speed(open: Option<&Path>, name: &str, speed: f64) -> (Image, serde_json::Value) {
    capture_after(open, name, speed, 30)
}

/// [`capture_at_speed`] after `frames` frames.
fn capture_after(
    open: Option<&Path>,
    name: &str,
    speed: f64,
    frames: u32,
) -> (Image, serde_json::Value) {
    capture_with(open, name, speed, frames, &[])
}

/// [`capture_after`] with more arguments for the app.
fn capture_with(
    open: Option<&Path>,
    name: &str,
    speed: f64,
    frames: u32,
    more: &[&str],
) -> (Image, serde_json::Value) {
    // Kept after the run, for a look at what the app showed.
    let dir = common::kept_dir("app-window");
    let shot = dir.join(format!("{name}.png"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_passivity-lab"));
    cmd.arg("gui");
    if let Some(p) = open {
        cmd.arg(p);
    }
    let out = cmd
        .args(["--speed", &speed.to_string()])
        .args(more)
        .args(["--frames", &frames.to_string(), "--screenshot"])
        .arg(&shot)
        .current_dir(common::repo_path(""))
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{name}: the app failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shot.with_extension("json")).unwrap())
            .unwrap();
    let image = Image::read(&shot);
    // The trails' points are many: left out of the log.
    let mut shown = report.clone();
    if let Some(r) = shown.as_object_mut() {
        r.remove("trails_px");
    }
    eprintln!("{name}: {shown}");
    (image, report)
}

/// Pixels of the handles' and springs' yellow within `radius` of (x, y).
fn yellow_near(image: &Image, x: f64, y: f64, radius: f64) -> usize {
    let (x0, x1) = ((x - radius).max(0.0) as usize, (x + radius) as usize);
    let (y0, y1) = ((y - radius).max(0.0) as usize, (y + radius) as usize);
    (y0..y1.min(image.height))
        .flat_map(|py| (x0..x1.min(image.width)).map(move |px| (px, py)))
        .filter(|&(px, py)| {
            let [r, g, b] = image.rgb(px, py);
            r > 170 && g > 130 && b < 110 && r >= g
        })
        .count()
}

/// The 3-D view's rectangle as the app reports it (its camera's viewport,
/// physical pixels: x, y, width, height), checked against the screenshot:
/// along the view's top row, its background (the clear colour, bluish grey,
/// where the egui panels are neutral grey) spans exactly that width.
fn view_rect(image: &Image, report: &serde_json::Value, name: &str) -> [f64; 4] {
    let r: Vec<f64> = report["viewport_px"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: no 3-D viewport"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let y = r[1] as usize + 2;
    let bluish: Vec<usize> = (0..image.width)
        .filter(|&x| {
            let [red, _, blue] = image.rgb(x, y);
            blue > red.saturating_add(4)
        })
        .collect();
    let (Some(&first), Some(&last)) = (bluish.first(), bluish.last()) else {
        panic!("{name}: no 3-D view background along row {y}");
    };
    let seen = (last + 1 - first) as f64;
    eprintln!(
        "{name}: 3-D view {r:?}, seen from x = {first} to {last}: {:.1} % of the width",
        100.0 * seen / image.width as f64
    );
    assert!(
        (first as f64 - r[0]).abs() <= 2.0 && (seen - r[2]).abs() <= 3.0,
        "{name}: the 3-D view on screen (x = {first} to {last}) is not the camera's viewport {r:?}"
    );
    [r[0], r[1], r[2], r[3]]
}

/// Checks what every scenario must show, with the playback at `speed`
/// (x real time), and returns the capture report.
fn check(open: Option<&Path>, name: &str, variants: usize, speed: f64) -> serde_json::Value {
    let (image, report) = capture_at_speed(open, name, speed);
    // The default layout leaves the 3-D view at least 60 % of the width
    // (issue 36; the two side panels left it about 40 %).
    let view = view_rect(&image, &report, name);
    assert!(
        view[2] >= 0.6 * image.width as f64,
        "{name}: the 3-D view is {:.0} of {} pixels wide",
        view[2],
        image.width
    );
    // The target handle of every variant is drawn (issue 13).
    let handles = report["handles_px"].as_array().unwrap();
    assert_eq!(handles.len(), variants, "{name}: one handle per variant");
    for h in handles {
        let (x, y) = (h[0].as_f64().unwrap(), h[1].as_f64().unwrap());
        let yellow = yellow_near(&image, x, y, 30.0);
        eprintln!("{name}: handle at ({x:.0}, {y:.0}): {yellow} yellow pixels");
        assert!(yellow > 10, "{name}: no handle drawn at ({x:.0}, {y:.0})");
    }
    // An active spring (the recorded drag of panda_drag) is drawn along
    // its segment.
    for s in report["springs_px"].as_array().unwrap() {
        let s: Vec<f64> = s
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let (mx, my) = (0.5 * (s[0] + s[2]), 0.5 * (s[1] + s[3]));
        let yellow = yellow_near(&image, mx, my, 6.0);
        eprintln!("{name}: spring {s:.0?}: {yellow} yellow pixels at its middle");
        assert!(yellow > 0, "{name}: the spring {s:?} is not drawn");
    }
    if name == "panda_drag" {
        assert!(
            !report["springs_px"].as_array().unwrap().is_empty(),
            "{name}: the recorded drag's spring is on screen"
        );
    }
    let size = &report["window_px"];
    assert_eq!(image.width as u64, size[0].as_u64().unwrap(), "{name}");
    assert_eq!(image.height as u64, size[1].as_u64().unwrap(), "{name}");
    assert!(
        image.grey_deviation() > 10.0,
        "{name}: the screenshot is blank"
    );
    assert_eq!(report["variants"].as_u64(), Some(variants as u64), "{name}");
    assert_eq!(report["fallback_parts"].as_u64(), Some(0), "{name}");
    let rects = report["robot_rects_px"].as_array().unwrap();
    assert_eq!(rects.len(), variants, "{name}");
    for (i, r) in rects.iter().enumerate() {
        let r: Vec<f64> = r
            .as_array()
            .unwrap_or_else(|| panic!("{name}: robot {i} is not on screen"))
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(
            r[2] > 0.0 && r[0] < image.width as f64 && r[3] > 0.0 && r[1] < image.height as f64,
            "{name}: robot {i} is off the window: {r:?}"
        );
        let centre = (0.5 * (r[0] + r[2]), 0.5 * (r[1] + r[3]));
        assert!(
            centre.0 > view[0]
                && centre.0 < view[0] + view[2]
                && centre.1 > view[1]
                && centre.1 < view[1] + view[3],
            "{name}: robot {i} ({r:?}) is not in the 3-D view {view:?}"
        );
        let solid = image.solid_pixels([r[0], r[1], r[2], r[3]]);
        eprintln!("{name}: robot {i}: {solid} lit pixels in {r:?}");
        // Measured: 1200-4300 per robot; with the robots hidden, the gizmos'
        // crossings (frame axes, ellipsoid, arrow) give at most ~210. The
        // point mass's small ball in its still view: 72-352 in boxes of
        // about 700 pixels (72 for a ball below the ground grid, dimmed by
        // its lines), where 2-pixel gizmo lines alone give a few.
        let area = (r[2] - r[0]) * (r[3] - r[1]);
        assert!(
            solid as f64 > (0.05 * area).min(600.0),
            "{name}: robot {i} is not drawn ({solid} lit pixels in {r:?})"
        );
    }
    report
}

#[test]
#[ignore = "needs a display: run under xvfb-run (see .ci/run)"]
fn every_shipped_scenario_renders_its_robots() {
    // The point mass's still view frames the first 2 s of its run (its
    // climb out of the plane): captured at 0.1x, within 0.75 s (30 frames
    // of at most 250 ms), the mass is still in it.
    let point_mass_speed = 0.1;
    check(None, "embedded_default", 2, point_mass_speed);
    let scenarios: Vec<PathBuf> = std::fs::read_dir(common::repo_path("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    assert!(scenarios.len() >= 4);
    for path in scenarios {
        let text = std::fs::read_to_string(&path).unwrap();
        let variants = text.matches("[[variants]]").count().max(1);
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let speed = if text.contains("builtin = \"point_mass\"") {
            point_mass_speed
        } else {
            1.0
        };
        let report = check(Some(&path), &name, variants, speed);
        assert!(report["lesson"].is_null(), "{name}: {}", report["lesson"]);
        if text.contains("[[loop_closures]]") {
            check_chain_view(&name, &report);
        }
    }
    // Every lesson of the torsion lab renders with its lesson panel.
    let mut lessons: Vec<PathBuf> = std::fs::read_dir(common::repo_path("scenarios/lessons"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    lessons.sort();
    assert_eq!(lessons.len(), 7);
    for path in &lessons {
        let text = std::fs::read_to_string(path).unwrap();
        let variants = text.matches("[[variants]]").count().max(1);
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let speed = if text.contains("builtin = \"point_mass\"") {
            point_mass_speed
        } else {
            1.0
        };
        let report = check(Some(path), &name, variants, speed);
        assert!(report["lesson"].is_string(), "{name}: no lesson panel");
    }
}

/// A closed loop's green (chain_view.rs's CLOSED_COLOR, unlit): green far
/// above red and blue, which no lit variant tint reaches.
fn loop_green([r, g, b]: [u8; 3]) -> bool {
    g > 200 && u16::from(r) * 2 < u16::from(g) && u16::from(b) * 2 < u16::from(g)
}

/// An independent joint's orange (INDEPENDENT_COLOR, unlit): the orange
/// variant tint is lit over a blue of at least 70.
fn joint_orange([r, g, b]: [u8; 3]) -> bool {
    r > 200 && (70..170).contains(&g) && b < 40
}

/// A reported point on screen.
fn screen_point(p: &serde_json::Value, what: &str) -> (f64, f64) {
    let p = p
        .as_array()
        .unwrap_or_else(|| panic!("{what} is not on screen"));
    (p[0].as_f64().unwrap(), p[1].as_f64().unwrap())
}

/// Issue 33 sec. 5: every variant of a closed chain draws each loop
/// closure green (closed) at both its frames and a ring at each
/// independent joint. The closure's ring has a 60 mm radius, 5 px on the
/// farthest Delta and 21 px on the nearest four-bar: looked for within
/// 40 px (no other drawing has its green).
fn check_chain_view(name: &str, report: &serde_json::Value) {
    let image = Image::read(&common::kept_dir("app-window").join(format!("{name}.png")));
    let variants = report["chain_view"]["variants"].as_array().unwrap();
    assert!(!variants.is_empty(), "{name}: no chain view");
    for (i, v) in variants.iter().enumerate() {
        assert!(!v.is_null(), "{name}: variant {i} is not drawn as a chain");
        for c in v["closures"].as_array().unwrap() {
            assert_eq!(c["closed"], true, "{name}: variant {i}: {c}");
            for side in ["frame_a", "frame_b"] {
                let at = screen_point(&c[side], &format!("{name}: variant {i}'s {side}"));
                let green = count_near(&image, at, 40.0, loop_green);
                eprintln!("{name}: variant {i}: loop {side} at {at:.0?}: {green} green pixels");
                assert!(
                    green >= 4,
                    "{name}: variant {i}: no closed loop drawn at {at:?}"
                );
            }
        }
        let joints = v["independent_joints"].as_array().unwrap();
        assert!(
            !joints.is_empty(),
            "{name}: variant {i}: no independent joint"
        );
        for j in joints {
            let at = screen_point(j, &format!("{name}: variant {i}'s independent joint"));
            let orange = count_near(&image, at, 12.0, joint_orange);
            eprintln!("{name}: variant {i}: independent joint at {at:.0?}: {orange} orange pixels");
            assert!(
                orange >= 4,
                "{name}: variant {i}: no ring at the joint {at:?}"
            );
        }
    }
}

/// Pixels within `radius` of (x, y) whose colour is saturated (channels
/// spread by more than 60 of 255): the variants' colours, not the grey
/// background, grid or reference vectors.
fn saturated_near(image: &Image, x: f64, y: f64, radius: f64) -> usize {
    let (x0, x1) = ((x - radius).max(0.0) as usize, (x + radius) as usize);
    let (y0, y1) = ((y - radius).max(0.0) as usize, (y + radius) as usize);
    (y0..y1.min(image.height))
        .flat_map(|py| (x0..x1.min(image.width)).map(move |px| (px, py)))
        .filter(|&(px, py)| {
            let c = image.rgb(px, py);
            c.iter().max().unwrap() - c.iter().min().unwrap() > 60
        })
        .count()
}

/// The point 85 % of the way along a reported segment, and its length.
fn along(segment: &serde_json::Value) -> (f64, f64, f64) {
    let s: Vec<f64> = segment
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let length = (s[2] - s[0]).hypot(s[3] - s[1]);
    (
        s[0] + 0.85 * (s[2] - s[0]),
        s[1] + 0.85 * (s[3] - s[1]),
        length,
    )
}

#[test]
#[ignore = "needs a display: run under xvfb-run (see .ci/run)"]
fn the_torsion_lab_shows_contorsion_and_transport() {
    // Lesson 1: the contorsion force of both torsion variants as a red
    // arrow on the mass (Wensing, Englsberger & Slotine (2023), sec. IV-A2); none for C*.
    let lesson = common::repo_path("scenarios/lessons/01_point_mass.toml");
    // Early, while the mass is pushed off the plane: at 0.1x speed 30
    // frames advance at most 0.75 s of the run (a frame, at most 250 ms).
    let (image, report) = capture_at_speed(Some(&lesson), "01_point_mass_arrows", 0.1);
    let view = &report["torsion_view"];
    assert_eq!(view["contorsion"], true);
    let arrows = view["contorsion_px"].as_array().unwrap();
    assert_eq!(arrows.len(), 3);
    assert!(
        arrows[0].is_null(),
        "C* has no contorsion force: {}",
        arrows[0]
    );
    for (i, arrow) in arrows.iter().enumerate().skip(1) {
        let (x, y, length) = along(arrow);
        let red = (0..image.height)
            .flat_map(|py| (0..image.width).map(move |px| (px, py)))
            .filter(|&(px, py)| (px as f64 - x).hypot(py as f64 - y) < 5.0)
            .filter(|&(px, py)| {
                let [r, g, b] = image.rgb(px, py);
                r > 170 && g < 130 && b < 130
            })
            .count();
        eprintln!("variant {i}: contorsion arrow {arrow} ({length:.0} px): {red} red pixels");
        assert!(length > 20.0, "variant {i}: the arrow is too short to see");
        assert!(red > 0, "variant {i}: the contorsion arrow is not drawn");
    }
    // Lesson 5 opens the Transport view: each variant's three transported
    // vectors are drawn in its colours at the mass.
    let lesson = common::repo_path("scenarios/lessons/05_parallel_transport.toml");
    let (image, report) = capture(Some(&lesson), "05_transport_view");
    let view = &report["torsion_view"];
    assert_eq!(view["transport"], true, "{view}");
    let variants = view["transport_px"].as_array().unwrap();
    assert_eq!(variants.len(), 2);
    for (i, vectors) in variants.iter().enumerate() {
        let vectors = vectors.as_array().unwrap();
        assert_eq!(vectors.len(), 3, "variant {i}: three transported vectors");
        // The ball's width on screen: a vector seen end-on hides behind it.
        let ball = &report["robot_rects_px"][i];
        let ball = ball[2].as_f64().unwrap() - ball[0].as_f64().unwrap();
        let mut seen = 0;
        for v in vectors {
            let (x, y, length) = along(v);
            let coloured = saturated_near(&image, x, y, 4.0);
            eprintln!("variant {i}: vector {v} ({length:.0} px): {coloured} coloured pixels");
            // Those that reach 15 px beyond the ball show.
            if length > 0.5 * ball + 15.0 {
                assert!(coloured > 0, "variant {i}: vector {v} is not drawn");
                seen += 1;
            }
        }
        assert!(
            seen >= 2,
            "variant {i}: at most one vector long enough on screen"
        );
    }
    let angles = view["angles_rad"].as_array().unwrap();
    assert_eq!(angles[0].as_f64(), Some(0.0), "C* against itself");
    assert!(angles[1].as_f64().unwrap() > 0.0, "torsion turns the frame");
}

#[test]
#[ignore = "needs a display: run under xvfb-run (see .ci/run)"]
fn a_recording_is_an_animated_gif() {
    let dir = common::kept_dir("app-window");
    let gif = dir.join("lesson5.gif");
    let _ = std::fs::remove_file(&gif);
    let out = Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .arg("gui")
        .arg(common::repo_path(
            "scenarios/lessons/05_parallel_transport.toml",
        ))
        .args(["--seconds", "2", "--record"])
        .arg(&gif)
        .current_dir(common::repo_path(""))
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the app failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{stdout}");
    assert!(stdout.contains("frames/s"), "{stdout}");
    let bytes = std::fs::read(&gif).unwrap();
    let mut decoder = gif::DecodeOptions::new()
        .read_info(std::io::Cursor::new(bytes))
        .unwrap();
    // The 1440-pixel window is halved.
    assert!(
        decoder.width() <= 960 && decoder.width() >= 600,
        "{}",
        decoder.width()
    );
    let (mut frames, mut centiseconds) = (0, 0u32);
    while let Some(f) = decoder.read_next_frame().unwrap() {
        frames += 1;
        centiseconds += u32::from(f.delay);
        assert!(f.delay > 0);
    }
    eprintln!("{frames} frames over {} s", f64::from(centiseconds) / 100.0);
    // About 10 frames a second asked for; a software renderer gives fewer
    // (2 frames/s measured under Xvfb with llvmpipe on the shared 2-core
    // machine). Each frame lasts until the next, so the GIF spans the
    // recording from its first frame.
    assert!(frames >= 2, "{frames} frames");
    assert!((100..=300).contains(&centiseconds), "{centiseconds} cs");
    // The frames show the window, not a blank (the alpha channel of the
    // screenshots must not become GIF transparency).
    let bytes = std::fs::read(&gif).unwrap();
    let mut decoder = gif::DecodeOptions::new();
    decoder.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = decoder.read_info(std::io::Cursor::new(bytes)).unwrap();
    let frame = decoder.read_next_frame().unwrap().unwrap();
    let bright = frame
        .buffer
        .chunks_exact(4)
        .filter(|p| p[3] == 255 && p[..3].iter().any(|&c| c > 110))
        .count();
    eprintln!("first frame: {bright} bright pixels");
    assert!(
        bright > 2000,
        "the first frame is blank ({bright} bright pixels)"
    );
}

#[test]
#[ignore = "needs a display: run under xvfb-run (see .ci/run)"]
fn a_broken_scenario_opens_the_default_with_a_message() {
    let dir = common::kept_dir("app-window");
    let bad = dir.join("broken.toml");
    std::fs::write(
        &bad,
        "name = \"broken\"\n[robot]\nurdf = \"missing.urdf\"\n",
    )
    .unwrap();
    let (image, report) = capture(Some(&bad), "broken");
    assert_eq!(report["scenario"], "point_mass_torsion");
    let messages = report["messages"].to_string();
    assert!(
        messages.contains("broken.toml") && messages.contains("missing field"),
        "{messages}"
    );
    assert!(image.grey_deviation() > 10.0);
}

#[test]
#[ignore = "needs a display: run under xvfb-run (see .ci/run)"]
fn the_point_mass_climb_shows_in_a_still_image() {
    // The embedded experiment: C* against beta-torsion. Its view is the
    // still one of Wensing, Englsberger & Slotine (2023), Fig. 6.
    // At 0.1x: within the first 0.75 s, where the variants part.
    let (image, report) = capture_at_speed(None, "point_mass_still_view", 0.1);
    let view = view_rect(&image, &report, "point_mass_still_view");
    let trails = report["trails_px"].as_array().unwrap();
    assert_eq!(trails.len(), 2);
    let point = |p: &serde_json::Value| {
        p.as_array()
            .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
    };
    let (c_star, torsion) = (trails[0].as_array().unwrap(), trails[1].as_array().unwrap());
    // The camera stayed still: the start is still in the view.
    let (x, y) = point(&c_star[0]).expect("the start is in front of the camera");
    assert!(
        x > view[0] && x < view[0] + view[2] && y > view[1] && y < view[1] + view[3],
        "the start ({x:.0}, {y:.0}) left the view {view:?}"
    );
    // The torsion variant's trail leaves C*'s: the same instants, apart
    // on screen.
    let apart = c_star
        .iter()
        .zip(torsion)
        .filter_map(|(a, b)| Some((point(a)?, point(b)?)))
        .map(|((ax, ay), (bx, by))| (ax - bx).hypot(ay - by))
        .fold(0.0, f64::max);
    eprintln!(
        "{} samples; the trails at most {apart:.0} px apart",
        c_star.len()
    );
    assert!(c_star.len() > 10, "{} samples", c_star.len());
    assert!(apart >= 20.0, "the trails are at most {apart:.1} px apart");
}

/// The screen points of a reported list ([x, y] or null each).
fn screen_points(list: &serde_json::Value) -> Vec<(f64, f64)> {
    list.as_array()
        .unwrap()
        .iter()
        .filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?)))
        .collect()
}

/// Pixels in the rectangle (x0, y0, x1, y1) that `is` accepts.
fn count_in(image: &Image, rect: [f64; 4], is: impl Fn([u8; 3]) -> bool) -> usize {
    let x0 = rect[0].max(0.0) as usize;
    let y0 = rect[1].max(0.0) as usize;
    let x1 = (rect[2].max(0.0) as usize).min(image.width);
    let y1 = (rect[3].max(0.0) as usize).min(image.height);
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| is(image.rgb(x, y)))
        .count()
}

/// The support polygon's spring green (0, 255, 128): no variant tint, lit
/// or not, has green far above both red and blue with blue above red.
fn polygon_green([r, g, b]: [u8; 3]) -> bool {
    g > 170 && r < 110 && b > r && g > b.saturating_add(50)
}

/// The desired wrench's magenta force arrow (255, 77, 217).
fn wrench_magenta([r, g, b]: [u8; 3]) -> bool {
    r > 200 && g < 140 && b > 150
}

#[test]
#[ignore = "needs a display: run under xvfb-run (see .ci/run)"]
fn a_standing_robot_shows_its_balance_and_the_push_supply() {
    // Issue 32 sec. 5 on solo12_stand_push: per variant with contacts of
    // its controller (all but the joint PD+), the support polygon drawn
    // around its feet, the desired wrench's arrow at its CoM; the first
    // scripted push (6 N sideways at 1 s) has supplied energy by the
    // capture. 60 frames: past t = 1.1 s at the debug build's 90 steps a
    // frame.
    let path = common::repo_path("scenarios/solo12_stand_push.toml");
    let (image, report) = capture_after(Some(&path), "solo12_balance_view", 1.0, 60);
    let t = report["simulated_time_s"].as_f64().unwrap();
    let balance = &report["balance_view"];
    let variants = balance["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 5);
    let rects = report["robot_rects_px"].as_array().unwrap();
    for (i, v) in variants.iter().enumerate() {
        let robot: Vec<f64> = rects[i]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        if v.is_null() {
            // The joint PD+ has no contacts of its own: no polygon drawn
            // below it.
            let green = count_in(
                &image,
                [robot[0], robot[1], robot[2], robot[3]],
                polygon_green,
            );
            eprintln!("variant {i}: no balance view; {green} polygon-green pixels at its robot");
            assert!(green < 5, "variant {i}: a polygon drawn without contacts");
            continue;
        }
        let polygon = screen_points(&v["polygon"]);
        assert_eq!(polygon.len(), 4, "variant {i}: {v}");
        let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
        for &(x, y) in &polygon {
            lo = (lo.0.min(x), lo.1.min(y));
            hi = (hi.0.max(x), hi.1.max(y));
        }
        let green = count_in(
            &image,
            [lo.0 - 4.0, lo.1 - 4.0, hi.0 + 4.0, hi.1 + 4.0],
            polygon_green,
        );
        // Near each foot: within 25 px of its corner.
        let near_feet = polygon
            .iter()
            .filter(|&&(x, y)| {
                count_in(
                    &image,
                    [x - 25.0, y - 25.0, x + 25.0, y + 25.0],
                    polygon_green,
                ) > 0
            })
            .count();
        let (cx, cy) = screen_points(&serde_json::json!([v["com"]]))[0];
        // The wrench's force arrow rises from the CoM (about m g up).
        let magenta = count_in(
            &image,
            [cx - 30.0, cy - 120.0, cx + 30.0, cy + 5.0],
            wrench_magenta,
        );
        eprintln!(
            "variant {i}: polygon {polygon:.0?}: {green} green pixels, {near_feet} of 4 feet with green near; CoM ({cx:.0}, {cy:.0}) {magenta} magenta pixels above; margin {} m",
            v["margin_m"]
        );
        assert!(green > 40, "variant {i}: the support polygon is not drawn");
        assert!(
            near_feet >= 3,
            "variant {i}: the polygon is not at the feet"
        );
        assert!(
            magenta > 5,
            "variant {i}: no desired wrench arrow at the CoM"
        );
        assert!(v["margin_m"].as_f64().unwrap() > 0.03, "variant {i}: {v}");
    }
    let supply: Vec<f64> = balance["supply_j"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    eprintln!("t = {t:.2} s, supply {supply:?} J");
    assert!(
        t > 1.1,
        "the capture came before the first push ended: t = {t}"
    );
    // The push enters the storage of every law whose port has the base's
    // speeds (the joint PD+'s port is the joints' alone: 0 J).
    for (i, s) in supply.iter().enumerate() {
        if !variants[i].is_null() {
            assert!(*s > 1e-4, "variant {i}: the push supplied {s} J");
        }
    }
}

#[test]
#[ignore = "needs a display: run under xvfb-run (see .ci/run)"]
fn what_egui_no_longer_draws_leaves_no_trail() {
    // Issue 36: egui drawn over the 3-D viewport left trails of earlier
    // frames (its camera, the window's second, wrote its last frame back
    // before drawing the next). The plots start docked below the view and
    // move to its right at frame 12: by frame 30 the strip they left is
    // the 3-D view's background, not the old panel.
    let path = common::repo_path("scenarios/panda_task_circle.toml");
    let args = ["--move-plots-at", "12"];
    let (image, report) = capture_with(Some(&path), "plots_moved_right", 1.0, 30, &args);
    assert_eq!(report["plots_dock"], "Right", "{}", report["plots_dock"]);
    let view = view_rect(&image, &report, "plots_moved_right");
    let bottom = view[1] + view[3];
    assert!(
        bottom >= image.height as f64 - 1.0,
        "the 3-D view ({view:?}) does not take the strip the plots left"
    );
    // Rows near the window's bottom, where the plots were: the clear
    // colour is bluish grey, egui's panels neutral grey.
    let (x0, x1) = (view[0] as usize + 2, (view[0] + view[2]) as usize - 2);
    for y in [image.height - 12, image.height - 100] {
        let bluish = (x0..x1)
            .filter(|&x| {
                let [r, _, b] = image.rgb(x, y);
                b > r.saturating_add(4)
            })
            .count();
        let share = bluish as f64 / (x1 - x0) as f64;
        eprintln!(
            "row {y}: {:.1} % of the 3-D view's background",
            100.0 * share
        );
        assert!(share > 0.7, "row {y}: the old plots panel stays on screen");
    }
}

/// The pure red (255, 0, 0) of a non-physical estimate's marker, drawn over
/// everything: the variants' tints and trails (palette red is 214, 39, 40)
/// keep green and blue above 30.
fn marker_red([r, g, b]: [u8; 3]) -> bool {
    r > 180 && g < 30 && b < 30
}

/// The estimates' gold (0.95, 0.75, 0.15), lit, seen through a translucent
/// robot: red and green well above blue, which no variant tint has.
fn estimate_gold([r, g, b]: [u8; 3]) -> bool {
    r > 110 && g > 80 && u16::from(b) * 2 < u16::from(g)
}

/// Pixels within `radius` of (x, y) that `is` accepts.
fn count_near(
    image: &Image,
    (x, y): (f64, f64),
    radius: f64,
    is: impl Fn([u8; 3]) -> bool,
) -> usize {
    let x0 = (x - radius).max(0.0) as usize;
    let y0 = (y - radius).max(0.0) as usize;
    let x1 = ((x + radius).max(0.0) as usize + 1).min(image.width);
    let y1 = ((y + radius).max(0.0) as usize + 1).min(image.height);
    (y0..y1)
        .flat_map(|py| (x0..x1).map(move |px| (px, py)))
        .filter(|&(px, py)| (px as f64 - x).hypot(py as f64 - y) <= radius)
        .filter(|&(px, py)| is(image.rgb(px, py)))
        .count()
}

#[test]
#[ignore = "needs a display: run under xvfb-run (see .ci/run)"]
fn the_adaptation_lesson_shows_ellipsoids_and_red_non_physical_estimates() {
    // Issue 35: lesson 7 opens the inertia view; the natural law's estimates
    // (variant 0) are drawn as gold ellipsoids, none red; the Euclidean
    // law's (variant 1, Gamma = 2) leave the physical set at the first
    // steps and show as red markers.
    let lesson = common::repo_path("scenarios/lessons/07_physical_adaptation.toml");
    let report = check(Some(&lesson), "07_physical_adaptation", 2, 1.0);
    let image = Image::read(&common::kept_dir("app-window").join("07_physical_adaptation.png"));
    let view = &report["inertia_view"];
    assert_eq!(
        view["show"], true,
        "the lesson opens the inertia view: {view}"
    );
    let variants = view["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 2);
    assert_eq!(variants[0]["law"], "natural");
    assert_eq!(variants[1]["law"], "Euclidean");
    let bodies = |i: usize| variants[i]["bodies"].as_array().unwrap().clone();
    let disc = |b: &serde_json::Value| {
        let c = &b["center_px"];
        let centre = (c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
        (centre, b["radius_px"].as_f64().unwrap().clamp(2.0, 12.0))
    };
    // The natural law: every body physical, an ellipsoid each; gold shows at
    // most of them (the fingers' are a pixel or two), red at none.
    let natural = bodies(0);
    assert_eq!(natural.len(), 9);
    let mut gold_bodies = 0;
    for b in &natural {
        assert_eq!(b["non_physical"], false, "natural: {b}");
        let (centre, radius) = disc(b);
        let gold = count_near(&image, centre, radius, estimate_gold);
        let red = count_near(&image, centre, radius, marker_red);
        eprintln!("natural: body at {centre:.0?}, {radius:.0} px: {gold} gold, {red} red pixels");
        assert_eq!(red, 0, "natural: a red pixel at a physical estimate {b}");
        gold_bodies += usize::from(gold > 0);
    }
    assert!(
        gold_bodies >= 5,
        "natural: gold at {gold_bodies} of 9 bodies"
    );
    // The Euclidean law: non-physical bodies, each a red marker on screen.
    let euclidean = bodies(1);
    let markers: Vec<_> = euclidean
        .iter()
        .filter(|b| b["non_physical"] == true)
        .collect();
    let mut red_markers = 0;
    for b in &markers {
        let (centre, radius) = disc(b);
        let red = count_near(&image, centre, radius, marker_red);
        eprintln!("Euclidean: marker at {centre:.0?}, {radius:.0} px: {red} red pixels");
        red_markers += usize::from(red > 0);
    }
    assert!(
        markers.len() >= 4,
        "Euclidean: {} non-physical bodies",
        markers.len()
    );
    // The markers are drawn over everything (measured: 261-309 red pixels
    // at each of 8).
    assert_eq!(
        red_markers,
        markers.len(),
        "Euclidean: red at {red_markers} of {} markers",
        markers.len()
    );
}
