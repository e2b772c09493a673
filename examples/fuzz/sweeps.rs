//! The `sweep` and `merge` surfaces.
//!
//! `sweep`: the command's arguments (`--param`/`--values`, `--grid`,
//! `--sample` with its distributions, `--samples`, `--seed`, `--shard`,
//! `--run-index`, `--metric`, `--out`, `--allow-long`, `--force`,
//! `--strict`) on the point-mass experiment or a generated task scenario.
//!
//! `merge`: `sweep merge` on shard folders made by the binary at start-up
//! (two shards of one sweep, three of the same plan, the whole sweep, one
//! run, two shards of another sweep), mixed, repeated and corrupted:
//! truncated or mutated sweep.json and sweep.csv, a missing manifest,
//! edited runs (duplicated, renumbered, another plan's hash, non-numbers).

use crate::hostile::{Gen, NUMBERS};
use crate::mutate;
use crate::Case;
use crate::Kind;
use rand::Rng;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// The point-mass experiment of the shipped scenarios, 50 steps, no plots.
pub const POINT_MASS: &str = r#"name = "fuzz_sweep"

[robot]
builtin = "point_mass"
mass = 1.0
gravity = [0.0, 0.0, 0.0]

[estimate]
scale = 0.9

[controller]
kind = "slotine_li"
lambda = 1.0
kd = 1.0

[reference]
kind = "terms"
joints = [{ rate = 1.0, sines = [{ amplitude = 1.0, frequency = 1.0 }] }, {}, {}]

[initial]
q = [0.0, 0.0, 0.0]
v = [0.0, 1.0, 0.0]

[simulation]
duration = 0.05
step = 0.001

[output]
plots = false

[[variants]]
name = "c_star"
factorization = { kind = "christoffel" }

[[variants]]
name = "torsion"
factorization = { kind = "torsion", beta = -5.0 }
"#;

/// Keys the point mass can vary, and those of the task scenarios.
const POINT_MASS_KEYS: &[&str] = &[
    "controller.kd",
    "controller.lambda",
    "estimate.scale",
    "variants[1].factorization.beta",
    "reference.joints[0].rate",
    "robot.mass",
];
const TASK_KEYS: &[&str] = &["controller.kd", "task.damping", "task.singular_region"];

/// Keys of the other scenario, of no scenario, or malformed.
const BAD_KEYS: &[&str] = &[
    "initial.v",
    "simulation.step",
    "simulation.duration",
    "robot.gravity",
    "task.reference.radius",
    "task.reference.bandwidth",
    "output.plots",
    "name",
    "nope.key",
    "",
    ".",
    "controller..kd",
    "variants[99].factorization.beta",
    "variants[-1].factorization.beta",
    "variants[18446744073709551616].name",
    "variants[",
    "controller.kd[0]",
    "robot.rotors[0].gear_ratio",
];

/// A key of `valid`, or at times a bad one.
fn key(g: &mut Gen, valid: &[&str]) -> String {
    if g.hostile() {
        g.pick(BAD_KEYS).to_string()
    } else {
        g.pick(valid).to_string()
    }
}

/// One value of a key: a plausible number, a hostile literal, or another type.
fn value(g: &mut Gen) -> String {
    if g.hostile() {
        let long = "9".repeat(400);
        g.pick(&[
            "\"x\"",
            "[0.0, 1.0, 0.0]",
            "[1.0]",
            "",
            "{a = 1}",
            "'",
            "\"",
            &long,
        ])
        .to_string()
    } else {
        g.num(0.0, 3.0)
    }
}

/// `V1,V2,...`: one to five values, at times thousands.
fn values(g: &mut Gen) -> String {
    let n = if g.hostile() {
        [0, 200, 30_000][g.rng_index(3)]
    } else {
        g.rng.random_range(1..=5)
    };
    // An argument longer than 128 KiB cannot be passed at all (E2BIG).
    let mut text = String::new();
    for _ in 0..n {
        let v = value(g);
        if text.len() + v.len() > 100_000 {
            break;
        }
        if !text.is_empty() {
            text.push(',');
        }
        text += &v;
    }
    text
}

fn distribution(g: &mut Gen) -> String {
    let name = if g.hostile() {
        g.pick(&["beta", "", "UNIFORM", "uniform "])
    } else {
        g.pick(&["uniform", "normal", "loguniform"])
    };
    // Zero, one or three arguments only when hostile.
    let kinds = if g.hostile() { 6 } else { 1 };
    let args = match g.rng_index(kinds) + 3 {
        6 => String::new(),
        4 => g.num(0.0, 1.0),
        5 => format!(
            "{},{},{}",
            g.num(0.0, 1.0),
            g.num(1.0, 2.0),
            g.num(0.0, 1.0)
        ),
        _ => format!("{},{}", g.num(0.1, 1.0), g.num(1.0, 2.0)),
    };
    if g.hostile() && g.chance(0.2) {
        format!("{name}({args}")
    } else {
        format!("{name}({args})")
    }
}

