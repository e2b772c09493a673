//! A [`Controller`](crate::Controller) on a closed chain (issue 33): the
//! laws of [`crate::closed_chain_task`] in the chain's independent
//! coordinates, behind the controller's own interface so a simulation runs
//! them like any other law. Joint PD+ and Slotine–Li (adaptive too) track
//! the independent joints (the joint task, J_bar = 1); the operational-space
//! laws and the Cartesian Slotine–Li track a frame's position with as many
//! coordinates as the mobility (the Delta's platform). The passive output
//! on the tree's speeds is y = A s_bar, so that y^T tau = s_bar^T A^T tau is
//! the power a tree torque puts through the chain's port (the supply and
//! mismatch of [`PowerFlows`](crate::PowerFlows)).

use crate::closed_chain::ReducedReference;
use crate::closed_chain_task::{ChainTask, ChainTaskControl, ChainTaskLaw};
use crate::task::{log_so3, manipulability, TaskDesired, TaskKind, TaskSample};
use crate::{
    ControlError, ControlLaw, Controller, Desired, Estimates, Lyapunov, Reference, ReferenceError,
    Task,
};
use passivity_dynamics::algorithms::{frame_placement, Workspace};
use passivity_dynamics::factorization::{ClosedChain, Factorization};
use passivity_dynamics::model::Model;

/// The chain, its law and their buffers.
#[derive(Clone, Debug)]
pub(crate) struct ChainControl {
    pub law: ChainTaskControl,
    chain: ClosedChain,
    /// The task of a task-space law (its reference and start pose), else
    /// None: the law tracks the joint reference.
    task: Option<Task>,
    task_desired: TaskDesired,
    /// The reference at the last evaluation, in the law's coordinates
    /// (independent joints, or the task's).
    reduced: Desired,
    v_bar: Vec<f64>,
    /// The independent joints' coordinates in q.
    independent_q: Vec<usize>,
    /// A s_bar, and the damping's power, at the last evaluation.
    pub y: Vec<f64>,
    pub dissipation: f64,
    /// The task at the last `lyapunov` (task-space laws).
    pub sample: Option<TaskSample>,
}

/// What a posture gain does on a closed chain's square task: nothing.
fn no_posture(gains: &[&[f64]]) -> Result<(), ControlError> {
    if gains.iter().any(|g| g.iter().any(|&k| k != 0.0)) {
        return Err(ControlError::ClosedChain(
            "tracks a task with as many coordinates as the mobility: the task has no null space, so its posture gains must be 0".into(),
        ));
    }
    Ok(())
}

impl ChainControl {
    /// `law` on `chain` of `model`, C_bar induced from `factorization`:
    /// joint PD+ and Slotine–Li (gains per independent speed), or with a
    /// position `task` operational-space Slotine–Li and PD+ (gains per task
    /// coordinate) and the Cartesian Slotine–Li (Lambda_x per task
    /// coordinate, K_D per independent speed).
    pub(crate) fn new(
        model: &Model,
        chain: ClosedChain,
        law: &ControlLaw,
        factorization: Factorization,
        task: Option<Task>,
    ) -> Result<Self, ControlError> {
        let position = || {
            match &task {
            Some(t) if t.kind == TaskKind::Position => Ok(ChainTask::Position { frame: t.frame }),
            Some(_) => Err(ControlError::Task(
                "on a closed chain is a frame's position (kind = \"position\"), as many coordinates as the mobility".into(),
            )),
            None => Err(ControlError::Task(
                "is missing: task-space controllers need a [task]".into(),
            )),
        }
        };
        let (which, chain_law, kd, adaptation) = match law {
            ControlLaw::PdPlus(l) => (
                ChainTask::Joints,
                ChainTaskLaw::PdPlus { kp: l.kp.clone() },
                &l.kd,
                None,
            ),
            ControlLaw::SlotineLi(l) => (
                ChainTask::Joints,
                ChainTaskLaw::SlotineLi {
                    lambda: l.lambda.clone(),
                },
                &l.kd,
                l.adaptation.clone(),
            ),
            ControlLaw::OperationalSlotineLi(l) => {
                no_posture(&[&l.posture_kp, &l.posture_kd])?;
                let lambda = l.lambda.clone();
                (position()?, ChainTaskLaw::SlotineLi { lambda }, &l.kd, None)
            }
            ControlLaw::OperationalPdPlus(l) => {
                no_posture(&[&l.posture_kp, &l.posture_kd])?;
                let kp = l.kp.clone();
                (position()?, ChainTaskLaw::PdPlus { kp }, &l.kd, None)
            }
            ControlLaw::TaskSlotineLi(l) => {
                no_posture(&[&l.posture])?;
                let lambda = l.lambda.clone();
                let adaptation = l.adaptation.clone();
                let law = ChainTaskLaw::CartesianSlotineLi { lambda };
                (position()?, law, &l.kd, adaptation)
            }
            _ => {
                return Err(ControlError::ClosedChain(
                    "runs PD+, Slotine–Li (adaptive too), the operational-space laws and the Cartesian Slotine–Li only".into(),
                ))
            }
        };
        if let Some(t) = task.as_ref().filter(|_| which != ChainTask::Joints) {
            if !t.torsion.is_empty() {
                return Err(ControlError::ClosedChain(
                    "takes its torsion from the tree's factorization (through A), not task_torsion"
                        .into(),
                ));
            }
            if t.error_limit[1].is_finite() {
                return Err(ControlError::Task(
                    "on a closed chain feeds back the whole error: set position_error_limit = inf"
                        .into(),
                ));
            }
        }
        let law = ChainTaskControl::new(
            model,
            &chain,
            (which, chain_law),
            kd.clone(),
            factorization,
            adaptation,
        )
        .map_err(|e| ControlError::ClosedChain(e.to_string()))?;
        let m = law.error().len();
        let z = vec![0.0; m];
        Ok(ChainControl {
            law,
            task: task.filter(|_| which != ChainTask::Joints),
            task_desired: TaskDesired::default(),
            reduced: Desired {
                q: z.clone(),
                v: z.clone(),
                a: z,
            },
            v_bar: vec![0.0; chain.mobility()],
            independent_q: chain
                .independent_speeds()
                .iter()
                .map(|&s| model.bodies[model.dof_body[s]].q_index)
                .collect(),
            chain,
            y: vec![0.0; model.nv],
            dissipation: 0.0,
            sample: None,
        })
    }

