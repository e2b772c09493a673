//! What a sweep varies: grid axes (a dotted key and a list of values; all
//! axes together form their Cartesian product) and sampled axes (a key and
//! a distribution, drawn `samples` times from a seed). Pure data: nothing
//! here knows a scenario.
//!
//! Syntax (the `sweep` command's arguments, also the library's input):
//! - grid: `KEY=V1,V2,...`, each value a TOML value (`-2.5`, `true`,
//!   `"classic"`, `[1.0, 2.0]`; commas inside brackets or quotes do not
//!   split), e.g. `factorization.beta=0,-2,-5`;
//! - sample: `KEY=uniform(LO,HI)`, `KEY=normal(MEAN,SD)` or
//!   `KEY=loguniform(LO,HI)` (0 < LO), e.g. `estimate.scale=uniform(0.5,1.5)`.
//!
//! The points are the grid's product (last axis fastest) times the samples
//! (each sample draws every sampled key); point `p` has its own seed,
//! [`point_seed`]`(seed, p)`, and its sampled values are drawn from that
//! seed alone, so one point can be recomputed without the others. The
//! generator is SplitMix64 written out here (not `rand`'s, whose streams
//! may change between versions), so values are the same on every machine.

use std::fmt::Write as _;

/// A malformed grid or sample argument; names the argument and the problem
/// (only the problem when no argument was given).
#[derive(Debug, thiserror::Error)]
#[error("{}{message}", if argument.is_empty() { String::new() } else { format!("{argument} '{spec}': ") })]
pub struct SweepSpecError {
    /// `--grid`, `--sample`, `--samples`, ...
    pub argument: String,
    pub spec: String,
    pub message: String,
}

/// A distribution a sampled key is drawn from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    Uniform {
        low: f64,
        high: f64,
    },
    Normal {
        mean: f64,
        sd: f64,
    },
    /// exp(uniform(ln low, ln high)).
    LogUniform {
        low: f64,
        high: f64,
    },
}

/// One key and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct GridAxis {
    pub key: String,
    pub values: Vec<String>,
}

/// One key drawn from a distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleAxis {
    pub key: String,
    pub distribution: Distribution,
}

/// Everything a sweep varies.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SweepSpec {
    pub grid: Vec<GridAxis>,
    pub sampled: Vec<SampleAxis>,
    /// Draws of the sampled keys per grid point (1 when nothing is sampled).
    pub samples: usize,
    pub seed: u64,
}

/// One point of a sweep: a value per key (grid keys, then sampled keys)
/// and the seed its samples were drawn from.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    pub values: Vec<String>,
    pub seed: u64,
}

impl SweepSpec {
    /// One key over `values` (the `--param KEY --values ...` form).
    pub fn one_key(key: &str, values: &[String]) -> SweepSpec {
        SweepSpec {
            grid: vec![GridAxis {
                key: key.to_string(),
                values: values.to_vec(),
            }],
            ..SweepSpec::default()
        }
    }

    /// Parses `--grid` and `--sample` arguments (syntax in the module
    /// doc); `samples` draws per grid point from `seed`. Refuses an empty
    /// grid, an empty value, a key given twice, samples without a sampled
    /// key (or the reverse), and nothing to vary at all.
    pub fn parse(
        grid: &[String],
        sampled: &[String],
        samples: Option<usize>,
        seed: u64,
    ) -> Result<SweepSpec, SweepSpecError> {
        let mut spec = SweepSpec {
            grid: grid
                .iter()
                .map(|g| parse_grid(g))
                .collect::<Result<_, _>>()?,
            sampled: sampled
                .iter()
                .map(|s| parse_sample(s))
                .collect::<Result<_, _>>()?,
            samples: 1,
            seed,
        };
        let error = |argument: &str, spec: String, message: &str| SweepSpecError {
            argument: argument.into(),
            spec,
            message: message.into(),
        };
        match (samples, spec.sampled.is_empty()) {
            (Some(0), _) => return Err(error("--samples", "0".into(), "must be at least 1")),
            (Some(n), false) => spec.samples = n,
            (Some(n), true) => {
                return Err(error(
                    "--samples",
                    n.to_string(),
                    "needs a key to sample (--sample KEY=uniform(LO,HI))",
                ))
            }
            (None, false) => {
                return Err(error(
                    "--sample",
                    sampled.join(" "),
                    "say how many draws with --samples N",
                ))
            }
            (None, true) => {}
        }
        let keys = spec.keys();
        if keys.is_empty() {
            return Err(error(
                "",
                String::new(),
                "nothing to vary: give --param/--values, --grid or --sample",
            ));
        }
        for (i, key) in keys.iter().enumerate() {
            if keys[..i].contains(key) {
                return Err(error("--grid/--sample", key.clone(), "key given twice"));
            }
        }
        Ok(spec)
    }

