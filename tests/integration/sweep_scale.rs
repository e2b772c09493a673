//! Sweeps that scale (issue 16): grids over several keys, seeded samples,
//! rows that rebuild their run, shards and their merge, and bad input
//! refused before anything runs.

use crate::common;

use common::{run, stderr};
use passivity_lab::scenario::{stable_hash, Scenario};
use passivity_lab::sweep::{run_one, Selection, SweepPlan, SweepSpec, TIMING_COLUMNS};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::AtomicBool;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("sweep-scale", name)
}

/// The paper's point mass (C* and beta = -5), cut to `duration` seconds,
/// without plots, written into `dir`.
fn point_mass(dir: &Path, duration: f64) -> PathBuf {
    let text = passivity_lab::scenario::DEFAULT_SCENARIO
        .replace("duration = 10.0", &format!("duration = {duration}"));
    let path = dir.join("pm.toml");
    std::fs::write(&path, format!("{text}\n[output]\nplots = false\n")).unwrap();
    path
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The spectrum's numbers are metrics a sweep can plot (a one-step probe
/// left them null, and `--metric spectrum.torque.centroid_hz` was refused).
#[test]
fn the_spectrum_numbers_are_metrics() {
    let dir = scratch("spectrum-metric");
    let scenario = Scenario::load(point_mass(&dir, 0.2)).unwrap();
    let spec = SweepSpec::parse(&strings(&["controller.kd=1,2"]), &[], None, 0).unwrap();
    let names = SweepPlan::build(&scenario, spec).unwrap().metric_names();
    for name in ["spectrum.torque.centroid_hz", "final_tracking_error"] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
}

#[test]
fn a_grid_is_the_cartesian_product_and_each_row_rebuilds_its_run() {
    let dir = scratch("grid");
    let scenario = Scenario::load(point_mass(&dir, 0.2)).unwrap();
    let spec = SweepSpec::parse(
        &strings(&[
            "variants[1].factorization.beta=0,-2,-5",
            "controller.kd=1,2",
        ]),
        &[],
        None,
        0,
    )
    .unwrap();
    assert_eq!(spec.len(), 6);
    let plan = SweepPlan::build(&scenario, spec.clone()).unwrap();
    assert_eq!(plan.len(), 12);
    let values: Vec<Vec<String>> = plan.points.iter().map(|p| p.values.clone()).collect();
    assert_eq!(
        values,
        [
            ["0", "1"],
            ["0", "2"],
            ["-2", "1"],
            ["-2", "2"],
            ["-5", "1"],
            ["-5", "2"]
        ]
        .map(|p| strings(&p))
    );
    let table = plan.clone().run(2, &|_, _| {}, &AtomicBool::new(false));
    assert!(table.complete() && table.missing().is_empty());
    assert_eq!(table.rows.len(), 12);
    // sweep.json is written as it is serialized, the text of table.json().
    table.write(&dir, &[]).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("sweep.json")).unwrap(),
        serde_json::to_string_pretty(&table.json()).unwrap()
    );
    for (i, row) in table.rows.iter().enumerate() {
        assert_eq!((row.run, row.point), (i, i / 2));
        assert_eq!(row.values, values[i / 2]);
        assert_eq!(row.variant, ["c_star", "torsion_beta_minus_5"][i % 2]);
        assert_eq!(row.status(), "finished");
    }
    // The points' scenarios differ, so do their hashes; C* does not feel beta.
    assert_ne!(table.rows[0].scenario_hash, table.rows[2].scenario_hash);
    assert_eq!(
        table.metric(0, "c_star", "final_tracking_error"),
        table.metric(4, "c_star", "final_tracking_error")
    );
    assert_ne!(
        table.metric(0, "torsion_beta_minus_5", "max_abs_q[2]"),
        table.metric(4, "torsion_beta_minus_5", "max_abs_q[2]")
    );
    // One run alone, from the scenario and the spec only, gives its row.
    let alone = run_one(&scenario, &spec, 9, &AtomicBool::new(false)).unwrap();
    assert_eq!(alone.without_timing(), table.rows[9].without_timing());
    let back = passivity_lab::sweep::SweepRow::from_json(&alone.to_json()).unwrap();
    assert_eq!(back, alone);
    assert!(run_one(&scenario, &spec, 12, &AtomicBool::new(false))
        .unwrap_err()
        .to_string()
        .contains("out of range"));
    // The plan's hash is a function of the scenario and the spec.
    let again = SweepPlan::build(&scenario, spec.clone()).unwrap();
    assert_eq!(again.hash, plan.hash);
    let other = SweepSpec::parse(&strings(&["controller.kd=1,2"]), &[], None, 0).unwrap();
    assert_ne!(SweepPlan::build(&scenario, other).unwrap().hash, plan.hash);
}

