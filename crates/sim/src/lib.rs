//! Closed-loop simulation: the plant integrates the TRUE
//! model's forward dynamics (ABA) at a fixed step; the controller uses the
//! ESTIMATED model and its factorization, evaluated at every integrator stage
//! (continuous) or sampled with zero-order hold. Adaptive estimates are part
//! of the integrated state. A state that stops being finite or blows up ends
//! the run with a [`Divergence`]; what was recorded stays available.
//!
//! With a `RapierPlant` (feature `rapier`) rapier advances the true robot instead
//! of ABA: the controller is sampled at the start of every step (or at its
//! control rate) and held over it, adaptive estimates take an explicit Euler
//! step, and the contacts of each step are kept and summarised.
//!
//! Pushes ([`Disturbances`], issue 13) act on the true plant only. Every
//! passivity-based loop keeps its energy balance ([`EnergyBalance`]):
//! the supply, dissipation and mismatch integrals are part of the
//! integrated state, so V(t) - V(0) - supply + dissipation - mismatch is
//! the integrator's error alone (RK4: fourth order in the step).

pub mod colliders;
mod constrained_plant;
mod contact_plant;
mod disturbance;
mod environment;
mod fast_reference;
pub mod geometry;
mod hull_cache;
mod hull_on_ground;
mod parameter_consistency;
#[cfg(feature = "rapier")]
mod rapier_plant;
mod step_stability;

pub use colliders::Contact;
pub use constrained_plant::{ConstrainedPlant, ConstrainedPlantError, Control, Drift};
pub use contact_plant::{ContactPlant, ContactPlantError};
pub use disturbance::{AppliedWrench, Disturbance, Disturbances, Profile, Push};
pub use environment::{
    BoxObstacle, Environment, Ground, SphereObstacle, MAX_OBSTACLES, MAX_POSITION, MAX_SHAPE_SIZE,
};
pub use fast_reference::{max_reference_bandwidth, FastReference, MAX_BANDWIDTH_STEP};
pub use hull_cache::HullCache;
use parameter_consistency::ConsistencyCheck;
pub use parameter_consistency::ParameterConsistency;
#[cfg(feature = "rapier")]
pub use rapier_plant::{RapierPlant, RapierPlantError};
pub use step_stability::StepStability;

use passivity_control::{
    Controller, DistributionSample, Estimates, LastCompute, Lyapunov, PowerFlows, TaskSample,
};
use passivity_dynamics::algorithms::{
    aba, coriolis_matrix_and_derivatives, BodyFactorization, Workspace,
};
use passivity_dynamics::analysis::ContorsionForce;
use passivity_dynamics::factorization::skew_residual;
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::RigidInertia;

/// Fixed-step integration scheme of the plant (in scenario files
/// `"rk4"` or `"semi_implicit_euler"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Classical Runge-Kutta, 4th order (configuration rates from
    /// `Model::configuration_rate`).
    Rk4,
    /// Semi-implicit Euler: v += dt a, then q moves with the new v (one
    /// dynamics evaluation per step).
    SemiImplicitEuler,
}

/// When the controller is evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ControlMode {
    /// At every integrator stage (as in the paper's plots).
    Continuous,
    /// Every `period` seconds, the torque held in between (zero-order hold).
    Sampled { period: f64 },
}

/// How the closed loop advances: integrator, step and controller timing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stepping {
    pub integrator: Integrator,
    /// Integrator step, seconds.
    pub dt: f64,
    pub control: ControlMode,
}

/// Time derivatives of the state (configuration, speeds, parameters, and
/// the energy integrals) at one stage.
#[derive(Clone, Debug)]
struct Rates {
    q: Vec<f64>,
    v: Vec<f64>,
    p: Vec<f64>,
    energy: PowerFlows,
}

/// The energy through the loop's passive port since t = 0 (J): the
/// integrals of [`PowerFlows`]. With V the controller's storage,
/// V(t) - V(0) = supply - dissipation + mismatch + slack up to the
/// integrator's error (the balance residual).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EnergyBalance {
    pub supply: f64,
    pub dissipation: f64,
    pub mismatch: f64,
    /// The wrench distribution's slack (balance and stance laws).
    pub slack: f64,
}

