//! The batch machine: one batch of [`LANES`] invocations with its registers
//! (structure of arrays: every register is four channel rows of 16 lanes),
//! its execution masks and its control-flow stack, running pre-decoded
//! [`Inst`]s. Control flow, operand fetch/store, memory, atomics and
//! inter-lane operations live here; the arithmetic dispatch is in `alu.rs`
//! and every formula in `ops`.
//!
//! Masks (one bit per lane) follow the structured model of Gallium's
//! interpreter: `exec = alive & cond & loop & cont & switch & func`, where IF
//! narrows `cond`, BRK clears lanes from `loop` (or from `switch` when the
//! innermost breakable block is a SWITCH — per lane, unlike Mesa, which
//! clears every lane), CONT clears `cont` until ENDLOOP, RET clears `func`.
//! Instructions other than control flow are skipped while no lane is active;
//! IF/ELSE jump over untaken blocks, and a BRK/CONT that leaves no lane
//! active jumps to its ENDLOOP.

use super::decode::{
    Code, Dst, DstKind, Grid, IndexExpr, Inst, MAX_DEPTH, PATCH_ENTRIES_PER_REG, Resource, Src,
    SrcKind,
};
use super::words::AtomicWords;
use super::{ExecError, LANES, ops};
use std::sync::atomic::Ordering;
use tgsi_ir::enums::SemanticName;
use tgsi_ir::opcode::Opcode;

/// One channel of a register: a value per lane.
pub type Row = [u32; LANES];
/// One register: channels x, y, z, w.
pub type Reg = [Row; 4];
/// Lane bit mask.
pub type Mask = u16;
/// Every lane.
pub const FULL: Mask = u16::MAX;
const _: () = assert!(LANES == 16, "masks are 16-bit");

pub const ZERO_REG: Reg = [[0; LANES]; 4];

/// Word-addressed memory with byte addresses: buffers and shared memory.
trait Memory {
    fn byte_len(&self) -> usize;
    fn word(&self, i: usize) -> u32;
    fn set_word(&mut self, i: usize, v: u32);
    /// Atomically replaces word `i` by `f(old)`; returns old.
    fn update_word(&mut self, i: usize, f: impl Fn(u32) -> u32) -> u32 {
        let old = self.word(i);
        self.set_word(i, f(old));
        old
    }

    /// The 32-bit word at byte address `a`, or 0 when any of its bytes is out of range.
    fn read(&self, a: u32) -> u32 {
        let a = a as usize;
        if a.checked_add(4).is_none_or(|end| end > self.byte_len()) {
            return 0;
        }
        let (i, sh) = (a / 4, (a % 4) * 8);
        if sh == 0 {
            self.word(i)
        } else {
            (self.word(i) >> sh) | (self.word(i + 1) << (32 - sh))
        }
    }
    /// Writes the word at byte address `a`; dropped when out of range.
    fn write(&mut self, a: u32, v: u32) {
        let a = a as usize;
        if a.checked_add(4).is_none_or(|end| end > self.byte_len()) {
            return;
        }
        let (i, sh) = (a / 4, (a % 4) * 8);
        if sh == 0 {
            self.set_word(i, v);
        } else {
            let lo_keep = (1u32 << sh) - 1;
            let lo = (self.word(i) & lo_keep) | (v << sh);
            let hi = (self.word(i + 1) & !(u32::MAX >> (32 - sh))) | (v >> (32 - sh));
            self.set_word(i, lo);
            self.set_word(i + 1, hi);
        }
    }
    /// Read-modify-write of the word at `a`: returns the old value, or
    /// `None` when out of range (nothing written).
    fn modify(&mut self, a: u32, f: impl Fn(u32) -> u32) -> Option<u32> {
        let au = a as usize;
        if au.checked_add(4).is_none_or(|end| end > self.byte_len()) {
            return None;
        }
        if au.is_multiple_of(4) {
            Some(self.update_word(au / 4, f))
        } else {
            let old = self.read(a);
            self.write(a, f(old));
            Some(old)
        }
    }
}

impl Memory for &AtomicWords<'_> {
    fn byte_len(&self) -> usize {
        AtomicWords::byte_len(self)
    }
    fn word(&self, i: usize) -> u32 {
        self.get(i).map_or(0, |w| w.load(Ordering::Relaxed))
    }
    fn set_word(&mut self, i: usize, v: u32) {
        if let Some(w) = self.get(i) {
            w.store(v, Ordering::Relaxed)
        }
    }
    fn update_word(&mut self, i: usize, f: impl Fn(u32) -> u32) -> u32 {
        let Some(w) = self.get(i) else { return 0 };
        let mut old = w.load(Ordering::Relaxed);
        loop {
            match w.compare_exchange_weak(old, f(old), Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return old,
                Err(cur) => old = cur,
            }
        }
    }
}

impl Memory for &mut [u32] {
    fn byte_len(&self) -> usize {
        self.len() * 4
    }
    fn word(&self, i: usize) -> u32 {
        self.get(i).copied().unwrap_or(0)
    }
    fn set_word(&mut self, i: usize, v: u32) {
        if let Some(w) = self.get_mut(i) {
            *w = v
        }
    }
}

/// Read-only view of a constant buffer as memory.
struct ConstMemory<'a>(&'a [u32]);

impl Memory for ConstMemory<'_> {
    fn byte_len(&self) -> usize {
        self.0.len() * 4
    }
    fn word(&self, i: usize) -> u32 {
        self.0.get(i).copied().unwrap_or(0)
    }
    fn set_word(&mut self, _: usize, _: u32) {}
}

