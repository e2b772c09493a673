//! Helpers shared by the integration tests.
#![allow(dead_code)]

use passivity_lab::control::{ControlLaw, Controller, Reference, Task};
use passivity_lab::factorization::Factorization;
use passivity_lab::model::Model;
use passivity_lab::scenario::{run_variant, Scenario, ScenarioError, VariantResult};
use passivity_lab::sim::{ControlMode, Integrator, Sample, Simulation, Stepping};
use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The UR5 shipped in assets/, relative to the repository.
pub const UR5: &str = "assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf";

/// The Panda shipped in assets/, relative to the repository.
pub const PANDA: &str = "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf";

/// PD+ holding the Panda's fingers pressed into a table on `plant` for 3 s
/// (1 ms steps and samples): the scene of the passive-table tests; with
/// `mimic`, the fingers' mimic tag is honoured (8 coordinates, not 9).
pub fn panda_press_and_hold(plant: &str, mimic: bool) -> String {
    // With the mimic tag honoured the two fingers are one coordinate.
    let fingers = |x: &str| {
        if mimic {
            x.to_string()
        } else {
            format!("{x}, {x}")
        }
    };
    format!(
        r#"name = "press_and_hold"
[robot]
urdf = "{}"
mimic = {mimic}
[controller]
kind = "pd_plus"
kp = [200.0, 200.0, 200.0, 200.0, 50.0, 50.0, 20.0, {}]
kd = [20.0, 20.0, 20.0, 20.0, 5.0, 5.0, 2.0, {}]
[reference]
kind = "hold"
q = [0.0, 0.2, 0.0, -2.3, 0.0, 2.5, 0.785, {}]
[initial]
q = [0.0, 0.0, 0.0, -2.4, 0.0, 2.4, 0.785, {}]
[simulation]
plant = "{plant}"
duration = 3.0
step = 0.001
record_period = 0.001
[[environment.boxes]]
center = [0.5, 0.0, 0.09]
size = [0.4, 0.8, 0.18]
friction = 0.4
"#,
        repo_path(PANDA).display(),
        fingers("5.0"),
        fingers("0.5"),
        fingers("0.02"),
        fingers("0.02"),
    )
}

/// The passive-table checks on a [`panda_press_and_hold`] run: no
/// divergence; the storage V = 1/2 e_dot^T H e_dot + 1/2 e^T K_p e never
/// rises by more than 1e-6 J between samples; it falls from above 5 J and
/// settles in (0.1, 1) J; at the end the table carries 10 to 30 N on at
/// least `min_contacts` points. Returns V's largest rise between samples.
pub fn assert_pressed_passively(
    r: &passivity_lab::scenario::VariantResult,
    min_contacts: usize,
) -> f64 {
    assert!(r.divergence.is_none(), "{:?}", r.divergence);
    let v: Vec<f64> = r.samples.iter().map(|s| s.lyapunov.value).collect();
    let rise = v.windows(2).map(|w| w[1] - w[0]).fold(f64::MIN, f64::max);
    assert!(rise < 1e-6, "V rose by {rise}");
    let (first, last_v) = (v[0], v[v.len() - 1]);
    assert!(
        first > 5.0 && (0.1..1.0).contains(&last_v),
        "{first} -> {last_v}"
    );
    assert!((last_v - v[2000]).abs() < 1e-4, "not settled");
    let last = r.samples.last().unwrap();
    assert!(
        last.contacts >= min_contacts && (10.0..30.0).contains(&last.contact_force),
        "{} points, {} N",
        last.contacts,
        last.contact_force
    );
    rise
}

/// PD+ pulling the Panda's fingers towards 0.08 m (their URDF limit is
/// 0.04 m) on `plant`.
pub fn panda_fingers_past_their_limits(plant: &str) -> String {
    format!(
        r#"name = "limits"
[robot]
urdf = "{}"
mimic = false
[controller]
kind = "pd_plus"
kp = 100.0
kd = 10.0
[reference]
kind = "hold"
q = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.08, 0.08]
[initial]
q = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02, 0.02]
[simulation]
plant = "{plant}"
"#,
        repo_path(PANDA).display()
    )
}

/// Path inside the repository.
pub fn repo_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A robot of the repository (`urdf` relative to it) with its mimic tags
/// honoured.
pub fn coupled_robot(urdf: &str, root: passivity_lab::model::RootJoint) -> Model {
    Model::from_urdf_file(
        repo_path(urdf),
        passivity_lab::model::UrdfOptions {
            root,
            mimic: true,
            ..Default::default()
        },
    )
    .unwrap()
}

/// Runs the built binary in the repository folder and waits for it.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .current_dir(repo_path(""))
        .output()
        .expect("binary runs")
}

