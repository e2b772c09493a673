//! Values for the generated surfaces (paths, tasks, rotors, sweeps): mostly
//! plausible, so that a case gets past loading into the run, and at a rate
//! chosen per case hostile (non-finite, extreme, signed zero, malformed,
//! of the wrong type or length).

use rand::rngs::SmallRng;
use rand::Rng;

/// TOML literals that break numbers: non-finite, extreme, signed zero,
/// subnormal, integers past every width, and things that are no number.
pub const NUMBERS: &[&str] = &[
    "nan",
    "-nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1e154",
    "1e100",
    "1e9",
    "1e8",
    "-1e8",
    "1.0000001e8",
    "1e-308",
    "5e-324",
    "-0.0",
    "0.0",
    "0",
    "-1",
    "-1e-9",
    "18446744073709551616",
    "-9223372036854775808",
    "1e999",
    "\"1.0\"",
    "true",
    "[]",
    "{}",
];

/// A generator of one case's values: `rate` is the chance that a value is
/// hostile, drawn once per case (none, a few, or most).
pub struct Gen<'a> {
    pub rng: &'a mut SmallRng,
    rate: f64,
    /// Whether this case has its one huge list already (lists nest: two
    /// huge ones could multiply to billions of items).
    huge: bool,
}

impl<'a> Gen<'a> {
    pub fn new(rng: &'a mut SmallRng) -> Self {
        // A case has tens of values: at 0.005 most cases are valid and run.
        let rate = [0.0, 0.0, 0.005, 0.02, 0.1, 0.5][rng.random_range(0..6)];
        Gen::with_rate(rng, rate)
    }

    /// A generator whose values are hostile with probability `rate`.
    pub fn with_rate(rng: &'a mut SmallRng, rate: f64) -> Self {
        Gen {
            rng,
            rate,
            huge: false,
        }
    }

    /// Whether this value is to be hostile.
    pub fn hostile(&mut self) -> bool {
        self.rng.random_bool(self.rate)
    }

    /// A choice among `n` alternatives.
    pub fn rng_index(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    pub fn pick<'b, T: ?Sized>(&mut self, items: &[&'b T]) -> &'b T {
        items[self.rng.random_range(0..items.len())]
    }

    /// A number in [lo, hi], or a hostile literal.
    pub fn num(&mut self, lo: f64, hi: f64) -> String {
        if self.hostile() {
            self.pick(NUMBERS).to_string()
        } else {
            format!("{:?}", self.rng.random_range(lo..=hi))
        }
    }

    /// A non-negative integer below `n`, or one out of range.
    pub fn index(&mut self, n: usize) -> String {
        if self.hostile() {
            self.pick(&[
                "-1",
                "99",
                "4294967296",
                "18446744073709551616",
                "1.5",
                "\"0\"",
            ])
            .to_string()
        } else {
            self.rng.random_range(0..n.max(1)).to_string()
        }
    }

    /// How many items a list gets: `usual`, or at times empty or (once a
    /// case) huge.
    pub fn count(&mut self, usual: std::ops::RangeInclusive<usize>) -> usize {
        if self.hostile() {
            let n = [0, 1, 1000, 20_000][self.rng.random_range(0..if self.huge { 2 } else { 4 })];
            self.huge |= n > 1;
            n
        } else {
            self.rng.random_range(usual)
        }
    }

    /// `n` increasing times in [0, hi] (each hostile at times).
    pub fn times(&mut self, n: usize, hi: f64) -> Vec<String> {
        let mut t: Vec<f64> = (0..n).map(|_| self.rng.random_range(0.0..=hi)).collect();
        t.sort_by(f64::total_cmp);
        t.into_iter()
            .map(|x| {
                if self.hostile() {
                    self.num(0.0, hi)
                } else {
                    format!("{x:?}")
                }
            })
            .collect()
    }

    /// `[a, b, ...]` of `n` numbers in [lo, hi]; at times of another length.
    pub fn array(&mut self, n: usize, lo: f64, hi: f64) -> String {
        let n = if self.hostile() {
            [0, n.saturating_sub(1), n + 1, 100][self.rng.random_range(0..4)]
        } else {
            n
        };
        list((0..n).map(|_| self.num(lo, hi)))
    }

    /// A name from `valid`, or at times one of `odd` (names of the wrong
    /// kind of thing) or one that names nothing.
    pub fn name(&mut self, valid: &[&str], odd: &[&str]) -> String {
        let long = "x".repeat(300);
        let name = if self.hostile() && (odd.is_empty() || self.chance(0.5)) {
            self.pick(&["", "nope", "world", "ü", "a\\u0000b", &long])
        } else if self.hostile() {
            self.pick(odd)
        } else {
            self.pick(valid)
        };
        format!("\"{name}\"")
    }

    /// An extra line that belongs nowhere, at times.
    pub fn stray_key(&mut self) -> String {
        if self.hostile() {
            format!(
                "{} = 1\n",
                self.pick(&["unknown_key", "kind", "rotor", "gear"])
            )
        } else {
            String::new()
        }
    }
}

/// `[a, b, ...]`.
pub fn list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}
