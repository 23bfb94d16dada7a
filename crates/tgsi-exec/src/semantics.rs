//! The machine's per-opcode semantics, said once: for every opcode the
//! machine computes lane by lane, its channel shape (how sources and
//! channels map onto the result), its scalar semantic function (in `ops`
//! or `math`) and its NaN rule. The interpreter's dispatch (`alu.rs`) and
//! its fast kernels (`fast.rs`) are both generated from this one table,
//! [`LANE_OPS`] describes it at run time (the compiled engine's templates
//! and the opcode table's channel column are checked against it), and the
//! scalar functions themselves are the only place an opcode's arithmetic
//! is written.
//!
//! An entry is `OPCODE => shape(arguments);`, the shapes being:
//!
//! * `comp(n, f)`: per component, `n` sources, `f` on each lane;
//! * `comp_ruled(n, f, f_with)`: the same for a float operation whose NaN
//!   result the NaN rule chooses (`ops::f` under [`crate::ops::Ruled`],
//!   `ops::f_with::<R>` under any rule: the fast kernels compute a row with
//!   the host's NaNs and redo it with the rule only when a lane is NaN);
//! * `scalar_ruled(f, f_with)`: a replicated scalar of source 0's x, ruled;
//! * `row(f, fast)`, `row2(f)`: a replicated scalar computed a row at a
//!   time by a transcendental kernel of `math` (`fast`: the build the fast
//!   kernel inlines, the same bits);
//! * `dot(mask, f)`: a dot product of the channels in `mask`, replicated;
//! * `special(n, f)`: each channel its own formula, `n` sources;
//! * `pack(f)` / `pack_d3d(f, f_d3d)`: four channels to one replicated word
//!   (`f_d3d` under Direct3D's conversion rules); `unpack(f)`: one word to
//!   four channels;
//! * `pair(n, f)`, `pair_ruled(n, f, f_with)`: 64-bit channel pairs, `n`
//!   sources; `compare64(f)`: two pairs to a 32-bit boolean;
//!   `shift64([lo, hi], f)`: a pair and a 32-bit count read from source 1's
//!   channels `lo` (xy) and `hi` (zw); `widen(f)` 32 → 64 bits, `narrow(f)`
//!   64 → 32 bits.

use tgsi_ir::opcode::{Channels, Opcode, PairShape};

