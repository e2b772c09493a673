//! Gains the integrator cannot take are named before the run (issue 36):
//! the closed loop linearized at the initial state, its fastest mode
//! against the integrator's stability region at the step.

use crate::common;

use common::{repo_path, run_fails, Scratch};
use passivity_lab::scenario::{run_variant, Scenario};
use passivity_lab::sweep::{Selection, SweepPlan, SweepSpec};

const FIXTURE: &str = "tests/fixtures/fuzz/gains_beyond_the_step.toml";

#[test]
fn gains_beyond_the_step_are_named_and_the_suggestions_fit() {
    let scenario = Scenario::load(repo_path(FIXTURE)).unwrap();
    let variant = scenario.variants().unwrap().remove(0);
    let s = variant.simulation.step_stability().unwrap();
    // kd = 1e4 on 1 kg, 1 m links: a damping mode of 1.5e5 /s, where RK4
    // at 1 ms (|h mu| <= 2.79) cannot go.
    assert!(s.margin < 0.5, "{s:?}");
    assert!(s.limiting_rate > 2.79e3, "{s:?}");
    assert!(s.joint.starts_with("joint"), "{s:?}");
    // The step it suggests is stable, a bit more is not, and the run at
    // that step does not diverge.
    let mut at_step = variant.clone();
    at_step.simulation.dt = 0.9 * s.largest_stable_step;
    assert!(at_step.simulation.step_stability().unwrap().is_stable());
    at_step.simulation.dt = 1.2 * s.largest_stable_step;
    assert!(!at_step.simulation.step_stability().unwrap().is_stable());
    at_step.simulation.dt = 0.9 * s.largest_stable_step;
    at_step.duration = 0.02;
    assert!(run_variant(at_step, &mut |_| {}).divergence.is_none());
    // So are the gains it suggests, at the scenario's step.
    let factor = s.gain_factor.expect("a factor fits");
    let mut softer = variant.clone();
    softer.simulation.controller.law.scale_gains(factor);
    assert!(softer.simulation.step_stability().unwrap().is_stable());
    assert!(run_variant(softer, &mut |_| {}).divergence.is_none());
    // And the scenario as written diverges: the check is not a false alarm.
    assert!(run_variant(variant, &mut |_| {}).divergence.is_some());
}

