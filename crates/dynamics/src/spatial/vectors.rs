//! Spatial motion and force vectors and their cross products
//! (Featherstone 2008, eqs. 2.31-2.33; Echeandia & Wensing (2021), eqs. 7-9).

use super::Vec3;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A spatial motion vector `[angular; linear]` (velocity, acceleration, joint axis).
/// `repr(C)`: the six components lie in order, so [`Motion::dot`]'s lane
/// pairs are adjacent in memory (as in [`Force`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Motion {
    /// Angular part (rad/s for a velocity).
    pub ang: Vec3,
    /// Linear part: the velocity of the body-fixed point at the frame origin
    /// (m/s for a velocity).
    pub lin: Vec3,
}

/// A spatial force vector `[moment; force]` (wrench, momentum).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Force {
    /// Moment about the frame origin (N m).
    pub ang: Vec3,
    /// Force (N).
    pub lin: Vec3,
}

impl Motion {
    /// Unit vector `e_i` of `[angular; linear]`.
    ///
    /// # Panics
    /// If `i >= 6`.
    pub fn unit(i: usize) -> Self {
        let mut m = Self::zero();
        if i < 3 {
            m.ang[i] = 1.0;
        } else {
            m.lin[i - 3] = 1.0;
        }
        m
    }
    /// Motion-motion cross product `self x m` (Featherstone eq. 2.31).
    #[inline]
    pub fn cross(&self, m: &Motion) -> Motion {
        Motion {
            ang: self.ang.cross(&m.ang),
            lin: self.ang.cross(&m.lin) + self.lin.cross(&m.ang),
        }
    }
    /// Motion-force cross product `self x* f` (Featherstone eq. 2.32).
    #[inline]
    pub fn cross_force(&self, f: &Force) -> Force {
        Force {
            ang: self.ang.cross(&f.ang) + self.lin.cross(&f.lin),
            lin: self.ang.cross(&f.lin),
        }
    }
    /// Power pairing `self . f`, summed as two interleaved halves
    /// (components 0, 2, 4 and 1, 3, 5), each the lane of a two-lane
    /// vector on x86-64 (SSE2, part of its baseline): the compiler does not
    /// pair these products itself, and this product is the inner loop of
    /// the CRBA and of the Christoffel symbols. Both paths round alike.
    #[inline]
    pub fn dot(&self, f: &Force) -> f64 {
        let (a, b) = (self, f);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                _mm_add_pd, _mm_cvtsd_f64, _mm_mul_pd, _mm_set_pd, _mm_unpackhi_pd,
            };
            // SAFETY: SSE2 is part of the x86-64 baseline, so these
            // intrinsics are available on every x86-64 target.
            unsafe {
                // Lanes [x, y]: the even and the odd half.
                let pair = |x: f64, y: f64| _mm_set_pd(y, x);
                let first = _mm_mul_pd(pair(a.ang.x, a.ang.y), pair(b.ang.x, b.ang.y));
                let second = _mm_mul_pd(pair(a.ang.z, a.lin.x), pair(b.ang.z, b.lin.x));
                let third = _mm_mul_pd(pair(a.lin.y, a.lin.z), pair(b.lin.y, b.lin.z));
                let halves = _mm_add_pd(_mm_add_pd(first, second), third);
                _mm_cvtsd_f64(halves) + _mm_cvtsd_f64(_mm_unpackhi_pd(halves, halves))
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let even = a.ang.x * b.ang.x + a.ang.z * b.ang.z + a.lin.y * b.lin.y;
            let odd = a.ang.y * b.ang.y + a.lin.x * b.lin.x + a.lin.z * b.lin.z;
            even + odd
        }
    }
    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.ang
            .iter()
            .chain(self.lin.iter())
            .all(|x| x.is_finite())
    }
}