/// Calls `$m!` with the whole table (see the module docs).
macro_rules! for_each_lane_op {
    ($m:ident) => {
        $m! {
            // moves and address loads
            MOV => comp(1, |a| a);
            ARL => comp(1, ops::arl);
            ARR => comp(1, ops::arr);
            UARL => comp(1, ops::uarl);
            // float, per component
            ADD => comp_ruled(2, add, add_with);
            MUL => comp_ruled(2, mul, mul_with);
            MIN => comp(2, ops::min);
            MAX => comp(2, ops::max);
            SLT => comp(2, ops::slt);
            SGE => comp(2, ops::sge);
            SEQ => comp(2, ops::seq);
            SGT => comp(2, ops::sgt);
            SLE => comp(2, ops::sle);
            SNE => comp(2, ops::sne);
            DIV => comp_ruled(2, div, div_with);
            LDEXP => comp(2, ops::ldexp);
            FSEQ => comp(2, ops::fseq);
            FSGE => comp(2, ops::fsge);
            FSLT => comp(2, ops::fslt);
            FSNE => comp(2, ops::fsne);
            MAD => comp_ruled(3, mad, mad_with);
            LRP => comp_ruled(3, lrp, lrp_with);
            FMA => comp_ruled(3, fma, fma_with);
            CMP => comp(3, ops::cmp);
            FRC => comp_ruled(1, frc, frc_with);
            FLR => comp(1, ops::flr);
            ROUND => comp(1, ops::round);
            CEIL => comp(1, ops::ceil);
            TRUNC => comp(1, ops::trunc);
            SSG => comp(1, ops::ssg);
            // float, replicated scalar
            RCP => scalar_ruled(rcp, rcp_with);
            RSQ => scalar_ruled(rsq, rsq_with);
            SQRT => scalar_ruled(sqrt, sqrt_with);
            EX2 => row(math::ex2_lanes, math::ex2_lanes);
            LG2 => row(math::lg2_lanes, math::lg2_lanes);
            // the fast kernels inline the base-target build of SIN/COS (same
            // bits as the AVX-512 build, which measured slower there:
            // docs/numerics.md)
            COS => row(math::cos_lanes, math::cos_lanes_portable);
            SIN => row(math::sin_lanes, math::sin_lanes_portable);
            POW => row2(math::pow_lanes);
            DP2 => dot(0b0011, ops::dp2);
            DP3 => dot(0b0111, ops::dp3);
            DP4 => dot(0b1111, ops::dp4);
            // specials
            LIT => special(1, ops::lit);
            EXP => special(1, ops::exp);
            LOG => special(1, ops::log);
            DST => special(2, ops::dst);
            PK2H => pack_d3d(ops::pk2h, ops::pk2h_toward_zero);
            PK2US => pack(ops::pk2us);
            PK4B => pack(ops::pk4b);
            PK4UB => pack(ops::pk4ub);
            UP2H => unpack(ops::up2h);
            UP2US => unpack(ops::up2us);
            UP4B => unpack(ops::up4b);
            UP4UB => unpack(ops::up4ub);
            // conversions
            I2F => comp(1, ops::i2f);
            U2F => comp(1, ops::u2f);
            F2I => comp(1, ops::f2i);
            F2U => comp(1, ops::f2u);
            // integer
            NOT => comp(1, ops::not);
            INEG => comp(1, ops::ineg);
            IABS => comp(1, ops::iabs);
            ISSG => comp(1, ops::issg);
            BREV => comp(1, ops::brev);
            POPC => comp(1, ops::popc);
            LSB => comp(1, ops::lsb);
            IMSB => comp(1, ops::imsb);
            UMSB => comp(1, ops::umsb);
            SHL => comp(2, ops::shl);
            AND => comp(2, ops::and);
            OR => comp(2, ops::or);
            XOR => comp(2, ops::xor);
            MOD => comp(2, ops::mod_signed);
            IDIV => comp(2, ops::idiv);
            IMAX => comp(2, ops::imax);
            IMIN => comp(2, ops::imin);
            ISGE => comp(2, ops::isge);
            ISHR => comp(2, ops::ishr);
            ISLT => comp(2, ops::islt);
            UADD => comp(2, ops::uadd);
            UDIV => comp(2, ops::udiv);
            UMAX => comp(2, ops::umax);
            UMIN => comp(2, ops::umin);
            UMOD => comp(2, ops::umod);
            UMUL => comp(2, ops::umul);
            USEQ => comp(2, ops::useq);
            USGE => comp(2, ops::usge);
            USHR => comp(2, ops::ushr);
            USLT => comp(2, ops::uslt);
            USNE => comp(2, ops::usne);
            IMUL_HI => comp(2, ops::imul_hi);
            UMUL_HI => comp(2, ops::umul_hi);
            UMAD => comp(3, ops::umad);
            UCMP => comp(3, ops::ucmp);
            IBFE => comp(3, ops::ibfe);
            UBFE => comp(3, ops::ubfe);
            BFI => comp(4, ops::bfi);
            // 64-bit: unary
            DABS => pair(1, ops::dabs);
            DNEG => pair(1, ops::dneg);
            DRCP => pair_ruled(1, drcp, drcp_with);
            DSQRT => pair_ruled(1, dsqrt, dsqrt_with);
            DRSQ => pair_ruled(1, drsq, drsq_with);
            DFRAC => pair_ruled(1, dfrac, dfrac_with);
            DTRUNC => pair(1, ops::dtrunc);
            DCEIL => pair(1, ops::dceil);
            DFLR => pair(1, ops::dflr);
            DROUND => pair(1, ops::dround);
            DSSG => pair(1, ops::dssg);
            I64ABS => pair(1, ops::i64abs);
            I64SSG => pair(1, ops::i64ssg);
            I64NEG => pair(1, ops::i64neg);
            D2U64 => pair(1, ops::d2u64);
            D2I64 => pair(1, ops::d2i64);
            U642D => pair(1, ops::u642d);
            I642D => pair(1, ops::i642d);
            // 64-bit: binary
            DADD => pair_ruled(2, dadd, dadd_with);
            DMUL => pair_ruled(2, dmul, dmul_with);
            DMAX => pair(2, ops::dmax);
            DMIN => pair(2, ops::dmin);
            DDIV => pair_ruled(2, ddiv, ddiv_with);
            U64ADD => pair(2, ops::u64add);
            U64MUL => pair(2, ops::u64mul);
            U64DIV => pair(2, ops::u64div);
            I64DIV => pair(2, ops::i64div);
            U64MOD => pair(2, ops::u64mod);
            I64MOD => pair(2, ops::i64mod);
            I64MIN => pair(2, ops::i64min);
            U64MIN => pair(2, ops::u64min);
            I64MAX => pair(2, ops::i64max);
            U64MAX => pair(2, ops::u64max);
            // 64-bit: ternary
            DMAD => pair_ruled(3, dmad, dmad_with);
            DFMA => pair_ruled(3, dfma, dfma_with);
            // 64-bit: compares
            DSLT => compare64(ops::dslt);
            DSGE => compare64(ops::dsge);
            DSEQ => compare64(ops::dseq);
            DSNE => compare64(ops::dsne);
            U64SEQ => compare64(ops::u64seq);
            U64SNE => compare64(ops::u64sne);
            U64SLT => compare64(ops::u64slt);
            U64SGE => compare64(ops::u64sge);
            I64SLT => compare64(ops::i64slt);
            I64SGE => compare64(ops::i64sge);
            // 64-bit with a 32-bit count: shifts read src1.x / src1.y,
            // DLDEXP src1.x / src1.z
            U64SHL => shift64([0, 1], ops::u64shl);
            I64SHR => shift64([0, 1], ops::i64shr);
            U64SHR => shift64([0, 1], ops::u64shr);
            DLDEXP => shift64([0, 2], ops::dldexp);
            // 32 → 64
            F2D => widen(ops::f2d);
            I2D => widen(ops::i2d);
            U2D => widen(ops::u2d);
            F2U64 => widen(ops::f2u64);
            F2I64 => widen(ops::f2i64);
            U2I64 => widen(ops::u2i64);
            I2I64 => widen(ops::i2i64);
            // 64 → 32
            D2F => narrow(ops::d2f);
            D2I => narrow(ops::d2i);
            D2U => narrow(ops::d2u);
            U642F => narrow(ops::u642f);
            I642F => narrow(ops::i642f);
        }
    };
}
pub(crate) use for_each_lane_op;