/// What every batch of a dispatch shares.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    /// Unique to the resources this environment was made with (see
    /// [`Env::next_stamp`]): a compiled engine keeps what it prepared from
    /// them (constant words, buffer addresses) from batch to batch of the
    /// same stamp.
    pub stamp: u64,
    pub consts: &'a [Vec<u32>],
    pub buffers: &'a [AtomicWords<'a>],
    /// Instructions one batch may run: the batch budget, or the whole
    /// dispatch's or draw's when that is smaller (`whole_budget`).
    pub max_instructions: u64,
    /// `"dispatch"` or `"draw"` when `max_instructions` is that whole's
    /// budget, for the error.
    pub whole_budget: Option<&'static str>,
    /// The fragment stage's inputs (`None` in other stages).
    pub frag: Option<&'a super::stage_state::FragEnv>,
    /// Textures, views and samplers.
    pub textures: crate::texture::Bindings<'a>,
    /// `IMAGE[n]` during the run.
    pub images: &'a [Option<crate::texture::SharedImage>],
    /// System values given by the caller ([`super::Resources::system_values`]).
    pub system_values: &'a [(SemanticName, [u32; 4])],
    /// The program's 2-D operands ([`Code::grids`]).
    pub grids: &'a [Grid],
}

impl Env<'_> {
    /// A stamp no environment made before has (never 0).
    pub fn next_stamp() -> u64 {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

/// One control-flow frame.
#[derive(Clone, Copy, Debug)]
enum Frame {
    If {
        cond: Mask,
    },
    Loop {
        loop_mask: Mask,
        cont: Mask,
    },
    /// The selector row is `selectors[depth]`.
    Switch {
        switch: Mask,
        entry: Mask,
        defaults: Mask,
    },
    Call {
        ret: u32,
        cond: Mask,
        loop_mask: Mask,
        cont: Mask,
        switch: Mask,
        func: Mask,
    },
}

/// Why a batch stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Ended,
    /// Reached a BARRIER; resume at the next instruction.
    Barrier,
}

pub use crate::math::simd::AlignedRegs;

/// Registers, masks and stacks of one batch.
pub struct Batch {
    /// Every register, each on a 64-byte boundary.
    pub regs: AlignedRegs,
    /// Per texture instruction (`Inst::aux`): the environment stamp it was
    /// planned under and its plan ([`crate::sampling`]).
    pub(crate) tex_plans: Vec<(u64, Option<crate::texture::exec::PlannedSample>)>,
    /// Source operands read by copy (constants, indirect, modified).
    pub scratch: [Reg; 5],
    /// The result of the instruction being executed, before it is stored.
    pub result: Reg,
    frames: [Frame; MAX_DEPTH],
    selectors: [Row; MAX_DEPTH],
    depth: usize,
    pub alive: Mask,
    /// Helper lanes (fragment stage: outside the target, or demoted): they
    /// execute, but never write memory or outputs.
    pub helper: Mask,
    /// Fragment stage: window pixel x (row 0) and y (row 1) of every lane.
    pub pixel: [Row; 2],
    cond: Mask,
    loop_mask: Mask,
    cont: Mask,
    switch: Mask,
    func: Mask,
    pub exec: Mask,
    /// `exec` as a row of all-ones / zero words, for blending stores.
    pub exec_row: Row,
    pub pc: usize,
    /// Instructions this batch has executed (what the budget counts).
    pub executed: u64,
    pub ended: bool,
    /// The program's 2-D operands ([`Code::grids`]), for stores.
    pub(super) grids: Vec<Grid>,
    /// Geometry shaders: what EMIT and ENDPRIM recorded.
    pub emits: super::stage_state::Emits,
    /// The compiled engine's control-flow frames of a batch stopped at a
    /// BARRIER (its SWITCH selectors are kept in `selectors`).
    jit_frames: [[u32; 4]; MAX_DEPTH],
    /// The lane a debugger follows ([`crate::trace`]): set by the stage
    /// after [`Batch::reset`] when the program has a tracer and this batch
    /// holds the chosen invocation; the batch then runs in the tracer.
    pub traced: Option<u8>,
}

/// Expands a lane mask to a row of `!0` / `0`.
#[inline(always)]
pub fn mask_row(m: Mask) -> Row {
    // a broadcast, an AND with the lane bits and a compare (packed)
    let m = m as u32;
    std::array::from_fn(|l| if m & (1 << l) != 0 { !0 } else { 0 })
}

impl Batch {
    pub fn new(code: &Code) -> Batch {
        let mut regs = AlignedRegs::new(ZERO_REG, code.num_regs as usize);
        for (k, w) in code.imm_words.iter().enumerate() {
            regs[(code.imm.base as usize) + k] = w.map(|v| [v; LANES]);
        }
        Batch {
            regs,
            tex_plans: Vec::new(),
            scratch: [ZERO_REG; 5],
            result: ZERO_REG,
            frames: [Frame::If { cond: 0 }; MAX_DEPTH],
            selectors: [[0; LANES]; MAX_DEPTH],
            depth: 0,
            alive: 0,
            helper: 0,
            pixel: [[0; LANES]; 2],
            cond: FULL,
            loop_mask: FULL,
            cont: FULL,
            switch: FULL,
            func: FULL,
            exec: 0,
            exec_row: [0; LANES],
            pc: 0,
            executed: 0,
            ended: true,
            grids: code.grids.clone(),
            emits: super::stage_state::Emits::default(),
            jit_frames: [[0; 4]; MAX_DEPTH],
            traced: None,
        }
    }

    /// Clears the writable registers and masks for a new batch whose live lanes are `alive`.
    pub fn reset(&mut self, code: &Code, alive: Mask) {
        // TEMP, OUT, IN, ADDR and the patch store are contiguous from 0 (see
        // decode's layout); the vertex inputs after them are the stage's.
        // A traced batch clears all of them: the debugger shows registers
        // before their first write.
        if code.tracer.is_some() {
            let writable_end = (code.patch.base + code.patch.len) as usize;
            self.regs[..writable_end].fill(ZERO_REG);
        } else {
            for r in &code.reset {
                self.regs[r.start as usize..r.end as usize].fill(ZERO_REG);
            }
        }
        self.depth = 0;
        self.alive = alive;
        self.helper = 0;
        self.cond = FULL;
        self.loop_mask = FULL;
        self.cont = FULL;
        self.switch = FULL;
        self.func = FULL;
        self.pc = 0;
        self.executed = 0;
        self.ended = false;
        self.emits.clear();
        self.traced = None;
        self.update_exec();
    }

