//! The stage: an orbit camera with z up (left drag turns, right or middle
//! drag pans, the wheel zooms, R resets), lights, the ground grid, and the
//! 3-D viewport between the egui panels.

use super::session::{Session, SessionSystems};
use super::trails::{desired_end_effector_path, end_effector_path_extent};
use bevy::camera::visibility::RenderLayers;
use bevy::camera::{CameraOutputMode, MsaaWriteback, Viewport};
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use bevy::render::render_resource::BlendState;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiGlobalSettings, PrimaryEguiContext};

/// The distance of the close-up that follows a point mass or a far-travelling
/// end effector, m (the torsion arrows are drawn for it).
pub const CLOSE_UP_DISTANCE: f32 = 1.6;

/// The orbit: the camera looks at `target` from `distance`, at `yaw` about
/// z and `pitch` above the ground.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
    /// Keep the target on the end effectors (for runs that travel far).
    pub follow: bool,
}

impl OrbitCamera {
    /// The camera's transform.
    pub fn transform(&self) -> Transform {
        let dir = Vec3::new(
            self.pitch.cos() * self.yaw.cos(),
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
        );
        Transform::from_translation(self.target + self.distance * dir)
            .looking_at(self.target, Vec3::Z)
    }
}

/// Space taken by the egui panels, in logical pixels (set by the panels):
/// the controls on the left, the plots on the right or at the bottom.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct PanelMargins {
    pub left: f32,
    pub right: f32,
    pub bottom: f32,
}

impl PanelMargins {
    /// The 3-D viewport in a window of `size` physical pixels at `scale`
    /// physical pixels per logical one: its top-left corner and its size,
    /// at least one pixel each way.
    pub fn viewport(&self, size: UVec2, scale: f32) -> (UVec2, UVec2) {
        let physical = |logical: f32| (logical.max(0.0) * scale) as u32;
        let left = physical(self.left).min(size.x.saturating_sub(2));
        let right = physical(self.right).min(size.x.saturating_sub(left + 1));
        let bottom = physical(self.bottom).min(size.y.saturating_sub(1));
        let viewport = UVec2::new(
            size.x.saturating_sub(left + right).max(1),
            size.y.saturating_sub(bottom).max(1),
        );
        (UVec2::new(left, 0), viewport)
    }

    /// Whether the pointer is on egui rather than on the 3-D view: over an
    /// egui window or a widget in use, or over one of the panels. The
    /// panels are on egui's background layer, which egui does not count
    /// as over egui, so the wheel over the controls zoomed the camera as it
    /// scrolled them.
    pub fn pointer_on_egui(&self, egui: Option<&EguiWantsInput>, window: Option<&Window>) -> bool {
        let on_panel = window.is_some_and(|w| {
            w.cursor_position().is_some_and(|c| {
                c.x < self.left || c.x > w.width() - self.right || c.y > w.height() - self.bottom
            })
        });
        on_panel || egui.is_some_and(|e| e.wants_pointer_input())
    }
}

/// The orbit that frames the current session (R), and for the point mass
/// a second one (V switches): a close-up that follows the mass, or the
/// still view when the close-up is home (with the Transport view on).
#[derive(Resource, Clone, Copy, Debug)]
pub struct HomeView {
    pub home: OrbitCamera,
    pub close_up: Option<OrbitCamera>,
}

pub struct CameraPlugin;

impl Plugin for CameraPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PanelMargins>()
            .insert_resource(ClearColor(Color::srgb(0.13, 0.14, 0.16)))
            .add_systems(Startup, spawn_stage)
            .add_systems(
                Update,
                (frame_session, orbit, follow_end_effectors, apply_orbit)
                    .chain()
                    .after(SessionSystems),
            )
            .add_systems(Update, (draw_ground, fit_viewport));
    }
}

