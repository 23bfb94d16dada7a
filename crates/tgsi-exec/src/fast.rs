//! Fast paths for the common arithmetic shapes: a [`Kernel`] per
//! instruction, chosen once by [`Kernel::build`] when the program is
//! compiled, that runs the instruction without the general dispatch of
//! `alu.rs`.
//!
//! A kernel exists when every source the opcode reads is a direct register
//! or a direct constant whose modifiers are sign-bit operations (float and
//! untyped `abs`/`neg`, double `abs`/`neg` on the high word), the
//! destination is a direct register, and the opcode has one of the shapes
//! below; anything else (indirect operands, integer modifiers, other
//! opcodes) keeps the general path. The results are the general path's,
//! bit for bit (the tests below run both on random instructions):
//!
//! The kernels are generated from the semantics table (`semantics.rs`), the
//! same rows as the interpreter's dispatch:
//!
//! * per-component 32-bit ops with 1–3 sources (with a leaner form for the
//!   commonest case: one channel, plain direct registers, no `_SAT`),
//!   replicated scalars (RCP,
//!   EX2, POW, SIN, …), and the 64-bit pair shapes (unary, binary, ternary,
//!   shifts) with the same writemask rules as `alu.rs` (see `mod.rs`);
//! * every source is read before a destination channel is written;
//! * the per-lane loops run over local rows so that they compile to packed
//!   AVX2 code (no aliasing between operands and results).

use super::decode::{DstKind, Inst, Modifier, Src, SrcKind};
use super::machine::{Batch, Env, FULL, Mask, Row};
use super::semantics::for_each_lane_op;
use super::{LANES, math, ops};
use tgsi_ir::opcode::{Opcode, OperandType};

/// Runs one instruction for the batch's active lanes (`exec != 0`).
pub type Handler = fn(&mut Batch, &Kernel, &Env);

/// Where a source operand's rows come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// A register of the batch file.
    Reg(u32),
    /// `CONST[buf][slot]`, the same word for every lane.
    Const { buf: u32, slot: i32 },
}

/// A source operand: row `c` is channel `swz[c]` of the place, then
/// `(x & and[c]) ^ xor[c]` (the sign-bit modifiers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Opnd {
    place: Place,
    swz: [u8; 4],
    and: [u32; 4],
    xor: [u32; 4],
}

impl Opnd {
    const ZERO: Opnd = Opnd {
        place: Place::Const {
            buf: u32::MAX,
            slot: -1,
        },
        swz: [0; 4],
        and: [0; 4],
        xor: [0; 4],
    };
}

/// A pre-decoded fast instruction (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// The fast handler, or `None` when the general path runs the instruction.
    pub run: Option<Handler>,
    /// Destination register.
    dst: u32,
    /// Destination writemask.
    mask: u8,
    saturate: bool,
    /// True when results may be stored channel by channel (or pair by pair):
    /// no source reads the destination register, or only one channel (pair)
    /// is written.
    direct: bool,
    src: [Opnd; 3],
    /// The single-channel form: the written channel and, per source,
    /// (register, channel) read.
    chan: u8,
    one: [(u32, u8); 3],
    /// Kernels in the straight run that starts here (this one included; 0
    /// without a kernel): none of them changes a mask or jumps, so the run
    /// loop may execute them back to back.
    pub block: u32,
}

/// The kernels of a program, with their straight runs counted.
pub fn build_all(insts: &[Inst]) -> Vec<Kernel> {
    let mut ks: Vec<Kernel> = insts.iter().map(Kernel::build).collect();
    let mut after = 0;
    for k in ks.iter_mut().rev() {
        after = if k.run.is_some() { after + 1 } else { 0 };
        k.block = after;
    }
    ks
}

/// Runs a straight run of kernels for the active lanes (`exec != 0`).
#[inline]
pub fn run_block(b: &mut Batch, ks: &[Kernel], env: &Env) {
    for k in ks {
        if let Some(run) = k.run {
            run(b, k, env);
        }
    }
}

impl Kernel {
    /// No fast path.
    pub const NONE: Kernel = Kernel {
        run: None,
        block: 0,
        dst: 0,
        mask: 0,
        saturate: false,
        direct: false,
        src: [Opnd::ZERO; 3],
        chan: 0,
        one: [(0, 0); 3],
    };

