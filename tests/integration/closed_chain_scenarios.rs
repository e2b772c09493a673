//! Closed chains as scenarios (issue 33): `[[loop_closures]]` and
//! `[closed_chain]` parsed with located errors, and the shipped torsion
//! lesson on the constrained plant (scenarios/fourbar_torsion.toml,
//! scenarios/fourbar_knee_torsion.toml): the loops stay closed, each law's
//! storage falls with C_bar* and with a beta-torsion alike, and the
//! trajectories twist apart where the mobility allows torsion (3) and not
//! where it does not (1, Wensing, Englsberger & Slotine (2023), Cor. III.2).

use crate::common;

use common::repo_path;
use passivity_lab::scenario::{Scenario, ScenarioError, VariantResult};

fn run(path: &str) -> Vec<VariantResult> {
    common::run_variants(&Scenario::load(repo_path(path)).unwrap())
}

/// The largest |q_a - q_b| over the recorded samples of two runs.
fn apart(a: &VariantResult, b: &VariantResult) -> f64 {
    a.samples
        .iter()
        .zip(&b.samples)
        .flat_map(|(x, y)| x.q.iter().zip(&y.q).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f64::max)
}

/// max |V(t) - V(0) - supply + dissipation - mismatch| / V(0) over a run:
/// the energy books' residual, RK4's error alone for an admissible C_bar.
fn books(r: &VariantResult) -> f64 {
    let v0 = r.samples[0].lyapunov.value;
    r.samples
        .iter()
        .map(|s| s.energy.unwrap().residual(s.lyapunov.value - v0).abs() / v0)
        .fold(0.0, f64::max)
}

/// The claims of each closed-chain run: it completes, its loops stay
/// closed, its books balance, its storage falls, and it tracks.
fn check(file: &str, r: &VariantResult) {
    let name = format!("{file}: {}", r.name);
    assert!(r.divergence.is_none(), "{name}: {:?}", r.divergence);
    let c = r.closed_chain.as_ref().unwrap();
    let (v0, vt) = (
        r.samples[0].lyapunov.value,
        r.samples.last().unwrap().lyapunov.value,
    );
    let e = r.samples.last().unwrap().lyapunov.e_norm;
    eprintln!(
        "{name}: |phi| <= {:.1e} before projection, {:.1e} after; V {v0:.4e} -> {vt:.4e}; books {:.1e} of V(0); final |e| {e:.1e}",
        c.max_drift_before_projection,
        c.max_drift_after_projection,
        books(r)
    );
    // RK4 at 1 ms leaves the loop open by O(h^5) per step before the
    // projection (measured 1e-9 and below), and Newton closes it to
    // rounding.
    assert!(c.max_drift_before_projection < 1e-7, "{name}: {c:?}");
    assert!(c.max_drift_after_projection < 1e-12, "{name}: {c:?}");
    assert!(
        r.samples.iter().all(|s| s.constraint_drift.is_some()),
        "{name}: every sample records the drift"
    );
    // dV/dt = -y^T K_D y for every admissible C_bar: the books close to
    // RK4's error (a non-skew C_bar would miss by O(1)).
    assert!(books(r) < 1e-6, "{name}: books {:e}", books(r));
    assert!(vt < 1e-2 * v0, "{name}: V {v0} -> {vt}");
    assert!(e < 1e-3, "{name}: final |e| {e}");
}

#[test]
fn the_knee_leg_twists_under_torsion_and_its_storage_cannot_tell() {
    let file = "scenarios/fourbar_knee_torsion.toml";
    let r = run(file);
    let names: Vec<&str> = r.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "slotine_li_c_star",
            "slotine_li_torsion",
            "pd_plus_c_star",
            "pd_plus_torsion"
        ]
    );
    for v in &r {
        check(file, v);
        let c = v.closed_chain.as_ref().unwrap();
        assert_eq!(
            (c.mobility, c.chosen_by, c.independent_joints.clone()),
            (
                3,
                "given",
                vec![
                    "slider".to_string(),
                    "hip_joint".into(),
                    "knee_motor_joint".into()
                ]
            )
        );
    }
    for pair in r.chunks(2) {
        let gap = apart(&pair[0], &pair[1]);
        eprintln!(
            "{file}: {} and {} apart by up to {gap:.3e} rad or m",
            pair[0].name, pair[1].name
        );
        assert!(
            gap > 1e-3,
            "{}: torsion left the loop unchanged ({gap:e})",
            pair[1].name
        );
    }
}

#[test]
fn the_four_bar_has_no_room_for_torsion() {
    let file = "scenarios/fourbar_torsion.toml";
    let r = run(file);
    for v in &r {
        check(file, v);
        assert_eq!(v.closed_chain.as_ref().unwrap().mobility, 1);
    }
    for pair in r.chunks(2) {
        let gap = apart(&pair[0], &pair[1]);
        eprintln!(
            "{file}: {} and {} apart by up to {gap:.1e}",
            pair[0].name, pair[1].name
        );
        // Cor. III.2: on one speed C_bar v_bar is the same for every
        // admissible factorization; only rounding separates the runs.
        assert!(gap < 1e-10, "{}: {gap:e}", pair[1].name);
    }
}