impl EnergyBalance {
    /// self + h * rate.
    fn advanced(&self, h: f64, rate: &PowerFlows) -> EnergyBalance {
        EnergyBalance {
            supply: self.supply + h * rate.supply,
            dissipation: self.dissipation + h * rate.dissipation,
            mismatch: self.mismatch + h * rate.mismatch,
            slack: self.slack + h * rate.slack,
        }
    }

    /// The residual of the balance for the storage change `delta_v`.
    pub fn residual(&self, delta_v: f64) -> f64 {
        delta_v - self.supply + self.dissipation - self.mismatch - self.slack
    }
}

/// out = x + h d.
fn axpy(out: &mut [f64], x: &[f64], h: f64, d: &[f64]) {
    for ((o, a), b) in out.iter_mut().zip(x).zip(d) {
        *o = a + h * b;
    }
}

/// x += h d.
fn add_scaled(x: &mut [f64], h: f64, d: &[f64]) {
    for (a, b) in x.iter_mut().zip(d) {
        *a += h * b;
    }
}

/// Advances the estimates by h along `rate` with the adaptation law's step
/// (the exponential map for the natural law), through `scratch`.
fn advance_parameters(
    controller: &Controller,
    parameters: &mut Vec<f64>,
    scratch: &mut Vec<f64>,
    h: f64,
    rate: &[f64],
) {
    controller.step_parameters(parameters, h, rate, scratch);
    std::mem::swap(parameters, scratch);
}

/// x += dt / 6 (k1 + 2 k2 + 2 k3 + k4).
fn rk4_combine(x: &mut [f64], dt: f64, k: [&[f64]; 4]) {
    for (i, xi) in x.iter_mut().enumerate() {
        *xi += dt / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
    }
}

/// The run stopped because the state stopped being finite or blew up.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("the simulation diverged at t = {time:.6} s: {reason}")]
pub struct Divergence {
    pub time: f64,
    pub reason: String,
}

/// Magnitude beyond which a state is considered blown up.
pub const BLOW_UP: f64 = 1e8;

/// One recorded instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub t: f64,
    pub q: Vec<f64>,
    pub q_desired: Vec<f64>,
    pub v: Vec<f64>,
    pub tau: Vec<f64>,
    pub lyapunov: Lyapunov,
    /// Current parameter estimates (adaptive Slotine-Li), else empty.
    pub parameters: Vec<f64>,
    /// max |dH/dt - C - C^T| of the controller's factorization on its model.
    pub skew_residual: f64,
    /// Contact points of the last step (rapier plant) and their total normal force, N.
    pub contacts: usize,
    pub contact_force: f64,
    /// The end-effector task, when the controller has one.
    pub task: Option<TaskSample>,
    /// The energy integrals (passivity-based laws).
    pub energy: Option<EnergyBalance>,
    /// The pushes acting at this instant.
    pub pushes: Vec<AppliedWrench>,
    /// The contorsion force (C - C*)(q, q_dot) q_dot_r of the controller's
    /// factorization on its model at this state (q_dot_d for PD+), empty
    /// for laws without a joint-space Coriolis term ([`Controller::coriolis_port`]).
    pub torsion_force: Vec<f64>,
    /// Its power on the passive output, s^T (C - C*) q_dot_r (zero up to
    /// rounding for an admissible C).
    pub torsion_power: f64,
    /// The balance law's distribution (slack, total force, clamped joints).
    pub distribution: Option<DistributionSample>,
    /// The estimates' physical consistency so far (adaptive laws).
    pub parameter_consistency: Option<ParameterConsistency>,
    /// The constrained plant's loops: the largest |phi| the last step left
    /// before its projection (m, or a cosine; None on other plants).
    pub constraint_drift: Option<f64>,
}

/// The sum of the normal forces of `contacts`, N (0, not -0, when empty).
pub fn total_normal_force(contacts: &[Contact]) -> f64 {
    contacts.iter().fold(0.0, |sum, c| sum + c.force)
}

/// Contact over a whole run (rapier plant).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactStats {
    /// Largest total normal force of one step, N (an impact shows as a
    /// one-step spike: momentum change / step).
    pub max_force: f64,
    /// Simulated seconds with at least one contact point.
    pub time_in_contact: f64,
}

/// A plant with contacts that replaces the own integrator.
#[derive(Clone, Debug)]
enum ContactBackend {
    #[cfg(feature = "rapier")]
    Rapier(Box<RapierPlant>),
    Own(Box<ContactPlant>),
}