fn spawn_stage(mut commands: Commands, mut egui_settings: ResMut<EguiGlobalSettings>) {
    // egui draws over the whole window from its own camera; the 3-D camera
    // only renders the viewport between the panels.
    egui_settings.auto_create_primary_context = false;
    commands.spawn((
        PrimaryEguiContext,
        Camera2d,
        RenderLayers::none(),
        Camera {
            order: 1,
            // By default a camera that is not the first on its window
            // writes its own main texture back into its MSAA texture
            // before drawing (MsaaWriteback::Auto), which keeps the texture
            // from being cleared: whatever egui stopped drawing (a panel
            // that moved or closed, a window dragged away, text over the
            // 3-D view) stayed on screen as trails of earlier frames. egui
            // draws over the 3-D view's output, not into it: nothing to
            // write back.
            msaa_writeback: MsaaWriteback::Off,
            output_mode: CameraOutputMode::Write {
                blend_state: Some(BlendState::ALPHA_BLENDING),
                clear_color: ClearColorConfig::None,
            },
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
    ));
    commands.spawn((
        Camera3d::default(),
        OrbitCamera {
            target: Vec3::ZERO,
            yaw: 0.8,
            pitch: 0.45,
            distance: 3.0,
            follow: false,
        },
        Msaa::Off,
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 6000.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(2.0, 1.0, 4.0).looking_at(Vec3::ZERO, Vec3::Z),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 2000.0,
            ..default()
        },
        Transform::from_xyz(-3.0, -2.0, 1.5).looking_at(Vec3::ZERO, Vec3::Z),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 400.0,
        ..default()
    });
}

/// Vertical field of view of the 3-D camera (Bevy's default perspective).
const VERTICAL_FOV: f32 = std::f32::consts::FRAC_PI_4;

/// When the layout or the viewport changes (a new session, another
/// arrangement, the panels settling) or the Transport view is switched, and
/// the user has not moved the camera since: frame what the scenario is
/// about.
#[allow(clippy::too_many_arguments)]
fn frame_session(
    session: Res<Session>,
    layout: Res<super::robot_view::ViewLayout>,
    margins: Res<PanelMargins>,
    window: Query<&Window, With<PrimaryWindow>>,
    torsion: Res<super::torsion_view::TorsionViewSettings>,
    mut transport: Local<Option<bool>>,
    home: Option<Res<HomeView>>,
    mut cameras: Query<&mut OrbitCamera>,
    mut commands: Commands,
) {
    // The panel edits the torsion settings in place (marked changed every
    // frame): only the Transport switch matters here.
    let transport_switched = *transport != Some(torsion.transport);
    if !(layout.is_changed() || margins.is_changed() || transport_switched) {
        return;
    }
    *transport = Some(torsion.transport);
    let aspect = window.single().map_or(1.5, |w| {
        let (_, size) = margins.viewport(w.physical_size(), w.scale_factor());
        size.x.max(100) as f32 / size.y.max(100) as f32
    });
    let mut view = home_view(&session, &layout, aspect);
    // The transported vectors are drawn at the mass, 15 cm long: close up.
    if let Some(close_up) = view.close_up.filter(|_| torsion.transport) {
        view = HomeView {
            home: close_up,
            close_up: Some(view.home),
        };
    }
    let untouched = |c: &OrbitCamera| home.as_ref().is_none_or(|h| *c == h.home);
    for mut c in &mut cameras {
        if layout.is_changed() || untouched(&c) {
            *c = view.home;
        }
    }
    commands.insert_resource(view);
}

/// The largest distance between two body frames of the first variant at
/// its initial configuration, m (zero for the point mass, whose three
/// prismatic bodies start together).
fn robot_extent(session: &Session) -> f32 {
    let v = &session.variants[0];
    let Some(first) = v.samples.first() else {
        return 0.0;
    };
    let mut ws = crate::algorithms::Workspace::new(&v.sim.plant);
    crate::algorithms::forward_kinematics(&v.sim.plant, &mut ws, &first.q);
    let points: Vec<Vec3> = ws
        .placements
        .iter()
        .map(|x| super::robot_view::point(&x.trans))
        .collect();
    let (lo, hi) = bounds(&points);
    if ws.placements.is_empty() {
        0.0
    } else {
        (hi - lo).length()
    }
}

/// Seconds of the point mass's run its still view frames: the climb out
/// of the plane happens in the first seconds (Wensing, Englsberger &
/// Slotine (2023), Fig. 6), after which every variant runs along the line.
const POINT_MASS_SECONDS: f64 = 2.0;

