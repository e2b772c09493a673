//! A fuzzer for the input side of the `passivity-lab` binary: it runs the
//! built binary on hostile inputs with a time and memory limit, classifies
//! the outcome, and saves every finding into the corpus folder with the
//! command that reproduces it. The surfaces (`--surfaces`, default all):
//!
//! - `urdf`, `scenario`, `eval`: the repository's URDFs, scenarios and
//!   reference states mutated (`mutate.rs`), read by `inspect`, `eval`, `run`;
//! - `sweep`: `sweep`'s arguments, hostile (`sweeps.rs`);
//! - `merge`: `sweep merge` on shard folders mixed and corrupted (`sweeps.rs`);
//! - `path`: springs and drags along generated paths (`paths.rs`);
//! - `task`: tasks, their references, laws and torsion triples (`tasks.rs`);
//! - `rotor`: geared rotors (`rotors.rs`).
//!
//! ```sh
//! cargo build --release --no-default-features --bin passivity-lab --example fuzz
//! nice target/release/examples/fuzz --seconds 600 [--surfaces sweep,merge,path,task,rotor] [--seed N]
//! ```
//!
//! `--seconds` is the wall-clock budget of the whole run; a case started
//! before it ends runs to its end or its `--timeout`. With `--seed` the
//! cases are the same from run to run (their outcomes may still depend on
//! timing: a hang is a run past the timeout).
//!
//! Outcomes: `ok` (exit 0), `refused` (exit 1 or 2 with a message),
//! `panic` (exit 101), `signal` (killed: stack overflow, abort on
//! allocation failure), `hang` (past `--timeout`), `nonfinite` (exit 0,
//! yet a CSV the run wrote holds NaN or inf), `other` (any other exit
//! code, or exit 1 or 2 without a message).
//! A corpus entry is a folder `<outcome>-<kind>-<hash>` holding the inputs,
//! `cmd.txt` (the arguments, one per line; `{dir}` is the entry's folder,
//! `{repo}` the repository) and `stderr.txt`.
//!
//! The corpus folder defaults to `target/fuzz-corpus`, inside the build
//! folder git ignores, so that findings are never committed by accident.
//! A finding worth keeping is reduced to a minimal input and kept as a
//! regression test instead: a fixture in `tests/fixtures/fuzz/` with a
//! comment saying what the binary must do with it, checked by
//! `tests/integration/fuzz_regressions.rs`.

mod hostile;
mod mutate;
mod paths;
mod robots;
mod rotors;
mod seeds;
mod sweeps;
mod tasks;

use clap::Parser;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use seeds::{Kind, Seeds};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "Mutation fuzzer for passivity-lab's inputs")]
struct Args {
    /// The headless binary to run.
    #[arg(long, default_value = "target/release/passivity-lab")]
    binary: PathBuf,
    /// Total time budget in seconds.
    #[arg(long)]
    seconds: u64,
    /// Time limit of one run in seconds; a run past it is a hang.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Address-space limit of one run in MiB (growing past it aborts).
    #[arg(long, default_value_t = 4096)]
    memory_mib: u64,
    /// Where findings are saved (under target/, which git ignores).
    #[arg(long, default_value = "target/fuzz-corpus")]
    corpus: PathBuf,
    /// Random seed (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Print every case's surface, outcome, time and first error line.
    #[arg(long)]
    verbose: bool,
    /// The repository: seeds, robots and reference states.
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The surfaces to fuzz (comma-separated): urdf, scenario, eval,
    /// sweep, merge, path, task, rotor (default: all).
    #[arg(long, value_delimiter = ',', value_parser = parse_kind)]
    surfaces: Vec<Kind>,
}

fn parse_kind(name: &str) -> Result<Kind, String> {
    Kind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .ok_or_else(|| format!("unknown surface '{name}'"))
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Ok,
    Refused,
    Panic,
    Signal,
    Hang,
    NonFinite,
    Other,
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Refused => "refused",
            Outcome::Panic => "panic",
            Outcome::Signal => "signal",
            Outcome::Hang => "hang",
            Outcome::NonFinite => "nonfinite",
            Outcome::Other => "other",
        }
    }

    fn is_finding(self) -> bool {
        !matches!(self, Outcome::Ok | Outcome::Refused)
    }
}