/// The shape of a lane-wise opcode, as the table states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneShape {
    /// Per component, n 32-bit sources.
    Component(u8),
    /// A replicated scalar of n sources' x channels (RCP ... POW).
    Scalar(u8),
    /// A dot product over the channels of the mask, replicated.
    Dot(u8),
    /// Each channel its own formula, n sources.
    Special(u8),
    /// Four channels to one replicated word.
    Pack,
    /// One word to four channels.
    Unpack,
    /// 64-bit channel pairs.
    Pair(PairShape),
}

impl LaneShape {
    /// The channel behaviour the opcode table must state for this shape.
    pub fn channels(self) -> Channels {
        match self {
            LaneShape::Component(_) => Channels::Component,
            LaneShape::Scalar(_) | LaneShape::Dot(_) | LaneShape::Pack => Channels::Scalar,
            LaneShape::Special(_) | LaneShape::Unpack => Channels::Special,
            LaneShape::Pair(p) => Channels::Pair64(p),
        }
    }

    /// The sources the shape reads.
    pub fn sources(self) -> u8 {
        match self {
            LaneShape::Component(n) | LaneShape::Scalar(n) | LaneShape::Special(n) => n,
            LaneShape::Dot(_) => 2,
            LaneShape::Pack | LaneShape::Unpack => 1,
            LaneShape::Pair(PairShape::Unary | PairShape::Widen | PairShape::Narrow) => 1,
            LaneShape::Pair(PairShape::Ternary) => 3,
            LaneShape::Pair(_) => 2,
        }
    }
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneOp {
    pub op: Opcode,
    pub shape: LaneShape,
    /// A float operation whose NaN result the NaN rule chooses
    /// ([`crate::ops::NanRule`]); the others define every result bit
    /// themselves.
    pub ruled: bool,
}

macro_rules! describe {
    (@shape comp($n:literal, $($rest:tt)*)) => { LaneShape::Component($n) };
    (@shape comp_ruled($n:literal, $($rest:tt)*)) => { LaneShape::Component($n) };
    (@shape scalar_ruled($($rest:tt)*)) => { LaneShape::Scalar(1) };
    (@shape row($($rest:tt)*)) => { LaneShape::Scalar(1) };
    (@shape row2($($rest:tt)*)) => { LaneShape::Scalar(2) };
    (@shape dot($mask:literal, $($rest:tt)*)) => { LaneShape::Dot($mask) };
    (@shape special($n:literal, $($rest:tt)*)) => { LaneShape::Special($n) };
    (@shape pack($($rest:tt)*)) => { LaneShape::Pack };
    (@shape pack_d3d($($rest:tt)*)) => { LaneShape::Pack };
    (@shape unpack($($rest:tt)*)) => { LaneShape::Unpack };
    (@shape pair(1, $($rest:tt)*)) => { LaneShape::Pair(PairShape::Unary) };
    (@shape pair(2, $($rest:tt)*)) => { LaneShape::Pair(PairShape::Binary) };
    (@shape pair(3, $($rest:tt)*)) => { LaneShape::Pair(PairShape::Ternary) };
    (@shape pair_ruled(1, $($rest:tt)*)) => { LaneShape::Pair(PairShape::Unary) };
    (@shape pair_ruled(2, $($rest:tt)*)) => { LaneShape::Pair(PairShape::Binary) };
    (@shape pair_ruled(3, $($rest:tt)*)) => { LaneShape::Pair(PairShape::Ternary) };
    (@shape compare64($($rest:tt)*)) => { LaneShape::Pair(PairShape::Compare) };
    (@shape shift64($($rest:tt)*)) => { LaneShape::Pair(PairShape::Shift) };
    (@shape widen($($rest:tt)*)) => { LaneShape::Pair(PairShape::Widen) };
    (@shape narrow($($rest:tt)*)) => { LaneShape::Pair(PairShape::Narrow) };
    (@ruled comp_ruled) => { true };
    (@ruled scalar_ruled) => { true };
    (@ruled pair_ruled) => { true };
    (@ruled $other:ident) => { false };
    ($($op:ident => $shape:ident($($arg:tt)*);)*) => {
        /// Every lane-wise opcode of the machine with its shape and NaN rule.
        pub const LANE_OPS: &[LaneOp] = &[$(
            LaneOp {
                op: Opcode::$op,
                shape: describe!(@shape $shape($($arg)*)),
                ruled: describe!(@ruled $shape),
            },
        )*];
    };
}
for_each_lane_op!(describe);

/// The table's row for `op`, if the machine computes it lane by lane.
pub fn lane_op(op: Opcode) -> Option<&'static LaneOp> {
    LANE_OPS.iter().find(|l| l.op == op)
}

