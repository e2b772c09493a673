//! The right panel: live plots (egui_plot) with one line per variant —
//! Lyapunov value, tracking error and s norms, the task's position and
//! orientation errors and |s_x| (task scenarios), a joint torque, a parameter
//! estimate against its true value, the skew and validity residuals — and a
//! torsion readout. Hovering shows values; the plots follow the last few
//! seconds or show the whole run. Applied live edits are marked. Passivity
//! bookkeeping: supply, dissipation, mismatch and the balance residual.
//! Headings, readers and colours are those of the figures
//! ([`crate::plot::quantities`], [`crate::plot::palette`]).

use super::camera::PanelMargins;
use super::panels::show_side_panel;
use super::session::{LiveVariant, Session};
use super::spectrum_plot::{spectra_section, SpectrumCache};
use super::torsion_view::TorsionViewSettings;
use super::{color32, variant_color32};
use crate::plot::palette::{EDIT, REFERENCE_ON_DARK};
use crate::plot::quantities::{self as q, log10};
use crate::sim::Sample;
use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts, EguiPrimaryContextPass};
use egui_plot::{HLine, Legend, Line, LineStyle, Plot, PlotPoints, VLine};

/// What the plots show.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct PlotSettings {
    /// Seconds shown; None: the whole run.
    pub window: Option<f64>,
    /// Joint whose torque is plotted.
    pub joint: usize,
    /// Inertial parameter plotted (10 per body, Pinocchio's order).
    pub parameter: usize,
}

impl Default for PlotSettings {
    fn default() -> Self {
        PlotSettings {
            window: Some(5.0),
            joint: 0,
            parameter: 0,
        }
    }
}

pub struct PlotsPlugin;

impl Plugin for PlotsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PlotSettings>()
            .add_systems(EguiPrimaryContextPass, right_panel);
    }
}

const PARAMETER_NAMES: [&str; 10] = [
    "m", "m cx", "m cy", "m cz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz",
];

/// Reads a plotted value from recorded sample k of a variant.
type Reader<'a> = Box<dyn Fn(&LiveVariant, usize) -> f64 + 'a>;

/// One plot: its heading and how to read it.
struct Quantity<'a> {
    title: String,
    value: Reader<'a>,
}

impl Quantity<'_> {
    /// Component `index` of a quantity of the table, under `title`.
    fn of(quantity: q::Quantity, title: String, index: usize) -> Quantity<'static> {
        Quantity {
            title,
            value: Box::new(move |v, k| quantity.value(&v.samples, k, index)),
        }
    }

    /// A scalar quantity of the table, under its heading.
    fn scalar(quantity: q::Quantity) -> Quantity<'static> {
        Quantity::of(quantity, quantity.heading.into(), 0)
    }
}

/// The recorded samples of `v` within the window.
fn visible(v: &LiveVariant, since: f64) -> std::ops::Range<usize> {
    v.samples.partition_point(|s: &Sample| s.t < since)..v.samples.len()
}

fn plot(ui: &mut egui::Ui, session: &Session, since: f64, q: &Quantity, extra: Option<f64>) {
    ui.label(&q.title);
    Plot::new(q.title.as_str())
        .height(120.0)
        .legend(Legend::default())
        .link_axis("time", [true, false])
        .show(ui, |p| {
            for (i, v) in session.variants.iter().enumerate() {
                let points: Vec<[f64; 2]> = visible(v, since)
                    .map(|k| [v.samples[k].t, (q.value)(v, k)])
                    .filter(|p| p[1].is_finite())
                    .collect();
                p.line(
                    Line::new(v.name.as_str(), PlotPoints::from(points)).color(variant_color32(i)),
                );
            }
            if let Some(y) = extra {
                p.hline(
                    HLine::new("true value", y)
                        .color(color32(REFERENCE_ON_DARK))
                        .style(LineStyle::dashed_loose()),
                );
            }
            for (t, _) in session.edits.iter().filter(|(t, _)| *t >= since) {
                p.vline(VLine::new("edit", *t).color(color32(EDIT)));
            }
        });
}

fn right_panel(
    mut contexts: EguiContexts,
    session: Res<Session>,
    torsion: Res<TorsionViewSettings>,
    mut spectra: Local<SpectrumCache>,
    mut settings: ResMut<PlotSettings>,
    mut margins: ResMut<PanelMargins>,
) -> Result {
    let width = show_side_panel(
        contexts.ctx_mut()?,
        "right root",
        egui::Panel::right("plots").default_size(420.0),
        |ui| {
            plots(ui, &session, &mut settings, &torsion);
            spectra_section(ui, &session, &mut spectra);
        },
    );
    if margins.right != width {
        margins.right = width;
    }
    Ok(())
}

