//! The opcode dispatch: one `match` on the pre-decoded opcode, outside every
//! lane loop, onto generic helpers that are monomorphized per `ops`
//! function (static dispatch, inlined): the lane loops run over `[u32; 16]`
//! rows and auto-vectorize where the scalar formula allows. The arms of the
//! lane-wise opcodes are generated from the semantics table
//! (`semantics.rs`); the inter-lane, clock and memory opcodes are written
//! here.
//!
//! The helpers implement the channel shapes of the opcode table
//! ([`tgsi_ir::opcode::Channels`]): per-component, replicated scalar, dot
//! products, specials with their own per-channel formulas, and the 64-bit
//! pair shapes with Mesa's writemask rules (see `mod.rs`).

use super::decode::{Inst, Modifier, Src};
use super::machine::{Batch, Env, Reg, Row, ZERO_REG, fetch_into, store_rows};
use super::semantics::for_each_lane_op;
use super::{ExecError, LANES, math, ops};
use tgsi_ir::opcode::{Category, Opcode, PairShape};

#[inline(always)]
fn join(lo: u32, hi: u32) -> u64 {
    lo as u64 | (hi as u64) << 32
}

impl Batch {
    #[inline(always)]
    fn comp1(&mut self, inst: &Inst, env: &Env, f: impl Fn(u32) -> u32) {
        let m = inst.dst[0].mask;
        let [s0, ..] = &mut self.scratch;
        let a = fetch_into(&self.regs, s0, &inst.src[0], m, env);
        for c in 0..4 {
            if m & (1 << c) != 0 {
                let (x, o) = (a[c], &mut self.result[c]);
                for l in 0..LANES {
                    o[l] = f(x[l]);
                }
            }
        }
        self.store_result(inst, m);
    }

    #[inline(always)]
    fn comp2(&mut self, inst: &Inst, env: &Env, f: impl Fn(u32, u32) -> u32) {
        let m = inst.dst[0].mask;
        let [s0, s1, ..] = &mut self.scratch;
        let a = fetch_into(&self.regs, s0, &inst.src[0], m, env);
        let b = fetch_into(&self.regs, s1, &inst.src[1], m, env);
        for c in 0..4 {
            if m & (1 << c) != 0 {
                let (x, y, o) = (a[c], b[c], &mut self.result[c]);
                for l in 0..LANES {
                    o[l] = f(x[l], y[l]);
                }
            }
        }
        self.store_result(inst, m);
    }

    #[inline(always)]
    fn comp3(&mut self, inst: &Inst, env: &Env, f: impl Fn(u32, u32, u32) -> u32) {
        let m = inst.dst[0].mask;
        let [s0, s1, s2, ..] = &mut self.scratch;
        let a = fetch_into(&self.regs, s0, &inst.src[0], m, env);
        let b = fetch_into(&self.regs, s1, &inst.src[1], m, env);
        let d = fetch_into(&self.regs, s2, &inst.src[2], m, env);
        for c in 0..4 {
            if m & (1 << c) != 0 {
                let (x, y, z, o) = (a[c], b[c], d[c], &mut self.result[c]);
                for l in 0..LANES {
                    o[l] = f(x[l], y[l], z[l]);
                }
            }
        }
        self.store_result(inst, m);
    }

    #[inline(always)]
    fn comp4(&mut self, inst: &Inst, env: &Env, f: impl Fn(u32, u32, u32, u32) -> u32) {
        let m = inst.dst[0].mask;
        let [s0, s1, s2, s3, _] = &mut self.scratch;
        let a = fetch_into(&self.regs, s0, &inst.src[0], m, env);
        let b = fetch_into(&self.regs, s1, &inst.src[1], m, env);
        let d = fetch_into(&self.regs, s2, &inst.src[2], m, env);
        let e = fetch_into(&self.regs, s3, &inst.src[3], m, env);
        for c in 0..4 {
            if m & (1 << c) != 0 {
                let (x, y, z, w, o) = (a[c], b[c], d[c], e[c], &mut self.result[c]);
                for l in 0..LANES {
                    o[l] = f(x[l], y[l], z[l], w[l]);
                }
            }
        }
        self.store_result(inst, m);
    }