/// The channels opcode `op` really writes through destination `k` with
/// writemask `mask` (the machine's 64-bit pair rules, see `alu.rs`; a
/// compare's and a narrowing conversion's from [`PairShape::written_words`]).
pub fn written_channels(op: Opcode, k: usize, mask: u8) -> u8 {
    let both = |m: u8| ((m & 3 == 3) as u8 * 3) | ((m & 12 == 12) as u8 * 12);
    let any = |m: u8| ((m & 3 != 0) as u8 * 3) | ((m & 12 != 0) as u8 * 12);
    match op.info().channels {
        Channels::Pair64(shape) if k == 0 => match shape {
            PairShape::Unary | PairShape::Ternary | PairShape::Widen | PairShape::FracExp => {
                both(mask)
            }
            PairShape::Binary | PairShape::Shift => any(mask),
            PairShape::Compare | PairShape::Narrow => shape.written_words(mask),
        },
        _ => mask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table agrees with the opcode table: the same channel behaviour and
    /// source count, one row per opcode, only arithmetic categories.
    #[test]
    fn lane_ops_agree_with_the_opcode_table() {
        let mut seen = std::collections::HashSet::new();
        let mut wrong = Vec::new();
        for l in LANE_OPS {
            assert!(seen.insert(l.op), "{} twice", l.op);
            let info = l.op.info();
            if (info.channels, info.num_src, info.num_dst)
                != (l.shape.channels(), l.shape.sources(), 1)
            {
                wrong.push(format!(
                    "{}: the opcode table says {:?} with {} sources, the semantics {:?}",
                    l.op, info.channels, info.num_src, l.shape
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        assert!(LANE_OPS.len() >= 150, "{} lane ops", LANE_OPS.len());
    }

    /// Every opcode of the arithmetic categories is in the table, but for
    /// those the machine runs otherwise (DFRACEXP's two destinations, the
    /// CLOCK counter).
    #[test]
    fn every_arithmetic_opcode_has_its_semantics() {
        use tgsi_ir::opcode::Category as C;
        let missing: Vec<&str> = (0..=u8::MAX)
            .filter_map(Opcode::from_u8)
            .filter(|op| {
                matches!(
                    op.info().category,
                    C::FloatAlu | C::Integer | C::Int64 | C::Double | C::Conversion | C::Pack
                )
            })
            .filter(|op| !matches!(op, Opcode::DFRACEXP | Opcode::CLOCK))
            .filter(|&op| lane_op(op).is_none())
            .map(Opcode::name)
            .collect();
        assert!(missing.is_empty(), "no semantics: {}", missing.join(" "));
    }
}