impl ContactBackend {
    fn name(&self) -> &'static str {
        match self {
            #[cfg(feature = "rapier")]
            ContactBackend::Rapier(_) => "rapier",
            ContactBackend::Own(_) => "contact",
        }
    }
}

/// A closed loop: plant, controller, and their state.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub plant: Model,
    pub estimate: Model,
    pub controller: Controller,
    pub integrator: Integrator,
    pub dt: f64,
    pub control: ControlMode,
    pub t: f64,
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    /// Parameter estimates pi_hat (adaptive Slotine-Li), else empty.
    pub parameters: Vec<f64>,
    true_parameters: Vec<f64>,
    plant_ws: Workspace,
    estimate_ws: Workspace,
    held_tau: Vec<f64>,
    held_rate: Vec<f64>,
    next_control: f64,
    stage_q: Vec<f64>,
    stage_v: Vec<f64>,
    stage_p: Vec<f64>,
    rates: [Rates; 4],
    /// The plant with contacts, when one replaces the own integrator.
    contact_plant: Option<ContactBackend>,
    /// The constrained plant of a closed chain, when one replaces the own
    /// integrator.
    constrained: Option<Box<ConstrainedPlant>>,
    contact_stats: ContactStats,
    /// Pushes on the true plant.
    pub disturbances: Disturbances,
    /// The energy integrals, when the law has a passive port.
    energy: Option<EnergyBalance>,
    /// Torques the plant receives: the controller's plus the pushes'.
    plant_tau: Vec<f64>,
    /// RK4's weighted mean of its stages' parameter rates.
    mean_parameter_rate: Vec<f64>,
    /// The estimates' physical consistency, step by step (adaptive laws).
    consistency: Option<ConsistencyCheck>,
    /// Buffers for the recorded contorsion force.
    contorsion: ContorsionForce,
    /// Whether the controller's evaluation at each stage is already the
    /// law with the true model (continuous control, exact fixed estimate):
    /// the bookkeeping then reuses it (a free root's rows: as the law
    /// demanded them before they were zeroed).
    controller_is_exact: bool,
    /// The held torque was computed at the state this step started from.
    held_at_step_start: bool,
}

/// The model's inertial parameters, body after body.
pub fn parameters_of(model: &Model) -> Vec<f64> {
    model
        .bodies
        .iter()
        .flat_map(|b| b.inertia.parameters())
        .collect()
}

fn set_parameters(model: &mut Model, p: &[f64]) {
    for (i, b) in model.bodies.iter_mut().enumerate() {
        b.inertia = RigidInertia::from_parameters(&p[10 * i..10 * i + 10]);
    }
}

impl Simulation {
    /// A closed loop starting at (q0, v0) at t = 0. `estimate` must have the
    /// plant's kinematics (only inertias may differ).
    pub fn new(
        plant: Model,
        estimate: Model,
        controller: Controller,
        stepping: Stepping,
        q0: Vec<f64>,
        v0: Vec<f64>,
    ) -> Self {
        let Stepping {
            integrator,
            dt,
            control,
        } = stepping;
        let adaptive = controller.law.adaptation().is_some();
        let parameters = if adaptive {
            parameters_of(&estimate)
        } else {
            Vec::new()
        };
        let np = parameters.len();
        let (nq, nv) = (plant.nq, plant.nv);
        let rate = || Rates {
            q: vec![0.0; nq],
            v: vec![0.0; nv],
            p: vec![0.0; np],
            energy: PowerFlows::default(),
        };
        let mut sim = Simulation {
            true_parameters: parameters_of(&plant),
            plant_ws: Workspace::new(&plant),
            estimate_ws: Workspace::new(&estimate),
            held_tau: vec![0.0; nv],
            held_rate: vec![0.0; np],
            next_control: 0.0,
            stage_q: q0.clone(),
            stage_v: v0.clone(),
            stage_p: parameters.clone(),
            rates: [rate(), rate(), rate(), rate()],
            contact_plant: None,
            constrained: None,
            contact_stats: ContactStats::default(),
            disturbances: Disturbances::none(nv),
            energy: controller.has_passive_port().then(EnergyBalance::default),
            plant_tau: vec![0.0; nv],
            mean_parameter_rate: vec![0.0; np],
            consistency: adaptive.then(|| ConsistencyCheck::new(&parameters_of(&plant))),
            contorsion: ContorsionForce::new(estimate.nv),
            controller_is_exact: control == ControlMode::Continuous
                && !adaptive
                && parameters_of(&plant) == parameters_of(&estimate),
            held_at_step_start: false,
            plant,
            estimate,
            controller,
            integrator,
            dt,
            control,
            t: 0.0,
            q: q0,
            v: v0,
            parameters,
        };
        if let ControlMode::Sampled { period } = sim.control {
            // The torque held over the first period is the controller's at t = 0.
            sim.hold_controller_at_current_state();
            sim.next_control = period;
        }
        sim
    }

