//! The left panel: scenario picker, playback, live controller,
//! factorization and model-mismatch editors, view options, export and
//! messages; plus keyboard shortcuts and opening dropped files.

use super::balance_view::{balance_section, BalanceViewSettings, BalanceViewState};
use super::camera::{OrbitCamera, PanelMargins};
use super::capture::TakeScreenshot;
use super::chain_view::{chain_section, ChainViewSettings, ChainViewState};
use super::contacts::ContactSettings;
use super::editors;
use super::file_dialog::FileDialog;
use super::inertia_view::{inertia_section, InertiaViewSettings, InertiaViewState};
use super::interaction::{DragScope, InteractionSettings};
use super::layout::{show_edge_panel, Edge, EdgePanel, Layout, PlotsDock};
use super::number_fields;
use super::recording::Recorder;
use super::robot_view::{Arrangement, ViewLayout};
use super::session::{
    shipped_scenarios, ApplyMode, Notices, Playback, ScenarioSource, Session, SessionCommand,
    Severity,
};
use super::sweep_panel::SweepPanel;
use super::task_space::{TaskSpaceReadout, TaskSpaceSettings};
use super::torsion_view::{torsion_section, TorsionViewSettings, TorsionViewState};
use super::trails::TrailSettings;
use super::variant_color32;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::window::FileDragAndDrop;
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{egui, EguiContexts, EguiPrimaryContextPass};

pub struct PanelsPlugin;

impl Plugin for PanelsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(EguiPrimaryContextPass, left_panel)
            .add_systems(Update, (shortcuts, open_dropped_files));
    }
}

/// The view settings the panel edits.
#[derive(SystemParam)]
pub struct ViewSettings<'w, 's> {
    layout: ResMut<'w, ViewLayout>,
    trails: ResMut<'w, TrailSettings>,
    task: ResMut<'w, TaskSpaceSettings>,
    readout: Res<'w, TaskSpaceReadout>,
    contacts: ResMut<'w, ContactSettings>,
    balance: ResMut<'w, BalanceViewSettings>,
    balance_state: Res<'w, BalanceViewState>,
    chain: ResMut<'w, ChainViewSettings>,
    chain_state: Res<'w, ChainViewState>,
    torsion: ResMut<'w, TorsionViewSettings>,
    torsion_state: Res<'w, TorsionViewState>,
    inertia: ResMut<'w, InertiaViewSettings>,
    inertia_state: Res<'w, InertiaViewState>,
    panels: ResMut<'w, Layout>,
    cameras: Query<'w, 's, &'static mut OrbitCamera>,
}

/// The session and what acts on it.
#[derive(SystemParam)]
pub struct SessionAccess<'w> {
    session: ResMut<'w, Session>,
    playback: ResMut<'w, Playback>,
    notices: ResMut<'w, Notices>,
    commands: MessageWriter<'w, SessionCommand>,
    screenshots: MessageWriter<'w, TakeScreenshot>,
    sweep: ResMut<'w, SweepPanel>,
    recorder: ResMut<'w, Recorder>,
    dialog: ResMut<'w, FileDialog>,
}

/// Text typed into the "open" field.
#[derive(Default)]
pub struct PanelState {
    path: String,
}

/// The controls panel on the left: the whole window's height.
pub fn left_panel(
    mut contexts: EguiContexts,
    mut s: SessionAccess,
    mut view: ViewSettings,
    mut margins: ResMut<PanelMargins>,
    mut state: Local<PanelState>,
    mut touch: ResMut<InteractionSettings>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let spec = EdgePanel {
        edge: Edge::Left,
        id: "controls",
        default_size: 300.0,
        hint: "hide or show the controls (C)",
        area: ctx.viewport_rect(),
    };
    let mut open = view.panels.controls_open;
    let width = show_edge_panel(ctx, spec, &mut open, |ui| {
        messages_section(ui, &mut s);
        scenario_section(ui, &mut s, &mut state);
        lesson_section(ui, &mut s);
        playback_section(ui, &mut s);
        variants_section(ui, &mut s);
        mismatch_section(ui, &mut s);
        torsion_section(ui, &mut view.torsion, &view.torsion_state, &s.session);
        view_section(ui, &mut s, &mut view);
        contacts_section(ui, &s, &mut view.contacts);
        balance_section(ui, &mut view.balance, &view.balance_state, &s.session);
        chain_section(ui, &mut view.chain, &view.chain_state, &s.session);
        interaction_section(ui, &s, &mut touch);
        output_section(ui, &mut s);
    });
    if view.panels.controls_open != open {
        view.panels.controls_open = open;
    }
    if margins.left != width {
        margins.left = width;
    }
    Ok(())
}

