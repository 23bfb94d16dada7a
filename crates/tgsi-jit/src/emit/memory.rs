//! LOAD and STORE of a buffer: gathers and scatters when every active
//! address is word-aligned, else the interpreter's handler.

use super::*;

impl Emitter<'_> {
    /// The fast path's entry checks: the buffer usable inline and every
    /// active address (zmm4) word-aligned; else `slow`. Leaves the words' address in rax and the
    /// last valid word address, broadcast, in zmm6.
    pub(super) fn memory_entry(&mut self, n: u32, slow: CodeLabel) -> A {
        let slot = off::BUFFERS + 16 * n as i32;
        let a = &mut self.a;
        a.vptestmd(k2.k1(), zmm(4), dword_bcst(rbx + pool_off(pool::MASK3)))?;
        a.kortestw(k2, k2)?;
        a.jnz(slow)?;
        a.cmp(dword_ptr(rbx + slot + 12), 0)?;
        a.je(slow)?;
        a.mov(rax, qword_ptr(rbx + slot))?;
        a.vpbroadcastd(zmm(6), dword_ptr(rbx + slot + 8))
    }

    /// k3 = active lanes whose word at zmm4 + `4 * s` is inside the buffer
    /// (the address in zmm7 when `s > 0`, else zmm4). Returns the address register.
    pub(super) fn memory_lanes(&mut self, s: u8) -> Result<u32, IcedError> {
        let a = &mut self.a;
        let addr = if s == 0 {
            4
        } else {
            let k = [pool::FOUR, pool::EIGHT, pool::TWELVE][s as usize - 1];
            a.vpaddd(zmm(7), zmm(4), dword_bcst(rbx + pool_off(k)))?;
            7
        };
        // inside: addr <= last; no wrap: addr >= base address
        a.vpcmpud(k3.k1(), zmm(addr), zmm(6), 2)?;
        if s > 0 {
            a.vpcmpud(k3.k3(), zmm(addr), zmm(4), 5)?;
        }
        Ok(addr)
    }

    /// Memory instruction `i`: nothing without an active lane; the inline
    /// path `fast` (given the label to jump to when it cannot go on); from
    /// that label, the interpreter's handler.
    fn inline_or_handler(&mut self, i: usize, fast: impl FnOnce(&mut Self, CodeLabel) -> R) -> R {
        let (slow, done) = (self.a.create_label(), self.a.create_label());
        let next = self.labels[i + 1];
        self.a.kortestw(k1, k1)?;
        self.a.jz(next)?;
        fast(self, slow)?;
        self.a.jmp(done)?;
        place(&mut self.a, slow)?;
        self.call_step(i)?;
        place(&mut self.a, done)?;
        Ok(())
    }

    /// zmm4 = channel x of source `k` (a byte address per lane).
    fn address_into_zmm4(&mut self, inst: &Inst, k: usize) -> R {
        let x = self.fetch(4, &inst.src[k], 0, false)?;
        if x != 4 {
            self.a.vmovdqa32(zmm(4), zmm(x))?;
        }
        Ok(())
    }

    pub(super) fn load(&mut self, i: usize, inst: &Inst, n: u32) -> R {
        self.inline_or_handler(i, |e, slow| e.load_inline(inst, n, slow))
    }

    fn load_inline(&mut self, inst: &Inst, n: u32, slow: CodeLabel) -> R {
        self.address_into_zmm4(inst, 1)?;
        self.memory_entry(n, slow)?;
        let m = inst.dst[0].mask;
        let swz = inst.src[0].swz;
        for c in (0..4).filter(|c| m & (1 << c) != 0) {
            let addr = self.memory_lanes(swz[c] & 3)?;
            let r = zmm(c as u32);
            self.a.vpxord(r, r, r)?;
            self.a.vpgatherdd(r.k3(), ptr(rax + zmm(addr)))?;
        }
        for c in (0..4).filter(|c| m & (1 << c) != 0) {
            self.store(inst, c, c as u32)?;
        }
        Ok(())
    }

    pub(super) fn store_buffer(&mut self, i: usize, inst: &Inst, n: u32) -> R {
        self.inline_or_handler(i, |e, slow| e.store_inline(inst, n, slow))
    }

    fn store_inline(&mut self, inst: &Inst, n: u32, slow: CodeLabel) -> R {
        self.address_into_zmm4(inst, 0)?;
        self.memory_entry(n, slow)?;
        let m = inst.dst[0].mask;
        // The lanes' words must not overlap (then the lane order the
        // interpreter writes in cannot matter): the active lanes' word
        // addresses, in lane order, must grow by more than the span of
        // the written channels.
        let (lo, hi) = (m.trailing_zeros() as i32, 7 - m.leading_zeros() as i32);
        let gap = hi - lo + 1;
        {
            let a = &mut self.a;
            a.vpsrld(zmm(5), zmm(4), 2)?;
            a.vpcompressd(zmm(8).k1().z(), zmm(5))?;
            a.valignd(zmm(9), zmm(8), zmm(8), 1)?;
            a.vpaddd(
                zmm(10),
                zmm(8),
                dword_bcst(rbx + pool_off(pool::INT1 + gap - 1)),
            )?;
            a.vpcmpud(k2, zmm(9), zmm(10), 5)?; // next >= this + gap
            a.vpcmpud(k3, zmm(10), zmm(8), 5)?; // this + gap did not wrap
            a.kandw(k2, k2, k3)?;
            // lanes 0..count-1 of the packed addresses must pass
            a.popcnt(ecx, ebp)?;
            a.dec(ecx)?;
            a.mov(edx, 1)?;
            a.shlx(edx, edx, ecx)?;
            a.dec(edx)?;
            a.kmovw(k3, edx)?;
            a.kandnw(k3, k2, k3)?;
            a.kortestw(k3, k3)?;
            a.jnz(slow)?;
        }
        // every value is read before the first write
        let mut vals = [0u32; 4];
        for c in (0..4).filter(|c| m & (1 << c) != 0) {
            vals[c] = self.fetch(12 + c as u32, &inst.src[1], c, false)?;
        }
        for c in (0..4).filter(|c| m & (1 << c) != 0) {
            let addr = self.memory_lanes(c as u8)?;
            self.a
                .vpscatterdd(ptr(rax + zmm(addr)).k3(), zmm(vals[c]))?;
        }
        Ok(())
    }
}

