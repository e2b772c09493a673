//! The `path` surface: task references as paths (terms, circles and
//! figure eights with radius and normal, minimum-jerk moves, waypoints,
//! `dragged` references nested in one another with a filter bandwidth),
//! driving spring disturbances and drags on the Panda's hand. Task
//! references use the same generator (`reference`).

use crate::hostile::{list, Gen};
use crate::robots::PANDA;
use rand::Rng;
use std::path::Path;

/// An `rpy = [...]` entry (with its leading comma), or nothing.
fn rpy(g: &mut Gen) -> String {
    if g.chance(0.5) {
        format!(", rpy = {}", g.array(3, -4.0, 4.0))
    } else {
        String::new()
    }
}

/// `, center = [...]` or nothing; centres near the Panda's hand.
fn center(g: &mut Gen) -> String {
    if g.chance(0.5) {
        format!(", center = {}", g.array(3, -0.6, 0.6))
    } else {
        String::new()
    }
}

fn pose(g: &mut Gen) -> String {
    format!("{{ position = {}{} }}", g.array(3, -0.8, 0.8), rpy(g))
}

/// A task reference as an inline TOML table; `depth` is how many `dragged`
/// references it sits inside.
pub fn reference(g: &mut Gen, depth: usize) -> String {
    // Nesting is rare but at times deep (the parser and the builder recurse).
    let dragged = if depth < 3 { 0.15 } else { 0.8 / depth as f64 };
    if g.chance(dragged) || (depth > 0 && depth < 200 && g.hostile()) {
        let n = g.count(1..=4);
        let steps = list(g.times(n, 0.06).into_iter().map(|time| {
            let n = if g.hostile() {
                g.rng.random_range(0..5)
            } else {
                3
            };
            format!("{{ time = {time}, value = {} }}", g.array(n, -0.8, 0.8))
        }));
        return format!(
            "{{ kind = \"dragged\", before = {}, bandwidth = {}, steps = {steps} }}",
            reference(g, depth + 1),
            g.num(0.1, 1e4)
        );
    }
    // The sixth, malformed kind only when hostile.
    let kinds = if g.hostile() { 6 } else { 5 };
    match g.rng.random_range(0..kinds) {
        0 => {
            let n = if g.hostile() { g.count(0..=6) } else { 3 };
            let coordinates = list((0..n).map(|_| {
                let sines = list((0..g.count(0..=2)).map(|_| {
                    format!(
                        "{{ amplitude = {}, frequency = {}, phase = {} }}",
                        g.num(-0.2, 0.2),
                        g.num(0.0, 50.0),
                        g.num(-4.0, 4.0)
                    )
                }));
                format!(
                    "{{ offset = {}, rate = {}, sines = {sines} }}",
                    g.num(-0.8, 0.8),
                    g.num(-1.0, 1.0)
                )
            }));
            format!(
                "{{ kind = \"terms\", coordinates = {coordinates}{} }}",
                rpy(g)
            )
        }
        1 | 2 => {
            let (kind, start) = if g.chance(0.5) {
                ("circle", format!(", start_angle = {}", g.num(-7.0, 7.0)))
            } else {
                ("figure_eight", String::new())
            };
            format!(
                "{{ kind = \"{kind}\"{}, radius = {}, normal = {}, period = {}{start}, ramp = {}{} }}",
                center(g),
                g.num(0.0, 0.3),
                g.array(3, -1.0, 1.0),
                g.num(0.01, 5.0),
                g.num(0.0, 1.0),
                rpy(g)
            )
        }
        3 => format!(
            "{{ kind = \"minimum_jerk\", from = {}, to = {}, start = {}, duration = {} }}",
            pose(g),
            pose(g),
            g.num(0.0, 0.05),
            g.num(0.0, 0.1)
        ),
        4 => {
            let n = g.count(1..=6);
            let points = list(g.times(n, 0.06).into_iter().map(|time| {
                format!(
                    "{{ time = {time}, position = {}{} }}",
                    g.array(3, -0.8, 0.8),
                    rpy(g)
                )
            }));
            format!("{{ kind = \"waypoints\", points = {points} }}")
        }
        _ => {
            // Malformed: an unknown kind, a missing field, a stray key.
            g.pick(&[
                "{ kind = \"spiral\" }",
                "{ kind = \"circle\", radius = 0.1 }",
                "{ kind = \"waypoints\", points = [], extra = 1 }",
                "{}",
                "1.0",
                "\"circle\"",
            ])
            .to_string()
        }
    }
}

/// A spring toward a moving anchor, or a recorded drag, on a Panda link.
fn disturbance(g: &mut Gen) -> String {
    let link = g.name(PANDA.links, PANDA.welded);
    let spring = format!(
        "link = {link}\npoint = {}\nstiffness = {}\ndamping = {}\n",
        g.array(3, -0.2, 0.2),
        g.num(0.0, 400.0),
        g.num(0.0, 20.0)
    );
    if g.chance(0.75) {
        format!(
            "[[disturbances]]\nkind = \"spring\"\n{spring}path = {}\n{}",
            reference(g, 0),
            g.stray_key()
        )
    } else {
        let n = g.count(1..=5);
        let anchors = list(
            g.times(n, 0.06)
                .into_iter()
                .map(|time| format!("{{ time = {time}, value = {} }}", g.array(3, -0.8, 0.8))),
        );
        let release = if g.chance(0.5) {
            format!("release = {}\n", g.num(0.06, 0.1))
        } else {
            String::new()
        };
        let variant = if g.chance(0.3) {
            format!(
                "variant = {}\n",
                g.name(&["c_star"], &["C_star", "c_star "])
            )
        } else {
            String::new()
        };
        format!(
            "[[disturbances]]\nkind = \"drag\"\n{spring}anchors = {anchors}\n{release}{variant}"
        )
    }
}

/// A Panda scenario holding its pose under one to three springs or drags.
pub fn scenario(g: &mut Gen, repo: &Path) -> String {
    let mut text = PANDA.header(repo, "fuzz_path");
    text += "[controller]\nkind = \"pd_plus\"\nkp = 100.0\nkd = 20.0\n\n";
    text += &PANDA.hold_and_initial(g);
    text += "\n";
    for _ in 0..g.rng.random_range(1..=3) {
        text += &disturbance(g);
        text += "\n";
    }
    text += "[[variants]]\nname = \"c_star\"\nfactorization = { kind = \"christoffel\" }\n";
    text
}
