//! Structured control flow: TGSI's IF/ELSE/ENDIF and loops become SPIR-V
//! selection and loop constructs (`OpSelectionMerge`, `OpLoopMerge` with a
//! continue block); BRK and CONT branch to the innermost loop's merge and
//! continue blocks, END and RET return. Code after a branch goes on in a
//! fresh block that nothing reaches.

use super::Error;
use super::module::Translator;
use rspirv::spirv::{self, Word};
use tgsi_ir::ir::Instruction;
use tgsi_ir::opcode::{Opcode, OperandType};

/// An open block of the program.
pub(crate) enum Frame {
    If {
        merge: Word,
        /// Where a false condition goes: the ELSE part, or straight on to
        /// the merge when there is none.
        otherwise: Word,
        has_else: bool,
    },
    Loop {
        header: Word,
        cont: Word,
        merge: Word,
    },
    /// A SWITCH: its merge and the labels of its CASE/DEFAULT statements
    /// still to come, in order.
    Switch { merge: Word, labels: Vec<Word> },
}

/// The opcodes this module translates.
pub(crate) fn is_flow(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::IF
            | Opcode::UIF
            | Opcode::ELSE
            | Opcode::ENDIF
            | Opcode::BGNLOOP
            | Opcode::ENDLOOP
            | Opcode::BRK
            | Opcode::CONT
            | Opcode::END
            | Opcode::RET
            | Opcode::NOP
            | Opcode::CAL
            | Opcode::BGNSUB
            | Opcode::ENDSUB
            | Opcode::SWITCH
            | Opcode::CASE
            | Opcode::DEFAULT
            | Opcode::ENDSWITCH
    )
}

