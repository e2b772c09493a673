//! The inputs the fuzzer starts from (the repository's robots, scenarios
//! and reference states) and the command lines that exercise them.

use std::path::{Path, PathBuf};

/// The surface a case exercises: a mutated seed file (`urdf`, `scenario`,
/// `eval`) or a generated input (`sweep`, `merge`, `path`, `task`, `rotor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Urdf,
    Scenario,
    Eval,
    Sweep,
    Merge,
    Path,
    Task,
    Rotor,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Urdf,
        Kind::Scenario,
        Kind::Eval,
        Kind::Sweep,
        Kind::Merge,
        Kind::Path,
        Kind::Task,
        Kind::Rotor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Urdf => "urdf",
            Kind::Scenario => "scenario",
            Kind::Eval => "eval",
            Kind::Sweep => "sweep",
            Kind::Merge => "merge",
            Kind::Path => "path",
            Kind::Task => "task",
            Kind::Rotor => "rotor",
        }
    }

    /// The extension of a mutated seed file.
    pub fn extension(self) -> &'static str {
        match self {
            Kind::Urdf => "urdf",
            Kind::Eval => "json",
            _ => "toml",
        }
    }
}

/// A robot of the repository with its reference states and a scenario.
pub struct Robot {
    pub urdf: PathBuf,
    pub states: PathBuf,
    pub free_root: bool,
    /// A scenario for this robot (URDF path absolute, duration shortened).
    pub scenario: Option<String>,
}

/// Every seed, by kind, and the robots they belong to.
pub struct Seeds {
    pub robots: Vec<Robot>,
    pub urdfs: Vec<Vec<u8>>,
    pub scenarios: Vec<Vec<u8>>,
    pub states: Vec<Vec<u8>>,
}

const ROBOTS: [(&str, &str, bool, Option<&str>); 4] = [
    (
        "ur_description/urdf/ur5_robot.urdf",
        "ur5.json",
        false,
        Some("ur5_pd_plus.toml"),
    ),
    (
        "panda_description/urdf/panda.urdf",
        "panda.json",
        false,
        Some("panda_table_press.toml"),
    ),
    (
        "solo_description/robots/solo12.urdf",
        "solo12.json",
        true,
        Some("solo12_drop.toml"),
    ),
    (
        "double_pendulum_description/urdf/double_pendulum.urdf",
        "double_pendulum.json",
        false,
        None,
    ),
];

/// A scenario made runnable from anywhere and short: URDF paths absolute,
/// every `duration = ` line at the start of a line set to 50 ms.
fn portable_scenario(text: &str, repo: &Path) -> String {
    let assets = format!("\"{}/assets/", repo.display());
    text.replace("\"../assets/", &assets)
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("duration =") {
                "duration = 0.05".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reference states cut to two samples (pretty-printed, so that line
/// mutations have lines to work on).
fn short_states(text: &str) -> Result<Vec<u8>, String> {
    let mut value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if let Some(samples) = value["samples"].as_array_mut() {
        samples.truncate(2);
    }
    serde_json::to_vec_pretty(&value).map_err(|e| e.to_string())
}

impl Seeds {
    pub fn load(repo: &Path) -> Result<Seeds, String> {
        let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
        let robots_dir = repo.join("assets/robots/example-robot-data/robots");
        let mut robots = Vec::new();
        let mut urdfs = Vec::new();
        let mut states = Vec::new();
        for (urdf, json, free_root, scenario) in ROBOTS {
            let urdf = robots_dir.join(urdf);
            let json = repo.join("tests/fixtures/reference").join(json);
            urdfs.push(read(&urdf)?);
            states.push(short_states(&String::from_utf8_lossy(&read(&json)?))?);
            let scenario = match scenario {
                Some(s) => Some(portable_scenario(
                    &String::from_utf8_lossy(&read(&repo.join("scenarios").join(s))?),
                    repo,
                )),
                None => None,
            };
            robots.push(Robot {
                urdf,
                states: json,
                free_root,
                scenario,
            });
        }
        let mut scenarios = Vec::new();
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo.join("scenarios"))
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        for f in files {
            let text = String::from_utf8_lossy(&read(&f)?).into_owned();
            scenarios.push(portable_scenario(&text, repo).into_bytes());
        }
        Ok(Seeds {
            robots,
            urdfs,
            scenarios,
            states,
        })
    }

    /// The seed files a mutated kind starts from.
    pub fn of(&self, kind: Kind) -> &[Vec<u8>] {
        match kind {
            Kind::Urdf => &self.urdfs,
            Kind::Eval => &self.states,
            _ => &self.scenarios,
        }
    }
}