fn scenario_section(ui: &mut egui::Ui, s: &mut SessionAccess, state: &mut PanelState) {
    ui.heading("passivity-lab");
    ui.label(egui::RichText::new(&s.session.scenario.file.name).strong());
    if !s.session.scenario.file.description.is_empty() {
        ui.small(&s.session.scenario.file.description);
    }
    coupled_joints(ui, s.session.plant());
    egui::CollapsingHeader::new("Scenario")
        .default_open(true)
        .show(ui, |ui| {
            let current = match &s.session.source {
                ScenarioSource::EmbeddedDefault => "point_mass_torsion (embedded)".to_string(),
                ScenarioSource::Scenario(p) | ScenarioSource::Urdf(p) => p
                    .file_name()
                    .map_or_else(|| p.display().to_string(), |f| f.to_string_lossy().into()),
            };
            egui::ComboBox::from_id_salt("shipped")
                .selected_text(current)
                .width(260.0)
                .show_ui(ui, |ui| {
                    if ui
                        .selectable_label(false, "point_mass_torsion (embedded)")
                        .clicked()
                    {
                        s.commands
                            .write(SessionCommand::Open(ScenarioSource::EmbeddedDefault));
                    }
                    for path in shipped_scenarios() {
                        let name = path.file_name().unwrap_or_default().to_string_lossy();
                        if ui.selectable_label(false, name).clicked() {
                            s.commands
                                .write(SessionCommand::Open(ScenarioSource::Scenario(path)));
                        }
                    }
                });
            ui.horizontal(|ui| {
                let edit = ui.add(
                    egui::TextEdit::singleline(&mut state.path)
                        .hint_text("scenario .toml or robot .urdf")
                        .desired_width(200.0),
                );
                let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if (ui.button("Open").clicked() || enter) && !state.path.trim().is_empty() {
                    let path = std::path::PathBuf::from(state.path.trim());
                    s.commands
                        .write(SessionCommand::Open(ScenarioSource::from_path(&path)));
                }
                let browse = ui.add_enabled(!s.dialog.is_open(), egui::Button::new("Browse…"));
                if browse.on_hover_text("the desktop's file dialog").clicked() {
                    s.dialog.browse();
                }
            });
            ui.small("…or drop a file on the window.");
        });
}

/// The scenario's `[lesson]`: title, text, what to look at, questions, and
/// buttons to the previous and next lessons.
fn lesson_section(ui: &mut egui::Ui, s: &mut SessionAccess) {
    let Some(lesson) = s.session.scenario.lesson() else {
        return;
    };
    let (previous, next) = (lesson.previous.clone(), lesson.next.clone());
    let spec = lesson.spec;
    egui::CollapsingHeader::new(format!("Lesson: {}", spec.title))
        .default_open(true)
        .show(ui, |ui| {
            super::markdown::show(ui, &spec.text);
            if !spec.look_at.is_empty() {
                ui.label(egui::RichText::new("Look at").strong());
                for item in &spec.look_at {
                    ui.small(format!("- {item}"));
                }
            }
            if !spec.questions.is_empty() {
                ui.label(egui::RichText::new("Questions").strong());
                for (i, q) in spec.questions.iter().enumerate() {
                    ui.small(format!("{}. {q}", i + 1));
                }
            }
            ui.horizontal(|ui| {
                for (label, target) in [("< previous", &previous), ("next >", &next)] {
                    let button = ui.add_enabled(target.is_some(), egui::Button::new(label));
                    if let (true, Some(path)) = (button.clicked(), target) {
                        s.commands
                            .write(SessionCommand::Open(ScenarioSource::Scenario(path.clone())));
                    }
                }
            });
        });
}

/// The robot's mimic relations (coupled fingers, geared rotors), resolved
/// to their independent joints: q_joint = k q_primary + b.
fn coupled_joints(ui: &mut egui::Ui, model: &crate::model::Model) {
    let Some(c) = model.coupling() else { return };
    egui::CollapsingHeader::new(format!(
        "Coupled joints: {} coordinates, {} joints",
        model.nq,
        model.tree_nq()
    ))
    .default_open(false)
    .show(ui, |ui| {
        for r in &c.relations {
            let offset = if r.offset == 0.0 {
                String::new()
            } else {
                format!(" {:+}", r.offset)
            };
            ui.small(format!(
                "{} = {} x {}{offset}",
                r.joint, r.multiplier, r.primary
            ));
        }
    });
}