#[test]
fn samples_are_reproducible_from_the_seed_and_within_bounds() {
    let sample = |spec: &[&str], n: usize, seed: u64| {
        SweepSpec::parse(&[], &strings(spec), Some(n), seed).unwrap()
    };
    let numbers = |spec: &SweepSpec, k: usize| -> Vec<f64> {
        spec.points()
            .iter()
            .map(|p| p.values[k].parse().unwrap())
            .collect()
    };
    let spec = sample(
        &[
            "estimate.scale=uniform(0.5,1.5)",
            "controller.kd=loguniform(0.1,10)",
            "controller.lambda=normal(2,0.5)",
        ],
        400,
        7,
    );
    let (u, l, n) = (numbers(&spec, 0), numbers(&spec, 1), numbers(&spec, 2));
    assert!(u.iter().all(|x| (0.5..1.5).contains(x)), "{u:?}");
    assert!(l.iter().all(|x| (0.1..=10.0).contains(x)), "{l:?}");
    // Spread over the range, and log-uniform: half the draws below 1.
    assert!(u.iter().any(|&x| x < 0.6) && u.iter().any(|&x| x > 1.4));
    let below = l.iter().filter(|&&x| x < 1.0).count();
    assert!((150..250).contains(&below), "{below}");
    let mean = n.iter().sum::<f64>() / n.len() as f64;
    let sd = (n.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n.len() as f64).sqrt();
    assert!(
        (mean - 2.0).abs() < 0.1 && (sd - 0.5).abs() < 0.08,
        "{mean} {sd}"
    );
    // The same seed gives the same draws; each point alone too; another
    // seed others; every point has its own seed.
    assert_eq!(
        sample(&["estimate.scale=uniform(0.5,1.5)"], 400, 7).points()[17],
        SweepSpec::parse(
            &[],
            &strings(&["estimate.scale=uniform(0.5,1.5)"]),
            Some(400),
            7
        )
        .unwrap()
        .point(17)
    );
    assert_eq!(numbers(&spec, 0), u);
    assert_eq!(spec.point(123), spec.points()[123]);
    assert_ne!(
        numbers(&sample(&["estimate.scale=uniform(0.5,1.5)"], 400, 8), 0),
        u
    );
    let mut seeds: Vec<u64> = spec.points().iter().map(|p| p.seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), 400);
    // Grid x samples: every grid point gets its draws.
    let both = SweepSpec::parse(
        &strings(&["controller.kd=1,2"]),
        &strings(&["estimate.scale=uniform(0.5,1.5)"]),
        Some(3),
        7,
    )
    .unwrap();
    let kd: Vec<String> = both.points().iter().map(|p| p.values[0].clone()).collect();
    assert_eq!(kd, strings(&["1", "1", "1", "2", "2", "2"]));
}

#[test]
fn the_hash_is_fnv1a_and_shards_partition_the_runs() {
    // Published FNV-1a 64-bit test vectors.
    assert_eq!(stable_hash(""), "cbf29ce484222325");
    assert_eq!(stable_hash("a"), "af63dc4c8601ec8c");
    assert_eq!(stable_hash("foobar"), "85944171f73967e8");
    for total in [0, 1, 7, 10, 33] {
        for n in 1..=5 {
            let mut all: Vec<usize> = (1..=n)
                .flat_map(|k| {
                    Selection::shard(&format!("{k}/{n}"))
                        .unwrap()
                        .indices(total)
                })
                .collect();
            all.sort_unstable();
            assert_eq!(
                all,
                (0..total).collect::<Vec<_>>(),
                "{total} runs, {n} shards"
            );
        }
        // `contains` (which runs a sweep warns about) agrees with `indices`
        // on every run of the plan.
        let selections = [
            Selection::All,
            Selection::shard("2/3").unwrap(),
            Selection::Runs(vec![5, 1, 5, 40]),
        ];
        for selection in &selections {
            let selected = selection.indices(total);
            for run in 0..total {
                assert_eq!(
                    selection.contains(run),
                    selected.contains(&run),
                    "{selection:?}, run {run} of {total}"
                );
            }
        }
    }
    for bad in ["0/3", "4/3", "1/0", "x/2", "3"] {
        let e = Selection::shard(bad).unwrap_err().to_string();
        assert!(e.contains("--shard") && e.contains(bad), "{e}");
    }
}

/// sweep.csv without the timing columns.
fn csv_without_timing(dir: &Path) -> Vec<Vec<String>> {
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !TIMING_COLUMNS.contains(&header[i]))
        .collect();
    std::iter::once(header.join(","))
        .chain(lines.map(String::from))
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            keep.iter().map(|&i| cells[i].to_string()).collect()
        })
        .collect()
}

/// sweep.json's runs without the timing numbers.
fn runs_without_timing(dir: &Path) -> Vec<Value> {
    let mut json = read_json(&dir.join("sweep.json"));
    let mut runs = json["runs"].as_array_mut().unwrap().clone();
    for r in &mut runs {
        for c in TIMING_COLUMNS {
            r["summary"].as_object_mut().unwrap().remove(c);
        }
    }
    runs
}

