//! LOAD, STORE and the atomics on `BUFFER[n]` and `MEMORY`, with the
//! machine's rules: byte addresses, a word out of range reads 0 and is not
//! written (an atomic out of range returns 0), unaligned loads and stores
//! join the two words they straddle. BARRIER and MEMBAR.

use super::Error;
use super::module::Translator;
use rspirv::spirv::{self, MemorySemantics, Scope, StorageClass, Word};
use tgsi_ir::enums::File;
use tgsi_ir::ir::Instruction;
use tgsi_ir::opcode::{Category, Opcode, OperandType};

/// Where a memory access goes.
#[derive(Clone, Copy)]
enum Target {
    /// A storage buffer's word array.
    Buffer(Word),
    Shared(Word),
}

impl Translator<'_> {
    /// The memory instructions; `None` for every other opcode.
    pub(crate) fn memory_instruction(&mut self, inst: &Instruction) -> Result<Option<()>, Error> {
        let op = inst.opcode;
        match op {
            Opcode::BARRIER if self.shader.processor == tgsi_ir::enums::Processor::TessCtrl => {
                // the patch's invocations; their outputs are visible after it
                let (wg, inv, none) = (
                    self.c_u32(Scope::Workgroup as u32),
                    self.c_u32(Scope::Invocation as u32),
                    self.c_u32(0),
                );
                sp!(self, self.b.control_barrier(wg, inv, none))?;
                return Ok(Some(()));
            }
            Opcode::BARRIER => {
                let (wg, sem) = (
                    self.c_u32(Scope::Workgroup as u32),
                    self.c_u32(
                        (MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY)
                            .bits(),
                    ),
                );
                self.b
                    .control_barrier(wg, wg, sem)
                    .map_err(|e| self.fail(e.to_string()))?;
                return Ok(Some(()));
            }
            Opcode::MEMBAR => {
                let (dev, sem) = (
                    self.c_u32(Scope::Device as u32),
                    self.c_u32(
                        (MemorySemantics::ACQUIRE_RELEASE
                            | MemorySemantics::UNIFORM_MEMORY
                            | MemorySemantics::WORKGROUP_MEMORY)
                            .bits(),
                    ),
                );
                self.b
                    .memory_barrier(dev, sem)
                    .map_err(|e| self.fail(e.to_string()))?;
                return Ok(Some(()));
            }
            Opcode::LOAD | Opcode::STORE | Opcode::RESQ => {}
            _ if op.info().category == Category::Atomic => {}
            _ => return Ok(None),
        }
        if let Some(done) = self.image_instruction(inst)? {
            return Ok(Some(done));
        }
        let resource = if op == Opcode::STORE {
            inst.dst.first().map(|d| d.reg)
        } else {
            inst.src.first().map(|s| s.reg)
        }
        .ok_or_else(|| self.fail(format!("{op} without a resource")))?;
        let target = match resource.file {
            File::Buffer => {
                let n = resource.index.offset as u32;
                let wb = *self
                    .buffers
                    .get(&n)
                    .ok_or_else(|| self.fail(format!("BUFFER[{n}] is not declared")))?;
                Target::Buffer(wb.var)
            }
            File::Memory => Target::Shared(
                self.shared
                    .ok_or_else(|| self.fail("MEMORY is not declared"))?,
            ),
            other => {
                return Err(self.fail(format!("{op} on {other} is not translated to SPIR-V yet")));
            }
        };
        match op {
            Opcode::RESQ => {
                // .x: the size in bytes
                let len = self.byte_len(target)?;
                let u4 = self.t.u4;
                let v = self.splat(u4, len);
                self.store_result(inst, v)?;
            }
            Opcode::LOAD => self.load(inst, target)?,
            Opcode::STORE => self.store_memory(inst, target)?,
            _ => self.atomic(inst, target)?,
        }
        Ok(Some(()))
    }

    /// The byte length of a target.
    fn byte_len(&mut self, target: Target) -> Result<Word, Error> {
        let u32_ = self.t.u32;
        match target {
            Target::Buffer(var) => {
                let words = self
                    .b
                    .array_length(u32_, None, var, 0)
                    .map_err(|e| self.fail(e.to_string()))?;
                let four = self.c_u32(4);
                self.b
                    .i_mul(u32_, None, words, four)
                    .map_err(|e| self.fail(e.to_string()))
            }
            Target::Shared(_) => Ok(self.c_u32(super::module::SHARED_BYTES)),
        }
    }

    /// A pointer to word `i` of a target.
    fn word_ptr(&mut self, target: Target, i: Word) -> Result<Word, Error> {
        let u32_ = self.t.u32;
        match target {
            Target::Buffer(var) => {
                let p = self.ptr(StorageClass::StorageBuffer, u32_);
                let zero = self.c_u32(0);
                self.b
                    .access_chain(p, None, var, [zero, i])
                    .map_err(|e| self.fail(e.to_string()))
            }
            Target::Shared(var) => {
                let p = self.ptr(StorageClass::Workgroup, u32_);
                self.b
                    .access_chain(p, None, var, [i])
                    .map_err(|e| self.fail(e.to_string()))
            }
        }
    }

    /// True when the 4 bytes at byte address `a` + `off` (a channel's
    /// offset, added without wrapping: an address past 2^32 is out of
    /// range, as on the machine) are inside the target.
    fn in_range(&mut self, target: Target, a: Word, off: u32) -> Result<Word, Error> {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let len = self.byte_len(target)?;
        let four = self.c_u32(off + 4);
        let limit = self.c_u32(u32::MAX - 3 - off);
        let no_wrap = self
            .b
            .u_less_than(bool_, None, a, limit)
            .map_err(|e| self.fail(e.to_string()))?;
        let end = self
            .b
            .i_add(u32_, None, a, four)
            .map_err(|e| self.fail(e.to_string()))?;
        let fits = self
            .b
            .u_less_than_equal(bool_, None, end, len)
            .map_err(|e| self.fail(e.to_string()))?;
        self.b
            .logical_and(bool_, None, no_wrap, fits)
            .map_err(|e| self.fail(e.to_string()))
    }

    /// `a` + `off` (wrapping; used where [`Self::in_range`] said it does not).
    fn offset(&mut self, a: Word, off: u32) -> Result<Word, Error> {
        if off == 0 {
            return Ok(a);
        }
        let (u32_, off) = (self.t.u32, self.c_u32(off));
        self.b
            .i_add(u32_, None, a, off)
            .map_err(|e| self.fail(e.to_string()))
    }

    /// Runs `body` when `cond` holds; its value, or `otherwise` when not
    /// (a selection construct with a phi).
    pub(crate) fn when(
        &mut self,
        cond: Word,
        otherwise: Option<Word>,
        body: impl FnOnce(&mut Self) -> Result<Option<Word>, Error>,
    ) -> Result<Option<Word>, Error> {
        let u32_ = self.t.u32;
        self.when_of(cond, u32_, otherwise, body)
    }

    /// [`Self::when`] of a value of type `ty`: `body`'s value where `cond`
    /// holds, `otherwise` elsewhere.
    pub(crate) fn when_typed(
        &mut self,
        cond: Word,
        ty: Word,
        otherwise: Word,
        body: impl FnOnce(&mut Self) -> Result<Word, Error>,
    ) -> Result<Word, Error> {
        let v = self.when_of(cond, ty, Some(otherwise), |t| body(t).map(Some))?;
        Ok(v.unwrap_or(otherwise))
    }

    /// [`Self::when`] with the phi of type `ty`.
    fn when_of(
        &mut self,
        cond: Word,
        ty: Word,
        otherwise: Option<Word>,
        body: impl FnOnce(&mut Self) -> Result<Option<Word>, Error>,
    ) -> Result<Option<Word>, Error> {
        let (head, then, merge) = (self.b.id(), self.b.id(), self.b.id());
        let f = |t: &Self, e: rspirv::dr::Error| t.fail(e.to_string());
        self.b.branch(head).map_err(|e| f(self, e))?;
        self.b.begin_block(Some(head)).map_err(|e| f(self, e))?;
        self.b
            .selection_merge(merge, spirv::SelectionControl::NONE)
            .map_err(|e| f(self, e))?;
        self.b
            .branch_conditional(cond, then, merge, [])
            .map_err(|e| f(self, e))?;
        self.b.begin_block(Some(then)).map_err(|e| f(self, e))?;
        let v = body(self)?;
        // the body may have opened blocks of its own: the phi's edge is the last
        let last = self
            .b
            .selected_block()
            .and_then(|_| self.current_label())
            .unwrap_or(then);
        self.b.branch(merge).map_err(|e| f(self, e))?;
        self.b.begin_block(Some(merge)).map_err(|e| f(self, e))?;
        match (v, otherwise) {
            (Some(v), Some(o)) => Ok(Some(
                self.b
                    .phi(ty, None, [(v, last), (o, head)])
                    .map_err(|e| f(self, e))?,
            )),
            _ => Ok(None),
        }
    }

    /// The label of the block being written.
    fn current_label(&self) -> Option<Word> {
        let f = self.b.selected_function()?;
        let b = self.b.selected_block()?;
        self.b
            .module_ref()
            .functions
            .get(f)?
            .blocks
            .get(b)?
            .label_id()
    }

    /// The word at byte address `a` + `off` (joining two words when
    /// unaligned), 0 out of range.
    fn read_word(&mut self, target: Target, a: Word, off: u32) -> Result<Word, Error> {
        let ok = self.in_range(target, a, off)?;
        let a = self.offset(a, off)?;
        let zero = self.c_u32(0);
        let v = self.when(ok, Some(zero), |t| {
            let u32_ = t.t.u32;
            let (two, three, eight, one, thirty_two) =
                (t.c_u32(2), t.c_u32(3), t.c_u32(8), t.c_u32(1), t.c_u32(32));
            let i = sp!(t, t.b.shift_right_logical(u32_, None, a, two))?;
            let lo = sp!(t, t.b.bitwise_and(u32_, None, a, three))?;
            let sh = sp!(t, t.b.i_mul(u32_, None, lo, eight))?;
            let p0 = t.word_ptr(target, i)?;
            let w0 = sp!(t, t.b.load(u32_, None, p0, None, []))?;
            let aligned = sp!(t, t.b.i_equal(t.t.bool, None, sh, zero))?;
            // an unaligned word also reads the next one (inside the range then)
            let j = sp!(t, t.b.i_add(u32_, None, i, one))?;
            let j =
                t.b.select(u32_, None, aligned, i, j)
                    .map_err(|e| t.fail(e.to_string()))?;
            let p1 = t.word_ptr(target, j)?;
            let w1 = sp!(t, t.b.load(u32_, None, p1, None, []))?;
            let low = sp!(t, t.b.shift_right_logical(u32_, None, w0, sh))?;
            let back = sp!(t, t.b.i_sub(u32_, None, thirty_two, sh))?;
            let back =
                t.b.select(u32_, None, aligned, zero, back)
                    .map_err(|e| t.fail(e.to_string()))?;
            let high = sp!(t, t.b.shift_left_logical(u32_, None, w1, back))?;
            let high =
                t.b.select(u32_, None, aligned, zero, high)
                    .map_err(|e| t.fail(e.to_string()))?;
            Ok(Some(sp!(t, t.b.bitwise_or(u32_, None, low, high))?))
        })?;
        Ok(v.unwrap_or(zero))
    }

    /// Writes word `v` at byte address `a` + `off` (into the two words it
    /// straddles when unaligned); nothing out of range.
    fn write_word(&mut self, target: Target, a: Word, off: u32, v: Word) -> Result<(), Error> {
        let ok = self.in_range(target, a, off)?;
        let a = self.offset(a, off)?;
        self.when(ok, None, |t| {
            let (u32_, bool_) = (t.t.u32, t.t.bool);
            let (two, three, eight, one, thirty_two, zero, ones) = (
                t.c_u32(2),
                t.c_u32(3),
                t.c_u32(8),
                t.c_u32(1),
                t.c_u32(32),
                t.c_u32(0),
                t.c_u32(u32::MAX),
            );
            let i = sp!(t, t.b.shift_right_logical(u32_, None, a, two))?;
            let lo = sp!(t, t.b.bitwise_and(u32_, None, a, three))?;
            let sh = sp!(t, t.b.i_mul(u32_, None, lo, eight))?;
            let aligned = sp!(t, t.b.i_equal(bool_, None, sh, zero))?;
            let p0 = t.word_ptr(target, i)?;
            let w0 = sp!(t, t.b.load(u32_, None, p0, None, []))?;
            // word 0 keeps its bytes below the address
            let keep0 = sp!(t, t.b.shift_left_logical(u32_, None, ones, sh))?;
            let keep0 = sp!(t, t.b.not(u32_, None, keep0))?;
            let old0 = sp!(t, t.b.bitwise_and(u32_, None, w0, keep0))?;
            let new0 = sp!(t, t.b.shift_left_logical(u32_, None, v, sh))?;
            let n0 = sp!(t, t.b.bitwise_or(u32_, None, old0, new0))?;
            sp!(t, t.b.store(p0, n0, None, []).map(|_| 0))?;
            let unaligned = sp!(t, t.b.logical_not(bool_, None, aligned))?;
            t.when(unaligned, None, |t| {
                let j = sp!(t, t.b.i_add(u32_, None, i, one))?;
                let p1 = t.word_ptr(target, j)?;
                let w1 = sp!(t, t.b.load(u32_, None, p1, None, []))?;
                let keep1 = sp!(t, t.b.shift_left_logical(u32_, None, ones, sh))?;
                let old1 = sp!(t, t.b.bitwise_and(u32_, None, w1, keep1))?;
                let back = sp!(t, t.b.i_sub(u32_, None, thirty_two, sh))?;
                let new1 = sp!(t, t.b.shift_right_logical(u32_, None, v, back))?;
                let n1 = sp!(t, t.b.bitwise_or(u32_, None, old1, new1))?;
                sp!(t, t.b.store(p1, n1, None, []).map(|_| 0))?;
                Ok(None)
            })?;
            Ok(None)
        })?;
        Ok(())
    }

    /// LOAD: channel c reads the word at address + 4 × (the resource's swizzle of c).
    fn load(&mut self, inst: &Instruction, target: Target) -> Result<(), Error> {
        let a = self.operand_x(inst, 1)?;
        let swz = inst.src[0].swizzle.0;
        let mut words = Vec::new();
        for c in swz {
            words.push(self.read_word(target, a, 4 * c as u32)?);
        }
        let u4 = self.t.u4;
        let v = self
            .b
            .composite_construct(u4, None, words)
            .map_err(|e| self.fail(e.to_string()))?;
        self.store_result(inst, v)
    }

    /// STORE: channel c of the value goes to address + 4c.
    fn store_memory(&mut self, inst: &Instruction, target: Target) -> Result<(), Error> {
        let a = self.operand_x(inst, 0)?;
        let value = inst
            .src
            .get(1)
            .ok_or_else(|| self.fail("STORE without a value"))?;
        let v = self.fetch(value, OperandType::Uint)?;
        let u32_ = self.t.u32;
        let mask = inst.dst[0].write_mask.bits();
        for c in 0..4u32 {
            if mask >> c & 1 == 0 {
                continue;
            }
            let w = self
                .b
                .composite_extract(u32_, None, v, [c])
                .map_err(|e| self.fail(e.to_string()))?;
            self.write_word(target, a, 4 * c, w)?;
        }
        Ok(())
    }

    /// An atomic on the (aligned) word at the address: the old value to
    /// `.x` of the destination, 0 out of range.
    fn atomic(&mut self, inst: &Instruction, target: Target) -> Result<(), Error> {
        let op = inst.opcode;
        let a = self.operand_x(inst, 1)?;
        let u32_ = self.t.u32;
        let value = self.operand_x(inst, 2)?;
        let third = if op == Opcode::ATOMCAS {
            Some(self.operand_x(inst, 3)?)
        } else {
            None
        };
        let ok = self.in_range(target, a, 0)?;
        let zero = self.c_u32(0);
        let scope = self.c_u32(match target {
            Target::Buffer(_) => Scope::Device as u32,
            Target::Shared(_) => Scope::Workgroup as u32,
        });
        let old = self.when(ok, Some(zero), |t| {
            let two = t.c_u32(2);
            let i =
                t.b.shift_right_logical(u32_, None, a, two)
                    .map_err(|e| t.fail(e.to_string()))?;
            let p = t.word_ptr(target, i)?;
            let r = t.atomic_op(op, u32_, p, scope, value, third)?;
            Ok(Some(r))
        })?;
        let old = old.unwrap_or(zero);
        let u4 = self.t.u4;
        let v = self.splat(u4, old);
        match inst.dst.first() {
            Some(d) => self.store(d, v, 0xF),
            None => Ok(()),
        }
    }

    /// `.x` of source operand `k`, as an unsigned word.
    pub(crate) fn operand_x(&mut self, inst: &Instruction, k: usize) -> Result<Word, Error> {
        let src = inst
            .src
            .get(k)
            .ok_or_else(|| self.fail(format!("{}: missing operand {k}", inst.opcode)))?;
        let v = self.fetch(src, OperandType::Uint)?;
        let u32_ = self.t.u32;
        sp!(self, self.b.composite_extract(u32_, None, v, [0]))
    }

    /// The atomic `op` of type `ty` on pointer `p` (relaxed, at `scope`):
    /// the old value. `third` is ATOMCAS's new value (`value` its compare).
    pub(crate) fn atomic_op(
        &mut self,
        op: Opcode,
        ty: Word,
        p: Word,
        scope: Word,
        value: Word,
        third: Option<Word>,
    ) -> Result<Word, Error> {
        if matches!(
            op,
            Opcode::ATOMINC_WRAP | Opcode::ATOMDEC_WRAP | Opcode::ATOMFADD
        ) {
            return self.atomic_loop(op, ty, p, scope, value);
        }
        let relaxed = self.c_u32(0);
        let b = &mut self.b;
        let r = match op {
            Opcode::ATOMUADD => b.atomic_i_add(ty, None, p, scope, relaxed, value),
            Opcode::ATOMXCHG => b.atomic_exchange(ty, None, p, scope, relaxed, value),
            Opcode::ATOMCAS => b.atomic_compare_exchange(
                ty,
                None,
                p,
                scope,
                relaxed,
                relaxed,
                third.unwrap_or(value),
                value,
            ),
            Opcode::ATOMAND => b.atomic_and(ty, None, p, scope, relaxed, value),
            Opcode::ATOMOR => b.atomic_or(ty, None, p, scope, relaxed, value),
            Opcode::ATOMXOR => b.atomic_xor(ty, None, p, scope, relaxed, value),
            Opcode::ATOMUMIN => b.atomic_u_min(ty, None, p, scope, relaxed, value),
            Opcode::ATOMUMAX => b.atomic_u_max(ty, None, p, scope, relaxed, value),
            Opcode::ATOMIMIN => b.atomic_s_min(ty, None, p, scope, relaxed, value),
            Opcode::ATOMIMAX => b.atomic_s_max(ty, None, p, scope, relaxed, value),
            other => return Err(self.fail(format!("{other} is not translated to SPIR-V yet"))),
        };
        r.map_err(|e| self.fail(e.to_string()))
    }

    /// ATOMINC_WRAP, ATOMDEC_WRAP and ATOMFADD, which SPIR-V's atomics do
    /// not have: a compare-exchange loop storing the machine's new value
    /// (`ops::atomic_new_value`) until no other invocation came between;
    /// the old value is the result.
    fn atomic_loop(
        &mut self,
        op: Opcode,
        ty: Word,
        p: Word,
        scope: Word,
        value: Word,
    ) -> Result<Word, Error> {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let relaxed = self.c_u32(0);
        let (pre, header, body, cont, merge) = (
            self.b.id(),
            self.b.id(),
            self.b.id(),
            self.b.id(),
            self.b.id(),
        );
        sp!(self, self.b.branch(pre))?;
        sp!(self, self.b.begin_block(Some(pre)))?;
        let init = sp!(self, self.b.atomic_load(ty, None, p, scope, relaxed))?;
        sp!(self, self.b.branch(header))?;
        sp!(self, self.b.begin_block(Some(header)))?;
        let prev = self.b.id();
        let cur = sp!(self, self.b.phi(ty, None, [(init, pre), (prev, cont)]))?;
        sp!(
            self,
            self.b.loop_merge(merge, cont, spirv::LoopControl::NONE, [])
        )?;
        sp!(self, self.b.branch(body))?;
        sp!(self, self.b.begin_block(Some(body)))?;
        let c = self.recast(cur, ty, u32_)?;
        let v = self.recast(value, ty, u32_)?;
        let new = match op {
            Opcode::ATOMINC_WRAP => {
                // old + 1 while it stays <= value, else 0
                let one = self.c_u32(1);
                let n = sp!(self, self.b.i_add(u32_, None, c, one))?;
                let fits = sp!(self, self.b.u_less_than_equal(bool_, None, n, v))?;
                let zero = self.c_u32(0);
                sp!(self, self.b.select(u32_, None, fits, n, zero))?
            }
            Opcode::ATOMDEC_WRAP => {
                // old - 1 when 0 < old < value, else 0
                let (one, zero) = (self.c_u32(1), self.c_u32(0));
                let n = sp!(self, self.b.i_sub(u32_, None, c, one))?;
                let above = sp!(self, self.b.u_greater_than(bool_, None, c, zero))?;
                let below = sp!(self, self.b.u_less_than(bool_, None, c, v))?;
                let inside = sp!(self, self.b.logical_and(bool_, None, above, below))?;
                sp!(self, self.b.select(u32_, None, inside, n, zero))?
            }
            _ => {
                let f32_ = self.t.f32;
                let a = sp!(self, self.b.bitcast(f32_, None, c))?;
                let b = sp!(self, self.b.bitcast(f32_, None, v))?;
                let sum = self.fadd(f32_, a, b)?;
                sp!(self, self.b.bitcast(u32_, None, sum))?
            }
        };
        let new = self.recast(new, u32_, ty)?;
        sp!(
            self,
            self.b
                .atomic_compare_exchange(ty, Some(prev), p, scope, relaxed, relaxed, new, cur)
        )?;
        let done = sp!(self, self.b.i_equal(bool_, None, prev, cur))?;
        sp!(self, self.b.branch_conditional(done, merge, cont, []))?;
        sp!(self, self.b.begin_block(Some(cont)))?;
        sp!(self, self.b.branch(header))?;
        sp!(self, self.b.begin_block(Some(merge)))?;
        Ok(cur)
    }
}
