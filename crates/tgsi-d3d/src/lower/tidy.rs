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

use tgsi_ir::enums::File;
use tgsi_ir::ir::{Instruction, Register};
use tgsi_ir::opcode::{Category, Opcode};

/// The most earlier results a repeat is looked for among.
const MOST_STANDING: usize = 64;

/// Which instructions to keep (false: a repeat of an earlier one).
pub fn keep(insts: &[Instruction]) -> Vec<bool> {
    let mut keep = vec![true; insts.len()];
    // earlier pure instructions whose results still stand
    let mut standing: Vec<usize> = Vec::new();
    for (j, inst) in insts.iter().enumerate() {
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
}
