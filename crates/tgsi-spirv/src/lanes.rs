//! The inter-lane opcodes as subgroup operations (`GroupNonUniform*`,
//! scope Subgroup): VOTE_ANY/ALL/EQ each channel voted on its own, BALLOT
//! (the mask in `.x` and `.z`, its high word in `.y` and `.w`), READ_FIRST
//! and READ_INVOC (the invocation the first active lane names). The
//! machine's subgroup is its 16-lane batch; a device whose subgroups have
//! another size gives other results, which the Vulkan engine refuses.

use super::Error;
use super::module::Translator;
use rspirv::spirv::{Capability, Scope, Word};
use tgsi_ir::ir::Instruction;
use tgsi_ir::opcode::{Opcode, OperandType};

impl Translator<'_> {
    /// Translates `inst` when it is an inter-lane opcode.
    pub(crate) fn lane_instruction(&mut self, inst: &Instruction) -> Result<Option<()>, Error> {
        use Opcode as O;
        let op = inst.opcode;
        if !matches!(
            op,
            O::VOTE_ANY | O::VOTE_ALL | O::VOTE_EQ | O::BALLOT | O::READ_FIRST | O::READ_INVOC
        ) {
            return Ok(None);
        }
        self.b.capability(Capability::GroupNonUniform);
        let scope = self.c_u32(Scope::Subgroup as u32);
        let (u32_, u4, bool_) = (self.t.u32, self.t.u4, self.t.bool);
        let src = |t: &mut Self, k: usize| -> Result<Word, Error> {
            let s = inst
                .src
                .get(k)
                .ok_or_else(|| t.fail(format!("{op}: missing operand {k}")))?;
            t.fetch(s, OperandType::Uint)
        };
        let a = src(self, 0)?;
        let zero = self.c_u32(0);
        let v = match op {
            O::VOTE_ANY | O::VOTE_ALL | O::VOTE_EQ => {
                self.b.capability(Capability::GroupNonUniformVote);
                let (ones, nil) = (self.c_u32(u32::MAX), zero);
                let mut votes = [0; 4];
                for (c, vote) in votes.iter_mut().enumerate() {
                    let x = sp!(self, self.b.composite_extract(u32_, None, a, [c as u32]))?;
                    let b = match op {
                        O::VOTE_EQ => sp!(
                            self,
                            self.b.group_non_uniform_all_equal(bool_, None, scope, x)
                        )?,
                        _ => {
                            let set = sp!(self, self.b.i_not_equal(bool_, None, x, zero))?;
                            if op == O::VOTE_ANY {
                                sp!(self, self.b.group_non_uniform_any(bool_, None, scope, set))?
                            } else {
                                sp!(self, self.b.group_non_uniform_all(bool_, None, scope, set))?
                            }
                        }
                    };
                    *vote = sp!(self, self.b.select(u32_, None, b, ones, nil))?;
                }
                sp!(self, self.b.composite_construct(u4, None, votes))?
            }
            O::BALLOT => {
                self.b.capability(Capability::GroupNonUniformBallot);
                let x = sp!(self, self.b.composite_extract(u32_, None, a, [0]))?;
                let set = sp!(self, self.b.i_not_equal(bool_, None, x, zero))?;
                let mask = sp!(self, self.b.group_non_uniform_ballot(u4, None, scope, set))?;
                // the 64-bit mask in .xy, again in .zw
                sp!(
                    self,
                    self.b.vector_shuffle(u4, None, mask, mask, [0, 1, 0, 1])
                )?
            }
            O::READ_FIRST => {
                self.b.capability(Capability::GroupNonUniformBallot);
                sp!(
                    self,
                    self.b.group_non_uniform_broadcast_first(u4, None, scope, a)
                )?
            }
            _ => {
                // the invocation the first active lane names (dynamically
                // uniform, as Broadcast needs)
                self.b.capability(Capability::GroupNonUniformBallot);
                let which = src(self, 1)?;
                let x = sp!(self, self.b.composite_extract(u32_, None, which, [0]))?;
                let id = sp!(
                    self,
                    self.b
                        .group_non_uniform_broadcast_first(u32_, None, scope, x)
                )?;
                sp!(
                    self,
                    self.b.group_non_uniform_broadcast(u4, None, scope, a, id)
                )?
            }
        };
        self.store_result(inst, v)?;
        Ok(Some(()))
    }
}