    /// The fast path of `inst`, or [`Kernel::NONE`].
    pub fn build(inst: &Inst) -> Kernel {
        // Direct3D's denormal flushing and conversions take the general path.
        if inst.flush
            || inst.zero_wins
            || inst.d3d && inst.op == Opcode::PK2H
            || inst.src.iter().any(|s| s.flush)
        {
            return Kernel::NONE;
        }
        let Some((shape, (run, one))) = handler(inst.op) else {
            return Kernel::NONE;
        };
        let DstKind::Reg(dst) = inst.dst[0].kind else {
            return Kernel::NONE;
        };
        if inst.dst[1].kind != DstKind::Null {
            return Kernel::NONE;
        }
        let mut k = Kernel {
            run: Some(run),
            block: 1,
            dst,
            mask: inst.dst[0].mask & 0xF,
            saturate: inst.saturate,
            direct: true,
            src: [Opnd::ZERO; 3],
            chan: 0,
            one: [(0, 0); 3],
        };
        let mut reads_dst = false;
        for i in 0..shape.sources() {
            let wide = shape.wide_source(i);
            let Some(o) = operand(&inst.src[i], wide) else {
                return Kernel::NONE;
            };
            reads_dst |= o.place == Place::Reg(dst);
            k.src[i] = o;
        }
        let units = if shape.is_pair() {
            (k.mask & 0b0011 != 0) as u32 + (k.mask & 0b1100 != 0) as u32
        } else {
            k.mask.count_ones()
        };
        k.direct = !reads_dst || units <= 1;
        if let Some(one) = one
            && units == 1
            && !k.saturate
        {
            let chan = k.mask.trailing_zeros() as usize;
            let mut plain = true;
            for i in 0..shape.sources() {
                let o = &k.src[i];
                match o.place {
                    Place::Reg(r) if o.and == [!0; 4] && o.xor == [0; 4] => {
                        k.one[i] = (r, o.swz[chan]);
                    }
                    _ => plain = false,
                }
            }
            if plain {
                k.run = Some(one);
                k.chan = chan as u8;
            }
        }
        k
    }
}

/// The operand form of a source, when it has a fast form. `wide`: the
/// source is a 64-bit pair operand (modifiers act on the high words).
fn operand(s: &Src, wide: bool) -> Option<Opnd> {
    let place = match s.kind {
        SrcKind::Reg(r) => Place::Reg(r),
        SrcKind::Const { buf, slot } => Place::Const { buf, slot },
        _ => return None,
    };
    let (mut and, mut xor) = ([!0u32; 4], [0u32; 4]);
    if let Modifier::Apply { ty, abs, neg } = s.modifier {
        let ok = if wide {
            ty == OperandType::Double
        } else {
            matches!(ty, OperandType::Float | OperandType::Untyped)
        };
        if !ok {
            return None;
        }
        for c in 0..4 {
            if !wide || c % 2 == 1 {
                if abs {
                    and[c] = 0x7fff_ffff;
                }
                if neg {
                    xor[c] = 0x8000_0000;
                }
            }
        }
    }
    Some(Opnd {
        place,
        swz: s.swz.map(|c| c & 3),
        and,
        xor,
    })
}

/// The operand shapes of the fast opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Per component, 32-bit, n sources.
    Comp(usize),
    /// A replicated scalar of n sources' x channels.
    Scalar(usize),
    /// 64-bit pairs, n sources.
    Pair(usize),
    /// A 64-bit pair source and a 32-bit count.
    Shift,
}

impl Shape {
    fn sources(self) -> usize {
        match self {
            Shape::Comp(n) | Shape::Scalar(n) | Shape::Pair(n) => n,
            Shape::Shift => 2,
        }
    }
    fn wide_source(self, i: usize) -> bool {
        match self {
            Shape::Pair(_) => true,
            Shape::Shift => i == 0,
            _ => false,
        }
    }
    fn is_pair(self) -> bool {
        matches!(self, Shape::Pair(_) | Shape::Shift)
    }
}

// ---- operand access -------------------------------------------------------

/// Row `c` of a source operand.
#[inline(always)]
fn row(b: &Batch, env: &Env, o: &Opnd, c: usize) -> Row {
    let v: Row = match o.place {
        Place::Reg(r) => b.regs[r as usize][o.swz[c] as usize & 3],
        Place::Const { buf, slot } => [const_word(env, buf, slot, o.swz[c]); LANES],
    };
    let (and, xor) = (o.and[c], o.xor[c]);
    v.map(|x| (x & and) ^ xor)
}

/// Word `swz` of `CONST[buf][slot]`; 0 when out of range.
#[inline(always)]
fn const_word(env: &Env, buf: u32, slot: i32, swz: u8) -> u32 {
    if slot < 0 {
        return 0;
    }
    env.consts
        .get(buf as usize)
        .and_then(|w| w.get(slot as usize * 4 + swz as usize))
        .copied()
        .unwrap_or(0)
}

/// Writes row `v` to channel `c` of the destination for the active lanes.
#[inline(always)]
fn put(b: &mut Batch, k: &Kernel, c: usize, v: &Row) {
    let (exec, er) = (b.exec, b.exec_row);
    let d = &mut b.regs[k.dst as usize][c];
    if exec == FULL {
        *d = *v;
    } else {
        for l in 0..LANES {
            d[l] = (v[l] & er[l]) | (d[l] & !er[l]);
        }
    }
}

/// `_SAT` of a 32-bit row when the instruction asks for it.
#[inline(always)]
fn sat32(k: &Kernel, v: Row) -> Row {
    if k.saturate {
        v.map(ops::saturate_f32)
    } else {
        v
    }
}

/// Computes row `c` of the result with `f` for every enabled channel and
/// stores it (`_SAT` applied), reading every source before the first store
/// unless the kernel is direct.
#[inline(always)]
fn per_channel(b: &mut Batch, k: &Kernel, env: &Env, f: impl Fn(&Batch, &Env, usize) -> Row) {
    if k.direct {
        let mut m = k.mask;
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            let r = sat32(k, f(b, env, c));
            put(b, k, c, &r);
        }
    } else {
        let mut m = k.mask;
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            b.result[c] = f(b, env, c);
        }
        let mut m = k.mask;
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            let r = sat32(k, b.result[c]);
            put(b, k, c, &r);
        }
    }
}