    /// Stores one row to every enabled channel.
    #[inline(always)]
    fn replicate(&mut self, inst: &Inst, row: Row) {
        self.store32(inst, [row; 4], inst.dst[0].mask);
    }

    #[inline(always)]
    fn scalar1(&mut self, inst: &Inst, env: &Env, f: impl Fn(u32) -> u32) {
        let a = self.fetch(&inst.src[0], 1, env);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(a[0][l]);
        }
        self.replicate(inst, r);
    }

    /// A replicated scalar computed by a whole-row function (vectorized).
    #[inline(always)]
    fn scalar_row(&mut self, inst: &Inst, env: &Env, f: impl Fn(&Row, &mut Row)) {
        let a = self.fetch(&inst.src[0], 1, env);
        let mut r = [0u32; LANES];
        f(&a[0], &mut r);
        self.replicate(inst, r);
    }

    /// A replicated scalar of two operands computed by a whole-row function.
    #[inline(always)]
    fn scalar_row2(&mut self, inst: &Inst, env: &Env, f: impl Fn(&Row, &Row, &mut Row)) {
        let a = self.fetch(&inst.src[0], 1, env);
        let b = self.fetch(&inst.src[1], 1, env);
        let mut r = [0u32; LANES];
        f(&a[0], &b[0], &mut r);
        self.replicate(inst, r);
    }

    /// Per lane, the four (swizzled) channels of a source as one vector.
    #[inline(always)]
    fn lane_vec(a: &Reg, l: usize) -> [u32; 4] {
        [a[0][l], a[1][l], a[2][l], a[3][l]]
    }

    #[inline(always)]
    fn vec2_to_scalar(
        &mut self,
        inst: &Inst,
        env: &Env,
        need: u8,
        f: impl Fn([u32; 4], [u32; 4]) -> u32,
    ) {
        let a = self.fetch(&inst.src[0], need, env);
        let b = self.fetch(&inst.src[1], need, env);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(Self::lane_vec(&a, l), Self::lane_vec(&b, l));
        }
        self.replicate(inst, r);
    }

    #[inline(always)]
    fn vec_to_scalar(&mut self, inst: &Inst, env: &Env, f: impl Fn([u32; 4]) -> u32) {
        let a = self.fetch(&inst.src[0], 0xF, env);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(Self::lane_vec(&a, l));
        }
        self.replicate(inst, r);
    }

    #[inline(always)]
    fn special(&mut self, inst: &Inst, r: [[u32; 4]; LANES]) {
        let mut out = ZERO_REG;
        for (l, v) in r.iter().enumerate() {
            for c in 0..4 {
                out[c][l] = v[c];
            }
        }
        self.store32(inst, out, inst.dst[0].mask);
    }

    #[inline(always)]
    fn special1(&mut self, inst: &Inst, env: &Env, f: impl Fn([u32; 4]) -> [u32; 4]) {
        let a = self.fetch(&inst.src[0], 0xF, env);
        self.special(inst, std::array::from_fn(|l| f(Self::lane_vec(&a, l))));
    }

    #[inline(always)]
    fn special2(&mut self, inst: &Inst, env: &Env, f: impl Fn([u32; 4], [u32; 4]) -> [u32; 4]) {
        let a = self.fetch(&inst.src[0], 0xF, env);
        let b = self.fetch(&inst.src[1], 0xF, env);
        self.special(
            inst,
            std::array::from_fn(|l| f(Self::lane_vec(&a, l), Self::lane_vec(&b, l))),
        );
    }

    // ---- 64-bit pairs ------------------------------------------------------

    /// Channels to fetch for the pairs in `pairs`.
    #[inline(always)]
    fn pair_need(pairs: [bool; 2]) -> u8 {
        (pairs[0] as u8 * 0b0011) | (pairs[1] as u8 * 0b1100)
    }

    /// Lane `l` of pair `p` of a fetched 64-bit source, with 64-bit modifiers.
    #[inline(always)]
    fn lane64(src: &Src, a: &[&Row; 4], p: usize, l: usize) -> u64 {
        Self::mod64(src, join(a[2 * p][l], a[2 * p + 1][l]))
    }

    /// A source's 64-bit modifiers applied to `v`.
    #[inline(always)]
    fn mod64(src: &Src, v: u64) -> u64 {
        match src.modifier {
            Modifier::Apply { ty, abs, neg } if ty.is_64bit() => ops::modify64(v, ty, abs, neg),
            _ => v,
        }
    }

    /// True when a source carries no 64-bit modifier.
    #[inline(always)]
    fn no_mod64(src: &Src) -> bool {
        !matches!(src.modifier, Modifier::Apply { ty, .. } if ty.is_64bit())
    }

    /// The low and high rows of pair `p` of a source.
    #[inline(always)]
    fn src_pair<'r>(a: &[&'r Row; 4], p: usize) -> (&'r Row, &'r Row) {
        if p == 0 { (a[0], a[1]) } else { (a[2], a[3]) }
    }

    /// The low and high rows of pair `p` of a result.
    #[inline(always)]
    fn out_pair(out: &mut Reg, p: usize) -> (&mut Row, &mut Row) {
        let [x, y, z, w] = out;
        if p == 0 { (x, y) } else { (z, w) }
    }

    /// Splits a 64-bit result into its pair, saturating as a double when asked.
    #[inline(always)]
    fn put64(out: &mut Reg, p: usize, l: usize, v: u64, saturate: bool) {
        let v = if saturate { ops::saturate_f64(v) } else { v };
        let (lo, hi) = Self::out_pair(out, p);
        lo[l] = v as u32;
        hi[l] = (v >> 32) as u32;
    }

    /// Writes both channels of every pair in `pairs`, whatever the mask bits say.
    #[inline(always)]
    fn store_pairs(&mut self, inst: &Inst, pairs: [bool; 2]) {
        let chans = Self::pair_need(pairs);
        let mut d = inst.dst[0];
        d.mask = chans;
        store_rows(
            &mut self.regs,
            &self.grids,
            self.exec,
            &self.exec_row,
            &d,
            &self.result,
            chans,
        );
    }

    /// Pairs whose two writemask bits are both set.
    #[inline(always)]
    fn pairs_both(inst: &Inst) -> [bool; 2] {
        let m = inst.dst[0].mask;
        [m & 0b0011 == 0b0011, m & 0b1100 == 0b1100]
    }

    /// Pairs with at least one writemask bit set.
    #[inline(always)]
    fn pairs_any(inst: &Inst) -> [bool; 2] {
        let m = inst.dst[0].mask;
        [m & 0b0011 != 0, m & 0b1100 != 0]
    }

    #[inline(always)]
    fn pair_unary(&mut self, inst: &Inst, env: &Env, f: impl Fn(u64) -> u64) {
        let pairs = Self::pairs_both(inst);
        let s0 = &inst.src[0];
        let [t0, ..] = &mut self.scratch;
        let a = fetch_into(&self.regs, t0, s0, Self::pair_need(pairs), env);
        let out = &mut self.result;
        for p in 0..2 {
            if pairs[p] {
                for l in 0..LANES {
                    Self::put64(out, p, l, f(Self::lane64(s0, &a, p, l)), inst.saturate);
                }
            }
        }
        self.store_pairs(inst, pairs);
    }

    #[inline(always)]
    fn pair_binary(&mut self, inst: &Inst, env: &Env, f: impl Fn(u64, u64) -> u64) {
        let pairs = Self::pairs_any(inst);
        let need = Self::pair_need(pairs);
        let (s0, s1) = (&inst.src[0], &inst.src[1]);
        let [t0, t1, ..] = &mut self.scratch;
        let a = fetch_into(&self.regs, t0, s0, need, env);
        let b = fetch_into(&self.regs, t1, s1, need, env);
        let out = &mut self.result;
        let sat = inst.saturate;
        let plain = !sat && Self::no_mod64(s0) && Self::no_mod64(s1);
        for p in 0..2 {
            if pairs[p] {
                let ((alo, ahi), (blo, bhi)) = (Self::src_pair(&a, p), Self::src_pair(&b, p));
                let (olo, ohi) = Self::out_pair(out, p);
                if plain {
                    for l in 0..LANES {
                        let r = f(join(alo[l], ahi[l]), join(blo[l], bhi[l]));
                        olo[l] = r as u32;
                        ohi[l] = (r >> 32) as u32;
                    }
                } else {
                    for l in 0..LANES {
                        let r = f(
                            Self::mod64(s0, join(alo[l], ahi[l])),
                            Self::mod64(s1, join(blo[l], bhi[l])),
                        );
                        let r = if sat { ops::saturate_f64(r) } else { r };
                        olo[l] = r as u32;
                        ohi[l] = (r >> 32) as u32;
                    }
                }
            }
        }
        self.store_pairs(inst, pairs);
    }

    #[inline(always)]
    fn pair_ternary(&mut self, inst: &Inst, env: &Env, f: impl Fn(u64, u64, u64) -> u64) {
        let pairs = Self::pairs_both(inst);
        let need = Self::pair_need(pairs);
        let (s0, s1, s2) = (&inst.src[0], &inst.src[1], &inst.src[2]);
        let [t0, t1, t2, ..] = &mut self.scratch;
        let a = fetch_into(&self.regs, t0, s0, need, env);
        let b = fetch_into(&self.regs, t1, s1, need, env);
        let c = fetch_into(&self.regs, t2, s2, need, env);
        let out = &mut self.result;
        let sat = inst.saturate;
        let plain = !sat && Self::no_mod64(s0) && Self::no_mod64(s1) && Self::no_mod64(s2);
        for p in 0..2 {
            if pairs[p] {
                let (alo, ahi) = Self::src_pair(&a, p);
                let (blo, bhi) = Self::src_pair(&b, p);
                let (clo, chi) = Self::src_pair(&c, p);
                let (olo, ohi) = Self::out_pair(out, p);
                if plain {
                    for l in 0..LANES {
                        let r = f(
                            join(alo[l], ahi[l]),
                            join(blo[l], bhi[l]),
                            join(clo[l], chi[l]),
                        );
                        olo[l] = r as u32;
                        ohi[l] = (r >> 32) as u32;
                    }
                } else {
                    for l in 0..LANES {
                        let r = f(
                            Self::mod64(s0, join(alo[l], ahi[l])),
                            Self::mod64(s1, join(blo[l], bhi[l])),
                            Self::mod64(s2, join(clo[l], chi[l])),
                        );
                        let r = if sat { ops::saturate_f64(r) } else { r };
                        olo[l] = r as u32;
                        ohi[l] = (r >> 32) as u32;
                    }
                }
            }
        }
        self.store_pairs(inst, pairs);
    }

    /// A 64-bit value and a 32-bit operand: src1 channel `count_chan[p]` for pair p.
    #[inline(always)]
    fn pair_shift(
        &mut self,
        inst: &Inst,
        env: &Env,
        count_chan: [usize; 2],
        f: impl Fn(u64, u32) -> u64,
    ) {
        let pairs = Self::pairs_any(inst);
        let s0 = &inst.src[0];
        let [t0, t1, ..] = &mut self.scratch;
        let a = fetch_into(&self.regs, t0, s0, Self::pair_need(pairs), env);
        let n = fetch_into(
            &self.regs,
            t1,
            &inst.src[1],
            (1 << count_chan[0]) | (1 << count_chan[1]),
            env,
        );
        let out = &mut self.result;
        for p in 0..2 {
            if pairs[p] {
                let cnt = n[count_chan[p] & 3];
                for l in 0..LANES {
                    Self::put64(
                        out,
                        p,
                        l,
                        f(Self::lane64(s0, &a, p, l), cnt[l]),
                        inst.saturate,
                    );
                }
            }
        }
        self.store_pairs(inst, pairs);
    }

    /// 64×64 → 32-bit boolean: pair xy to `dst.x`, zw to `dst.z`
    /// ([`PairShape::word_channels`]).
    #[inline(always)]
    fn pair_compare(&mut self, inst: &Inst, env: &Env, f: impl Fn(u64, u64) -> u32) {
        let m = inst.dst[0].mask;
        let slots = PairShape::Compare.word_channels(m);
        let need = Self::pair_need(slots.map(|c| c.is_some()));
        let (s0, s1) = (&inst.src[0], &inst.src[1]);
        let [t0, t1, ..] = &mut self.scratch;
        let a = fetch_into(&self.regs, t0, s0, need, env);
        let b = fetch_into(&self.regs, t1, s1, need, env);
        let mut out = ZERO_REG;
        let mut chans = 0u8;
        for (p, slot) in slots.iter().enumerate() {
            if let Some(c) = *slot {
                chans |= 1 << c;
                for l in 0..LANES {
                    out[c][l] = f(Self::lane64(s0, &a, p, l), Self::lane64(s1, &b, p, l));
                }
            }
        }
        self.store32(inst, out, chans);
    }

    /// 32 → 64: source channel x feeds pair xy, y feeds zw (both bits required).
    #[inline(always)]
    fn widen(&mut self, inst: &Inst, env: &Env, f: impl Fn(u32) -> u64) {
        let pairs = Self::pairs_both(inst);
        let [t0, ..] = &mut self.scratch;
        let a = fetch_into(
            &self.regs,
            t0,
            &inst.src[0],
            (pairs[0] as u8) | (pairs[1] as u8) << 1,
            env,
        );
        let out = &mut self.result;
        for p in 0..2 {
            if pairs[p] {
                for l in 0..LANES {
                    Self::put64(out, p, l, f(a[p][l]), inst.saturate);
                }
            }
        }
        self.store_pairs(inst, pairs);
    }

    /// 64 → 32: pair xy to `dst.x`, zw to `dst.y` ([`PairShape::word_channels`]).
    #[inline(always)]
    fn narrow(&mut self, inst: &Inst, env: &Env, f: impl Fn(u64) -> u32) {
        let m = inst.dst[0].mask;
        let slots = PairShape::Narrow.word_channels(m);
        let s0 = &inst.src[0];
        let [t0, ..] = &mut self.scratch;
        let need = Self::pair_need(slots.map(|c| c.is_some()));
        let a = fetch_into(&self.regs, t0, s0, need, env);
        let mut out = ZERO_REG;
        let mut chans = 0u8;
        for (p, slot) in slots.iter().enumerate() {
            if let Some(c) = *slot {
                chans |= 1 << c;
                for l in 0..LANES {
                    out[c][l] = f(Self::lane64(s0, &a, p, l));
                }
            }
        }
        self.store32(inst, out, chans);
    }

    fn dfracexp(&mut self, inst: &Inst, env: &Env) {
        let s0 = &inst.src[0];
        let mut t0 = ZERO_REG;
        let a = fetch_into(&self.regs, &mut t0, s0, 0b0011, env);
        let pairs = Self::pairs_both(inst);
        let mut sig = ZERO_REG;
        let mut exp = ZERO_REG;
        for l in 0..LANES {
            let (m, e) = ops::dfracexp(Self::lane64(s0, &a, 0, l));
            for p in 0..2 {
                Self::put64(&mut sig, p, l, m, inst.saturate);
            }
            for row in exp.iter_mut() {
                row[l] = e;
            }
        }
        self.result = sig;
        self.store_pairs(inst, pairs);
        self.store(&inst.dst[1], &exp, 0xF);
    }

    // ---- inter-lane --------------------------------------------------------

    fn inter_lane(&mut self, inst: &Inst, env: &Env) {
        let active = self.exec;
        let first = active.trailing_zeros() as usize;
        let m = inst.dst[0].mask;
        match inst.op {
            Opcode::VOTE_ANY | Opcode::VOTE_ALL | Opcode::VOTE_EQ => {
                let a = self.fetch(&inst.src[0], m, env);
                let mut out = ZERO_REG;
                for c in 0..4 {
                    let lanes = (0..LANES).filter(|l| active & (1 << l) != 0);
                    let v = match inst.op {
                        Opcode::VOTE_ANY => lanes.clone().any(|l| a[c][l] != 0),
                        Opcode::VOTE_ALL => lanes.clone().all(|l| a[c][l] != 0),
                        _ => lanes.clone().all(|l| a[c][l] == a[c][first]),
                    };
                    out[c] = [if v { u32::MAX } else { 0 }; LANES];
                }
                self.store32(inst, out, m);
            }
            Opcode::BALLOT => {
                let a = self.fetch(&inst.src[0], 1, env);
                let mut bits = 0u32;
                for l in 0..LANES {
                    if active & (1 << l) != 0 && a[0][l] != 0 {
                        bits |= 1 << l;
                    }
                }
                self.store32(
                    inst,
                    [[bits; LANES], [0; LANES], [bits; LANES], [0; LANES]],
                    m,
                );
            }
            Opcode::READ_FIRST => {
                let a = self.fetch(&inst.src[0], m, env);
                self.store32(inst, a.map(|row| [row[first]; LANES]), m);
            }
            Opcode::READ_INVOC => {
                let a = self.fetch(&inst.src[0], m, env);
                let which = self.fetch(&inst.src[1], 1, env)[0][first] as usize;
                let out = a.map(|row| [row.get(which).copied().unwrap_or(0); LANES]);
                self.store32(inst, out, m);
            }
            _ => {}
        }
    }

    /// Executes one non-control-flow instruction for the active lanes.
    pub fn execute(&mut self, inst: &Inst, env: &Env, shared: &mut [u32]) -> Result<(), ExecError> {
        if inst.zero_wins && self.execute_zero_wins(inst, env) {
            return Ok(());
        }
        if self.execute_lane_op(inst, env) {
            return Ok(());
        }
        use Opcode::*;
        match inst.op {
            DFRACEXP => self.dfracexp(inst, env),
            // inter-lane
            VOTE_ANY | VOTE_ALL | VOTE_EQ | BALLOT | READ_FIRST | READ_INVOC => {
                self.inter_lane(inst, env)
            }
            CLOCK => {
                let t = self.executed;
                self.store32(
                    inst,
                    [
                        [t as u32; LANES],
                        [(t >> 32) as u32; LANES],
                        [0; LANES],
                        [0; LANES],
                    ],
                    inst.dst[0].mask,
                );
            }
            // memory
            LOAD | STORE | RESQ => self.memory_op(inst, env, shared)?,
            op if op.info().category == Category::Atomic => self.memory_op(inst, env, shared)?,
            op => {
                return Err(ExecError {
                    instruction: Some(self.pc),
                    message: format!(
                        "instruction {} ({op}): opcode {op} is not supported by the machine",
                        self.pc
                    ),
                });
            }
        }
        Ok(())
    }
}

