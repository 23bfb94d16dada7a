//! The last step: final register numbers (scratch temporaries behind every
//! other temporary, immediate-constant-buffer rows behind the immediate
//! pool), jump labels (UIF/ELSE → ELSE/ENDIF, BGNLOOP ↔ ENDLOOP, CAL → the
//! callee's BGNSUB), and the statements in TGSI order (properties,
//! declarations, immediates, instructions).

use super::Lowered;
use super::ctx::{Ctx, Result};
use super::emit::{ICB_BASE, SCRATCH_BASE};
use super::layout::err;
use tgsi_ir::enums::{File, ImmType};
use tgsi_ir::ir::{Declaration, Immediate, Instruction, Register, Shader, Statement};
use tgsi_ir::opcode::Opcode;

fn remap(r: &mut Register, scratch_base: u32, icb_base: u32) {
    if r.file == File::Temp && r.index.offset >= SCRATCH_BASE {
        r.index.offset = r.index.offset - SCRATCH_BASE + scratch_base as i32;
    }
    if r.file == File::Immediate && r.index.offset >= ICB_BASE {
        r.index.offset = r.index.offset - ICB_BASE + icb_base as i32;
    }
}

fn remap_instruction(i: &mut Instruction, scratch_base: u32, icb_base: u32) {
    for d in &mut i.dst {
        remap(&mut d.reg, scratch_base, icb_base);
    }
    for s in &mut i.src {
        remap(&mut s.reg, scratch_base, icb_base);
    }
    if let Some(t) = i.texture.as_mut() {
        for o in &mut t.offsets {
            if o.file == File::Temp && o.index >= SCRATCH_BASE {
                o.index = o.index - SCRATCH_BASE + scratch_base as i32;
            }
        }
    }
}

/// Jump labels from the block structure.
fn link(
    insts: &mut [Instruction],
    calls: &[(usize, super::ctx::SubKey)],
    subs: &std::collections::HashMap<super::ctx::SubKey, usize>,
) -> Result<()> {
    let mut stack: Vec<(Opcode, usize)> = Vec::new();
    for k in 0..insts.len() {
        match insts[k].opcode {
            Opcode::UIF | Opcode::IF | Opcode::BGNLOOP => stack.push((insts[k].opcode, k)),
            Opcode::ELSE => {
                let (_, open) = stack.pop().ok_or_else(|| err("ELSE without UIF"))?;
                insts[open].label = Some(k as u32);
                stack.push((Opcode::ELSE, k));
            }
            Opcode::ENDIF => {
                let (_, open) = stack.pop().ok_or_else(|| err("ENDIF without UIF"))?;
                insts[open].label = Some(k as u32);
            }
            Opcode::ENDLOOP => {
                let (_, open) = stack.pop().ok_or_else(|| err("ENDLOOP without BGNLOOP"))?;
                insts[open].label = Some(k as u32);
                insts[k].label = Some(open as u32);
            }
            _ => {}
        }
    }
    if let Some((op, _)) = stack.last() {
        return Err(err(format!("the program leaves a {op} open")));
    }
    for (at, key) in calls {
        let target = subs
            .get(key)
            .ok_or_else(|| err(format!("a call to {key:?}, which is not defined")))?;
        insts[*at].label = Some(*target as u32);
    }
    Ok(())
}

/// Drops the instructions [`super::tidy::keep`] finds repeated, with their
/// origins, and renumbers the instructions calls and subroutines name.
fn drop_repeats(
    em: &mut super::emit::Emitter,
    calls: &mut [(usize, super::ctx::SubKey)],
    subs: &mut std::collections::HashMap<super::ctx::SubKey, usize>,
) {
    let keep = super::tidy::keep(&em.insts);
    if keep.iter().all(|&k| k) {
        return;
    }
    // the new place of each kept instruction
    let mut place = Vec::with_capacity(keep.len());
    let mut next = 0usize;
    for &k in &keep {
        place.push(next);
        next += usize::from(k);
    }
    let mut k = keep.iter();
    em.insts.retain(|_| *k.next().unwrap_or(&true));
    let mut k = keep.iter();
    em.origins.retain(|_| *k.next().unwrap_or(&true));
    for (at, _) in calls.iter_mut() {
        *at = place[*at];
    }
    for at in subs.values_mut() {
        *at = place[*at];
    }
}

/// Assembles the final shader.
pub fn finish(ctx: Ctx) -> Result<Lowered> {
    let Ctx {
        lay,
        mut em,
        mut calls,
        mut subs,
        ..
    } = ctx;
    drop_repeats(&mut em, &mut calls, &mut subs);
    let scratch_base = lay.next_temp;
    let total_temps = scratch_base + em.scratch_max;
    if total_temps > super::layout::MAX_TEMPS {
        return Err(err(format!(
            "the shader needs {total_temps} temporaries: at most {}",
            super::layout::MAX_TEMPS
        )));
    }
    let imms = em.imms.finish();
    let icb_base = imms.len() as u32;
    for i in &mut em.insts {
        remap_instruction(i, scratch_base, icb_base);
    }
    for d in &mut em.dests {
        remap(&mut d.register, scratch_base, icb_base);
    }
    link(&mut em.insts, &calls, &subs)?;

    let mut statements: Vec<Statement> = Vec::new();
    for p in &lay.props {
        statements.push(Statement::Property(*p));
    }
    let mut decls: Vec<Declaration> = lay.decls.clone();
    // TEMP: the plain runs and the arrays.
    let mut in_array = vec![0u32; total_temps as usize];
    for a in &lay.arrays {
        for k in a.first..a.first + a.len {
            if let Some(slot) = in_array.get_mut(k as usize) {
                *slot = a.id;
            }
        }
    }
    let mut run_start: Option<u32> = None;
    for k in 0..=total_temps {
        let plain = k < total_temps && in_array[k as usize] == 0;
        match (plain, run_start) {
            (true, None) => run_start = Some(k),
            (false, Some(s)) => {
                decls.push(Declaration::new(File::Temp, s, k - 1));
                run_start = None;
            }
            _ => {}
        }
    }
    for a in &lay.arrays {
        let mut d = Declaration::new(File::Temp, a.first, a.first + a.len - 1);
        d.array_id = Some(a.id);
        decls.push(d);
    }
    if em.addr_max > 0 {
        decls.push(Declaration::new(File::Address, 0, em.addr_max - 1));
    }
    for d in decls {
        statements.push(Statement::Declaration(d));
    }
    for (ty, words) in imms {
        statements.push(Statement::Immediate(Immediate { ty, words }));
    }
    for row in &lay.icb {
        statements.push(Statement::Immediate(Immediate {
            ty: ImmType::Uint32,
            words: row.to_vec(),
        }));
    }
    for i in em.insts {
        statements.push(Statement::Instruction(i));
    }
    Ok(Lowered {
        shader: Shader {
            processor: lay.processor,
            statements,
        },
        origins: em.origins,
        bindings: lay.bindings,
        inputs: lay.io_in,
        outputs: lay.io_out,
        tessellator: lay.tessellator,
        dests: em.dests,
    })
}