fn playback_section(ui: &mut egui::Ui, s: &mut SessionAccess) {
    egui::CollapsingHeader::new("Playback")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                let label = if s.playback.running {
                    "⏸ Pause"
                } else {
                    "▶ Play"
                };
                if ui.button(label).on_hover_text("Space").clicked() {
                    s.playback.running = !s.playback.running;
                }
                if ui
                    .button("Step")
                    .on_hover_text("advance one record period (S)")
                    .clicked()
                {
                    s.commands.write(SessionCommand::Step);
                }
                if ui
                    .button("⟲ Reset")
                    .on_hover_text("back to t = 0")
                    .clicked()
                {
                    s.commands.write(SessionCommand::Reset);
                }
            });
            number_fields::slider(ui, &mut s.playback.speed, 0.05..=20.0, |s| {
                s.logarithmic(true).text("× real time")
            });
            let (t, d) = (s.session.time(), s.session.duration);
            ui.add(egui::ProgressBar::new((t / d) as f32).text(format!("t = {t:.2} s of {d} s")));
            let f = s.playback.last_frame;
            ui.small(format!(
                "{} steps of {} ms in {:.2} ms this frame",
                f.steps,
                1e3 * s.session.dt,
                1e3 * f.seconds
            ));
            if f.lagging {
                ui.colored_label(
                    egui::Color32::YELLOW,
                    "slower than the requested speed: the simulation runs as fast as it can",
                );
            }
            if s.session.finished() {
                let diverged = s.session.variants.iter().filter(|v| v.divergence.is_some());
                let first = diverged.clone().filter_map(|v| v.divergence.as_ref()).map(|d| d.time);
                match (diverged.count(), first.reduce(f64::min)) {
                    (n, Some(t)) if n == s.session.variants.len() => ui.colored_label(
                        egui::Color32::LIGHT_RED,
                        format!("Every variant diverged, the first at t = {t:.3} s (their readings are the last before it); ⟲ Reset goes back to t = 0."),
                    ),
                    (n, Some(_)) => ui.label(format!(
                        "The run is over ({n} of {} variants diverged, see below); ⟲ Reset goes back to t = 0.",
                        s.session.variants.len()
                    )),
                    _ => ui.label("The run is over; ⟲ Reset goes back to t = 0."),
                };
            }
        });
}

fn variants_section(ui: &mut egui::Ui, s: &mut SessionAccess) {
    egui::CollapsingHeader::new("Controller and factorizations")
        .default_open(true)
        .show(ui, |ui| {
            let mut changed = false;
            ui.horizontal(|ui| {
                ui.label("changes apply");
                let mode = &mut s.session.apply_mode;
                ui.radio_value(mode, ApplyMode::NextStep, "from the next step");
                ui.radio_value(mode, ApplyMode::Restart, "by restarting");
            });
            ui.separator();
            ui.label(egui::RichText::new("Controller").strong());
            let chain = !s.session.draft.loop_closures.is_empty();
            let setting = editors::Setting {
                closed_chain: chain,
                stance: s.session.draft.stance.is_some(),
            };
            changed |= editors::controller(ui, "base", &mut s.session.draft.controller, setting);
            let uses_base = s.session.draft.variants.is_empty()
                || s.session
                    .draft
                    .variants
                    .iter()
                    .any(|v| v.factorization.is_none());
            if uses_base {
                ui.label(egui::RichText::new("Factorization").strong());
                changed |=
                    editors::factorization(ui, "base", &mut s.session.draft.factorization, chain);
            }
            ui.separator();
            let Session {
                draft, variants, ..
            } = &mut *s.session;
            for (i, live) in variants.iter().enumerate() {
                ui.horizontal(|ui| {
                    let (rect, _) =
                        ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
                    ui.painter().rect_filled(rect, 3.0, variant_color32(i));
                    ui.label(egui::RichText::new(&live.name).strong());
                });
                if let Some(d) = &live.divergence {
                    ui.colored_label(egui::Color32::LIGHT_RED, d.to_string());
                } else if let Some(s) = live.step_stability.as_ref().filter(|s| !s.is_stable()) {
                    ui.colored_label(
                        egui::Color32::ORANGE,
                        format!("Gains beyond the step: {}", s.describe(live.sim.integrator)),
                    );
                } else if let Some(fast) = live.sim.fast_reference() {
                    ui.colored_label(
                        egui::Color32::ORANGE,
                        format!("Reference beyond the step: {}", fast.describe()),
                    );
                }
                let Some(spec) = draft.variants.get_mut(i) else {
                    continue;
                };
                ui.indent(("variant", i), |ui| {
                    if let Some(f) = &mut spec.factorization {
                        changed |= editors::factorization(ui, &spec.name, f, chain);
                    }
                    if let Some(c) = &mut spec.controller {
                        changed |= editors::controller(ui, &spec.name, c, setting);
                    }
                });
            }
            if let Some(task) = &mut draft.task {
                ui.separator();
                changed |= editors::task(ui, task);
            }
            if changed {
                s.session.complete_draft();
                s.commands.write(SessionCommand::Apply);
            }
        });
}

