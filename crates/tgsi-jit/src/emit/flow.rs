//! Flow control as mask arithmetic and branches, mirroring the
//! interpreter's structured model.

use super::*;

impl Emitter<'_> {
    /// Loads channel x of source 0 of instruction `at` into zmm `z`: inline
    /// when it can, else through the interpreter's operand fetch (a call:
    /// every vector and mask register is clobbered before `z` is loaded).
    pub(super) fn fetch_x(&mut self, z: u32, at: usize) -> R {
        let s = self.code.insts[at].src[0];
        if src_inline(&s, false) {
            let got = self.fetch(z, &s, 0, false)?;
            if got != z {
                self.a.vmovdqa32(zmm(z), zmm(got))?;
            }
            return Ok(());
        }
        self.call(fetch_callback as *const () as usize as u64, at as u64)?;
        self.a.vmovdqu32(zmm(z), zmmword_ptr(rbx + off::SCRATCH))?;
        Ok(())
    }

    pub(super) fn flow(&mut self, i: usize, inst: &Inst, depth: usize, frames: &[Frame]) -> R {
        let t = inst.target as usize;
        let fr = |d: usize, w: usize| dword_ptr(rbx + frame_off(d, w));
        match inst.op {
            Opcode::IF | Opcode::UIF => {
                self.fetch_x(4, i)?;
                let a = &mut self.a;
                if inst.op == Opcode::IF {
                    a.vptestmd(k2, zmm(4), dword_bcst(rbx + pool_off(pool::ABS)))?;
                } else {
                    a.vptestmd(k2, zmm(4), zmm(4))?;
                }
                a.kmovw(ecx, k2)?;
                a.mov(fr(depth, 0), r9d)?;
                a.and(r9d, ecx)?;
                // only cond narrowed: exec & test is the new exec
                a.and(ebp, ecx)?;
                self.exec_to_k()?;
                self.skip_if_idle(t)?;
            }
            Opcode::ELSE => {
                self.a.not(r9d)?;
                self.a.and(r9d, fr(depth - 1, 0))?;
                self.update_exec()?;
                self.skip_if_idle(t)?;
            }
            Opcode::ENDIF => {
                self.a.mov(r9d, fr(depth - 1, 0))?;
                self.update_exec()?;
            }
            Opcode::BGNLOOP => {
                self.a.mov(fr(depth, 0), r10d)?;
                self.a.mov(fr(depth, 1), r11d)?;
                if let Some(r) = self.regions[i].clone() {
                    self.active = Some(r);
                    self.cache_load(true)?;
                }
                self.skip_if_idle(t)?;
            }
            Opcode::ENDLOOP => {
                self.a.mov(r11d, fr(depth - 1, 1))?;
                self.update_exec()?;
                self.a.test(ebp, ebp)?;
                self.a.jnz(self.labels[t + 1])?;
                self.a.mov(r10d, fr(depth - 1, 0))?;
                self.update_exec()?;
                if self
                    .active
                    .as_ref()
                    .is_some_and(|r| !r.straight && r.end == i)
                {
                    self.cache_store(true)?;
                    self.active = None;
                }
            }
            Opcode::BRK if inst.brk_switch => {
                self.clear_active(esi)?;
            }
            Opcode::BRK | Opcode::CONT => {
                let m = if inst.op == Opcode::BRK { r10d } else { r11d };
                self.clear_active(m)?;
                self.leave_if_dead(t, depth, frames)?;
            }
            Opcode::SWITCH => {
                self.fetch_x(4, i)?;
                let sel = off::SELECTORS + 64 * depth as i32;
                self.a.vmovdqu32(zmmword_ptr(rbx + sel), zmm(4))?;
                // frame: [0] outer switch mask, [1] entry (exec), [2] lanes no CASE matches
                self.a.mov(fr(depth, 2), 0)?;
                let cases = self.code.switch_cases[inst.aux as usize].clone();
                for ci in cases {
                    self.fetch_x(5, ci as usize)?;
                    self.a.vpcmpeqd(k2, zmm(5), zmmword_ptr(rbx + sel))?;
                    self.a.kmovw(ecx, k2)?;
                    self.a.or(fr(depth, 2), ecx)?;
                }
                let a = &mut self.a;
                a.mov(ecx, fr(depth, 2))?;
                a.not(ecx)?;
                a.and(ecx, 0xFFFF)?;
                a.mov(fr(depth, 2), ecx)?;
                a.mov(fr(depth, 0), esi)?;
                a.mov(fr(depth, 1), ebp)?;
                a.xor(esi, esi)?;
                self.update_exec()?;
            }
            Opcode::CASE | Opcode::DEFAULT => {
                if inst.op == Opcode::CASE {
                    self.fetch_x(5, i)?;
                    self.a.vpcmpeqd(
                        k2,
                        zmm(5),
                        zmmword_ptr(rbx + off::SELECTORS + 64 * (depth - 1) as i32),
                    )?;
                    self.a.kmovw(ecx, k2)?;
                } else {
                    self.a.mov(ecx, fr(depth - 1, 2))?;
                }
                self.a.and(ecx, fr(depth - 1, 1))?;
                self.a.or(esi, ecx)?;
                self.update_exec()?;
            }
            Opcode::ENDSWITCH => {
                self.a.mov(esi, fr(depth - 1, 0))?;
                self.update_exec()?;
            }
            Opcode::RET => {
                self.clear_active(edi)?;
                self.a.mov(eax, edi)?;
                self.a.and(eax, r8d)?;
                self.a.jz(self.end)?;
            }
            Opcode::END | Opcode::ENDSUB => self.a.jmp(self.end)?,
            Opcode::BGNSUB | Opcode::NOP | Opcode::MEMBAR => {}
            Opcode::BARRIER => {
                // the batch stops here; `run` keeps its masks and frames and
                // the prologue jumps back to the next instruction
                self.a.mov(dword_ptr(rbx + off::RESUME), (i + 1) as u32)?;
                self.a.jmp(self.suspend)?;
            }
            _ => return Err("flow-control opcode without a template".into()),
        }
        Ok(())
    }

    /// `mask &= !exec`, which leaves no lane active (every active lane is
    /// in `mask`, so the new exec is `exec & !exec`).
    pub(super) fn clear_active(&mut self, m: AsmRegister32) -> A {
        self.a.mov(ecx, ebp)?;
        self.a.not(ecx)?;
        self.a.and(m, ecx)?;
        self.a.xor(ebp, ebp)?;
        self.exec_to_k()
    }

    /// BRK/CONT with no active lane: when no lane can still run the rest of
    /// the loop body (masks of the blocks inside the loop taken as they were
    /// at the loop's level), pops those blocks and jumps to the ENDLOOP `t`.
    pub(super) fn leave_if_dead(&mut self, t: usize, depth: usize, frames: &[Frame]) -> A {
        // frames between the instruction and its loop, innermost first
        let mut outer_if = None;
        let mut outer_switch = None;
        for d in (0..depth).rev() {
            match frames[d] {
                Frame::Loop | Frame::Call => break,
                Frame::If => outer_if = Some(d),
                Frame::Switch => outer_switch = Some(d),
            }
        }
        let a = &mut self.a;
        // ecx = cond at the loop level, edx = switch at the loop level
        match outer_if {
            Some(d) => a.mov(ecx, dword_ptr(rbx + frame_off(d, 0)))?,
            None => a.mov(ecx, r9d)?,
        }
        match outer_switch {
            Some(d) => a.mov(edx, dword_ptr(rbx + frame_off(d, 0)))?,
            None => a.mov(edx, esi)?,
        }
        a.mov(eax, ecx)?;
        a.and(eax, edx)?;
        for m in [r8d, r10d, r11d, edi] {
            a.and(eax, m)?;
        }
        let next = a.create_label();
        a.jnz(next)?;
        a.mov(r9d, ecx)?;
        a.mov(esi, edx)?;
        a.jmp(self.labels[t])?;
        place(&mut self.a, next)
    }
}