/// Constructors, component access and the vector-space operations shared by
/// motion and force vectors.
macro_rules! impl_linear_ops {
    ($t:ident) => {
        impl $t {
            /// The vector `[ang; lin]`.
            pub const fn new(ang: Vec3, lin: Vec3) -> Self {
                Self { ang, lin }
            }
            /// The zero vector.
            pub fn zero() -> Self {
                Self::default()
            }
            /// Component `i` of `[angular; linear]`.
            ///
            /// # Panics
            /// If `i >= 6`.
            #[inline]
            pub fn get(&self, i: usize) -> f64 {
                if i < 3 {
                    self.ang[i]
                } else {
                    self.lin[i - 3]
                }
            }
            /// The components `[angular; linear]` as an array.
            #[inline]
            pub fn to_array(&self) -> [f64; 6] {
                let (a, l) = (&self.ang, &self.lin);
                [a.x, a.y, a.z, l.x, l.y, l.z]
            }
        }
        impl Add for $t {
            type Output = $t;
            #[inline]
            fn add(self, o: $t) -> $t {
                $t {
                    ang: self.ang + o.ang,
                    lin: self.lin + o.lin,
                }
            }
        }
        impl Sub for $t {
            type Output = $t;
            #[inline]
            fn sub(self, o: $t) -> $t {
                $t {
                    ang: self.ang - o.ang,
                    lin: self.lin - o.lin,
                }
            }
        }
        impl AddAssign for $t {
            #[inline]
            fn add_assign(&mut self, o: $t) {
                self.ang += o.ang;
                self.lin += o.lin;
            }
        }
        impl SubAssign for $t {
            #[inline]
            fn sub_assign(&mut self, o: $t) {
                self.ang -= o.ang;
                self.lin -= o.lin;
            }
        }
        impl Neg for $t {
            type Output = $t;
            #[inline]
            fn neg(self) -> $t {
                $t {
                    ang: -self.ang,
                    lin: -self.lin,
                }
            }
        }
        impl Mul<f64> for $t {
            type Output = $t;
            #[inline]
            fn mul(self, s: f64) -> $t {
                $t {
                    ang: self.ang * s,
                    lin: self.lin * s,
                }
            }
        }
    };
}
impl_linear_ops!(Motion);
impl_linear_ops!(Force);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_sums_the_even_and_the_odd_components_in_order() {
        // The two-lane dot must round exactly as the scalar form: components
        // 0, 2, 4 and 1, 3, 5 summed left to right, then the two halves.
        // With these one-decimal values that order gives 1.3500000000000003
        // and the left-to-right sum of the six products 1.35.
        let a = [1.5, -1.6, -1.5, -1.1, 1.9, -0.3];
        let b = [0.5, -0.8, 0.0, -0.5, -0.6, 0.3];
        let m = Motion::new(Vec3::new(a[0], a[1], a[2]), Vec3::new(a[3], a[4], a[5]));
        let f = Force::new(Vec3::new(b[0], b[1], b[2]), Vec3::new(b[3], b[4], b[5]));
        let p: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let halves = (p[0] + p[2] + p[4]) + (p[1] + p[3] + p[5]);
        assert_eq!(m.dot(&f).to_bits(), halves.to_bits());
        let left_to_right: f64 = p.iter().sum();
        assert_ne!(
            halves.to_bits(),
            left_to_right.to_bits(),
            "orders indistinguishable"
        );
    }

    #[test]
    fn cross_products_are_adjoint() {
        // (v x)^T = -(v x*): w . (v x* f) = -(v x w) . f  (Echeandia & Wensing (2021), eq. 9)
        let v = Motion::new(Vec3::new(0.3, -1.2, 0.7), Vec3::new(2.0, 0.1, -0.4));
        let w = Motion::new(Vec3::new(-0.5, 0.9, 1.1), Vec3::new(0.2, -0.8, 0.6));
        let f = Force::new(Vec3::new(1.5, 0.4, -0.2), Vec3::new(-0.3, 0.6, 0.9));
        let lhs = w.dot(&v.cross_force(&f));
        let rhs = -v.cross(&w).dot(&f);
        assert!((lhs - rhs).abs() < 1e-14, "{lhs} vs {rhs}");
        assert!(v.cross(&v).ang.norm() + v.cross(&v).lin.norm() < 1e-15);
    }
}
