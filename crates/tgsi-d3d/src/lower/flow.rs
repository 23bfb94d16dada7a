//! Program structure and control flow: the main body, subroutines (`label`
//! → BGNSUB/ENDSUB, `call`/`callc` → CAL), hull-shader phases (each a
//! subroutine the main body calls: the control-point phase per invocation,
//! then after a BARRIER invocation 0 runs every fork/join phase once per
//! phase instance and copies the patch constants out), conditionals with
//! integer tests (UIF; `_z` through USEQ), switch, discard, returns (with the
//! output flush), geometry emits, sync, and interface calls (a SWITCH over
//! the bodies the interface's function tables name).

use super::ctx::{Ctx, Result, SubKey};
use super::emit::{dst, reg, scalar_src, select, src};
use super::layout::imm_index;
use crate::enums::{ProgramType, RegisterFile, SyncFlags, Test};
use crate::ir::{Instruction as D3dInst, Payload};
use crate::opcode::{OpFlags, Opcode as D, OperandKind};
use tgsi_ir::enums::{File, Processor};
use tgsi_ir::ir::{Index, Register, SrcOperand};
use tgsi_ir::opcode::Opcode as T;

/// A run of D3D instructions lowered as one unit.
struct Segment {
    key: Option<SubKey>,
    /// The marker instruction (label or phase).
    at: usize,
    start: usize,
    end: usize,
}

fn segments(ctx: &Ctx) -> Result<(Segment, Vec<Segment>)> {
    let insts = &ctx.prog.instructions;
    let hull = ctx.prog.version.program_type == ProgramType::Hull;
    let mut main = Segment {
        key: None,
        at: 0,
        start: 0,
        end: insts.len(),
    };
    let mut subs: Vec<Segment> = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        let key = match inst.opcode {
            D::Label => {
                let op = inst
                    .operands
                    .first()
                    .ok_or_else(|| ctx.fail("label without a label operand"))?;
                let n = op
                    .indices
                    .first()
                    .and_then(imm_index)
                    .ok_or_else(|| ctx.fail("label without a number"))?;
                Some(if op.file == RegisterFile::FunctionBody {
                    SubKey::Body(n)
                } else {
                    SubKey::Label(n)
                })
            }
            D::HsControlPointPhase | D::HsForkPhase | D::HsJoinPhase if hull => {
                Some(SubKey::Phase(i))
            }
            _ => None,
        };
        if let Some(key) = key {
            if let Some(last) = subs.last_mut() {
                last.end = i;
            } else {
                main.end = i;
            }
            subs.push(Segment {
                key: Some(key),
                at: i,
                start: i + 1,
                end: insts.len(),
            });
        }
    }
    Ok((main, subs))
}

/// Lowers the whole program into `ctx.em`.
pub fn lower_program(ctx: &mut Ctx) -> Result<()> {
    let (main, subs) = segments(ctx)?;
    let prologue = std::mem::take(&mut ctx.lay.prologue);
    for (at, inst) in prologue {
        ctx.em.begin(at);
        ctx.em.push(inst);
    }
    ctx.in_main = true;
    ctx.scope = 0;
    if ctx.prog.version.program_type == ProgramType::Hull {
        // hs_decls holds declarations only
        for i in main.start..main.end {
            ctx.em.begin(i);
            ctx.scope = ctx.lay.scope_of[i];
            ctx.instruction(i, false)?;
        }
        hull_main(ctx, &subs)?;
    } else {
        let mut ended = false;
        let mut depth = 0i32;
        for i in main.start..main.end {
            let inst = &ctx.prog.instructions[i];
            let info = inst.opcode.info();
            if info.flags.contains(OpFlags::DEDENT) {
                depth -= 1;
            }
            if info.flags.contains(OpFlags::INDENT) {
                depth += 1;
            }
            let last = depth == 0 && inst.opcode == D::Ret && i + 1 == main.end;
            ctx.em.begin(i);
            ctx.scope = ctx.lay.scope_of[i];
            ctx.instruction(i, last)?;
            ended |= last;
        }
        if !ended {
            let at = main.end.saturating_sub(1);
            ctx.em.begin(at);
            emit_flush(ctx, 0);
            ctx.em.op(T::END, vec![], vec![]);
        }
    }
    ctx.in_main = false;
    for seg in &subs {
        let Some(key) = seg.key else {
            continue;
        };
        ctx.em.begin(seg.at);
        ctx.subs.insert(key, ctx.em.insts.len());
        let marker = ctx.prog.instructions[seg.at].opcode;
        ctx.patch_phase = matches!(marker, D::HsForkPhase | D::HsJoinPhase);
        ctx.em.op(T::BGNSUB, vec![], vec![]);
        for i in seg.start..seg.end {
            ctx.em.begin(i);
            ctx.scope = ctx.lay.scope_of[i];
            ctx.instruction(i, false)?;
        }
        ctx.em.begin(seg.end.saturating_sub(1).max(seg.at));
        ctx.em.op(T::ENDSUB, vec![], vec![]);
    }
    Ok(())
}