    /// Fills every register of system value `name` with per-lane values
    /// `value(channel, lane)`.
    #[inline]
    pub fn set_system_value(
        &mut self,
        code: &Code,
        name: SemanticName,
        value: impl Fn(usize, usize) -> u32,
    ) {
        for sv in code.system_values.iter().filter(|s| s.name == name) {
            let reg = &mut self.regs[sv.reg as usize];
            for (c, row) in reg.iter_mut().enumerate() {
                for (l, w) in row.iter_mut().enumerate() {
                    *w = value(c, l);
                }
            }
        }
    }

    /// Sets every SV register of semantic `name` to `value`.
    pub fn set_system_reg(&mut self, code: &Code, name: SemanticName, value: &Reg) {
        for sv in code.system_values.iter().filter(|s| s.name == name) {
            self.regs[sv.reg as usize] = *value;
        }
    }

    #[inline(always)]
    pub(super) fn update_exec(&mut self) {
        self.exec = self.alive & self.cond & self.loop_mask & self.cont & self.switch & self.func;
        self.exec_row = mask_row(self.exec);
    }

    /// Sets the lanes the next operation touches to `mask` (a subset of the
    /// current ones, or the saved set back); the control-flow masks stay.
    pub(crate) fn narrow_exec(&mut self, mask: Mask) {
        self.exec = mask;
        self.exec_row = mask_row(mask);
    }

    /// The instruction after `inst`, or its jump target when no lane is active
    /// (skipping a block nobody runs).
    #[inline]
    fn next_or_skip(&self, inst: &Inst, next: usize) -> usize {
        if self.exec == 0 {
            inst.target as usize
        } else {
            next
        }
    }

    fn push(&mut self, f: Frame, inst: &Inst) -> Result<(), ExecError> {
        if self.depth >= MAX_DEPTH {
            return Err(ExecError {
                instruction: Some(self.pc),
                message: format!(
                    "instruction {} ({}): control flow nested deeper than {MAX_DEPTH} (blocks and calls)",
                    self.pc, inst.op
                ),
            });
        }
        self.frames[self.depth] = f;
        self.depth += 1;
        Ok(())
    }

    // ---- operand access -------------------------------------------------

    /// Reads the channels in `need` (bit c = result channel c) of a source,
    /// swizzled, with 32-bit modifiers applied, as a copy.
    #[inline(always)]
    pub fn fetch(&self, s: &Src, need: u8, env: &Env) -> Reg {
        let mut out = ZERO_REG;
        fill_src(&self.regs, &mut out, s, need, env);
        out
    }

    /// Writes channels `chans & dst.mask` of `v` for the active lanes.
    #[inline(always)]
    pub fn store(&mut self, d: &Dst, v: &Reg, chans: u8) {
        store_rows(
            &mut self.regs,
            &self.grids,
            self.exec,
            &self.exec_row,
            d,
            v,
            chans,
        );
    }

    /// Stores a 32-bit result, saturating floats when the instruction says so.
    #[inline(always)]
    pub fn store32(&mut self, inst: &Inst, v: Reg, chans: u8) {
        self.result = v;
        self.store_result(inst, chans);
    }

    /// Stores `self.result` (channels `chans`) to dst 0, saturating floats when asked.
    #[inline(always)]
    pub fn store_result(&mut self, inst: &Inst, chans: u8) {
        if inst.flush {
            for (c, row) in self.result.iter_mut().enumerate() {
                if chans & (1 << c) != 0 {
                    for x in row.iter_mut() {
                        *x = ops::flush_denormal(*x);
                    }
                }
            }
        }
        if inst.saturate {
            for (c, row) in self.result.iter_mut().enumerate() {
                if chans & (1 << c) != 0 {
                    for x in row.iter_mut() {
                        *x = ops::saturate_f32(*x);
                    }
                }
            }
        }
        store_rows(
            &mut self.regs,
            &self.grids,
            self.exec,
            &self.exec_row,
            &inst.dst[0],
            &self.result,
            chans,
        );
    }

    // ---- the run loop ----------------------------------------------------

    fn budget_error(&self, code: &Code, env: &Env) -> ExecError {
        let op = code.insts[self.pc].op;
        let message = if let Some(whole) = env.whole_budget {
            format!(
                "the {whole}'s instruction budget of {} ran out within one batch, at instruction {} ({op})",
                env.max_instructions, self.pc
            )
        } else {
            format!(
                "instruction budget of {} exhausted at instruction {} ({op})",
                env.max_instructions, self.pc
            )
        };
        ExecError {
            instruction: Some(self.pc),
            message,
        }
    }

    /// Runs until the batch ends or reaches a BARRIER.
    #[inline(always)]
    pub fn run(&mut self, code: &Code, env: &Env, shared: &mut [u32]) -> Result<Stop, ExecError> {
        if let (Some(lane), Some(tracer)) = (self.traced, &code.tracer) {
            return self.run_traced(code, env, shared, lane, tracer);
        }
        // The compiled engine runs a batch from its start, or from the
        // BARRIER it stopped at (the interpreter's frames stay empty).
        if let Some(compiled) = &code.compiled
            && self.depth == 0
        {
            return compiled.run(self, code, env, shared);
        }
        self.interpret(code, env, shared)
    }

    /// The compiled engine's view of the batch masks: (cond, loop, cont, switch, func).
    pub fn flow_masks(&self) -> [Mask; 5] {
        [self.cond, self.loop_mask, self.cont, self.switch, self.func]
    }

    /// Keeps the state of a batch the compiled engine stopped at a BARRIER:
    /// it resumes at instruction `pc` with these masks (alive, cond, loop,
    /// cont, switch, func, exec), frames and SWITCH selectors (those of the
    /// nesting depths the program uses).
    pub fn suspend_compiled(
        &mut self,
        pc: usize,
        masks: [Mask; 7],
        frames: &[[u32; 4]],
        selectors: &[Row],
    ) {
        self.pc = pc;
        [
            self.alive,
            self.cond,
            self.loop_mask,
            self.cont,
            self.switch,
            self.func,
            self.exec,
        ] = masks;
        self.exec_row = mask_row(self.exec);
        self.jit_frames[..frames.len()].copy_from_slice(frames);
        self.selectors[..selectors.len()].copy_from_slice(selectors);
    }

