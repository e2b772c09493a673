//! Run-time choice of instruction set for the hot algorithms: the same
//! always-inlined body compiled for AVX-512, AVX2 or the x86-64 baseline,
//! the widest the CPU has. Rust never contracts a * b + c into a fused
//! multiply-add unless asked (`mul_add`), so every build does the same
//! arithmetic in the same order and gives the same bits.

/// An instruction set a body can be compiled for, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Simd {
    /// The target's baseline (SSE2 on x86-64).
    Portable,
    /// AVX2: three-operand VEX instructions, four-lane vectors.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 F, VL and DQ: 32 vector registers, eight-lane vectors,
    /// packed float-integer conversions.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Simd {
    /// Every instruction set this CPU runs, the baseline first.
    pub(crate) fn available() -> impl Iterator<Item = Simd> {
        let all = [
            Simd::Portable,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512,
        ];
        all.into_iter().filter(|s| s.is_available())
    }

    /// The widest instruction set this CPU runs, or the widest up to the
    /// one named by the environment variable `PASSIVITY_SIMD` (`portable`,
    /// `avx2`, `avx512`; read once), to time or check the narrower builds.
    #[inline]
    pub(crate) fn best() -> Simd {
        static BEST: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            let cap = std::env::var("PASSIVITY_SIMD").ok();
            let within = |s: &Simd| match cap.as_deref() {
                Some("portable") => *s == Simd::Portable,
                #[cfg(target_arch = "x86_64")]
                Some("avx2") => *s != Simd::Avx512,
                _ => true,
            };
            Self::available()
                .filter(within)
                .last()
                .unwrap_or(Simd::Portable)
        })
    }

    /// [`Simd::best`], but no wider than AVX2: for a body whose AVX-512
    /// build is measured slower than its AVX2 build.
    #[inline]
    pub(crate) fn best_up_to_avx2() -> Simd {
        #[cfg(target_arch = "x86_64")]
        return Self::best().min(Simd::Avx2);
        #[cfg(not(target_arch = "x86_64"))]
        return Self::best();
    }

    /// Whether this CPU runs `self` (cached by the standard library).
    #[inline]
    fn is_available(self) -> bool {
        match self {
            Simd::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
            }
        }
    }

    /// Runs `kernel` compiled for `self`: its `run` (`#[inline(always)]`,
    /// with all it calls) is inlined into a function built with these
    /// target features. (A closure would not do: its body is a function of
    /// its own, compiled for the baseline, which the compiler may leave
    /// out of line.)
    ///
    /// # Panics
    /// If the CPU does not run `self` (never for [`Simd::best`] and
    /// [`Simd::available`]).
    #[inline(always)]
    pub(crate) fn run<K: Kernel>(self, kernel: K) -> K::Output {
        assert!(self.is_available(), "{self:?} is not available on this CPU");
        match self {
            Simd::Portable => kernel.run(),
            // SAFETY: the CPU has AVX2, checked just above.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { run_avx2(kernel) },
            // SAFETY: the CPU has AVX-512 F, VL and DQ, checked just above.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { run_avx512(kernel) },
        }
    }
}

/// A computation with its inputs, to be compiled for each instruction set.
pub(crate) trait Kernel {
    /// What it returns.
    type Output;
    /// The computation; must be `#[inline(always)]`, as everything it calls
    /// in the hot path, or that part is compiled for the baseline only.
    fn run(self) -> Self::Output;
}

/// `kernel.run()` compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_avx2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

/// `kernel.run()` compiled for AVX-512 F, VL and DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq")]
unsafe fn run_avx512<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}
