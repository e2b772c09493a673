//! The sweep panel (issue 15 sec. 4): one key of the applied scenario over
//! several values, run in the background on all cores but one with the
//! headless `sweep`'s engine ([`SweepPlan`]), a progress bar, and the curve
//! of a summary metric against the value, one line per variant. The app
//! keeps running while it works; Stop ends the runs under way (their rows
//! say so), and the table can be written like `passivity-lab sweep` does.

use super::session::{Notices, Session};
use super::variant_color32;
use crate::scenario::{FactorizationSpec, Scenario};
use crate::sweep::{metric_names, Selection, SweepPlan, SweepTable};
use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts, EguiPrimaryContextPass};
use egui_plot::{Line, Plot, PlotPoints, Points};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What a background sweep reports.
#[derive(Default)]
struct Progress {
    done: AtomicUsize,
    total: AtomicUsize,
    stop: AtomicBool,
    /// The plan's problem, or the finished table.
    outcome: Mutex<Option<Result<SweepTable, String>>>,
    /// What the plan found before the runs, to show once.
    warning: Mutex<Option<String>>,
}

/// The panel's fields and the sweep under way or done.
#[derive(Resource)]
pub struct SweepPanel {
    pub open: bool,
    pub key: String,
    pub values: String,
    pub metric: String,
    /// The scenario the sweep ran on (for writing its table).
    scenario: Option<Scenario>,
    running: Option<Arc<Progress>>,
    pub table: Option<SweepTable>,
    /// When the running sweep started.
    started: Option<std::time::Instant>,
}

impl Default for SweepPanel {
    fn default() -> Self {
        SweepPanel {
            open: false,
            key: "variants[1].factorization.beta".into(),
            values: "0, -1, -2, -5, -10, -20".into(),
            metric: "max_abs_q[2]".into(),
            scenario: None,
            running: None,
            table: None,
            started: None,
        }
    }
}

impl SweepPanel {
    /// Opens the panel with a key and a metric that suit `scenario`: the
    /// first torsion variant's beta (else the damping gain K_D), and the
    /// height the point mass climbs (else the RMS tracking error).
    pub fn open_for(&mut self, scenario: &Scenario) {
        self.open = true;
        if self.running.is_some() || self.table.is_some() {
            return;
        }
        let torsion = scenario
            .file
            .variants
            .iter()
            .position(|v| matches!(v.factorization, Some(FactorizationSpec::Torsion { .. })));
        (self.key, self.values) = match torsion {
            Some(i) => (
                format!("variants[{i}].factorization.beta"),
                "0, -1, -2, -5, -10, -20".into(),
            ),
            None => ("controller.kd".into(), "1, 2, 5, 10, 20".into()),
        };
        let point_mass =
            scenario.file.robot.builtin == Some(crate::scenario::BuiltinSystem::PointMass);
        self.metric = if point_mass {
            "max_abs_q[2]"
        } else {
            "rms_tracking_error"
        }
        .into();
    }

    /// Starts sweeping `scenario`'s key over the values in the background.
    fn start(&mut self, scenario: &Scenario) {
        let values: Vec<String> = self
            .values
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect();
        let progress = Arc::new(Progress::default());
        let (key, worker, owned) = (
            self.key.trim().to_string(),
            progress.clone(),
            scenario.clone(),
        );
        // Leave a core to the window.
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .saturating_sub(1)
            .max(1);
        std::thread::spawn(move || {
            let outcome = plan(&owned, &key, &values, threads).map(|plan| {
                *worker.warning.lock().unwrap_or_else(|e| e.into_inner()) =
                    plan.fast_references_said(&Selection::All, &[]);
                worker.total.store(plan.len(), Ordering::Relaxed);
                let report = |done, _total| worker.done.store(done, Ordering::Relaxed);
                plan.run(threads, &report, &worker.stop)
            });
            *worker.outcome.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
        });
        self.scenario = Some(scenario.clone());
        self.running = Some(progress);
        self.table = None;
        self.started = Some(std::time::Instant::now());
    }
}

/// The checked plan, refused beyond the run-size ceiling (as `sweep`
/// without `--allow-long`).
fn plan(
    scenario: &Scenario,
    key: &str,
    values: &[String],
    threads: usize,
) -> Result<SweepPlan, String> {
    if values.is_empty() {
        return Err("give at least one value (comma-separated)".into());
    }
    let plan = SweepPlan::new(scenario, key, values).map_err(|e| e.to_string())?;
    scenario
        .check_run_size(&plan.estimate(threads), false)
        .map_err(|e| e.to_string())?;
    Ok(plan)
}

pub struct SweepPanelPlugin;

impl Plugin for SweepPanelPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SweepPanel>()
            .add_systems(EguiPrimaryContextPass, sweep_window);
    }
}