    /// The frames and selectors [`Batch::suspend_compiled`] kept.
    pub fn compiled_frames(&self) -> (&[[u32; 4]; MAX_DEPTH], &[Row; MAX_DEPTH]) {
        (&self.jit_frames, &self.selectors)
    }

    /// The error of a batch whose budget ran out at instruction `pc`.
    pub fn budget_exhausted(&mut self, code: &Code, env: &Env, pc: usize) -> ExecError {
        self.pc = pc;
        self.budget_error(code, env)
    }

    /// Runs instruction `pc`, which is not a control-flow instruction, for
    /// the active lanes (`exec`/`exec_row` set by the caller) exactly as the
    /// interpreter's loop does: the compiled engine's call for the opcodes
    /// and operand forms it does not inline. `Ok(true)` when the batch ended
    /// (KILL of every lane).
    pub fn step_one(
        &mut self,
        code: &Code,
        env: &Env,
        shared: &mut [u32],
        pc: usize,
    ) -> Result<bool, ExecError> {
        self.pc = pc;
        let Some(inst) = code.insts.get(pc) else {
            return Ok(true);
        };
        if self.exec == 0 {
            return Ok(false);
        }
        if let Some(k) = code.fast.get(pc)
            && k.run.is_some()
        {
            super::fast::run_block(self, std::slice::from_ref(k), env);
            return Ok(false);
        }
        self.run_plain(code, inst, env, shared)
    }

    /// Runs `inst`, which is not a control-flow instruction, for the active
    /// lanes (the caller checks `exec != 0`): the one dispatch of geometry,
    /// KILL, texture, fragment and ALU/memory opcodes shared by the
    /// interpreter loop and [`Batch::step_one`]. `Ok(true)` when a KILL left
    /// no lane alive.
    #[inline(always)]
    pub(crate) fn run_plain(
        &mut self,
        code: &Code,
        inst: &Inst,
        env: &Env,
        shared: &mut [u32],
    ) -> Result<bool, ExecError> {
        match inst.op {
            Opcode::KILL | Opcode::KILL_IF => {
                self.kill(inst, env);
                return Ok(self.alive == 0);
            }
            Opcode::TEX
            | Opcode::TXP
            | Opcode::TXB
            | Opcode::TXL
            | Opcode::TXD
            | Opcode::TEX2
            | Opcode::TXB2
            | Opcode::TXL2
            | Opcode::TEX_LZ
            | Opcode::TXF
            | Opcode::TXF_LZ
            | Opcode::TXQ
            | Opcode::TXQS
            | Opcode::TG4
            | Opcode::LODQ
            | Opcode::SAMPLE
            | Opcode::SAMPLE_B
            | Opcode::SAMPLE_C
            | Opcode::SAMPLE_C_LZ
            | Opcode::SAMPLE_D
            | Opcode::SAMPLE_L
            | Opcode::SAMPLE_I
            | Opcode::SAMPLE_I_MS
            | Opcode::GATHER4
            | Opcode::SVIEWINFO
            | Opcode::SAMPLE_POS
            | Opcode::SAMPLE_INFO
            | Opcode::LOD => self.texture_op(code, inst, env)?,
            Opcode::DEMOTE
            | Opcode::READ_HELPER
            | Opcode::DDX
            | Opcode::DDY
            | Opcode::DDX_FINE
            | Opcode::DDY_FINE
            | Opcode::INTERP_CENTROID
            | Opcode::INTERP_SAMPLE
            | Opcode::INTERP_OFFSET => self.fragment_op(inst, env)?,
            Opcode::EMIT | Opcode::ENDPRIM => self.geometry_op(code, inst, env)?,
            _ => self.execute(inst, env, shared)?,
        }
        Ok(false)
    }

    /// The interpreter loop.
    fn interpret(&mut self, code: &Code, env: &Env, shared: &mut [u32]) -> Result<Stop, ExecError> {
        let insts = &code.insts[..];
        loop {
            let Some(inst) = insts.get(self.pc) else {
                self.ended = true;
                return Ok(Stop::Ended);
            };
            self.executed += 1;
            if self.executed > env.max_instructions {
                return Err(self.budget_error(code, env));
            }
            let next = self.pc + 1;
            if let Some(k) = code.fast.get(self.pc)
                && k.run.is_some()
            {
                // a straight run of fast kernels at once, if the budget allows
                let more = (k.block as u64).saturating_sub(1);
                let n = if self.executed + more <= env.max_instructions {
                    self.executed += more;
                    more as usize + 1
                } else {
                    1
                };
                if self.exec != 0 {
                    let ks = code.fast.get(self.pc..self.pc + n).unwrap_or(&[]);
                    super::fast::run_block(self, ks, env);
                }
                self.pc += n;
                continue;
            }
            if self.execute_one(code, inst, env, shared, next)? {
                return Ok(if self.ended {
                    Stop::Ended
                } else {
                    Stop::Barrier
                });
            }
        }
    }

    /// Executes `inst` (at `self.pc`, which is not the start of a fast
    /// block) for the active lanes and moves `pc` on: the loop body the
    /// interpreter and the tracer share. True when the batch stopped: it
    /// ended (`self.ended`) or reached a BARRIER.
    #[inline(always)]
    pub(crate) fn execute_one(
        &mut self,
        code: &Code,
        inst: &Inst,
        env: &Env,
        shared: &mut [u32],
        next: usize,
    ) -> Result<bool, ExecError> {
        match inst.op {
            Opcode::IF | Opcode::UIF | Opcode::ELSE | Opcode::ENDIF => {
                self.conditional(inst, env, next)?
            }
            Opcode::BGNLOOP | Opcode::ENDLOOP | Opcode::BRK | Opcode::CONT => {
                self.looping(inst, next)?
            }
            Opcode::SWITCH | Opcode::CASE | Opcode::DEFAULT | Opcode::ENDSWITCH => {
                self.switching(code, inst, env, next)?
            }
            Opcode::CAL | Opcode::RET | Opcode::ENDSUB | Opcode::END => {
                if self.calling(inst, next)? {
                    self.ended = true;
                    return Ok(true);
                }
            }
            Opcode::BGNSUB | Opcode::NOP | Opcode::MEMBAR => self.pc = next,
            Opcode::BARRIER => {
                self.pc = next;
                return Ok(true);
            }
            _ => {
                if self.exec != 0 && self.run_plain(code, inst, env, shared)? {
                    self.ended = true;
                    return Ok(true);
                }
                self.pc = next;
            }
        }
        Ok(false)
    }

