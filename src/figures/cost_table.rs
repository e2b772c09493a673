//! The table behind the cost curves (`passivity-lab bench --scaling`):
//! microseconds per call of each algorithm on growing serial chains and
//! binary trees, with Pinocchio's where measured, as CSV, and the
//! least-squares slopes of log(cost) against log(bodies) beside the
//! slopes of the theoretical orders over the same models.

use std::path::Path;

/// The CSV header, in the order of [`CostRow`]'s fields.
pub const HEADER: &str = "model,topology,root,bodies,nv,depth,algorithm,us_per_call,pinocchio_us";

/// One algorithm on one model.
#[derive(Clone, Debug, PartialEq)]
pub struct CostRow {
    /// The generated model's name (its URDF's stem).
    pub model: String,
    /// "serial" or "binary".
    pub topology: String,
    /// "fixed" or "free".
    pub root: String,
    /// Bodies of the model (the free root's body counted).
    pub bodies: usize,
    pub nv: usize,
    /// Bodies on the longest path from the root to a leaf.
    pub depth: usize,
    pub algorithm: String,
    /// passivity-lab, microseconds per call.
    pub us_per_call: f64,
    /// Pinocchio's time for the same algorithm, when measured.
    pub pinocchio_us: Option<f64>,
}

/// The times a row may hold, in microseconds per call: a nanosecond to a
/// quarter of an hour. Outside them the figure's logarithmic axes would
/// span hundreds of decades (plotters then lays out key points without end).
pub const TIME_RANGE_US: (f64, f64) = (1e-3, 1e9);

/// The largest count of bodies, speeds or depth a row may hold (the
/// generated models have at most 512 joints).
pub const MAX_COUNT: usize = 1_000_000;

/// A line of the CSV that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: line {line}: {problem}")]
pub struct CostTableError {
    pub path: String,
    pub line: usize,
    pub problem: String,
}

/// The power of the depth d in each algorithm's order N d^k: RNEA and
/// ABA O(N), CRBA and C* O(N d), all Christoffel symbols O(N d^2); EFPA
/// with m frames O(N + m d + m^2), taken as O(N) (None: no theory given).
pub fn depth_power(algorithm: &str) -> Option<i32> {
    match algorithm {
        "rnea" | "aba" => Some(0),
        "crba" | "coriolis_matrix" => Some(1),
        "christoffel" => Some(2),
        a if a.starts_with("efpa_") => Some(0),
        _ => None,
    }
}

/// The rows as CSV text, header first.
pub fn to_csv(rows: &[CostRow]) -> String {
    let mut text = format!("{HEADER}\n");
    for r in rows {
        let pin = r
            .pinocchio_us
            .map(|p| format!("{p:.4}"))
            .unwrap_or_default();
        text += &format!(
            "{},{},{},{},{},{},{},{:.4},{pin}\n",
            r.model, r.topology, r.root, r.bodies, r.nv, r.depth, r.algorithm, r.us_per_call
        );
    }
    text
}

/// Reads the CSV written by [`to_csv`] (`path` names it in errors).
pub fn from_csv(text: &str, path: &Path) -> Result<Vec<CostRow>, CostTableError> {
    let error = |line: usize, problem: String| CostTableError {
        path: path.display().to_string(),
        line,
        problem,
    };
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim() == HEADER => {}
        _ => return Err(error(1, format!("the header must be '{HEADER}'"))),
    }
    let mut rows = Vec::new();
    for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let n = i + 1;
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 9 {
            return Err(error(n, format!("{} fields, expected 9", f.len())));
        }
        let count = |k: usize, name: &str| match f[k].parse::<usize>() {
            Ok(x) if (1..=MAX_COUNT).contains(&x) => Ok(x),
            _ => Err(error(
                n,
                format!(
                    "{name} '{}' is not a whole number from 1 to {MAX_COUNT}",
                    f[k]
                ),
            )),
        };
        let (shortest, longest) = TIME_RANGE_US;
        let time = |k: usize, name: &str| match f[k].parse::<f64>() {
            Ok(x) if (shortest..=longest).contains(&x) => Ok(x),
            _ => Err(error(
                n,
                format!(
                    "{name} '{}' is not a time from {shortest:e} to {longest:e} microseconds",
                    f[k]
                ),
            )),
        };
        rows.push(CostRow {
            model: f[0].into(),
            topology: f[1].into(),
            root: f[2].into(),
            bodies: count(3, "bodies")?,
            nv: count(4, "nv")?,
            depth: count(5, "depth")?,
            algorithm: f[6].into(),
            us_per_call: time(7, "us_per_call")?,
            pinocchio_us: if f[8].is_empty() {
                None
            } else {
                Some(time(8, "pinocchio_us")?)
            },
        });
    }
    Ok(rows)
}