    /// The chain's mobility.
    pub(crate) fn mobility(&self) -> usize {
        self.chain.mobility()
    }

    /// The reference at t in the law's coordinates, and v_bar = v_i;
    /// `whole`: the tree's desired state, (q, v) with, for a joint law, the
    /// independent joints' entries replaced by the reference's.
    pub(crate) fn reference(
        &mut self,
        reference: &Reference,
        t: f64,
        (q, v): (&[f64], &[f64]),
        whole: &mut Desired,
    ) {
        self.chain.reduced_speeds(v, &mut self.v_bar);
        whole.q.copy_from_slice(q);
        whole.v.copy_from_slice(v);
        whole.a.fill(0.0);
        if let Some(task) = &self.task {
            task.reference
                .evaluate(t, &task.start, &mut self.task_desired);
            let d = &self.task_desired;
            for n in 0..3 {
                self.reduced.q[n] = d.position[n];
                self.reduced.v[n] = d.velocity[n];
                self.reduced.a[n] = d.acceleration[n];
            }
            return;
        }
        reference.evaluate(t, &mut self.reduced);
        let speeds = self.chain.independent_speeds();
        for (n, (&s, &i)) in speeds.iter().zip(&self.independent_q).enumerate() {
            whole.q[i] = self.reduced.q[n];
            whole.v[s] = self.reduced.v[n];
            whole.a[s] = self.reduced.a[n];
        }
    }

    /// y = A s_bar and the damping's power after an evaluation.
    fn port(&mut self) {
        self.y.copy_from_slice(self.law.tree_sliding());
        self.dissipation = self.law.dissipation();
    }