/// An unsigned integer argument: usual, or zero, huge, negative, no number.
fn count(g: &mut Gen, usual: std::ops::RangeInclusive<u64>) -> String {
    if g.hostile() {
        g.pick(&[
            "0",
            "-1",
            // Over the 200,000 runs a sweep may hold (MAX_SWEEP_RUNS).
            "200001",
            "18446744073709551615",
            "18446744073709551616",
            "x",
            "1e3",
            "",
        ])
        .to_string()
    } else {
        g.rng.random_range(usual).to_string()
    }
}

/// A `sweep` case: a scenario and hostile arguments.
pub fn sweep_case(g: &mut Gen, repo: &Path) -> Case {
    let s = |x: &str| x.to_string();
    let (scenario, keys) = if g.chance(0.75) {
        (POINT_MASS.to_string(), POINT_MASS_KEYS)
    } else {
        let task = crate::tasks::scenario(&mut Gen::with_rate(&mut *g.rng, 0.0), repo);
        (task, TASK_KEYS)
    };
    let mut args = vec![s("sweep"), s("{dir}/input.toml")];
    let mut varied = false;
    if g.chance(0.3) {
        // --param alone, --values alone (hostile), or both.
        if !g.hostile() || g.chance(0.5) {
            args.extend([s("--param"), key(g, keys)]);
        }
        if !g.hostile() || g.chance(0.5) {
            args.push(format!("--values={}", values(g)));
        }
        varied = true;
    }
    for _ in 0..g.rng_index(if varied { 2 } else { 3 }) {
        args.extend([s("--grid"), format!("{}={}", key(g, keys), values(g))]);
        varied = true;
    }
    if !varied || g.chance(0.4) {
        for _ in 0..g.count(1..=2).min(3) {
            args.extend([
                s("--sample"),
                format!("{}={}", key(g, keys), distribution(g)),
            ]);
        }
        if !g.hostile() || g.chance(0.5) {
            args.extend([s("--samples"), count(g, 1..=4)]);
        }
    }
    if g.chance(0.3) {
        args.extend([s("--seed"), count(g, 0..=u64::MAX)]);
    }
    if g.chance(0.3) {
        let shard = if g.hostile() {
            g.pick(&[
                "0/2",
                "3/2",
                "1/0",
                "0/0",
                "1",
                "1/2/3",
                "-1/2",
                "a/b",
                "2/18446744073709551616",
                "1/18446744073709551615",
                "/",
            ])
            .to_string()
        } else {
            let n = g.rng.random_range(1..=4);
            format!("{}/{n}", g.rng.random_range(1..=n))
        };
        args.extend([s("--shard"), shard]);
    }
    // With --shard only when hostile (clap refuses the pair).
    let sharded = args.iter().any(|a| a == "--shard");
    if g.chance(0.15) && (!sharded || g.hostile()) {
        args.extend([s("--run-index"), count(g, 0..=3)]);
    }
    if g.chance(0.2) {
        let metric = if !g.hostile() {
            g.pick(&[
                "final_tracking_error",
                "max_abs_q[2]",
                "passivity.dissipation_j",
            ])
        } else {
            g.pick(&[
                "max_abs_q[99]",
                "max_abs_q[-1]",
                "max_abs_q[18446744073709551616]",
                "task.rms_position_error_m",
                "passivity.dissipation_j",
                "nope",
                "",
                "max_abs_q[",
                "final_tracking_error,,rms_tracking_error",
            ])
        };
        args.push(format!("--metric={metric}"));
    }
    let out = if g.hostile() {
        g.pick(&[
            "{dir}",
            "{dir}/input.toml",
            "/dev/null",
            "{dir}/out/../out",
            "",
            "{dir}/a\nb",
        ])
    } else {
        "{dir}/out"
    };
    args.push(format!("--out={out}"));
    for flag in ["--allow-long", "--force", "--strict"] {
        if g.chance(0.1) {
            args.push(s(flag));
        }
    }
    Case {
        kind: Kind::Sweep,
        files: vec![(s("input.toml"), scenario.into_bytes())],
        args,
    }
}

/// A shard folder's files (name, content).
type Folder = Vec<(String, Vec<u8>)>;

/// The shard folders `merge` cases are made of.
pub struct MergePool {
    folders: Vec<Folder>,
}

