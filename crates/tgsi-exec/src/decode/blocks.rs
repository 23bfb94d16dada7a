//! The block structure: jump targets of IF/ELSE/ENDIF, loops, SWITCH and
//! its cases, BRK/CONT and CAL.

use super::*;

/// Points a BRK or CONT at the innermost breakable block (CONT: the
/// innermost loop), not crossing a subroutine boundary; false when there
/// is none.
pub(super) fn link_break(open: &[Open], op: Opcode, inst: &mut Inst) -> bool {
    for o in open.iter().rev() {
        match *o {
            Open::Loop { at } => {
                // Patched when the ENDLOOP is seen.
                inst.target = u32::MAX - at as u32;
                return true;
            }
            Open::Switch { .. } if op == Opcode::BRK => {
                inst.brk_switch = true;
                return true;
            }
            Open::Sub { .. } => return false,
            _ => {}
        }
    }
    false
}

/// CAL: its label names the subroutine; it must be a BGNSUB (or the
/// instruction right after one).
pub(super) fn link_calls(ir: &[&Instruction], insts: &mut [Inst]) -> Result<(), ExecError> {
    let mismatch = |i: usize, what: &str| err(i, ir[i], what);
    for i in 0..ir.len() {
        if ir[i].opcode != Opcode::CAL {
            continue;
        }
        let label = ir[i]
            .label
            .ok_or_else(|| mismatch(i, "CAL without a label"))? as usize;
        let body = if label < ir.len() && ir[label].opcode == Opcode::BGNSUB {
            label + 1
        } else if label > 0 && label <= ir.len() && ir[label - 1].opcode == Opcode::BGNSUB {
            label
        } else {
            return Err(mismatch(
                i,
                &format!("CAL label {label} does not point at a BGNSUB"),
            ));
        };
        insts[i].target = body as u32;
    }
    Ok(())
}

/// Matches the block structure and fills jump targets.
pub(super) fn link_blocks(
    ir: &[&Instruction],
    insts: &mut [Inst],
    switch_cases: &mut Vec<Vec<u32>>,
) -> Result<(), ExecError> {
    let mut open: Vec<Open> = Vec::new();
    let mismatch = |i: usize, what: &str| err(i, ir[i], what);
    for i in 0..ir.len() {
        let op = ir[i].opcode;
        match op {
            Opcode::IF | Opcode::UIF => open.push(Open::If {
                at: i,
                else_at: None,
            }),
            Opcode::ELSE => match open.last_mut() {
                Some(Open::If {
                    at,
                    else_at: else_at @ None,
                }) => {
                    insts[*at].target = i as u32;
                    *else_at = Some(i);
                }
                _ => return Err(mismatch(i, "ELSE without a matching IF")),
            },
            Opcode::ENDIF => match open.pop() {
                Some(Open::If { at, else_at }) => match else_at {
                    Some(e) => insts[e].target = i as u32,
                    None => insts[at].target = i as u32,
                },
                _ => return Err(mismatch(i, "ENDIF without a matching IF")),
            },
            Opcode::BGNLOOP => open.push(Open::Loop { at: i }),
            Opcode::ENDLOOP => match open.pop() {
                Some(Open::Loop { at }) => {
                    insts[at].target = i as u32;
                    insts[i].target = at as u32;
                    // BRK/CONT of this loop jump to here.
                    for inner in &mut insts[at + 1..i] {
                        if matches!(inner.op, Opcode::BRK | Opcode::CONT)
                            && inner.target == u32::MAX - at as u32
                        {
                            inner.target = i as u32;
                        }
                    }
                }
                _ => return Err(mismatch(i, "ENDLOOP without a matching BGNLOOP")),
            },
            Opcode::BRK | Opcode::CONT => {
                let linked = link_break(&open, op, &mut insts[i]);
                if !linked {
                    let what = if op == Opcode::BRK {
                        "a loop or switch"
                    } else {
                        "a loop"
                    };
                    return Err(mismatch(i, &format!("{op} outside of {what}")));
                }
            }
            Opcode::SWITCH => {
                switch_cases.push(Vec::new());
                insts[i].aux = (switch_cases.len() - 1) as u32;
                open.push(Open::Switch {
                    at: i,
                    table: switch_cases.len() - 1,
                    default_seen: false,
                });
            }
            Opcode::CASE | Opcode::DEFAULT => match open.last_mut() {
                Some(Open::Switch {
                    table,
                    default_seen,
                    ..
                }) => {
                    if op == Opcode::CASE {
                        switch_cases[*table].push(i as u32);
                    } else if *default_seen {
                        return Err(mismatch(i, "second DEFAULT in one SWITCH"));
                    } else {
                        *default_seen = true;
                    }
                }
                _ => {
                    return Err(mismatch(
                        i,
                        &format!("{op} outside of a SWITCH (or inside an unclosed block of it)"),
                    ));
                }
            },
            Opcode::ENDSWITCH => match open.pop() {
                Some(Open::Switch { at, .. }) => insts[at].target = i as u32,
                _ => return Err(mismatch(i, "ENDSWITCH without a matching SWITCH")),
            },
            Opcode::BGNSUB => {
                if !open.is_empty() {
                    return Err(mismatch(i, "BGNSUB inside another block"));
                }
                open.push(Open::Sub { at: i })
            }
            Opcode::ENDSUB => match open.pop() {
                Some(Open::Sub { .. }) => {}
                _ => return Err(mismatch(i, "ENDSUB without a matching BGNSUB")),
            },
            _ => {}
        }
        if open.len() > MAX_DEPTH {
            // no batch could enter this deep (its frames are MAX_DEPTH),
            // and bounding the depth keeps this linking linear
            return Err(mismatch(
                i,
                &format!("blocks nested {} deep: at most {MAX_DEPTH}", open.len()),
            ));
        }
    }
    if let Some(o) = open.last() {
        let (at, what) = match *o {
            Open::If { at, .. } => (at, "IF without ENDIF"),
            Open::Loop { at } => (at, "BGNLOOP without ENDLOOP"),
            Open::Switch { at, .. } => (at, "SWITCH without ENDSWITCH"),
            Open::Sub { at } => (at, "BGNSUB without ENDSUB"),
        };
        return Err(mismatch(at, what));
    }
    link_calls(ir, insts)
}
