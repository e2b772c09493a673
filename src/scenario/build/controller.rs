//! The controller a variant asks for: its factorization (`[factorization]`),
//! its law and gains (`[controller]`) and the adaptation.

use crate::control::balance::BalanceGains;
use crate::control::{
    Adaptation, ComputedTorque, ControlLaw, EuclideanAdaptation, NaturalAdaptation,
    OperationalPdPlus, OperationalSlotineLi, PdPlus, SlotineLi, StancePdPlus, StanceSlotineLi,
    TaskSlotineLi,
};
use crate::factorization::{Beta, Factorization, TorsionTerm};
use crate::model::{Joint, Model};
use crate::scenario::{
    AdaptationLawSpec, AdaptationSpec, BoundsSpec, ControllerSpec, FactorizationSpec, Gain,
    Scenario, ScenarioError,
};
use crate::sim::BLOW_UP;
use crate::spatial::{pseudo_inertia, pseudo_inertia_min_eigenvalue, Vec3};
use nalgebra::Vector3;

impl Scenario {
    /// The joint-space factorization, and the torsion terms a `task_torsion`
    /// adds in task space (over `task_dim` task coordinates).
    pub(crate) fn factorization(
        &self,
        spec: &FactorizationSpec,
        model: &Model,
        task_dim: Option<usize>,
        key: &str,
    ) -> Result<(Factorization, Vec<TorsionTerm>), ScenarioError> {
        let mut task_torsion = Vec::new();
        let f = match spec {
            FactorizationSpec::Christoffel {} => Factorization::ChristoffelConsistent,
            FactorizationSpec::Classic {} => Factorization::Classic,
            FactorizationSpec::Alternate {} => Factorization::Alternate,
            FactorizationSpec::Torsion {
                beta,
                beta_gradient,
                triples,
            } => {
                if std::iter::once(beta)
                    .chain(beta_gradient)
                    .any(|b| b.is_nan() || b.abs() > BLOW_UP)
                {
                    return Err(self.invalid(
                        &format!("{key}.beta"),
                        format!("beta and its gradient must be finite and at most {BLOW_UP:e} in magnitude"),
                    ));
                }
                if !beta_gradient.is_empty() && beta_gradient.len() != model.nq {
                    return Err(self.invalid(
                        &format!("{key}.beta_gradient"),
                        format!(
                            "needs one entry per configuration coordinate ({})",
                            model.nq
                        ),
                    ));
                }
                let b = Beta {
                    constant: *beta,
                    gradient: beta_gradient
                        .iter()
                        .copied()
                        .enumerate()
                        .filter(|(_, g)| *g != 0.0)
                        .collect(),
                };
                self.check_no_repeated_triple(triples.as_deref(), key)?;
                match triples {
                    None => Factorization::torsion_on_all_triples(model.nv, b)
                        .map_err(|e| self.invalid(key, e.to_string()))?,
                    Some(t) => Factorization::Torsion(
                        t.iter()
                            .map(|&indices| TorsionTerm {
                                indices,
                                beta: b.clone(),
                            })
                            .collect(),
                    ),
                }
            }
            FactorizationSpec::TaskTorsion { beta, triples } => {
                if beta.is_nan() || beta.abs() > BLOW_UP {
                    return Err(self.invalid(
                        &format!("{key}.beta"),
                        format!("must be finite and at most {BLOW_UP:e} in magnitude"),
                    ));
                }
                let m = task_dim.ok_or_else(|| {
                    self.invalid(key, "task_torsion acts in task space: it needs a [task]")
                })?;
                if let Some([i, j, k]) = triples
                    .iter()
                    .flatten()
                    .find(|[i, j, k]| !(i < j && j < k && *k < m))
                {
                    return Err(self.invalid(
                        &format!("{key}.triples"),
                        format!(
                            "task torsion triple ({i}, {j}, {k}): task coordinates must satisfy i < j < k < {m}"
                        ),
                    ));
                }
                self.check_no_repeated_triple(triples.as_deref(), key)?;
                let position = [m - 3, m - 2, m - 1];
                task_torsion = triples
                    .clone()
                    .unwrap_or_else(|| vec![position])
                    .into_iter()
                    .map(|indices| TorsionTerm {
                        indices,
                        beta: Beta::constant(*beta),
                    })
                    .collect();
                Factorization::ChristoffelConsistent
            }
        };
        f.validate(model)
            .map_err(|e| self.invalid(key, e.to_string()))?;
        Ok((f, task_torsion))
    }

