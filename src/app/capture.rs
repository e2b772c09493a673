//! Screenshots: on request (button, F12) into `screenshots/`, and the
//! scripted `--screenshot PATH --frames N` capture that renders N frames,
//! saves the window, writes what was on screen and what the frames cost to
//! PATH with the extension `json`, and exits (for scripted captures and the
//! window test); it can move the plots to their next dock at a given frame
//! (the window test checks that nothing of the old panel stays on screen).

use super::balance_view::BalanceViewState;
use super::camera::OrbitCamera;
use super::chain_view::ChainViewState;
use super::inertia_view::{solid_placement, EstimateSolid, InertiaViewSettings, InertiaViewState};
use super::layout::Layout;
use super::robot_view::{point, RobotPart};
use super::session::{Notices, Playback, Session};
use super::torsion_view::{
    contorsion_tip, transported_segments, TorsionViewSettings, TorsionViewState,
};
use bevy::camera::primitives::Aabb;
use bevy::prelude::*;
use bevy::render::view::screenshot::{save_to_disk, Screenshot};
use bevy::window::PrimaryWindow;
use std::path::PathBuf;

/// Take a screenshot of the window now.
#[derive(Message, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TakeScreenshot;

/// Frames of the scripted capture not counted in the averages (pipelines
/// compile and meshes upload in the first frames).
const WARM_UP: u32 = 5;

/// Frames to wait for the screenshot file before giving up.
const PATIENCE: u32 = 600;

/// The scripted capture, if any, and what the frames cost.
#[derive(Resource, Clone, Debug, Default)]
pub struct ScriptedCapture {
    pub screenshot: Option<PathBuf>,
    pub frames: Option<u32>,
    /// The frame at which the plots move to their next dock.
    pub move_plots_at: Option<u32>,
    frame: u32,
    frame_seconds: f64,
    sim_seconds: f64,
    steps: u64,
    measured: u32,
}

impl ScriptedCapture {
    pub fn new(
        screenshot: Option<PathBuf>,
        frames: Option<u32>,
        move_plots_at: Option<u32>,
    ) -> Self {
        let frames = frames.or(screenshot.as_ref().map(|_| 30));
        ScriptedCapture {
            screenshot,
            frames,
            move_plots_at,
            ..default()
        }
    }
}

pub struct CapturePlugin;

impl Plugin for CapturePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ScriptedCapture>()
            .add_message::<TakeScreenshot>()
            .add_systems(Update, take_screenshots)
            .add_systems(
                PostUpdate,
                scripted_capture.after(bevy::transform::TransformSystems::Propagate),
            );
    }
}

fn take_screenshots(
    mut requests: MessageReader<TakeScreenshot>,
    mut commands: Commands,
    mut notices: ResMut<Notices>,
) {
    for _ in requests.read() {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let dir = PathBuf::from("screenshots");
        if let Err(e) = std::fs::create_dir_all(&dir) {
            notices.error(format!("cannot create {}: {e}", dir.display()));
            continue;
        }
        let path = dir.join(format!("passivity-lab-{stamp}.png"));
        // Bevy writes the file once the frame is captured (and logs a
        // failure then): say what is under way, not that it is done.
        notices.info(format!("saving a screenshot to {}", path.display()));
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path));
    }
}

/// Per variant, the screen rectangle (physical pixels: x0, y0, x1, y1)
/// covered by its robot's bounding boxes; and how many parts there are and
/// how many of them are stand-ins.
fn robots_on_screen(
    parts: &Query<(&RobotPart, &GlobalTransform, Option<&Aabb>)>,
    camera: (&Camera, &GlobalTransform),
    scale: f32,
    variants: usize,
) -> (Vec<Option<[f32; 4]>>, usize, usize) {
    let mut bounds = vec![(Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)); variants];
    let (mut count, mut fallbacks) = (0, 0);
    for (part, transform, aabb) in parts {
        count += 1;
        fallbacks += usize::from(part.fallback);
        let Some((lo, hi)) = bounds.get_mut(part.variant) else {
            continue;
        };
        let (centre, half) = aabb.map_or((Vec3::ZERO, Vec3::ZERO), |a| {
            (Vec3::from(a.center), Vec3::from(a.half_extents))
        });
        for corner in 0..8 {
            let sign = Vec3::new(
                if corner & 1 == 0 { -1.0 } else { 1.0 },
                if corner & 2 == 0 { -1.0 } else { 1.0 },
                if corner & 4 == 0 { -1.0 } else { 1.0 },
            );
            let world = transform.transform_point(centre + sign * half);
            if let Ok(p) = camera.0.world_to_viewport(camera.1, world) {
                *lo = lo.min(p * scale);
                *hi = hi.max(p * scale);
            }
        }
    }
    let rects = bounds
        .into_iter()
        .map(|(lo, hi)| (lo.x <= hi.x).then_some([lo.x, lo.y, hi.x, hi.y]))
        .collect();
    (rects, count, fallbacks)
}