/// The views that frame the session. The point mass (a robot small beside
/// its path) is seen still, from behind its start and to the side, low,
/// over its first [`POINT_MASS_SECONDS`], as in Wensing, Englsberger &
/// Slotine (2023), Fig. 6: the mass starts nearest and moves away, up and
/// to the right, and a variant leaving the plane of motion climbs above the
/// others' trails; its close-up follows the mass from behind. A run that
/// travels far is followed the same way. Otherwise the camera looks at the
/// robots and their desired end-effector paths obliquely from the front
/// (the row of variants recedes in depth), slightly above, at the distance
/// that fits them all in a viewport of width / height `aspect`.
pub fn home_view(
    session: &Session,
    layout: &super::robot_view::ViewLayout,
    aspect: f32,
) -> HomeView {
    let (centre, extent) = end_effector_path_extent(session);
    let small = robot_extent(session) < 0.1 * extent;
    if extent > 3.0 || small {
        let start = session.variants[0].view.first().map_or(centre, |t| {
            Vec3::from_array(t.end_effector.map(|x| x as f32))
        });
        let travel = centre - start;
        let close_up = OrbitCamera {
            target: start,
            yaw: travel.y.atan2(travel.x) - 2.3,
            pitch: 0.3,
            distance: CLOSE_UP_DISTANCE,
            follow: true,
        };
        if !small {
            return HomeView {
                home: close_up,
                close_up: None,
            };
        }
        return HomeView {
            home: point_mass_view(session, start, travel, aspect),
            close_up: Some(close_up),
        };
    }
    let count = session.variants.len();
    let path = desired_end_effector_path(session);
    let mut points = Vec::new();
    for (i, v) in session.variants.iter().enumerate() {
        let offset = layout.offset(i, count);
        for x in &v.kinematics.placements {
            points.push(super::robot_view::point(&x.trans) + offset);
        }
        points.extend(path.iter().map(|p| *p + offset));
        // The base, so that a robot reaching up stands on the view's floor.
        points.push(offset);
    }
    let (lo, hi) = bounds(&points);
    // Room for the links around their frames.
    let (lo, hi) = (lo - Vec3::splat(0.15), hi + Vec3::splat(0.15));
    let mut view = OrbitCamera {
        target: 0.5 * (lo + hi),
        yaw: 0.75,
        pitch: 0.3,
        distance: 1.0,
        follow: false,
    };
    view.distance = fitting_distance(&view, lo, hi, aspect);
    HomeView {
        home: view,
        close_up: None,
    }
}

/// The point mass's still view: the start and the desired path over the
/// first [`POINT_MASS_SECONDS`], with 0.3 m around them for the variants'
/// excursions, seen from behind the start and to the right of the
/// direction of travel, low.
fn point_mass_view(session: &Session, start: Vec3, travel: Vec3, aspect: f32) -> OrbitCamera {
    let path = desired_end_effector_path(session);
    let seconds = POINT_MASS_SECONDS.min(session.duration);
    let last = ((path.len() - 1) as f64 * seconds / session.duration.max(seconds)).ceil() as usize;
    let mut points = path[..=last.min(path.len() - 1)].to_vec();
    points.push(start);
    let (lo, hi) = bounds(&points);
    let (lo, hi) = (lo - Vec3::splat(0.3), hi + Vec3::splat(0.3));
    let mut view = OrbitCamera {
        target: 0.5 * (lo + hi),
        yaw: travel.y.atan2(travel.x) - 2.2,
        pitch: 0.2,
        distance: 1.0,
        follow: false,
    };
    view.distance = fitting_distance(&view, lo, hi, aspect);
    view
}

/// The smallest box holding `points`.
fn bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    points.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    )
}

/// The smallest distance at which every corner of the box [lo, hi] is
/// inside the view (both fields of view, 10 % margin).
fn fitting_distance(view: &OrbitCamera, lo: Vec3, hi: Vec3, aspect: f32) -> f32 {
    let t = OrbitCamera {
        distance: 1.0,
        ..*view
    }
    .transform();
    let (right, up, back) = (*t.right(), *t.up(), *t.back());
    let tan_v = (0.5 * VERTICAL_FOV).tan() / 1.1;
    let tan_h = tan_v * aspect;
    let mut distance: f32 = 0.3;
    for k in 0..8 {
        let corner = Vec3::new(
            if k & 1 == 0 { lo.x } else { hi.x },
            if k & 2 == 0 { lo.y } else { hi.y },
            if k & 4 == 0 { lo.z } else { hi.z },
        ) - view.target;
        // The camera sits at distance d along `back`; the corner is
        // d - corner . back in front of it.
        let ahead = corner.dot(back);
        distance = distance
            .max(ahead + corner.dot(right).abs() / tan_h)
            .max(ahead + corner.dot(up).abs() / tan_v);
    }
    distance
}