/// One generated case: its files (name, content) and its arguments, with
/// `{dir}` and `{repo}` still to substitute.
struct Case {
    kind: Kind,
    files: Vec<(String, Vec<u8>)>,
    args: Vec<String>,
}

fn root_args(free: bool) -> [String; 2] {
    ["--root".into(), if free { "free" } else { "fixed" }.into()]
}

fn repo_relative(path: &Path, repo: &Path) -> String {
    let rel = path.strip_prefix(repo).unwrap_or(path);
    format!("{{repo}}/{}", rel.display())
}

/// A random case of one of `surfaces`.
fn generate(
    rng: &mut SmallRng,
    surfaces: &[Kind],
    seeds: &Seeds,
    merges: Option<&sweeps::MergePool>,
    repo: &Path,
) -> Case {
    let kind = surfaces[rng.random_range(0..surfaces.len())];
    let run = |kind, text: String| Case {
        kind,
        files: vec![("input.toml".to_string(), text.into_bytes())],
        args: ["run", "{dir}/input.toml", "--out", "{dir}/out"]
            .map(String::from)
            .to_vec(),
    };
    let g = &mut hostile::Gen::new(rng);
    match kind {
        Kind::Sweep => sweeps::sweep_case(g, repo),
        Kind::Merge => merges.expect("made at start-up").merge_case(g),
        Kind::Path => run(kind, paths::scenario(g, repo)),
        Kind::Task => run(kind, tasks::scenario(g, repo)),
        Kind::Rotor => run(kind, rotors::scenario(g, repo)),
        Kind::Urdf | Kind::Scenario | Kind::Eval => mutated(rng, kind, seeds, repo),
    }
}

/// A mutated seed file and a command that reads it.
fn mutated(rng: &mut SmallRng, kind: Kind, seeds: &Seeds, repo: &Path) -> Case {
    let pool = seeds.of(kind);
    let index = rng.random_range(0..pool.len());
    let input = mutate::mutate(rng, &pool[index], pool);
    let name = format!("input.{}", kind.extension());
    let mut files = vec![(name.clone(), input)];
    let s = |x: &str| x.to_string();
    let args = match kind {
        Kind::Urdf => {
            let robot = &seeds.robots[index];
            let urdf = s("{dir}/input.urdf");
            match (rng.random_range(0..3u8), &robot.scenario) {
                (1, _) => {
                    let mut a = vec![s("eval"), s("--urdf"), urdf];
                    a.extend(root_args(robot.free_root));
                    a.extend([
                        s("--input"),
                        repo_relative(&robot.states, repo),
                        s("--output"),
                        s("{dir}/out.json"),
                    ]);
                    a
                }
                (2, Some(scenario)) => {
                    let original = robot.urdf.display().to_string();
                    let text = scenario.replace(&original, "input.urdf");
                    files.push((s("scenario.toml"), text.into_bytes()));
                    vec![
                        s("run"),
                        s("{dir}/scenario.toml"),
                        s("--out"),
                        s("{dir}/out"),
                    ]
                }
                _ => {
                    let mut a = vec![s("inspect"), urdf];
                    a.extend(root_args(rng.random_bool(0.5)));
                    a
                }
            }
        }
        Kind::Eval => {
            let robot = &seeds.robots[index];
            let mut a = vec![s("eval"), s("--urdf"), repo_relative(&robot.urdf, repo)];
            a.extend(root_args(robot.free_root));
            a.extend([
                s("--input"),
                s("{dir}/input.json"),
                s("--output"),
                s("{dir}/out.json"),
            ]);
            if rng.random_bool(0.3) {
                let f = ["christoffel", "classic", "alternate", "torsion"][rng.random_range(0..4)];
                a.extend([s("--factorization"), s(f)]);
                if f == "torsion" || rng.random_bool(0.1) {
                    let beta = ["-5", "0", "1e308", "-1e300", "1e-300", "nan", "inf", "7"];
                    a.extend([s("--beta"), s(beta[rng.random_range(0..beta.len())])]);
                }
            }
            a
        }
        _ => vec![s("run"), s("{dir}/input.toml"), s("--out"), s("{dir}/out")],
    };
    Case { kind, files, args }
}

/// Writes a case's files (names may hold a folder) into `dir`.
fn write_files(dir: &Path, files: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    for (name, bytes) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)?;
    }
    Ok(())
}