#[test]
fn run_warns_before_it_starts_and_strict_refuses() {
    let dir = Scratch::new("step_stability", "cli");
    let out = dir.join("out");
    let err = run_fails(&["run", FIXTURE, "--out", out.to_str().unwrap()]);
    let warning = err
        .lines()
        .position(|l| l.starts_with("warning: variant default: its fastest closed-loop mode"))
        .unwrap_or_else(|| panic!("{err}"));
    let started = err.lines().position(|l| l.starts_with("running ")).unwrap();
    assert!(warning < started, "the warning comes first:\n{err}");
    assert!(err.contains("the largest stable step is"), "{err}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let s = &summary["variants"]["default"]["step_stability"];
    assert!(s["margin"].as_f64().unwrap() < 1.0, "{s}");
    assert!(s["gain_factor"].as_f64().unwrap() < 1.0, "{s}");

    let strict = dir.join("strict");
    let err = run_fails(&[
        "run",
        FIXTURE,
        "--strict",
        "--out",
        strict.to_str().unwrap(),
    ]);
    assert!(err.contains("refused by --strict"), "{err}");
    assert!(!strict.exists(), "refused, nothing written");
}

/// The planar arm under moderate PD+ gains following a target dragged
/// with `bandwidth` rad/s, at the default step of 1 ms.
fn dragged_reference(bandwidth: f64) -> String {
    format!(
        "name = \"dragged\"\n[robot]\nbuiltin = \"planar_two_link_arm\"\n[controller]\nkind = \"pd_plus\"\nkp = 100.0\nkd = 20.0\n\
         [reference]\nkind = \"dragged\"\nbefore = {{ kind = \"hold\", q = [0.0, 0.0] }}\nbandwidth = {bandwidth}\n\
         steps = [{{ time = 0.01, value = [0.5, 0.0] }}]\n[simulation]\nduration = 0.02\n"
    )
}

#[test]
fn a_dragged_reference_faster_than_the_step_is_named_and_strict_refuses() {
    let dir = Scratch::new("step_stability", "dragged");
    let (fast, slow) = (dir.join("fast.toml"), dir.join("slow.toml"));
    // 1e4 rad/s (within the documented (0, 1e4]) at 1 ms: the filter's
    // transient is over in a tenth of a step.
    std::fs::write(&fast, dragged_reference(1e4)).unwrap();
    std::fs::write(&slow, dragged_reference(50.0)).unwrap();
    let out = dir.join("out");
    let o = common::run(&[
        "run",
        fast.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = common::stderr(&o);
    let warning = err
        .lines()
        .position(|l| {
            l.starts_with(
                "warning: variant default: the dragged reference's filter bandwidth 10000 rad/s",
            )
        })
        .unwrap_or_else(|| panic!("{err}"));
    let started = err.lines().position(|l| l.starts_with("running ")).unwrap();
    assert!(warning < started, "the warning comes first:\n{err}");
    assert!(
        err.contains(
            "(bandwidth x step = 10.000, above 0.1); keep it at most 0.1 / step = 100.000 rad/s"
        ),
        "{err}"
    );
    let strict = dir.join("strict");
    let err = run_fails(&[
        "run",
        fast.to_str().unwrap(),
        "--strict",
        "--out",
        strict.to_str().unwrap(),
    ]);
    assert!(
        err.contains("refused by --strict") && err.contains("bandwidth"),
        "{err}"
    );
    assert!(!strict.exists(), "refused, nothing written");
    // A twentieth of the step's rate: no warning.
    let o = common::run(&[
        "run",
        slow.to_str().unwrap(),
        "--out",
        dir.join("slow").to_str().unwrap(),
    ]);
    assert!(
        o.status.success() && !common::stderr(&o).contains("warning"),
        "{}",
        common::stderr(&o)
    );
}

/// A sweep's points each have their own loop: it says which runs started
/// beyond the step (`run` warns before it starts; a sweep said nothing).
#[test]
fn a_sweep_names_its_runs_beyond_the_step() {
    let dir = Scratch::new("step_stability", "sweep");
    let scenario = dir.join("arm.toml");
    let text = std::fs::read_to_string(repo_path(FIXTURE)).unwrap();
    std::fs::write(
        &scenario,
        text.replace("kp = 1e5", "kp = 10.0") + "[output]\nplots = false\n",
    )
    .unwrap();
    let err = run_fails(&[
        "sweep",
        scenario.to_str().unwrap(),
        "--grid",
        "controller.kd=1,1e4",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    let said = "warning: 1 of 2 runs started with a closed-loop mode beyond the integrator's stability at their step (step_stability.margin below 1 in sweep.json): runs 1";
    assert!(err.contains(said), "{err}");
}

/// A sweep checks each run's dragged reference before the first run, as
/// `run` does (a product per run, unlike the step's linearization), and
/// `--strict` refuses the sweep.
#[test]
fn a_sweep_names_its_fast_references_before_it_runs_and_strict_refuses() {
    let dir = Scratch::new("step_stability", "sweep_dragged");
    let scenario = dir.join("dragged.toml");
    std::fs::write(
        &scenario,
        dragged_reference(50.0) + "[output]\nplots = false\n",
    )
    .unwrap();
    let args = |out: &str| {
        vec![
            "sweep".to_string(),
            scenario.to_str().unwrap().to_string(),
            "--grid".into(),
            "reference.bandwidth=50,1e4".into(),
            "--out".into(),
            dir.join(out).to_str().unwrap().to_string(),
        ]
    };
    let run_args = args("out");
    let o = common::run(&run_args.iter().map(String::as_str).collect::<Vec<_>>());
    let err = common::stderr(&o);
    let said = "warning: 1 of 2 runs drag a reference faster than their step can follow: runs 1; run 1 (variant default): the dragged reference's filter bandwidth 10000 rad/s is faster than the step 0.001 s can follow (bandwidth x step = 10.000, above 0.1); keep it at most 0.1 / step = 100.000 rad/s";
    let warning = err
        .lines()
        .position(|l| l == said)
        .unwrap_or_else(|| panic!("{err}"));
    let started = err
        .lines()
        .position(|l| l.starts_with("sweeping "))
        .unwrap();
    assert!(warning < started, "the warning comes first:\n{err}");
    // Only the selected runs are named: shard 1 of 2 holds run 0 alone.
    let mut shard = args("shard");
    shard.extend(["--shard".into(), "1/2".into()]);
    let o = common::run(&shard.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        !common::stderr(&o).contains("faster than their step"),
        "{}",
        common::stderr(&o)
    );
    let mut strict = args("strict");
    strict.push("--strict".into());
    let err = run_fails(&strict.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        err.contains("refused by --strict") && err.contains("runs 1;"),
        "{err}"
    );
    assert!(!dir.join("strict").exists(), "refused, nothing written");
    // A resumed sweep names only the runs it has left: none here, both ran
    // (run 1 diverged, so the sweep still ends with an error, as it did).
    let mut resumed = run_args.clone();
    resumed.push("--resume".into());
    let o = common::run(&resumed.iter().map(String::as_str).collect::<Vec<_>>());
    let err = common::stderr(&o);
    assert!(err.contains("resuming: 2 runs already finished"), "{err}");
    assert!(!err.contains("faster than their step"), "{err}");
    // With run 0 finished, run 1 is still named, as one of the runs left.
    let plan = SweepPlan::build(
        &Scenario::load(&scenario).unwrap(),
        SweepSpec::parse(&["reference.bandwidth=50,1e4".into()], &[], None, 0).unwrap(),
    )
    .unwrap();
    let left = plan.fast_references_said(&Selection::All, &[0]).unwrap();
    assert!(
        left.starts_with("1 of the 1 runs left drag a reference") && left.contains("runs 1;"),
        "{left}"
    );
    assert_eq!(plan.fast_references_said(&Selection::All, &[1]), None);
}
