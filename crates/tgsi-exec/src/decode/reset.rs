//! Which registers a batch reset must clear ([`Code::reset`]).
//!
//! TEMP and OUT registers read as zero until written. A register needs no
//! clearing when the program provably writes each channel before anything
//! can read it: a write in the straight-line prefix of the program (before
//! any flow, kill, memory, inter-lane or derivative instruction), where
//! every live lane executes, covers every lane that can be observed. Live
//! lanes are whole quads in a fragment batch and the invocations of a
//! vertex or compute batch; dead lanes are never read back.
//!
//! The rule, per register of the candidate files (TEMP and OUT of vertex,
//! fragment and compute programs), counting the channels an instruction
//! really writes ([`written_channels`]: a 64-bit narrowing such as D2F
//! writes two channels whatever its writemask):
//! * a channel read in the prefix before the prefix wrote it: clear;
//! * an OUT register not wholly written in the prefix: clear (the stage
//!   reads every channel after the program);
//! * a TEMP register touched after the prefix but not wholly written in it:
//!   clear; one never touched at all: no need;
//! * a register an address register names, or one an indirect access can
//!   reach: clear.
//!
//! A fragment program's declared inputs are not cleared either: each batch
//! fills every channel an instruction may read ([`Code::input_reads`]).
//! Everything else of the writable files (other IN registers, ADDR, the
//! patch store, other stages' files) is cleared as before. A traced program clears everything
//! (the debugger shows registers before their first write).

use super::{Code, DstKind, FileRange, IndexExpr, Inst, SrcKind, TexInst};
use crate::semantics::{LaneShape, lane_op, written_channels};
use std::ops::Range;
use tgsi_ir::enums::Processor;
use tgsi_ir::opcode::Category;

/// The register ranges `Batch::reset` clears, in ascending order.
pub(super) fn reset_ranges(
    processor: Processor,
    insts: &[Inst],
    tex: &[TexInst],
    files: [FileRange; 2],
    filled_inputs: &[u32],
    writable_end: u32,
) -> Vec<Range<u32>> {
    let [temp, output] = files;
    let candidates = matches!(
        processor,
        Processor::Fragment | Processor::Vertex | Processor::Compute
    );
    if !candidates {
        return std::iter::once(0..writable_end).collect();
    }
    let first = temp.base.min(output.base);
    let end = (temp.base + temp.len).max(output.base + output.len);
    let is_candidate = |r: u32| (first..end).contains(&r);
    let mut clear = vec![false; writable_end as usize];
    let mut touched = vec![false; writable_end as usize];
    let mut written = vec![0u8; writable_end as usize];
    let mut force = |r: u32| {
        if let Some(c) = clear.get_mut(r as usize) {
            *c = true;
        }
    };
    // Address registers and indirect ranges: cleared wherever they appear.
    for inst in insts {
        for_each_index(inst, tex, |e| {
            if let Some(a) = e.addr {
                force(a.reg);
            }
        });
        for s in sources(inst, tex) {
            if let SrcKind::RegIndirect {
                base, len, addr, ..
            } = s.kind
            {
                (base..base + len).for_each(&mut force);
                force(addr.reg);
            }
        }
        for d in &inst.dst {
            if let DstKind::RegIndirect {
                base, len, addr, ..
            } = d.kind
            {
                (base..base + len).for_each(&mut touched_mark(&mut touched));
                force(addr.reg);
            }
        }
    }
    // The straight-line prefix.
    let mut prefix_end = insts.len();
    for (i, inst) in insts.iter().enumerate() {
        if !continues_prefix(processor, inst) {
            prefix_end = i;
            break;
        }
        let used = channels_used(inst);
        for s in sources(inst, tex) {
            if let SrcKind::Reg(r) = s.kind
                && is_candidate(r)
            {
                let reads = (0..4)
                    .filter(|c| used & (1 << c) != 0)
                    .fold(0u8, |m, c| m | 1 << (s.swz[c] & 3));
                touched[r as usize] = true;
                if reads & !written[r as usize] != 0 {
                    force(r);
                }
            }
        }
        for (k, d) in inst.dst.iter().enumerate() {
            if let DstKind::Reg(r) = d.kind
                && is_candidate(r)
            {
                touched[r as usize] = true;
                // the channels the opcode writes, not the writemask: D2F
                // writes .xy of an .xyzw mask
                written[r as usize] |= written_channels(inst.op, k, d.mask) & 0xF;
            }
        }
    }
    for inst in &insts[prefix_end..] {
        for s in sources(inst, tex) {
            if let SrcKind::Reg(r) = s.kind {
                touched_mark(&mut touched)(r);
            }
        }
        for d in &inst.dst {
            if let DstKind::Reg(r) = d.kind {
                touched_mark(&mut touched)(r);
            }
        }
    }
    let mut ranges: Vec<Range<u32>> = Vec::new();
    for r in 0..writable_end {
        let i = r as usize;
        let needed = if filled_inputs.contains(&r) {
            false
        } else if !is_candidate(r) {
            true
        } else if output.base <= r && r < output.base + output.len {
            clear[i] || written[i] != 0xF
        } else {
            clear[i] || (touched[i] && written[i] != 0xF)
        };
        if !needed {
            continue;
        }
        match ranges.last_mut() {
            Some(last) if last.end == r => last.end = r + 1,
            _ => ranges.push(r..r + 1),
        }
    }
    ranges
}