impl Emitter<'_> {
    /// RESQ of `BUFFER[n]` (or the shared memory): (its length in bytes,
    /// 0, 0, 0) when the buffer is usable inline (its last word's address
    /// plus 4), else the handler (an unbound buffer's error, a huge one).
    pub(super) fn buffer_size(&mut self, i: usize, inst: &Inst, n: u32) -> R {
        self.inline_or_handler(i, |e, slow| e.buffer_size_inline(inst, n, slow))
    }

    fn buffer_size_inline(&mut self, inst: &Inst, n: u32, slow: CodeLabel) -> R {
        let slot = off::BUFFERS + 16 * n as i32;
        let a = &mut self.a;
        a.cmp(dword_ptr(rbx + slot + 12), 0)?;
        a.je(slow)?;
        a.mov(eax, dword_ptr(rbx + slot + 8))?;
        a.add(eax, 4)?;
        a.vpbroadcastd(zmm(0), eax)?;
        a.vpxord(zmm(1), zmm(1), zmm(1))?;
        for c in (0..4).filter(|c| inst.dst[0].mask & (1 << c) != 0) {
            self.store(inst, c, u32::from(c != 0))?;
        }
        Ok(())
    }

    /// An atomic on `BUFFER[n]` (or the shared memory): with every active
    /// address word-aligned, a locked read-modify-write per active lane
    /// inside the buffer, in lane order as the interpreter's, the old word
    /// to the destination (0 for lanes outside); else the handler. The
    /// lanes' offsets, values and CAS's new values go through the
    /// context's scratch rows (the old words replace the offsets); the
    /// buffer's address and the lane mask ride on the stack.
    pub(super) fn atomic_buffer(&mut self, i: usize, inst: &Inst, n: u32) -> R {
        self.inline_or_handler(i, |e, slow| e.atomic_inline(inst, n, slow))
    }

    fn atomic_inline(&mut self, inst: &Inst, n: u32, slow: CodeLabel) -> R {
        self.address_into_zmm4(inst, 1)?;
        let row = |k: i32, l: i32| dword_ptr(rbx + off::SCRATCH + 64 * k + 4 * l);
        let value = self.fetch(5, &inst.src[2], 0, false)?;
        self.a
            .vmovdqu32(zmmword_ptr(rbx + off::SCRATCH + 64), zmm(value))?;
        if inst.op == Opcode::ATOMCAS {
            let new = self.fetch(6, &inst.src[3], 0, false)?;
            self.a
                .vmovdqu32(zmmword_ptr(rbx + off::SCRATCH + 128), zmm(new))?;
        }
        self.memory_entry(n, slow)?;
        self.memory_lanes(0)?;
        let op = inst.op;
        let a = &mut self.a;
        a.vmovdqu32(zmmword_ptr(rbx + off::SCRATCH), zmm(4))?;
        a.kmovw(edx, k3)?;
        a.push(rdx)?;
        a.push(rax)?;
        for l in 0..16 {
            let mut skip = a.create_label();
            a.test(dword_ptr(rsp + 8), 1u32 << l)?;
            a.jz(skip)?;
            a.mov(ecx, row(0, l))?;
            a.add(rcx, qword_ptr(rsp))?;
            atomic_lane(a, op, row(1, l), row(2, l))?;
            a.mov(row(0, l), eax)?;
            a.set_label(&mut skip)?;
            a.zero_bytes()?;
        }
        a.pop(rax)?;
        a.pop(rdx)?;
        a.kmovw(k3, edx)?;
        // the old words; 0 for lanes outside the buffer
        a.vmovdqu32(zmm(0).k3().z(), zmmword_ptr(rbx + off::SCRATCH))?;
        for c in (0..4).filter(|c| inst.dst[0].mask & (1 << c) != 0) {
            self.store(inst, c, 0)?;
        }
        Ok(())
    }
}