/// Names of the links a payload can ride on.
fn link_names(session: &Session) -> Vec<String> {
    let model = session.plant();
    model
        .frames
        .iter()
        .filter(|f| f.body.is_some() && f.kind == crate::model::FrameKind::Link)
        .map(|f| f.name.clone())
        .collect()
}

fn mismatch_section(ui: &mut egui::Ui, s: &mut SessionAccess) {
    egui::CollapsingHeader::new("Model mismatch")
        .default_open(false)
        .show(ui, |ui| {
            let links = link_names(&s.session);
            let draft = &mut s.session.draft;
            ui.label(egui::RichText::new("True robot").strong());
            let mut changed = editors::payload(ui, "plant", &mut draft.robot.payload, &links);
            ui.label(egui::RichText::new("Controller's estimate").strong());
            changed |= editors::estimate(ui, "estimate", &mut draft.estimate, &links);
            if changed {
                s.commands.write(SessionCommand::Apply);
            }
        });
}

fn view_section(ui: &mut egui::Ui, s: &mut SessionAccess, view: &mut ViewSettings) {
    egui::CollapsingHeader::new("View")
        .default_open(false)
        .show(ui, |ui| {
            let mut arrangement = view.layout.arrangement;
            ui.horizontal(|ui| {
                ui.radio_value(&mut arrangement, Arrangement::SideBySide, "side by side");
                ui.radio_value(&mut arrangement, Arrangement::Overlay, "overlaid ghosts");
            });
            if arrangement != view.layout.arrangement {
                view.layout.arrangement = arrangement;
            }
            ui.horizontal(|ui| {
                ui.checkbox(&mut view.panels.plots_open, "plots")
                    .on_hover_text("P");
                let dock = &mut view.panels.plots_dock;
                ui.radio_value(dock, PlotsDock::Below, "below");
                ui.radio_value(dock, PlotsDock::Right, "right");
                ui.radio_value(dock, PlotsDock::Floating, "floating")
                    .on_hover_text("D cycles; C hides the controls");
            });
            for mut c in &mut view.cameras {
                ui.checkbox(&mut c.follow, "camera follows the end effector (R resets)");
            }
            let trails = &mut *view.trails;
            ui.checkbox(&mut trails.show, "end-effector trails");
            ui.checkbox(&mut trails.show_desired, "desired path (x_d, or FK(q_d))");
            editors::time_window(ui, &mut trails.window, 2.0, 0.2..=20.0);
            inertia_section(ui, &mut view.inertia, &view.inertia_state, &s.session);
            ui.separator();
            let task = &mut *view.task;
            ui.label(format!("End effector: {}", view.readout.frame_name));
            let mut ee = s.session.end_effector;
            let frames: Vec<(usize, String)> = s
                .session
                .plant()
                .frames
                .iter()
                .enumerate()
                .filter(|(_, f)| f.body.is_some())
                .map(|(i, f)| (i, f.name.clone()))
                .collect();
            egui::ComboBox::from_id_salt("end effector")
                .selected_text(view.readout.frame_name.clone())
                .show_ui(ui, |ui| {
                    for (i, name) in &frames {
                        ui.selectable_value(&mut ee, *i, name);
                    }
                });
            if ee != s.session.end_effector {
                s.session.end_effector = ee;
                s.commands.write(SessionCommand::Reset);
            }
            ui.checkbox(&mut task.show_frame, "end-effector frame");
            ui.checkbox(&mut task.show_velocity, "velocity J v");
            ui.checkbox(
                &mut task.show_ellipsoid,
                "operational-space inertia ellipsoid",
            );
            if let Some(scale) = &mut task.ellipsoid_scale {
                number_fields::slider(ui, scale, 1e-4..=1.0, |s| {
                    s.logarithmic(true).text("m per kg")
                });
            }
            for (i, st) in view.readout.variants.iter().enumerate() {
                let m = st.effective_masses;
                ui.colored_label(
                    variant_color32(i),
                    format!(
                        "|v| = {:.3} m/s, effective masses {:.2} / {:.2} / {:.2} kg",
                        st.velocity.norm(),
                        m.x,
                        m.y,
                        m.z
                    ),
                );
            }
        });
}

