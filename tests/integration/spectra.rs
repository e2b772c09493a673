//! Torsion raises the frequency content of the torques (issue 15 sec. 2),
//! measured on Wensing, Englsberger & Slotine's (2023) point-mass experiment: the torsion variant's
//! spectral centroid is above C*'s and grows with |beta|.

use crate::common;

use common::repo_path;
use passivity_lab::analysis::{power_spectrum, DEFAULT_CUTOFF_HZ};
use passivity_lab::scenario::{run_variant, variant_spectra, Scenario};

/// The shipped scenario with one variant per beta (0 meaning C*).
fn sweep(betas: &[f64]) -> Scenario {
    let path = repo_path("scenarios/point_mass_torsion.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let head = &text[..text.find("[[variants]]").unwrap()];
    let mut out = head.to_string();
    for (i, b) in betas.iter().enumerate() {
        let factorization = if *b == 0.0 {
            "{ kind = \"christoffel\" }".to_string()
        } else {
            format!("{{ kind = \"torsion\", beta = {b:?} }}")
        };
        out.push_str(&format!(
            "[[variants]]\nname = \"v{i}\"\nfactorization = {factorization}\n"
        ));
    }
    Scenario::parse(&out, &path).unwrap()
}

/// (torque centroid, torque share above the cutoff, contorsion-force
/// centroid) per variant of `scenario`.
fn centroids(scenario: &Scenario) -> Vec<(f64, f64, Option<f64>)> {
    scenario
        .variants()
        .unwrap()
        .into_iter()
        .map(|v| {
            let r = run_variant(v, &mut |_| {});
            assert!(r.divergence.is_none());
            // The contorsion force does no work on s (C - C* is skew and
            // (C - C*) q_dot = 0), so the Lyapunov function cannot see it.
            for x in &r.samples {
                let f: f64 = x.torsion_force.iter().map(|a| a.abs()).sum();
                assert!(
                    x.torsion_power.abs() <= 1e-12 * (1.0 + f),
                    "{}",
                    x.torsion_power
                );
            }
            let s = variant_spectra(&r);
            let torque = s.torque.summary(DEFAULT_CUTOFF_HZ);
            let torsion = s.torsion.unwrap().summary(DEFAULT_CUTOFF_HZ);
            (
                torque.centroid_hz.unwrap(),
                torque.share_above_cutoff.unwrap(),
                torsion.centroid_hz,
            )
        })
        .collect()
}

#[test]
fn torsion_raises_the_torque_centroid_and_it_grows_with_beta() {
    let betas = [0.0, -1.0, -2.5, -5.0, -7.5, -10.0];
    let c = centroids(&sweep(&betas));
    println!("beta    torque centroid [Hz]   share above {DEFAULT_CUTOFF_HZ} Hz   contorsion-force centroid [Hz]");
    for (b, (centroid, share, torsion)) in betas.iter().zip(&c) {
        let t = torsion.map_or("-".to_string(), |x| format!("{x:.4}"));
        println!("{b:>5}   {centroid:.4}                 {share:.4e}            {t}");
    }
    assert!(c[0].2.is_none(), "C* has no contorsion force");
    for w in c.windows(2) {
        assert!(w[1].0 > w[0].0, "the centroid grows with |beta|: {c:?}");
    }
    assert!(c[3].0 > 1.2 * c[0].0 && c[3].1 > 1e3 * c[0].1);
    // The embedded default is the shipped file: the same comparison.
    let d = centroids(&Scenario::embedded_default().unwrap());
    assert!(d[1].0 > d[0].0 && (d[1].0 - c[3].0).abs() < 1e-12, "{d:?}");
}

/// The spectrum's scaling: a sine of amplitude A at a bin frequency has
/// total power A^2 / 2 (its mean square) and its centroid at its frequency.
#[test]
fn power_spectrum_of_a_sine() {
    let (n, period, f, a) = (1000, 0.01, 5.0, 3.0);
    let s = power_spectrum(n, 1, period, |i, _| {
        a * (2.0 * std::f64::consts::PI * f * i as f64 * period).sin() + 7.0
    });
    let summary = s.summary(DEFAULT_CUTOFF_HZ);
    assert!(
        (summary.power - a * a / 2.0).abs() < 0.02 * a * a / 2.0,
        "{summary:?}"
    );
    assert!(
        (summary.centroid_hz.unwrap() - f).abs() < 0.05,
        "{summary:?}"
    );
    assert!(summary.share_above_cutoff.unwrap() > 0.999);
    let flat = power_spectrum(n, 2, period, |_, c| c as f64);
    assert_eq!(
        flat.summary(1.0).centroid_hz,
        None,
        "a constant has no centroid"
    );
}

/// The first variant of `point_mass_torsion` run with `simulation` as its
/// `[simulation]` table.
fn point_mass_run(simulation: &str) -> passivity_lab::scenario::VariantResult {
    let path = repo_path("scenarios/point_mass_torsion.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("[simulation]").unwrap();
    let end = start + text[start..].find("\n[").unwrap();
    let text = format!(
        "{}[simulation]\n{simulation}\n{}",
        &text[..start],
        &text[end + 1..]
    );
    let scenario = Scenario::parse(&text, &path).unwrap();
    let v = scenario.variants().unwrap().remove(0);
    run_variant(v, &mut |_| {})
}

/// The spectrum's samples are spaced by the record period: the last one,
/// at a run's end that a period does not divide, is left out (the rate was
/// taken as (samples - 1) / duration, 4 Hz for a period of 0.3 s over 0.5 s).
#[test]
fn the_spectrum_rate_is_the_record_period_even_when_it_does_not_divide_the_run() {
    let r = point_mass_run("duration = 1.0\nstep = 0.01\nrecord_period = 0.3");
    let times: Vec<f64> = r.samples.iter().map(|s| s.t).collect();
    assert_eq!(times.len(), 5, "{times:?}");
    assert!((times[4] - 1.0).abs() < 1e-12, "{times:?}");
    let rate = variant_spectra(&r).sample_rate_hz;
    assert!((rate - 1.0 / 0.3).abs() < 1e-9, "{rate}");
}

/// The sample rate is the record period's, not the samples' time
/// differences: a 10 ms period of 1 ms steps is 100 Hz exactly (the times,
/// sums of ten steps, gave 99.99999999999999).
#[test]
fn a_ten_millisecond_record_period_is_one_hundred_hertz_exactly() {
    let r = point_mass_run("duration = 0.5\nstep = 0.001\nrecord_period = 0.01");
    assert_ne!(
        r.samples[1].t - r.samples[0].t,
        0.01,
        "the times are accumulated"
    );
    assert_eq!(variant_spectra(&r).sample_rate_hz, 100.0);
}
