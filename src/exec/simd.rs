//! The interpreter's one module with `unsafe`: the transcendental row
//! kernels of `math.rs` (SIN, COS, EX2, LG2, POW) compiled a second time
//! for AVX-512, so that 16 lanes fit one instruction, and chosen at run
//! time when the CPU has AVX-512 F/DQ/BW/VL.
//!
//! Both builds are the same Rust source, inlined into a function compiled
//! with more target features: IEEE operations give the same bits whatever
//! the vector width, and Rust never contracts a multiply and an add into an
//! FMA on its own, so the results are bit-identical (the test below checks
//! it on every class of input). Elsewhere every call returns `false` and
//! the caller runs the portable build.

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::super::math;
    use std::sync::OnceLock;

    /// Whether this CPU runs the AVX-512 builds (checked once).
    pub fn available() -> bool {
        static AVAILABLE: OnceLock<bool> = OnceLock::new();
        *AVAILABLE.get_or_init(|| {
            is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vl")
        })
    }

    /// Declares `pub fn NAME(args) -> bool`: runs the AVX-512 build of
    /// `PORTABLE(args)` and returns true, or returns false without running
    /// anything when the CPU lacks the features.
    macro_rules! wide {
        ($($name:ident / $wide:ident = $portable:path, ($($a:ident: $t:ty),+);)+) => {$(
            #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
            fn $wide<const N: usize>($($a: $t),+) {
                $portable($($a),+)
            }

            #[inline]
            pub fn $name<const N: usize>($($a: $t),+) -> bool {
                if !available() {
                    return false;
                }
                // SAFETY: `$wide` only needs the CPU features it is compiled
                // for, and `available()` has just confirmed the CPU has them.
                unsafe { $wide($($a),+) };
                true
            }
        )+};
    }

    wide! {
        sin / sin_wide = math::sin_lanes_portable, (x: &[u32; N], out: &mut [u32; N]);
        cos / cos_wide = math::cos_lanes_portable, (x: &[u32; N], out: &mut [u32; N]);
        ex2 / ex2_wide = math::ex2_lanes_portable, (x: &[u32; N], out: &mut [u32; N]);
        lg2 / lg2_wide = math::lg2_lanes_portable, (x: &[u32; N], out: &mut [u32; N]);
        pow / pow_wide = math::pow_lanes_portable, (x: &[u32; N], y: &[u32; N], out: &mut [u32; N]);
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    pub fn available() -> bool {
        false
    }
    pub fn sin<const N: usize>(_: &[u32; N], _: &mut [u32; N]) -> bool {
        false
    }
    pub fn cos<const N: usize>(_: &[u32; N], _: &mut [u32; N]) -> bool {
        false
    }
    pub fn ex2<const N: usize>(_: &[u32; N], _: &mut [u32; N]) -> bool {
        false
    }
    pub fn lg2<const N: usize>(_: &[u32; N], _: &mut [u32; N]) -> bool {
        false
    }
    pub fn pow<const N: usize>(_: &[u32; N], _: &[u32; N], _: &mut [u32; N]) -> bool {
        false
    }
}

pub use imp::{available, cos, ex2, lg2, pow, sin};

#[cfg(test)]
mod tests {
    use super::super::math;
    use crate::rng::Rng;

    /// The AVX-512 builds give the portable builds' bits on random words
    /// (every class: NaN, inf, subnormal, huge), ordinary arguments and rows
    /// of close arguments.
    #[test]
    fn wide_kernels_match_the_portable_ones_bit_for_bit() {
        if !super::available() {
            return;
        }
        let mut rng = Rng(0x5eed_0123_4567_89ab);
        for round in 0..20_000 {
            let base = rng.uniform(-100.0, 100.0);
            let row = |rng: &mut Rng| -> [u32; 16] {
                std::array::from_fn(|l| match round % 3 {
                    0 => rng.next() as u32,
                    1 => (rng.uniform(-1e3, 1e3) as f32).to_bits(),
                    _ => ((base + l as f64 * 1e-3) as f32).to_bits(),
                })
            };
            let (x, y) = (row(&mut rng), row(&mut rng));
            let (mut a, mut b) = ([0u32; 16], [0u32; 16]);
            type Kernel = (
                fn(&[u32; 16], &mut [u32; 16]) -> bool,
                fn(&[u32; 16], &mut [u32; 16]),
            );
            let unary: [Kernel; 4] = [
                (super::sin, math::sin_lanes_portable),
                (super::cos, math::cos_lanes_portable),
                (super::ex2, math::ex2_lanes_portable),
                (super::lg2, math::lg2_lanes_portable),
            ];
            for (k, (wide, portable)) in unary.iter().enumerate() {
                assert!(wide(&x, &mut a));
                portable(&x, &mut b);
                assert_eq!(a, b, "kernel {k} on {x:08x?}");
            }
            assert!(super::pow(&x, &y, &mut a));
            math::pow_lanes_portable(&x, &y, &mut b);
            assert_eq!(a, b, "pow on {x:08x?} {y:08x?}");
        }
    }
}