    /// Every key, grid keys first, in the order given.
    pub fn keys(&self) -> Vec<String> {
        let grid = self.grid.iter().map(|a| a.key.clone());
        grid.chain(self.sampled.iter().map(|a| a.key.clone()))
            .collect()
    }

    /// Number of points: the grid's product times the samples.
    pub fn len(&self) -> usize {
        self.grid
            .iter()
            .map(|a| a.values.len())
            .fold(self.samples.max(1), usize::saturating_mul)
    }

    /// Whether the spec has no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point `p` (< [`SweepSpec::len`]), computed on its own.
    pub fn point(&self, p: usize) -> SweepPoint {
        let seed = point_seed(self.seed, p as u64);
        let mut rest = p / self.samples.max(1);
        let mut values = vec![String::new(); self.grid.len()];
        for (axis, slot) in self.grid.iter().zip(&mut values).rev() {
            let n = axis.values.len().max(1);
            *slot = axis.values[rest % n].clone();
            rest /= n;
        }
        let mut rng = SplitMix64(seed);
        values.extend(
            self.sampled
                .iter()
                .map(|a| format!("{:?}", a.distribution.draw(&mut rng))),
        );
        SweepPoint { values, seed }
    }

    /// Every point, in order.
    pub fn points(&self) -> Vec<SweepPoint> {
        (0..self.len()).map(|p| self.point(p)).collect()
    }

    /// A canonical text of the spec (part of the plan's hash; read back by
    /// [`SweepSpec::from_canonical`]).
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        for a in &self.grid {
            let _ = writeln!(out, "grid {} = [{}]", a.key, a.values.join(" | "));
        }
        for a in &self.sampled {
            let _ = writeln!(out, "sample {} = {:?}", a.key, a.distribution);
        }
        let _ = writeln!(out, "samples {} seed {}", self.samples, self.seed);
        out
    }
}

impl SweepSpec {
    /// Reads [`SweepSpec::canonical`]'s text back (as `sweep.json` keeps
    /// it). A grid value holding ` | ` is told from two values by joining
    /// pieces until each is a TOML value; the text read must give itself
    /// back, or it is refused.
    pub fn from_canonical(text: &str) -> Result<SweepSpec, SweepSpecError> {
        let error = |message: String| SweepSpecError {
            argument: "spec".into(),
            spec: text.into(),
            message,
        };
        let mut spec = SweepSpec::default();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            if lines.peek().is_none() {
                let numbers = line
                    .strip_prefix("samples ")
                    .and_then(|r| r.split_once(" seed "))
                    .and_then(|(n, s)| Some((n.parse().ok()?, s.parse().ok()?)));
                let (samples, seed) =
                    numbers.ok_or_else(|| error(format!("'{line}' is not 'samples N seed S'")))?;
                (spec.samples, spec.seed) = (samples, seed);
            } else if let Some(rest) = line.strip_prefix("grid ") {
                let (key, values) = rest
                    .split_once(" = [")
                    .and_then(|(k, v)| Some((k, v.strip_suffix(']')?)))
                    .ok_or_else(|| error(format!("'{line}' is not 'grid KEY = [V | ...]'")))?;
                spec.grid.push(GridAxis {
                    key: key.to_string(),
                    values: toml_values(values.split(" | ")),
                });
            } else if let Some(rest) = line.strip_prefix("sample ") {
                let (key, debug) = rest
                    .split_once(" = ")
                    .ok_or_else(|| error(format!("'{line}' is not 'sample KEY = ...'")))?;
                let distribution = Distribution::from_debug(debug)
                    .ok_or_else(|| error(format!("'{debug}' is not a distribution")))?;
                spec.sampled.push(SampleAxis {
                    key: key.to_string(),
                    distribution,
                });
            } else {
                return Err(error(format!("'{line}' is not a grid or sample line")));
            }
        }
        if spec.canonical() != text {
            return Err(error("does not read back as itself: edited".into()));
        }
        Ok(spec)
    }
}

/// Joins consecutive `pieces` with ` | ` until each is a TOML value (the
/// rest, if none is, as one value).
fn toml_values<'a>(pieces: impl Iterator<Item = &'a str>) -> Vec<String> {
    let is_value = |v: &str| toml::from_str::<toml::Table>(&format!("x = {v}")).is_ok();
    let mut values = Vec::new();
    let mut current: Option<String> = None;
    for piece in pieces {
        let joined = match current.take() {
            Some(c) => format!("{c} | {piece}"),
            None => piece.to_string(),
        };
        if is_value(&joined) {
            values.push(joined);
        } else {
            current = Some(joined);
        }
    }
    values.extend(current);
    values
}