const GRID: [&str; 10] = [
    "--grid",
    "variants[1].factorization.beta=0,-5",
    "--grid",
    "controller.kd=1,2",
    "--sample",
    "estimate.scale=uniform(0.8,1.2)",
    "--samples",
    "2",
    "--seed",
    "7",
];

fn sweep(scenario: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", scenario.to_str().unwrap()];
    args.extend(GRID);
    args.extend(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    run(&args)
}

#[test]
fn merged_shards_equal_the_unsharded_table_row_for_row() {
    let dir = scratch("merge");
    let scenario = point_mass(&dir, 0.3);
    let whole = dir.join("whole");
    let o = sweep(&scenario, &whole, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    // The last progress line says the total time, not an ETA of zero.
    assert!(
        err.contains("16/16 runs done in ") && !err.contains("16/16 runs done, "),
        "{err}"
    );
    let json = read_json(&whole.join("sweep.json"));
    assert_eq!(
        (&json["complete"], &json["runs_total"]),
        (&true.into(), &16.into())
    );
    assert_eq!(json["keys"][2], "estimate.scale");
    let shards: Vec<PathBuf> = (1..=3).map(|k| dir.join(format!("shard{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let o = sweep(&scenario, out, &["--shard", &format!("{}/3", k + 1)]);
        assert!(o.status.success(), "{}", stderr(&o));
        let shard = read_json(&out.join("sweep.json"));
        assert_eq!(shard["selection"], format!("shard {}/3", k + 1));
        assert_eq!(
            (&shard["complete"], &shard["selection_complete"]),
            (&false.into(), &true.into())
        );
        assert_eq!(shard["plan_hash"], json["plan_hash"]);
    }
    let merged = dir.join("merged");
    // Given in any order, and one shard twice: the same table.
    let o = run(&[
        "sweep",
        "merge",
        shards[2].to_str().unwrap(),
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        shards[0].join("sweep.json").to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(csv_without_timing(&merged), csv_without_timing(&whole));
    assert_eq!(csv_without_timing(&merged).len(), 17);
    assert_eq!(runs_without_timing(&merged), runs_without_timing(&whole));
    let m = read_json(&merged.join("sweep.json"));
    assert_eq!(
        (&m["complete"], &m["runs_missing"]),
        (&true.into(), &Value::Array(vec![]))
    );
    // One run again, alone: its row, and its scenario to `run`.
    let one = dir.join("one");
    let o = sweep(&scenario, &one, &["--run-index", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        runs_without_timing(&one),
        [runs_without_timing(&whole)[5].clone()]
    );
    let resolved = std::fs::read_to_string(one.join("scenario.resolved.toml")).unwrap();
    let point = &json["runs"][5]["values"];
    assert!(
        resolved.contains(&format!("scale = {}", point[2].as_str().unwrap())),
        "{resolved}"
    );
    assert!(resolved.contains("kd = 2"), "{resolved}");
}

#[test]
fn a_merge_with_a_shard_missing_names_the_missing_runs_and_is_incomplete() {
    let dir = scratch("missing");
    let scenario = point_mass(&dir, 0.2);
    let shards: Vec<PathBuf> = (1..=3).map(|k| dir.join(format!("shard{k}"))).collect();
    for k in [0, 2] {
        let o = sweep(&scenario, &shards[k], &["--shard", &format!("{}/3", k + 1)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let merged = dir.join("merged");
    let o = run(&[
        "sweep",
        "merge",
        shards[0].to_str().unwrap(),
        shards[2].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.contains("5 of 16 runs missing") && err.contains("runs 1, 4, 7"),
        "{err}"
    );
    let m = read_json(&merged.join("sweep.json"));
    assert_eq!(m["complete"], false);
    assert_eq!(m["runs_missing"], serde_json::json!([1, 4, 7, 10, 13]));
    assert_eq!(read_json(&merged.join("manifest.json"))["complete"], false);
    // A table of another plan (another seed) is refused.
    let other = dir.join("other");
    let mut args = vec!["sweep", scenario.to_str().unwrap()];
    args.extend(&GRID[..9]);
    args.extend(["8", "--shard", "2/3", "--out", other.to_str().unwrap()]);
    assert!(run(&args).status.success());
    let o = run(&[
        "sweep",
        "merge",
        shards[0].to_str().unwrap(),
        other.to_str().unwrap(),
        "--out",
        dir.join("refused").to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.contains("different sweeps"),
        "{err}"
    );
    assert!(!dir.join("refused").exists());
    // The same run with another result is refused.
    let json = shards[0].join("sweep.json");
    let mut forged = read_json(&json);
    forged["runs"][0]["summary"]["final_tracking_error"] = 123.0.into();
    let copy = copy_folder(&shards[0], &dir.join("forged")).join("sweep.json");
    std::fs::write(&copy, forged.to_string()).unwrap();
    let o = run(&[
        "sweep",
        "merge",
        json.to_str().unwrap(),
        copy.to_str().unwrap(),
        "--out",
        dir.join("refused").to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.contains("run 0 differs"),
        "{err}"
    );
}

#[test]
fn bad_input_is_refused_before_any_run_naming_the_argument() {
    let dir = scratch("bad");
    let scenario = point_mass(&dir, 0.2);
    let s = scenario.to_str().unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let controller_line = std::fs::read_to_string(&scenario)
        .unwrap()
        .lines()
        .position(|l| l == "[controller]")
        .unwrap()
        + 1;
    // A key the file leaves out, named once, at its table's line.
    let unknown = format!(
        "pm.toml:{controller_line}: controller.kdd: not a key this scenario can set: unknown field `kdd`"
    );
    let cases: [(&[&str], &str); 14] = [
        (
            // A later point out of range: named with its point and values.
            &["--sample", "estimate.scale=normal(1,5)", "--samples", "50"],
            "estimate.scale: must be a positive number, at most 1e3 (at point ",
        ),
        (&["--grid", "controller.kdd=1,2"], &unknown),
        // No argument was given: none is quoted (it said "--grid ''").
        (
            &[],
            "error: nothing to vary: give --param/--values, --grid or --sample",
        ),
        (&["--grid", "nothing.here=1"], "nothing.here"),
        (
            &["--param", "estimate.scael", "--values=1"],
            "estimate.scael",
        ),
        (&["--grid", "controller.kd="], "controller.kd="),
        (&["--grid", "controller.kd=1,,2"], "value 2 is empty"),
        (
            &["--sample", "estimate.scale=uniform(2,1)", "--samples", "3"],
            "LO < HI",
        ),
        (
            &["--sample", "estimate.scale=gauss(0,1)", "--samples", "3"],
            "gauss",
        ),
        (
            &["--sample", "estimate.scale=uniform(0.5,1.5)"],
            "--samples",
        ),
        (
            &["--grid", "controller.kd=1", "--shard", "0/3"],
            "--shard '0/3'",
        ),
        (
            &["--grid", "controller.kd=1", "--shard", "4/3"],
            "--shard '4/3'",
        ),
        (
            &["--grid", "controller.kd=1", "--shard", "1/0"],
            "--shard '1/0'",
        ),
        (
            &["--grid", "controller.kd=1", "--run-index", "2"],
            "--run-index",
        ),
    ];
    for (args, named) in cases {
        let mut all = vec!["sweep", s];
        all.extend(args);
        all.extend(["--out", o]);
        let result = run(&all);
        let err = stderr(&result);
        assert!(
            !result.status.success() && err.contains(named),
            "{args:?}: {err}"
        );
        assert!(!err.contains("runs done"), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} created the output folder");
    }
    // A point's error gives the line of the user's file, not of the point's
    // text it was found in (third probe: `controller.kd` at line 5 of a
    // file that gives it at line 11, a period at line 40 of 24).
    let text = std::fs::read_to_string(&scenario).unwrap();
    let line_of = |start: &str| 1 + text.lines().position(|l| l.starts_with(start)).unwrap();
    for (grid, at) in [
        (
            "controller.kd=1,-5",
            format!("{s}:{}: controller.kd", line_of("kd =")),
        ),
        (
            "simulation.record_period=0.01,0.0025",
            format!("{s}:{}: simulation.record_period", line_of("[simulation]")),
        ),
    ] {
        let err = stderr(&run(&["sweep", s, "--grid", grid, "--out", o]));
        assert!(
            err.contains(&at) && err.contains("(at point 1 of the sweep"),
            "{grid}: {err}"
        );
    }
}

#[test]
fn a_diverging_run_is_a_row_marked_diverged() {
    let dir = scratch("diverge");
    let scenario = dir.join("stiff.toml");
    std::fs::write(
        &scenario,
        common::point_mass_hold(
            "stiff",
            "duration = 1.0\nstep = 0.01\n[output]\nplots = false",
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let o = run(&[
        "sweep",
        scenario.to_str().unwrap(),
        "--grid",
        "controller.kp=10,1e8",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.contains("1 of 2 runs diverged"),
        "{err}"
    );
    let json = read_json(&out.join("sweep.json"));
    assert_eq!(json["complete"], true);
    let status: Vec<&str> = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(status, ["finished", "diverged"]);
    assert!(json["runs"][1]["summary"]["divergence"].is_string());
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert!(
        csv.lines().nth(2).unwrap().contains(",diverged,1,1,"),
        "{csv}"
    );
}

/// A plan's hashes for a scenario of `benches/models/serial7.urdf` copied
/// beside it into `dir` (relative path), after `edit` of the URDF's text.
fn hashes_with_robot(dir: &Path, edit: impl Fn(String) -> String) -> (String, Vec<String>) {
    let urdf = std::fs::read_to_string(common::repo_path("benches/models/serial7.urdf")).unwrap();
    std::fs::write(dir.join("robot.urdf"), edit(urdf)).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        "name = \"robot\"\n[robot]\nurdf = \"robot.urdf\"\n[controller]\nkind = \"pd_plus\"\n\
         kp = 10.0\nkd = 1.0\n[reference]\nkind = \"hold\"\nq = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]\n[simulation]\nduration = 0.01\n",
    )
    .unwrap();
    let scenario = Scenario::load(&path).unwrap();
    let spec = SweepSpec::parse(&strings(&["controller.kd=1,2"]), &[], None, 0).unwrap();
    let plan = SweepPlan::build(&scenario, spec).unwrap();
    (plan.hash, plan.point_hashes)
}

#[test]
fn the_hashes_follow_the_robot_files_content_not_its_place() {
    let (a, b) = (scratch("robot-a"), scratch("robot-b"));
    let same = |t: String| t;
    let original = hashes_with_robot(&a, same);
    // The same files in another folder: the same hashes.
    assert_eq!(hashes_with_robot(&b, same), original);
    // The robot edited under the same path (link l1 1 kg heavier): every
    // hash changes.
    let heavier = hashes_with_robot(&b, |t| {
        t.replace("<mass value=\"1.1984\"", "<mass value=\"2.1984\"")
    });
    assert_ne!(heavier.0, original.0);
    for (edited, before) in heavier.1.iter().zip(&original.1) {
        assert_ne!(edited, before);
    }
}

/// Copies the files of the folder `from` into a new folder `to`; returns `to`.
fn copy_folder(from: &Path, to: &Path) -> PathBuf {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    to.to_path_buf()
}

/// `sweep merge` of `tables` into `out`: its exit status and stderr.
fn merge(tables: &[&Path], out: &Path) -> (bool, String) {
    let mut args = vec!["sweep", "merge"];
    args.extend(tables.iter().map(|t| t.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    let o = run(&args);
    (o.status.success(), stderr(&o))
}

/// Issue 38 B: `sweep merge` trusted its shards. It refuses a shard folder
/// without a manifest, a row whose point contradicts its run index, and a
/// scenario hash that differs between the runs of one point, naming the
/// shard and the run.
#[test]
fn merge_refuses_a_shard_without_manifest_a_moved_row_and_an_edited_hash() {
    let dir = scratch("tampered");
    let scenario = point_mass(&dir, 0.05);
    let shards: Vec<PathBuf> = (1..=2).map(|k| dir.join(format!("shard{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let o = sweep(&scenario, out, &["--shard", &format!("{}/2", k + 1)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (ok, err) = merge(&[&shards[0], &shards[1]], &dir.join("merged"));
    assert!(ok, "{err}");

    // (1) No manifest.json: not a finished output folder.
    let bare = copy_folder(&shards[0], &dir.join("bare"));
    std::fs::remove_file(bare.join("manifest.json")).unwrap();
    let (ok, err) = merge(&[&bare, &shards[1]], &dir.join("refused"));
    assert!(
        !ok && err.contains(&format!("{}: no manifest.json", bare.display())),
        "{err}"
    );
    assert!(!dir.join("refused").exists());
    // Given as its table, the table is named, then its folder.
    let table = bare.join("sweep.json");
    let (ok, err) = merge(&[&table, &shards[1]], &dir.join("refused"));
    let said = format!(
        "{}: its folder {}: no manifest.json",
        table.display(),
        bare.display()
    );
    assert!(!ok && err.contains(&said), "{err}");
    // A path that does not exist is said to be missing (it was blamed on a
    // missing manifest in its parent folder).
    let missing = dir.join("no-such-shard");
    let (ok, err) = merge(&[&missing, &shards[1]], &dir.join("refused"));
    let said = format!("{}: no such file or folder", missing.display());
    assert!(!ok && err.contains(&said), "{err}");

    // (1b) A run without summary metrics (`"summary": null`): refused as
    // such, not as an unknown --metric.
    let nulled = copy_folder(&shards[0], &dir.join("nulled"));
    let mut json = read_json(&nulled.join("sweep.json"));
    json["runs"][0]["summary"] = Value::Null;
    std::fs::write(nulled.join("sweep.json"), json.to_string()).unwrap();
    let (ok, err) = merge(&[&nulled, &shards[1]], &dir.join("refused"));
    let said = format!(
        "{}: a run's 'summary' is not an object of metrics",
        nulled.join("sweep.json").display()
    );
    assert!(
        !ok && err.contains(&said) && !err.contains("--metric"),
        "{err}"
    );
    assert!(!dir.join("refused").exists());

    // (2) Run 0 claims point 1: sweep.json and sweep.csv would disagree.
    let moved = copy_folder(&shards[0], &dir.join("moved"));
    let mut json = read_json(&moved.join("sweep.json"));
    assert_eq!(
        (&json["runs"][0]["run"], &json["runs"][0]["point"]),
        (&0.into(), &0.into())
    );
    json["runs"][0]["point"] = 1.into();
    std::fs::write(moved.join("sweep.json"), json.to_string()).unwrap();
    let (ok, err) = merge(&[&moved, &shards[1]], &dir.join("refused"));
    assert!(
        !ok && err.contains(&format!(
            "{}: run 0: its point 1",
            moved.join("sweep.json").display()
        )) && err.contains("contradicts its run index"),
        "{err}"
    );
    assert!(!dir.join("refused").exists());

    // (3) Run 0's scenario hash edited: recomputed from the spec and the
    // scenario sweep.json keeps, its point hashes otherwise.
    let rehashed = copy_folder(&shards[0], &dir.join("rehashed"));
    let mut json = read_json(&rehashed.join("sweep.json"));
    json["runs"][0]["scenario_hash"] = "0123456789abcdef".into();
    std::fs::write(rehashed.join("sweep.json"), json.to_string()).unwrap();
    let (ok, err) = merge(&[&rehashed, &shards[1]], &dir.join("refused"));
    assert!(
        !ok && err.contains(&format!(
            "{}: run 0: scenario_hash 0123456789abcdef, but its point's scenario hashes to ",
            rehashed.join("sweep.json").display()
        )),
        "{err}"
    );
    assert!(!dir.join("refused").exists());

    // (4) The same edit in a table without its spec (as older versions
    // wrote them): only the other shard's run 1 of point 0 catches it.
    for field in ["spec", "scenario_text", "scenario_path"] {
        json.as_object_mut().unwrap().remove(field);
    }
    std::fs::write(rehashed.join("sweep.json"), json.to_string()).unwrap();
    let (ok, err) = merge(&[&rehashed, &shards[1]], &dir.join("refused"));
    assert!(
        !ok && err.contains(&format!(
            "{}: run 1: point 0",
            shards[1].join("sweep.json").display()
        )) && err.contains("0123456789abcdef")
            && err.contains(&format!(
                "run 0 of the same point in {}",
                rehashed.join("sweep.json").display()
            ))
            && err.contains("written without its spec"),
        "{err}"
    );
    assert!(!dir.join("refused").exists());
}

/// An edit of a sweep.json.
type Edit = fn(&mut Value);

/// `sweep merge` recomputes from the spec and scenario each sweep.json
/// keeps the plan hash, every point's values and seed: an edit that keeps
/// the table consistent with itself (and so passes the checks of issue 38
/// B) is refused, naming the shard and what differs.
#[test]
fn merge_recomputes_points_seeds_and_the_plan_hash_from_the_spec() {
    let dir = scratch("respec");
    let scenario = point_mass(&dir, 0.05);
    let shards: Vec<PathBuf> = (1..=2).map(|k| dir.join(format!("shard{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let o = sweep(&scenario, out, &["--shard", &format!("{}/2", k + 1)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let json = read_json(&shards[0].join("sweep.json"));
    let spec = SweepSpec::from_canonical(json["spec"].as_str().unwrap()).unwrap();
    assert_eq!(spec.len(), json["points"].as_array().unwrap().len());
    assert!(json["scenario_text"]
        .as_str()
        .unwrap()
        .contains("point_mass"));
    let edits: [(&str, Edit, &str); 3] = [
        (
            // Point 1's value changed in the plan and in its rows alike.
            "values",
            |j| {
                j["points"][1][0] = "5".into();
                for r in j["runs"].as_array_mut().unwrap() {
                    if r["point"] == 1 {
                        r["values"][0] = "5".into();
                    }
                }
            },
            "point 1 has the values 5, 1, ",
        ),
        (
            "seed",
            |j| j["runs"][0]["seed"] = 12345.into(),
            "run 0: seed 12345, but its spec gives point 0 the seed ",
        ),
        (
            "hash",
            |j| j["plan_hash"] = "0000000000000000".into(),
            "plan_hash 0000000000000000 is not the hash of its spec and scenario_text",
        ),
    ];
    for (name, edit, expected) in edits {
        let edited = copy_folder(&shards[0], &dir.join(name));
        let mut json = read_json(&edited.join("sweep.json"));
        edit(&mut json);
        std::fs::write(edited.join("sweep.json"), json.to_string()).unwrap();
        let (ok, err) = merge(&[&edited, &shards[1]], &dir.join("refused"));
        let file = edited.join("sweep.json");
        assert!(
            !ok && err.contains(&format!("{}: {expected}", file.display())),
            "{name}: {err}"
        );
        assert!(!dir.join("refused").exists());
    }
}

/// The scenario hashes are recomputed where the scenario's robot file is:
/// a robot edited since the shards ran is refused, naming the run; where the
/// robot file is not found (shards run on another machine), the merge says
/// the hashes were not recomputed and goes on.
#[test]
fn merge_recomputes_scenario_hashes_where_the_robot_file_is() {
    let dir = scratch("robot-merge");
    hashes_with_robot(&dir, |t| t);
    let scenario = dir.join("s.toml");
    let shards: Vec<PathBuf> = (1..=2).map(|k| dir.join(format!("shard{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let shard = format!("{}/2", k + 1);
        let o = run(&[
            "sweep",
            scenario.to_str().unwrap(),
            "--grid",
            "controller.kd=1,2",
            "--shard",
            &shard,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (ok, err) = merge(&[&shards[0], &shards[1]], &dir.join("merged"));
    assert!(ok && !err.contains("note:"), "{err}");
    let urdf = dir.join("robot.urdf");
    let text = std::fs::read_to_string(&urdf).unwrap();
    std::fs::write(
        &urdf,
        text.replace("<mass value=\"1.1984\"", "<mass value=\"2.1984\""),
    )
    .unwrap();
    let (ok, err) = merge(&[&shards[0], &shards[1]], &dir.join("refused"));
    assert!(
        !ok && err.contains(&format!(
            "{}: run 0: scenario_hash ",
            shards[0].join("sweep.json").display()
        )) && err.contains("the robot file changed since the sweep ran"),
        "{err}"
    );
    std::fs::remove_file(&urdf).unwrap();
    let (ok, err) = merge(&[&shards[0], &shards[1]], &dir.join("elsewhere"));
    assert!(
        ok && err.contains("scenario hashes not recomputed, its scenario does not load here"),
        "{err}"
    );
}

/// The canonical spec kept in sweep.json reads back as the spec: grid
/// values with ` | ` inside, every distribution, the seed.
#[test]
fn the_canonical_spec_reads_back() {
    let spec = SweepSpec::parse(
        &strings(&["a.b=1,-2.5e-7,\"x | y\",[1.0, 2.0]", "c=true,'q | r | s'"]),
        &strings(&[
            "d=uniform(0.1,0.30000000000000004)",
            "e=normal(-1,2.5)",
            "f=loguniform(1e-9,1e9)",
        ]),
        Some(3),
        u64::MAX,
    )
    .unwrap();
    let back = SweepSpec::from_canonical(&spec.canonical()).unwrap();
    assert_eq!(back, spec);
    assert_eq!(back.point(17), spec.point(17));
    let edited = spec.canonical().replace("samples 3", "samples x");
    assert!(SweepSpec::from_canonical(&edited).is_err());
}

/// The running sweep's row stream (rows.jsonl in its staging folder).
fn live_stream(dir: &Path, out: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!(".{out}.partial-"))
        })
        .map(|e| e.path().join("rows.jsonl"))
}

/// Issue 38, finding 5: a sweep killed (SIGKILL) midway leaves the rows of
/// its finished runs on disk, one JSON object per line; `--resume` keeps
/// them (the same rows, their timing included: not run again) and runs only
/// the others, giving the table of an uninterrupted sweep.
#[test]
fn a_killed_sweep_leaves_its_rows_and_resume_runs_only_the_rest() {
    let dir = scratch("killed");
    let scenario = point_mass(&dir, 2.0);
    let args = [
        "sweep",
        scenario.to_str().unwrap(),
        "--sample",
        "estimate.scale=uniform(0.5,1.5)",
        "--samples",
        "40",
    ];
    let out = dir.join("out");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .args(["--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let stream = loop {
        let lines = live_stream(&dir, "out")
            .and_then(|s| Some((std::fs::read_to_string(&s).ok()?.lines().count(), s)));
        match lines {
            Some((n, s)) if n >= 5 => break s,
            _ if child.try_wait().unwrap().is_some() => panic!("the sweep ended before its kill"),
            _ => assert!(start.elapsed().as_secs() < 120, "no rows streamed"),
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(!out.exists(), "a killed sweep commits nothing");
    let text = std::fs::read_to_string(&stream).unwrap();
    let kept: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(kept.len() >= 5 && kept.len() < 80, "{} rows", kept.len());
    assert!(kept.iter().all(|r| r["plan_hash"].is_string()));

    let mut resumed = args.to_vec();
    resumed.extend(["--out", out.to_str().unwrap(), "--resume"]);
    // Resumed with other arguments first (another seed): refused, naming
    // the killed sweep's file and line, whose rows stay (they were removed
    // when the folder was opened, before the refusal).
    let mut mistaken = resumed.clone();
    mistaken.extend(["--seed", "8"]);
    let err = stderr(&run(&mistaken));
    let named = format!("{}, line 1: a row of the plan", stream.display());
    assert!(err.contains(&named), "{err}\nlacks {named}");
    assert_eq!(std::fs::read_to_string(&stream).unwrap(), text);

    let o = run(&resumed);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let finished: Vec<&Value> = kept.iter().filter(|r| r["status"] == "finished").collect();
    assert!(
        err.contains(&format!(
            "resuming: {} runs already finished (rows gathered from {})",
            finished.len(),
            stream.display()
        )),
        "{err}"
    );
    assert!(
        !stream.exists(),
        "the killed sweep's staging folder is removed once the table is in place"
    );
    let json = read_json(&out.join("sweep.json"));
    assert_eq!(json["complete"], true);
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 80);
    for row in &finished {
        let i = row["run"].as_u64().unwrap() as usize;
        assert_eq!(
            runs[i]["summary"]["wall_time_s"], row["summary"]["wall_time_s"],
            "run {i} ran again"
        );
    }
    // The stream stays beside the table, every row once.
    let stream = std::fs::read_to_string(out.join("rows.jsonl")).unwrap();
    assert_eq!(stream.lines().count(), 80);
    // The same table as an uninterrupted sweep.
    let whole = dir.join("whole");
    let mut fresh = args.to_vec();
    fresh.extend(["--out", whole.to_str().unwrap()]);
    assert!(run(&fresh).status.success());
    assert_eq!(csv_without_timing(&out), csv_without_timing(&whole));
    assert_eq!(runs_without_timing(&out), runs_without_timing(&whole));

    // Resuming another sweep's folder (another seed: another plan) is refused.
    let mut other = resumed.clone();
    other.extend(["--seed", "8"]);
    let o = run(&other);
    assert!(
        !o.status.success() && stderr(&o).contains("another sweep's rows"),
        "{}",
        stderr(&o)
    );
    assert_eq!(read_json(&out.join("sweep.json")), json, "left as it was");
}

/// A plan keeps no run built: each is built when it starts, so a robot file
/// gone after the plan was checked costs its runs (missing, with the
/// reason among the table's warnings), nothing else.
#[test]
fn runs_are_built_when_they_start() {
    let dir = scratch("lazy");
    hashes_with_robot(&dir, |t| t);
    let scenario = Scenario::load(dir.join("s.toml")).unwrap();
    let spec = SweepSpec::parse(&strings(&["controller.kd=1,2"]), &[], None, 0).unwrap();
    let plan = SweepPlan::build(&scenario, spec).unwrap();
    assert_eq!(plan.len(), 2);
    assert_eq!(plan.variant(1).unwrap().name, "default");
    std::fs::remove_file(dir.join("robot.urdf")).unwrap();
    assert!(plan.variant(1).is_err());
    let table = plan.run(1, &|_, _| {}, &AtomicBool::new(false));
    assert_eq!(table.missing(), [0, 1]);
    assert!(
        table
            .warnings
            .iter()
            .any(|w| w.contains("run 1 could not be built")),
        "{:?}",
        table.warnings
    );
}

/// A sweep loads its robot once and its points share it where their
/// `[robot]` tables (and the URDF) are the same (issue 37): every row of a
/// sweep over gravity (which changes the robot loaded) and a payload
/// (added to the plant after loading) equals the row of its run built
/// alone, whose robot is loaded afresh; and gravity and the payload both
/// reach the rows.
#[test]
fn rows_of_points_sharing_a_robot_are_the_rows_of_runs_built_alone() {
    let dir = scratch("shared-robot");
    hashes_with_robot(&dir, |t| t);
    let path = dir.join("payload.toml");
    let text = std::fs::read_to_string(dir.join("s.toml"))
        .unwrap()
        .replace(
            "[controller]",
            "[robot.payload]\nlink = \"l7\"\nmass = 0.5\ncom = [0.1, 0.0, 0.0]\n[controller]",
        );
    std::fs::write(&path, text).unwrap();
    let scenario = Scenario::load(&path).unwrap();
    let spec = SweepSpec::parse(
        &strings(&[
            "robot.gravity=[0.0, 0.0, -9.81],[0.0, -4.0, 0.0]",
            "robot.payload.mass=0.5,2.0",
        ]),
        &[],
        None,
        0,
    )
    .unwrap();
    let plan = SweepPlan::build(&scenario, spec.clone()).unwrap();
    let table = plan.run(2, &|_, _| {}, &AtomicBool::new(false));
    assert!(table.complete(), "{:?}", table.warnings);
    assert_eq!(table.rows.len(), 4);
    for row in &table.rows {
        let alone = run_one(&scenario, &spec, row.run, &AtomicBool::new(false)).unwrap();
        assert_eq!(alone.without_timing(), row.without_timing());
    }
    // Point p is (gravity p / 2, payload mass p % 2).
    let error = |p: usize| table.metric(p, "default", "rms_tracking_error").unwrap();
    assert_ne!(error(0), error(1), "the payload does not reach the run");
    assert_ne!(error(0), error(2), "gravity does not reach the run");
}
