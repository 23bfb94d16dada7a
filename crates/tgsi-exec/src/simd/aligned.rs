//! A batch's registers in storage aligned to 64 bytes ([`AlignedRegs`]):
//! each 16-lane row then fills one cache line, so a row's 512-bit load or
//! store (the compiled code's, the interpolation's) never straddles two
//! lines (measured: a straddling row costs the perspective inputs a fifth
//! more time).

use std::ops::{Deref, DerefMut};

/// One register (four rows of 16 words) on a 64-byte boundary. `repr(C)`
/// with one field of 256 bytes, a multiple of the alignment: no padding.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Aligned([[u32; 16]; 4]);

/// Registers as a slice of `[[u32; 16]; 4]`, every one 64-byte aligned.
#[derive(Clone)]
pub struct AlignedRegs(Vec<Aligned>);

impl AlignedRegs {
    /// `len` copies of `reg`.
    pub fn new(reg: [[u32; 16]; 4], len: usize) -> AlignedRegs {
        AlignedRegs(vec![Aligned(reg); len])
    }

    /// The first register's address, taken from the vector itself (no
    /// slice borrowed on the way): what compiled code is handed.
    pub fn as_mut_ptr(&mut self) -> *mut [[u32; 16]; 4] {
        self.0.as_mut_ptr().cast()
    }
}

impl Deref for AlignedRegs {
    type Target = [[[u32; 16]; 4]];

    fn deref(&self) -> &Self::Target {
        // SAFETY: `Aligned` is `repr(C)` around one `[[u32; 16]; 4]` with no
        // padding (256 bytes, a multiple of its alignment), so the vector's
        // `len` elements are `len` registers laid end to end, initialized,
        // borrowed for as long as `self`.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast(), self.0.len()) }
    }
}

impl DerefMut for AlignedRegs {
    fn deref_mut(&mut self) -> &mut Self::Target {
        // SAFETY: as in `deref`, borrowed mutably for as long as `self`.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast(), self.0.len()) }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_register_starts_a_cache_line_and_keeps_its_words() {
        let mut regs = super::AlignedRegs::new([[7; 16]; 4], 5);
        regs[3][2][15] = 9;
        assert_eq!(regs.len(), 5);
        for r in regs.iter() {
            assert_eq!(r.as_ptr() as usize % 64, 0);
        }
        assert_eq!(regs[3][2][15], 9);
        assert_eq!(regs[4], [[7; 16]; 4]);
        let copy = regs.clone();
        assert_eq!(copy[3][2][15], 9);
        assert_eq!(regs.as_mut_ptr().cast_const(), regs.as_ptr());
        let none = super::AlignedRegs::new([[0; 16]; 4], 0);
        assert!(none.is_empty());
    }
}
