//! The row kernels of `math.rs` (SIN, COS, EX2, LG2, POW over 16-lane rows)
//! built a second time for AVX-512 and chosen at run time; the interpreter's
//! one module with `unsafe`, behind a safe API: each function runs the wide
//! build and returns true, or returns false without running anything on a
//! CPU without AVX-512 F/DQ/BW/VL (and on other architectures), and the
//! caller runs the portable build.
//!
//! Both builds are the same Rust source (`math::*_lanes_portable`), inlined
//! into a function compiled with more target features: every operation is
//! an IEEE operation or an explicit fused multiply-add (`mul_add`), which
//! give the same bits at any vector width, and Rust never contracts or
//! reorders floating-point operations on its own, so the results are
//! bit-identical; the test below checks it on 2^22 inputs of every class,
//! `tgsi bench ulp` on every f32 input.

/// A row of 16 lanes (raw f32 bits).
type Row = [u32; 16];

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::super as math;
    use super::Row;
    use std::sync::atomic::{AtomicU8, Ordering};

    /// What [`available`] found (0: not checked yet, 1: no, 2: yes).
    static STATE: AtomicU8 = AtomicU8::new(0);

    /// Whether this CPU runs the AVX-512 builds, checked once; inlined into
    /// every row function (one load and compare per row).
    #[inline(always)]
    pub fn available() -> bool {
        match STATE.load(Ordering::Relaxed) {
            0 => detect(),
            s => s == 2,
        }
    }

    /// The first [`available`]: asks the CPU and records the answer.
    #[cold]
    #[inline(never)]
    fn detect() -> bool {
        let yes = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl");
        STATE.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
        yes
    }

    /// Declares `pub fn NAME(args) -> bool`, running `PORTABLE(args)` compiled
    /// for AVX-512 (`WIDE`) when [`available`].
    macro_rules! wide {
        ($($name:ident / $wide:ident = $portable:path, ($($a:ident: $t:ty),+), $out:ident;)+) => {$(
            #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
            fn $wide($($a: $t),+, $out: &mut Row) {
                $portable($($a),+, $out)
            }

            #[inline]
            pub fn $name($($a: $t),+, $out: &mut Row) -> bool {
                if !available() {
                    return false;
                }
                // SAFETY: `$wide` needs only the CPU features it is compiled
                // for, and `available()` has confirmed this CPU has them.
                unsafe { $wide($($a),+, $out) };
                true
            }
        )+};
    }

    wide! {
        sin / sin_wide = math::sin_lanes_portable, (x: &Row), out;
        cos / cos_wide = math::cos_lanes_portable, (x: &Row), out;
        ex2 / ex2_wide = math::ex2_lanes_portable, (x: &Row), out;
        lg2 / lg2_wide = math::lg2_lanes_portable, (x: &Row), out;
        pow / pow_wide = math::pow_lanes_portable, (x: &Row, y: &Row), out;
    }

    /// Declares `pub fn NAME(x: &[Row], out: &mut [Row]) -> bool`: `PORTABLE`
    /// on each row (as many as the shorter slice has), the loop compiled for
    /// AVX-512 (`WIDE`) when [`available`].
    macro_rules! wide_rows {
        ($($name:ident / $wide:ident = $portable:path;)+) => {$(
            #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
            fn $wide(x: &[Row], out: &mut [Row]) {
                for (a, o) in x.iter().zip(out) {
                    $portable(a, o)
                }
            }

            #[inline]
            pub fn $name(x: &[Row], out: &mut [Row]) -> bool {
                if !available() {
                    return false;
                }
                // SAFETY: as in `wide!`: the CPU has the features `$wide`
                // is compiled for.
                unsafe { $wide(x, out) };
                true
            }
        )+};
    }

    wide_rows! {
        sin_rows / sin_rows_wide = math::sin_lanes_portable;
        cos_rows / cos_rows_wide = math::cos_lanes_portable;
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use super::Row;

    pub fn available() -> bool {
        false
    }
    pub fn sin(_: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn cos(_: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn ex2(_: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn lg2(_: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn pow(_: &Row, _: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn sin_rows(_: &[Row], _: &mut [Row]) -> bool {
        false
    }
    pub fn cos_rows(_: &[Row], _: &mut [Row]) -> bool {
        false
    }
}

pub use imp::{available, cos, cos_rows, ex2, lg2, pow, sin, sin_rows};

#[cfg(test)]
mod tests {
    use super::super as math;
    use super::Row;
    use tgsi_ir::rng::Rng;

    /// A row of the kind `round` picks: raw bit patterns (every class: NaN,
    /// inf, subnormal, huge), arguments where shaders live, the f32
    /// neighbours of multiples of π/2, rows of close arguments, ordinary
    /// positive operands, each of them sometimes with an edge value.
    fn row(rng: &mut Rng, round: usize) -> Row {
        let base = rng.uniform(-1e4, 1e4);
        let mut x: Row = std::array::from_fn(|l| match round % 6 {
            0 => rng.next() as u32,
            1 => (rng.uniform(-600.0, 600.0) as f32).to_bits(),
            2 => {
                let k = (rng.next() % (1 << 21)) as f64;
                let c = (k * std::f64::consts::FRAC_PI_2) as f32;
                (c.to_bits() as i32 + (rng.next() % 5) as i32 - 2) as u32
            }
            3 => ((base + l as f64 * 1e-3) as f32).to_bits(),
            4 => (rng.uniform(-2e6, 2e6) as f32).to_bits(),
            _ => {
                let m = 2f64.powf(rng.uniform(-126.0, 127.0));
                ((rng.uniform(0.5, 1.0) * m) as f32).to_bits()
            }
        });
        if round % 5 == 1 {
            let edges = tgsi_ir::rng::EDGE_F32;
            x[round % 16] = edges[(round / 5) % edges.len()];
        }
        x
    }

    /// The AVX-512 builds give the portable builds' bits on 2^22 lanes of
    /// every class (per function), and EX2 also on its ordinary range.
    #[test]
    fn wide_kernels_match_the_portable_ones_bit_for_bit() {
        if !super::available() {
            eprintln!("no AVX-512 on this CPU: nothing to compare");
            return;
        }
        type Unary = (&'static str, fn(&Row, &mut Row) -> bool, fn(&Row, &mut Row));
        let unary: [Unary; 4] = [
            ("sin", super::sin, math::sin_lanes_portable),
            ("cos", super::cos, math::cos_lanes_portable),
            ("ex2", super::ex2, math::ex2_lanes_portable),
            ("lg2", super::lg2, math::lg2_lanes_portable),
        ];
        let mut rng = Rng(0x5eed_0123_4567_89ab);
        let (mut a, mut b) = ([0u32; 16], [0u32; 16]);
        for round in 0..1 << 18 {
            let x = row(&mut rng, round);
            for (name, wide, portable) in &unary {
                assert!(wide(&x, &mut a));
                portable(&x, &mut b);
                assert_eq!(a, b, "{name} on {x:08x?}");
            }
            let e: Row = std::array::from_fn(|_| (rng.uniform(-130.0, 130.0) as f32).to_bits());
            assert!(super::ex2(&e, &mut a));
            math::ex2_lanes_portable(&e, &mut b);
            assert_eq!(a, b, "ex2 on {e:08x?}");
            let y = row(&mut rng, round / 6 * 6 + 1);
            assert!(super::pow(&x, &y, &mut a));
            math::pow_lanes_portable(&x, &y, &mut b);
            assert_eq!(a, b, "pow on {x:08x?} {y:08x?}");
        }
    }
}