impl Translator<'_> {
    fn branch_to(&mut self, target: Word) -> Result<(), Error> {
        self.b.branch(target).map_err(|e| self.fail(e.to_string()))
    }

    fn begin(&mut self, label: Option<Word>) -> Result<(), Error> {
        self.b
            .begin_block(label)
            .map_err(|e| self.fail(e.to_string()))?;
        Ok(())
    }

    /// One control-flow instruction; true at END of the main program (the
    /// rest, subroutines, is not reached from main).
    pub(crate) fn flow_instruction(&mut self, inst: &Instruction) -> Result<bool, Error> {
        match inst.opcode {
            Opcode::IF | Opcode::UIF => {
                let cond = self.condition(inst)?;
                let (then, otherwise, merge) = (self.b.id(), self.b.id(), self.b.id());
                self.b
                    .selection_merge(merge, spirv::SelectionControl::NONE)
                    .map_err(|e| self.fail(e.to_string()))?;
                self.b
                    .branch_conditional(cond, then, otherwise, [])
                    .map_err(|e| self.fail(e.to_string()))?;
                self.begin(Some(then))?;
                self.flow.push(Frame::If {
                    merge,
                    otherwise,
                    has_else: false,
                });
            }
            Opcode::ELSE => {
                let Some(Frame::If {
                    merge,
                    otherwise,
                    has_else: false,
                }) = self.flow.pop()
                else {
                    return Err(self.fail("ELSE without IF"));
                };
                self.branch_to(merge)?;
                self.begin(Some(otherwise))?;
                self.flow.push(Frame::If {
                    merge,
                    otherwise,
                    has_else: true,
                });
            }
            Opcode::ENDIF => {
                let Some(Frame::If {
                    merge,
                    otherwise,
                    has_else,
                }) = self.flow.pop()
                else {
                    return Err(self.fail("ENDIF without IF"));
                };
                self.branch_to(merge)?;
                if !has_else {
                    self.begin(Some(otherwise))?;
                    self.branch_to(merge)?;
                }
                self.begin(Some(merge))?;
            }
            Opcode::BGNLOOP => {
                let (header, body, cont, merge) =
                    (self.b.id(), self.b.id(), self.b.id(), self.b.id());
                self.branch_to(header)?;
                self.begin(Some(header))?;
                self.b
                    .loop_merge(merge, cont, spirv::LoopControl::NONE, [])
                    .map_err(|e| self.fail(e.to_string()))?;
                self.branch_to(body)?;
                self.begin(Some(body))?;
                self.flow.push(Frame::Loop {
                    header,
                    cont,
                    merge,
                });
            }
            Opcode::ENDLOOP => {
                let Some(Frame::Loop {
                    header,
                    cont,
                    merge,
                }) = self.flow.pop()
                else {
                    return Err(self.fail("ENDLOOP without BGNLOOP"));
                };
                self.branch_to(cont)?;
                self.begin(Some(cont))?;
                self.branch_to(header)?;
                self.begin(Some(merge))?;
            }
            Opcode::BRK | Opcode::CONT => {
                let brk = inst.opcode == Opcode::BRK;
                let target = self
                    .flow
                    .iter()
                    .rev()
                    .find_map(|f| match f {
                        Frame::Loop { cont, merge, .. } => Some(if brk { *merge } else { *cont }),
                        Frame::Switch { merge, .. } if brk => Some(*merge),
                        _ => None,
                    })
                    .ok_or_else(|| self.fail(format!("{} outside a loop", inst.opcode)))?;
                self.branch_to(target)?;
                self.begin(None)?;
            }
            Opcode::SWITCH => self.switch(inst)?,
            Opcode::CASE | Opcode::DEFAULT => {
                let Some(Frame::Switch { labels, .. }) = self.flow.last_mut() else {
                    return Err(self.fail(format!("{} outside a SWITCH", inst.opcode)));
                };
                if labels.is_empty() {
                    return Err(self.fail("a CASE the SWITCH did not count"));
                }
                let label = labels.remove(0);
                if self.b.selected_block().is_some() {
                    // falling through from the case above
                    self.branch_to(label)?;
                }
                self.begin(Some(label))?;
            }
            Opcode::ENDSWITCH => {
                let Some(Frame::Switch { merge, .. }) = self.flow.pop() else {
                    return Err(self.fail("ENDSWITCH without SWITCH"));
                };
                if self.b.selected_block().is_some() {
                    self.branch_to(merge)?;
                }
                self.begin(Some(merge))?;
            }
            Opcode::RET => {
                // a subroutine returns to its caller; main ends the shader
                if !self.in_subroutine {
                    self.store_outputs()?;
                }
                self.b.ret().map_err(|e| self.fail(e.to_string()))?;
                self.begin(None)?;
            }
            Opcode::CAL => self.call(inst)?,
            Opcode::BGNSUB | Opcode::ENDSUB => {
                return Err(self.fail(format!("{} inside the main program", inst.opcode)));
            }
            Opcode::END if self.flow.is_empty() => return Ok(true),
            Opcode::END => {
                self.store_outputs()?;
                self.b.ret().map_err(|e| self.fail(e.to_string()))?;
                self.begin(None)?;
            }
            Opcode::NOP => {}
            op => {
                return Err(self.fail(format!("{op} is not translated to SPIR-V yet")));
            }
        }
        Ok(false)
    }

    /// SWITCH: the CASE values of its block (immediates), one label per
    /// CASE/DEFAULT in order, `OpSwitch` to them (no DEFAULT: to the merge).
    fn switch(&mut self, inst: &Instruction) -> Result<(), Error> {
        let insts: Vec<&Instruction> = self.shader.instructions().collect();
        let imms: Vec<Vec<u32>> = self.shader.immediates().map(|i| i.words.clone()).collect();
        let merge = self.b.id();
        let (mut labels, mut targets, mut default) = (Vec::new(), Vec::new(), None);
        let mut depth = 0usize;
        for i in insts.iter().skip(self.at + 1) {
            match i.opcode {
                Opcode::SWITCH => depth += 1,
                Opcode::ENDSWITCH if depth == 0 => break,
                Opcode::ENDSWITCH => depth -= 1,
                Opcode::CASE | Opcode::DEFAULT if depth == 0 => {
                    let label = self.b.id();
                    labels.push(label);
                    if i.opcode == Opcode::DEFAULT {
                        default = Some(label);
                        continue;
                    }
                    let value = i
                        .src
                        .first()
                        .filter(|s| {
                            s.reg.file == tgsi_ir::enums::File::Immediate
                                && s.reg.index.indirect.is_none()
                        })
                        .and_then(|s| {
                            imms.get(s.reg.index.offset as usize)?
                                .get(s.swizzle.0[0] as usize)
                                .copied()
                        })
                        .ok_or_else(|| {
                            self.fail("a CASE whose value is not an immediate is not translated to SPIR-V yet")
                        })?;
                    // of two CASEs with one value the first takes the selector
                    if !targets.iter().any(|(v, _)| *v == value) {
                        targets.push((value, label));
                    }
                }
                _ => {}
            }
        }
        let src = inst
            .src
            .first()
            .ok_or_else(|| self.fail("SWITCH without a selector"))?;
        let v = self.fetch(src, OperandType::Uint)?;
        let u32_ = self.t.u32;
        let sel = sp!(self, self.b.composite_extract(u32_, None, v, [0]))?;
        sp!(
            self,
            self.b.selection_merge(merge, spirv::SelectionControl::NONE)
        )?;
        let cases: Vec<(rspirv::dr::Operand, Word)> = targets
            .iter()
            .map(|(v, l)| (rspirv::dr::Operand::LiteralBit32(*v), *l))
            .collect();
        sp!(self, self.b.switch(sel, default.unwrap_or(merge), cases))?;
        self.flow.push(Frame::Switch { merge, labels });
        Ok(())
    }

    /// The condition of an IF (the float `.x` is not ±0) or a UIF (the bits
    /// of `.x` are not 0).
    fn condition(&mut self, inst: &Instruction) -> Result<Word, Error> {
        let src = inst
            .src
            .first()
            .ok_or_else(|| self.fail("IF without a condition"))?;
        let ty = inst
            .opcode
            .info()
            .src_types
            .first()
            .copied()
            .unwrap_or(OperandType::Uint);
        let v = self.fetch(src, ty)?;
        let (u4, u32_, bool_) = (self.t.u4, self.t.u32, self.t.bool);
        let v = self
            .b
            .bitcast(u4, None, v)
            .map_err(|e| self.fail(e.to_string()))?;
        let x = self
            .b
            .composite_extract(u32_, None, v, [0])
            .map_err(|e| self.fail(e.to_string()))?;
        let x = if inst.opcode == Opcode::IF {
            let m = self.c_u32(0x7fff_ffff);
            self.b
                .bitwise_and(u32_, None, x, m)
                .map_err(|e| self.fail(e.to_string()))?
        } else {
            x
        };
        let zero = self.c_u32(0);
        self.b
            .i_not_equal(bool_, None, x, zero)
            .map_err(|e| self.fail(e.to_string()))
    }

    /// CAL: a call of its subroutine's function.
    fn call(&mut self, inst: &Instruction) -> Result<(), Error> {
        let target = inst.label.ok_or_else(|| self.fail("CAL without a label"))?;
        let f = *self
            .subroutines
            .get(&target)
            .ok_or_else(|| self.fail(format!("CAL :{target} names no BGNSUB")))?;
        let void = self.t.void;
        self.b
            .function_call(void, None, f, [])
            .map_err(|e| self.fail(e.to_string()))?;
        Ok(())
    }

    /// The subroutines after the main program's END: each BGNSUB..ENDSUB
    /// a function of its own (they share the registers, which are module
    /// variables then); RET returns to the caller.
    pub(crate) fn translate_subroutines(
        &mut self,
        insts: &[&Instruction],
        main_end: usize,
        fn_ty: Word,
    ) -> Result<(), Error> {
        let void = self.t.void;
        let mut k = main_end + 1;
        while k < insts.len() {
            let inst = insts[k];
            if inst.opcode != Opcode::BGNSUB {
                k += 1;
                continue;
            }
            let f = self.subroutines[&(k as u32)];
            sp!(
                self,
                self.b
                    .begin_function(void, Some(f), rspirv::spirv::FunctionControl::NONE, fn_ty)
            )?;
            sp!(self, self.b.begin_block(None))?;
            self.in_subroutine = true;
            k += 1;
            while k < insts.len() && insts[k].opcode != Opcode::ENDSUB {
                self.at = k;
                self.flush_sources = false;
                let i = insts[k];
                if is_flow(i.opcode) {
                    if i.opcode == Opcode::END {
                        return Err(self.fail("END inside a subroutine"));
                    }
                    self.flow_instruction(i)?;
                } else {
                    self.instruction(i)?;
                }
                k += 1;
            }
            if !self.flow.is_empty() {
                return Err(self.fail("a subroutine leaves a block open"));
            }
            if self.b.selected_block().is_some() {
                sp!(self, self.b.ret())?;
            }
            sp!(self, self.b.end_function())?;
            self.in_subroutine = false;
            k += 1;
        }
        Ok(())
    }
}

