//! Hostile runs and outputs (issue 17, items 3 and 8-11) on the real
//! binary: runs too long to finish are refused before they start, with
//! their size; output folders hold one complete run or a marked partial
//! one, never a mix; interrupted runs stop cleanly; outputs never land on
//! devices, inputs or foreign folders; variant names are file names.

use crate::common;

use common::{eval_args, repo_path, run_scenario_within, run_within, stderr};
use passivity_lab::io::RunFolder;
use passivity_lab::scenario::{RunEstimate, Scenario, MAX_STEPS, RESERVED_NAMES};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const UR5: &str = "assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf";

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("outputs", name)
}

/// A point-mass scenario with the given `[simulation]` lines.
fn point_mass(simulation: &str) -> String {
    common::point_mass_hold("pm", simulation)
}

/// A one-second point-mass scenario file in `dir` with these variants
/// (PD+ with C* and with the classic factorization, alternately).
fn quick(dir: &Path, file: &str, variants: &[&str], plots: bool) -> String {
    let mut text = point_mass("duration = 1.0\nstep = 0.001");
    for (i, v) in variants.iter().enumerate() {
        let kind = ["christoffel", "classic"][i % 2];
        text += &format!("[[variants]]\nname = \"{v}\"\nfactorization = {{ kind = \"{kind}\" }}\n");
    }
    text += &format!("[output]\nplots = {plots}\n");
    write(dir, file, &text).to_str().unwrap().to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn runs_beyond_the_step_ceiling_are_refused_with_their_size() {
    let dir = scratch("ceiling");
    for (simulation, plant) in [
        ("duration = 10.0\nstep = 1e-9", "own"),
        ("duration = 1e9\nstep = 0.001", "own"),
        ("duration = 1e9\nstep = 0.001", "rapier"),
        (
            "duration = 1e5\nstep = 1e-4\nrecord_period = 1e-4",
            "rapier",
        ),
    ] {
        let text = point_mass(&format!("{simulation}\nplant = \"{plant}\""));
        let scenario = write(&dir, "long.toml", &text);
        let out = dir.join("out");
        let o = run_scenario_within(20.0, &scenario, &out);
        let err = stderr(&o);
        assert!(!o.status.success(), "{simulation} {plant}: {err}");
        for needle in [
            "long.toml:12: simulation:",
            "integration steps",
            "in memory",
            "per step measured",
            "about ",
            "--allow-long",
        ] {
            assert!(
                err.contains(needle),
                "{simulation} {plant}: no '{needle}' in {err}"
            );
        }
        assert!(!out.exists(), "nothing is written");
    }
}

#[test]
fn a_step_count_beyond_counting_is_refused_even_when_asked() {
    let dir = scratch("uncountable");
    for simulation in [
        "duration = 10.0\nstep = 5e-324",
        "duration = 1e308\nstep = 0.001\nrecord_period = 1e300\nplant = \"rapier\"",
    ] {
        let scenario = write(&dir, "tiny.toml", &point_mass(simulation));
        let o = run_within(20.0, &["run", scenario.to_str().unwrap(), "--allow-long"]);
        let err = stderr(&o);
        assert!(
            !o.status.success() && err.contains("more than a run can count"),
            "{simulation}: {err}"
        );
    }
}

#[test]
fn a_sweep_beyond_the_ceiling_is_refused() {
    let dir = scratch("sweep-ceiling");
    let scenario = write(&dir, "s.toml", &point_mass("duration = 1.0\nstep = 0.001"));
    let out = dir.join("out");
    let o = run_within(
        20.0,
        &[
            "sweep",
            scenario.to_str().unwrap(),
            "--param",
            "simulation.duration",
            "--values=1,1e9",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let err = stderr(&o);
    assert!(
        !o.status.success()
            && err.contains("over 2 runs")
            && err.contains("longest run: duration 1e9 s")
            && err.contains("--allow-long"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn non_finite_or_non_positive_steps_and_durations_name_the_key() {
    for (simulation, key) in [
        ("duration = nan", "simulation.duration"),
        ("duration = inf", "simulation.duration"),
        ("duration = -1.0", "simulation.duration"),
        ("duration = 0.0", "simulation.duration"),
        ("step = nan", "simulation.step"),
        ("step = inf", "simulation.step"),
        ("step = 0.0", "simulation.step"),
        ("step = -0.001", "simulation.step"),
    ] {
        let err = Scenario::parse(&point_mass(simulation), "t.toml")
            .err()
            .unwrap_or_else(|| panic!("{simulation} was accepted"))
            .to_string();
        assert!(err.contains(&format!("{key}:")), "{simulation}: {err}");
    }
}

#[test]
fn the_estimate_counts_steps_and_samples_and_the_flag_lifts_the_ceiling() {
    let scenario = Scenario::load(repo_path("scenarios/point_mass_torsion.toml")).unwrap();
    let e = RunEstimate::of_run(&scenario.variants().unwrap());
    assert_eq!((e.runs, e.steps, e.samples), (2, 20_000.0, 2.0 * 1001.0));
    assert!(
        e.memory_bytes > 2.0 * 1001.0 * 100.0 && e.memory_bytes < 1e7,
        "{e:?}"
    );
    assert!(e.seconds > 0.0 && e.seconds_per_step > 0.0, "{e:?}");
    assert!(scenario.check_run_size(&e, false).is_ok());

    // Twice the ceiling: refused by default, allowed when asked.
    let long = Scenario::parse(
        &point_mass(&format!(
            "duration = {}\nstep = 0.5\nrecord_period = 1e6",
            MAX_STEPS
        )),
        "long.toml",
    )
    .unwrap();
    let e = RunEstimate::of_run(&long.variants().unwrap());
    assert_eq!(e.steps, 2.0 * MAX_STEPS);
    let err = long.check_run_size(&e, false).unwrap_err().to_string();
    assert!(err.contains("2.00e8 integration steps"), "{err}");
    assert!(long.check_run_size(&e, true).is_ok());

    // A recording beyond 2 GiB within the step ceiling.
    let big = Scenario::parse(
        &point_mass("duration = 50000.0\nstep = 0.001\nrecord_period = 0.001"),
        "big.toml",
    )
    .unwrap();
    let e = RunEstimate::of_run(&big.variants().unwrap());
    assert!(e.steps < MAX_STEPS);
    let err = big.check_run_size(&e, false).unwrap_err().to_string();
    assert!(err.contains("GiB in memory"), "{err}");
}

/// The files of a folder, sorted (hidden ones included).
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn a_rerun_replaces_the_folder_as_a_whole() {
    let dir = scratch("rerun");
    let out = dir.join("out");
    let arg = out.to_str().unwrap();
    let first = quick(&dir, "first.toml", &["a", "b"], true);
    let o = run_within(60.0, &["run", &first, "--out", arg]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("b.csv").exists() && out.join("lyapunov.png").exists());
    let second = quick(&dir, "second.toml", &["c"], false);
    let o = run_within(60.0, &["run", &second, "--out", arg]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = manifest(&out);
    assert_eq!(m["complete"], true);
    let mut listed: Vec<String> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .chain(["manifest.json".to_string()])
        .collect();
    listed.sort();
    assert_eq!(
        files(&out),
        listed,
        "the folder holds exactly the manifest's files"
    );
    assert_eq!(
        files(&out),
        [
            "c.csv",
            "manifest.json",
            "scenario.resolved.toml",
            "summary.json"
        ],
        "the earlier run's CSVs and plots are gone"
    );
    assert_eq!(
        files(&dir),
        ["first.toml", "out", "second.toml"],
        "no lock, staging or set-aside folder remains"
    );
}

#[test]
fn a_folder_with_other_files_is_replaced_only_with_force() {
    let dir = scratch("foreign");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let arg = out.to_str().unwrap();
    let scenario = quick(&dir, "s.toml", &["a"], false);
    let o = run_within(60.0, &["run", &scenario, "--out", arg]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.contains("notes.txt") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(files(&out), ["notes.txt"], "nothing was touched");
    assert_eq!(files(&dir), ["out", "s.toml"]);
    let o = run_within(60.0, &["run", &scenario, "--out", arg, "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!out.join("notes.txt").exists() && out.join("manifest.json").exists());
    // Folders inside are never deleted, not even with --force.
    std::fs::create_dir_all(out.join("keep")).unwrap();
    let o = run_within(60.0, &["run", &scenario, "--out", arg, "--force"]);
    assert!(
        !o.status.success() && stderr(&o).contains("keep"),
        "{}",
        stderr(&o)
    );
    assert!(out.join("keep").is_dir());
}

/// A read-only folder of earlier results is kept unless --force: its
/// permissions did not stop the rename through its parent, so it was
/// replaced in silence.
#[test]
fn a_read_only_folder_is_replaced_only_with_force() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("read-only-out");
    let out = dir.join("out");
    let arg = out.to_str().unwrap();
    let scenario = quick(&dir, "s.toml", &["a"], false);
    let o = run_within(60.0, &["run", &scenario, "--out", arg]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read_to_string(out.join("summary.json")).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o555)).unwrap();
    let o = run_within(60.0, &["run", &scenario, "--out", arg]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.contains("is read-only") && err.contains("--force"),
        "{err}"
    );
    assert!(!err.contains("running"), "refused before the run: {err}");
    assert_eq!(
        std::fs::read_to_string(out.join("summary.json")).unwrap(),
        before
    );
    let o = run_within(60.0, &["run", &scenario, "--out", arg, "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("manifest.json").exists());
}

#[test]
fn outputs_never_land_on_the_root_the_current_folder_or_a_file() {
    let dir = scratch("dangerous-out");
    std::fs::write(dir.join("file"), "x").unwrap();
    let scenario = quick(&dir, "s.toml", &["a"], false);
    for (out, needle) in [
        ("/", "root"),
        (".", "current directory"),
        ("..", "current directory"),
        (dir.join("file").to_str().unwrap(), "not a folder"),
    ] {
        let o = run_within(60.0, &["run", &scenario, "--out", out, "--force"]);
        let err = stderr(&o);
        assert!(!o.status.success() && err.contains(needle), "{out}: {err}");
    }
    assert_eq!(std::fs::read_to_string(dir.join("file")).unwrap(), "x");
}

/// A mount point (here /proc) cannot be renamed over: `--out` on one is
/// refused before the run, naming a folder inside it. (A run into a
/// bind-mounted results folder ran to its end, then lost everything to
/// "Device or resource busy".)
#[test]
fn a_mount_point_is_refused_before_the_run() {
    let dir = scratch("mount-point");
    let scenario = quick(&dir, "s.toml", &["a"], false);
    let o = run_within(60.0, &["run", &scenario, "--out", "/proc"]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("/proc: is a mount point") && err.contains("such as /proc/proc"),
        "{err}"
    );
    assert!(!err.contains("running"), "refused before the run: {err}");
}

/// A folder holding the scenario itself is refused for that, at once: it
/// used to suggest --force, which was then refused.
#[test]
fn a_folder_holding_the_scenario_is_refused_without_suggesting_force() {
    let dir = scratch("holds-scenario");
    let scenario = quick(&dir, "s.toml", &["a"], false);
    let o = run_within(60.0, &["run", &scenario, "--out", dir.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("which this run reads"), "{err}");
    assert!(!err.contains("pass --force"), "{err}");
}

#[test]
fn leftovers_of_killed_runs_are_cleaned_up() {
    let dir = scratch("leftovers");
    // A run killed while writing, and one killed between setting the old
    // results aside and moving the new ones in (those are put back first).
    for stale in [".out.partial-4000000", ".out.old-4000001"] {
        std::fs::create_dir_all(dir.join(stale)).unwrap();
        std::fs::write(dir.join(stale).join("c_star.csv"), "t\n").unwrap();
        std::fs::write(
            dir.join(stale).join("manifest.json"),
            r#"{"complete": true, "files": ["c_star.csv"]}"#,
        )
        .unwrap();
    }
    // A lock file whose holder died: the lock went with the process.
    std::fs::write(dir.join(".out.lock"), "4000002").unwrap();
    let out = dir.join("out");
    let scenario = quick(&dir, "s.toml", &["a"], false);
    let o = run_within(60.0, &["run", &scenario, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files(&dir), ["out", "s.toml"]);
    assert_eq!(
        files(&out),
        [
            "a.csv",
            "manifest.json",
            "scenario.resolved.toml",
            "summary.json"
        ]
    );
}

#[test]
fn a_second_run_into_a_busy_folder_is_refused() {
    let dir = scratch("busy");
    // About half a second of simulation.
    let scenario = write(
        &dir,
        "slow.toml",
        &point_mass("duration = 200.0\nstep = 0.001\nrecord_period = 0.1\n[output]\nplots = false"),
    );
    let out = dir.join("out");
    let args = [
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let mut first = Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(first.stderr.take().unwrap()));
    let start = lines.next().unwrap().unwrap();
    assert!(start.starts_with("running pm"), "{start}");
    let other = quick(&dir, "other.toml", &["other"], false);
    let second = Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(["run", &other, "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let err = stderr(&second);
    assert!(
        !second.status.success() && err.contains("another run (process"),
        "{err}"
    );
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(first.wait().unwrap().success(), "{rest:?}");
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"pm\""), "the first run's results, alone");
    assert!(!out.join("other.csv").exists());
}

#[test]
fn a_run_that_never_commits_leaves_the_previous_results() {
    let dir = scratch("uncommitted");
    let out = dir.join("out");
    let folder = RunFolder::create(&out, false, &[]).unwrap();
    std::fs::write(folder.path().join("a.csv"), "1").unwrap();
    folder.commit(true).unwrap();
    let folder = RunFolder::create(&out, false, &[]).unwrap();
    std::fs::write(folder.path().join("b.csv"), "2").unwrap();
    let busy = RunFolder::create(&out, false, &[]).unwrap_err().to_string();
    assert!(busy.contains("another run"), "{busy}");
    drop(folder); // a run that failed while writing
    assert_eq!(files(&out), ["a.csv", "manifest.json"]);
    assert_eq!(files(&dir), ["out"]);
}

#[test]
fn a_sweep_folder_has_a_manifest() {
    let dir = scratch("sweep-manifest");
    let scenario = quick(&dir, "s.toml", &["a"], false);
    let out = dir.join("out");
    let o = run_within(
        60.0,
        &[
            "sweep",
            &scenario,
            "--param",
            "controller.kp",
            "--values=5,10",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        manifest(&out)["files"],
        serde_json::json!(["rows.jsonl", "sweep.csv", "sweep.json"])
    );
    assert_eq!(files(&dir), ["out", "s.toml"]);
}

/// Starts `args` and returns the child once it printed its start line
/// (the output folder is locked and the simulation, or the timing, starts).
fn start(args: &[&str]) -> std::process::Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
    assert!(
        ["running", "sweeping", "timing"]
            .iter()
            .any(|s| line.starts_with(s)),
        "{line}"
    );
    // Keep reading so the child never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    child
}

fn signal(child: &std::process::Child, name: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{name}");
}

/// Waits at most `seconds` for `child` to exit.
fn exit_code_within(child: &mut std::process::Child, seconds: f64) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed().as_secs_f64() > seconds {
            let _ = child.kill();
            panic!("still running {seconds} s after the interrupt");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A point-mass scenario of two variants that would take minutes.
fn endless(dir: &Path) -> String {
    let mut text = point_mass("duration = 20000.0\nstep = 0.001\nrecord_period = 1.0");
    text += "[[variants]]\nname = \"first\"\n[[variants]]\nname = \"second\"\nfactorization = { kind = \"classic\" }\n";
    write(dir, "endless.toml", &text)
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn an_interrupted_run_writes_what_it_recorded_marked_incomplete() {
    for sig in ["INT", "TERM"] {
        let dir = scratch(&format!("interrupt-{sig}"));
        let scenario = endless(&dir);
        let out = dir.join("out");
        let mut child = start(&["run", &scenario, "--out", out.to_str().unwrap()]);
        std::thread::sleep(Duration::from_millis(300));
        signal(&child, sig);
        assert_eq!(exit_code_within(&mut child, 10.0), Some(130), "SIG{sig}");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(summary["complete"], false);
        assert_eq!(summary["interrupted"]["variant"], "first");
        let reached = summary["interrupted"]["time_reached_s"].as_f64().unwrap();
        assert!(reached > 0.0 && reached < 20000.0, "{reached}");
        assert_eq!(summary["not_run"], serde_json::json!(["second"]));
        let first = &summary["variants"]["first"];
        assert_eq!(
            (&first["completed"], &first["interrupted"]),
            (&false.into(), &true.into())
        );
        assert_eq!(manifest(&out)["complete"], false);
        // The CSV ends at the time reached.
        let csv = std::fs::read_to_string(out.join("first.csv")).unwrap();
        let last: f64 = csv
            .lines()
            .last()
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            (last - reached).abs() <= 1e-12 * reached,
            "{last} vs {reached}"
        );
        assert!(!out.join("second.csv").exists());
        assert_eq!(
            files(&dir),
            ["endless.toml", "out"],
            "no temporary folder remains"
        );
    }
}

/// An interrupt delivered twice at once (GNU `timeout` signals the
/// process and then its group) is one request: the run still writes what
/// it recorded, marked incomplete. (It used to take the repeat for a second
/// Ctrl-C and exit with nothing written.)
#[test]
fn an_interrupt_delivered_twice_at_once_still_writes_the_results() {
    let dir = scratch("interrupt-twice");
    let scenario = endless(&dir);
    let out = dir.join("out");
    let mut child = start(&["run", &scenario, "--out", out.to_str().unwrap()]);
    signal(&child, "INT");
    signal(&child, "INT");
    assert_eq!(exit_code_within(&mut child, 10.0), Some(130));
    assert_eq!(manifest(&out)["complete"], false);
    assert!(out.join("first.csv").is_file());
    assert_eq!(files(&dir), ["endless.toml", "out"]);
}

/// `bench --scaling` interrupted writes the table, figure and slopes of
/// what it measured (it lost them all).
#[test]
fn an_interrupted_scaling_bench_keeps_the_timings_measured() {
    let dir = scratch("interrupt-scaling");
    let out = dir.join("out");
    let mut child = start(&[
        "bench",
        "--scaling",
        "--out",
        out.to_str().unwrap(),
        "--sizes",
        "8,16,32,64,128,256",
    ]);
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "INT");
    assert_eq!(exit_code_within(&mut child, 20.0), Some(130));
    let csv = std::fs::read_to_string(out.join("cost.csv")).unwrap();
    let rows = csv.lines().count() - 1;
    assert!(rows > 0, "{csv}");
    assert!(out.join("cost.png").is_file() && out.join("cost.svg").is_file());
}

#[test]
fn an_interrupted_sweep_marks_its_table_incomplete() {
    let dir = scratch("interrupt-sweep");
    let scenario = endless(&dir);
    let out = dir.join("out");
    let mut child = start(&[
        "sweep",
        &scenario,
        "--param",
        "controller.kp",
        "--values=5,10",
        "--out",
        out.to_str().unwrap(),
    ]);
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "INT");
    assert_eq!(exit_code_within(&mut child, 10.0), Some(130));
    let sweep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(
        (&sweep["complete"], &sweep["runs_finished"]),
        (&false.into(), &0.into())
    );
    assert_eq!(manifest(&out)["complete"], false);
    assert_eq!(files(&dir), ["endless.toml", "out"]);
}

#[test]
fn eval_never_replaces_a_device_a_folder_a_pipe_or_its_input() {
    let dir = scratch("eval-out");
    let input = dir.join("in.json");
    std::fs::copy(repo_path("tests/fixtures/reference/ur5.json"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let urdf = repo_path(UR5);
    let pipe = dir.join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .unwrap()
        .success());
    std::fs::create_dir(dir.join("folder")).unwrap();
    std::fs::hard_link(&input, dir.join("hard.json")).unwrap();
    std::os::unix::fs::symlink(&input, dir.join("link.json")).unwrap();
    let same = format!(
        "{}/../{}/in.json",
        dir.display(),
        dir.file_name().unwrap().to_string_lossy()
    );
    for (output, needle) in [
        (pipe.clone(), "not a regular file"),
        (dir.join("folder"), "not a regular file"),
        (input.clone(), "same file as --input"),
        (PathBuf::from(&same), "same file as --input"),
        (dir.join("hard.json"), "same file as --input"),
        (dir.join("link.json"), "same file as --input"),
        (urdf.clone(), "same file as --urdf"),
    ] {
        let o = run_within(
            60.0,
            &eval_args(
                urdf.to_str().unwrap(),
                input.to_str().unwrap(),
                output.to_str().unwrap(),
            ),
        );
        let err = stderr(&o);
        assert!(
            !o.status.success() && err.contains(needle),
            "{}: {err}",
            output.display()
        );
    }
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "the input is intact"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&pipe).unwrap().file_type().is_fifo());
    // A symbolic link to another regular file is written through.
    let target = dir.join("target.json");
    std::fs::write(&target, "old").unwrap();
    std::os::unix::fs::symlink(&target, dir.join("out-link.json")).unwrap();
    let o = run_within(
        60.0,
        &eval_args(
            urdf.to_str().unwrap(),
            input.to_str().unwrap(),
            dir.join("out-link.json").to_str().unwrap(),
        ),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(dir.join("out-link.json"))
        .unwrap()
        .is_symlink());
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("tau_rnea"));
}

#[test]
fn write_atomically_never_renames_over_something_else_than_a_file() {
    let dir = scratch("atomic");
    let pipe = dir.join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .unwrap()
        .success());
    std::fs::create_dir(dir.join("folder")).unwrap();
    for path in [pipe.clone(), dir.join("folder")] {
        let err = passivity_lab::io::write_atomically(&path, b"x").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&pipe).unwrap().file_type().is_fifo());
    assert!(dir.join("folder").is_dir());
    assert_eq!(files(&dir), ["folder", "pipe"], "no temporary file remains");
}

/// A point-mass scenario whose variants have these names (TOML strings).
fn with_variants(names: &[&str]) -> String {
    let mut text = point_mass("duration = 0.01");
    for n in names {
        text += &format!("[[variants]]\nname = {n}\n");
    }
    text
}

#[test]
fn variant_names_that_cannot_be_file_names_are_refused_up_front() {
    let long = format!("\"{}\"", "v".repeat(300));
    for (names, line, needle) in [
        (vec!["\"\""], 15, "empty"),
        (vec![long.as_str()], 15, "300 characters"),
        (vec!["\"a\\u0000b\""], 15, "'\\0'"),
        (vec!["\"a/b\""], 15, "'/'"),
        (vec!["\"a\\\\b\""], 15, "'\\\\'"),
        (vec!["\"é\""], 15, "'é'"),
        (vec!["\"a b\""], 15, "' '"),
        (vec!["\".\""], 15, "starts with '.'"),
        (vec!["\"..\""], 15, "starts with '.'"),
        (vec!["\"Summary\""], 15, "output file"),
        (vec!["\"scenario.resolved\""], 15, "output file"),
        (vec!["\"lyapunov\""], 15, "output file"),
        (vec!["\"manifest\""], 15, "output file"),
        (vec!["\"a\"", "\"a\""], 17, "same file as the variant \"a\""),
        (vec!["\"C_star\"", "\"c_STAR\""], 17, "letter case"),
    ] {
        let text = with_variants(&names);
        let err = Scenario::parse(&text, "v.toml")
            .err()
            .map(|e| e.to_string());
        let err = err.unwrap_or_else(|| panic!("{names:?} was accepted"));
        let index = names.len() - 1;
        assert!(
            err.starts_with(&format!("v.toml:{line}: variants[{index}].name: "))
                && err.contains(needle),
            "{names:?}: {err}"
        );
        assert!(err.len() < 400, "the message stays readable: {err}");
    }
    let fine = with_variants(&[
        "\"c_star\"",
        "\"torsion-beta.5\"",
        &format!("\"{}\"", "x".repeat(64)),
    ]);
    assert!(Scenario::parse(&fine, "v.toml").is_ok());
    // The scenario's own name names the output folder.
    let err = Scenario::parse(
        &point_mass("").replace("name = \"pm\"", "name = \"a\\u0000\""),
        "s.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("s.toml:1: name: ") && err.contains("'\\0'"),
        "{err}"
    );
}

#[test]
fn a_bad_name_fails_before_the_run_and_writes_nothing() {
    let dir = scratch("bad-name");
    let mut text = point_mass("duration = 1000.0\nstep = 0.001");
    text += "[[variants]]\nname = \"fine\"\n[[variants]]\nname = \"bad/name\"\n";
    let scenario = write(&dir, "s.toml", &text);
    let out = dir.join("out");
    let o = run_scenario_within(5.0, &scenario, &out);
    assert!(
        !o.status.success() && stderr(&o).contains("variants[1].name"),
        "{}",
        stderr(&o)
    );
    assert_eq!(files(&dir), ["s.toml"]);
    // A sweep that sets a name checks it too.
    let good = quick(&dir, "q.toml", &["a"], false);
    let o = run_within(
        20.0,
        &[
            "sweep",
            &good,
            "--param",
            "variants[0].name",
            "--values=\"ok\",\"no/no\"",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(
        !o.status.success() && stderr(&o).contains("variants[0].name"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

/// Every file a run writes besides its variants' CSVs has a name no variant
/// may take (`RESERVED_NAMES`): the default run writes every plot of a
/// joint-space run, `passivity` among them (a variant could take that name).
#[test]
fn the_files_a_run_writes_are_names_no_variant_may_take() {
    let dir = scratch("reserved");
    let out = dir.join("out");
    let o = common::run(&["run", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let scenario = Scenario::load(out.join("scenario.resolved.toml")).unwrap();
    let variants: Vec<String> = scenario
        .file
        .variants
        .iter()
        .map(|v| v.name.clone())
        .collect();
    let mut stems: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let ext = name.rfind('.').unwrap();
            name[..ext].to_string()
        })
        .filter(|stem| !variants.contains(stem))
        .collect();
    stems.sort();
    stems.dedup();
    assert!(stems.contains(&"passivity".to_string()), "{stems:?}");
    for stem in &stems {
        assert!(
            RESERVED_NAMES.contains(&stem.as_str()),
            "{stem} is written by a run but a variant may take it: {stems:?}"
        );
    }
}