fn plots(
    ui: &mut egui::Ui,
    session: &Session,
    settings: &mut PlotSettings,
    torsion: &TorsionViewSettings,
) {
    let n = session.plant().nv;
    super::editors::time_window(ui, &mut settings.window, 5.0, 0.5..=30.0);
    let since = settings
        .window
        .map_or(f64::NEG_INFINITY, |w| session.time() - w);
    torsion_readout(ui, session);
    let with_task = session
        .variants
        .iter()
        .any(|v| v.samples.last().is_some_and(|s| s.task.is_some()));
    let mut quantities: Vec<Quantity> = [q::LYAPUNOV, q::TRACKING_ERROR, q::PASSIVE_OUTPUT]
        .map(Quantity::scalar)
        .into();
    if with_task {
        quantities.extend([q::TASK_POSITION_ERROR, q::TASK_SLIDING].map(Quantity::scalar));
        let pose = session.variants.iter().any(|v| {
            v.sim
                .controller
                .task()
                .is_some_and(|t| t.kind == crate::control::TaskKind::Pose)
        });
        if pose {
            quantities.push(Quantity::scalar(q::TASK_ORIENTATION_ERROR));
        }
    }
    let with_energy = session
        .variants
        .iter()
        .any(|v| v.samples.last().is_some_and(|s| s.energy.is_some()));
    if with_energy {
        // The energy balance through the passive port y (README, "Pushes
        // and the energy balance").
        quantities.extend(
            [q::SUPPLY, q::DISSIPATION, q::MISMATCH, q::BALANCE_RESIDUAL].map(Quantity::scalar),
        );
    }
    if torsion.transport {
        quantities.push(Quantity {
            title: "Transport: angle between the frame carried with C and with C* (deg)".into(),
            value: Box::new(|v, k| v.view[k].transport_angle.to_degrees()),
        });
    }
    for q in &quantities {
        plot(ui, session, since, q, None);
    }
    // A free root is unactuated (zero torque): list the joints after it.
    let model = session.plant();
    let first = if model.has_free_root() { 6 } else { 0 };
    let label = |j: usize| {
        let body = &model.bodies[model.dof_body[j]];
        format!("{j}: {}", body.joint_name)
    };
    settings.joint = settings.joint.clamp(first, n.saturating_sub(1).max(first));
    egui::ComboBox::from_id_salt("torque joint")
        .selected_text(label(settings.joint.min(n.saturating_sub(1))))
        .show_ui(ui, |ui| {
            for j in first..n {
                ui.selectable_value(&mut settings.joint, j, label(j));
            }
        });
    let joint = settings.joint;
    plot(
        ui,
        session,
        since,
        &Quantity::of(
            q::TORQUE,
            format!("{}_{joint} ({})", q::TORQUE.heading, q::TORQUE.unit),
            joint,
        ),
        None,
    );
    let adaptive = session
        .variants
        .iter()
        .any(|v| !v.sim.parameters.is_empty());
    if adaptive {
        let np = session.variants[0].sim.true_parameters().len();
        settings.parameter = settings.parameter.min(np.saturating_sub(1));
        let model = session.plant();
        let name = |p: usize| format!("{} {}", model.bodies[p / 10].name, PARAMETER_NAMES[p % 10]);
        egui::ComboBox::from_id_salt("parameter")
            .selected_text(name(settings.parameter))
            .show_ui(ui, |ui| {
                for p in 0..np {
                    ui.selectable_value(&mut settings.parameter, p, name(p));
                }
            });
        let p = settings.parameter;
        plot(
            ui,
            session,
            since,
            &Quantity::of(
                q::PARAMETER,
                format!("{} {}", q::PARAMETER.heading, name(p)),
                p,
            ),
            session.variants[0].sim.true_parameters().get(p).copied(),
        );
    }
    let residuals = [
        Quantity::scalar(q::SKEW_RESIDUAL),
        Quantity {
            title: "log10 validity residual max|(C - C*) v|".into(),
            value: Box::new(|v, k| log10(v.view[k].validity_residual)),
        },
    ];
    for q in &residuals {
        plot(ui, session, since, q, None);
    }
}

/// The factorization's numbers now: torsion norm, skew and validity
/// residuals (Wensing, Englsberger & Slotine (2023): admissible means both residuals vanish; torsion is
/// what Lyapunov analysis cannot see), V, and the task's manipulability.
fn torsion_readout(ui: &mut egui::Ui, session: &Session) {
    egui::Grid::new("torsion readout")
        .striped(true)
        .show(ui, |ui| {
            ui.label("variant");
            ui.label("|torsion|");
            ui.label("skew res.");
            ui.label("validity res.");
            ui.label("V");
            ui.label("manip.").on_hover_text(
                "manipulability sqrt(det(J J^T)) of the task, and sigma_min / sigma_rms",
            );
            ui.end_row();
            for (i, v) in session.variants.iter().enumerate() {
                let (Some(s), Some(t)) = (v.samples.last(), v.view.last()) else {
                    continue;
                };
                ui.colored_label(variant_color32(i), &v.name);
                ui.label(format!("{:.3e}", t.torsion_norm));
                ui.label(format!("{:.1e}", s.skew_residual));
                ui.label(format!("{:.1e}", t.validity_residual));
                ui.label(format!("{:.4}", s.lyapunov.value));
                ui.label(s.task.as_ref().map_or("-".into(), |t| {
                    format!("{:.3} ({:.2})", t.manipulability, t.singular_ratio)
                }));
                ui.end_row();
            }
        });
}
