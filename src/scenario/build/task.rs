//! The end-effector task (`[task]`) and an initial state given as the
//! task's twist (`initial.task_velocity`).

use crate::control::task::SingularityDamping;
use crate::control::Task;
use crate::model::Model;
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::BLOW_UP;

impl Scenario {
    /// The joint speeds of least norm that give the task the twist `x_dot`
    /// at `q0`: v = J^T (J J^T)^-1 x_dot.
    pub(crate) fn task_velocity(
        &self,
        model: &Model,
        q0: &[f64],
        x_dot: &[f64],
    ) -> Result<Vec<f64>, ScenarioError> {
        let key = "initial.task_velocity";
        let task = self
            .task(model, q0)?
            .ok_or_else(|| self.invalid(key, "needs a [task]"))?;
        if x_dot.len() != task.dim() || x_dot.iter().any(|x| !(x.is_finite() && x.abs() <= BLOW_UP))
        {
            return Err(self.invalid(
                key,
                format!(
                    "needs {} finite numbers of magnitude at most {BLOW_UP:e} (the task's twist)",
                    task.dim()
                ),
            ));
        }
        let mut tw = crate::control::task::TaskWorkspace::new(model, &task);
        let mut ws = crate::algorithms::Workspace::new(model);
        let zeros = vec![0.0; model.nv];
        tw.evaluate(
            model,
            &mut ws,
            &task,
            0.0,
            q0,
            &zeros,
            &vec![0.0; task.dim()],
        );
        let j = &tw.jacobian;
        let solved = (j * j.transpose())
            .cholesky()
            .map(|c| c.solve(&nalgebra::DVector::from_column_slice(x_dot)))
            .ok_or_else(|| {
                self.invalid(
                    key,
                    "the task Jacobian is singular at the initial configuration",
                )
            })?;
        let v = (j.transpose() * solved).as_slice().to_vec();
        // Near a singularity a modest twist needs huge joint speeds.
        if v.iter().any(|x| !(x.is_finite() && x.abs() <= BLOW_UP)) {
            return Err(self.invalid(
                key,
                format!("needs joint speeds beyond {BLOW_UP:e} at the initial configuration (near a singularity of the task)"),
            ));
        }
        Ok(v)
    }

    /// The `[task]` (without task-space torsion, which variants choose),
    /// anchored at the frame's pose at the initial configuration `q0`.
    pub(crate) fn task(&self, model: &Model, q0: &[f64]) -> Result<Option<Task>, ScenarioError> {
        let Some(spec) = &self.file.task else {
            return Ok(None);
        };
        let frame = model.frame_by_name(&spec.frame).ok_or_else(|| {
            let names: Vec<&str> = model
                .frames
                .iter()
                .filter(|f| f.body.is_some())
                .map(|f| f.name.as_str())
                .take(12)
                .collect();
            self.invalid(
                "task.frame",
                format!(
                    "no frame named '{}' (frames that move: {}{})",
                    spec.frame,
                    names.join(", "),
                    if names.len() == 12 { ", ..." } else { "" }
                ),
            )
        })?;
        let mut ws = crate::algorithms::Workspace::new(model);
        crate::algorithms::forward_kinematics(model, &mut ws, q0);
        let x = crate::algorithms::frame_placement(model, &ws, frame);
        let task = Task {
            frame,
            kind: spec.kind,
            reference: spec.reference.clone(),
            start: (x.rot, x.trans),
            damping: SingularityDamping {
                damping: spec.damping,
                region: spec.singular_region,
            },
            error_limit: [spec.orientation_error_limit, spec.position_error_limit],
            torsion: Vec::new(),
        };
        task.validate(model).map_err(|e| {
            let key = if e.contains("damping") {
                "task.damping"
            } else if e.contains("singular_region") {
                "task.singular_region"
            } else if e.contains("orientation error limit") {
                "task.orientation_error_limit"
            } else if e.contains("position error limit") {
                "task.position_error_limit"
            } else if e.contains("frame") {
                "task.frame"
            } else {
                "task.reference"
            };
            self.invalid(key, e)
        })?;
        Ok(Some(task))
    }
}