    /// The same loop with `plant` (built at this loop's initial state and
    /// step) integrating the true robot instead of the own integrator.
    #[cfg(feature = "rapier")]
    pub fn with_rapier(mut self, plant: RapierPlant) -> Self {
        self.contact_plant = Some(ContactBackend::Rapier(Box::new(plant)));
        self
    }

    /// The same loop with the own contact `plant` (built for this loop's
    /// step) integrating the true robot instead of the own integrator.
    pub fn with_contact_plant(mut self, plant: ContactPlant) -> Self {
        self.contact_plant = Some(ContactBackend::Own(Box::new(plant)));
        self
    }

    /// The same loop on the closed chain `plant` (built from this loop's
    /// true model, initial state and step; its controller built by
    /// `Controller::with_closed_chain`): RK4 on (q, v_bar) with the
    /// controller at every stage (or held, when sampled) and the dependent
    /// joints projected onto the loops after each step. The loop's state
    /// becomes the plant's projected one.
    pub fn with_constrained_plant(mut self, mut plant: ConstrainedPlant) -> Self {
        self.q.copy_from_slice(plant.q());
        if let Ok(v) = plant.speeds() {
            self.v.copy_from_slice(v);
        }
        self.constrained = Some(Box::new(plant));
        self
    }

    /// The constrained plant, if this loop runs on a closed chain.
    pub fn constrained_plant(&self) -> Option<&ConstrainedPlant> {
        self.constrained.as_deref()
    }

    /// The same loop with `pushes` acting on its plant (their anchors
    /// start at the loop's current configuration).
    pub fn with_disturbances(mut self, pushes: Vec<Disturbance>) -> Self {
        self.disturbances = Disturbances::new(&self.plant, &mut self.plant_ws, pushes, &self.q);
        self
    }

    /// The energy integrals since t = 0 (None for computed torque).
    pub fn energy(&self) -> Option<EnergyBalance> {
        self.energy
    }

    /// The rapier plant, if this loop uses one.
    #[cfg(feature = "rapier")]
    pub fn rapier(&self) -> Option<&RapierPlant> {
        match &self.contact_plant {
            Some(ContactBackend::Rapier(r)) => Some(r),
            _ => None,
        }
    }

    /// Whether a plant with contacts (rapier or the own contact plant)
    /// integrates this loop.
    pub fn has_contact_plant(&self) -> bool {
        self.contact_plant.is_some()
    }

    /// Contacts of the last step (empty with the own plant).
    pub fn contacts(&self) -> &[Contact] {
        match &self.contact_plant {
            #[cfg(feature = "rapier")]
            Some(ContactBackend::Rapier(r)) => r.contacts(),
            Some(ContactBackend::Own(c)) => c.contacts(),
            None => &[],
        }
    }

    /// Contact over the run so far.
    pub fn contact_stats(&self) -> ContactStats {
        self.contact_stats
    }

    /// Evaluates the controller at (t, q, v, p) into its buffers.
    fn evaluate_controller(&mut self, t: f64, q: &[f64], v: &[f64], p: &[f64]) {
        if !p.is_empty() {
            set_parameters(&mut self.estimate, p);
        }
        self.controller.compute(t, &self.estimate, q, v);
        if !p.is_empty() {
            let mut rate = std::mem::take(&mut self.controller.parameter_rate);
            self.controller.project_rate(p, &mut rate);
            self.controller.parameter_rate = rate;
        }
    }

    /// Evaluates the controller at the current (t, q, v, p) and holds its output.
    fn hold_controller_at_current_state(&mut self) {
        let (q, v, p) = (
            std::mem::take(&mut self.q),
            std::mem::take(&mut self.v),
            std::mem::take(&mut self.parameters),
        );
        self.evaluate_controller(self.t, &q, &v, &p);
        (self.q, self.v, self.parameters) = (q, v, p);
        self.hold_controller_output();
    }