/// The output folder of a run: the value of `--out`, if inside `dir`.
fn out_folder(run_args: &[String], dir: &Path) -> Option<PathBuf> {
    let at = run_args
        .iter()
        .position(|a| a == "--out" || a.starts_with("--out="))?;
    let out = match run_args[at].strip_prefix("--out=") {
        Some(value) => value,
        None => run_args.get(at + 1)?,
    };
    let out = PathBuf::from(out);
    (out.starts_with(dir) && out != dir).then_some(out)
}

/// Whether a CSV file under `out` holds a NaN or an infinity.
fn writes_non_finite(out: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(out) else {
        return false;
    };
    entries.filter_map(|e| e.ok()).any(|e| {
        let path = e.path();
        if path.is_dir() {
            return writes_non_finite(&path);
        }
        if path.extension().is_none_or(|x| x != "csv") {
            return false;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        text.split([',', '\n']).any(|cell| {
            let cell = cell
                .trim()
                .trim_start_matches(['+', '-'])
                .to_ascii_lowercase();
            cell == "nan" || cell == "inf" || cell == "infinity"
        })
    })
}

fn substitute(args: &[String], dir: &Path, repo: &Path) -> Vec<String> {
    args.iter()
        .map(|a| {
            a.replace("{dir}", &dir.display().to_string())
                .replace("{repo}", &repo.display().to_string())
        })
        .collect()
}

/// Runs the binary under a memory limit, killing it at the timeout.
fn execute(args: &Args, run_args: &[String], dir: &Path) -> (Outcome, String) {
    use std::os::unix::process::ExitStatusExt;
    let stderr_path = dir.join(".stderr");
    let spawned = std::fs::File::create(&stderr_path).and_then(|stderr| {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v {} && exec \"$0\" \"$@\"",
                args.memory_mib * 1024
            ))
            .arg(&args.binary)
            .args(run_args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
    });
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return (Outcome::Other, format!("cannot start: {e}")),
    };
    let deadline = Instant::now() + Duration::from_secs_f64(args.timeout);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let stderr = std::fs::read(&stderr_path).unwrap_or_default();
    let tail = String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(4096)..]).into_owned();
    let outcome = match status {
        None => Outcome::Hang,
        Some(s) if s.signal().is_some() => Outcome::Signal,
        Some(s) => match s.code() {
            Some(0) => match out_folder(run_args, dir) {
                Some(out) if writes_non_finite(&out) => Outcome::NonFinite,
                _ => Outcome::Ok,
            },
            Some(1 | 2) if tail.trim().is_empty() => Outcome::Other,
            Some(1 | 2) => Outcome::Refused,
            Some(101) => Outcome::Panic,
            _ => Outcome::Other,
        },
    };
    (outcome, tail)
}

/// The line of stderr that says what happened: the error, the panic, or
/// else the first line.
fn message(stderr: &str) -> &str {
    let mut lines = stderr.lines().filter(|l| !l.trim().is_empty());
    let first = lines.clone().next().unwrap_or("");
    lines
        .find(|l| l.starts_with("error") || l.contains("panicked"))
        .unwrap_or(first)
}

/// Saves a finding; returns its folder, or `None` when already saved.
/// Inside the repository, the inputs name the repository's files by
/// relative paths, so that the entry replays from any checkout.
fn save(
    args: &Args,
    repo: &Path,
    case: &Case,
    outcome: Outcome,
    stderr: &str,
) -> std::io::Result<Option<PathBuf>> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    case.files.hash(&mut hasher);
    case.args.hash(&mut hasher);
    let dir = args.corpus.join(format!(
        "{}-{}-{:016x}",
        outcome.name(),
        case.kind.name(),
        hasher.finish()
    ));
    if dir.exists() {
        return Ok(None);
    }
    std::fs::create_dir_all(&dir)?;
    let up = std::fs::canonicalize(&dir)?
        .strip_prefix(repo)
        .map(|rel| "../".repeat(rel.components().count()))
        .ok();
    let absolute = format!("\"{}/", repo.display());
    let files: Vec<(String, Vec<u8>)> = case
        .files
        .iter()
        .map(|(name, bytes)| {
            let bytes = match (std::str::from_utf8(bytes), &up) {
                (Ok(text), Some(up)) => text.replace(&absolute, &format!("\"{up}")).into_bytes(),
                _ => bytes.clone(),
            };
            (name.clone(), bytes)
        })
        .collect();
    write_files(&dir, &files)?;
    std::fs::write(dir.join("cmd.txt"), case.args.join("\n") + "\n")?;
    std::fs::write(dir.join("stderr.txt"), stderr)?;
    Ok(Some(dir))
}