/// The knee-leg scenario with `old` replaced by `new`, loaded.
fn edited(old: &str, new: &str) -> Result<Vec<passivity_lab::scenario::Variant>, ScenarioError> {
    let path = repo_path("scenarios/fourbar_knee_torsion.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(old), "{old}");
    Scenario::parse(&text.replacen(old, new, 1), &path)?.variants()
}

/// The error's line (1-based) in the edited text, its key and message.
fn invalid(old: &str, new: &str) -> (usize, String, String) {
    match edited(old, new) {
        Err(ScenarioError::Invalid {
            line, key, message, ..
        }) => (line, key, message),
        Err(e) => panic!("{new}: not an Invalid error: {e}"),
        Ok(_) => panic!("{new}: accepted"),
    }
}

fn line_of(needle: &str, old: &str, new: &str) -> usize {
    let text = std::fs::read_to_string(repo_path("scenarios/fourbar_knee_torsion.toml"))
        .unwrap()
        .replacen(old, new, 1);
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn loop_closure_errors_name_the_entry_the_key_and_the_problem() {
    // An unknown frame, at its line, with the frames there are.
    let (line, key, message) = invalid("frame_b = \"shank_lever\"", "frame_b = \"shank_levr\"");
    assert_eq!(key, "loop_closures[0].frame_b");
    assert_eq!(
        line,
        line_of(
            "shank_levr",
            "frame_b = \"shank_lever\"",
            "frame_b = \"shank_levr\""
        )
    );
    assert!(
        message.contains("'shank_levr'") && message.contains("shank_lever"),
        "{message}"
    );
    // A kind that is not one.
    match edited("kind = \"planar\"", "kind = \"prismatic\"") {
        Err(ScenarioError::Syntax { message, .. }) => {
            assert!(
                message.contains("point") && message.contains("revolute"),
                "{message}"
            )
        }
        other => panic!("{:?}", other.err()),
    }
    // A planar closure without its axis.
    let (_, key, message) = invalid("axis = [0.0, 1.0, 0.0]\n", "");
    assert_eq!(key, "loop_closures[0].kind");
    assert!(message.contains("axis"), "{message}");
    // A point closure of a planar mechanism: its out-of-plane row repeats.
    let (_, key, message) = invalid(
        "kind = \"planar\"\naxis = [0.0, 1.0, 0.0]",
        "kind = \"point\"",
    );
    assert_eq!(key, "loop_closures[0]");
    assert!(
        message.contains("redundant") && message.contains("rows"),
        "{message}"
    );
    // Not closed at the initial configuration: by how much, and the way out.
    let (_, _, message) = invalid(
        "project_initial_state = true",
        "project_initial_state = false",
    );
    assert!(
        message.contains("open by") && message.contains("project_initial_state"),
        "{message}"
    );
    // An independent joint that is not one of the robot's.
    let (_, key, message) = invalid("\"knee_motor_joint\"]", "\"knee_motr\"]");
    assert_eq!(key, "closed_chain.independent");
    assert!(
        message.contains("'knee_motr'") && message.contains("knee_motor_joint"),
        "{message}"
    );
    // A reference that describes the tree instead of the independent joints.
    let (_, key, message) = invalid(
        "  { offset = -0.1, sines = [{ amplitude = 1.0, frequency = 4.0 }] },\n",
        "  { offset = -0.1, sines = [{ amplitude = 1.0, frequency = 4.0 }] },\n  {},\n",
    );
    assert_eq!(key, "reference");
    assert!(
        message.contains("slider, hip_joint, knee_motor_joint"),
        "{message}"
    );
    // Controllers and plants the chain does not run.
    let (_, _, message) = invalid("[simulation]\n", "[simulation]\nplant = \"contact\"\n");
    assert!(message.contains("constrained plant"), "{message}");
    let (_, key, message) = invalid(
        "kind = \"slotine_li\"\nlambda = 10.0",
        "kind = \"computed_torque\"\nkp = 10.0",
    );
    assert!(key.starts_with("controller"), "{key}");
    assert!(message.contains("closed chain"), "{message}");
}

#[test]
fn without_independent_joints_qr_chooses_them_and_the_run_says_so() {
    let variants = edited(
        "independent = [\"slider\", \"hip_joint\", \"knee_motor_joint\"]\n",
        "",
    )
    .unwrap();
    let c = variants[0].closed_chain.as_ref().unwrap();
    assert_eq!((c.mobility, c.chosen_by), (3, "qr"));
    assert_eq!(c.independent_joints.len() + c.dependent_joints.len(), 5);
}