/// On screen (physical pixels): each variant's target handle, and each
/// active spring from its link point to its anchor.
fn handles_and_springs(
    session: &Session,
    layout: &super::robot_view::ViewLayout,
    camera: (&Camera, &GlobalTransform),
    scale: f32,
) -> (Vec<[f32; 2]>, Vec<[f32; 4]>) {
    let count = session.variants.len();
    let screen = |p: Vec3| {
        camera
            .0
            .world_to_viewport(camera.1, p)
            .ok()
            .map(|p| p * scale)
    };
    let (mut handles, mut springs) = (Vec::new(), Vec::new());
    for (i, v) in session.variants.iter().enumerate() {
        let offset = layout.offset(i, count);
        let desired = v.view.last().map(|s| {
            Vec3::new(
                s.desired[0] as f32,
                s.desired[1] as f32,
                s.desired[2] as f32,
            )
        });
        if let Some(h) = desired.and_then(|d| screen(d + offset)) {
            handles.push([h.x, h.y]);
        }
        for w in &v.sim.disturbances.applied {
            let (p, a) = (point(&w.point) + offset, point(&w.anchor) + offset);
            if p.distance(a) > 1e-3 {
                if let (Some(p), Some(a)) = (screen(p), screen(a)) {
                    springs.push([p.x, p.y, a.x, a.y]);
                }
            }
        }
    }
    (handles, springs)
}

/// On screen (physical pixels): each variant's end-effector trail, the
/// points the trail is drawn through, one per recorded sample (null where a
/// point is behind the camera).
fn trails_on_screen(
    session: &Session,
    layout: &super::robot_view::ViewLayout,
    camera: (&Camera, &GlobalTransform),
    scale: f32,
) -> Vec<Vec<Option<[f32; 2]>>> {
    let count = session.variants.len();
    session
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let offset = layout.offset(i, count);
            v.view
                .iter()
                .map(|t| {
                    let p = Vec3::from_array(t.end_effector.map(|x| x as f32)) + offset;
                    let p = camera.0.world_to_viewport(camera.1, p).ok()? * scale;
                    Some([p.x, p.y])
                })
                .collect()
        })
        .collect()
}

/// On screen (physical pixels): each variant's transported vectors and
/// contorsion arrow as (x0, y0, x1, y1) from the end effector to the tip.
fn torsion_arrows(
    torsion: (&TorsionViewSettings, &TorsionViewState),
    layout: &super::robot_view::ViewLayout,
    camera: (&Camera, &GlobalTransform),
    scale: f32,
) -> serde_json::Value {
    let (settings, state) = torsion;
    let count = state.variants.len();
    let segment = |from: Vec3, to: Vec3| {
        let from = camera.0.world_to_viewport(camera.1, from).ok()? * scale;
        let to = camera.0.world_to_viewport(camera.1, to).ok()? * scale;
        Some([from.x, from.y, to.x, to.y])
    };
    let (mut transport, mut contorsion) = (Vec::new(), Vec::new());
    for (i, a) in state.variants.iter().enumerate() {
        let offset = layout.offset(i, count);
        let vectors: Vec<[f32; 4]> = transported_segments(settings, state, a, offset)
            .into_iter()
            .filter_map(|(from, to)| segment(from, to))
            .collect();
        transport.push(vectors);
        let tip = contorsion_tip(state, a, offset).filter(|_| settings.contorsion);
        contorsion.push(tip.and_then(|tip| segment(a.origin + offset, tip)));
    }
    serde_json::json!({
        "transport": settings.transport,
        "contorsion": settings.contorsion,
        "transport_px": transport,
        "contorsion_px": contorsion,
        "angles_rad": state.variants.iter().map(|a| a.angle).collect::<Vec<_>>(),
    })
}