fn main() -> std::process::ExitCode {
    let mut args = Args::parse();
    // Runs start in their own folder.
    args.binary = match std::fs::canonicalize(&args.binary) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {e} (build it first)", args.binary.display());
            return std::process::ExitCode::from(2);
        }
    };
    let repo = match std::fs::canonicalize(&args.repo) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: {e}", args.repo.display());
            return std::process::ExitCode::from(2);
        }
    };
    let seeds = match Seeds::load(&repo) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot load the seeds: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let mut rng = SmallRng::seed_from_u64(seed);
    let work = std::env::temp_dir().join(format!("passivity-lab-fuzz-{}", std::process::id()));
    if args.surfaces.is_empty() {
        args.surfaces = Kind::ALL.to_vec();
    }
    let merges = if args.surfaces.contains(&Kind::Merge) {
        match sweeps::MergePool::make(&args.binary, &work) {
            Ok(pool) => Some(pool),
            Err(e) => {
                eprintln!("cannot make the shard folders of `merge`: {e}");
                return std::process::ExitCode::from(2);
            }
        }
    } else {
        None
    };
    let start = Instant::now();
    let budget = Duration::from_secs(args.seconds);
    let mut counts: BTreeMap<(Kind, Outcome), usize> = BTreeMap::new();
    let mut last_report = Instant::now();
    println!(
        "fuzzing {} for {} s (seed {seed})",
        args.binary.display(),
        args.seconds
    );
    while start.elapsed() < budget {
        let case = generate(&mut rng, &args.surfaces, &seeds, merges.as_ref(), &repo);
        let _ = std::fs::remove_dir_all(&work);
        if let Err(e) =
            std::fs::create_dir_all(&work).and_then(|()| write_files(&work, &case.files))
        {
            eprintln!("{}: {e}", work.display());
            return std::process::ExitCode::from(2);
        }
        let run_args = substitute(&case.args, &work, &repo);
        let started = Instant::now();
        let (outcome, stderr) = execute(&args, &run_args, &work);
        *counts.entry((case.kind, outcome)).or_default() += 1;
        if args.verbose {
            println!(
                "{} {} {:.2} s: {}",
                case.kind.name(),
                outcome.name(),
                started.elapsed().as_secs_f64(),
                message(&stderr)
            );
        }
        if outcome.is_finding() {
            match save(&args, &repo, &case, outcome, &stderr) {
                Ok(Some(dir)) => println!(
                    "{}: {} ({})",
                    outcome.name(),
                    dir.display(),
                    message(&stderr)
                ),
                Ok(None) => {}
                Err(e) => eprintln!("cannot save a finding: {e}"),
            }
        }
        if last_report.elapsed() > Duration::from_secs(60) {
            last_report = Instant::now();
            println!(
                "{:.0} s: {} runs",
                start.elapsed().as_secs_f64(),
                counts.values().sum::<usize>()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    let total: usize = counts.values().sum();
    println!("\n{total} runs in {:.0} s", start.elapsed().as_secs_f64());
    let outcomes = [
        Outcome::Ok,
        Outcome::Refused,
        Outcome::Panic,
        Outcome::Signal,
        Outcome::Hang,
        Outcome::NonFinite,
        Outcome::Other,
    ];
    print!("{:<10} {:>8}", "surface", "cases");
    outcomes.iter().for_each(|o| print!(" {:>9}", o.name()));
    println!();
    for kind in &args.surfaces {
        let n = |o| counts.get(&(*kind, o)).copied().unwrap_or(0);
        print!(
            "{:<10} {:>8}",
            kind.name(),
            outcomes.map(n).iter().sum::<usize>()
        );
        outcomes.iter().for_each(|o| print!(" {:>9}", n(*o)));
        println!();
    }
    let findings: usize = counts
        .iter()
        .filter(|((_, o), _)| o.is_finding())
        .map(|(_, n)| n)
        .sum();
    if findings > 0 {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