fn touched_mark(touched: &mut [bool]) -> impl FnMut(u32) + '_ {
    |r| {
        if let Some(t) = touched.get_mut(r as usize) {
            *t = true;
        }
    }
}

/// An instruction's source operands and the texel-offset operand of a
/// texture instruction (read like a source).
fn sources(inst: &Inst, tex: &[TexInst]) -> impl Iterator<Item = super::Src> {
    let offset = is_texture(inst)
        .then(|| tex.get(inst.aux as usize).and_then(|t| t.offset))
        .flatten();
    inst.src.into_iter().chain(offset)
}

fn is_texture(inst: &Inst) -> bool {
    matches!(
        inst.op.info().category,
        Category::Texture | Category::Sampling
    )
}

/// Every per-lane index expression of an instruction besides its register
/// operands' address registers.
fn for_each_index(inst: &Inst, tex: &[TexInst], mut f: impl FnMut(&IndexExpr)) {
    for s in &inst.src {
        if let SrcKind::ConstIndirect { buf, slot } = &s.kind {
            f(buf);
            f(slot);
        }
    }
    if let Some(e) = &inst.resource_addr {
        f(e);
    }
    if is_texture(inst)
        && let Some(t) = tex.get(inst.aux as usize)
    {
        f(&t.sview);
        f(&t.sampler);
    }
}

/// Whether `inst` keeps the program in its straight-line prefix: it
/// computes its destination in every live lane and reads no other lane
/// (texture instructions read their quad's neighbours, whole in a
/// fragment batch only).
fn continues_prefix(processor: Processor, inst: &Inst) -> bool {
    match inst.op.info().category {
        Category::FloatAlu
        | Category::Integer
        | Category::Int64
        | Category::Double
        | Category::Conversion
        | Category::Pack => true,
        Category::Texture | Category::Sampling => processor == Processor::Fragment,
        _ => false,
    }
}

/// The source channels (before the swizzle) an instruction computes from,
/// as [`super::input_reads`] counts them.
pub(super) fn channels_used(inst: &Inst) -> u8 {
    match lane_op(inst.op).map(|l| l.shape) {
        Some(LaneShape::Component(_)) => inst.dst[0].mask,
        Some(LaneShape::Dot(mask)) => mask,
        Some(LaneShape::Scalar(_)) => 1,
        _ => 0xF,
    }
}

impl Code {
    /// Whether `reg` is cleared by a batch reset.
    pub fn resets(&self, reg: u32) -> bool {
        self.reset.iter().any(|r| r.contains(&reg))
    }
}
