//! Sine and cosine together for joint angles: Cody-Waite reduction by pi/2
//! and the minimax kernels of fdlibm (k_sin.c, k_cos.c; Sun Microsystems,
//! freely redistributable), within 1 ulp of the correctly rounded result
//! for |x| < 1e5. glibc's `sincos` costs about three times as much here
//! (it saves and restores the floating-point environment), and joint
//! transforms call it once per revolute joint in every algorithm.

// The constants are fdlibm's published decimal strings, kept verbatim so they
// can be checked against the source; they round to the intended doubles.
#![allow(clippy::excessive_precision)]

use std::f64::consts::FRAC_2_PI;

// pi/2 split into three parts whose products with |k| < 2^20 are exact.
const PIO2_1: f64 = 1.570_796_326_734_125_614_17e+00;
const PIO2_2: f64 = 6.077_100_506_303_965_976_60e-11;
const PIO2_3: f64 = 2.022_266_248_795_950_631_54e-21;

const S1: f64 = -1.666_666_666_666_663_243_48e-01;
const S2: f64 = 8.333_333_333_322_489_461_24e-03;
const S3: f64 = -1.984_126_982_985_794_931_34e-04;
const S4: f64 = 2.755_731_370_707_006_767_89e-06;
const S5: f64 = -2.505_076_025_340_686_341_95e-08;
const S6: f64 = 1.589_690_995_211_550_102_21e-10;

const C1: f64 = 4.166_666_666_666_660_190_37e-02;
const C2: f64 = -1.388_888_888_887_410_957_49e-03;
const C3: f64 = 2.480_158_728_947_672_941_78e-05;
const C4: f64 = -2.755_731_435_139_066_330_35e-07;
const C5: f64 = 2.087_572_321_298_174_827_90e-09;
const C6: f64 = -1.135_964_755_778_819_482_65e-11;

/// `(sin x, cos x)`; falls back to the standard library beyond |x| = 1e5
/// and for non-finite x.
#[inline]
pub fn sin_cos(x: f64) -> (f64, f64) {
    if x.abs() > 1e5 || !x.is_finite() {
        return x.sin_cos();
    }
    // Nearest multiple of pi/2 by truncation (inline, where `round` is a
    // libm call on baseline x86-64); a tie rounded the other way leaves
    // |r| just above pi/4, where the kernels are still accurate.
    let k = (x * FRAC_2_PI + 0.5f64.copysign(x)) as i64 as f64;
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    let z = r * r;
    let s = r + r * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    let c =
        w + (((1.0 - w) - hz) + z * z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6))))));
    match (k as i64) & 3 {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_standard_library_to_an_ulp() {
        let mut worst: f64 = 0.0;
        let mut x = -1.0e4_f64;
        // A dense sweep plus the quadrant boundaries and midpoints, where
        // reduction is delicate.
        let mut samples: Vec<f64> = Vec::new();
        while x < 1.0e4 {
            samples.push(x);
            x += 0.012_345_678_9;
        }
        for k in -1000..1000 {
            let b = k as f64 * std::f64::consts::FRAC_PI_2;
            samples.extend([b, b.next_up(), b.next_down(), b + 1e-9, b - 1e-9]);
            // Midway between two multiples, where the quadrant is a tie.
            let m = (k as f64 + 0.5) * std::f64::consts::FRAC_PI_2;
            samples.extend([m, m.next_up(), m.next_down()]);
        }
        samples.extend([0.0, -0.0, 1e-300, -1e-300, 1e5, -1e5, 3e5, 1e300]);
        for &x in &samples {
            let (s, c) = sin_cos(x);
            let (s0, c0) = x.sin_cos();
            worst = worst.max((s - s0).abs()).max((c - c0).abs());
        }
        // Values lie in [-1, 1], where one ulp is at most 2.2e-16.
        assert!(worst <= 2.3e-16, "worst absolute difference {worst:e}");
        assert!(sin_cos(f64::NAN).0.is_nan() && sin_cos(f64::INFINITY).1.is_nan());
    }
}
