//! The NaN rule of float operations: which NaN an operation gives, so that
//! every result bit is independent of the compiler and the host.

/// The NaN invalid float32 operations give.
pub const DEFAULT_NAN_F32: u32 = 0xffc0_0000;
/// The NaN invalid float64 operations give.
pub const DEFAULT_NAN_F64: u64 = 0xfff8_0000_0000_0000;

/// How a float operation's NaN result is chosen.
pub trait NanRule {
    /// `r`, the result of an operation on `operands` (in operand order).
    fn f32<const N: usize>(r: f32, operands: [f32; N]) -> f32;
    /// [`NanRule::f32`] for doubles.
    fn f64<const N: usize>(r: f64, operands: [f64; N]) -> f64;
}

/// The machine's rule: the first NaN operand quieted, else the default NaN.
pub enum Ruled {}

/// The host's result as it comes. It equals [`Ruled`]'s whenever it is not
/// NaN (a NaN operand or an invalid step always makes the result NaN), so a
/// row of lanes none of which is NaN needs nothing more; the fast kernels
/// compute a row this way and recompute it with [`Ruled`] only when a lane
/// is NaN.
pub enum Host {}

impl NanRule for Ruled {
    #[inline(always)]
    fn f32<const N: usize>(r: f32, operands: [f32; N]) -> f32 {
        if !r.is_nan() {
            return r;
        }
        for o in operands {
            if o.is_nan() {
                return f32::from_bits(o.to_bits() | 0x0040_0000);
            }
        }
        f32::from_bits(DEFAULT_NAN_F32)
    }

    #[inline(always)]
    fn f64<const N: usize>(r: f64, operands: [f64; N]) -> f64 {
        if !r.is_nan() {
            return r;
        }
        for o in operands {
            if o.is_nan() {
                return f64::from_bits(o.to_bits() | 0x0008_0000_0000_0000);
            }
        }
        f64::from_bits(DEFAULT_NAN_F64)
    }
}

impl NanRule for Host {
    #[inline(always)]
    fn f32<const N: usize>(r: f32, _: [f32; N]) -> f32 {
        r
    }

    #[inline(always)]
    fn f64<const N: usize>(r: f64, _: [f64; N]) -> f64 {
        r
    }
}