    /// IF, UIF, ELSE and ENDIF.
    #[inline(always)]
    fn conditional(&mut self, inst: &Inst, env: &Env, next: usize) -> Result<(), ExecError> {
        match inst.op {
            Opcode::IF | Opcode::UIF => {
                let v = self.fetch_x(&inst.src[0], env);
                // IF tests the float value (-0.0 is false), UIF the raw bits.
                let taken = super::fast::lanes_true(&v, inst.op == Opcode::IF);
                self.push(Frame::If { cond: self.cond }, inst)?;
                self.cond &= taken;
                self.update_exec();
                self.pc = self.next_or_skip(inst, next);
            }
            Opcode::ELSE => {
                let Some(Frame::If { cond: outer }) = self.top() else {
                    return Err(self.broken(inst));
                };
                self.cond = !self.cond & outer;
                self.update_exec();
                self.pc = self.next_or_skip(inst, next);
            }
            Opcode::ENDIF => {
                let Some(Frame::If { cond: outer }) = self.top() else {
                    return Err(self.broken(inst));
                };
                self.depth -= 1;
                self.cond = outer;
                self.update_exec();
                self.pc = next;
            }
            _ => {}
        }
        Ok(())
    }

    /// BGNLOOP, ENDLOOP, BRK and CONT.
    #[inline(always)]
    fn looping(&mut self, inst: &Inst, next: usize) -> Result<(), ExecError> {
        match inst.op {
            Opcode::BGNLOOP => {
                self.push(
                    Frame::Loop {
                        loop_mask: self.loop_mask,
                        cont: self.cont,
                    },
                    inst,
                )?;
                self.pc = self.next_or_skip(inst, next);
            }
            Opcode::ENDLOOP => {
                let Some(Frame::Loop { loop_mask, cont }) = self.top() else {
                    return Err(self.broken(inst));
                };
                self.cont = cont;
                self.update_exec();
                if self.exec != 0 {
                    self.pc = inst.target as usize + 1;
                } else {
                    self.loop_mask = loop_mask;
                    self.depth -= 1;
                    self.update_exec();
                    self.pc = next;
                }
            }
            Opcode::BRK => {
                if inst.brk_switch {
                    self.switch &= !self.exec;
                    self.update_exec();
                    self.pc = next;
                } else {
                    self.loop_mask &= !self.exec;
                    self.update_exec();
                    self.pc = if self.loop_is_dead() {
                        self.unwind_to_loop(inst)?
                    } else {
                        next
                    };
                }
            }
            Opcode::CONT => {
                self.cont &= !self.exec;
                self.update_exec();
                self.pc = if self.loop_is_dead() {
                    self.unwind_to_loop(inst)?
                } else {
                    next
                };
            }
            _ => {}
        }
        Ok(())
    }

    /// SWITCH, CASE, DEFAULT and ENDSWITCH.
    #[inline(always)]
    fn switching(
        &mut self,
        code: &Code,
        inst: &Inst,
        env: &Env,
        next: usize,
    ) -> Result<(), ExecError> {
        match inst.op {
            Opcode::SWITCH => {
                let sel = self.fetch(&inst.src[0], 1, env)[0];
                let mut any_case: Mask = 0;
                for &ci in &code.switch_cases[inst.aux as usize] {
                    let v = self.fetch(&code.insts[ci as usize].src[0], 1, env)[0];
                    any_case |= eq_mask(&sel, &v);
                }
                self.push(
                    Frame::Switch {
                        switch: self.switch,
                        entry: self.exec,
                        defaults: !any_case,
                    },
                    inst,
                )?;
                self.selectors[self.depth - 1] = sel;
                self.switch = 0;
                self.update_exec();
                self.pc = next;
            }
            Opcode::CASE | Opcode::DEFAULT => {
                let Some(Frame::Switch {
                    entry, defaults, ..
                }) = self.top()
                else {
                    return Err(self.broken(inst));
                };
                let m = if inst.op == Opcode::CASE {
                    let v = self.fetch(&inst.src[0], 1, env)[0];
                    eq_mask(&self.selectors[self.depth - 1], &v)
                } else {
                    defaults
                };
                self.switch |= m & entry;
                self.update_exec();
                self.pc = next;
            }
            Opcode::ENDSWITCH => {
                let Some(Frame::Switch { switch, .. }) = self.top() else {
                    return Err(self.broken(inst));
                };
                self.depth -= 1;
                self.switch = switch;
                self.update_exec();
                self.pc = next;
            }
            _ => {}
        }
        Ok(())
    }

    /// CAL, RET, ENDSUB and END; true when the batch ended.
    #[inline(always)]
    fn calling(&mut self, inst: &Inst, next: usize) -> Result<bool, ExecError> {
        match inst.op {
            Opcode::CAL => {
                if self.exec != 0 {
                    let f = Frame::Call {
                        ret: next as u32,
                        cond: self.cond,
                        loop_mask: self.loop_mask,
                        cont: self.cont,
                        switch: self.switch,
                        func: self.func,
                    };
                    self.push(f, inst)?;
                    self.func = self.exec;
                    self.pc = inst.target as usize;
                } else {
                    self.pc = next;
                }
            }
            Opcode::RET => {
                self.func &= !self.exec;
                self.update_exec();
                if self.func & self.alive == 0 {
                    if !self.return_from_call() {
                        return Ok(true);
                    }
                } else {
                    self.pc = next;
                }
            }
            // a return that leaves the outermost subroutine ends the batch
            Opcode::ENDSUB => return Ok(!self.return_from_call()),
            Opcode::END => return Ok(true),
            _ => {}
        }
        Ok(false)
    }

