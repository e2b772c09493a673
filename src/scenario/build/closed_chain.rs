//! `[[loop_closures]]` and `[closed_chain]` (issue 33): the loops resolved
//! on the robot (its URDF is the chain's spanning tree), the independent
//! joints (given, or by column-pivoted QR), the initial state on the loops,
//! and the constrained plant every variant steps.

use crate::algorithms::Workspace;
use crate::factorization::{ClosedChain, ClosedChainError};
use crate::model::{LoopClosure, LoopKind, Model};
use crate::scenario::{ChainReport, LoopKindSpec, PlantKind, Scenario, ScenarioError};
use crate::sim::{ConstrainedPlant, Integrator};
use crate::spatial::Vec3;

/// The closed chain of a scenario, resolved at its initial state.
pub(crate) struct ResolvedChain {
    /// The chain at the initial configuration (its partition and A).
    pub chain: ClosedChain,
    /// The plant every variant starts from (a copy each).
    pub plant: ConstrainedPlant,
}

impl Scenario {
    /// The closed chain of `[[loop_closures]]` on the true robot `plant`
    /// (None without loop closures). `q0` is projected onto the loops when
    /// `closed_chain.project_initial_state` says so; `v0` must be tangent
    /// to them.
    pub(crate) fn closed_chain(
        &self,
        plant: &Model,
        q0: &mut [f64],
        v0: &[f64],
    ) -> Result<Option<ResolvedChain>, ScenarioError> {
        let f = &self.file;
        if f.loop_closures.is_empty() {
            if f.closed_chain.is_some() {
                return Err(self.invalid(
                    "closed_chain",
                    "applies to a closed chain: give its cut joints as [[loop_closures]]",
                ));
            }
            return Ok(None);
        }
        if f.stance.is_some() {
            return Err(self.invalid(
                "stance",
                "is not built for a closed chain yet (its controllers act in the independent joints or a [task])",
            ));
        }
        let s = &f.simulation;
        if s.plant != PlantKind::Own {
            return Err(self.invalid(
                "simulation.plant",
                format!(
                    "a closed chain runs on the constrained plant (plant = \"own\"), not \"{}\"",
                    s.plant.name()
                ),
            ));
        }
        if s.integrator != Integrator::Rk4 {
            return Err(self.invalid(
                "simulation.integrator",
                "the constrained plant of a closed chain integrates with \"rk4\"",
            ));
        }
        let closures = f
            .loop_closures
            .iter()
            .enumerate()
            .map(|(i, c)| self.loop_closure(plant, i, c))
            .collect::<Result<Vec<_>, _>>()?;
        let spec = f.closed_chain.clone().unwrap_or_default();
        let independent = spec
            .independent
            .as_ref()
            .map(|names| self.independent_speeds(plant, names))
            .transpose()?;
        let mut ws = Workspace::new(plant);
        let chain = if spec.project_initial_state {
            ClosedChain::assemble(plant, &mut ws, closures, q0, independent.as_deref())
                .map(|(chain, _)| chain)
        } else {
            ClosedChain::new(plant, &mut ws, closures, q0, independent.as_deref())
        };
        let mut chain = chain.map_err(|e| {
            let (hint, entry) = match &e {
                ClosedChainError::NotClosed { name, .. } => (
                    " (or set project_initial_state = true in [closed_chain])",
                    (0..f.loop_closures.len())
                        .find(|&i| loop_name(f.loop_closures[i].name.as_deref(), i) == *name)
                        .unwrap_or(0),
                ),
                _ => ("", 0),
            };
            self.entry_invalid("loop_closures", entry, "", format!("{e}{hint}"))
        })?;
        let mut v_bar0 = vec![0.0; chain.mobility()];
        chain.reduced_speeds(v0, &mut v_bar0);
        let mut tangent = vec![0.0; plant.nv];
        chain
            .update_basis(plant, &mut ws, q0)
            .map_err(|e| self.invalid("loop_closures", e.to_string()))?;
        chain.full_speeds(&v_bar0, &mut tangent);
        let off = tangent
            .iter()
            .zip(v0)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        if off > 1e-9 * (1.0 + v_bar0.iter().fold(0.0, |m: f64, x| m.max(x.abs()))) {
            let speeds: Vec<String> = tangent.iter().map(|x| format!("{x:.6}")).collect();
            return Err(self.invalid(
                "initial.v",
                format!(
                    "does not move along the loops (off by {off:.3e}): with these independent speeds the joints move at [{}]",
                    speeds.join(", ")
                ),
            ));
        }
        let (plant, _) = ConstrainedPlant::new(
            plant.clone(),
            chain.closures().to_vec(),
            q0.to_vec(),
            v_bar0,
            Some(chain.independent_speeds()),
            s.step,
        )
        .map_err(|e| self.invalid("loop_closures", e.to_string()))?;
        Ok(Some(ResolvedChain { chain, plant }))
    }