    /// Keeps the controller's last torques (and parameter rate, if adaptive).
    fn hold_controller_output(&mut self) {
        self.held_tau.copy_from_slice(&self.controller.tau);
        if !self.held_rate.is_empty() {
            self.held_rate
                .copy_from_slice(&self.controller.parameter_rate);
        }
    }

    /// The state derivative at stage k from (t, stage_q, stage_v, stage_p).
    fn derivative(&mut self, k: usize, t: f64) {
        let (q, v, p) = (
            std::mem::take(&mut self.stage_q),
            std::mem::take(&mut self.stage_v),
            std::mem::take(&mut self.stage_p),
        );
        if let ControlMode::Continuous = self.control {
            self.evaluate_controller(t, &q, &v, &p);
            self.hold_controller_output();
        }
        let here = self.control == ControlMode::Continuous || (k == 0 && self.held_at_step_start);
        self.rates[k].energy = self.push_and_account(t, (&q, &v, &p), here);
        let Rates {
            q: dq,
            v: dv,
            p: dp,
            ..
        } = &mut self.rates[k];
        self.plant.configuration_rate(&q, &v, dq);
        dv.copy_from_slice(
            aba(&self.plant, &mut self.plant_ws, &q, &v, &self.plant_tau).as_slice(),
        );
        dp.copy_from_slice(&self.held_rate);
        (self.stage_q, self.stage_v, self.stage_p) = (q, v, p);
    }

    /// Evaluates the pushes at (t, q, v) into `plant_tau` (held torque +
    /// pushes) and returns the powers through the passive port (zero
    /// without one); `here`: the held torque was computed at this state.
    fn push_and_account(
        &mut self,
        t: f64,
        (q, v, p): (&[f64], &[f64], &[f64]),
        here: bool,
    ) -> PowerFlows {
        self.disturbances
            .evaluate_forces(&self.plant, &mut self.plant_ws, t, q, v);
        self.plant_tau.copy_from_slice(&self.held_tau);
        if !self.disturbances.is_empty() {
            add_scaled(&mut self.plant_tau, 1.0, &self.disturbances.tau);
        }
        if self.energy.is_none() {
            return PowerFlows::default();
        }
        self.controller
            .power_flows(
                t,
                &self.plant,
                (q, v),
                &self.held_tau,
                &self.disturbances.tau,
                Estimates {
                    estimate: p,
                    truth: &self.true_parameters,
                },
                &self.held_rate,
                if self.controller_is_exact {
                    LastCompute::Exact
                } else if here {
                    LastCompute::AtThisState
                } else {
                    LastCompute::Elsewhere
                },
            )
            .unwrap_or_default()
    }

    /// Stage state = state + h * rate k (the estimates by the adaptation
    /// law's step, which for the natural law is the exponential map).
    fn set_stage(&mut self, k: usize, h: f64) {
        let r = &self.rates[k];
        axpy(&mut self.stage_q, &self.q, h, &r.q);
        axpy(&mut self.stage_v, &self.v, h, &r.v);
        self.controller
            .step_parameters(&self.parameters, h, &r.p, &mut self.stage_p);
    }