    /// The nesting depth of the innermost SWITCH frame (1-based), if any.
    pub(crate) fn innermost_switch(&self) -> Option<usize> {
        (0..self.depth)
            .rev()
            .find(|&d| matches!(self.frames[d], Frame::Switch { .. }))
            .map(|d| d + 1)
    }

    /// How many control-flow frames are open.
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    fn top(&self) -> Option<Frame> {
        self.depth.checked_sub(1).map(|d| self.frames[d])
    }

    fn broken(&self, inst: &Inst) -> ExecError {
        ExecError {
            instruction: Some(self.pc),
            message: format!(
                "instruction {} ({}): control-flow stack does not match the block",
                self.pc, inst.op
            ),
        }
    }

    /// True when no lane can still run the rest of the innermost loop's
    /// body in this iteration: the lanes active at the loop's own level
    /// (masks of the IF/SWITCH blocks between the BRK/CONT and the loop taken
    /// as they were at that level) are all gone.
    fn loop_is_dead(&self) -> bool {
        if self.exec != 0 {
            return false;
        }
        let (mut cond, mut switch) = (self.cond, self.switch);
        for f in self.frames[..self.depth].iter().rev() {
            match *f {
                Frame::Loop { .. } | Frame::Call { .. } => break,
                Frame::If { cond: c } => cond = c,
                Frame::Switch { switch: s, .. } => switch = s,
            }
        }
        self.alive & self.loop_mask & self.cont & self.func & cond & switch == 0
    }

    /// Pops the frames above the innermost loop (restoring the masks they
    /// saved) and returns the pc of its ENDLOOP (the BRK/CONT target).
    fn unwind_to_loop(&mut self, inst: &Inst) -> Result<usize, ExecError> {
        while let Some(f) = self.top() {
            match f {
                Frame::Loop { .. } => return Ok(inst.target as usize),
                Frame::If { cond } => self.cond = cond,
                Frame::Switch { switch, .. } => self.switch = switch,
                Frame::Call { .. } => break,
            }
            self.depth -= 1;
        }
        Err(self.broken(inst))
    }

    /// Pops everything up to and including the innermost call frame and
    /// restores the caller's masks. False when there is no caller (main).
    fn return_from_call(&mut self) -> bool {
        while let Some(f) = self.top() {
            self.depth -= 1;
            if let Frame::Call {
                ret,
                cond,
                loop_mask,
                cont,
                switch,
                func,
            } = f
            {
                self.cond = cond;
                self.loop_mask = loop_mask;
                self.cont = cont;
                self.switch = switch;
                self.func = func;
                self.update_exec();
                self.pc = ret as usize;
                return true;
            }
        }
        false
    }

    // ---- memory ----------------------------------------------------------

    /// LOAD, STORE, atomics, RESQ.
    pub fn memory_op(
        &mut self,
        inst: &Inst,
        env: &Env,
        shared: &mut [u32],
    ) -> Result<(), ExecError> {
        let res = inst.resource.ok_or_else(|| ExecError {
            instruction: Some(self.pc),
            message: format!("instruction {} ({}): no resource operand", self.pc, inst.op),
        })?;
        if let Some(e) = inst.resource_addr {
            return self.memory_op_indirect(inst, env, shared, res, e);
        }
        self.memory_on_resource(inst, env, shared, res)
    }

    /// LOAD, STORE, atomics and RESQ whose BUFFER / IMAGE differs per lane:
    /// the active lanes are grouped by resource index and each group runs
    /// as a direct access. Lanes whose index is negative or names no bound
    /// resource read 0 and write nothing.
    fn memory_op_indirect(
        &mut self,
        inst: &Inst,
        env: &Env,
        shared: &mut [u32],
        res: Resource,
        e: IndexExpr,
    ) -> Result<(), ExecError> {
        let index = self.lane_indices(&e);
        let saved = self.exec;
        let bound = |n: u32| match res {
            Resource::Buffer(_) => (n as usize) < env.buffers.len(),
            Resource::Image { .. } => env.images.get(n as usize).is_some_and(|i| i.is_some()),
            _ => true,
        };
        let mut unbound: Mask = 0;
        let mut left = saved;
        while left != 0 {
            let first = left.trailing_zeros() as usize;
            let n = index[first];
            let mut group: Mask = 0;
            for l in 0..LANES {
                if left >> l & 1 == 1 && index[l] == n {
                    group |= 1 << l;
                }
            }
            left &= !group;
            if n == u32::MAX || !bound(n) {
                unbound |= group;
                continue;
            }
            let lane_res = match res {
                Resource::Buffer(_) => Resource::Buffer(n),
                Resource::Image { target, format, .. } => Resource::Image {
                    index: n,
                    target,
                    format,
                },
                other => other,
            };
            self.narrow_exec(group);
            let r = self.memory_on_resource(inst, env, shared, lane_res);
            self.narrow_exec(saved);
            r?;
        }
        if unbound != 0 && inst.dst[0].kind != DstKind::Null {
            self.narrow_exec(unbound);
            self.store32(inst, ZERO_REG, 0xF);
            self.narrow_exec(saved);
        }
        Ok(())
    }

    fn memory_on_resource(
        &mut self,
        inst: &Inst,
        env: &Env,
        shared: &mut [u32],
        res: Resource,
    ) -> Result<(), ExecError> {
        let missing = |n: u32| ExecError {
            instruction: Some(self.pc),
            message: format!(
                "instruction {} ({}): BUFFER[{n}] is not bound",
                self.pc, inst.op
            ),
        };
        match res {
            Resource::Buffer(n) => {
                let b = env.buffers.get(n as usize).ok_or_else(|| missing(n))?;
                self.memory_on(inst, env, b)
            }
            Resource::Shared => self.memory_on(inst, env, shared),
            Resource::Const(n) => {
                let words = env.consts.get(n as usize).map_or(&[][..], |v| v.as_slice());
                self.memory_on(inst, env, ConstMemory(words))
            }
            Resource::Image {
                index,
                target,
                format,
            } => self.image_op(inst, env, index, target, format)?,
        }
        Ok(())
    }

