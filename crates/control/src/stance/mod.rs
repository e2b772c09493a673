//! Slotine–Li and PD+ on the stance manifold (issue 32 §3; Wensing,
//! Englsberger & Slotine (2023), sec. V-B; Slotine & Li (1987)).
//!
//! While the declared contacts hold, the legged robot is a constrained
//! mechanism, v = A v_bar with v_bar the independent speeds (Solo-12 on four
//! point feet: the base twist; Talos on two soles: the base twist and the
//! upper body). With H_bar = A^T H A, C_bar = A^T C A + A^T H A_dot for the
//! controller's factorization C (Thm. V.1, eq. 17) and g_bar = A^T g:
//!
//! - Slotine–Li: v_bar_r = v_bar_d - Lambda e_bar, s_bar = v_bar - v_bar_r,
//!   tau_bar_d = H_bar a_bar_r + C_bar v_bar_r + g_bar - K_D s_bar, storage
//!   V = 1/2 s_bar^T H_bar s_bar;
//! - PD+: tau_bar_d = H_bar a_bar_d + C_bar v_bar_d + g_bar - K_P e_bar -
//!   K_D (v_bar - v_bar_d), storage 1/2 (v_bar - v_bar_d)^T H_bar (v_bar -
//!   v_bar_d) + 1/2 e_bar^T K_P e_bar.
//!
//! e_bar is the base's pose error (rotation vector log(R_d^T R), body-axes
//! position error; [`BaseReference`]) and, for independent joints, q - q_d
//! against the controller's joint reference.
//!
//! The demand is realized as one full generalized force
//!
//!   Q_d = H (A a_bar_r + A_dot v_bar_r) + C A v_bar_r + g - A (A^T A)^-1 K_D s_bar
//!
//! (PD+: v_bar_r -> v_bar_d, a_bar_r -> a_bar_d, K_D s_bar -> K_P e_bar +
//! K_D (v_bar - v_bar_d)). Then A^T Q_d = A^T H A a_bar_r + (A^T C A + A^T H
//! A_dot) v_bar_r + A^T g - (A^T A)(A^T A)^-1 K_D s_bar = tau_bar_d exactly;
//! A (A^T A)^-1 is the least-norm lift of a reduced force. The six
//! unactuated base rows of Q_d must come from the contact forces f (world,
//! on the robot): for a support point at r_j = p_j - p_base, J_j,base^T f_j
//! = [R^T (r_j x f_j); R^T f_j] (the free root's body twist), so Q_d,base is
//! the wrench [R Q_lin; R Q_ang] ([force; moment about the base origin],
//! world) that a [`WrenchDistributor`](crate::balance::WrenchDistributor)
//! distributes over the support points (friction pyramids, f_min, slack).
//! The joints take tau = Q_d,joints - J_c,joints^T f (world-aligned point
//! Jacobians), clamped to the URDF effort limits.
//!
//! The bookkeeping: S^T tau + J_c^T f = Q_d + E_base delta' with delta' =
//! J_c,base^T f - Q_d,base the distribution's slack as a generalized force
//! on the base. The support points move with the stance (J_c A = 0), so
//! A^T J_c^T = 0 and the plant's contact forces, whatever they are while the
//! contacts hold, do no work on the reduced dynamics: A^T S^T tau =
//! tau_bar_d + [delta'; 0] (the base speeds are the first six independent
//! speeds, A's base rows are [1 0]). With the true model,
//!
//!   dV/dt = -y^T K_D y + y_base^T delta' + (tau_clamped - tau)^T (A y)_joints
//!           + (A y)^T tau_ext,
//!
//! y = s_bar (Slotine–Li) or v_bar - v_bar_d (PD+). The factorization's
//! torsion does no work (y^T (C_bar - C_bar*) y = 0) but changes
//! tau_bar_d by (C_bar - C_bar*) v_bar_r.

mod base_reference;
mod stance_control;

pub use base_reference::{BaseReference, BaseSample};
pub use stance_control::{Foothold, Stance, StanceControl, StanceFault, StanceStatus};

use crate::{ControlError, ControlLaw, Controller, Reference};
use passivity_dynamics::algorithms::Workspace;
use passivity_dynamics::factorization::Factorization;
use passivity_dynamics::model::Model;