fn sweep_window(
    mut contexts: EguiContexts,
    mut panel: ResMut<SweepPanel>,
    session: Res<Session>,
    mut notices: ResMut<Notices>,
) -> Result {
    if !panel.open {
        return Ok(());
    }
    // Say what the plan found before its runs.
    let warning = panel
        .running
        .as_ref()
        .and_then(|p| p.warning.lock().unwrap_or_else(|e| e.into_inner()).take());
    if let Some(warning) = warning {
        notices.warning(format!("sweep: {warning}"));
    }
    // Collect a finished sweep.
    let finished = panel
        .running
        .as_ref()
        .and_then(|p| p.outcome.lock().unwrap_or_else(|e| e.into_inner()).take());
    match finished {
        Some(Ok(table)) => {
            panel.running = None;
            if !table.complete() {
                notices.info(format!(
                    "sweep stopped: {} of {} runs finished",
                    table.finished(),
                    table.runs_total
                ));
            }
            panel.table = Some(table);
        }
        Some(Err(problem)) => {
            panel.running = None;
            notices.error(format!("sweep not started: {problem}"));
        }
        None => {}
    }
    let mut open = panel.open;
    egui::Window::new("Sweep")
        .open(&mut open)
        .default_width(420.0)
        .show(contexts.ctx_mut()?, |ui| {
            contents(ui, &mut panel, &session, &mut notices)
        });
    panel.open = open;
    Ok(())
}

/// Width of the key and values fields, points.
const FIELD_WIDTH: f32 = 260.0;

fn contents(ui: &mut egui::Ui, panel: &mut SweepPanel, session: &Session, notices: &mut Notices) {
    ui.small(format!(
        "Runs {} with a key set to each value, all variants, in the background.",
        session.scenario.file.name
    ));
    egui::Grid::new("sweep fields").show(ui, |ui| {
        ui.label("key");
        // Sized, to read what is typed (a grid's cell gave them 40 px,
        // whatever their desired width).
        let size = [FIELD_WIDTH, ui.spacing().interact_size.y];
        ui.add_sized(size, egui::TextEdit::singleline(&mut panel.key))
            .on_hover_text("a dotted key of the scenario, e.g. controller.kd, estimate.scale");
        ui.end_row();
        ui.label("values");
        ui.add_sized(size, egui::TextEdit::singleline(&mut panel.values));
        ui.end_row();
    });
    ui.horizontal(|ui| match &panel.running {
        Some(p) => {
            let (done, total) = (
                p.done.load(Ordering::Relaxed),
                p.total.load(Ordering::Relaxed),
            );
            let elapsed = panel.started.map_or(0.0, |s| s.elapsed().as_secs_f64());
            let text = if total == 0 {
                "building the runs…".to_string()
            } else {
                format!("{done} / {total} runs, {elapsed:.0} s")
            };
            let fraction = if total > 0 {
                done as f32 / total as f32
            } else {
                0.0
            };
            ui.add(
                egui::ProgressBar::new(fraction)
                    .text(text)
                    .desired_width(260.0),
            );
            if ui.button("Stop").clicked() {
                p.stop.store(true, Ordering::Relaxed);
            }
        }
        None => {
            if ui.button("Run sweep").clicked() {
                panel.start(&session.scenario);
            }
        }
    });
    let Some(table) = &panel.table else { return };
    let names = table
        .rows
        .first()
        .map(|r| metric_names(&r.summary))
        .unwrap_or_default();
    egui::ComboBox::from_label("metric")
        .selected_text(panel.metric.clone())
        .height(300.0)
        .show_ui(ui, |ui| {
            for name in names {
                let selected = panel.metric == name;
                if ui.selectable_label(selected, &name).clicked() {
                    panel.metric = name;
                }
            }
        });
    let (_, numeric) = table.abscissae();
    let x_label = if numeric {
        table.parameter().to_string()
    } else {
        format!("{} (index of the value)", table.parameter())
    };
    Plot::new("sweep curve")
        .height(220.0)
        .legend(super::plots::legend())
        .x_axis_label(x_label)
        .y_axis_label(panel.metric.clone())
        .show(ui, |p| {
            for (i, variant) in table.variants.iter().enumerate() {
                let curve: Vec<[f64; 2]> = table
                    .curve(&panel.metric, variant)
                    .into_iter()
                    .map(|(x, y)| [x, y])
                    .collect();
                let color = variant_color32(i);
                p.line(Line::new(variant.as_str(), PlotPoints::from(curve.clone())).color(color));
                p.points(
                    Points::new(variant.as_str(), PlotPoints::from(curve))
                        .radius(3.0)
                        .color(color),
                );
            }
        });
    ui.small(format!(
        "{} of {} runs finished{}",
        table.finished(),
        table.runs_total,
        if table.complete() {
            ""
        } else {
            " (incomplete)"
        }
    ));
    if ui.button("Write sweep.csv, .json and plot").clicked() {
        if let Some(scenario) = &panel.scenario {
            let dir = PathBuf::from("results").join(format!(
                "{}-app-sweep-{}",
                scenario.file.name,
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs())
            ));
            let metrics = std::slice::from_ref(&panel.metric);
            let written = crate::io::RunFolder::create(&dir, false, &[])
                .map_err(|e| e.to_string())
                .and_then(|folder| {
                    let wrote = table.write(folder.path(), metrics);
                    wrote.map_err(|e| e.to_string())?;
                    folder.commit(table.complete()).map_err(|e| e.to_string())
                });
            match written {
                Ok(files) => {
                    notices.info(format!("wrote {} files to {}", files.len(), dir.display()))
                }
                Err(e) => notices.error(format!(
                    "writing the sweep to {} failed: {e}",
                    dir.display()
                )),
            }
        }
    }
}
