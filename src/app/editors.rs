//! egui editors for the scenario tables the app changes live (controller,
//! factorization, estimate, payload). Each returns whether the user changed
//! something; the session then applies the edited file.

use crate::control::TaskKind;
use crate::scenario::{
    AdaptationLawSpec, AdaptationSpec, BoundsSpec, ControllerSpec, EstimateSpec, FactorizationSpec,
    Gain, PayloadSpec, TaskSpec,
};
use bevy_egui::egui;

/// A gain: one value for all joints, or one per joint.
pub fn gain(ui: &mut egui::Ui, label: &str, gain: &mut Gain) -> bool {
    let mut changed = false;
    ui.horizontal_wrapped(|ui| {
        ui.label(label);
        match gain {
            Gain::All(x) => {
                changed |= ui
                    .add(egui::DragValue::new(x).speed(0.1).range(0.0..=1e4))
                    .changed();
            }
            Gain::Each(values) => {
                for x in values.iter_mut() {
                    changed |= ui
                        .add(egui::DragValue::new(x).speed(0.1).range(0.0..=1e4))
                        .changed();
                }
            }
        }
    });
    changed
}

/// A time window: the whole run (None) or the last `range` seconds.
pub fn time_window(
    ui: &mut egui::Ui,
    window: &mut Option<f64>,
    default: f64,
    range: std::ops::RangeInclusive<f64>,
) {
    let mut whole = window.is_none();
    ui.horizontal(|ui| {
        ui.checkbox(&mut whole, "whole run");
        if whole {
            *window = None;
        } else {
            let w = window.get_or_insert(default);
            ui.add(egui::Slider::new(w, range).text("s shown"));
        }
    });
}

/// The first value of a gain (to carry it over when the law changes).
fn first(g: &Gain) -> f64 {
    match g {
        Gain::All(x) => *x,
        Gain::Each(v) => v.first().copied().unwrap_or(0.0),
    }
}

const LAWS: [(&str, &str); 6] = [
    ("slotine_li", "Slotine-Li"),
    ("pd_plus", "PD+"),
    ("computed_torque", "computed torque"),
    ("task_slotine_li", "task: Cartesian Slotine-Li"),
    ("operational_slotine_li", "task: operational Slotine-Li"),
    ("operational_pd_plus", "task: operational PD+"),
];

/// What a closed chain cannot take, by key, and why: its controllers act
/// in the independent joints or on a task with as many coordinates as the
/// mobility ([`crate::control::Controller::with_closed_chain`]).
const NOT_ON_A_CHAIN: [(&str, &str); 2] = [
    (
        "computed_torque",
        "not built for a closed chain: it runs PD+, Slotine–Li and the task laws",
    ),
    (
        "task_torsion",
        "a closed chain takes its torsion from the tree's factorization through A",
    ),
];

/// Why a closed chain's posture gains stay 0.
const NO_POSTURE_ON_A_CHAIN: &str =
    "0 on a closed chain: its task has as many coordinates as the mobility, so no null space";

/// A combo box over `(key, label)` options; returns the key chosen (the
/// current one unless the user picked another). The options listed in
/// `unavailable` are shown disabled, their reason on hover.
fn choose(
    ui: &mut egui::Ui,
    id: (&str, &str),
    options: &[(&'static str, &'static str)],
    current: &'static str,
    unavailable: &[(&str, &str)],
) -> &'static str {
    let mut chosen = current;
    let label = options.iter().find(|o| o.0 == current).map_or("", |o| o.1);
    egui::ComboBox::from_id_salt(id)
        .selected_text(label)
        .show_ui(ui, |ui| {
            for &(key, name) in options {
                match unavailable.iter().find(|u| u.0 == key) {
                    Some(&(_, why)) => {
                        ui.add_enabled_ui(false, |ui| ui.selectable_label(false, name))
                            .inner
                            .on_disabled_hover_text(why);
                    }
                    None => {
                        ui.selectable_value(&mut chosen, key, name);
                    }
                }
            }
        });
    chosen
}