/// A world point on screen (physical pixels), if in front of the camera.
type OnScreen<'a> = dyn Fn(&crate::spatial::Vec3) -> Option<[f32; 2]> + 'a;

/// Each variant's drawing reported by `report` (null where it has none),
/// given how a point of that variant (world, before the layout offset)
/// lands on screen.
fn per_variant_on_screen<G>(
    drawings: &[Option<G>],
    layout: &super::robot_view::ViewLayout,
    camera: (&Camera, &GlobalTransform),
    scale: f32,
    report: impl Fn(&G, &OnScreen) -> serde_json::Value,
) -> Vec<serde_json::Value> {
    let count = drawings.len();
    drawings
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let Some(g) = g else {
                return serde_json::Value::Null;
            };
            let offset = layout.offset(i, count);
            let screen = |p: &crate::spatial::Vec3| {
                let p = camera
                    .0
                    .world_to_viewport(camera.1, point(p) + offset)
                    .ok()?
                    * scale;
                Some([p.x, p.y])
            };
            report(g, &screen)
        })
        .collect()
}

/// On screen (physical pixels), per variant whose controller has contacts:
/// its CoM, the CoM's ground projection, the support polygon's corners and
/// the contact points (null for the other variants); and every variant's
/// energy supplied through its passive port so far (J).
fn balance_on_screen(
    session: &Session,
    balance: &BalanceViewState,
    layout: &super::robot_view::ViewLayout,
    camera: (&Camera, &GlobalTransform),
    scale: f32,
) -> serde_json::Value {
    let views = per_variant_on_screen(&balance.variants, layout, camera, scale, |g, screen| {
        serde_json::json!({
            "com": screen(&g.com),
            "com_on_ground": screen(&g.com_on_ground),
            "polygon": g.polygon.iter().map(screen).collect::<Vec<_>>(),
            "feet": g.feet.iter().map(|f| screen(&f.position)).collect::<Vec<_>>(),
            "margin_m": g.margin,
            "wrench": g.wrench.as_slice(),
        })
    });
    let supply: Vec<Option<f64>> = session
        .variants
        .iter()
        .map(|v| v.sim.energy().map(|e| e.supply))
        .collect();
    serde_json::json!({ "variants": views, "supply_j": supply })
}

/// On screen (physical pixels), per variant: its adaptation law (null when
/// it does not adapt) and per body the centre of its drawn solid, its
/// radius on screen (the largest semi-axis, or the marker's) and whether it
/// is the red marker of an estimate that is not physical.
fn inertia_on_screen(
    inertia: (&InertiaViewSettings, &InertiaViewState),
    layout: &super::robot_view::ViewLayout,
    camera: (&Camera, &GlobalTransform),
    scale: f32,
) -> serde_json::Value {
    let (settings, state) = inertia;
    let variants: Vec<serde_json::Value> = state
        .variants
        .iter()
        .enumerate()
        .map(|(variant, v)| {
            let bodies: Vec<serde_json::Value> = (0..v.bodies.len())
                .filter_map(|body| {
                    let solid = EstimateSolid { variant, body };
                    let (t, non_physical) = solid_placement(settings, state, layout, &solid)?;
                    let centre = camera.0.world_to_viewport(camera.1, t.translation).ok()? * scale;
                    let rim = t.translation + Vec3::Z * t.scale.max_element();
                    let rim = camera.0.world_to_viewport(camera.1, rim).ok()? * scale;
                    Some(serde_json::json!({
                        "center_px": [centre.x, centre.y],
                        "radius_px": centre.distance(rim),
                        "non_physical": non_physical,
                    }))
                })
                .collect();
            serde_json::json!({ "law": v.law, "bodies": bodies })
        })
        .collect();
    serde_json::json!({ "show": settings.show, "variants": variants })
}

/// Whether `path` holds a whole PNG (its last chunk, IEND, is written).
fn png_complete(path: &std::path::Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.len() > 12 && &b[b.len() - 8..b.len() - 4] == b"IEND")
}