    fn memory_on<M: Memory>(&mut self, inst: &Inst, env: &Env, mut mem: M) {
        // Lanes that read: the active ones; lanes that write: the active
        // ones that are not helpers (killed lanes are no longer active).
        let active = if matches!(inst.op, Opcode::LOAD | Opcode::RESQ) {
            self.exec
        } else {
            self.exec & !self.helper
        };
        match inst.op {
            Opcode::LOAD => {
                let addr = self.fetch(&inst.src[1], 1, env)[0];
                let swz = inst.src[0].swz;
                let mut v = ZERO_REG;
                let mask = inst.dst[0].mask;
                for l in 0..LANES {
                    if active & (1 << l) == 0 {
                        continue;
                    }
                    for c in 0..4 {
                        if mask & (1 << c) != 0 {
                            v[c][l] = addr[l]
                                .checked_add(4 * (swz[c] & 3) as u32)
                                .map_or(0, |a| mem.read(a));
                        }
                    }
                }
                self.store32(inst, v, 0xF);
            }
            Opcode::STORE => {
                let addr = self.fetch(&inst.src[0], 1, env)[0];
                let mask = inst.dst[0].mask;
                let val = self.fetch(&inst.src[1], mask, env);
                for l in 0..LANES {
                    if active & (1 << l) == 0 {
                        continue;
                    }
                    for c in 0..4u32 {
                        if mask & (1 << c) != 0
                            && let Some(a) = addr[l].checked_add(4 * c)
                        {
                            mem.write(a, val[c as usize][l]);
                        }
                    }
                }
            }
            Opcode::RESQ => {
                let mut v = ZERO_REG;
                v[0] = [mem.byte_len().min(u32::MAX as usize) as u32; LANES];
                self.store(&inst.dst[0], &v, 0xF);
            }
            op => {
                // Atomics: src1 = byte offset, src2 = value, src3 = CAS's new value.
                let addr = self.fetch(&inst.src[1], 1, env)[0];
                let value = self.fetch(&inst.src[2], 1, env)[0];
                let third = if op == Opcode::ATOMCAS {
                    self.fetch(&inst.src[3], 1, env)[0]
                } else {
                    [0; LANES]
                };
                let mut old = [0u32; LANES];
                for l in 0..LANES {
                    if active & (1 << l) == 0 {
                        continue;
                    }
                    let (v, t) = (value[l], third[l]);
                    old[l] = mem
                        .modify(addr[l], |o| ops::atomic_new_value(op, o, v, t))
                        .unwrap_or(0);
                }
                self.store(&inst.dst[0], &[old; 4], 0xF);
            }
        }
    }
}

/// The rows of a source operand without copying when it is a direct
/// register without 32-bit modifiers (row c = register channel `swz[c]`);
/// otherwise the operand is read into `scratch`.
#[inline(always)]
pub fn fetch_into<'a>(
    regs: &'a [Reg],
    scratch: &'a mut Reg,
    s: &Src,
    need: u8,
    env: &Env,
) -> [&'a Row; 4] {
    if let SrcKind::Reg(r) = s.kind {
        let plain = !s.flush
            && match s.modifier {
                super::decode::Modifier::None => true,
                super::decode::Modifier::Apply { ty, .. } => ty.is_64bit(),
            };
        if plain {
            let reg = &regs[r as usize];
            let sw = s.swz;
            return [
                &reg[(sw[0] & 3) as usize],
                &reg[(sw[1] & 3) as usize],
                &reg[(sw[2] & 3) as usize],
                &reg[(sw[3] & 3) as usize],
            ];
        }
    }
    fill_src(regs, scratch, s, need, env);
    let sc: &'a Reg = scratch;
    [&sc[0], &sc[1], &sc[2], &sc[3]]
}

/// Reads the channels in `need` of a source into `out` (swizzled, 32-bit
/// modifiers applied; 64-bit modifiers are left to the pair helpers).
/// Kept out of line: direct operands take [`fetch_into`]'s borrowed path, and
/// inlining every operand form into every opcode bloats the dispatch.
#[inline(never)]
pub fn fill_src(regs: &[Reg], out: &mut Reg, s: &Src, need: u8, env: &Env) {
    match s.kind {
        SrcKind::Reg(r) => {
            let reg = &regs[r as usize];
            for c in 0..4 {
                if need & (1 << c) != 0 {
                    out[c] = reg[(s.swz[c] & 3) as usize];
                }
            }
        }
        SrcKind::RegIndirect {
            base,
            len,
            offset,
            addr,
        } => {
            let a = regs[addr.reg as usize][(addr.chan & 3) as usize];
            for l in 0..LANES {
                let idx = offset as i64 + a[l] as i32 as i64;
                let inside = idx >= 0 && idx < len as i64;
                let reg = &regs[if inside {
                    base as usize + idx as usize
                } else {
                    base as usize
                }];
                for c in 0..4 {
                    out[c][l] = if inside {
                        reg[(s.swz[c] & 3) as usize][l]
                    } else {
                        0
                    };
                }
            }
        }
        SrcKind::Const { buf, slot } => {
            let words = env
                .consts
                .get(buf as usize)
                .map_or(&[][..], |v| v.as_slice());
            for c in 0..4 {
                if need & (1 << c) != 0 {
                    let w = if slot >= 0 {
                        words
                            .get(slot as usize * 4 + (s.swz[c] & 3) as usize)
                            .copied()
                            .unwrap_or(0)
                    } else {
                        0
                    };
                    out[c] = [w; LANES];
                }
            }
        }
        SrcKind::ConstIndirect { buf, slot } => {
            let lane_index = |e: IndexExpr, l: usize| -> i64 {
                e.offset as i64
                    + e.addr.map_or(0, |a| {
                        regs[a.reg as usize][(a.chan & 3) as usize][l] as i32 as i64
                    })
            };
            for l in 0..LANES {
                let b = lane_index(buf, l);
                let sl = lane_index(slot, l);
                let words = if b >= 0 && sl >= 0 {
                    env.consts.get(b as usize).map_or(&[][..], |v| v.as_slice())
                } else {
                    &[][..]
                };
                for c in 0..4 {
                    let k = (sl.max(0) as usize)
                        .saturating_mul(4)
                        .saturating_add((s.swz[c] & 3) as usize);
                    out[c][l] = words.get(k).copied().unwrap_or(0);
                }
            }
        }
        SrcKind::Vertex { grid } => {
            let g = &env.grids[grid as usize];
            for l in 0..LANES {
                let entry = grid_entry(regs, g, l);
                for c in 0..4 {
                    out[c][l] = entry.map_or(0, |e| {
                        regs[(g.base + e) as usize][(s.swz[c] & 3) as usize][l]
                    });
                }
            }
        }
        SrcKind::Patch { grid } => {
            let g = &env.grids[grid as usize];
            for l in 0..LANES {
                let at = grid_entry(regs, g, l).map(|e| patch_slot(g, e));
                for c in 0..4 {
                    out[c][l] = at.map_or(0, |(r, k)| regs[r][(s.swz[c] & 3) as usize][k]);
                }
            }
        }
        SrcKind::None => {
            for c in 0..4 {
                if need & (1 << c) != 0 {
                    out[c] = [0; LANES];
                }
            }
        }
    }
    if s.flush {
        for (c, row) in out.iter_mut().enumerate() {
            if need & (1 << c) != 0 {
                for v in row.iter_mut() {
                    *v = ops::flush_denormal(*v);
                }
            }
        }
    }
    if let super::decode::Modifier::Apply { ty, abs, neg } = s.modifier
        && !ty.is_64bit()
    {
        for (c, row) in out.iter_mut().enumerate() {
            if need & (1 << c) != 0 {
                for v in row.iter_mut() {
                    *v = ops::modify(*v, ty, abs, neg);
                }
            }
        }
    }
}