/// The options a scenario cannot take: none on a tree.
fn unavailable(closed_chain: bool) -> &'static [(&'static str, &'static str)] {
    if closed_chain {
        &NOT_ON_A_CHAIN
    } else {
        &[]
    }
}

/// A posture gain: editable on a tree; on a closed chain shown disabled
/// (it stays 0).
fn posture_gain(ui: &mut egui::Ui, label: &str, g: &mut Gain, closed_chain: bool) -> bool {
    if !closed_chain {
        return gain(ui, label, g);
    }
    ui.add_enabled_ui(false, |ui| gain(ui, label, g))
        .response
        .on_disabled_hover_text(NO_POSTURE_ON_A_CHAIN);
    false
}

/// The control law and its gains (`closed_chain`: only what a closed
/// chain runs can be chosen).
pub fn controller(
    ui: &mut egui::Ui,
    id: &str,
    spec: &mut ControllerSpec,
    closed_chain: bool,
) -> bool {
    let law = choose(
        ui,
        ("law", id),
        &LAWS,
        spec.kind(),
        unavailable(closed_chain),
    );
    let mut changed = false;
    if law != spec.kind() {
        changed = true;
        *spec = new_law(law, spec, closed_chain);
    }
    match spec {
        ControllerSpec::SlotineLi {
            lambda,
            kd,
            adaptation,
            gamma,
            bounds,
        } => {
            changed |= gain(ui, "Λ (1/s)", lambda);
            changed |= gain(ui, "K_D", kd);
            changed |= adaptation_editor(ui, id, adaptation, gamma, bounds);
        }
        ControllerSpec::TaskSlotineLi {
            lambda,
            kd,
            posture_gain,
            adaptation,
            gamma,
            bounds,
            ..
        } => {
            changed |= gain(ui, "Λ_x (1/s)", lambda);
            changed |= gain(ui, "K_D (joints)", kd);
            changed |= self::posture_gain(ui, "posture k₀ (1/s)", posture_gain, closed_chain);
            changed |= adaptation_editor(ui, id, adaptation, gamma, bounds);
        }
        ControllerSpec::PdPlus { kp, kd }
        | ControllerSpec::ComputedTorque { kp, kd }
        | ControllerSpec::StancePdPlus { kp, kd } => {
            changed |= gain(ui, "K_P", kp);
            changed |= gain(ui, "K_D", kd);
        }
        ControllerSpec::StanceSlotineLi { lambda, kd, .. } => {
            changed |= gain(ui, "Λ (1/s)", lambda);
            changed |= gain(ui, "K_D", kd);
        }
        ControllerSpec::Balance {
            com_stiffness,
            com_damping,
            rotation_stiffness,
            rotation_damping,
            ..
        } => {
            changed |= gain(ui, "K_p CoM (N/m)", com_stiffness);
            changed |= gain(ui, "D CoM (N s/m)", com_damping);
            changed |= gain(ui, "K_R (N m/rad)", rotation_stiffness);
            changed |= gain(ui, "D_R (N m s/rad)", rotation_damping);
        }
        ControllerSpec::OperationalSlotineLi {
            lambda: first_gain,
            kd,
            posture_kp,
            posture_kd,
        }
        | ControllerSpec::OperationalPdPlus {
            kp: first_gain,
            kd,
            posture_kp,
            posture_kd,
        } => {
            let name = if law == "operational_pd_plus" {
                "K_P (task)"
            } else {
                "Λ_x (1/s)"
            };
            changed |= gain(ui, name, first_gain);
            changed |= gain(ui, "K_D (task)", kd);
            changed |= posture_gain(ui, "posture K_P", posture_kp, closed_chain);
            changed |= posture_gain(ui, "posture K_D", posture_kd, closed_chain);
        }
    }
    changed
}

const ADAPTATION_LAWS: [(&str, &str); 2] = [
    ("euclidean", "Euclidean: dπ_hat/dt = −Γ Y^T s"),
    ("natural", "natural: d(P_hat^-1)/dt = B / γ (log-det)"),
];