    /// Refuses a triple listed twice: every listed triple takes the same
    /// beta, so a repeat would double its torsion in silence.
    fn check_no_repeated_triple(
        &self,
        triples: Option<&[[usize; 3]]>,
        key: &str,
    ) -> Result<(), ScenarioError> {
        let triples = triples.unwrap_or_default();
        match (triples.iter().enumerate()).find(|&(n, t)| triples[..n].contains(t)) {
            Some((_, [i, j, k])) => Err(self.invalid(
                &format!("{key}.triples"),
                format!("({i}, {j}, {k}) is listed twice: its torsion would count twice (beta doubled); list it once"),
            )),
            None => Ok(()),
        }
    }

    /// The adaptation of an adaptive Slotine-Li law (None when off).
    /// Euclidean: `gamma` per parameter, or one number for all whose
    /// geared rotors' ten get gamma / g^4 ([`geared_rotors`]); natural:
    /// `gamma` per body or one for all, rotors adapting their axial inertia.
    pub(crate) fn adaptation(
        &self,
        model: &Model,
        (adaptation, gamma, bounds): (AdaptationSpec, &Gain, &Option<BoundsSpec>),
        key: &str,
    ) -> Result<Option<Adaptation>, ScenarioError> {
        let nb = model.nbodies();
        if !adaptation.on {
            if bounds.is_some() {
                return Err(self.invalid(&format!("{key}.bounds"), "bounds need adaptation = true"));
            }
            return Ok(None);
        }
        let expand = |g: &Gain, name: &str, n: usize, what: &str| {
            g.expand(n).ok_or_else(|| {
                self.invalid(
                    &format!("{key}.{name}"),
                    format!("give one number or a list of {n}{what}"),
                )
            })
        };
        let checked = |gains: Vec<f64>| {
            // The parameter storage divides by the gains: at 5e-324 it
            // overflowed to inf (fuzz regression tiny_adaptation_gain).
            if gains
                .iter()
                .any(|g| !(*g >= 1.0 / BLOW_UP && *g <= BLOW_UP))
            {
                return Err(self.invalid(
                    &format!("{key}.gamma"),
                    format!(
                        "adaptation gains must be at least {:e} and at most {BLOW_UP:e}",
                        1.0 / BLOW_UP
                    ),
                ));
            }
            Ok(gains)
        };
        let rotors = geared_rotors(model);
        if adaptation.law == AdaptationLawSpec::Natural {
            if bounds.is_some() {
                return Err(self.invalid(
                    &format!("{key}.bounds"),
                    "bounds apply to adaptation = \"euclidean\": the natural law keeps every estimate physically consistent by itself",
                ));
            }
            let gamma = checked(expand(gamma, "gamma", nb, " (one per body)")?)?;
            let rotor_axes = rotors.iter().map(|r| r.map(|(_, axis)| axis)).collect();
            return Ok(Some(Adaptation::Natural(NaturalAdaptation {
                gamma,
                rotor_axes,
            })));
        }
        let np = 10 * nb;
        let mut gains = checked(expand(gamma, "gamma", np, "")?)?;
        // After the check: a scaled gain may be below its floor (0.2 / 100^4
        // = 2e-9), which only guards against an overflowing 1 / gamma.
        if let Gain::All(_) = gamma {
            for (b, rotor) in rotors.iter().enumerate() {
                if let Some((g, _)) = rotor {
                    gains[10 * b..10 * b + 10]
                        .iter_mut()
                        .for_each(|x| *x /= g.powi(4));
                }
            }
        }
        let gamma = gains;
        let bounds = match bounds {
            Some(b) => {
                let lo = expand(&b.lower, "bounds.lower", np, "")?;
                let hi = expand(&b.upper, "bounds.upper", np, "")?;
                if lo
                    .iter()
                    .zip(&hi)
                    .any(|(l, h)| l.is_nan() || h.is_nan() || l > h)
                {
                    return Err(self.invalid(
                        &format!("{key}.bounds"),
                        "lower bounds must not exceed upper bounds",
                    ));
                }
                // An estimate held beyond the blow-up magnitude would stop
                // the run at its first step; an infinite bound is none.
                if lo
                    .iter()
                    .chain(&hi)
                    .any(|b| b.is_finite() && b.abs() > BLOW_UP)
                {
                    return Err(self.invalid(
                        &format!("{key}.bounds"),
                        format!("finite bounds must be at most {BLOW_UP:e} in magnitude (an infinite one is no bound)"),
                    ));
                }
                Some((lo, hi))
            }
            None => None,
        };
        Ok(Some(Adaptation::Euclidean(EuclideanAdaptation {
            gamma,
            bounds,
        })))
    }

