//! The register cache of cached loops and straight runs: which rows and
//! constants stay in zmm16..30 ([`Region`], [`Slot`]), counted from the
//! instructions' uses, and their loads and write-backs around the region
//! and around calls.

use super::*;

/// What a cache register holds during a loop: a register row or a constant word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    Row(u32, u8),
    Const(usize),
    /// Register `reg`'s channels `2q, 2q+1` as 64-bit lanes: lanes 0..8 in
    /// the slot's register, 8..16 in the next one (one register when the
    /// register is an immediate: both halves are the same).
    Pair(u32, u8),
}

/// An innermost loop whose most used rows and constants stay in vector
/// registers from its BGNLOOP to its ENDLOOP (loaded on entry, written back
/// on exit and around calls), or a straight run of inline instructions
/// (no flow, no call to the interpreter, no memory access) whose rows and
/// constants used more than once stay in registers from its first
/// instruction to its last: a row one instruction writes is the next one's
/// operand without a store and a load between them.
#[derive(Clone, Debug)]
pub(super) struct Region {
    /// The ENDLOOP (loops) or the last instruction (straight runs).
    pub(super) end: usize,
    /// A straight run of inline instructions (else a loop).
    pub(super) straight: bool,
    /// (what, first zmm register, written in the loop, uniform pair)
    pub(super) slots: Vec<Slot>,
}

/// A loop cache entry.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub(super) key: Key,
    pub(super) z: u32,
    pub(super) written: bool,
    /// A pair whose two halves are the same register (immediates).
    pub(super) uniform: bool,
    /// A row of a straight run that the run writes before anything reads
    /// it (an interpreter's handler reading every channel of its source
    /// registers), dead after the run: neither loaded at the run's start
    /// nor written back at its end (its lanes outside the execution mask,
    /// which nothing reads, keep what the register held).
    pub(super) fresh: bool,
}

impl Slot {
    /// The registers of the low and high 8 lanes of a pair.
    pub(super) fn halves(&self) -> (u32, u32) {
        if self.uniform {
            (self.z, self.z)
        } else {
            (self.z, self.z + 1)
        }
    }
}

/// zmm registers for loop caches (the templates use zmm0..15 and zmm31).
pub(super) const CACHE_REGS: std::ops::Range<u32> = 16..31;

/// Whether an instruction of this plan may sit in a straight cached run:
/// inline arithmetic (row kernels write the cache back around their calls).
pub(super) fn straight_plan(p: Plan) -> bool {
    matches!(
        p,
        Plan::Comp(..)
            | Plan::Dot(_)
            | Plan::Scalar(_)
            | Plan::Row(_)
            | Plan::Special(_)
            | Plan::Pair(..)
            | Plan::Tex(_)
    )
}

/// Counts `k` in `uses` (key, uses, written).
fn note(uses: &mut Vec<(Key, u32, bool)>, k: Key, write: bool) {
    match uses.iter_mut().find(|(u, _, _)| *u == k) {
        Some(u) => {
            u.1 += 1;
            u.2 |= write;
        }
        None => uses.push((k, 1, write)),
    }
}

/// The register uses of a 64-bit template `(op, sources, both)` for the
/// loop cache: pairs read whole as [`Key::Pair`] entries (else their
/// channels into `reads`), the destination pairs written, or the 32-bit
/// channels of an op with a word per pair into `writes`.
fn pair_uses(
    inst: &Inst,
    (op, n, both): (Op64, usize, bool),
    dst: Option<u32>,
    uses: &mut Vec<(Key, u32, bool)>,
    reads: &mut Vec<(usize, usize)>,
    writes: &mut Vec<usize>,
) {
    let m = inst.dst[0].mask;
    let shift = op.shifts();
    let read_pairs = if op.to_words() {
        word_channels(op, m).map(|c| c.is_some())
    } else {
        pairs_of(m, both)
    };
    for p in read_pairs
        .iter()
        .enumerate()
        .filter(|(_, s)| **s)
        .map(|(p, _)| p)
    {
        let srcs = if op.widens() {
            0
        } else if shift {
            1
        } else {
            n
        };
        for k in 0..srcs {
            let src = inst.src[k];
            match (src.kind, aligned_pair(&src, p)) {
                (SrcKind::Reg(r), Some(q)) => note(uses, Key::Pair(r, q), false),
                _ => reads.extend([(k, 2 * p), (k, 2 * p + 1)]),
            }
        }
        if shift {
            reads.push((1, op.count_channel(p)));
        }
        if op.widens() {
            reads.push((0, p));
        }
        match dst {
            // one 32-bit channel per pair
            Some(_) if op.to_words() => {
                writes.extend(word_channels(op, m)[p]);
            }
            Some(r) => note(uses, Key::Pair(r, p as u8), true),
            None => {}
        }
    }
}

