//! The clean-up of the lowered instruction list: an instruction that
//! computes again, into the same destination, what an earlier one of the
//! same straight run of code computed there is dropped (the lowering
//! recomputes a structured buffer's byte address for each access, for
//! instance). Only pure operations (float, integer, 64-bit, double,
//! conversion and packing opcodes) count, with direct operands; the
//! earlier one must not read its own destination, and nothing between the
//! two may write a register either reads or writes. A run ends at every
//! opcode that is not one of those pure ones or a memory access, and at
//! barriers (flow control, calls, derivatives, BARRIER, MEMBAR...), since
//! the execution mask, or what other lanes or invocations hold, may change
//! there. The last 64 results are looked among.
//!
//! Across runs, one more kind of repeat goes: a pure instruction reading
//! only registers no instruction writes (system values, immediates,
//! constants) into a temporary that no other instruction writes (the
//! lowering gives a system value's structured address such a register of
//! its own). Its value is then the same wherever it is computed, so a copy
//! is dropped when an earlier one dominates it: earlier in the same block
//! or in a block around it (a lane that reaches the copy has run the
//! earlier one, in this pass of a loop or an earlier one). Blocks open at
//! UIF, IF, BGNLOOP and SWITCH, are replaced at ELSE, CASE and DEFAULT,
//! close at ENDIF, ENDLOOP and ENDSWITCH; a subroutine starts afresh. None
//! of this is done in a program that writes temporaries through an
//! indirect index (such a write might land anywhere). At most 64 such
//! definitions are looked among at once.

use std::collections::HashMap;
use tgsi_ir::enums::File;
use tgsi_ir::ir::{Instruction, Register};
use tgsi_ir::opcode::{Category, Opcode};

/// The most earlier results a repeat is looked for among.
const MOST_STANDING: usize = 64;

/// Which instructions to keep (false: a repeat of an earlier one).
pub fn keep(insts: &[Instruction]) -> Vec<bool> {
    let mut keep = vec![true; insts.len()];
    let invariant = invariant_definitions(insts);
    // the invariant definitions run so far in each open block
    let mut blocks: Vec<Vec<usize>> = vec![Vec::new()];
    // earlier pure instructions whose results still stand
    let mut standing: Vec<usize> = Vec::new();
    for (j, inst) in insts.iter().enumerate() {
        if invariant[j] {
            if blocks.iter().flatten().any(|&i| insts[i] == *inst) {
                keep[j] = false;
                continue;
            }
            let known: usize = blocks.iter().map(Vec::len).sum();
            if let Some(b) = blocks.last_mut()
                && known < MOST_STANDING
            {
                b.push(j);
            }
        }
        enter_or_leave(&mut blocks, inst.opcode);
        if pure(inst) && standing.iter().any(|&i| insts[i] == *inst) {
            keep[j] = false;
            continue;
        }
        let category = inst.opcode.info().category;
        let continues = (category.is_lane_arithmetic()
            || matches!(
                category,
                Category::Memory | Category::Atomic | Category::Texture | Category::Sampling
            ))
            && !matches!(inst.opcode, Opcode::BARRIER | Opcode::MEMBAR);
        if !continues || inst.dst.iter().any(|d| !direct(&d.reg)) {
            standing.clear();
        } else {
            standing.retain(|&i| !inst.dst.iter().any(|d| touches(&insts[i], &d.reg)));
        }
        if pure(inst)
            && !inst
                .src
                .iter()
                .any(|s| inst.dst.iter().any(|d| same(&s.reg, &d.reg)))
        {
            // the latest few (a bound on the work of long straight runs)
            if standing.len() == MOST_STANDING {
                standing.remove(0);
            }
            standing.push(j);
        }
    }
    keep
}

/// The block structure at `op`: the invariant definitions of the blocks
/// it opens, replaces or closes are forgotten.
fn enter_or_leave(blocks: &mut Vec<Vec<usize>>, op: Opcode) {
    match op {
        Opcode::UIF | Opcode::IF | Opcode::BGNLOOP | Opcode::SWITCH => blocks.push(Vec::new()),
        Opcode::ELSE | Opcode::CASE | Opcode::DEFAULT => {
            if blocks.len() > 1
                && let Some(b) = blocks.last_mut()
            {
                b.clear();
            }
        }
        Opcode::ENDIF | Opcode::ENDLOOP | Opcode::ENDSWITCH if blocks.len() > 1 => {
            blocks.pop();
        }
        Opcode::BGNSUB | Opcode::ENDSUB | Opcode::END => {
            blocks.clear();
            blocks.push(Vec::new());
        }
        _ => {}
    }
}

/// Which instructions define an invariant temporary: pure, reading only
/// files no instruction writes, into a temporary every writer of which is
/// the same instruction. None when some instruction writes a temporary
/// through an indirect index.
fn invariant_definitions(insts: &[Instruction]) -> Vec<bool> {
    let mut out = vec![false; insts.len()];
    let indirect_temp = insts
        .iter()
        .flat_map(|i| &i.dst)
        .any(|d| d.reg.file == File::Temp && (!direct(&d.reg) || d.reg.dimension.is_some()));
    if indirect_temp {
        return out;
    }
    // each written temporary's first writer, and whether every writer is
    // the same instruction as that one
    let mut writers: HashMap<i32, (usize, bool)> = HashMap::new();
    for (j, inst) in insts.iter().enumerate() {
        for d in inst.dst.iter().filter(|d| d.reg.file == File::Temp) {
            let w = writers.entry(d.reg.index.offset).or_insert((j, true));
            w.1 &= insts[w.0] == *inst;
        }
    }
    for (j, inst) in insts.iter().enumerate() {
        let reads_fixed = inst.src.iter().all(|s| {
            matches!(
                s.reg.file,
                File::SystemValue | File::Immediate | File::Const
            )
        });
        out[j] = pure(inst)
            && reads_fixed
            && inst.dst[0].reg.file == File::Temp
            && writers
                .get(&inst.dst[0].reg.index.offset)
                .is_some_and(|w| w.1);
    }
    out
}