/// Adaptation on/off, its law (Euclidean, or the natural law of Lee, Kwon
/// & Park 2018) and its gain. Choosing the natural law drops the
/// Euclidean law's bounds (it keeps every estimate physical by itself and
/// refuses them) and makes a per-parameter Γ one γ for every body.
fn adaptation_editor(
    ui: &mut egui::Ui,
    id: &str,
    adaptation: &mut AdaptationSpec,
    gamma: &mut Gain,
    bounds: &mut Option<BoundsSpec>,
) -> bool {
    let mut changed = ui
        .checkbox(&mut adaptation.on, "adapt the parameters")
        .changed();
    if !adaptation.on {
        return changed;
    }
    let current = match adaptation.law {
        AdaptationLawSpec::Euclidean => "euclidean",
        AdaptationLawSpec::Natural => "natural",
    };
    let law = choose(ui, ("adaptation law", id), &ADAPTATION_LAWS, current, &[]);
    if law != current {
        changed = true;
        adaptation.law = if law == "natural" {
            *bounds = None;
            AdaptationLawSpec::Natural
        } else {
            AdaptationLawSpec::Euclidean
        };
        *gamma = Gain::All(first(gamma));
    }
    let label = match adaptation.law {
        AdaptationLawSpec::Euclidean => "Γ",
        AdaptationLawSpec::Natural => "γ (J)",
    };
    changed |= gain(ui, label, gamma);
    changed
}

/// A law of kind `law` with gains carried over from `old` where they mean
/// the same, else defaults that suit a desktop arm (posture gains 0 on a
/// closed chain).
fn new_law(law: &str, old: &ControllerSpec, closed_chain: bool) -> ControllerSpec {
    let posture = |g: f64| Gain::All(if closed_chain { 0.0 } else { g });
    let joint_kd = match old {
        ControllerSpec::SlotineLi { kd, .. }
        | ControllerSpec::PdPlus { kd, .. }
        | ControllerSpec::ComputedTorque { kd, .. }
        | ControllerSpec::TaskSlotineLi { kd, .. } => kd.clone(),
        _ => Gain::All(10.0),
    };
    match law {
        "slotine_li" => ControllerSpec::SlotineLi {
            lambda: Gain::All(5.0),
            kd: joint_kd,
            adaptation: Default::default(),
            gamma: Gain::All(1.0),
            bounds: None,
        },
        "pd_plus" => ControllerSpec::PdPlus {
            kp: Gain::All(5.0 * first(&joint_kd)),
            kd: joint_kd,
        },
        "computed_torque" => ControllerSpec::ComputedTorque {
            kp: Gain::All(100.0),
            kd: Gain::All(20.0),
        },
        "task_slotine_li" => ControllerSpec::TaskSlotineLi {
            lambda: Gain::All(5.0),
            kd: joint_kd,
            posture_gain: posture(1.0),
            adaptation: Default::default(),
            gamma: Gain::All(1.0),
            bounds: None,
        },
        "operational_slotine_li" => ControllerSpec::OperationalSlotineLi {
            lambda: Gain::All(5.0),
            kd: Gain::All(50.0),
            posture_kp: posture(10.0),
            posture_kd: posture(2.0),
        },
        _ => ControllerSpec::OperationalPdPlus {
            kp: Gain::All(400.0),
            kd: Gain::All(40.0),
            posture_kp: posture(10.0),
            posture_kd: posture(2.0),
        },
    }
}

const FACTORIZATIONS: [(&str, &str); 5] = [
    ("christoffel", "C* (Christoffel)"),
    ("classic", "classic (v×*) I"),
    ("alternate", "alternate"),
    ("torsion", "C* + β-torsion"),
    ("task_torsion", "C* + task-space β-torsion"),
];

fn kind_of(spec: &FactorizationSpec) -> &'static str {
    match spec {
        FactorizationSpec::Christoffel {} => "christoffel",
        FactorizationSpec::Classic {} => "classic",
        FactorizationSpec::Alternate {} => "alternate",
        FactorizationSpec::Torsion { .. } => "torsion",
        FactorizationSpec::TaskTorsion { .. } => "task_torsion",
    }
}