/// Contact readout and display options (plants with contacts only).
fn contacts_section(ui: &mut egui::Ui, s: &SessionAccess, settings: &mut ContactSettings) {
    if s.session
        .variants
        .iter()
        .all(|v| !v.sim.has_contact_plant())
    {
        return;
    }
    egui::CollapsingHeader::new("Contacts")
        .default_open(true)
        .show(ui, |ui| {
            ui.checkbox(
                &mut settings.show,
                "contact points, normals and force arrows",
            );
            number_fields::slider(ui, &mut settings.meters_per_newton, 1e-4..=0.1, |s| {
                s.logarithmic(true).text("m per N")
            });
            for (i, v) in s.session.variants.iter().enumerate() {
                let now = crate::sim::total_normal_force(v.sim.contacts());
                let stats = v.sim.contact_stats();
                ui.colored_label(
                    variant_color32(i),
                    format!(
                        "{}: {} points, {:.1} N now; max {:.1} N, {:.2} s in contact",
                        v.name,
                        v.sim.contacts().len(),
                        now,
                        stats.max_force,
                        stats.time_in_contact
                    ),
                );
            }
        });
}

fn interaction_section(ui: &mut egui::Ui, s: &SessionAccess, settings: &mut InteractionSettings) {
    egui::CollapsingHeader::new("Touch the robot")
        .default_open(true)
        .show(ui, |ui| {
            ui.small("Ctrl + left drag: pull a body toward the cursor");
            ui.small("left drag on the yellow ball: move the target");
            let mass: f64 = s
                .session
                .plant()
                .bodies
                .iter()
                .map(|b| b.inertia.mass)
                .sum();
            number_fields::slider(ui, &mut settings.stiffness_per_kg, 1.0..=2000.0, |s| {
                s.logarithmic(true).text("N/m per kg")
            })
            .on_hover_text(format!(
                "spring stiffness {:.0} N/m for this {mass:.2} kg robot",
                settings.stiffness_per_kg * mass
            ));
            number_fields::slider(ui, &mut settings.damping_ratio, 0.0..=2.0, |s| {
                s.text("damping ratio")
            });
            ui.horizontal(|ui| {
                ui.radio_value(&mut settings.scope, DragScope::AllVariants, "all variants");
                ui.radio_value(
                    &mut settings.scope,
                    DragScope::UnderCursor,
                    "the one picked",
                );
            });
            // No faster than the step can follow (bandwidth x step at most
            // 0.1, as `run` warns): the whole range at 1 ms, up to
            // 10 rad/s at 10 ms.
            let dt = s.session.dt;
            let step_limit = crate::sim::max_reference_bandwidth(dt);
            let fastest = step_limit.min(40.0);
            settings.bandwidth = settings.bandwidth.min(fastest);
            number_fields::slider(
                ui,
                &mut settings.bandwidth,
                0.5f64.min(fastest)..=fastest,
                |s| s.logarithmic(true).max_decimals(2).text("target filter, rad/s"),
            )
            .on_hover_text(format!(
                "natural frequency of the critically damped filter on the dragged target; this scenario's step of {} ms follows up to {step_limit:.1} rad/s (a faster filter's transient spans only a few steps)",
                dt * 1e3
            ));
            ui.checkbox(&mut settings.show_handle, "target handle");
            let drags = s
                .session
                .scenario
                .file
                .disturbances
                .iter()
                .filter(|d| matches!(d, crate::scenario::DisturbanceSpec::Drag { .. }))
                .count();
            ui.small(format!(
                "{drags} drags recorded; \"Export as scenario\" replays them"
            ));
        });
}