/// Stores one row to every enabled channel (`_SAT` applied).
#[inline(always)]
fn replicate(b: &mut Batch, k: &Kernel, r: Row) {
    let r = sat32(k, r);
    let mut m = k.mask;
    while m != 0 {
        let c = m.trailing_zeros() as usize;
        m &= m - 1;
        put(b, k, c, &r);
    }
}

// ---- shapes ---------------------------------------------------------------

/// The type of one lane of a source, whatever it is named.
macro_rules! lane_ty {
    ($x:ident, $t:ty) => {
        $t
    };
}

/// Shapes that apply `f` lane by lane to one, two or three sources: `$per`
/// picks the channels (or pairs) and stores, `$fetch` reads source `$i` of
/// each one.
macro_rules! lanewise {
    ($($name:ident($($x:ident = $i:literal),+) = $per:ident($($pre:expr)?) via $fetch:ident: $t:ty;)+) => {$(
        #[inline(always)]
        fn $name(b: &mut Batch, k: &Kernel, env: &Env, f: impl Fn($(lane_ty!($x, $t)),+) -> $t) {
            $per(
                b,
                k,
                env,
                $($pre,)?
                #[inline(always)]
                |b, env, c| {
                    $(let $x = $fetch(b, env, &k.src[$i], c);)+
                    std::array::from_fn(|l| f($($x[l]),+))
                },
            );
        }
    )+};
}

lanewise! {
    comp1(x = 0) = per_channel() via row: u32;
    comp2(x = 0, y = 1) = per_channel() via row: u32;
    comp3(x = 0, y = 1, z = 2) = per_channel() via row: u32;
}

/// Whether a lane of a row of float32 bits is NaN (a branch-free reduction,
/// so that it vectorizes: `any` would stop at the first NaN).
#[inline(always)]
fn any_nan32(r: &[u32; LANES]) -> bool {
    let mut acc = 0u32;
    for &v in r {
        acc |= (v & 0x7fff_ffff > 0x7f80_0000) as u32;
    }
    acc != 0
}

/// [`any_nan32`] for rows of float64 bits.
#[inline(always)]
fn any_nan64(r: &[u64; LANES]) -> bool {
    let mut acc = 0u32;
    for &v in r {
        acc |= (v & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000) as u32;
    }
    acc != 0
}

/// The row again with the NaN rule, out of the hot path (rows with a NaN
/// lane are rare).
#[cold]
#[inline(never)]
fn ruled_row<T>(f: impl Fn(usize) -> T) -> [T; LANES] {
    std::array::from_fn(f)
}

/// Shapes of the float ops with a NaN rule (`ops::NanRule`): a row is
/// computed with `host` (the hardware's NaNs, which equal the rule's
/// results wherever the result is not NaN) and computed again with `ruled`
/// only when one of its lanes is NaN.
macro_rules! lanewise_checked {
    ($($name:ident($($x:ident = $i:literal),+) = $per:ident($($pre:expr)?) via $fetch:ident: $t:ty, $nan:ident;)+) => {$(
        #[inline(always)]
        fn $name(
            b: &mut Batch,
            k: &Kernel,
            env: &Env,
            host: impl Fn($(lane_ty!($x, $t)),+) -> $t,
            ruled: impl Fn($(lane_ty!($x, $t)),+) -> $t,
        ) {
            $per(
                b,
                k,
                env,
                $($pre,)?
                #[inline(always)]
                |b, env, c| {
                    $(let $x = $fetch(b, env, &k.src[$i], c);)+
                    let r: [$t; LANES] = std::array::from_fn(|l| host($($x[l]),+));
                    if $nan(&r) {
                        ruled_row(|l| ruled($($x[l]),+))
                    } else {
                        r
                    }
                },
            );
        }
    )+};
}

lanewise_checked! {
    comp1n(x = 0) = per_channel() via row: u32, any_nan32;
    comp2n(x = 0, y = 1) = per_channel() via row: u32, any_nan32;
    comp3n(x = 0, y = 1, z = 2) = per_channel() via row: u32, any_nan32;
    pair1n(x = 0) = per_pair(true) via pair: u64, any_nan64;
    pair2n(x = 0, y = 1) = per_pair(false) via pair: u64, any_nan64;
    pair3n(x = 0, y = 1, z = 2) = per_pair(true) via pair: u64, any_nan64;
}

/// A replicated scalar of source 0's x channel, for a float op with a NaN
/// rule (see `lanewise_checked`).
#[inline(always)]
fn scalar1n(
    b: &mut Batch,
    k: &Kernel,
    env: &Env,
    host: impl Fn(u32) -> u32,
    ruled: impl Fn(u32) -> u32,
) {
    let x = row(b, env, &k.src[0], 0);
    let r = x.map(host);
    let r = if any_nan32(&r) {
        ruled_row(|l| ruled(x[l]))
    } else {
        r
    };
    replicate(b, k, r);
}

#[inline(always)]
fn scalar_row(b: &mut Batch, k: &Kernel, env: &Env, f: impl Fn(&Row, &mut Row)) {
    let x = row(b, env, &k.src[0], 0);
    let mut r = [0u32; LANES];
    f(&x, &mut r);
    replicate(b, k, r);
}