/// One lane's atomic at the word rcx points to, its operand at `value`
/// (CAS: the compare value, and the new one at `third`): eax = the old
/// word, as `ops::atomic_new_value` says what is stored (edx scratch,
/// xmm7 for ATOMFADD's add).
fn atomic_lane(
    a: &mut CodeAssembler,
    op: Opcode,
    value: AsmMemoryOperand,
    third: AsmMemoryOperand,
) -> R {
    let word = dword_ptr(rcx);
    match op {
        Opcode::ATOMUADD => {
            a.mov(eax, value)?;
            a.lock().xadd(word, eax)?;
            return Ok(());
        }
        Opcode::ATOMXCHG => {
            a.mov(eax, value)?;
            a.xchg(word, eax)?;
            return Ok(());
        }
        Opcode::ATOMCAS => {
            a.mov(eax, value)?;
            a.mov(edx, third)?;
            a.lock().cmpxchg(word, edx)?;
            return Ok(());
        }
        _ => {}
    }
    // the others: the new word from the old one, stored if the word
    // still holds the old one, else again
    let mut retry = a.create_label();
    a.mov(eax, word)?;
    a.set_label(&mut retry)?;
    match op {
        Opcode::ATOMAND | Opcode::ATOMOR | Opcode::ATOMXOR => {
            a.mov(edx, eax)?;
            match op {
                Opcode::ATOMAND => a.and(edx, value)?,
                Opcode::ATOMOR => a.or(edx, value)?,
                _ => a.xor(edx, value)?,
            }
        }
        Opcode::ATOMUMIN | Opcode::ATOMUMAX | Opcode::ATOMIMIN | Opcode::ATOMIMAX => {
            a.mov(edx, value)?;
            a.cmp(eax, edx)?;
            match op {
                Opcode::ATOMUMIN => a.cmovb(edx, eax)?,
                Opcode::ATOMUMAX => a.cmova(edx, eax)?,
                Opcode::ATOMIMIN => a.cmovl(edx, eax)?,
                _ => a.cmovg(edx, eax)?,
            }
        }
        // the add of the interpreter's ADD (the host's NaN rule, as the
        // ADD template)
        Opcode::ATOMFADD => {
            a.vmovd(xmm7, eax)?;
            a.vaddss(xmm7, xmm7, value)?;
            a.vmovd(edx, xmm7)?;
        }
        Opcode::ATOMINC_WRAP => {
            // old + 1 (wrapping) where that is <= the operand, else 0
            let mut keep = a.create_label();
            a.lea(edx, dword_ptr(rax + 1))?;
            a.cmp(edx, value)?;
            a.jbe(keep)?;
            a.xor(edx, edx)?;
            a.set_label(&mut keep)?;
            a.zero_bytes()?;
        }
        Opcode::ATOMDEC_WRAP => {
            // old - 1 where 0 < old < the operand, else 0
            let mut keep = a.create_label();
            a.xor(edx, edx)?;
            a.test(eax, eax)?;
            a.jz(keep)?;
            a.cmp(eax, value)?;
            a.jae(keep)?;
            a.lea(edx, dword_ptr(rax - 1))?;
            a.set_label(&mut keep)?;
            a.zero_bytes()?;
        }
        _ => return Err(format!("{op} has no atomic template").as_str().into()),
    }
    a.lock().cmpxchg(word, edx)?;
    a.jne(retry)?;
    Ok(())
}