/// The hull shader's main body: the control-point phase, a barrier, then in
/// invocation 0 each fork/join phase for each of its instances and the
/// patch-constant copies.
fn hull_main(ctx: &mut Ctx, phases: &[Segment]) -> Result<()> {
    let insts = &ctx.prog.instructions;
    let inv = ctx.lay.invocation_sv;
    let mut first_patch: Option<usize> = None;
    for seg in phases {
        if insts[seg.at].opcode == D::HsControlPointPhase {
            ctx.em.begin(seg.at);
            if let Some(key) = seg.key {
                call(ctx, key);
            }
        }
    }
    let patch_phases: Vec<&Segment> = phases
        .iter()
        .filter(|s| matches!(insts[s.at].opcode, D::HsForkPhase | D::HsJoinPhase))
        .collect();
    if let Some(first) = patch_phases.first() {
        first_patch = Some(first.at);
        // the scheduling of the phases stands for no Direct3D instruction:
        // each phase is its CAL
        ctx.em.begin(first.at);
        ctx.em.added();
        ctx.em.op(T::BARRIER, vec![], vec![]);
        let inv = inv.ok_or_else(|| ctx.fail("hull shader without an invocation id"))?;
        let c = ctx.em.scratch();
        let zero = ctx.em.imm_u(0);
        ctx.em.op(
            T::USEQ,
            vec![dst(c, 1)],
            vec![scalar_src(reg(File::SystemValue, inv as i32), 0), zero],
        );
        ctx.em.op(T::UIF, vec![], vec![scalar_src(c, 0)]);
        let counter = ctx.lay.persistent_temp();
        ctx.phase_counter = Some(counter);
        let cnt = reg(File::Temp, counter as i32);
        for seg in &patch_phases {
            ctx.em.begin(seg.at);
            ctx.em.added();
            let count = insts[seg.start..seg.end]
                .iter()
                .find_map(|i| match (i.opcode, &i.payload) {
                    (
                        D::DclHsForkPhaseInstanceCount | D::DclHsJoinPhaseInstanceCount,
                        Payload::Count(n),
                    ) => Some(*n),
                    _ => None,
                })
                .unwrap_or(1);
            let zero = ctx.em.imm_u(0);
            ctx.em.mov(dst(cnt, 1), zero, false);
            let Some(key) = seg.key else {
                continue;
            };
            if count == 1 {
                ctx.em.cur = seg.at;
                call(ctx, key);
                continue;
            }
            let n = ctx.em.imm_u(count);
            let one = ctx.em.imm_u(1);
            let done = ctx.em.scratch();
            ctx.em.op(T::BGNLOOP, vec![], vec![]);
            ctx.em
                .op(T::USGE, vec![dst(done, 1)], vec![scalar_src(cnt, 0), n]);
            ctx.em.op(T::UIF, vec![], vec![scalar_src(done, 0)]);
            ctx.em.op(T::BRK, vec![], vec![]);
            ctx.em.op(T::ENDIF, vec![], vec![]);
            ctx.em.cur = seg.at;
            call(ctx, key);
            ctx.em.added();
            ctx.em
                .op(T::UADD, vec![dst(cnt, 1)], vec![scalar_src(cnt, 0), one]);
            ctx.em.op(T::ENDLOOP, vec![], vec![]);
        }
        let flush = std::mem::take(&mut ctx.lay.patch_flush);
        for (at, inst) in flush {
            ctx.em.begin(at);
            ctx.em.push(inst);
        }
        ctx.em.begin(first.at);
        ctx.em.added();
        ctx.em.op(T::ENDIF, vec![], vec![]);
    }
    let at = first_patch.or(phases.last().map(|s| s.at)).unwrap_or(0);
    ctx.em.begin(at);
    ctx.em.added();
    ctx.em.op(T::END, vec![], vec![]);
    Ok(())
}