#[inline(always)]
fn scalar_row2(b: &mut Batch, k: &Kernel, env: &Env, f: impl Fn(&Row, &Row, &mut Row)) {
    let x = row(b, env, &k.src[0], 0);
    let y = row(b, env, &k.src[1], 0);
    let mut r = [0u32; LANES];
    f(&x, &y, &mut r);
    replicate(b, k, r);
}

/// The 64-bit lanes of pair `p` of a source.
#[inline(always)]
fn pair(b: &Batch, env: &Env, o: &Opnd, p: usize) -> [u64; LANES] {
    let lo = row(b, env, o, 2 * p);
    let hi = row(b, env, o, 2 * p + 1);
    std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32)
}

/// Pairs selected by the writemask: both bits (`both`) or either bit.
#[inline(always)]
fn pairs_of(mask: u8, both: bool) -> [bool; 2] {
    if both {
        [mask & 0b0011 == 0b0011, mask & 0b1100 == 0b1100]
    } else {
        [mask & 0b0011 != 0, mask & 0b1100 != 0]
    }
}

/// Computes pair `p` of the result with `f` for every selected pair and
/// stores both of its channels (`_SAT` as a double), reading every source
/// before the first store unless the kernel is direct.
#[inline(always)]
fn per_pair(
    b: &mut Batch,
    k: &Kernel,
    env: &Env,
    both: bool,
    f: impl Fn(&Batch, &Env, usize) -> [u64; LANES],
) {
    let pairs = pairs_of(k.mask, both);
    let finish = |v: [u64; LANES]| split_pair(k.saturate, v);
    if k.direct {
        for p in 0..2 {
            if pairs[p] {
                let (lo, hi) = finish(f(b, env, p));
                put(b, k, 2 * p, &lo);
                put(b, k, 2 * p + 1, &hi);
            }
        }
    } else {
        for p in 0..2 {
            if pairs[p] {
                let (lo, hi) = finish(f(b, env, p));
                b.result[2 * p] = lo;
                b.result[2 * p + 1] = hi;
            }
        }
        for c in 0..4 {
            if pairs[c / 2] {
                let r = b.result[c];
                put(b, k, c, &r);
            }
        }
    }
}

/// A pair's 64-bit results (`_SAT` as a double when `saturate`) as its low
/// and high channel rows. (A function inlined into its caller: as a
/// closure, a whole-program build left it out of line and its loads of
/// the results waited for their stores.)
#[inline(always)]
fn split_pair(saturate: bool, v: [u64; LANES]) -> (Row, Row) {
    let v = if saturate {
        v.map(ops::saturate_f64)
    } else {
        v
    };
    (v.map(|x| x as u32), v.map(|x| (x >> 32) as u32))
}

// Unary and ternary double ops need both halves of a pair in the writemask;
// binary ones compute a pair when either half is written.
lanewise! {
    pair1(x = 0) = per_pair(true) via pair: u64;
    pair2(x = 0, y = 1) = per_pair(false) via pair: u64;
}

/// A 64-bit value shifted (or scaled) by src1 channel `count_chan[p]` for pair p.
#[inline(always)]
fn pair_shift(
    b: &mut Batch,
    k: &Kernel,
    env: &Env,
    count_chan: [usize; 2],
    f: impl Fn(u64, u32) -> u64,
) {
    per_pair(
        b,
        k,
        env,
        false,
        #[inline(always)]
        |b, env, p| {
            let x = pair(b, env, &k.src[0], p);
            let n = row(b, env, &k.src[1], count_chan[p]);
            std::array::from_fn(|l| f(x[l], n[l]))
        },
    );
}

// ---- the opcode table -------------------------------------------------------

/// The single-channel form of a per-component op: one channel, plain
/// direct-register sources, no `_SAT` (the commonest instruction of all).
#[inline(always)]
fn one_row(b: &Batch, k: &Kernel, i: usize) -> Row {
    let (reg, row) = k.one[i];
    b.regs[reg as usize][row as usize & 3]
}

#[inline(always)]
fn one1(b: &mut Batch, k: &Kernel, f: impl Fn(u32) -> u32) {
    let r = one_row(b, k, 0).map(f);
    put(b, k, k.chan as usize & 3, &r);
}

#[inline(always)]
fn one2(b: &mut Batch, k: &Kernel, f: impl Fn(u32, u32) -> u32) {
    let (x, y) = (one_row(b, k, 0), one_row(b, k, 1));
    let r: Row = std::array::from_fn(|l| f(x[l], y[l]));
    put(b, k, k.chan as usize & 3, &r);
}

/// The single-channel forms of the checked shapes: `$n` sources.
macro_rules! one_checked {
    ($($name:ident($($x:ident = $i:literal),+);)+) => {$(
        #[inline(always)]
        fn $name(
            b: &mut Batch,
            k: &Kernel,
            host: impl Fn($(lane_ty!($x, u32)),+) -> u32,
            ruled: impl Fn($(lane_ty!($x, u32)),+) -> u32,
        ) {
            $(let $x = one_row(b, k, $i);)+
            let r: Row = std::array::from_fn(|l| host($($x[l]),+));
            let r = if any_nan32(&r) {
                ruled_row(|l| ruled($($x[l]),+))
            } else {
                r
            };
            put(b, k, k.chan as usize & 3, &r);
        }
    )+};
}

