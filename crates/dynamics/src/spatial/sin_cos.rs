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
    if !in_range(x) {
        return x.sin_cos();
    }
    sin_cos_in_range(x)
}

/// `(sin x, cos x)` of every `x` in `xs`, into `sines` and `cosines` (as
/// many as `xs`), the same bits as [`sin_cos`] one by one. The kernel has
/// no branch, so the loop runs as vectors (two, four or eight lanes,
/// depending on the instruction set the caller is compiled for), and a
/// random angle's quadrant costs no mispredicted branch. Always inlined, so
/// that it is compiled for its caller's instruction set.
#[inline(always)]
pub fn sin_cos_batch(xs: &[f64], sines: &mut [f64], cosines: &mut [f64]) {
    let (sines, cosines) = (&mut sines[..xs.len()], &mut cosines[..xs.len()]);
    for ((x, s), c) in xs.iter().zip(sines.iter_mut()).zip(cosines.iter_mut()) {
        (*s, *c) = sin_cos_in_range(*x);
    }
    // A fold, not `all`: no early exit, so it runs as vectors too.
    if !xs.iter().fold(true, |ok, &x| ok & in_range(x)) {
        for ((x, s), c) in xs.iter().zip(sines.iter_mut()).zip(cosines.iter_mut()) {
            if !in_range(*x) {
                (*s, *c) = x.sin_cos();
            }
        }
    }
}

/// Whether x is finite with |x| <= 1e5, where the reduction below is exact.
#[inline(always)]
fn in_range(x: f64) -> bool {
    x.abs() <= 1e5
}

/// 1.5 * 2^52: a double in [2^52, 2^53) has spacing 1, so adding it to
/// |y| < 2^51 rounds y to the nearest integer k and leaves k's low bits
/// (two's complement) in the mantissa's.
const ROUND: f64 = 6_755_399_441_055_744.0;

/// The reduction and the kernels, without a branch or a float-integer
/// conversion, so that a loop of them runs as vectors (garbage outside
/// [`in_range`], never a panic).
#[inline(always)]
fn sin_cos_in_range(x: f64) -> (f64, f64) {
    // Nearest multiple k of pi/2 (a tie either way leaves |r| at most just
    // above pi/4, where the kernels are still accurate); k mod 4 from the
    // shifted sum's low bits.
    let shifted = x * FRAC_2_PI + ROUND;
    let k = shifted - ROUND;
    let quadrant = shifted.to_bits();
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    let z = r * r;
    let s = r + r * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    let c =
        w + (((1.0 - w) - hz) + z * z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6))))));
    // Quadrant k mod 4 gives (s, c), (c, -s), (-s, -c), (-c, s): odd k
    // swaps the two, bit 1 of k negates the sine, bit 1 of k + 1 the cosine.
    let (sin, cos) = if quadrant & 1 != 0 { (c, s) } else { (s, c) };
    let negate = |v: f64, bits: u64| f64::from_bits(v.to_bits() ^ ((bits & 2) << 62));
    (negate(sin, quadrant), negate(cos, quadrant.wrapping_add(1)))
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

    /// The batch gives the scalar function's bits, in range, at the
    /// quadrant boundaries and beyond 1e5 (where both fall back).
    #[test]
    fn the_batch_matches_the_scalar_function_bit_for_bit() {
        let mut xs: Vec<f64> = (-4000..4000).map(|i| i as f64 * 0.0137).collect();
        for k in -50..50 {
            let b = k as f64 * std::f64::consts::FRAC_PI_4;
            xs.extend([b, b.next_up(), b.next_down(), -0.0]);
        }
        xs.extend([
            1e5,
            -1e5,
            1e5f64.next_up(),
            3e9,
            -1e300,
            f64::NAN,
            f64::INFINITY,
        ]);
        let (mut s, mut c) = (vec![0.0; xs.len()], vec![0.0; xs.len()]);
        sin_cos_batch(&xs, &mut s, &mut c);
        for (i, &x) in xs.iter().enumerate() {
            let (s0, c0) = sin_cos(x);
            assert_eq!(s[i].to_bits(), s0.to_bits(), "sin {x:e}");
            assert_eq!(c[i].to_bits(), c0.to_bits(), "cos {x:e}");
        }
    }
}