    /// The partition of `chain` for the run's report (drift zero: the
    /// runner fills it in).
    pub(crate) fn chain_report(&self, model: &Model, chain: &ClosedChain) -> ChainReport {
        let given = self
            .file
            .closed_chain
            .as_ref()
            .is_some_and(|c| c.independent.is_some());
        ChainReport {
            mobility: chain.mobility(),
            independent_joints: joint_names(model, chain.independent_speeds()),
            chosen_by: if given { "given" } else { "qr" },
            dependent_joints: joint_names(model, chain.dependent_speeds()),
            max_drift_before_projection: 0.0,
            max_drift_after_projection: 0.0,
            max_newton_iterations: 0,
        }
    }

    /// The `i`-th `[[loop_closures]]` on `model`.
    fn loop_closure(
        &self,
        model: &Model,
        i: usize,
        c: &crate::scenario::LoopClosureSpec,
    ) -> Result<LoopClosure, ScenarioError> {
        let frame = |name: &str, k: &str| {
            model.frame_by_name(name).ok_or_else(|| {
                let names: Vec<&str> = model.frames.iter().map(|f| f.name.as_str()).collect();
                self.entry_invalid(
                    "loop_closures",
                    i,
                    k,
                    format!(
                        "no frame named '{name}'; the robot's frames: {}",
                        names.join(", ")
                    ),
                )
            })
        };
        let (frame_a, frame_b) = (frame(&c.frame_a, "frame_a")?, frame(&c.frame_b, "frame_b")?);
        let axis = match (c.kind, c.axis) {
            (LoopKindSpec::Point, None) => None,
            (LoopKindSpec::Point, Some(_)) => {
                return Err(self.entry_invalid("loop_closures", i, "axis", "a point closure has no axis"))
            }
            (_, None) => {
                return Err(self.entry_invalid(
                    "loop_closures",
                    i,
                    "kind",
                    "a planar or revolute closure needs its joint's axis (axis = [x, y, z] in frame a's axes)",
                ))
            }
            (_, Some(a)) => {
                let a = Vec3::new(a[0], a[1], a[2]);
                if !(a.iter().all(|x| x.is_finite()) && a.norm() > 1e-12) {
                    return Err(self.entry_invalid("loop_closures", i, "axis", "must be finite and non-zero"));
                }
                Some(a)
            }
        };
        let kind = match (c.kind, axis) {
            (LoopKindSpec::Planar, Some(axis)) => LoopKind::Planar { axis },
            (LoopKindSpec::Revolute, Some(axis)) => LoopKind::Revolute { axis },
            _ => LoopKind::Point,
        };
        Ok(LoopClosure {
            name: loop_name(c.name.as_deref(), i),
            frame_a,
            frame_b,
            kind,
        })
    }

    /// The speeds of the joints `names` (`closed_chain.independent`), in
    /// the robot's order.
    fn independent_speeds(
        &self,
        model: &Model,
        names: &[String],
    ) -> Result<Vec<usize>, ScenarioError> {
        let mut speeds = names
            .iter()
            .map(|name| {
                model
                    .bodies
                    .iter()
                    .find(|b| b.joint_name == *name)
                    .map(|b| b.v_index)
                    .ok_or_else(|| {
                        let joints: Vec<&str> =
                            model.bodies.iter().map(|b| b.joint_name.as_str()).collect();
                        self.invalid(
                            "closed_chain.independent",
                            format!(
                                "no joint named '{name}'; the robot's joints: {}",
                                joints.join(", ")
                            ),
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        speeds.sort_unstable();
        if let Some(w) = speeds.windows(2).find(|w| w[0] == w[1]) {
            return Err(self.invalid(
                "closed_chain.independent",
                format!("joint '{}' is listed twice", joint_names(model, &w[..1])[0]),
            ));
        }
        Ok(speeds)
    }
}

/// The joint names of `speeds`.
pub(crate) fn joint_names(model: &Model, speeds: &[usize]) -> Vec<String> {
    speeds
        .iter()
        .map(|&s| model.bodies[model.dof_body[s]].joint_name.clone())
        .collect()
}

/// The independent joints' values in `q` (the chain's independent speeds
/// are joints': one coordinate each).
pub(crate) fn independent_coordinates(model: &Model, chain: &ClosedChain, q: &[f64]) -> Vec<f64> {
    chain
        .independent_speeds()
        .iter()
        .map(|&s| q[model.bodies[model.dof_body[s]].q_index])
        .collect()
}

/// For a reference of the wrong size on a closed chain: what it describes.
pub(crate) fn independent_note(model: &Model, chain: &ClosedChain) -> String {
    format!(
        " (on a closed chain the reference describes the independent joints, in order: {})",
        joint_names(model, chain.independent_speeds()).join(", ")
    )
}

/// A loop closure's name: its own, else `loop<i>`.
fn loop_name(name: Option<&str>, i: usize) -> String {
    name.map_or_else(|| format!("loop{i}"), str::to_string)
}