/// Starts a GIF recording under `recordings/`, or stops the one under way.
fn record_button(ui: &mut egui::Ui, s: &mut SessionAccess) {
    match s.recorder.recording() {
        Some(seconds) => {
            if ui
                .button(format!("Stop recording ({seconds:.0} s)"))
                .clicked()
            {
                s.recorder.stop();
            }
        }
        None => {
            let clicked = ui
                .button("Record GIF")
                .on_hover_text("an animated GIF of the window under recordings/ (about 10 frames/s, at most 10 min)")
                .clicked();
            if clicked {
                let dir = std::path::PathBuf::from("recordings");
                match std::fs::create_dir_all(&dir) {
                    Ok(()) => {
                        let name =
                            format!("{}-{}.gif", s.session.scenario.file.name, unix_seconds());
                        s.recorder.start(dir.join(name), None);
                    }
                    Err(e) => s
                        .notices
                        .error(format!("cannot create {}: {e}", dir.display())),
                }
            }
        }
    }
}

/// Seconds since the Unix epoch, to name files.
fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn output_section(ui: &mut egui::Ui, s: &mut SessionAccess) {
    egui::CollapsingHeader::new("Export and messages")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                if ui
                    .button("Export run (CSV)")
                    .on_hover_text("CSV per variant, summary.json, plots under results/")
                    .clicked()
                {
                    s.commands.write(SessionCommand::Export);
                }
                if ui
                    .button("Export as scenario")
                    .on_hover_text("a scenario file with every drag and target move, under results/; `passivity-lab run` replays this session")
                    .clicked()
                {
                    s.commands.write(SessionCommand::ExportScenario);
                }
                if ui.button("Screenshot").on_hover_text("F12").clicked() {
                    s.screenshots.write(TakeScreenshot);
                }
            });
            if ui
                .button("Sweep a key…")
                .on_hover_text("run the scenario over several values of one key in the background and plot a metric against it")
                .clicked()
            {
                s.sweep.open_for(&s.session.scenario);
            }
            record_button(ui, s);
            for (t, what) in &s.session.edits {
                ui.small(format!("t = {t:.2} s: {what}"));
            }
        });
}

/// The newest messages (what failed, what deserves a look, what was
/// written), first in the panel: an error from Open or an edit was shown
/// at the panel's end, below the window's edge, so nothing seemed to happen.
fn messages_section(ui: &mut egui::Ui, s: &mut SessionAccess) {
    const SHOWN: usize = 5;
    let items = &s.notices.items;
    if items.is_empty() {
        return;
    }
    let mut clear = false;
    ui.horizontal(|ui| {
        ui.strong("Messages");
        ui.small("newest first");
        clear = ui.small_button("clear").clicked();
    });
    for n in items.iter().rev().take(SHOWN) {
        let color = match n.severity {
            Severity::Info => egui::Color32::LIGHT_GREEN,
            Severity::Warning => egui::Color32::ORANGE,
            Severity::Error => egui::Color32::LIGHT_RED,
        };
        ui.colored_label(color, &n.text);
    }
    if items.len() > SHOWN {
        ui.small(format!(
            "{} older (in the log on standard error)",
            items.len() - SHOWN
        ));
    }
    ui.separator();
    if clear {
        s.notices.items.clear();
    }
}

fn shortcuts(
    keys: Res<ButtonInput<KeyCode>>,
    egui: Option<Res<EguiWantsInput>>,
    mut playback: ResMut<Playback>,
    mut commands: MessageWriter<SessionCommand>,
    mut screenshots: MessageWriter<TakeScreenshot>,
) {
    if egui.is_some_and(|e| e.wants_keyboard_input()) {
        return;
    }
    if keys.just_pressed(KeyCode::Space) {
        playback.running = !playback.running;
    }
    if keys.just_pressed(KeyCode::KeyS) {
        commands.write(SessionCommand::Step);
    }
    if keys.just_pressed(KeyCode::F12) {
        screenshots.write(TakeScreenshot);
    }
}

fn open_dropped_files(
    mut dropped: MessageReader<FileDragAndDrop>,
    mut commands: MessageWriter<SessionCommand>,
) {
    for d in dropped.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = d {
            commands.write(SessionCommand::Open(ScenarioSource::from_path(path_buf)));
        }
    }
}
