//! The plots panel, docked below or right of the 3-D view or floating
//! ([`super::layout`]): live plots (egui_plot) with one line per variant —
//! Lyapunov value ([`super::lyapunov_plot`]), tracking error and s norms, the task's position and
//! orientation errors and |s_x| (task scenarios), a joint torque, a parameter
//! estimate against its true value, the estimates' log-det divergence from
//! the truth ([`super::divergence_plot`]), the skew and validity residuals — and a
//! torsion readout; a closed chain's loop drift before each projection. Hovering shows values; the plots follow the last few
//! seconds or show the whole run. Applied live edits are marked. Passivity
//! bookkeeping: supply, dissipation, mismatch and the balance residual.
//! Headings, readers and colours are those of the figures
//! ([`crate::plot::quantities`], [`crate::plot::palette`]).

use super::camera::PanelMargins;
use super::divergence_plot::{divergence_plot, has_divergence};
use super::layout::{show_edge_panel, Edge, EdgePanel, Layout, PlotsDock};
use super::lyapunov_plot::{lyapunov_plot, LyapunovScale};
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
    /// How the Lyapunov plot scales V.
    pub lyapunov: LyapunovScale,
}

impl Default for PlotSettings {
    fn default() -> Self {
        PlotSettings {
            window: Some(5.0),
            joint: 0,
            parameter: 0,
            lyapunov: LyapunovScale::default(),
        }
    }
}

pub struct PlotsPlugin;

impl Plugin for PlotsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PlotSettings>().add_systems(
            EguiPrimaryContextPass,
            plots_panel.after(super::panels::left_panel),
        );
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
pub fn visible(v: &LiveVariant, since: f64) -> std::ops::Range<usize> {
    v.samples.partition_point(|s: &Sample| s.t < since)..v.samples.len()
}

/// Height of a plot (logical pixels).
const PLOT_HEIGHT: f32 = 120.0;

/// Width of a plot side by side with others (logical pixels).
const CELL_WIDTH: f32 = 340.0;

/// How the plots are laid out: one above the other, the panel's width, or
/// side by side in cells of a fixed width that wrap into rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cells {
    width: Option<f32>,
}

impl Cells {
    pub const COLUMN: Cells = Cells { width: None };
    pub const SIDE_BY_SIDE: Cells = Cells {
        width: Some(CELL_WIDTH),
    };

    /// Lays out `contents`, a series of [`Self::cell`]s.
    fn wrap(self, ui: &mut egui::Ui, contents: impl FnOnce(&mut egui::Ui)) {
        match self.width {
            None => contents(ui),
            Some(_) => {
                ui.horizontal_wrapped(contents);
            }
        }
    }

    /// Shows one plot (with its heading and pickers) in its cell.
    pub fn cell(self, ui: &mut egui::Ui, contents: impl FnOnce(&mut egui::Ui)) {
        match self.width {
            None => contents(ui),
            Some(w) => {
                ui.allocate_ui_with_layout(
                    egui::vec2(w, PLOT_HEIGHT),
                    egui::Layout::top_down(egui::Align::Min),
                    |ui| {
                        ui.set_width(w);
                        contents(ui);
                    },
                );
            }
        }
    }
}

/// One line of a plot.
pub struct Curve {
    pub name: String,
    pub color: egui::Color32,
    pub dashed: bool,
    pub points: Vec<[f64; 2]>,
}

/// A plot of `curves` against time under `title`: a dashed horizontal line
/// at `reference` (a true value) if any, the applied edits since `since`
/// marked, the value axis in decades when `log10` (the curves hold log10
/// values).
/// The plots' legend: small, see-through, at the top left (the present,
/// on the right, stays in view; a legend of long variant names covered
/// 40-60 % of a plot).
pub fn legend() -> Legend {
    Legend::default()
        .position(egui_plot::Corner::LeftTop)
        .text_style(egui::TextStyle::Small)
        .background_alpha(0.5)
}

