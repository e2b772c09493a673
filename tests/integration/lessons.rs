//! Lessons (the `[lesson]` table and the shipped torsion lab) and sweeps
//! as a library: the metric table, its plot files, cancellation.

use crate::common;

use common::repo_path;
use passivity_lab::scenario::{lesson_chain, Scenario};
use passivity_lab::sweep::{Selection, SweepPlan, DEFAULT_METRICS};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("lessons", name)
}

const LESSONS: [&str; 7] = [
    "01_point_mass.toml",
    "02_planar_arm.toml",
    "03_panda_joint_space.toml",
    "04_panda_task_space.toml",
    "05_parallel_transport.toml",
    "06_standing_torsion.toml",
    "07_physical_adaptation.toml",
];

fn lesson_path(name: &str) -> PathBuf {
    repo_path("scenarios/lessons").join(name)
}

#[test]
fn the_torsion_lab_is_one_chain_of_seven_lessons() {
    let chain = lesson_chain(&lesson_path(LESSONS[0])).unwrap();
    let names: Vec<String> = chain
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, LESSONS);
    let mut shipped: Vec<String> = std::fs::read_dir(repo_path("scenarios/lessons"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    shipped.sort();
    assert_eq!(shipped, LESSONS, "every shipped lesson is in the chain");
    for (i, path) in chain.iter().enumerate() {
        let scenario = Scenario::load(path).unwrap();
        let lesson = scenario.lesson().expect("a lesson");
        assert!(
            lesson.spec.title.starts_with(&format!("{}. ", i + 1)),
            "{}",
            lesson.spec.title
        );
        // Each explains with Wensing, Englsberger & Slotine's (2023) equation numbers.
        assert!(
            lesson.spec.text.contains("eq. ") || lesson.spec.text.contains("eqs. "),
            "{}: no equation cited",
            path.display()
        );
        assert!(!lesson.spec.look_at.is_empty() && !lesson.spec.questions.is_empty());
        let previous = lesson.previous.map(|p| p.canonicalize().unwrap());
        let expected = i.checked_sub(1).map(|j| chain[j].canonicalize().unwrap());
        assert_eq!(previous, expected, "{}: previous", path.display());
        assert_eq!(lesson.next.is_none(), i == LESSONS.len() - 1);
    }
    assert!(Scenario::embedded_default().unwrap().lesson().is_none());
}

/// Every lesson runs headless to its end, admissibly, and shows what its
/// text says.
#[test]
fn every_lesson_runs_and_shows_its_point() {
    let mut results = Vec::new();
    for name in LESSONS {
        let scenario = Scenario::load(lesson_path(name)).unwrap();
        let runs = common::run_variants(&scenario);
        for r in &runs {
            assert!(
                r.divergence.is_none(),
                "{name}: {}: {:?}",
                r.name,
                r.divergence
            );
            let skew = common::max_skew_residual(r);
            assert!(skew < 1e-9, "{name}: {}: skew residual {skew}", r.name);
        }
        results.push(runs);
    }
    let max_z = |r: &passivity_lab::scenario::VariantResult| {
        r.samples.iter().map(|s| s.q[2].abs()).fold(0.0, f64::max)
    };
    let signed_z = |r: &passivity_lab::scenario::VariantResult| {
        r.samples
            .iter()
            .map(|s| s.q[2])
            .max_by(|a, b| a.abs().total_cmp(&b.abs()))
            .unwrap()
    };
    // 1: C* stays in the plane, both torsion signs leave it, opposite ways.
    let one = &results[0];
    assert_eq!(max_z(&one[0]), 0.0);
    assert!(max_z(&one[1]) > 0.1 && max_z(&one[2]) > 0.1);
    assert!(signed_z(&one[1]) * signed_z(&one[2]) < 0.0);
    // 2: n = 2: C*, classic and alternate are the same run.
    let two = &results[1];
    for other in &two[1..] {
        for (a, b) in two[0].samples.iter().zip(&other.samples) {
            for (x, y) in a.q.iter().zip(&b.q) {
                assert!((x - y).abs() < 1e-9, "{}: {x} vs {y}", other.name);
            }
        }
    }
    // 3: the joint paths of C* and torsion differ, yet both track.
    let three = &results[2];
    let apart = three[0]
        .samples
        .iter()
        .zip(&three[2].samples)
        .flat_map(|(a, b)| a.q.iter().zip(&b.q).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    assert!(apart > 1e-4, "joint paths apart by {apart}");
    // 4: task torsion changes the hand's path.
    let four = &results[3];
    let hand =
        |r: &passivity_lab::scenario::VariantResult, k: usize| r.samples[k].task.unwrap().position;
    let last = four[0].samples.len() - 1;
    let moved = (0..=last)
        .map(|k| {
            let (a, b) = (hand(&four[0], k), hand(&four[2], k));
            (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
        })
        .fold(0.0, f64::max);
    assert!(moved > 1e-3, "hand paths apart by {moved} m");
    // 5: C* keeps the circle's plane, torsion leaves it.
    let five = &results[4];
    assert_eq!(max_z(&five[0]), 0.0);
    assert!(max_z(&five[1]) > 1e-3, "{}", max_z(&five[1]));
    // 6: on the stance manifold the feet stay, and torsion moves the base
    // off C_bar*'s path (solo12_body_sway's numbers: up to 1.5e-3 apart).
    let six = &results[5];
    for r in six {
        let stance = r.stance.as_ref().expect("stance metrics");
        assert!(stance.max_foot_slip_m < 1e-3, "{}: {stance:?}", r.name);
    }
    let base_apart = six[0]
        .samples
        .iter()
        .zip(&six[1].samples)
        .flat_map(|(a, b)| a.q[..7].iter().zip(&b.q[..7]).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    println!("lesson 6: base coordinates apart by up to {base_apart:.2e}");
    assert!(base_apart > 1e-4, "base paths apart by {base_apart}");
    // 7: the natural law's estimates stay physical at every step, its
    // divergence from the truth falls; the Euclidean law's leave the
    // physical set; both track.
    let seven = &results[6];
    let consistency = |r: &passivity_lab::scenario::VariantResult, k: usize| {
        r.samples[k].parameter_consistency.expect("adaptive")
    };
    let (natural, euclidean) = (&seven[0], &seven[1]);
    let last = natural.samples.len() - 1;
    let (n0, n1) = (consistency(natural, 0), consistency(natural, last));
    let e1 = consistency(euclidean, last);
    let error = |r: &passivity_lab::scenario::VariantResult| {
        let s = &r.samples[last];
        s.q.iter()
            .zip(&s.q_desired)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    println!(
        "lesson 7: natural {} non-physical steps, divergence {:.3} -> {:.3}, final |e| {:.2e} rad; \
         Euclidean {} non-physical steps on {} bodies, final |e| {:.2e} rad",
        n1.non_physical_steps,
        n0.divergence,
        n1.divergence,
        error(natural),
        e1.non_physical_steps,
        e1.non_physical_bodies,
        error(euclidean)
    );
    assert_eq!((n1.non_physical_steps, n1.non_physical_bodies), (0, 0));
    // Measured: 3.32 -> 2.39 over the 4 s.
    assert!(n1.divergence < 0.8 * n0.divergence, "{n0:?} -> {n1:?}");
    assert!(
        e1.non_physical_steps > 0 && e1.non_physical_bodies > 0,
        "{e1:?}"
    );
    assert!(e1.divergence.is_infinite(), "{e1:?}");
    // Measured: 1.91e-3 and 2.50e-3 rad.
    assert!(error(natural) < 5e-3 && error(euclidean) < 5e-3);
}

/// A scenario with `lesson` as its `[lesson]` table, written to `dir`.
fn with_lesson(dir: &Path, file: &str, lesson: &str) -> PathBuf {
    let base = std::fs::read_to_string(repo_path("scenarios/point_mass_torsion.toml")).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, format!("{base}\n{lesson}")).unwrap();
    path
}

fn load_error(path: &Path) -> String {
    Scenario::load(path).unwrap_err().to_string()
}

#[test]
fn bad_lesson_tables_give_errors_naming_the_key() {
    let dir = scratch("bad");
    let good = with_lesson(&dir, "good.toml", "[lesson]\ntitle = \"t\"\ntext = \"x\"");
    assert!(Scenario::load(&good).unwrap().lesson().is_some());
    std::fs::write(dir.join("plain.toml"), "name = \"x\"\n").unwrap();
    std::fs::create_dir_all(dir.join("folder.toml")).unwrap();
    for (lesson, key, words) in [
        ("text = \"x\"", "title", "missing field"),
        (
            "title = \"t\"\ntext = \"  \"",
            "lesson.text",
            "must not be empty",
        ),
        (
            "title = \"t\"\ntext = \"x\"\nlook_at = [\"a\", \"\"]",
            "lesson.look_at[1]",
            "must not be empty",
        ),
        (
            "title = \"t\"\ntext = \"x\"\nnext = \"missing.toml\"",
            "lesson.next",
            "missing.toml",
        ),
        (
            "title = \"t\"\ntext = \"x\"\nnext = \"plain.toml\"",
            "lesson.next",
            "is not a lesson",
        ),
        (
            "title = \"t\"\ntext = \"x\"\nprevious = \"folder.toml\"",
            "lesson.previous",
            "folder.toml",
        ),
        (
            "title = \"t\"\ntext = \"x\"\nslides = 3",
            "slides",
            "unknown field",
        ),
    ] {
        let path = with_lesson(&dir, "bad.toml", &format!("[lesson]\n{lesson}"));
        let e = load_error(&path);
        assert!(
            e.contains("bad.toml:") && e.contains(key) && e.contains(words),
            "{lesson:?}: {e}"
        );
    }
    // The error points at the line of the key.
    let path = with_lesson(
        &dir,
        "bad.toml",
        "[lesson]\ntitle = \"t\"\ntext = \"x\"\nnext = \"missing.toml\"",
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let line = 1 + text.lines().position(|l| l.starts_with("next = ")).unwrap();
    let e = load_error(&path);
    assert!(e.contains(&format!("bad.toml:{line}: lesson.next")), "{e}");
}

#[test]
fn a_loop_of_lessons_is_refused_and_the_resolved_lesson_reloads_elsewhere() {
    let dir = scratch("loop");
    let a = with_lesson(
        &dir,
        "a.toml",
        "[lesson]\ntitle = \"a\"\ntext = \"x\"\nnext = \"b.toml\"",
    );
    with_lesson(
        &dir,
        "b.toml",
        "[lesson]\ntitle = \"b\"\ntext = \"x\"\nnext = \"a.toml\"",
    );
    let e = lesson_chain(&a).unwrap_err().to_string();
    assert!(e.contains("lesson.next") && e.contains("loop"), "{e}");
    // The resolved scenario (written with the results) names its
    // neighbours by absolute paths, so it loads from another folder.
    let lesson = Scenario::load(lesson_path(LESSONS[1])).unwrap();
    let elsewhere = scratch("resolved").join("scenario.resolved.toml");
    let again = Scenario::parse(&lesson.resolved_toml(), &elsewhere).unwrap();
    assert_eq!(
        again
            .lesson()
            .unwrap()
            .next
            .unwrap()
            .canonicalize()
            .unwrap(),
        lesson_path(LESSONS[2]).canonicalize().unwrap()
    );
}

/// The point-mass experiment cut to 1 s, with plots on or off.
fn quick_point_mass(dir: &Path, plots: bool) -> Scenario {
    let text = std::fs::read_to_string(repo_path("scenarios/point_mass_torsion.toml"))
        .unwrap()
        .replace("duration = 10.0", "duration = 1.0");
    let path = dir.join("quick.toml");
    std::fs::write(&path, format!("{text}\n[output]\nplots = {plots}\n")).unwrap();
    Scenario::load(path).unwrap()
}

#[test]
fn a_sweep_table_has_one_value_per_point_and_variant_and_its_plots() {
    let dir = scratch("sweep");
    let scenario = quick_point_mass(&dir, true);
    let values: Vec<String> = ["0", "-2", "-5"].map(String::from).to_vec();
    let plan = SweepPlan::new(&scenario, "variants[1].factorization.beta", &values).unwrap();
    assert_eq!(plan.len(), 6);
    let names = plan.metric_names();
    for m in DEFAULT_METRICS.iter().chain(&["max_abs_q[2]"]) {
        assert!(names.iter().any(|n| n == m), "{m} not in {names:?}");
    }
    let table = plan.run(2, &|_, _| {}, &AtomicBool::new(false));
    assert!(table.complete());
    assert_eq!(table.rows.len(), 6);
    let (x, numeric) = table.abscissae();
    assert!(numeric);
    assert_eq!(x, [0.0, -2.0, -5.0]);
    assert_eq!(table.metric(0, "c_star", "max_abs_q[2]"), Some(0.0));
    for variant in &table.variants {
        for m in DEFAULT_METRICS {
            assert_eq!(table.curve(m, variant).len(), 3, "{variant}: {m}");
        }
    }
    // beta = 0 is C* itself; torsion lifts the mass.
    let z = table.curve("max_abs_q[2]", "torsion_beta_minus_5");
    assert_eq!(z.iter().map(|p| p.0).collect::<Vec<_>>(), [-5.0, -2.0, 0.0]);
    assert_eq!(z[2].1, 0.0);
    assert!(z[0].1 > 0.1 && z[1].1 > 0.1, "{z:?}");
    assert!(table
        .curve("max_abs_q[2]", "c_star")
        .iter()
        .all(|p| p.1 == 0.0));
    let metrics = vec![
        "max_abs_q[2]".to_string(),
        "final_tracking_error".to_string(),
    ];
    let written = table.write(&dir, &metrics).unwrap();
    assert_eq!(written.len(), 4, "{written:?}");
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().ends_with(",max_abs_q[2]"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 7);
    let png = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(dir.join("sweep.png")).unwrap(),
    ))
    .read_info()
    .unwrap();
    assert_eq!((png.info().width, png.info().height), (1200, 800));
    let svg = std::fs::read_to_string(dir.join("sweep.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("max_abs_q[2]") && svg.contains("torsion_beta_minus_5"));
    // With plots off, only the table.
    let off = quick_point_mass(&scratch("sweep-off"), false);
    let plan = SweepPlan::new(&off, "variants[1].factorization.beta", &values).unwrap();
    let off_table = plan.table(table.rows.clone(), Selection::All);
    let written = off_table
        .write(&scratch("sweep-off-out"), &metrics)
        .unwrap();
    assert_eq!(written.len(), 2);
}

#[test]
fn cancelling_a_sweep_stops_it() {
    let dir = scratch("cancel");
    let scenario = quick_point_mass(&dir, false);
    let values: Vec<String> = ["0", "-1", "-2", "-5"].map(String::from).to_vec();
    let plan = SweepPlan::new(&scenario, "variants[1].factorization.beta", &values).unwrap();
    let stop = AtomicBool::new(false);
    let table = plan.run(1, &|_, _| stop.store(true, Ordering::Relaxed), &stop);
    assert_eq!((table.rows.len(), table.finished()), (1, 1));
    assert_eq!(table.runs_total, 8);
    assert!(!table.complete());
    let json = table.json();
    assert_eq!(json["complete"], false);
}

/// Issue 38 C: a lesson text of invisible characters only (a zero-width
/// space, joiners, a word joiner, a byte-order mark) is empty, and a title
/// with a control character (NUL, escape) is refused, naming the key.
#[test]
fn invisible_lesson_text_and_control_characters_in_titles_are_refused() {
    let dir = scratch("invisible");
    for (lesson, key, words) in [
        (
            "title = \"t\"\ntext = \"\\u200B\"",
            "lesson.text",
            "must not be empty",
        ),
        (
            "title = \"t\"\ntext = \" \\u200C\\u200D \\u2060\\uFEFF\\n\"",
            "lesson.text",
            "must not be empty",
        ),
        (
            "title = \"\\u200B\"\ntext = \"x\"",
            "lesson.title",
            "must not be empty",
        ),
        (
            "title = \"t\"\ntext = \"x\"\nquestions = [\"\\u200B\"]",
            "lesson.questions[0]",
            "must not be empty",
        ),
        (
            "title = \"a\\u0000b\"\ntext = \"x\"",
            "lesson.title",
            "control character",
        ),
        (
            "title = \"a\\u001Bb\"\ntext = \"x\"",
            "lesson.title",
            "control character",
        ),
    ] {
        let path = with_lesson(&dir, "bad.toml", &format!("[lesson]\n{lesson}"));
        let err = load_error(&path);
        assert!(
            err.contains(&format!("{key}: ")) && err.contains(words),
            "{lesson}: {err}"
        );
    }
    // Visible text around invisible characters is kept.
    let good = with_lesson(
        &dir,
        "good.toml",
        "[lesson]\ntitle = \"t\\u200Bt\"\ntext = \"\\u200Bx\"",
    );
    assert!(Scenario::load(&good).unwrap().lesson().is_some());
}