impl Batch {
    /// Runs `inst` with its float32 products under the legacy rule (a ±0
    /// factor gives +0: [`ops::legacy`]); false for an opcode without one.
    fn execute_zero_wins(&mut self, inst: &Inst, env: &Env) -> bool {
        use ops::legacy::LegacyOp;
        match ops::legacy::of(inst.op) {
            Some(LegacyOp::Comp2(f)) => self.comp2(inst, env, f),
            Some(LegacyOp::Comp3(f)) => self.comp3(inst, env, f),
            Some(LegacyOp::Dot(mask, f)) => self.vec2_to_scalar(inst, env, mask, f),
            Some(LegacyOp::Special1(f)) => self.special1(inst, env, f),
            Some(LegacyOp::Special2(f)) => self.special2(inst, env, f),
            None => return false,
        }
        true
    }
}

/// The interpreter's call of one lane-wise opcode, by the shape the
/// semantics table gives it.
macro_rules! alu_arm {
    ($b:expr, $i:expr, $e:expr, comp(1, $f:expr)) => {
        $b.comp1($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, comp(2, $f:expr)) => {
        $b.comp2($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, comp(3, $f:expr)) => {
        $b.comp3($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, comp(4, $f:expr)) => {
        $b.comp4($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, comp_ruled(1, $f:ident, $w:ident)) => {
        $b.comp1($i, $e, ops::$f)
    };
    ($b:expr, $i:expr, $e:expr, comp_ruled(2, $f:ident, $w:ident)) => {
        $b.comp2($i, $e, ops::$f)
    };
    ($b:expr, $i:expr, $e:expr, comp_ruled(3, $f:ident, $w:ident)) => {
        $b.comp3($i, $e, ops::$f)
    };
    ($b:expr, $i:expr, $e:expr, scalar_ruled($f:ident, $w:ident)) => {
        $b.scalar1($i, $e, ops::$f)
    };
    ($b:expr, $i:expr, $e:expr, row($f:expr, $fast:expr)) => {
        $b.scalar_row($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, row2($f:expr)) => {
        $b.scalar_row2($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, dot($m:literal, $f:expr)) => {
        $b.vec2_to_scalar($i, $e, $m, $f)
    };
    ($b:expr, $i:expr, $e:expr, special(1, $f:expr)) => {
        $b.special1($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, special(2, $f:expr)) => {
        $b.special2($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, pack($f:expr)) => {
        $b.vec_to_scalar($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, pack_d3d($f:expr, $d3d:expr)) => {
        if $i.d3d {
            $b.vec_to_scalar($i, $e, $d3d)
        } else {
            $b.vec_to_scalar($i, $e, $f)
        }
    };
    ($b:expr, $i:expr, $e:expr, unpack($f:expr)) => {
        $b.special1($i, $e, |a| $f(a[0]))
    };
    ($b:expr, $i:expr, $e:expr, pair(1, $f:expr)) => {
        $b.pair_unary($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, pair(2, $f:expr)) => {
        $b.pair_binary($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, pair(3, $f:expr)) => {
        $b.pair_ternary($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, pair_ruled(1, $f:ident, $w:ident)) => {
        $b.pair_unary($i, $e, ops::$f)
    };
    ($b:expr, $i:expr, $e:expr, pair_ruled(2, $f:ident, $w:ident)) => {
        $b.pair_binary($i, $e, ops::$f)
    };
    ($b:expr, $i:expr, $e:expr, pair_ruled(3, $f:ident, $w:ident)) => {
        $b.pair_ternary($i, $e, ops::$f)
    };
    ($b:expr, $i:expr, $e:expr, compare64($f:expr)) => {
        $b.pair_compare($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, shift64($c:expr, $f:expr)) => {
        $b.pair_shift($i, $e, $c, $f)
    };
    ($b:expr, $i:expr, $e:expr, widen($f:expr)) => {
        $b.widen($i, $e, $f)
    };
    ($b:expr, $i:expr, $e:expr, narrow($f:expr)) => {
        $b.narrow($i, $e, $f)
    };
}

/// `Batch::execute_lane_op`: one arm per row of the semantics table.
macro_rules! lane_dispatch {
    ($($op:ident => $shape:ident($($arg:tt)*);)*) => {
        impl Batch {
            /// Runs `inst` when its opcode is a lane-wise one of the
            /// semantics table (`semantics.rs`); false when it is not.
            #[inline(always)]
            fn execute_lane_op(&mut self, inst: &Inst, env: &Env) -> bool {
                match inst.op {
                    $(Opcode::$op => alu_arm!(self, inst, env, $shape($($arg)*)),)*
                    _ => return false,
                }
                true
            }
        }
    };
}
for_each_lane_op!(lane_dispatch);