    /// Advances one step of length `dt`.
    pub fn step(&mut self) -> Result<(), Divergence> {
        let (t, dt) = (self.t, self.dt);
        self.held_at_step_start = false;
        if let ControlMode::Sampled { period } = self.control {
            if t + 1e-12 * dt >= self.next_control {
                self.hold_controller_at_current_state();
                self.next_control += period;
                self.held_at_step_start = true;
            }
        }
        if let Some(mut backend) = self.contact_plant.take() {
            let result = self.contact_step(&mut backend);
            self.contact_plant = Some(backend);
            return result;
        }
        if let Some(mut plant) = self.constrained.take() {
            let result = self.constrained_step(&mut plant);
            self.constrained = Some(plant);
            return result;
        }
        self.stage_q.copy_from_slice(&self.q);
        self.stage_v.copy_from_slice(&self.v);
        self.stage_p.copy_from_slice(&self.parameters);
        match self.integrator {
            Integrator::Rk4 => {
                self.derivative(0, t);
                self.set_stage(0, dt / 2.0);
                self.derivative(1, t + dt / 2.0);
                self.set_stage(1, dt / 2.0);
                self.derivative(2, t + dt / 2.0);
                self.set_stage(2, dt);
                self.derivative(3, t + dt);
                let r = &self.rates;
                rk4_combine(&mut self.q, dt, [&r[0].q, &r[1].q, &r[2].q, &r[3].q]);
                rk4_combine(&mut self.v, dt, [&r[0].v, &r[1].v, &r[2].v, &r[3].v]);
                self.advance_energy_rk4(dt);
                self.advance_parameters_rk4(dt);
            }
            Integrator::SemiImplicitEuler => {
                self.derivative(0, t);
                let r = &self.rates[0];
                if let Some(e) = &mut self.energy {
                    *e = e.advanced(dt, &r.energy);
                }
                add_scaled(&mut self.v, dt, &r.v);
                advance_parameters(
                    &self.controller,
                    &mut self.parameters,
                    &mut self.stage_p,
                    dt,
                    &r.p,
                );
                self.plant
                    .integrate(&self.q, &self.v, dt, &mut self.stage_q);
                std::mem::swap(&mut self.q, &mut self.stage_q);
            }
        }
        self.plant.normalize_configuration(&mut self.q);
        self.controller.clamp_parameters(&mut self.parameters);
        if let Some(c) = &mut self.consistency {
            c.after_step(&self.parameters);
        }
        self.t = t + dt;
        self.check()
    }

    /// Advances the estimates by RK4's weighted mean of the four stages'
    /// parameter rates.
    fn advance_parameters_rk4(&mut self, dt: f64) {
        let r = &self.rates;
        self.mean_parameter_rate.fill(0.0);
        rk4_combine(
            &mut self.mean_parameter_rate,
            1.0,
            [&r[0].p, &r[1].p, &r[2].p, &r[3].p],
        );
        let mean = &self.mean_parameter_rate;
        advance_parameters(
            &self.controller,
            &mut self.parameters,
            &mut self.stage_p,
            dt,
            mean,
        );
    }

    /// Advances the energy integrals by RK4's weighted mean of the four
    /// stages' power flows.
    fn advance_energy_rk4(&mut self, dt: f64) {
        let r = &self.rates;
        if let Some(e) = &mut self.energy {
            let rate = |f: fn(&PowerFlows) -> f64| {
                let k = |i: usize| f(&r[i].energy);
                (k(0) + 2.0 * k(1) + 2.0 * k(2) + k(3)) / 6.0
            };
            *e = e.advanced(
                dt,
                &PowerFlows {
                    supply: rate(|x| x.supply),
                    dissipation: rate(|x| x.dissipation),
                    mismatch: rate(|x| x.mismatch),
                    slack: rate(|x| x.slack),
                },
            );
        }
    }

    /// One step of the constrained plant: its RK4 with the controller (and
    /// the pushes, as generalized forces on the tree) at every stage, the
    /// estimates (adaptive laws) and the energy integrals by the same
    /// stages and weights, the state read back.
    fn constrained_step(&mut self, plant: &mut ConstrainedPlant) -> Result<(), Divergence> {
        let (t, dt) = (self.t, self.dt);
        let continuous = self.control == ControlMode::Continuous;
        let mut k = 0;
        let stepped = plant.step_controlled(&mut |time, q, _v_bar, v, tau| {
            // RK4's stage k of the estimates: along stage k - 1's rate.
            match k {
                0 => self.stage_p.copy_from_slice(&self.parameters),
                _ => {
                    let h = if k == 3 { dt } else { dt / 2.0 };
                    let rate = &self.rates[k - 1].p;
                    self.controller
                        .step_parameters(&self.parameters, h, rate, &mut self.stage_p);
                }
            }
            let p = std::mem::take(&mut self.stage_p);
            if continuous {
                self.evaluate_controller(time, q, v, &p);
                self.hold_controller_output();
            }
            let here = continuous || (k == 0 && self.held_at_step_start);
            self.rates[k].energy = self.push_and_account(time, (q, v, &p), here);
            self.rates[k].p.copy_from_slice(&self.held_rate);
            self.stage_p = p;
            tau.copy_from_slice(&self.plant_tau);
            k += 1;
        });
        let speeds = stepped.and_then(|()| {
            self.q.copy_from_slice(plant.q());
            plant.speeds().map(|v| self.v.copy_from_slice(v))
        });
        if let Err(e) = speeds {
            return Err(Divergence {
                time: t,
                reason: e.to_string(),
            });
        }
        self.advance_energy_rk4(dt);
        self.advance_parameters_rk4(dt);
        self.controller.clamp_parameters(&mut self.parameters);
        if let Some(c) = &mut self.consistency {
            c.after_step(&self.parameters);
        }
        self.t = t + dt;
        self.check()
    }

