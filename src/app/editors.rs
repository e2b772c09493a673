//! egui editors for the scenario tables the app changes live (controller,
//! factorization, estimate, payload). Each returns whether the user changed
//! something; the session then applies the edited file.

use super::number_fields;
use crate::control::TaskKind;
use crate::scenario::{
    AdaptationLawSpec, AdaptationSpec, BalanceDefaults, BoundsSpec, ControllerSpec, EstimateSpec,
    FactorizationSpec, Gain, PayloadSpec, TaskSpec,
};
use crate::sim::BLOW_UP;
use bevy_egui::egui;

/// A gain: one value for all joints, or one per joint.
pub fn gain(ui: &mut egui::Ui, label: &str, gain: &mut Gain) -> bool {
    let mut changed = false;
    ui.horizontal_wrapped(|ui| {
        ui.label(label);
        match gain {
            Gain::All(x) => changed |= number_fields::value(ui, x, 0.0..=BLOW_UP, 0.1),
            Gain::Each(values) => {
                for x in values.iter_mut() {
                    changed |= number_fields::value(ui, x, 0.0..=BLOW_UP, 0.1);
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
            number_fields::slider(ui, w, range, |s| s.text("s shown"));
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

const LAWS: [(&str, &str); 9] = [
    ("slotine_li", "Slotine-Li"),
    ("pd_plus", "PD+"),
    ("computed_torque", "computed torque"),
    ("task_slotine_li", "task: Cartesian Slotine-Li"),
    ("operational_slotine_li", "task: operational Slotine-Li"),
    ("operational_pd_plus", "task: operational PD+"),
    ("stance_slotine_li", "stance: Slotine-Li"),
    ("stance_pd_plus", "stance: PD+"),
    ("balance", "stance: balance (CoM and base springs)"),
];

/// The laws that stand on a `[stance]`, and why they need one.
const STANCE_LAWS: [(&str, &str); 3] = [
    ("stance_slotine_li", NEEDS_A_STANCE),
    ("stance_pd_plus", NEEDS_A_STANCE),
    ("balance", NEEDS_A_STANCE),
];
const NEEDS_A_STANCE: &str = "needs a [stance]: the contacts the robot stands on";

/// What the scenario offers the controller editor.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// It has `[[loop_closures]]`: only the laws a closed chain runs.
    pub closed_chain: bool,
    /// It has a `[stance]`: the stance laws can be chosen.
    pub stance: bool,
}

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

/// The control law and its gains (only what the scenario's `setting` runs
/// can be chosen). A law chosen again gets back the gains it had (those of
/// the file, or as last edited), so a standing robot switched to a joint
/// law can return to its stance law as it was.
pub fn controller(
    ui: &mut egui::Ui,
    id: &str,
    spec: &mut ControllerSpec,
    setting: Setting,
) -> bool {
    let closed_chain = setting.closed_chain;
    let mut unavailable_laws = unavailable(closed_chain).to_vec();
    if !setting.stance {
        unavailable_laws.extend(STANCE_LAWS);
    }
    let law = choose(ui, ("law", id), &LAWS, spec.kind(), &unavailable_laws);
    let mut changed = false;
    if law != spec.kind() {
        changed = true;
        let memory = egui::Id::new(("laws as last set", id));
        let mut set: Vec<ControllerSpec> = ui.data(|d| d.get_temp(memory)).unwrap_or_default();
        let recalled = set
            .iter()
            .position(|c| c.kind() == law)
            .map(|i| set.remove(i));
        let fresh = recalled.unwrap_or_else(|| new_law(law, spec, closed_chain));
        set.push(std::mem::replace(spec, fresh));
        ui.data_mut(|d| d.insert_temp(memory, set));
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
        "stance_slotine_li" => ControllerSpec::StanceSlotineLi {
            lambda: Gain::All(5.0),
            kd: joint_kd,
            adaptation: Default::default(),
            gamma: Gain::All(1.0),
            bounds: None,
        },
        "stance_pd_plus" => ControllerSpec::StancePdPlus {
            kp: Gain::All(5.0 * first(&joint_kd)),
            kd: joint_kd,
        },
        "balance" => ControllerSpec::Balance {
            com_stiffness: BalanceDefaults::com_stiffness(),
            com_damping: BalanceDefaults::com_damping(),
            rotation_stiffness: BalanceDefaults::rotation_stiffness(),
            rotation_damping: BalanceDefaults::rotation_damping(),
            posture_stiffness: BalanceDefaults::posture_stiffness(),
            posture_damping: BalanceDefaults::posture_damping(),
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
    ("classic", "classic: B = (v ×*) I"),
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
            changed |= number_fields::slider(ui, beta, -10.0..=10.0, |s| s.text("β")).changed();
            ui.small(match triples {
                Some(t) => format!("on {} index triples", t.len()),
                None => "on every index triple i < j < k".into(),
            });
        }
        FactorizationSpec::TaskTorsion { beta, triples } => {
            changed |= number_fields::slider(ui, beta, -1000.0..=1000.0, |s| s.text("β (N s/m)"))
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
    changed |= number_fields::slider(ui, &mut task.damping, 0.0..=0.5, |s| {
        s.text("singularity damping")
    })
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
            changed |= number_fields::value(ui, &mut p.mass, 0.0..=100.0, 0.05);
            ui.label("kg");
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
    let mut changed =
        number_fields::slider(ui, &mut spec.scale, 0.2..=2.0, |s| s.text("inertia scale"))
            .changed();
    changed |= payload(ui, id, &mut spec.payload, links);
    changed
}
