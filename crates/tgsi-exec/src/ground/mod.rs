//! The ground floor of the machine: what the interpreter and the texture
//! engine both stand on and neither owns. The lane count of a batch, the
//! shared words buffers are lent as, the NaN rule of float operations and
//! the half-float conversions.

pub mod half;
pub mod nan;
pub mod words;

/// Lanes executed together.
pub const LANES: usize = 16;