/// Whether the PNG at `path` has a single colour (a window not yet drawn);
/// false when it cannot be read.
fn one_colour(path: &std::path::Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(mut reader) = png::Decoder::new(std::io::BufReader::new(file)).read_info() else {
        return false;
    };
    let Some(size) = reader.output_buffer_size() else {
        return false;
    };
    let mut pixels = vec![0; size];
    let Ok(info) = reader.next_frame(&mut pixels) else {
        return false;
    };
    let bytes = info.color_type.samples() * usize::from(info.bit_depth as u8).div_ceil(8);
    let pixels = &pixels[..info.buffer_size()];
    bytes > 0 && pixels.chunks_exact(bytes).all(|p| p == &pixels[..bytes])
}

/// On screen (physical pixels), per variant on a constrained plant: each
/// loop closure's two frames and whether it is closed, and each
/// independent joint (null for the other variants).
fn chains_on_screen(
    chains: &ChainViewState,
    layout: &super::robot_view::ViewLayout,
    camera: (&Camera, &GlobalTransform),
    scale: f32,
) -> serde_json::Value {
    let views = per_variant_on_screen(&chains.variants, layout, camera, scale, |g, screen| {
        let closures: Vec<serde_json::Value> = g
            .closures
            .iter()
            .map(|c| {
                serde_json::json!({
                    "frame_a": screen(&c.frame_a),
                    "frame_b": screen(&c.frame_b),
                    "closed": c.closed(),
                })
            })
            .collect();
        let independent: Vec<_> = g
            .joints
            .iter()
            .filter(|j| j.independent)
            .map(|j| screen(&j.position))
            .collect();
        serde_json::json!({ "closures": closures, "independent_joints": independent })
    });
    serde_json::json!({ "variants": views })
}

