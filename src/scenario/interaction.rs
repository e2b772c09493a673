//! Live interaction with running variants (the app's mouse drags and
//! target handle), kept as scenario data: every change is written into the
//! [`ScenarioFile`] as a `[[disturbances]]` drag or a `dragged` reference
//! AND applied to the live simulations, so the file replays the session
//! exactly (issue 13). Changes take effect strictly after the current time
//! (see [`crate::control::stepped_target`]), which is what makes the
//! replay equal the live run.

use crate::control::stepped_target::TargetStep;
use crate::control::{Reference, TaskReference};
use crate::scenario::{DisturbanceSpec, ScenarioFile};
use crate::sim::{Disturbance, Push, Simulation};
use crate::spatial::Vec3;

/// A live variant as interaction sees it.
pub struct LiveLoop<'a> {
    pub name: &'a str,
    pub sim: &'a mut Simulation,
}

/// A drag starting: which link point, how stiff, and on which variants.
#[derive(Clone, Debug, PartialEq)]
pub struct DragStart {
    /// The link's name (its frame is the body frame of `body`).
    pub link: String,
    pub body: usize,
    /// The picked point in the body frame.
    pub point: Vec3,
    pub stiffness: f64,
    pub damping: f64,
    /// Only this variant, or all when None.
    pub variant: Option<String>,
}

fn step(t: f64, x: &[f64]) -> TargetStep {
    TargetStep {
        time: t,
        value: x.to_vec(),
    }
}

/// Adds a step at time t, or replaces the last one if it is at t (nothing
/// after t has been integrated yet).
fn push_step(steps: &mut Vec<TargetStep>, t: f64, x: &[f64]) {
    match steps.last_mut() {
        Some(last) if last.time >= t => last.value = x.to_vec(),
        _ => steps.push(step(t, x)),
    }
}

/// The index of disturbance `index` of the file among those acting on variant `name`.
fn push_index(file: &ScenarioFile, index: usize, name: &str) -> Option<usize> {
    let applies = |d: &DisturbanceSpec| d.variant().is_none_or(|n| n == name);
    applies(&file.disturbances[index]).then(|| {
        file.disturbances[..index]
            .iter()
            .filter(|d| applies(d))
            .count()
    })
}

/// Starts a drag at time t with its anchor at `anchor` (world); returns
/// its index in `file.disturbances`.
pub fn drag_begin(
    file: &mut ScenarioFile,
    loops: &mut [LiveLoop],
    start: DragStart,
    t: f64,
    anchor: &Vec3,
) -> usize {
    let anchors = vec![step(t, anchor.as_slice())];
    file.disturbances.push(DisturbanceSpec::Drag {
        link: start.link,
        point: start.point.into(),
        stiffness: start.stiffness,
        damping: start.damping,
        anchors: anchors.clone(),
        release: None,
        variant: start.variant.clone(),
    });
    let index = file.disturbances.len() - 1;
    for l in loops.iter_mut() {
        if push_index(file, index, l.name).is_some() {
            l.sim.disturbances.add(Disturbance::new(
                start.body,
                start.point,
                Push::Drag {
                    stiffness: start.stiffness,
                    damping: start.damping,
                    anchors: anchors.clone(),
                    release: None,
                },
            ));
        }
    }
    index
}

/// Applies `change` to drag `index` in the file and in every loop it acts on.
fn update_drag(
    file: &mut ScenarioFile,
    loops: &mut [LiveLoop],
    index: usize,
    change: impl Fn(&mut Vec<TargetStep>, &mut Option<f64>),
) {
    if let Some(DisturbanceSpec::Drag {
        anchors, release, ..
    }) = file.disturbances.get_mut(index)
    {
        change(anchors, release);
    }
    for l in loops.iter_mut() {
        let Some(k) = push_index(file, index, l.name) else {
            continue;
        };
        if let Some(Push::Drag {
            anchors, release, ..
        }) = l.sim.disturbances.pushes.get_mut(k).map(|d| &mut d.push)
        {
            change(anchors, release);
        }
    }
}

/// Moves drag `index`'s anchor to `anchor` from time t on.
pub fn drag_move(
    file: &mut ScenarioFile,
    loops: &mut [LiveLoop],
    index: usize,
    t: f64,
    anchor: &Vec3,
) {
    update_drag(file, loops, index, |anchors, _| {
        push_step(anchors, t, anchor.as_slice())
    });
}

/// Releases drag `index` at time t.
pub fn drag_end(file: &mut ScenarioFile, loops: &mut [LiveLoop], index: usize, t: f64) {
    update_drag(file, loops, index, |_, release| *release = Some(t));
}

/// Moves the end-effector target to `position` from time t on, smoothed
/// with natural frequency `bandwidth` rad/s (a new bandwidth starts a new
/// filter from where the old one is, so the past stays as it was).
pub fn move_task_target(
    file: &mut ScenarioFile,
    loops: &mut [LiveLoop],
    t: f64,
    position: &Vec3,
    bandwidth: f64,
) {
    let Some(task) = file.task.as_mut() else {
        return;
    };
    match &mut task.reference {
        TaskReference::Dragged {
            bandwidth: b,
            steps,
            ..
        } if *b == bandwidth => push_step(steps, t, position.as_slice()),
        reference => {
            let before = Box::new(reference.clone());
            *reference = TaskReference::Dragged {
                before,
                bandwidth,
                steps: vec![step(t, position.as_slice())],
            };
        }
    }
    for l in loops.iter_mut() {
        l.sim.controller.set_task_reference(task.reference.clone());
    }
}

/// Moves the joint target to `q` (joints only, after a free root) from
/// time t on, smoothed like [`move_task_target`].
pub fn move_joint_target(
    file: &mut ScenarioFile,
    loops: &mut [LiveLoop],
    t: f64,
    q: &[f64],
    bandwidth: f64,
) {
    let Some(reference) = file.reference.as_mut() else {
        return;
    };
    match &mut *reference {
        Reference::Dragged {
            bandwidth: b,
            steps,
            ..
        } if *b == bandwidth => push_step(steps, t, q),
        other => {
            let before = Box::new(other.clone());
            *other = Reference::Dragged {
                before,
                bandwidth,
                steps: vec![step(t, q)],
            };
        }
    }
    for l in loops.iter_mut() {
        l.sim.controller.reference = reference.clone();
    }
}