/// What an instruction does to the rows of a region's cache: the (source,
/// channel) pairs it reads and the destination channels it writes.
type Channels = (Vec<(usize, usize)>, Vec<usize>);

/// The (source, channel) pairs instruction `inst` (plan `plan`,
/// destination register `dst`) reads and the destination channels it
/// writes, for a region's cache (64-bit pairs noted in `uses` directly);
/// None for an instruction a cached region cannot hold: an indirect
/// operand (which reaches the register file itself), flow other than plain
/// IF/UIF/ELSE/ENDIF/BRK/CONT, a call or a memory access.
fn channels_of(
    inst: &Inst,
    plan: Plan,
    dst: Option<u32>,
    uses: &mut Vec<(Key, u32, bool)>,
) -> Option<Channels> {
    let indirect = inst
        .src
        .iter()
        .any(|s| matches!(s.kind, SrcKind::RegIndirect { .. }))
        || matches!(inst.dst[0].kind, DstKind::RegIndirect { .. });
    if indirect {
        return None;
    }
    let m = inst.dst[0].mask;
    let mut reads: Vec<(usize, usize)> = Vec::new();
    let mut writes: Vec<usize> = Vec::new();
    let masked = |writes: &mut Vec<usize>| writes.extend((0..4).filter(|c| m & (1 << c) != 0));
    match plan {
        Plan::Flow => match inst.op {
            Opcode::IF | Opcode::UIF => {
                if !src_inline(&inst.src[0], false) {
                    return None;
                }
                reads.push((0, 0));
            }
            Opcode::ELSE | Opcode::ENDIF | Opcode::BRK | Opcode::CONT | Opcode::NOP => {}
            _ => return None,
        },
        Plan::Call | Plan::Load(_) | Plan::Store(_) | Plan::Atomic(_) | Plan::Resq(_) => {
            return None;
        }
        Plan::Comp(_, n) => {
            for c in (0..4).filter(|c| m & (1 << c) != 0) {
                reads.extend((0..n).map(|k| (k, c)));
                writes.push(c);
            }
        }
        Plan::Dot(n) => {
            reads.extend((0..n).flat_map(|c| [(0, c), (1, c)]));
            masked(&mut writes);
        }
        Plan::Scalar(_) | Plan::Row(_) => {
            reads.push((0, 0));
            if plan == Plan::Row(RowKernel::Pow) {
                reads.push((1, 0));
            }
            masked(&mut writes);
        }
        Plan::Special(spec) => {
            reads.extend(spec.reads());
            masked(&mut writes);
        }
        Plan::Tex(_) => {
            reads.extend([(0, 0), (0, 1)]);
            masked(&mut writes);
        }
        Plan::Pair(op, n, both) => {
            pair_uses(inst, (op, n, both), dst, uses, &mut reads, &mut writes)
        }
    }
    Some((reads, writes))
}