    /// The tree torques at (t, q, v) with `model` into `tau`, and, if
    /// `rate` is given and the law adapts, the parameter rate into it; a
    /// singular configuration gives non-finite torques (the simulation
    /// stops there).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn torque(
        &mut self,
        reference: &Reference,
        t: f64,
        model: &Model,
        ws: &mut Workspace,
        (q, v): (&[f64], &[f64]),
        whole: &mut Desired,
        (tau, rate): (&mut [f64], Option<&mut [f64]>),
    ) {
        self.reference(reference, t, (q, v), whole);
        let d = ReducedReference {
            q: &self.reduced.q,
            v: &self.reduced.v,
            a: &self.reduced.a,
        };
        let state = (q, &self.v_bar[..]);
        if self
            .law
            .torque(model, ws, &mut self.chain, state, d, tau)
            .is_err()
        {
            tau.fill(f64::NAN);
        } else if let Some(rate) = rate.filter(|_| self.law.adaptation.is_some()) {
            self.law.parameter_rate(model, ws, q, rate);
        }
        self.port();
    }

    /// The storage (module documentation of [`crate::closed_chain_task`])
    /// with the true `model` at (t, q, v), the estimates' term from
    /// `estimates`; NaN at a singular configuration. Records the task's
    /// quantities for task-space laws.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lyapunov(
        &mut self,
        reference: &Reference,
        t: f64,
        model: &Model,
        ws: &mut Workspace,
        (q, v): (&[f64], &[f64]),
        whole: &mut Desired,
        estimates: Estimates,
    ) -> Lyapunov {
        self.reference(reference, t, (q, v), whole);
        let d = ReducedReference {
            q: &self.reduced.q,
            v: &self.reduced.v,
            a: &self.reduced.a,
        };
        let state = (q, &self.v_bar[..]);
        let Ok((value, _)) = self
            .law
            .storage(model, ws, &mut self.chain, state, d, estimates)
        else {
            return Lyapunov {
                value: f64::NAN,
                ..Lyapunov::default()
            };
        };
        self.port();
        let e = self.law.error();
        let potential = match &self.law.law {
            ChainTaskLaw::PdPlus { kp } => e.iter().zip(kp).map(|(e, k)| 0.5 * k * e * e).sum(),
            _ => 0.0,
        };
        let parameter = self
            .law
            .adaptation
            .as_ref()
            .map_or(0.0, |a| a.storage(estimates));
        let s = match self.law.law {
            ChainTaskLaw::CartesianSlotineLi { .. } => self.law.sliding(),
            _ => self.law.task_sliding(),
        };
        let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
        let lyapunov = Lyapunov {
            value,
            kinetic: value - potential - parameter,
            parameter,
            e_norm: norm(e),
            s_norm: norm(s),
        };
        self.sample = self.task.as_ref().map(|task| {
            let x = frame_placement(model, ws, task.frame);
            self.task_sample(&x.rot)
        });
        lyapunov
    }

    /// The task's recorded quantities at the last evaluation, the frame at
    /// `rotation`; the singular values are J_bar's (the task Jacobian
    /// through the chain).
    fn task_sample(&self, rotation: &passivity_dynamics::spatial::Mat3) -> TaskSample {
        let (e, s, d) = (self.law.error(), self.law.task_sliding(), &self.reduced);
        let mut out = TaskSample {
            position: [0.0; 3],
            orientation: log_so3(rotation).into(),
            desired_position: [0.0; 3],
            desired_orientation: log_so3(&self.task_desired.rotation).into(),
            error: [0.0; 6],
            sliding: [0.0; 6],
            manipulability: 0.0,
            min_singular_value: 0.0,
            singular_ratio: 0.0,
        };
        for n in 0..3 {
            out.position[n] = e[n] + d.q[n];
            out.desired_position[n] = d.q[n];
            out.error[3 + n] = e[n];
            out.sliding[3 + n] = s[n];
        }
        let j = self.law.task_jacobian();
        (out.manipulability, out.min_singular_value) = manipulability(j);
        let rms = (j.iter().map(|x| x * x).sum::<f64>() / 3.0).sqrt();
        out.singular_ratio = if rms > 0.0 {
            out.min_singular_value / rms
        } else {
            0.0
        };
        out
    }
}

impl Controller {
    /// `law` in the independent coordinates of `chain`, the spanning tree
    /// `model`'s closed chain, with the C_bar that `factorization` (of the
    /// tree) induces. Joint PD+ and Slotine–Li (adaptive too): gains one
    /// per independent speed, `reference` describes the independent joints
    /// (in `chain.independent_speeds()`'s order). With a position `task`
    /// (a frame, as many coordinates as the mobility, no error limit):
    /// operational-space Slotine–Li and PD+ and the Cartesian Slotine–Li
    /// (adaptive too), their posture gains 0; `reference` is then unused.
    ///
    /// # Errors
    /// [`ControlError::ClosedChain`] for another law, gains that do not fit
    /// the mobility or an independent speed that is not a joint's;
    /// [`ControlError::Task`] for a task that is not a position without an
    /// error limit; [`ControlError::Reference`],
    /// [`ControlError::Factorization`].
    pub fn with_closed_chain(
        law: ControlLaw,
        factorization: Factorization,
        reference: Reference,
        (chain, task): (ClosedChain, Option<Task>),
        model: &Model,
    ) -> Result<Self, ControlError> {
        factorization.validate(model)?;
        if let Some(t) = &task {
            t.validate(model).map_err(ControlError::Task)?;
        }
        let chain = ChainControl::new(model, chain, &law, factorization.clone(), task)?;
        reference
            .validate(chain.mobility())
            .map_err(|e| match e {
                ReferenceError::Count(m) => ReferenceError::Count(format!(
                    "{m} (on a closed chain: one per independent joint)"
                )),
                value => value,
            })
            .map_err(ControlError::Reference)?;
        let ws = Workspace::new(model);
        Ok(Controller {
            closed_chain: Some(Box::new(chain)),
            ..Controller::bare(law, factorization, reference, model, ws, (0, 0))
        })
    }

    /// Whether the controller runs on a closed chain.
    pub fn is_closed_chain(&self) -> bool {
        self.closed_chain.is_some()
    }

    /// Multiplies every feedback gain by `factor`
    /// ([`ControlLaw::scale_gains`]), the closed chain's law's too.
    pub fn scale_gains(&mut self, factor: f64) {
        self.law.scale_gains(factor);
        if let Some(cc) = self.closed_chain.as_deref_mut() {
            cc.law.scale_gains(factor);
        }
    }

    /// The closed chain's storage at (t, q, v) with the true `plant`.
    pub(crate) fn closed_chain_lyapunov(
        &mut self,
        t: f64,
        plant: &Model,
        plant_ws: &mut Workspace,
        at: (&[f64], &[f64]),
        estimates: Estimates,
    ) -> Lyapunov {
        let Some(cc) = self.closed_chain.as_deref_mut() else {
            return Lyapunov::default();
        };
        cc.lyapunov(
            &self.reference,
            t,
            plant,
            plant_ws,
            at,
            &mut self.tracking.desired,
            estimates,
        )
    }
}