impl MergePool {
    /// Runs the binary's sweeps (a few seconds) in a scratch folder.
    pub fn make(binary: &Path, scratch: &Path) -> Result<MergePool, String> {
        let _ = std::fs::remove_dir_all(scratch);
        std::fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
        std::fs::write(scratch.join("s.toml"), POINT_MASS).map_err(|e| e.to_string())?;
        let a = [
            "--grid",
            "controller.kd=1,2,3",
            "--sample",
            "estimate.scale=uniform(0.5,1.5)",
            "--samples",
            "2",
        ];
        let b = ["--grid", "controller.lambda=0.5,2"];
        let parts: [(&[&str], &[&str]); 7] = [
            (&a, &["--shard", "1/2"]),
            (&a, &["--shard", "2/2"]),
            (&a, &["--shard", "2/3"]),
            (&a, &[]),
            (&a, &["--run-index", "3"]),
            (&b, &["--shard", "1/2"]),
            (&b, &["--shard", "2/2"]),
        ];
        let mut folders = Vec::new();
        for (k, (plan, part)) in parts.iter().enumerate() {
            let out = scratch.join(format!("part{k}"));
            let status = Command::new(binary)
                .arg("sweep")
                .arg("s.toml")
                .args(*plan)
                .args(*part)
                .arg("--out")
                .arg(&out)
                .current_dir(scratch)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!("sweep {plan:?} {part:?} failed: {status}"));
            }
            let mut files = Vec::new();
            for entry in std::fs::read_dir(&out).map_err(|e| e.to_string())? {
                let path = entry.map_err(|e| e.to_string())?.path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                files.push((name, std::fs::read(&path).map_err(|e| e.to_string())?));
            }
            files.sort();
            folders.push(files);
        }
        let _ = std::fs::remove_dir_all(scratch);
        Ok(MergePool { folders })
    }

    /// A `merge` case: one to four folders, each perhaps corrupted.
    pub fn merge_case(&self, g: &mut Gen) -> Case {
        let s = |x: &str| x.to_string();
        let mut files = Vec::new();
        let mut args = vec![s("sweep"), s("merge")];
        for k in 0..g.rng.random_range(1..=4) {
            let folder = &self.folders[g.rng_index(self.folders.len())];
            for (name, bytes) in folder {
                // The same file of the other folders, to splice from.
                let same: Vec<Vec<u8>> = self
                    .folders
                    .iter()
                    .filter_map(|f| f.iter().find(|(n, _)| n == name))
                    .map(|(_, b)| b.clone())
                    .collect();
                if let Some(bytes) = corrupt(g, name, bytes, &same) {
                    files.push((format!("s{k}/{name}"), bytes));
                }
            }
            let input = if g.chance(0.2) {
                format!("{{dir}}/s{k}/sweep.json")
            } else {
                format!("{{dir}}/s{k}")
            };
            args.push(input.clone());
            if g.chance(0.05) {
                args.push(input);
            }
        }
        if g.chance(0.05) {
            args.push(s("{dir}/missing"));
        }
        let out = if g.hostile() {
            g.pick(&["{dir}/s0", "{dir}/s0/sweep.json", "{dir}", "/dev/null"])
        } else {
            "{dir}/out"
        };
        args.extend([s("--out"), s(out)]);
        if g.chance(0.1) {
            args.push(format!(
                "--metric={}",
                g.pick(&["max_abs_q[2]", "max_abs_q[99]", "nope", ""])
            ));
        }
        if g.chance(0.1) {
            args.push(s("--force"));
        }
        Case {
            kind: Kind::Merge,
            files,
            args,
        }
    }
}

/// One file of a shard folder as a case has it: unchanged, missing,
/// truncated, mutated, or (sweep.json) with one run edited.
fn corrupt(g: &mut Gen, name: &str, bytes: &[u8], others: &[Vec<u8>]) -> Option<Vec<u8>> {
    if !g.hostile() {
        return Some(bytes.to_vec());
    }
    match g.rng_index(5) {
        0 => None,
        1 => Some(bytes[..g.rng.random_range(0..=bytes.len())].to_vec()),
        2 => Some(mutate::mutate(g.rng, bytes, others)),
        3 if name.ends_with(".csv") => {
            // A row twice.
            let text = String::from_utf8_lossy(bytes);
            let mut lines: Vec<&str> = text.lines().collect();
            let row = lines[g.rng.random_range(0..lines.len())];
            lines.insert(g.rng.random_range(0..=lines.len()), row);
            Some((lines.join("\n") + "\n").into_bytes())
        }
        _ if name == "sweep.json" => edit_json(g, bytes),
        _ => Some(bytes.to_vec()),
    }
}

/// A hostile JSON value.
fn hostile_json(g: &mut Gen) -> Value {
    let text = g.pick(NUMBERS);
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// sweep.json with one structured edit: a run duplicated or dropped, a
/// run's field (index, point, seed, hash, a summary number) replaced, or a
/// top-level field (plan hash, keys, points, completeness) replaced.
fn edit_json(g: &mut Gen, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut json: Value = serde_json::from_slice(bytes).ok()?;
    let runs = json["runs"].as_array_mut()?;
    if runs.is_empty() {
        return Some(bytes.to_vec());
    }
    let i = g.rng.random_range(0..runs.len());
    match g.rng_index(4) {
        0 => {
            let run = runs[i].clone();
            runs.push(run);
        }
        1 => {
            runs.remove(i);
        }
        2 => {
            let field = g.pick(&["run", "point", "seed", "scenario_hash", "status"]);
            runs[i][field] = hostile_json(g);
            if g.chance(0.3) {
                runs[i]["summary"]["final_tracking_error"] = hostile_json(g);
            }
        }
        _ => {
            let field = g.pick(&[
                "plan_hash",
                "keys",
                "points",
                "complete",
                "grid_keys",
                "variants",
            ]);
            json[field] = hostile_json(g);
        }
    }
    serde_json::to_vec_pretty(&json).ok()
}