impl Emitter<'_> {
    /// The register cache of instructions `range` (ending with instruction
    /// `end`): an innermost loop's body of inline instructions (row
    /// kernels allowed) with direct operands and plain
    /// IF/UIF/ELSE/ENDIF/BRK/CONT, or a `straight` run. It holds the rows
    /// and constants used at least once in a loop, twice in a run; None
    /// when an instruction of the range rules a cache out.
    pub(super) fn region(
        &mut self,
        range: std::ops::Range<usize>,
        end: usize,
        plans: &[Plan],
        straight: bool,
    ) -> Option<Region> {
        // (key, uses, written)
        let mut uses: Vec<(Key, u32, bool)> = Vec::new();
        // the keys in the order of their first use, and the rows written
        // before anything reads them
        let mut seen: Vec<Key> = Vec::new();
        let mut written_first: Vec<Key> = Vec::new();
        for i in range {
            let inst = self.code.insts[i];
            let dst = match inst.dst[0].kind {
                DstKind::Reg(r) => Some(r),
                _ => None,
            };
            let (reads, writes) = channels_of(&inst, plans[i], dst, &mut uses)?;
            for (k, c) in reads {
                if let Some(key) = self.key_of(&inst.src[k], c) {
                    note(&mut uses, key, false);
                    if !seen.contains(&key) {
                        seen.push(key);
                    }
                }
            }
            // an instruction whose lanes off the inline path go to the
            // interpreter's handler, which reads its source registers from
            // the register file: every channel of them counts as read
            if matches!(plans[i], Plan::Tex(_) | Plan::Special(_)) {
                for s in &inst.src {
                    if let SrcKind::Reg(r) = s.kind {
                        for c in 0..4 {
                            if !seen.contains(&Key::Row(r, c)) {
                                seen.push(Key::Row(r, c));
                            }
                        }
                    }
                }
            }
            if let Some(r) = dst {
                for c in writes {
                    let key = Key::Row(r, c as u8);
                    note(&mut uses, key, true);
                    if !seen.contains(&key) {
                        seen.push(key);
                        written_first.push(key);
                    }
                }
            }
            // a second destination (DFRACEXP's exponent)
            if let DstKind::Reg(r) = inst.dst[1].kind {
                for c in (0..4).filter(|c| inst.dst[1].mask & (1 << c) != 0) {
                    note(&mut uses, Key::Row(r, c), true);
                }
            }
        }
        let slots = self.slots(uses, end, straight, &written_first);
        // a pair that did not fit: its rows are read and written in memory
        Some(Region {
            end,
            straight,
            slots,
        })
    }

    /// The cache slots of a region's `uses` (ending with instruction
    /// `end`; `written_first`: its rows written before anything reads
    /// them): the most used keys first, as many as the cache registers
    /// hold, each used at least once in a loop, twice in a `straight` run.
    fn slots(
        &self,
        uses: Vec<(Key, u32, bool)>,
        end: usize,
        straight: bool,
        written_first: &[Key],
    ) -> Vec<Slot> {
        let min_uses = if straight { 2 } else { 1 };
        // rows of a pair used as 64-bit lanes live in the pair's entry
        let pairs: Vec<(u32, u8)> = uses
            .iter()
            .filter_map(|(k, _, _)| match k {
                Key::Pair(r, q) => Some((*r, *q)),
                _ => None,
            })
            .collect();
        let mut merged: Vec<(Key, u32, bool)> = Vec::new();
        for (k, n, w) in uses {
            let owner = match k {
                Key::Row(r, c) if pairs.contains(&(r, c / 2)) => Key::Pair(r, c / 2),
                k => k,
            };
            note(&mut merged, owner, w);
            if let Some(e) = merged.iter_mut().find(|(u, _, _)| *u == owner) {
                e.1 += n - 1;
            }
        }
        // the most used first (stable: first use wins ties)
        merged.sort_by_key(|e| std::cmp::Reverse(e.1));
        let imm = self.code.imm;
        let mut next = CACHE_REGS.start;
        let mut slots = Vec::new();
        for (key, count, written) in merged {
            if count < min_uses {
                continue;
            }
            let uniform = matches!(key, Key::Pair(r, _) if r >= imm.base && r < imm.base + imm.len);
            let need = if matches!(key, Key::Pair(..)) && !uniform {
                2
            } else {
                1
            };
            if next + need > CACHE_REGS.end {
                continue;
            }
            slots.push(Slot {
                key,
                z: next,
                written,
                uniform,
                fresh: straight && self.dead_after(end, key) && written_first.contains(&key),
            });
            next += need;
        }
        slots
    }

    /// Whether row `key` is dead after instruction `end`: a TEMP row when
    /// the main program's END follows (nothing reads a TEMP after the
    /// program; a batch's next run starts from its reset).
    pub(super) fn dead_after(&self, end: usize, key: Key) -> bool {
        let temp = self.code.temp;
        let Key::Row(r, _) = key else {
            return false;
        };
        (temp.base..temp.base + temp.len).contains(&r)
            && self
                .code
                .insts
                .get(end + 1)
                .is_some_and(|i| i.op == Opcode::END)
    }

    /// The cache register holding `key` in the loop being emitted.
    pub(super) fn cached(&self, key: Key) -> Option<u32> {
        self.slot(key).map(|s| s.z)
    }

    pub(super) fn slot(&self, key: Key) -> Option<Slot> {
        self.active
            .as_ref()
            .and_then(|r| r.slots.iter().find(|s| s.key == key))
            .copied()
    }

    /// Loads every cache register of the active loop from the register
    /// file; at the region's `start`, the fresh rows ([`Slot::fresh`]) are
    /// left out.
    pub(super) fn cache_load(&mut self, start: bool) -> A {
        let Some(r) = self.active.clone() else {
            return Ok(());
        };
        for sl in r.slots {
            if start && sl.fresh {
                continue;
            }
            let z = zmm(sl.z);
            match sl.key {
                Key::Row(reg, chan) => {
                    self.a.vmovdqu32(z, zmmword_ptr(r12 + row_off(reg, chan)))?
                }
                Key::Const(k) => self.a.vpbroadcastd(z, dword_ptr(r14 + (4 * k) as i32))?,
                Key::Pair(reg, q) => {
                    let a = &mut self.a;
                    a.vmovdqu32(zmm(14), zmmword_ptr(r12 + row_off(reg, 2 * q)))?;
                    a.vmovdqu32(zmm(15), zmmword_ptr(r12 + row_off(reg, 2 * q + 1)))?;
                    let (lo, hi) = sl.halves();
                    a.vmovdqu32(zmm(lo), zmmword_ptr(rbx + off::PERM))?;
                    a.vpermi2d(zmm(lo), zmm(14), zmm(15))?;
                    if hi != lo {
                        a.vmovdqu32(zmm(hi), zmmword_ptr(rbx + off::PERM + 64))?;
                        a.vpermi2d(zmm(hi), zmm(14), zmm(15))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the rows the active loop writes back to the register file;
    /// at the region's `end`, the fresh rows ([`Slot::fresh`]) are left
    /// out.
    pub(super) fn cache_store(&mut self, end: bool) -> A {
        let Some(r) = self.active.clone() else {
            return Ok(());
        };
        for sl in r.slots {
            if !sl.written || (end && sl.fresh) {
                continue;
            }
            match sl.key {
                Key::Row(reg, chan) => self
                    .a
                    .vmovdqu32(zmmword_ptr(r12 + row_off(reg, chan)), zmm(sl.z))?,
                Key::Pair(reg, q) => {
                    let (lo, hi) = sl.halves();
                    for h in 0..2u8 {
                        let a = &mut self.a;
                        a.vmovdqu32(zmm(14), zmmword_ptr(rbx + off::PERM + 128 + 64 * h as i32))?;
                        a.vpermi2d(zmm(14), zmm(lo), zmm(hi))?;
                        a.vmovdqu32(zmmword_ptr(r12 + row_off(reg, 2 * q + h)), zmm(14))?;
                    }
                }
                Key::Const(_) => {}
            }
        }
        Ok(())
    }
}