/// A pure opcode with direct operands of register files that only
/// instructions write (no indirect index, no memory).
fn pure(inst: &Instruction) -> bool {
    inst.opcode.info().category.is_lane_arithmetic()
        && inst.dst.len() == 1
        && inst.dst.iter().all(|d| direct(&d.reg))
        && inst.src.iter().all(|s| direct(&s.reg))
}

fn direct(r: &Register) -> bool {
    r.index.indirect.is_none()
        && r.dimension.is_none_or(|d| d.indirect.is_none())
        && matches!(
            r.file,
            File::Temp
                | File::Immediate
                | File::Const
                | File::Input
                | File::Output
                | File::SystemValue
                | File::Address
        )
}

/// Whether writing `w` changes a register `inst` reads or writes.
fn touches(inst: &Instruction, w: &Register) -> bool {
    inst.dst.iter().any(|d| same(&d.reg, w)) || inst.src.iter().any(|s| same(&s.reg, w))
}

/// The same register (file, index and dimension; every channel of it).
fn same(a: &Register, b: &Register) -> bool {
    a.file == b.file
        && a.index.offset == b.index.offset
        && a.dimension.map(|d| d.offset) == b.dimension.map(|d| d.offset)
}

#[cfg(test)]
mod tests {
    use tgsi_ir::ir::{Instruction, Statement};

    fn instructions(text: &str) -> Vec<Instruction> {
        let (shader, _) =
            tgsi_text::assemble(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
        shader
            .statements
            .into_iter()
            .filter_map(|s| match s {
                Statement::Instruction(i) => Some(i),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn only_repeats_whose_operands_stand_are_dropped() {
        let insts = instructions(
            "COMP\nDCL TEMP[0..2]\nIMM[0] UINT32 {4, 0, 1, 0}\n\
             0: UMAD TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx, IMM[0].yyyy\n\
             1: ADD TEMP[2].y, TEMP[0].yyyy, TEMP[0].yyyy\n\
             2: UMAD TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx, IMM[0].yyyy\n\
             3: UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz\n\
             4: UMAD TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx, IMM[0].yyyy\n\
             5: UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].zzzz\n\
             6: UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].zzzz\n\
             7: UIF TEMP[1].xxxx\n\
             8: UMAD TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx, IMM[0].yyyy\n\
             9: ENDIF\n\
             10: UMAD TEMP[1].y, TEMP[0].xxxx, IMM[0].xxxx, IMM[0].yyyy\n\
             11: END\n",
        );
        // 2 repeats 0 (1 wrote another register); 4 follows a write of its
        // source; 6 reads what 5 wrote (and 5 its own destination); 8 is
        // past a branch; 10 writes another channel
        let want = [
            true, true, false, true, true, true, true, true, true, true, true, true,
        ];
        assert_eq!(super::keep(&insts), want);
    }

    #[test]
    fn invariant_repeats_go_where_an_earlier_copy_dominates() {
        let program = |extra: &str| {
            instructions(&format!(
                "COMP\nDCL SV[0], THREAD_ID\nDCL TEMP[0..3]\nDCL ADDR[0]\n\
                 IMM[0] UINT32 {{2, 0, 1, 0}}\n\
                 0: UIF SV[0].xxxx\n\
                 1: SHL TEMP[1].x, SV[0].xxxx, IMM[0].xxxx\n\
                 2: ELSE\n\
                 3: SHL TEMP[1].x, SV[0].xxxx, IMM[0].xxxx\n\
                 4: ENDIF\n\
                 5: SHL TEMP[1].x, SV[0].xxxx, IMM[0].xxxx\n\
                 6: BGNLOOP\n\
                 7: UIF SV[0].yyyy\n\
                 8: SHL TEMP[1].x, SV[0].xxxx, IMM[0].xxxx\n\
                 9: ENDIF\n\
                 10: BRK\n\
                 11: ENDLOOP\n\
                 12: SHL TEMP[1].x, SV[0].xxxx, IMM[0].xxxx\n\
                 {extra}\
                 13: END\n"
            ))
        };
        // 3 is not dominated by 1 (the other branch), 5 by neither; 8 and
        // 12 are dominated by 5
        let dropped = |insts: &[Instruction]| {
            super::keep(insts)
                .iter()
                .enumerate()
                .filter(|(_, k)| !**k)
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        assert_eq!(dropped(&program("")), [8, 12]);
        // another writer of TEMP[1], or a write through an indirect index,
        // makes nothing invariant
        let other = program("UADD TEMP[1].x, TEMP[1].xxxx, IMM[0].zzzz\n");
        assert_eq!(dropped(&other), Vec::<usize>::new());
        let indirect = program("MOV TEMP[ADDR[0].x].x, IMM[0].zzzz\n");
        assert_eq!(dropped(&indirect), Vec::<usize>::new());
    }
}