#[allow(clippy::too_many_arguments)]
fn scripted_capture(
    mut capture: ResMut<ScriptedCapture>,
    time: Res<Time<Real>>,
    playback: Res<Playback>,
    session: Res<Session>,
    notices: Res<Notices>,
    parts: Query<(&RobotPart, &GlobalTransform, Option<&Aabb>)>,
    cameras: Query<(&Camera, &GlobalTransform), With<OrbitCamera>>,
    window: Query<&Window, With<PrimaryWindow>>,
    layout: Res<super::robot_view::ViewLayout>,
    torsion: (Res<TorsionViewSettings>, Res<TorsionViewState>),
    views: (
        Res<BalanceViewState>,
        Res<InertiaViewSettings>,
        Res<InertiaViewState>,
        Res<ChainViewState>,
    ),
    mut panels: ResMut<Layout>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(frames) = capture.frames else { return };
    capture.frame += 1;
    let frame = capture.frame;
    if capture.move_plots_at == Some(frame) {
        panels.plots_dock = panels.plots_dock.next();
    }
    if frame > WARM_UP && frame <= frames {
        capture.frame_seconds += time.delta_secs_f64();
        capture.sim_seconds += playback.last_frame.seconds;
        capture.steps += playback.last_frame.steps;
        capture.measured += 1;
    }
    let Some(path) = capture.screenshot.clone() else {
        if frame >= frames {
            exit.write(AppExit::Success);
        }
        return;
    };
    if frame == frames {
        // The new PNG's completeness is how the capture knows it was
        // written: drop an older one first (a regular file only; the
        // command line refuses anything else).
        if path.is_file() {
            let _ = std::fs::remove_file(&path);
        }
        let scale = window.single().map_or(1.0, |w| w.scale_factor());
        let size = window
            .single()
            .map_or([0, 0], |w| [w.physical_width(), w.physical_height()]);
        let (rects, count, fallbacks) = match cameras.single() {
            Ok(camera) => robots_on_screen(&parts, camera, scale, session.variants.len()),
            Err(_) => (Vec::new(), 0, 0),
        };
        let (handles, springs) = match cameras.single() {
            Ok(camera) => handles_and_springs(&session, &layout, camera, scale),
            Err(_) => (Vec::new(), Vec::new()),
        };
        let trails = match cameras.single() {
            Ok(camera) => trails_on_screen(&session, &layout, camera, scale),
            Err(_) => Vec::new(),
        };
        let torsion_view = match cameras.single() {
            Ok(camera) => torsion_arrows((&torsion.0, &torsion.1), &layout, camera, scale),
            Err(_) => serde_json::Value::Null,
        };
        let balance_view = match cameras.single() {
            Ok(camera) => balance_on_screen(&session, &views.0, &layout, camera, scale),
            Err(_) => serde_json::Value::Null,
        };
        let chain_view = match cameras.single() {
            Ok(camera) => chains_on_screen(&views.3, &layout, camera, scale),
            Err(_) => serde_json::Value::Null,
        };
        let inertia_view = match cameras.single() {
            Ok(camera) => inertia_on_screen((&views.1, &views.2), &layout, camera, scale),
            Err(_) => serde_json::Value::Null,
        };
        // The 3-D view's rectangle (physical pixels: x, y, width, height).
        let viewport = cameras.single().ok().and_then(|(c, _)| {
            c.viewport.as_ref().map(|v| {
                let (p, s) = (v.physical_position, v.physical_size);
                [p.x, p.y, s.x, s.y]
            })
        });
        let m = f64::from(capture.measured.max(1));
        let report = serde_json::json!({
            "handles_px": handles,
            "springs_px": springs,
            "torsion_view": torsion_view,
            "balance_view": balance_view,
            "chain_view": chain_view,
            "inertia_view": inertia_view,
            "trails_px": trails,
            "frames": frames,
            "window_px": size,
            "viewport_px": viewport,
            "plots_dock": format!("{:?}", panels.plots_dock),
            "robot_rects_px": rects,
            "robot_parts": count,
            "fallback_parts": fallbacks,
            "variants": session.variants.len(),
            "scenario": session.scenario.file.name,
            "lesson": session.scenario.lesson().map(|l| l.spec.title.clone()),
            "messages": notices.items.iter().map(|n| n.text.clone()).collect::<Vec<_>>(),
            "simulated_time_s": session.time(),
            "measured_frames": capture.measured,
            "mean_frame_ms": 1e3 * capture.frame_seconds / m,
            "mean_simulation_ms_per_frame": 1e3 * capture.sim_seconds / m,
            "mean_steps_per_frame": capture.steps as f64 / m,
        });
        let json = path.with_extension("json");
        let text = serde_json::to_string_pretty(&report).unwrap_or_default();
        if let Err(e) = crate::io::write_atomically(&json, text.as_bytes()) {
            error!("cannot write {}: {e}", json.display());
            exit.write(AppExit::error());
            return;
        }
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path));
    } else if frame > frames {
        if png_complete(&path) {
            if one_colour(&path) {
                // Under a software renderer the first frames can be blank:
                // exit 0 with a black image said nothing was wrong. Neither
                // it nor its report is what was asked for: both go.
                let _ = std::fs::remove_file(&path);
                let _ = std::fs::remove_file(path.with_extension("json"));
                error!(
                    "the screenshot {} was one colour: the window was not drawn after {frames} frames, so nothing was kept; give more --frames",
                    path.display()
                );
                exit.write(AppExit::error());
                return;
            }
            info!("screenshot written after {frame} frames");
            exit.write(AppExit::Success);
        } else if frame > frames + PATIENCE {
            error!("the screenshot was not written to {}", path.display());
            exit.write(AppExit::error());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::one_colour;

    /// An RGBA PNG of 4 x 4 pixels, all `pixel` but the first, `first`.
    fn png(path: &std::path::Path, first: [u8; 4], pixel: [u8; 4]) {
        let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
        let mut encoder = png::Encoder::new(file, 4, 4);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut data: Vec<u8> = (0..16).flat_map(|_| pixel).collect();
        data[..4].copy_from_slice(&first);
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&data)
            .unwrap();
    }

    #[test]
    fn a_window_not_yet_drawn_is_one_colour() {
        let dir = std::env::temp_dir().join(format!("one-colour-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (black, drawn) = (dir.join("black.png"), dir.join("drawn.png"));
        png(&black, [0, 0, 0, 255], [0, 0, 0, 255]);
        png(&drawn, [200, 10, 10, 255], [0, 0, 0, 255]);
        assert!(one_colour(&black));
        assert!(!one_colour(&drawn));
        assert!(!one_colour(&dir.join("missing.png")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