/// Least-squares slope of y against x (None with fewer than two distinct x).
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    (points.len() >= 2 && sxx > 1e-12).then(|| sxy / sxx)
}

/// One curve: an algorithm on one family (topology and root).
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub topology: String,
    pub root: String,
    pub algorithm: String,
    /// (bodies, us) of passivity-lab, by growing size.
    pub ours: Vec<(f64, f64)>,
    /// (bodies, us) of Pinocchio where measured.
    pub pinocchio: Vec<(f64, f64)>,
    /// (bodies, N d^k) of the theoretical order, when one is given.
    pub theory: Vec<(f64, f64)>,
}

/// How many of the largest models [`Curve::large_slope`] fits.
pub const LARGEST: usize = 3;

fn log_slope(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points.iter().map(|(x, y)| (x.ln(), y.ln())).collect();
    slope(&logs)
}

impl Curve {
    /// Fitted slope of log(us) against log(bodies), passivity-lab.
    pub fn slope(&self) -> Option<f64> {
        log_slope(&self.ours)
    }

    /// The same over the [`LARGEST`] largest models only, where the
    /// leading term of the order dominates.
    pub fn large_slope(&self) -> Option<f64> {
        log_slope(&self.ours[self.ours.len().saturating_sub(LARGEST)..])
    }

    /// The same for Pinocchio.
    pub fn pinocchio_slope(&self) -> Option<f64> {
        log_slope(&self.pinocchio)
    }

    /// The slope of the theoretical order N d^k over the same models.
    pub fn theory_slope(&self) -> Option<f64> {
        log_slope(&self.theory)
    }
}

/// The rows grouped into curves, in the order they first appear.
pub fn curves(rows: &[CostRow]) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    for r in rows {
        let i = match out.iter().position(|c| {
            c.topology == r.topology && c.root == r.root && c.algorithm == r.algorithm
        }) {
            Some(i) => i,
            None => {
                out.push(Curve {
                    topology: r.topology.clone(),
                    root: r.root.clone(),
                    algorithm: r.algorithm.clone(),
                    ours: Vec::new(),
                    pinocchio: Vec::new(),
                    theory: Vec::new(),
                });
                out.len() - 1
            }
        };
        let c = &mut out[i];
        let n = r.bodies as f64;
        c.ours.push((n, r.us_per_call));
        if let Some(p) = r.pinocchio_us {
            c.pinocchio.push((n, p));
        }
        if let Some(k) = depth_power(&r.algorithm) {
            c.theory.push((n, n * (r.depth as f64).powi(k)));
        }
    }
    for c in &mut out {
        for series in [&mut c.ours, &mut c.pinocchio, &mut c.theory] {
            series.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
    }
    out
}

/// The theoretical order of `algorithm`, as text.
fn order(algorithm: &str) -> &'static str {
    match depth_power(algorithm) {
        Some(0) if algorithm.starts_with("efpa_") => "O(N + m d + m^2)",
        Some(0) => "O(N)",
        Some(1) => "O(N d)",
        Some(2) => "O(N d^2)",
        _ => "-",
    }
}

/// A Markdown table of the curves: fitted slopes beside the theoretical
/// ones, Pinocchio's slope, and the ratio ours / Pinocchio on the
/// smallest and the largest model both measured.
pub fn slope_table(rows: &[CostRow]) -> String {
    let f = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{s:.2}"));
    let mut text = String::from(
        "| family | algorithm | order | theory slope | slope | slope, largest 3 | Pinocchio slope | ratio ours / Pinocchio (smallest, largest) |\n|---|---|---|---|---|---|---|---|\n",
    );
    for c in curves(rows) {
        let ratio = |p: Option<&(f64, f64)>| {
            p.and_then(|&(n, pin)| {
                c.ours
                    .iter()
                    .find(|o| o.0 == n)
                    .map(|o| format!("{:.2} at {n}", o.1 / pin))
            })
        };
        let ratios = match (ratio(c.pinocchio.first()), ratio(c.pinocchio.last())) {
            (Some(a), Some(b)) => format!("{a}, {b}"),
            _ => "-".into(),
        };
        text += &format!(
            "| {} {} | {} | {} | {} | {} | {} | {} | {ratios} |\n",
            c.topology,
            c.root,
            c.algorithm,
            order(&c.algorithm),
            f(c.theory_slope()),
            f(c.slope()),
            f(c.large_slope()),
            f(c.pinocchio_slope()),
        );
    }
    text
}