one_checked! {
    one1n(x = 0);
    one2n(x = 0, y = 1);
    one3n(x = 0, y = 1, z = 2);
}

#[inline(always)]
fn one3(b: &mut Batch, k: &Kernel, f: impl Fn(u32, u32, u32) -> u32) {
    let (x, y, z) = (one_row(b, k, 0), one_row(b, k, 1), one_row(b, k, 2));
    let r: Row = std::array::from_fn(|l| f(x[l], y[l], z[l]));
    put(b, k, k.chan as usize & 3, &r);
}

/// A handler for each shape, plus the single-channel one of per-component ops.
macro_rules! h {
    // A float op with a NaN rule: `ops::NAME_with::<ops::Host>` first, the
    // ruled `ops::NAME` for rows with a NaN lane.
    (@onen $shape:ident, $one:ident, $op:ident / $with:ident) => {{
        fn run(b: &mut Batch, k: &Kernel, env: &Env) {
            $shape(b, k, env, ops::$with::<ops::Host>, ops::$op)
        }
        fn one(b: &mut Batch, k: &Kernel, _: &Env) {
            $one(b, k, ops::$with::<ops::Host>, ops::$op)
        }
        (run as Handler, Some(one as Handler))
    }};
    (nan comp1, $op:ident / $with:ident) => {
        h!(@onen comp1n, one1n, $op / $with)
    };
    (nan comp2, $op:ident / $with:ident) => {
        h!(@onen comp2n, one2n, $op / $with)
    };
    (nan comp3, $op:ident / $with:ident) => {
        h!(@onen comp3n, one3n, $op / $with)
    };
    (nan $shape:ident, $op:ident / $with:ident) => {{
        fn run(b: &mut Batch, k: &Kernel, env: &Env) {
            $shape(b, k, env, ops::$with::<ops::Host>, ops::$op)
        }
        (run as Handler, None)
    }};
    (@one $shape:ident, $one:ident, $f:expr) => {{
        fn run(b: &mut Batch, k: &Kernel, env: &Env) {
            $shape(b, k, env, $f)
        }
        fn one(b: &mut Batch, k: &Kernel, _: &Env) {
            $one(b, k, $f)
        }
        (run as Handler, Some(one as Handler))
    }};
    (comp1, $f:expr) => {
        h!(@one comp1, one1, $f)
    };
    (comp2, $f:expr) => {
        h!(@one comp2, one2, $f)
    };
    (comp3, $f:expr) => {
        h!(@one comp3, one3, $f)
    };
    ($shape:ident, $f:expr) => {{
        fn run(b: &mut Batch, k: &Kernel, env: &Env) {
            $shape(b, k, env, $f)
        }
        (run as Handler, None)
    }};
    ($shape:ident, $arg:expr, $f:expr) => {{
        fn run(b: &mut Batch, k: &Kernel, env: &Env) {
            $shape(b, k, env, $arg, $f)
        }
        (run as Handler, None)
    }};
}

/// Both handlers of a fast opcode: the general one and, for per-component
/// ops, the single-channel one.
type Handlers = (Handler, Option<Handler>);

/// The fast kernel of one row of the semantics table, by its shape; `None`
/// for the shapes without one (dot products, specials, packing, 64-bit
/// compares and conversions, BFI), which run the general path.
macro_rules! fast_arm {
    (comp(1, $f:expr)) => { Some((Shape::Comp(1), h!(comp1, $f))) };
    (comp(2, $f:expr)) => { Some((Shape::Comp(2), h!(comp2, $f))) };
    (comp(3, $f:expr)) => { Some((Shape::Comp(3), h!(comp3, $f))) };
    (comp_ruled(1, $f:ident, $w:ident)) => { Some((Shape::Comp(1), h!(nan comp1, $f / $w))) };
    (comp_ruled(2, $f:ident, $w:ident)) => { Some((Shape::Comp(2), h!(nan comp2, $f / $w))) };
    (comp_ruled(3, $f:ident, $w:ident)) => { Some((Shape::Comp(3), h!(nan comp3, $f / $w))) };
    (scalar_ruled($f:ident, $w:ident)) => { Some((Shape::Scalar(1), h!(nan scalar1n, $f / $w))) };
    (row($f:expr, $fast:expr)) => { Some((Shape::Scalar(1), h!(scalar_row, $fast))) };
    (row2($f:expr)) => { Some((Shape::Scalar(2), h!(scalar_row2, $f))) };
    (pair(1, $f:expr)) => { Some((Shape::Pair(1), h!(pair1, $f))) };
    (pair(2, $f:expr)) => { Some((Shape::Pair(2), h!(pair2, $f))) };
    (pair_ruled(1, $f:ident, $w:ident)) => { Some((Shape::Pair(1), h!(nan pair1n, $f / $w))) };
    (pair_ruled(2, $f:ident, $w:ident)) => { Some((Shape::Pair(2), h!(nan pair2n, $f / $w))) };
    (pair_ruled(3, $f:ident, $w:ident)) => { Some((Shape::Pair(3), h!(nan pair3n, $f / $w))) };
    (shift64($c:expr, $f:expr)) => { Some((Shape::Shift, h!(pair_shift, $c, $f))) };
    ($($general_path_only:tt)*) => { None };
}