/// The first CAL (its instruction index) through which a subroutine can
/// call itself, if any: SPIR-V forbids a call graph with cycles, where the
/// machine runs such a program until its call depth limit.
pub(crate) fn recursive_call(insts: &[&Instruction]) -> Option<usize> {
    // the subroutine (its BGNSUB's index) each instruction belongs to
    let mut owner = vec![None; insts.len()];
    let mut current = None;
    for (k, inst) in insts.iter().enumerate() {
        if inst.opcode == Opcode::BGNSUB {
            current = Some(k);
        }
        owner[k] = current;
        if inst.opcode == Opcode::ENDSUB {
            current = None;
        }
    }
    let owner = &owner;
    let calls = |sub: usize| {
        (sub..insts.len())
            .take_while(move |&k| k == sub || owner[k] == Some(sub))
            .filter(|&k| insts[k].opcode == Opcode::CAL)
            .filter_map(|k| insts[k].label.map(|t| (k, t as usize)))
    };
    // one depth-first walk over the call graph: a call to a subroutine on
    // the current path closes a cycle; one whose calls are all walked is
    // done, and never walked again
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut mark = vec![Mark::New; insts.len()];
    for start in (0..insts.len()).filter(|&k| insts[k].opcode == Opcode::BGNSUB) {
        if mark[start] != Mark::New {
            continue;
        }
        mark[start] = Mark::OnPath;
        let mut stack = vec![(start, calls(start).collect::<Vec<_>>())];
        while let Some((sub, next)) = stack.last_mut() {
            let Some((at, target)) = next.pop() else {
                mark[*sub] = Mark::Done;
                stack.pop();
                continue;
            };
            let Some(&target_mark) = mark.get(target) else {
                continue;
            };
            if target_mark == Mark::OnPath {
                return Some(at);
            }
            if target_mark == Mark::New && insts[target].opcode == Opcode::BGNSUB {
                mark[target] = Mark::OnPath;
                stack.push((target, calls(target).collect()));
            }
        }
    }
    None
}