/// The Coriolis factorization, with a slider for beta.
pub fn factorization(
    ui: &mut egui::Ui,
    id: &str,
    spec: &mut FactorizationSpec,
    closed_chain: bool,
) -> bool {
    let kind = choose(
        ui,
        ("factorization", id),
        &FACTORIZATIONS,
        kind_of(spec),
        unavailable(closed_chain),
    );
    let mut changed = false;
    if kind != kind_of(spec) {
        changed = true;
        *spec = match kind {
            "christoffel" => FactorizationSpec::Christoffel {},
            "classic" => FactorizationSpec::Classic {},
            "alternate" => FactorizationSpec::Alternate {},
            "task_torsion" => FactorizationSpec::TaskTorsion {
                beta: -5.0,
                triples: None,
            },
            _ => FactorizationSpec::Torsion {
                beta: 1.0,
                beta_gradient: Vec::new(),
                triples: None,
            },
        };
    }
    match spec {
        FactorizationSpec::Torsion { beta, triples, .. } => {
            changed |= ui
                .add(egui::Slider::new(beta, -10.0..=10.0).text("β"))
                .changed();
            ui.small(match triples {
                Some(t) => format!("on {} index triples", t.len()),
                None => "on every index triple i < j < k".into(),
            });
        }
        FactorizationSpec::TaskTorsion { beta, triples } => {
            changed |= ui
                .add(egui::Slider::new(beta, -1000.0..=1000.0).text("β (N s/m)"))
                .changed();
            ui.small(match triples {
                Some(t) => format!("on {} task-coordinate triples", t.len()),
                None => "β (v ×) on the three position coordinates".into(),
            });
        }
        _ => {}
    }
    changed
}

/// The end-effector task: what it controls and its singularity damping
/// (the frame and the reference come from the scenario file).
pub fn task(ui: &mut egui::Ui, task: &mut TaskSpec) -> bool {
    ui.label(egui::RichText::new("Task").strong());
    ui.small(format!(
        "frame {}, reference: {}",
        task.frame,
        serde_json::to_value(&task.reference)
            .ok()
            .and_then(|v| v["kind"].as_str().map(str::to_string))
            .unwrap_or_default()
    ));
    let mut changed = false;
    ui.horizontal(|ui| {
        changed |= ui
            .radio_value(&mut task.kind, TaskKind::Position, "position")
            .changed();
        changed |= ui
            .radio_value(&mut task.kind, TaskKind::Pose, "pose")
            .changed();
    });
    changed |= ui
        .add(egui::Slider::new(&mut task.damping, 0.0..=0.5).text("singularity damping"))
        .changed();
    changed
}

/// A payload: none, or a mass at a point of a link.
pub fn payload(
    ui: &mut egui::Ui,
    id: &str,
    payload: &mut Option<PayloadSpec>,
    links: &[String],
) -> bool {
    let mut changed = false;
    let mut present = payload.is_some();
    if ui.checkbox(&mut present, "payload").changed() {
        changed = true;
        *payload = present.then(|| PayloadSpec {
            link: links.last().cloned().unwrap_or_default(),
            mass: 1.0,
            com: [0.0; 3],
        });
    }
    if let Some(p) = payload {
        ui.horizontal(|ui| {
            changed |= ui
                .add(
                    egui::DragValue::new(&mut p.mass)
                        .speed(0.05)
                        .range(0.0..=100.0)
                        .suffix(" kg"),
                )
                .changed();
            egui::ComboBox::from_id_salt(("payload link", id))
                .selected_text(p.link.clone())
                .show_ui(ui, |ui| {
                    for l in links {
                        changed |= ui.selectable_value(&mut p.link, l.clone(), l).changed();
                    }
                });
        });
    }
    changed
}

/// The controller's model: scale of every inertial parameter and a payload guess.
pub fn estimate(ui: &mut egui::Ui, id: &str, spec: &mut EstimateSpec, links: &[String]) -> bool {
    let mut changed = ui
        .add(egui::Slider::new(&mut spec.scale, 0.2..=2.0).text("inertia scale"))
        .changed();
    changed |= payload(ui, id, &mut spec.payload, links);
    changed
}