    /// One step of a plant with contacts: the controller at the start of
    /// the step (unless sampled at its own rate), held over it.
    fn contact_step(&mut self, backend: &mut ContactBackend) -> Result<(), Divergence> {
        let (t, dt) = (self.t, self.dt);
        if let ControlMode::Continuous = self.control {
            self.hold_controller_at_current_state();
        }
        if let Some(i) = self.held_tau.iter().position(|x| !x.is_finite()) {
            return Err(Divergence {
                time: t,
                reason: format!("the controller's torque tau[{i}] is not finite"),
            });
        }
        let (q, v, p) = (
            std::mem::take(&mut self.q),
            std::mem::take(&mut self.v),
            std::mem::take(&mut self.parameters),
        );
        let here = self.control == ControlMode::Continuous || self.held_at_step_start;
        let power = self.push_and_account(t, (&q, &v, &p), here);
        (self.q, self.v, self.parameters) = (q, v, p);
        if let Some(e) = &mut self.energy {
            *e = e.advanced(dt, &power);
        }
        // A panic inside rapier or parry (some contact queries index out of
        // bounds on degenerate geometry) stops the run like a divergence,
        // keeping what was recorded; the plant is not stepped again.
        let stepped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match backend {
            #[cfg(feature = "rapier")]
            ContactBackend::Rapier(rapier) => {
                rapier.push(&self.disturbances.applied);
                rapier.step(&self.held_tau);
                rapier.read_state(&mut self.q, &mut self.v);
                Ok(())
            }
            // The pushes are in plant_tau as generalized forces.
            ContactBackend::Own(plant) => plant.step(&mut self.q, &mut self.v, &self.plant_tau),
        }));
        let failed = match stepped {
            Ok(result) => result.err(),
            Err(panic) => Some(
                panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default(),
            ),
        };
        if let Some(message) = failed {
            return Err(Divergence {
                time: t,
                reason: format!(
                    "the {} plant failed inside its step: {message}",
                    backend.name()
                ),
            });
        }
        let rate = &self.held_rate;
        advance_parameters(
            &self.controller,
            &mut self.parameters,
            &mut self.stage_p,
            dt,
            rate,
        );
        self.controller.clamp_parameters(&mut self.parameters);
        if let Some(c) = &mut self.consistency {
            c.after_step(&self.parameters);
        }
        let contacts = match backend {
            #[cfg(feature = "rapier")]
            ContactBackend::Rapier(r) => r.contacts(),
            ContactBackend::Own(c) => c.contacts(),
        };
        let force = total_normal_force(contacts);
        if !contacts.is_empty() {
            self.contact_stats.time_in_contact += dt;
        }
        self.contact_stats.max_force = self.contact_stats.max_force.max(force);
        self.t = t + dt;
        self.check()
    }

    fn check(&self) -> Result<(), Divergence> {
        let bad = |name: &str, x: &[f64]| -> Option<String> {
            // One pass in the common case: every entry finite and in range.
            if x.iter().all(|a| a.abs() <= BLOW_UP) {
                return None;
            }
            x.iter()
                .position(|a| !a.is_finite())
                .map(|i| format!("{name}[{i}] is not finite"))
                .or_else(|| {
                    x.iter()
                        .position(|a| a.abs() > BLOW_UP)
                        .map(|i| format!("|{name}[{i}]| = {:.3e} exceeds {BLOW_UP:e}", x[i].abs()))
                })
        };
        match bad("q", &self.q)
            .or_else(|| bad("v", &self.v))
            .or_else(|| bad("parameters", &self.parameters))
        {
            Some(reason) => Err(Divergence {
                time: self.t,
                reason,
            }),
            None => Ok(()),
        }
    }

    /// The current instant, for recording: torques of the controller at this
    /// state (or the held ones), its Lyapunov function with the true model,
    /// and the skew residual of its factorization.
    pub fn sample(&mut self) -> Sample {
        let (t, q, v, p) = (
            self.t,
            self.q.clone(),
            self.v.clone(),
            self.parameters.clone(),
        );
        let tau = match self.control {
            ControlMode::Continuous => {
                self.evaluate_controller(t, &q, &v, &p);
                self.controller.tau.clone()
            }
            ControlMode::Sampled { .. } => self.held_tau.clone(),
        };
        let lyapunov = self.controller.lyapunov(
            t,
            &self.plant,
            &mut self.plant_ws,
            &q,
            &v,
            (!p.is_empty()).then_some(Estimates {
                estimate: &p,
                truth: &self.true_parameters,
            }),
        );
        // dH/dt = C* + C*^T and C* from Algorithm 1, then the factorization's
        // C: that C* plus the torsion terms, or a second pass for the other
        // body-level choices (it leaves dH/dt in place).
        let f = &self.controller.factorization;
        let ws = &mut self.estimate_ws;
        let c_star = BodyFactorization::ChristoffelConsistent;
        coriolis_matrix_and_derivatives(&self.estimate, ws, &q, &v, c_star);
        self.contorsion.keep_c_star(&ws.coriolis);
        if f.body_level() == c_star {
            f.add_torsion_terms(&q, &v, &mut ws.coriolis);
        } else {
            f.coriolis_matrix(&self.estimate, ws, &q, &v);
        }
        let skew_residual = skew_residual(&ws.mass_matrix_dot, &ws.coriolis);
        let (torsion_force, torsion_power) = match self.controller.coriolis_port() {
            Some((v_r, s)) => {
                self.contorsion.compute(&ws.coriolis, v_r);
                (self.contorsion.force.clone(), self.contorsion.power(s))
            }
            None => (Vec::new(), 0.0),
        };
        let pushes = if self.disturbances.is_empty() {
            Vec::new()
        } else {
            self.disturbances
                .evaluate(&self.plant, &mut self.plant_ws, t, &q, &v);
            self.disturbances.applied.clone()
        };
        let contacts = self.contacts();
        Sample {
            energy: self.energy,
            pushes,
            task: self.controller.task_sample(),
            contacts: contacts.len(),
            contact_force: total_normal_force(contacts),
            t,
            q_desired: self.controller.desired().q.clone(),
            q,
            v,
            tau,
            lyapunov,
            skew_residual,
            torsion_force,
            torsion_power,
            distribution: self.controller.balance().map(|b| b.sample()),
            parameter_consistency: self.consistency.as_mut().map(|c| c.report(&p)),
            constraint_drift: self.constrained.as_ref().map(|c| c.drift().last_step),
            parameters: p,
        }
    }

    /// Takes over `previous`'s state: time, configuration, speeds and, when
    /// both loops adapt the same parameters, the estimates. A changed
    /// controller, factorization or model then acts from the next step on
    /// (the app's live edits). A closed chain's constrained plant takes
    /// over its own state (the independent speeds and the drift so far).
    /// Returns false, changing nothing, when the two loops do not have the
    /// same configuration space, or the same chain partition and step.
    pub fn continue_from(&mut self, previous: &Simulation) -> bool {
        if previous.q.len() != self.q.len() || previous.v.len() != self.v.len() {
            return false;
        }
        let chain_taken_over = match (&mut self.constrained, &previous.constrained) {
            (None, None) => true,
            (Some(plant), Some(before)) => plant.continue_from(before),
            _ => false,
        };
        if !chain_taken_over {
            return false;
        }
        self.t = previous.t;
        self.q.copy_from_slice(&previous.q);
        self.v.copy_from_slice(&previous.v);
        if previous.parameters.len() == self.parameters.len() {
            self.parameters.copy_from_slice(&previous.parameters);
        }
        self.contact_stats = previous.contact_stats;
        if self.energy.is_some() {
            self.energy = previous.energy.or(self.energy);
        }
        #[cfg(feature = "rapier")]
        if let Some(ContactBackend::Rapier(rapier)) = &mut self.contact_plant {
            rapier.set_state(&self.q, &self.v);
        }
        if let ControlMode::Sampled { period } = self.control {
            self.hold_controller_at_current_state();
            self.next_control = self.t + period;
        }
        true
    }

    /// The true inertial parameters of the plant.
    pub fn true_parameters(&self) -> &[f64] {
        &self.true_parameters
    }
}