/// Runs the built binary in the repository folder like [`run`], but a run
/// that does not end within `seconds` is killed and fails the test (a hang
/// must not hang the suite; the limit is a guard, not a timing check).
pub fn run_within(seconds: f64, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .current_dir(repo_path(""))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs_f64() > seconds {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "{args:?} still ran after {seconds} s: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// The arguments of `eval --urdf <urdf> --input <input> --output <output>`.
pub fn eval_args<'a>(urdf: &'a str, input: &'a str, output: &'a str) -> Vec<&'a str> {
    vec!["eval", "--urdf", urdf, "--input", input, "--output", output]
}

/// Runs `run <scenario> --out <out>` within `seconds` ([`run_within`]).
pub fn run_scenario_within(seconds: f64, scenario: &Path, out: &Path) -> Output {
    run_within(
        seconds,
        &[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    )
}

/// A point-mass scenario named `name`: PD+ (kp 10, kd 5) holding q = [0.1,
/// 0, 0] without gravity, with `simulation` as the `[simulation]` table's
/// lines (tables may follow them).
pub fn point_mass_hold(name: &str, simulation: &str) -> String {
    format!(
        r#"name = "{name}"
[robot]
builtin = "point_mass"
gravity = [0.0, 0.0, 0.0]
[controller]
kind = "pd_plus"
kp = 10.0
kd = 5.0
[reference]
kind = "hold"
q = [0.1, 0.0, 0.0]
[simulation]
{simulation}
"#
    )
}

/// A run's stdout and stderr as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A run's stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs the binary ([`run`]) and fails the test unless it succeeds (the
/// message shows stdout and stderr); returns stdout and stderr.
pub fn run_ok(args: &[&str]) -> (String, String) {
    let o = run(args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    (out, err)
}

/// Runs the binary ([`run`]) and fails the test unless it fails; returns
/// its stderr (the message the caller checks).
pub fn run_fails(args: &[&str]) -> String {
    let o = run(args);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    err
}

/// Exit code and stderr of a run that ended by itself; fails the test on a
/// signal or a panic.
pub fn refused(o: &Output) -> (i32, String) {
    let err = stderr(o);
    let code = o
        .status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {err}"));
    assert!(!err.contains("panicked"), "{err}");
    (code, err)
}

/// A folder `<area>` under Cargo's temporary folder for test targets that,
/// unlike [`Scratch`], stays after the test (for a look at what it wrote).
pub fn kept_dir(area: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(area);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The error of a scenario text that must be refused (read as if from
/// `path`); fails the test when it is accepted.
pub fn scenario_error(text: &str, path: impl AsRef<Path>) -> ScenarioError {
    match Scenario::parse(text, path) {
        Ok(_) => panic!("scenario accepted:\n{text}"),
        Err(e) => e,
    }
}

/// Runs every variant of `scenario` in order.
pub fn run_variants(scenario: &Scenario) -> Vec<VariantResult> {
    scenario
        .variants()
        .unwrap()
        .into_iter()
        .map(|v| run_variant(v, &mut |_| {}))
        .collect()
}

/// Runs every variant of a scenario text, read as if from
/// scenarios/test.toml (relative paths start in scenarios/).
pub fn run_text(text: &str) -> Vec<VariantResult> {
    run_variants(&Scenario::parse(text, repo_path("scenarios/test.toml")).unwrap())
}

/// Runs the variant `name` of a scenario `text` read as if from `path`
/// (typically a shipped scenario's file with a few keys edited).
pub fn run_named_variant(text: &str, path: &Path, name: &str) -> VariantResult {
    let variant = Scenario::parse(text, path)
        .unwrap()
        .variants()
        .unwrap()
        .into_iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("{}: no variant {name}", path.display()));
    passivity_lab::scenario::run_variant(variant, &mut |_| {})
}

/// max |V(t) - V(0) - supply + dissipation - mismatch| / V(0) over a run:
/// the energy books' residual relative to the initial storage, the
/// integrator's error alone for an admissible factorization.
pub fn books(r: &VariantResult) -> f64 {
    let v0 = r.samples[0].lyapunov.value;
    r.samples
        .iter()
        .map(|s| s.energy.unwrap().residual(s.lyapunov.value - v0).abs() / v0)
        .fold(0.0, f64::max)
}

/// The largest skew residual |x^T (Hdot - 2C) x| recorded over a run.
pub fn max_skew_residual(r: &VariantResult) -> f64 {
    r.samples
        .iter()
        .map(|s| s.skew_residual)
        .fold(0.0, f64::max)
}

/// The largest |a_i - b_i|.
pub fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Writes `<dir>/shape.urdf`: one free body (2 kg, inertia diag(0.02,
/// 0.02, 0.01)) whose collision is `geometry` (a URDF `<geometry>` body);
/// returns its path.
pub fn write_shape_urdf(dir: &Path, geometry: &str) -> PathBuf {
    let urdf = dir.join("shape.urdf");
    std::fs::write(
        &urdf,
        format!(
            r#"<robot name="shape"><link name="body">
  <inertial><mass value="2.0"/><inertia ixx="0.02" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry>{geometry}</geometry></collision>
</link></robot>"#
        ),
    )
    .unwrap();
    urdf
}

/// The quantities an `eval` output and the Pinocchio reference files hold
/// for every sample, besides the optional ones (`inertial_parameters`,
/// `torque_regressor`, `hdot`, `frames`).
pub const REFERENCE_QUANTITIES: [&str; 9] = [
    "tau_rnea",
    "gravity",
    "mass_matrix",
    "coriolis_matrix",
    "coriolis_force",
    "aba_ddq",
    "christoffel_first_kind",
    "tau_slotine_li",
    "kinetic_energy",
];

/// Fails the test when a comparison of `eval` against a reference is off
/// by more than its tolerance (`Comparison::tolerance`: 1e-9 relative for
/// closed-form quantities, 1e-6 for dH/dt against the reference's finite
/// difference), naming `what` and the quantity.
pub fn assert_within_tolerance(what: &str, comparisons: &[passivity_lab::eval::Comparison]) {
    for c in comparisons {
        assert!(
            c.relative_error <= c.tolerance,
            "{what}: {} off by {:e}",
            c.quantity,
            c.relative_error
        );
    }
}

/// A small deterministic generator (Knuth's MMIX linear congruential
/// generator; no test-time randomness crate needed).
pub struct Lcg(pub u64);

impl Lcg {
    /// Advances the state and returns it.
    pub fn step(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0
    }

    /// Uniform in [0, 1): the state's top 53 bits.
    pub fn next(&mut self) -> f64 {
        (self.step() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    /// An index below `n` (n > 0), from [`Lcg::next`].
    pub fn index(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }

    /// An index below `n` (0 when n = 0): the state's top 31 bits modulo n.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.step() >> 33) % n.max(1) as u64) as usize
    }
}

/// A source of uniform numbers for [`random_state`].
pub trait Uniform {
    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64;
}

impl Uniform for Lcg {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.range(lo, hi)
    }
}

impl Uniform for rand::rngs::SmallRng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        rand::Rng::random_range(self, lo..hi)
    }
}

/// A random state of `model`: coordinates in [-1.5, 1.5) (quaternions
/// normalized), then `K` velocity-like vectors with entries in
/// [-speed, speed), drawn in that order.
pub fn random_state<const K: usize>(
    model: &Model,
    rng: &mut impl Uniform,
    speed: f64,
) -> (Vec<f64>, [Vec<f64>; K]) {
    let mut q: Vec<f64> = (0..model.nq).map(|_| rng.uniform(-1.5, 1.5)).collect();
    model.normalize_configuration(&mut q);
    let speeds =
        std::array::from_fn(|_| (0..model.nv).map(|_| rng.uniform(-speed, speed)).collect());
    (q, speeds)
}

/// The inputs of a closed-loop run with continuous control and RK4
/// ([`simulate`]).
pub struct ClosedLoop<'a> {
    /// The true robot.
    pub plant: &'a Model,
    /// The controller's model of it.
    pub estimate: &'a Model,
    pub law: ControlLaw,
    pub factorization: Factorization,
    /// The joint reference (with a task: the posture).
    pub reference: Reference,
    pub task: Option<Task>,
    /// Initial configuration and velocity.
    pub q0: Vec<f64>,
    pub v0: Vec<f64>,
    /// Step, seconds.
    pub dt: f64,
    /// Steps to run.
    pub steps: usize,
    /// Every `stride`-th sample is kept (and the initial one).
    pub stride: usize,
}

/// Runs a [`ClosedLoop`]: the initial sample and every `stride`-th one.
pub fn simulate(run: ClosedLoop) -> Vec<Sample> {
    let controller = Controller::new(
        run.law,
        run.factorization,
        run.reference,
        run.task,
        run.estimate,
    )
    .unwrap();
    let stepping = Stepping {
        integrator: Integrator::Rk4,
        dt: run.dt,
        control: ControlMode::Continuous,
    };
    let mut sim = Simulation::new(
        run.plant.clone(),
        run.estimate.clone(),
        controller,
        stepping,
        run.q0,
        run.v0,
    );
    let mut out = vec![sim.sample()];
    for k in 1..=run.steps {
        sim.step().unwrap();
        if k % run.stride == 0 {
            out.push(sim.sample());
        }
    }
    out
}

/// The per-thread allocation counter the test binary installs (main.rs)
/// and the tests measure with.
pub use passivity_dynamics::testing::{allocations, CountingAllocator};

/// A fresh, empty folder for one test, `passivity-lab-<area>-<pid>-<name>`
/// under the system's temporary folder. It is removed when dropped, unless
/// the test is failing: then it stays, to be inspected.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(area: &str, name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "passivity-lab-{area}-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl Deref for Scratch {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}