#[allow(clippy::too_many_arguments)]
fn orbit(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    egui: Option<Res<EguiWantsInput>>,
    (margins, windows): (
        Option<Res<PanelMargins>>,
        Query<&Window, With<PrimaryWindow>>,
    ),
    home: Option<Res<HomeView>>,
    interaction: Option<Res<super::interaction::InteractionState>>,
    mut cameras: Query<&mut OrbitCamera>,
) {
    // Ctrl + left drag and dragging the target handle belong to the robot.
    let touching = interaction.is_some_and(|i| i.grab.is_some())
        || keys.pressed(KeyCode::ControlLeft)
        || keys.pressed(KeyCode::ControlRight);
    let egui_pointer = margins
        .as_deref()
        .copied()
        .unwrap_or_default()
        .pointer_on_egui(egui.as_deref(), windows.single().ok());
    let egui_keys = egui.as_ref().is_some_and(|e| e.wants_keyboard_input());
    for mut c in &mut cameras {
        if let (Some(h), false) = (&home, egui_keys) {
            if keys.just_pressed(KeyCode::KeyR) {
                *c = h.home;
            }
            if let Some(close_up) = h.close_up.filter(|_| keys.just_pressed(KeyCode::KeyV)) {
                *c = if *c == h.home { close_up } else { h.home };
            }
        }
        if egui_pointer {
            continue;
        }
        let d = motion.delta;
        if buttons.pressed(MouseButton::Left) && !touching {
            c.yaw -= 0.008 * d.x;
            c.pitch = (c.pitch + 0.008 * d.y).clamp(-1.5, 1.5);
        }
        if buttons.pressed(MouseButton::Right) || buttons.pressed(MouseButton::Middle) {
            let t = c.transform();
            let k = 0.0015 * c.distance;
            c.target += k * (-d.x * *t.right() + d.y * *t.up());
            c.follow = false;
        }
        if scroll.delta.y != 0.0 {
            c.distance =
                (c.distance * (1.0 - 0.1 * scroll.delta.y.clamp(-3.0, 3.0))).clamp(0.1, 200.0);
        }
    }
}

/// Moves the target towards the mean end-effector position (half the way
/// in about 0.14 s, whatever the frame rate).
fn follow_end_effectors(
    time: Res<Time>,
    session: Res<Session>,
    layout: Res<super::robot_view::ViewLayout>,
    mut cameras: Query<&mut OrbitCamera>,
) {
    let count = session.variants.len();
    let points: Vec<Vec3> = session
        .variants
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            v.view.last().map(|t| {
                Vec3::from_array(t.end_effector.map(|x| x as f32)) + layout.offset(i, count)
            })
        })
        .collect();
    if points.is_empty() {
        return;
    }
    let mean = points.iter().sum::<Vec3>() / points.len() as f32;
    let k = 1.0 - (-5.0 * time.delta_secs()).exp();
    for mut c in cameras.iter_mut().filter(|c| c.follow) {
        c.target = c.target.lerp(mean, k);
    }
}

fn apply_orbit(mut cameras: Query<(&OrbitCamera, &mut Transform), Changed<OrbitCamera>>) {
    for (c, mut t) in &mut cameras {
        *t = c.transform();
    }
}

/// A 1 m grid on the ground (z = 0), 10 cm cells near the origin.
fn draw_ground(mut gizmos: Gizmos, cameras: Query<&OrbitCamera>) {
    let centre = cameras.iter().next().map_or(Vec3::ZERO, |c| {
        Vec3::new(c.target.x.round(), c.target.y.round(), 0.0)
    });
    gizmos.grid(
        Isometry3d::from_translation(centre),
        UVec2::splat(20),
        Vec2::splat(1.0),
        Color::srgba(0.6, 0.6, 0.65, 0.35),
    );
    gizmos.grid(
        Isometry3d::IDENTITY,
        UVec2::splat(20),
        Vec2::splat(0.1),
        Color::srgba(0.6, 0.6, 0.65, 0.12),
    );
    gizmos.axes(Transform::IDENTITY, 0.3);
}

/// The camera draws only between the panels.
fn fit_viewport(
    margins: Res<PanelMargins>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut cameras: Query<&mut Camera, With<OrbitCamera>>,
) {
    let Ok(window) = window.single() else { return };
    let (position, size) = margins.viewport(window.physical_size(), window.scale_factor());
    for mut camera in &mut cameras {
        let current = camera
            .viewport
            .as_ref()
            .map(|v| (v.physical_position, v.physical_size));
        if current != Some((position, size)) {
            camera.viewport = Some(Viewport {
                physical_position: position,
                physical_size: size,
                ..default()
            });
        }
    }
}