/// `handler`: one arm per row of the semantics table.
macro_rules! fast_handlers {
    ($($op:ident => $shape:ident($($arg:tt)*);)*) => {
        /// The shape and handler of a fast opcode, generated from the
        /// semantics table (`semantics.rs`) like the interpreter's dispatch.
        fn handler(op: Opcode) -> Option<(Shape, Handlers)> {
            match op {
                $(Opcode::$op => fast_arm!($shape($($arg)*)),)*
                _ => None,
            }
        }
    };
}
for_each_lane_op!(fast_handlers);

/// The lanes where `v` is true: nonzero bits, or (`float`) a float other
/// than ±0.0 (NaN is true). Packed compares and an OR of shifted bits.
#[inline(always)]
pub fn lanes_true(v: &Row, float: bool) -> Mask {
    let ignore = if float { 0x8000_0000 } else { 0 };
    let t: Row = v.map(|x| (x & !ignore != 0) as u32);
    let mut m = 0u32;
    for (l, b) in t.iter().enumerate() {
        m |= b << l;
    }
    m as Mask
}

impl Batch {
    /// Channel `swz[0]` of a source (what IF, UIF and friends test), with
    /// its 32-bit modifiers: a plain row copy for a direct register.
    #[inline(always)]
    pub fn fetch_x(&self, s: &Src, env: &Env) -> Row {
        match (s.kind, s.modifier) {
            (SrcKind::Reg(r), Modifier::None) => self.regs[r as usize][(s.swz[0] & 3) as usize],
            _ => self.fetch(s, 1, env)[0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode::Code;
    use super::super::{Limits, Program, Resources};
    use super::*;
    use tgsi_ir::rng::Rng;

    /// A word that is often a special float, double half or small integer.
    fn word(rng: &mut Rng) -> u32 {
        const SPECIAL: [u32; 21] = tgsi_ir::rng::edge_f32_and([
            0x7fa0_0001,
            0x3ff0_0000,
            0x4000_0000,
            0xffff_ffff,
            31,
            64,
        ]);
        match rng.below(4) {
            0 => SPECIAL[rng.below(SPECIAL.len() as u64) as usize],
            1 => (rng.below(2000) as f32 * 0.01 - 10.0).to_bits(),
            2 => rng.below(100) as u32,
            _ => rng.next() as u32,
        }
    }

    /// A random source operand among TEMP[0..4], IMM[0] and CONST[0][0..2].
    fn source(rng: &mut Rng) -> String {
        let reg = match rng.below(6) {
            0 => "IMM[0]".to_string(),
            1 => format!("CONST[0][{}]", rng.below(3)),
            _ => format!("TEMP[{}]", rng.below(4)),
        };
        let swz: String = (0..4)
            .map(|_| b"xyzw"[rng.below(4) as usize] as char)
            .collect();
        let body = format!("{reg}.{swz}");
        match rng.below(8) {
            0 => format!("-{body}"),
            1 => format!("|{body}|"),
            2 => format!("-|{body}|"),
            _ => body,
        }
    }

    /// Index of the instruction under test in [`harness`]'s shader.
    const TESTED: usize = 11;

    /// A 16-invocation compute shader that loads TEMP[0..3] and a condition
    /// per lane from BUFFER[0] (80 bytes per lane), runs `inst` under
    /// `UIF cond`, and stores TEMP[0..3] back.
    fn harness(imm: &str, inst: &str) -> String {
        format!(
            "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
             PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL BUFFER[0]\n\
             DCL TEMP[0..5]\nDCL CONST[0][0..2]\nIMM[0] UINT32 {{{imm}}}\n\
             IMM[1] UINT32 {{80, 16, 32, 48}}\nIMM[2] UINT32 {{64, 0, 0, 0}}\n\
             UMUL TEMP[4].x, SV[0].xxxx, IMM[1].xxxx\n\
             UADD TEMP[4].y, TEMP[4].xxxx, IMM[1].yyyy\n\
             UADD TEMP[4].z, TEMP[4].xxxx, IMM[1].zzzz\n\
             UADD TEMP[4].w, TEMP[4].xxxx, IMM[1].wwww\n\
             UADD TEMP[5].x, TEMP[4].xxxx, IMM[2].xxxx\n\
             LOAD TEMP[0], BUFFER[0], TEMP[4].xxxx\nLOAD TEMP[1], BUFFER[0], TEMP[4].yyyy\n\
             LOAD TEMP[2], BUFFER[0], TEMP[4].zzzz\nLOAD TEMP[3], BUFFER[0], TEMP[4].wwww\n\
             LOAD TEMP[5].x, BUFFER[0], TEMP[5].xxxx\n\
             UIF TEMP[5].xxxx\n{inst}\nENDIF\n\
             STORE BUFFER[0].xyzw, TEMP[4].xxxx, TEMP[0]\nSTORE BUFFER[0].xyzw, TEMP[4].yyyy, TEMP[1]\n\
             STORE BUFFER[0].xyzw, TEMP[4].zzzz, TEMP[2]\nSTORE BUFFER[0].xyzw, TEMP[4].wwww, TEMP[3]\n\
             END\n"
        )
    }

    /// Runs [`harness`] with registers filled from `seed` and the lanes of
    /// `alive` taking the UIF; returns `regs[lane][reg][chan]`.
    fn run(p: &Program, seed: u64, alive: Mask, consts: &[Vec<u32>]) -> Vec<[[u32; 4]; 4]> {
        let mut rng = Rng(seed);
        let mut words = Vec::new();
        for l in 0..LANES {
            words.extend((0..16).map(|_| word(&mut rng)));
            words.extend([(alive >> l) as u32 & 1, 0, 0, 0]);
        }
        let mut res = Resources {
            constants: consts.to_vec(),
            ..Default::default()
        };
        res.buffers
            .push(words.iter().flat_map(|w| w.to_le_bytes()).collect());
        p.dispatch(&mut res, [1, 1, 1], &Limits::default())
            .expect("runs");
        let out: Vec<u32> = res.buffers[0]
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        (0..LANES)
            .map(|l| std::array::from_fn(|r| std::array::from_fn(|c| out[l * 20 + r * 4 + c])))
            .collect()
    }

    /// The program with every kernel removed (the general path only).
    fn without_kernels(p: &Program) -> Program {
        let mut code = p.code.clone();
        code.fast = vec![Kernel::NONE; code.insts.len()];
        code.compiled = None;
        Program {
            code,
            fallback: None,
        }
    }

    #[test]
    fn kernels_match_the_general_path_bit_for_bit() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        let mut covered = std::collections::BTreeMap::new();
        let mut singles = std::collections::BTreeMap::new();
        // fewer rounds in unoptimised builds (the thresholds below scale)
        let rounds: u32 = if cfg!(debug_assertions) {
            12_000
        } else {
            60_000
        };
        for round in 0..rounds {
            let op = loop {
                let Some(op) = Opcode::from_u8(rng.below(256) as u8) else {
                    continue;
                };
                if handler(op).is_some() {
                    break op;
                }
            };
            let n = op.info().num_src as usize;
            let mask: String = (0..4)
                .filter(|_| rng.below(3) != 0)
                .map(|c| b"xyzw"[c] as char)
                .collect();
            let mask = if mask.is_empty() || rng.below(3) == 0 {
                // often one channel: the single-channel kernels
                (b"xyzw"[rng.below(4) as usize] as char).to_string()
            } else {
                mask
            };
            let sat = if rng.below(4) == 0 { "_SAT" } else { "" };
            let srcs: Vec<String> = (0..n).map(|_| source(&mut rng)).collect();
            let imm: Vec<String> = (0..4).map(|_| word(&mut rng).to_string()).collect();
            let inst = format!(
                "{op}{sat} TEMP[{}].{mask}, {}",
                rng.below(4),
                srcs.join(", ")
            );
            let text = harness(&imm.join(", "), &inst);
            let Ok((shader, _)) = tgsi_text::parse(&text) else {
                continue;
            };
            let Ok(fast) = Program::compile(&shader) else {
                continue;
            };
            let k = fast.code.fast[TESTED];
            assert_eq!(fast.code.insts[TESTED].op, op);
            let has_kernel = k.run.is_some();
            let single = handler(op)
                .and_then(|(_, (_, one))| one)
                .is_some_and(|one| k.run.map(|r| r as usize) == Some(one as usize));
            let general = without_kernels(&fast);
            let consts = vec![(0..12).map(|_| word(&mut rng)).collect::<Vec<u32>>()];
            let alive = if rng.below(2) == 0 {
                FULL
            } else {
                rng.next() as Mask
            };
            let seed = rng.next() | 1;
            let want = run(&general, seed, alive, &consts);
            let got = run(&fast, seed, alive, &consts);
            if got != want {
                // NaN payloads of arithmetic are unspecified (docs/numerics.md):
                // with several NaN operands the one propagated depends on the
                // operand order the compiler chose for the scalar or the
                // packed instruction. Bit moves must match exactly.
                let moves = matches!(
                    op,
                    Opcode::MOV | Opcode::CMP | Opcode::UCMP | Opcode::DABS | Opcode::DNEG
                );
                let float = matches!(op.src_type(0), OperandType::Float | OperandType::Double);
                let wide = handler(op).is_some_and(|(s, _)| s.is_pair());
                // one lane's four registers
                let same = |g: &[[u32; 4]; 4], w: &[[u32; 4]; 4]| {
                    (0..4).all(|r| {
                        (0..4).all(|c| {
                            if g[r][c] == w[r][c] {
                                return true;
                            }
                            if moves || !float {
                                return false;
                            }
                            if wide {
                                let p = c & 2;
                                let j = |v: &[[u32; 4]; 4]| {
                                    f64::from_bits(v[r][p] as u64 | (v[r][p + 1] as u64) << 32)
                                };
                                j(g).is_nan() && j(w).is_nan()
                            } else {
                                f32::from_bits(g[r][c]).is_nan() && f32::from_bits(w[r][c]).is_nan()
                            }
                        })
                    })
                };
                let ok = got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| same(g, w));
                assert!(
                    ok,
                    "round {round}: {text}alive {alive:#x}\n{got:?}\n{want:?}"
                );
            }
            if has_kernel {
                *covered.entry(op.name()).or_insert(0u32) += 1;
            }
            if single {
                *singles.entry(op.name()).or_insert(0u32) += 1;
            }
        }
        // every fast opcode ran through its kernel many times
        let mut missing = Vec::new();
        for n in 0..=255u8 {
            if let Some(op) = Opcode::from_u8(n)
                && handler(op).is_some()
                && covered.get(op.name()).copied().unwrap_or(0) < rounds / 1200
            {
                missing.push(op.name());
            }
        }
        assert!(missing.is_empty(), "kernels rarely exercised: {missing:?}");
        // and every single-channel kernel too
        let mut missing = Vec::new();
        for n in 0..=255u8 {
            if let Some(op) = Opcode::from_u8(n)
                && handler(op).is_some_and(|(_, (_, one))| one.is_some())
                && singles.get(op.name()).copied().unwrap_or(0) < rounds / 6000
            {
                missing.push(op.name());
            }
        }
        assert!(
            missing.is_empty(),
            "single-channel kernels rarely exercised: {missing:?}"
        );
    }

    #[test]
    fn straight_runs_keep_the_budget_exact() {
        let text = "COMP\nDCL BUFFER[0]\nDCL TEMP[0..1]\nIMM[0] FLT32 {1.0, 2.0, 0.0, 0.0}\n\
            ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\nADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
            UIF IMM[0].xxxx\nENDIF\n\
            ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\nADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\n\
            ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\n\
            STORE BUFFER[0].x, IMM[0].zzzz, TEMP[0]\nEND\n";
        let (s, _) = tgsi_text::parse(text).expect("parses");
        let p = Program::compile(&s).expect("compiles");
        let blocks: Vec<u32> = p.code.fast.iter().map(|k| k.block).collect();
        assert_eq!(blocks, [2, 1, 0, 0, 3, 2, 1, 0, 0]);
        for budget in 1..=10u64 {
            let mut res = Resources {
                buffers: vec![vec![0; 4]],
                ..Default::default()
            };
            let limits = Limits {
                max_instructions: budget,
                ..Limits::default()
            };
            let r = p.dispatch_stats(&mut res, [1, 1, 1], &limits);
            if budget >= 9 {
                let stats = r.expect("within budget");
                assert_eq!(stats.batch_instructions, 9);
                assert_eq!(
                    f32::from_le_bytes([
                        res.buffers[0][0],
                        res.buffers[0][1],
                        res.buffers[0][2],
                        res.buffers[0][3]
                    ]),
                    8.0
                );
            } else {
                // stopped exactly at instruction `budget`, even inside a straight run
                let e = r.expect_err("over budget");
                assert_eq!(e.instruction, Some(budget as usize), "budget {budget}");
            }
        }
    }

    #[test]
    fn kernels_are_built_only_for_fast_forms() {
        let code = |body: &str| {
            let text =
                format!("COMP\nDCL TEMP[0..3]\nDCL ADDR[0]\nDCL CONST[0][0..2]\n{body}\nEND\n");
            let (s, _) = tgsi_text::parse(&text).expect("parses");
            Code::compile(&s, crate::Numerics::Ieee).expect("compiles")
        };
        assert!(
            code("ADD TEMP[0], TEMP[1], -|CONST[0][1].xxxx|").fast[0]
                .run
                .is_some()
        );
        assert!(
            code("DADD TEMP[0], TEMP[1], -TEMP[2]").fast[0]
                .run
                .is_some()
        );
        // integer negation is not a sign-bit operation
        assert!(
            code("UADD TEMP[0], TEMP[1], -TEMP[2]").fast[0]
                .run
                .is_none()
        );
        assert!(
            code("U64ADD TEMP[0], TEMP[1], -TEMP[2]").fast[0]
                .run
                .is_none()
        );
        // indirect operands keep the general path
        assert!(
            code("ADD TEMP[0], TEMP[ADDR[0].x+1], TEMP[2]").fast[0]
                .run
                .is_none()
        );
        // the aliasing rule: one channel may store at once, several may not
        let k = code("ADD TEMP[0].x, TEMP[0].yyyy, TEMP[2]").fast[0];
        assert!(k.direct);
        let k = code("ADD TEMP[0].xy, TEMP[0].yxxx, TEMP[2]").fast[0];
        assert!(!k.direct);
        let k = code("ADD TEMP[0].xy, TEMP[1].yxxx, TEMP[2]").fast[0];
        assert!(k.direct);
        // one channel, plain registers, no _SAT: the single-channel form,
        // reading TEMP[1].y and TEMP[2].w for channel z
        let single = |k: &Kernel| {
            let one = handler(Opcode::ADD).and_then(|(_, (_, one))| one);
            k.run.map(|r| r as usize) == one.map(|o| o as usize)
        };
        let k = code("ADD TEMP[0].z, TEMP[1].xxyx, TEMP[2].xyzw").fast[0];
        assert!(single(&k));
        assert_eq!((k.chan, k.one[0], k.one[1]), (2, (1, 1), (2, 2)));
        assert!(!single(
            &code("ADD_SAT TEMP[0].z, TEMP[1], TEMP[2]").fast[0]
        ));
        assert!(!single(&code("ADD TEMP[0].z, -TEMP[1], TEMP[2]").fast[0]));
        assert!(!single(
            &code("ADD TEMP[0].z, CONST[0][0], TEMP[2]").fast[0]
        ));
        assert!(!single(&code("ADD TEMP[0].zw, TEMP[1], TEMP[2]").fast[0]));
        // control flow never has a kernel
        assert!(code("UIF TEMP[0].xxxx\nENDIF").fast[0].run.is_none());
    }
}