/// CAL to a subroutine (its label is filled in by `finish`).
fn call(ctx: &mut Ctx, key: SubKey) {
    ctx.calls.push((ctx.em.insts.len(), key));
    ctx.em.op(T::CAL, vec![], vec![]);
}

/// Copies the outputs that live in temporaries to their TGSI outputs.
fn emit_flush(ctx: &mut Ctx, stream: u32) {
    let Some(list) = ctx.lay.flush.get(&stream) else {
        return;
    };
    for (_, inst) in list.clone() {
        ctx.em.push(inst);
    }
}

impl Ctx<'_> {
    /// Lowers D3D instruction `i`; `last` marks the final `ret` of the
    /// main body (it becomes END).
    pub fn instruction(&mut self, i: usize, last: bool) -> Result<()> {
        let inst = &self.prog.instructions[i];
        let info = inst.opcode.info();
        if info.flags.contains(OpFlags::PRECISE) {
            self.em.precise = inst.controls.precise != 0;
        }
        if inst.opcode.is_declaration()
            || info.flags.intersects(OpFlags::CUSTOM_DATA | OpFlags::PHASE)
        {
            return Ok(());
        }
        if info.flags.contains(OpFlags::RESERVED) {
            return Err(self.fail("a reserved opcode"));
        }
        if self.flow(inst, last)? || self.alu(inst)? || self.resource(inst)? {
            return Ok(());
        }
        Err(self.fail(format!("`{}` has no TGSI lowering", inst.opcode.name())))
    }

    /// A condition operand as a UIF source: the value itself (`_nz`) or
    /// whether it is 0 (`_z`).
    fn condition(&mut self, inst: &D3dInst) -> Result<SrcOperand> {
        let c = self.source(inst, 0, T::UIF, 0)?;
        let c = select(&c, 0);
        if inst.controls.test.0 == Test::NonZero {
            return Ok(c);
        }
        let t = self.em.scratch();
        let zero = self.em.imm_u(0);
        self.em.op(T::USEQ, vec![dst(t, 1)], vec![c, zero]);
        Ok(scalar_src(t, 0))
    }

    fn ret(&mut self, last: bool) {
        // geometry shaders flush before each EMIT: outputs after the last
        // one are discarded
        if self.in_main && self.lay.processor != Processor::Geometry {
            emit_flush(self, 0);
        }
        if self.in_main && last {
            self.em.op(T::END, vec![], vec![]);
            return;
        }
        self.em.op(T::RET, vec![], vec![]);
    }

    fn stream_of(&self, inst: &D3dInst) -> Result<u32> {
        inst.operands
            .first()
            .and_then(|o| o.indices.first())
            .and_then(imm_index)
            .ok_or_else(|| self.fail("stream operand without a number"))
    }

    fn emit_vertex(&mut self, stream: u32) {
        emit_flush(self, stream);
        let s = self.em.imm_u(stream);
        self.em.op(T::EMIT, vec![], vec![s]);
    }

    fn end_primitive(&mut self, stream: u32) {
        let s = self.em.imm_u(stream);
        self.em.op(T::ENDPRIM, vec![], vec![s]);
    }

    /// The subroutine a label operand names.
    fn label_key(&self, inst: &D3dInst, n: usize) -> Result<SubKey> {
        let op = self.operand(inst, n)?;
        let k = op
            .indices
            .first()
            .and_then(imm_index)
            .ok_or_else(|| self.fail("a label without a number"))?;
        Ok(if op.file == RegisterFile::FunctionBody {
            SubKey::Body(k)
        } else {
            SubKey::Label(k)
        })
    }

    /// Control-flow instructions; false when `inst` is not one.
    fn flow(&mut self, inst: &D3dInst, last: bool) -> Result<bool> {
        match inst.opcode {
            D::If => {
                let c = self.condition(inst)?;
                self.em.op(T::UIF, vec![], vec![c]);
            }
            D::Else => self.em.op(T::ELSE, vec![], vec![]),
            D::EndIf => self.em.op(T::ENDIF, vec![], vec![]),
            D::Loop => self.em.op(T::BGNLOOP, vec![], vec![]),
            D::EndLoop => self.em.op(T::ENDLOOP, vec![], vec![]),
            D::Break => self.em.op(T::BRK, vec![], vec![]),
            D::Continue => self.em.op(T::CONT, vec![], vec![]),
            D::Breakc | D::Continuec | D::Retc | D::Discard | D::Callc => {
                let c = self.condition(inst)?;
                self.em.op(T::UIF, vec![], vec![c]);
                match inst.opcode {
                    D::Breakc => self.em.op(T::BRK, vec![], vec![]),
                    D::Continuec => self.em.op(T::CONT, vec![], vec![]),
                    D::Retc => self.ret(false),
                    D::Discard => self.em.op(T::KILL, vec![], vec![]),
                    _ => {
                        let key = self.label_key(inst, 1)?;
                        self.check_sub(key)?;
                        call(self, key);
                    }
                }
                self.em.op(T::ENDIF, vec![], vec![]);
            }
            D::Ret => self.ret(last),
            D::Call => {
                let key = self.label_key(inst, 0)?;
                self.check_sub(key)?;
                call(self, key);
            }
            D::Switch => {
                let s = self.source(inst, 0, T::SWITCH, 0)?;
                self.em.op(T::SWITCH, vec![], vec![select(&s, 0)]);
            }
            D::Case => {
                let s = self.source(inst, 0, T::CASE, 0)?;
                self.em.op(T::CASE, vec![], vec![select(&s, 0)]);
            }
            D::Default => self.em.op(T::DEFAULT, vec![], vec![]),
            D::EndSwitch => self.em.op(T::ENDSWITCH, vec![], vec![]),
            D::Nop | D::Abort | D::DebugBreak => self.em.op(T::NOP, vec![], vec![]),
            D::Emit => self.emit_vertex(0),
            D::Cut => self.end_primitive(0),
            D::EmitThenCut => {
                self.emit_vertex(0);
                self.end_primitive(0);
            }
            D::EmitStream => {
                let s = self.stream_of(inst)?;
                self.emit_vertex(s);
            }
            D::CutStream => {
                let s = self.stream_of(inst)?;
                self.end_primitive(s);
            }
            D::EmitThenCutStream => {
                let s = self.stream_of(inst)?;
                self.emit_vertex(s);
                self.end_primitive(s);
            }
            D::Sync => self.sync(inst.controls.sync)?,
            D::InterfaceCall => self.interface_call(inst)?,
            D::Label => return Err(self.fail("a label inside a hull-shader phase")),
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn check_sub(&self, key: SubKey) -> Result<()> {
        let exists = self.prog.instructions.iter().any(|i| {
            i.opcode == D::Label
                && i.operands.first().is_some_and(|o| {
                    let k = o.indices.first().and_then(imm_index);
                    match key {
                        SubKey::Label(n) => o.file == RegisterFile::Label && k == Some(n),
                        SubKey::Body(n) => o.file == RegisterFile::FunctionBody && k == Some(n),
                        SubKey::Phase(_) => false,
                    }
                })
        });
        if exists {
            Ok(())
        } else {
            Err(self.fail("call to a label the program does not define"))
        }
    }

    /// sync: MEMBAR for the memory fences, BARRIER for `_t`.
    fn sync(&mut self, flags: SyncFlags) -> Result<()> {
        let mut bits = 0u32;
        if flags.contains(SyncFlags::THREAD_GROUP_SHARED_MEMORY) {
            bits |= 8; // SHARED
        }
        if flags.intersects(SyncFlags::UAV_MEMORY_GROUP | SyncFlags::UAV_MEMORY_GLOBAL) {
            bits |= 1 | 4; // SHADER_BUFFER | SHADER_IMAGE
        }
        if bits != 0 {
            let m = self.em.imm_u(bits);
            self.em.op(T::MEMBAR, vec![], vec![m]);
        }
        if flags.contains(SyncFlags::THREADS_IN_GROUP) {
            if !matches!(self.lay.processor, Processor::Compute | Processor::TessCtrl) {
                return Err(self.fail("a thread-group barrier outside a compute shader"));
            }
            self.em.op(T::BARRIER, vec![], vec![]);
        }
        Ok(())
    }

    /// fcall fp#[i][call site]: a SWITCH on the slot's function-table
    /// selector, one CASE per table of the interface calling the body that
    /// table names for this call site.
    fn interface_call(&mut self, inst: &D3dInst) -> Result<()> {
        let op = self.operand(inst, 0)?;
        let site = match inst.payload {
            Payload::CallSite(s) => s,
            _ => return Err(self.fail("fcall without a call site")),
        };
        let fp = op
            .indices
            .first()
            .and_then(imm_index)
            .ok_or_else(|| self.fail("fcall without an interface number"))?;
        let (tables, size) = self
            .lay
            .interfaces
            .interfaces
            .get(&fp)
            .cloned()
            .ok_or_else(|| self.fail(format!("fp{fp} is not declared")))?;
        let cb = self.lay.interfaces.cb;
        let index = match op.indices.get(1) {
            None => Index::direct(fp as i32),
            Some(ix) => {
                if ix.relative().is_none() && ix.immediate() >= size as u64 {
                    return Err(self.fail(format!(
                        "fp{fp}[{}] is beyond its {size} slots",
                        ix.immediate()
                    )));
                }
                let k = ix.immediate() as i32 + fp as i32;
                match ix.relative() {
                    None => Index::direct(k),
                    Some(rel) => {
                        let v =
                            self.read_as(rel, OperandKind::Int, tgsi_ir::opcode::OperandType::Int)?;
                        let addr = self.em.load_addr(select(&v, 0), 0);
                        Index {
                            offset: k,
                            indirect: Some(addr),
                        }
                    }
                }
            }
        };
        let selector = Register {
            file: File::Const,
            index,
            dimension: Some(Index::direct(cb as i32)),
        };
        self.em.op(T::SWITCH, vec![], vec![src(selector, [0; 4])]);
        for (j, table) in tables.iter().enumerate() {
            let bodies = self
                .lay
                .interfaces
                .tables
                .get(table)
                .cloned()
                .ok_or_else(|| self.fail(format!("ft{table} is not declared")))?;
            let body = *bodies
                .get(site as usize)
                .ok_or_else(|| self.fail(format!("ft{table} has no body for call site {site}")))?;
            let case = self.em.imm_u(j as u32);
            self.em.op(T::CASE, vec![], vec![case]);
            let key = SubKey::Body(body);
            self.check_sub(key)?;
            call(self, key);
            self.em.op(T::BRK, vec![], vec![]);
        }
        self.em.op(T::ENDSWITCH, vec![], vec![]);
        Ok(())
    }
}