/// Writes channels `chans & dst.mask` of `v` into the register file for the
/// lanes in `exec` (`exec_row` = the same mask as a row).
#[inline(always)]
pub fn store_rows(
    regs: &mut [Reg],
    grids: &[Grid],
    exec: Mask,
    exec_row: &Row,
    d: &Dst,
    v: &Reg,
    chans: u8,
) {
    let mask = d.mask & chans;
    match d.kind {
        DstKind::Patch { grid } => store_patch(regs, &grids[grid as usize], exec, v, mask),
        DstKind::Null => {}
        DstKind::Reg(r) => {
            let reg = &mut regs[r as usize];
            for c in 0..4 {
                if mask & (1 << c) != 0 {
                    if exec == FULL {
                        reg[c] = v[c];
                    } else {
                        for l in 0..LANES {
                            reg[c][l] = (v[c][l] & exec_row[l]) | (reg[c][l] & !exec_row[l]);
                        }
                    }
                }
            }
        }
        DstKind::RegIndirect { .. } => store_indirect(regs, exec, d, v, mask),
    }
}

/// The value of an index expression in lane `l`.
#[inline(always)]
pub(crate) fn index_in_lane(regs: &[Reg], e: IndexExpr, l: usize) -> i64 {
    e.offset as i64
        + e.addr.map_or(0, |a| {
            regs[a.reg as usize][(a.chan & 3) as usize][l] as i32 as i64
        })
}

/// The entry a 2-D operand addresses in lane `l`, or `None` out of range.
#[inline(always)]
pub(crate) fn grid_entry(regs: &[Reg], g: &Grid, l: usize) -> Option<u32> {
    let row = index_in_lane(regs, g.row, l);
    let col = index_in_lane(regs, g.col, l);
    if (0..g.rows as i64).contains(&row) && (0..g.stride as i64).contains(&col) {
        Some(g.first + row as u32 * g.stride + col as u32)
    } else {
        None
    }
}

/// Register and lane of patch-store entry `e`.
#[inline(always)]
pub(crate) fn patch_slot(g: &Grid, e: u32) -> (usize, usize) {
    (
        (g.base + e / PATCH_ENTRIES_PER_REG) as usize,
        (e % PATCH_ENTRIES_PER_REG) as usize,
    )
}

/// Writes a patch-store entry per active lane, in lane order (a later lane
/// writing the same entry wins); out-of-range entries are dropped.
#[inline(never)]
fn store_patch(regs: &mut [Reg], g: &Grid, exec: Mask, v: &Reg, mask: u8) {
    for l in 0..LANES {
        if exec & (1 << l) == 0 {
            continue;
        }
        if let Some(e) = grid_entry(regs, g, l) {
            let (r, k) = patch_slot(g, e);
            for c in 0..4 {
                if mask & (1 << c) != 0 {
                    regs[r][c][k] = v[c][l];
                }
            }
        }
    }
}

/// The per-lane indirect destination case of [`store_rows`] (out of line).
#[inline(never)]
fn store_indirect(regs: &mut [Reg], exec: Mask, d: &Dst, v: &Reg, mask: u8) {
    match d.kind {
        DstKind::Null | DstKind::Reg(_) | DstKind::Patch { .. } => {}
        DstKind::RegIndirect {
            base,
            len,
            offset,
            addr,
        } => {
            let a = regs[addr.reg as usize][(addr.chan & 3) as usize];
            for l in 0..LANES {
                if exec & (1 << l) == 0 {
                    continue;
                }
                let idx = offset as i64 + a[l] as i32 as i64;
                if idx >= 0 && idx < len as i64 {
                    let reg = &mut regs[base as usize + idx as usize];
                    for c in 0..4 {
                        if mask & (1 << c) != 0 {
                            reg[c][l] = v[c][l];
                        }
                    }
                }
            }
        }
    }
}

/// Lanes where two rows hold the same bits.
#[inline(always)]
pub fn eq_mask(a: &Row, b: &Row) -> Mask {
    let mut m: Mask = 0;
    for l in 0..LANES {
        m |= ((a[l] == b[l]) as Mask) << l;
    }
    m
}