/// The seed of point `p` of a sweep seeded with `seed`: the first
/// SplitMix64 output from the state `seed ^ (p * 0xD1B54A32D192ED03)`.
pub fn point_seed(seed: u64, p: u64) -> u64 {
    SplitMix64(seed ^ p.wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
}

/// SplitMix64 (Steele, Lea and Flood 2014).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

impl Distribution {
    /// Reads the `Debug` text `canonical` writes (`Uniform { low: 0.5,
    /// high: 1.5 }`) back.
    fn from_debug(text: &str) -> Option<Distribution> {
        let (name, fields) = text.strip_suffix(" }")?.split_once(" { ")?;
        let mut numbers = fields.split(", ").map(|f| f.split_once(": "));
        let mut next = |want: &str| match numbers.next()? {
            Some((key, value)) if key == want => value.parse::<f64>().ok(),
            _ => None,
        };
        let distribution = match name {
            "Uniform" => Distribution::Uniform {
                low: next("low")?,
                high: next("high")?,
            },
            "Normal" => Distribution::Normal {
                mean: next("mean")?,
                sd: next("sd")?,
            },
            "LogUniform" => Distribution::LogUniform {
                low: next("low")?,
                high: next("high")?,
            },
            _ => return None,
        };
        numbers.next().is_none().then_some(distribution)
    }

    fn draw(&self, rng: &mut SplitMix64) -> f64 {
        match *self {
            Distribution::Uniform { low, high } => low + (high - low) * rng.unit(),
            Distribution::LogUniform { low, high } => {
                (low.ln() + (high.ln() - low.ln()) * rng.unit()).exp()
            }
            Distribution::Normal { mean, sd } => {
                // Box-Muller; 1 - unit() is in (0, 1], so the log is finite.
                let (u, v) = (1.0 - rng.unit(), rng.unit());
                mean + sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
            }
        }
        .clamp(f64::MIN, f64::MAX)
    }
}

/// Splits `KEY=REST` at the first '='.
fn key_and_rest<'a>(argument: &str, spec: &'a str) -> Result<(&'a str, &'a str), SweepSpecError> {
    let error = |message: &str| SweepSpecError {
        argument: argument.into(),
        spec: spec.into(),
        message: message.into(),
    };
    let (key, rest) = spec
        .split_once('=')
        .ok_or_else(|| error("expected KEY=..."))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(error("the key is empty"));
    }
    Ok((key, rest.trim()))
}

/// Parses `KEY=V1,V2,...` (see the module doc).
pub fn parse_grid(spec: &str) -> Result<GridAxis, SweepSpecError> {
    let (key, rest) = key_and_rest("--grid", spec)?;
    let values = split_values(rest);
    if let Some(i) = values.iter().position(|v| v.is_empty()) {
        return Err(SweepSpecError {
            argument: "--grid".into(),
            spec: spec.into(),
            message: if values.len() == 1 {
                "no values: give KEY=V1,V2,...".into()
            } else {
                format!("value {} is empty", i + 1)
            },
        });
    }
    Ok(GridAxis {
        key: key.to_string(),
        values,
    })
}

/// Splits at commas outside brackets, braces and quotes; trims each value.
fn split_values(text: &str) -> Vec<String> {
    let (mut depth, mut quote, mut current) = (0i32, None, String::new());
    let mut out = Vec::new();
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current.trim().to_string());
    out
}

/// Parses `KEY=uniform(LO,HI)`, `KEY=normal(MEAN,SD)` or
/// `KEY=loguniform(LO,HI)`.
pub fn parse_sample(spec: &str) -> Result<SampleAxis, SweepSpecError> {
    let (key, rest) = key_and_rest("--sample", spec)?;
    let error = |message: String| SweepSpecError {
        argument: "--sample".into(),
        spec: spec.into(),
        message,
    };
    let usage = "expected uniform(LO,HI), normal(MEAN,SD) or loguniform(LO,HI)";
    let (name, args) = rest
        .strip_suffix(')')
        .and_then(|r| r.split_once('('))
        .ok_or_else(|| error(usage.into()))?;
    let numbers: Vec<f64> = args
        .split(',')
        .map(|a| a.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()
        .ok_or_else(|| error(format!("'{args}' is not two finite numbers")))?;
    let [a, b] = numbers[..] else {
        return Err(error(format!("{name} takes two numbers, got '{args}'")));
    };
    let distribution = match name.trim() {
        "uniform" if a < b => Distribution::Uniform { low: a, high: b },
        "loguniform" if 0.0 < a && a < b => Distribution::LogUniform { low: a, high: b },
        "normal" if b >= 0.0 => Distribution::Normal { mean: a, sd: b },
        "uniform" => return Err(error("needs LO < HI".into())),
        "loguniform" => return Err(error("needs 0 < LO < HI".into())),
        "normal" => return Err(error("needs SD >= 0".into())),
        other => return Err(error(format!("unknown distribution '{other}'; {usage}"))),
    };
    Ok(SampleAxis {
        key: key.to_string(),
        distribution,
    })
}