impl Controller {
    /// A stance controller ([`ControlLaw::StanceSlotineLi`],
    /// [`ControlLaw::StancePdPlus`] or the compliant balance law
    /// [`ControlLaw::Balance`], whose supports are the stance's points and
    /// whose targets its held base pose) for `model` with a free root, standing
    /// on `stance` at the configuration `q` (the dependent speeds of the
    /// stance manifold are chosen among the joints there and kept).
    /// `reference` is the joints' reference (one entry per joint; only the
    /// independent joints, e.g. Talos's upper body, follow it); the gains
    /// have one entry per independent speed (nv - m, the base's six first).
    ///
    /// # Errors
    /// [`ControlError::Stance`] for another law, a model without a free
    /// root, an unusable stance (frames, friction, normal, sole size, more
    /// than 8 support points, redundant contacts) or gains of the wrong
    /// size; [`ControlError::Reference`], [`ControlError::Factorization`]
    /// and [`ControlError::Size`] (gamma) as [`Controller::new`].
    ///
    /// # Examples
    ///
    /// Solo-12 standing on its four point feet holds its base: the torques
    /// and the distributed foot forces carry its weight.
    ///
    /// ```
    /// use passivity_control::stance::{BaseReference, Foothold, Stance};
    /// use passivity_control::{ControlLaw, Controller, Reference, StanceSlotineLi};
    /// use passivity_dynamics::factorization::Factorization;
    /// use passivity_dynamics::model::{Model, RootJoint};
    /// use passivity_dynamics::spatial::Vec3;
    ///
    /// let path = concat!(
    ///     env!("CARGO_MANIFEST_DIR"),
    ///     "/../../assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf"
    /// );
    /// let model = Model::from_urdf_file(path, RootJoint::Free)?;
    /// let feet = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"].map(|name| Foothold::Point {
    ///     frame: model.frame_by_name(name).unwrap(),
    ///     offset: Vec3::new(0.0, 0.0, -0.0175),
    /// });
    /// let mut q = model.neutral_configuration();
    /// q[2] = 0.3;
    /// q[7..].copy_from_slice(&[0.0, 0.8, -1.6, 0.0, 0.8, -1.6, 0.0, -0.8, 1.6, 0.0, -0.8, 1.6]);
    /// let law = ControlLaw::StanceSlotineLi(StanceSlotineLi {
    ///     lambda: vec![5.0; 6],
    ///     kd: vec![0.5, 0.5, 0.5, 20.0, 20.0, 20.0], // [angular; linear]
    ///     adaptation: None,
    /// });
    /// let mut c = Controller::with_stance(
    ///     law,
    ///     Factorization::ChristoffelConsistent,
    ///     Reference::Hold { q: q[7..].to_vec() }, // only independent joints follow it
    ///     Stance::new(feet.to_vec(), 0.8, BaseReference::hold(&q)),
    ///     &model,
    ///     &q,
    /// )
    /// .unwrap();
    /// c.compute(0.0, &model, &q, &[0.0; 18]);
    /// let status = c.stance().unwrap().status();
    /// let lift: f64 = status.distribution.forces().iter().map(|f| f.z).sum();
    /// assert!((lift - 2.5 * 9.81).abs() < 1e-3 && status.fault.is_none());
    /// # Ok::<(), passivity_dynamics::model::ModelError>(())
    /// ```
    pub fn with_stance(
        law: ControlLaw,
        factorization: Factorization,
        reference: Reference,
        stance: Stance,
        model: &Model,
        q: &[f64],
    ) -> Result<Self, ControlError> {
        let gains: Vec<(&'static str, &[f64])> = match &law {
            ControlLaw::StanceSlotineLi(l) => vec![("lambda", &l.lambda), ("kd", &l.kd)],
            ControlLaw::StancePdPlus(l) => vec![("kp", &l.kp), ("kd", &l.kd)],
            ControlLaw::Balance(g) => {
                return Controller::with_balance(g.clone(), factorization, reference, stance, model, q)
            }
            _ => {
                return Err(ControlError::Stance(
                    "with_stance takes the stance laws (StanceSlotineLi, StancePdPlus) and the balance law".into(),
                ))
            }
        };
        if !model.has_free_root() {
            return Err(ControlError::Stance(
                "stance laws need a free-floating base".into(),
            ));
        }
        if q.len() != model.nq {
            return Err(ControlError::Stance(format!(
                "the configuration has {} entries, the model {}",
                q.len(),
                model.nq
            )));
        }
        factorization.validate(model)?;
        reference
            .validate(model.nv - 6)
            .map_err(ControlError::Reference)?;
        if let Some(a) = law.adaptation() {
            a.check(10 * model.nbodies())?;
        }
        let mut ws = Workspace::new(model);
        let stance =
            StanceControl::new(stance, model, &mut ws, q, &gains).map_err(ControlError::Stance)?;
        Ok(Controller {
            stance: Some(Box::new(stance)),
            ..Controller::bare(law, factorization, reference, model, ws, (6, 7))
        })
    }

    /// The stance laws' state (contacts, manifold, last forces), if any.
    pub fn stance(&self) -> Option<&StanceControl> {
        self.stance.as_deref()
    }
}