    /// The natural law starts from the estimate's pseudo-inertias (its
    /// prior P_hat(0)): each must be positive definite, each rotor's axial
    /// inertia positive; the first that is not is named.
    pub(crate) fn check_natural_prior(
        &self,
        law: &ControlLaw,
        estimate: &Model,
        key: &str,
    ) -> Result<(), ScenarioError> {
        let Some(Adaptation::Natural(a)) = law.adaptation() else {
            return Ok(());
        };
        for ((body, axis), i) in estimate.bodies.iter().zip(&a.rotor_axes).zip(0..) {
            let theta = body.inertia.parameters();
            let (value, what) = match axis {
                None => (
                    pseudo_inertia_min_eigenvalue(&pseudo_inertia(&theta)),
                    "the smallest eigenvalue of its pseudo-inertia",
                ),
                Some(axis) => (
                    axis.dot(&(body.inertia.ibar * axis)),
                    "its rotor's axial inertia",
                ),
            };
            if value.is_nan() || value <= 0.0 {
                return Err(self.invalid(
                    &format!("{key}.adaptation"),
                    format!(
                        "the natural law needs a physically consistent estimate to start from, but body {i} ('{}') has {what} = {value:e} (not positive)",
                        body.name
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn control_law(
        &self,
        spec: &ControllerSpec,
        model: &Model,
        task_dim: Option<usize>,
        key: &str,
        (stance_speeds, mobility): (Option<usize>, Option<usize>),
    ) -> Result<ControlLaw, ScenarioError> {
        // A free root is unactuated: gains are per joint after it; on a
        // closed chain, per independent joint.
        let n = mobility.unwrap_or(model.nv - if model.has_free_root() { 6 } else { 0 });
        let gain = |g: &Gain, name: &str, len: usize| -> Result<Vec<f64>, ScenarioError> {
            let v = g.expand(len).ok_or_else(|| {
                self.invalid(
                    &format!("{key}.{name}"),
                    format!("give one number or a list of {len}"),
                )
            })?;
            if v.iter().any(|x| !(0.0..=BLOW_UP).contains(x)) {
                return Err(self.invalid(
                    &format!("{key}.{name}"),
                    format!("gains must be finite, not negative and at most {BLOW_UP:e}"),
                ));
            }
            Ok(v)
        };
        let task_gain = |g: &Gain, name: &str| -> Result<Vec<f64>, ScenarioError> {
            let m = task_dim.ok_or_else(|| {
                self.invalid(
                    &format!("{key}.kind"),
                    format!(
                        "'{}' is a task-space controller: it needs a [task] table",
                        spec.kind()
                    ),
                )
            })?;
            gain(g, name, m)
        };
        // Stance laws: one gain per independent speed of the stance manifold
        // (the caller refuses a stance law without a [stance]).
        let r = stance_speeds.unwrap_or(n);
        Ok(match spec {
            ControllerSpec::SlotineLi {
                lambda,
                kd,
                adaptation,
                gamma,
                bounds,
            } => ControlLaw::SlotineLi(SlotineLi {
                lambda: gain(lambda, "lambda", n)?,
                kd: gain(kd, "kd", n)?,
                adaptation: self.adaptation(model, (*adaptation, gamma, bounds), key)?,
            }),
            ControllerSpec::PdPlus { kp, kd } => ControlLaw::PdPlus(PdPlus {
                kp: gain(kp, "kp", n)?,
                kd: gain(kd, "kd", n)?,
            }),
            ControllerSpec::ComputedTorque { kp, kd } => {
                ControlLaw::ComputedTorque(ComputedTorque {
                    kp: gain(kp, "kp", n)?,
                    kd: gain(kd, "kd", n)?,
                })
            }
            ControllerSpec::TaskSlotineLi {
                lambda,
                kd,
                posture_gain,
                adaptation,
                gamma,
                bounds,
            } => ControlLaw::TaskSlotineLi(TaskSlotineLi {
                lambda: task_gain(lambda, "lambda")?,
                kd: gain(kd, "kd", n)?,
                posture: gain(posture_gain, "posture_gain", n)?,
                adaptation: self.adaptation(model, (*adaptation, gamma, bounds), key)?,
            }),
            ControllerSpec::OperationalSlotineLi {
                lambda,
                kd,
                posture_kp,
                posture_kd,
            } => ControlLaw::OperationalSlotineLi(OperationalSlotineLi {
                lambda: task_gain(lambda, "lambda")?,
                kd: task_gain(kd, "kd")?,
                posture_kp: gain(posture_kp, "posture_kp", n)?,
                posture_kd: gain(posture_kd, "posture_kd", n)?,
            }),
            ControllerSpec::OperationalPdPlus {
                kp,
                kd,
                posture_kp,
                posture_kd,
            } => {
                let kp = task_gain(kp, "kp")?;
                if kp.len() == 6 && !(kp[0] == kp[1] && kp[1] == kp[2]) {
                    return Err(self.invalid(
                        &format!("{key}.kp"),
                        "the three orientation gains must be equal: the potential 1/2 k |log(R R_d^T)|^2 has the gradient k e_o only for one k",
                    ));
                }
                ControlLaw::OperationalPdPlus(OperationalPdPlus {
                    kp,
                    kd: task_gain(kd, "kd")?,
                    posture_kp: gain(posture_kp, "posture_kp", n)?,
                    posture_kd: gain(posture_kd, "posture_kd", n)?,
                })
            }
            ControllerSpec::StanceSlotineLi {
                lambda,
                kd,
                adaptation,
                gamma,
                bounds,
            } => ControlLaw::StanceSlotineLi(StanceSlotineLi {
                lambda: gain(lambda, "lambda", r)?,
                kd: gain(kd, "kd", r)?,
                adaptation: self.adaptation(model, (*adaptation, gamma, bounds), key)?,
            }),
            ControllerSpec::StancePdPlus { kp, kd } => ControlLaw::StancePdPlus(StancePdPlus {
                kp: gain(kp, "kp", r)?,
                kd: gain(kd, "kd", r)?,
            }),
            ControllerSpec::Balance {
                com_stiffness,
                com_damping,
                rotation_stiffness,
                rotation_damping,
                posture_stiffness,
                posture_damping,
            } => {
                let axes = |g: &Gain, name: &str| -> Result<Vector3<f64>, ScenarioError> {
                    Ok(Vector3::from_column_slice(&gain(g, name, 3)?))
                };
                let rotation = axes(rotation_stiffness, "rotation_stiffness")?;
                if !(rotation.x == rotation.y && rotation.y == rotation.z) {
                    return Err(self.invalid(
                        &format!("{key}.rotation_stiffness"),
                        "the three rotation stiffnesses must be equal: the spring's energy 1/2 k |theta|^2 has the gradient k theta only for one k",
                    ));
                }
                let one = |x: f64, name: &str| gain(&Gain::All(x), name, 1).map(|v| v[0]);
                ControlLaw::Balance(BalanceGains {
                    com_stiffness: axes(com_stiffness, "com_stiffness")?,
                    com_damping: axes(com_damping, "com_damping")?,
                    rotation_stiffness: rotation,
                    rotation_damping: axes(rotation_damping, "rotation_damping")?,
                    posture_stiffness: one(*posture_stiffness, "posture_stiffness")?,
                    posture_damping: one(*posture_damping, "posture_damping")?,
                })
            }
        })
    }
}

/// Per body: (gear ratio g, spin axis) of a geared rotor, a revolute body
/// that mimics a joint with |g| != 1 (`[[robot.rotors]]`, a cluster of
/// Chignoli et al. (2023)); None for the other bodies. Its
/// regressor columns carry g^2 (the axial inertia's, in the driven joint's
/// row), and a parameter's adaptation loop gain is gamma_p |Y_p|^2: the
/// Euclidean law divides a single gamma by g^4 on the rotor's ten
/// parameters, so its reflected inertia g^2 I_a adapts at the links' rate.
fn geared_rotors(model: &Model) -> Vec<Option<(f64, Vec3)>> {
    model
        .bodies
        .iter()
        .enumerate()
        .map(|(b, body)| {
            let coupling = model.coupling()?;
            coupling.follows(b)?;
            let (_, g) = coupling.speed(body.v_index);
            match body.joint {
                Joint::Revolute { axis } if (g.abs() - 1.0).abs() > 1e-12 => Some((g, axis)),
                _ => None,
            }
        })
        .collect()
}
