//! The fuzzer's findings as regression tests: each fixture in
//! tests/fixtures/fuzz is the minimal form of one kind of scenario the
//! fuzzer (examples/fuzz) once saw hang, and its first comment lines say
//! what the binary must do with it. Every kind is now either refused
//! before anything runs, naming the key, or a run that finishes.
//!
//! A run is killed after 120 s as a guard only (a hang must not hang the
//! suite); the checks are on exit codes and messages, never on time.

use crate::common;

use common::{refused, repo_path, run_within, Scratch};

/// What the binary must do with a fixture.
enum Expect {
    /// Refused with exit code 1 and a message holding every needle.
    Refused(&'static [&'static str]),
    /// Run to the end (exit 0), the summary written.
    Finishes,
    /// Started, stopped by a divergence with the data written: exit 1 and
    /// a message holding every needle.
    Diverges(&'static [&'static str]),
}

/// `run tests/fixtures/fuzz/<fixture> --out <scratch>/out [extra]` and the
/// checks of `expect`.
fn check(fixture: &str, extra: &[&str], expect: Expect) {
    let dir = Scratch::new("fuzz", fixture.trim_end_matches(".toml"));
    let scenario = repo_path(&format!("tests/fixtures/fuzz/{fixture}"));
    let out = dir.join("out");
    let mut args = vec![
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, err) = refused(&run_within(120.0, &args));
    match expect {
        Expect::Refused(needles) => {
            assert_eq!(code, 1, "{fixture}: {err}");
            for needle in needles {
                assert!(err.contains(needle), "{fixture}: no {needle:?} in {err}");
            }
            assert!(!out.exists(), "{fixture}: refused, yet wrote {out:?}");
        }
        Expect::Finishes => {
            assert_eq!(code, 0, "{fixture}: {err}");
            assert!(out.join("summary.json").is_file(), "{fixture}: {err}");
        }
        Expect::Diverges(needles) => {
            assert_eq!(code, 1, "{fixture}: {err}");
            for needle in needles {
                assert!(err.contains(needle), "{fixture}: no {needle:?} in {err}");
            }
            assert!(out.join("summary.json").is_file(), "{fixture}: {err}");
        }
    }
}

const UNCOUNTABLE: &[&str] = &["simulation", "more than a run can count"];
const BEYOND_CEILING: &[&str] = &["simulation", "beyond the ceiling", "--allow-long"];

#[test]
fn a_duration_past_2_53_steps_is_refused_even_when_allowed_long() {
    check("duration_past_2_53.toml", &[], Expect::Refused(UNCOUNTABLE));
    check(
        "duration_past_2_53.toml",
        &["--allow-long"],
        Expect::Refused(UNCOUNTABLE),
    );
}

#[test]
fn a_duration_past_the_ceiling_is_refused_naming_allow_long() {
    check(
        "duration_past_ceiling.toml",
        &[],
        Expect::Refused(BEYOND_CEILING),
    );
}

/// Third probe: `bench --scenario` stepped the same scenario (1e12 steps)
/// silently until killed, and `--repeats` multiplied any scenario without
/// bound; the ceiling of `run` now holds for all its repeats together.
#[test]
fn bench_refuses_a_scenario_past_the_ceiling_with_its_repeats() {
    let scenario = repo_path("tests/fixtures/fuzz/duration_past_ceiling.toml");
    let args = ["bench", "--scenario", scenario.to_str().unwrap()];
    let (code, err) = refused(&run_within(60.0, &args));
    assert_eq!(code, 1, "{err}");
    for needle in BEYOND_CEILING {
        assert!(err.contains(needle), "no {needle:?} in {err}");
    }
    let point_mass = repo_path("scenarios/point_mass_torsion.toml");
    let args = [
        "bench",
        "--scenario",
        point_mass.to_str().unwrap(),
        "--repeats",
        "1000000",
    ];
    let (code, err) = refused(&run_within(60.0, &args));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("over 2000000 runs") && err.contains("--allow-long"),
        "{err}"
    );
}

#[test]
fn a_step_past_2_53_steps_is_refused_even_when_allowed_long() {
    check("step_past_2_53.toml", &[], Expect::Refused(UNCOUNTABLE));
    check(
        "step_past_2_53.toml",
        &["--allow-long"],
        Expect::Refused(UNCOUNTABLE),
    );
}

#[test]
fn a_step_past_the_ceiling_is_refused_naming_allow_long() {
    check(
        "step_past_ceiling.toml",
        &[],
        Expect::Refused(BEYOND_CEILING),
    );
}

#[test]
fn a_tiny_step_within_the_ceiling_runs_and_finishes() {
    check("long_run_within_ceiling.toml", &[], Expect::Finishes);
}

#[test]
fn a_simulation_table_without_duration_or_step_runs_and_finishes() {
    check("simulation_defaults.toml", &[], Expect::Finishes);
}

#[test]
fn a_huge_initial_configuration_is_refused_naming_initial_q() {
    check(
        "huge_initial_q.toml",
        &[],
        Expect::Refused(&["initial.q", "finite numbers of magnitude at most 1e8"]),
    );
}

#[test]
fn a_huge_reference_is_refused_naming_the_reference() {
    check(
        "huge_reference.toml",
        &[],
        Expect::Refused(&["reference", "not finite or exceeds 1e8"]),
    );
}

#[test]
fn gains_the_integrator_cannot_take_diverge_and_stop_with_the_data() {
    check(
        "gains_beyond_the_step.toml",
        &[],
        Expect::Diverges(&["diverged at t ="]),
    );
}

/// The pre-run step-stability check cycled without end in nalgebra's
/// Schur decomposition on this Panda task loop (examples/fuzz, seed 42).
#[test]
fn a_loop_whose_modes_are_hard_to_find_still_runs() {
    check("schur_without_end.toml", &[], Expect::Finishes);
}

#[test]
fn a_huge_link_mass_is_refused_at_load() {
    check(
        "huge_link_mass.toml",
        &[],
        Expect::Refused(&["robot.masses", "at most 1e8 kg"]),
    );
}

#[test]
fn an_adaptation_gain_whose_inverse_overflows_is_refused_naming_gamma() {
    check(
        "tiny_adaptation_gain.toml",
        &[],
        Expect::Refused(&["controller.gamma", "at least 1e-8"]),
    );
}