pub fn draw(
    ui: &mut egui::Ui,
    session: &Session,
    since: f64,
    title: &str,
    curves: Vec<Curve>,
    reference: Option<f64>,
    log10: bool,
) {
    ui.label(title);
    let mut plot = Plot::new(title)
        .height(PLOT_HEIGHT)
        .legend(legend())
        .link_axis("time", [true, false]);
    if log10 {
        plot = plot.y_axis_formatter(|mark, _| {
            if mark.value.fract() == 0.0 {
                format!("1e{}", mark.value)
            } else {
                String::new()
            }
        });
    }
    plot.show(ui, |p| {
        for c in curves {
            let mut line = Line::new(c.name, PlotPoints::from(c.points)).color(c.color);
            if c.dashed {
                line = line.style(LineStyle::dashed_dense());
            }
            p.line(line);
        }
        if let Some(y) = reference {
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

/// Each variant's samples since `since` read by `value`, in its colour.
pub fn variant_curves(
    session: &Session,
    since: f64,
    value: impl Fn(&LiveVariant, usize) -> f64,
) -> Vec<Curve> {
    session
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| Curve {
            name: v.name.clone(),
            color: variant_color32(i),
            dashed: false,
            points: visible(v, since)
                .map(|k| [v.samples[k].t, value(v, k)])
                .filter(|p| p[1].is_finite())
                .collect(),
        })
        .collect()
}

fn plot(ui: &mut egui::Ui, session: &Session, since: f64, q: &Quantity, extra: Option<f64>) {
    let curves = variant_curves(session, since, &q.value);
    draw(ui, session, since, &q.title, curves, extra, false);
}

/// The plots panel where the layout puts it; sets the margins it takes
/// from the 3-D view.
fn plots_panel(
    mut contexts: EguiContexts,
    session: Res<Session>,
    torsion: Res<TorsionViewSettings>,
    mut spectra: Local<SpectrumCache>,
    mut settings: ResMut<PlotSettings>,
    mut margins: ResMut<PanelMargins>,
    mut layout: ResMut<Layout>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut contents = |ui: &mut egui::Ui, cells: Cells| {
        plots(ui, cells, &session, &mut settings, &torsion);
        spectra_section(ui, &session, &mut spectra);
    };
    // Beside the controls panel, drawn before this one.
    let mut area = ctx.viewport_rect();
    area.min.x = (area.min.x + margins.left).min(area.max.x);
    let hint = "hide or show the plots (P); D moves them";
    let Layout {
        plots_open,
        plots_dock,
        ..
    } = &mut *layout;
    let (right, bottom) = match plots_dock {
        PlotsDock::Right => {
            let spec = EdgePanel {
                edge: Edge::Right,
                id: "plots right",
                default_size: 420.0,
                hint,
                area,
            };
            let width = show_edge_panel(ctx, spec, plots_open, |ui| contents(ui, Cells::COLUMN));
            (width, 0.0)
        }
        PlotsDock::Below => {
            let spec = EdgePanel {
                edge: Edge::Bottom,
                id: "plots below",
                default_size: 290.0,
                hint,
                area,
            };
            let height = show_edge_panel(ctx, spec, plots_open, |ui| {
                contents(ui, Cells::SIDE_BY_SIDE)
            });
            (0.0, height)
        }
        PlotsDock::Floating => {
            egui::Window::new("Plots")
                .open(plots_open)
                .default_pos(area.right_top() + egui::vec2(-460.0, 40.0))
                .default_size([440.0, 600.0])
                .vscroll(true)
                .show(ctx, |ui| contents(ui, Cells::COLUMN));
            (0.0, 0.0)
        }
    };
    if (margins.right, margins.bottom) != (right, bottom) {
        (margins.right, margins.bottom) = (right, bottom);
    }
    Ok(())
}

fn plots(
    ui: &mut egui::Ui,
    cells: Cells,
    session: &Session,
    settings: &mut PlotSettings,
    torsion: &TorsionViewSettings,
) {
    let n = session.plant().nv;
    let with_task = session
        .variants
        .iter()
        .any(|v| v.samples.last().is_some_and(|s| s.task.is_some()));
    let mut quantities: Vec<Quantity> = [q::TRACKING_ERROR, q::PASSIVE_OUTPUT]
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
    let chain = session.variants.iter().any(|v| {
        v.samples
            .last()
            .is_some_and(|s| s.constraint_drift.is_some())
    });
    if chain {
        quantities.push(Quantity::scalar(q::CONSTRAINT_DRIFT));
    }
    if torsion.transport {
        quantities.push(Quantity {
            title: "Transport: angle between the frame carried with C and with C* (deg)".into(),
            value: Box::new(|v, k| v.view[k].transport_angle.to_degrees()),
        });
    }
    quantities.extend([
        Quantity::scalar(q::SKEW_RESIDUAL),
        Quantity {
            title: "log10 validity residual max|(C - C*) v|".into(),
            value: Box::new(|v, k| log10(v.view[k].validity_residual)),
        },
    ]);
    cells.wrap(ui, |ui| {
        // The numbers now, as wide as they need.
        ui.vertical(|ui| {
            super::editors::time_window(ui, &mut settings.window, 5.0, 0.5..=30.0);
            torsion_readout(ui, session);
        });
        let since = settings
            .window
            .map_or(f64::NEG_INFINITY, |w| session.time() - w);
        cells.cell(ui, |ui| {
            lyapunov_plot(ui, session, since, &mut settings.lyapunov);
        });
        for q in &quantities {
            cells.cell(ui, |ui| plot(ui, session, since, q, None));
        }
        cells.cell(ui, |ui| {
            torque_plot(ui, session, since, &mut settings.joint, n)
        });
        let adaptive = session
            .variants
            .iter()
            .any(|v| !v.sim.parameters.is_empty());
        if adaptive {
            cells.cell(ui, |ui| {
                parameter_plot(ui, session, since, &mut settings.parameter);
            });
        }
        if has_divergence(session) {
            cells.cell(ui, |ui| divergence_plot(ui, session, since));
        }
    });
}

/// The torque of a joint picked from a list.
fn torque_plot(ui: &mut egui::Ui, session: &Session, since: f64, joint: &mut usize, n: usize) {
    // A free root is unactuated (zero torque): list the joints after it.
    let model = session.plant();
    let first = if model.has_free_root() { 6 } else { 0 };
    let label = |j: usize| {
        let body = &model.bodies[model.dof_body[j]];
        format!("{j}: {}", body.joint_name)
    };
    *joint = (*joint).clamp(first, n.saturating_sub(1).max(first));
    egui::ComboBox::from_id_salt("torque joint")
        .selected_text(label((*joint).min(n.saturating_sub(1))))
        .show_ui(ui, |ui| {
            for j in first..n {
                ui.selectable_value(joint, j, label(j));
            }
        });
    let j = *joint;
    plot(
        ui,
        session,
        since,
        &Quantity::of(
            q::TORQUE,
            format!("{}_{j} ({})", q::TORQUE.heading, q::TORQUE.unit),
            j,
        ),
        None,
    );
}

/// An inertial parameter picked from a list, its estimate against its true
/// value (for sessions with an adaptive variant).
fn parameter_plot(ui: &mut egui::Ui, session: &Session, since: f64, parameter: &mut usize) {
    let np = session.variants[0].sim.true_parameters().len();
    *parameter = (*parameter).min(np.saturating_sub(1));
    let model = session.plant();
    let name = |p: usize| format!("{} {}", model.bodies[p / 10].name, PARAMETER_NAMES[p % 10]);
    egui::ComboBox::from_id_salt("parameter")
        .selected_text(name(*parameter))
        .show_ui(ui, |ui| {
            for p in 0..np {
                ui.selectable_value(parameter, p, name(p));
            }
        });
    let p = *parameter;
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

/// `x` with four significant digits: fixed between 1e-3 and 1e5, else in
/// scientific notation (a standing robot's V of 3e-5 J read 0.0000).
fn readable(x: f64) -> String {
    if x == 0.0 || (1e-3..1e5).contains(&x.abs()) {
        let decimals = if x == 0.0 {
            3
        } else {
            3 - x.abs().log10().floor() as i32
        };
        format!("{x:.*}", decimals.max(0) as usize)
    } else {
        format!("{x:.3e}")
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
            ui.label("|torsion|").on_hover_text(
                "max |(C - C*) v| of the joint-space factorization (a task-space torsion is not in it)",
            );
            ui.label("skew res.");
            ui.label("validity res.");
            ui.label("V (J)");
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
                ui.label(readable(s.lyapunov.value));
                ui.label(s.task.as_ref().map_or("-".into(), |t| {
                    format!("{:.3} ({:.2})", t.manipulability, t.singular_ratio)
                }));
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::readable;

    #[test]
    fn readings_keep_four_significant_digits() {
        assert_eq!(readable(2367.1485), "2367");
        assert_eq!(readable(12.5), "12.50");
        assert_eq!(readable(0.0021), "0.002100");
        assert_eq!(readable(0.0), "0.000");
        assert_eq!(readable(3.2e-5), "3.200e-5");
        assert_eq!(readable(3.5e15), "3.500e15");
        assert_eq!(readable(-0.5), "-0.5000");
    }
}
