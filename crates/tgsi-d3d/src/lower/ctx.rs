//! The lowering context: the D3D program, its [`Layout`], the TGSI being
//! emitted, and the operand translation every instruction uses: a D3D
//! source becomes a TGSI source (register, swizzle, relative index through
//! an address register), modifiers are applied in the D3D opcode's type
//! (in a separate instruction when the TGSI opcode would read them in
//! another), destinations become TGSI destinations.

use std::collections::HashMap;

use super::emit::{Emitter, XYZW, dst, reg, select, src};
use super::layout::{Layout, RegMap, Special, error_at, imm_index};
use super::{LowerError, Signatures};
use crate::enums::{OperandModifier, RegisterFile};
use crate::ir::{Components, Index as D3dIndex, Operand, Program};
use crate::opcode::OperandKind;
use tgsi_ir::enums::{File, ImmType};
use tgsi_ir::ir::{DstOperand, Index, IndirectAddr, Register, SrcOperand};
use tgsi_ir::opcode::{Opcode, OperandType};

pub(super) type Result<T> = std::result::Result<T, LowerError>;

/// A subroutine: a D3D label, a function body, or a hull-shader phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubKey {
    Label(u32),
    Body(u32),
    Phase(usize),
}

/// The lowering state of one program.
pub struct Ctx<'a> {
    pub prog: &'a Program,
    pub sigs: &'a Signatures,
    pub lay: Layout,
    pub em: Emitter,
    /// Scope of the instruction being lowered (temps).
    pub scope: usize,
    /// Hull shaders: the phase being lowered writes patch constants.
    pub patch_phase: bool,
    /// The loop counter temp of the current fork/join phase.
    pub phase_counter: Option<u32>,
    /// Lowering the program's main body (a `ret` there ends the shader).
    pub in_main: bool,
    /// CAL instructions and the subroutine each calls.
    pub calls: Vec<(usize, SubKey)>,
    /// First instruction (BGNSUB) of each subroutine.
    pub subs: HashMap<SubKey, usize>,
    /// The whole-program temporary holding `SV[index].component << shift`
    /// (a structured address of a system value), by (index, component,
    /// shift): written only by that one instruction, so that
    /// the clean-up (`tidy`) drops its repeats where an earlier one dominates.
    pub invariant_addresses: HashMap<(i32, u8, u32), Register>,
}

/// Component numbers of a source operand's swizzle.
pub fn swizzle_of(c: Components) -> [u8; 4] {
    match c {
        Components::Swizzle(s) => s.map(|x| x & 3),
        Components::Select(c) => [c & 3; 4],
        Components::One | Components::None => [0; 4],
        Components::Mask(_) => XYZW,
    }
}

/// The write mask of a destination operand.
pub fn mask_of(c: Components) -> u8 {
    match c {
        Components::Mask(0) => 0xF,
        Components::Mask(m) => m & 0xF,
        Components::One | Components::None => 1,
        Components::Select(c) => 1 << (c & 3),
        Components::Swizzle(_) => 0xF,
    }
}

/// The D3D name of destination `op` lowered to TGSI register `r`: the
/// whole name (`r3`, `o0`, `x1[4]`, `oDepth`), or for a relative last
/// index the text before it with where the index starts (see
/// [`super::D3dDest::relative`]).
fn dest_name(op: &Operand, r: &Register) -> (String, Option<(i64, bool)>) {
    let file = op.file.name();
    let two_d = op.file == RegisterFile::IndexableTemp;
    let imm = |i: &D3dIndex| i.immediate();
    match op.indices.as_slice() {
        [] => (file.to_string(), None),
        [last] | [_, last] if last.relative().is_some() => {
            let prefix = match op.indices.as_slice() {
                [first, _] if two_d => format!("{file}{}", imm(first)),
                _ => file.to_string(),
            };
            let first = r.index.offset as i64 - imm(last) as i64;
            (prefix, Some((first, two_d)))
        }
        [only] => (format!("{file}{}", imm(only)), None),
        [first, last] if two_d => (format!("{file}{}[{}]", imm(first), imm(last)), None),
        [.., last] => (format!("{file}{}", imm(last)), None),
    }
}

/// How a D3D operand kind reads source modifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ModKind {
    Float,
    Int,
    Double,
}

fn mod_kind(k: OperandKind) -> ModKind {
    match k {
        OperandKind::Int | OperandKind::Uint => ModKind::Int,
        OperandKind::Double => ModKind::Double,
        _ => ModKind::Float,
    }
}

impl<'a> Ctx<'a> {
    pub fn new(prog: &'a Program, sigs: &'a Signatures) -> Result<Ctx<'a>> {
        let lay = Layout::build(prog, sigs)?;
        let mut em = Emitter::default();
        em.imms = Layout::imms_of(&lay);
        Ok(Ctx {
            prog,
            sigs,
            lay,
            em,
            scope: 0,
            patch_phase: false,
            phase_counter: None,
            in_main: true,
            calls: Vec::new(),
            subs: HashMap::new(),
            invariant_addresses: HashMap::new(),
        })
    }

    /// An error at the current D3D instruction.
    pub fn fail(&self, message: impl Into<String>) -> LowerError {
        error_at(self.prog, self.em.cur, message)
    }

    fn imm_type(kind: OperandKind) -> ImmType {
        match kind {
            OperandKind::Float => ImmType::Flt32,
            _ => ImmType::Uint32,
        }
    }

    /// Reads `op` without its modifiers.
    pub fn read(&mut self, op: &Operand, kind: OperandKind) -> Result<SrcOperand> {
        let s = swizzle_of(op.components);
        let r = match op.file {
            RegisterFile::Immediate32 => {
                let v = &op.values;
                let words = match v.len() {
                    1 => [v[0]; 4],
                    4 => [v[0], v[1], v[2], v[3]],
                    n => return Err(self.fail(format!("an immediate with {n} values"))),
                };
                return Ok(self.em.imm_vec(Self::imm_type(kind), words));
            }
            RegisterFile::Immediate64 => {
                let v = &op.values;
                let words = match v.len() {
                    2 => [v[0], v[1], v[0], v[1]],
                    4 => [v[0], v[1], v[2], v[3]],
                    n => return Err(self.fail(format!("a double immediate with {n} words"))),
                };
                return Ok(self.em.imm_vec(ImmType::Uint32, words));
            }
            _ => self.register(op, false)?,
        };
        Ok(src(r, s))
    }

    /// Reads `op` as source `slot` of TGSI opcode `tgsi`, applying its
    /// modifiers in the D3D operand's type.
    pub fn read_for(
        &mut self,
        op: &Operand,
        kind: OperandKind,
        tgsi: Opcode,
        slot: usize,
    ) -> Result<SrcOperand> {
        let want = match kind {
            OperandKind::Typeless => OperandType::Float,
            _ => tgsi.src_type(slot),
        };
        self.read_as(op, kind, want)
    }

    /// Reads `op` for an operand of TGSI type `want`.
    pub fn read_as(
        &mut self,
        op: &Operand,
        kind: OperandKind,
        want: OperandType,
    ) -> Result<SrcOperand> {
        let base = self.read(op, kind)?;
        let (abs, neg) = match op.modifier {
            OperandModifier::None => return Ok(base),
            OperandModifier::Neg => (false, true),
            OperandModifier::Abs => (true, false),
            OperandModifier::AbsNeg => (true, true),
        };
        let m = mod_kind(kind);
        let compatible = match m {
            ModKind::Float => matches!(want, OperandType::Float | OperandType::Untyped),
            ModKind::Int => want.is_integer(),
            ModKind::Double => want == OperandType::Double,
        };
        if compatible {
            let mut s = base;
            s.absolute = abs;
            s.negate = neg;
            return Ok(s);
        }
        self.apply_modifiers(base, m, abs, neg)
    }

    /// Computes `op` with modifiers into a scratch temporary.
    fn apply_modifiers(
        &mut self,
        base: SrcOperand,
        m: ModKind,
        abs: bool,
        neg: bool,
    ) -> Result<SrcOperand> {
        let t = self.em.scratch();
        match m {
            ModKind::Float => {
                let mut s = base;
                s.absolute = abs;
                s.negate = neg;
                self.em.mov(dst(t, 0xF), s, false);
            }
            ModKind::Int => {
                let mut cur = base;
                if abs {
                    self.em.op(Opcode::IABS, vec![dst(t, 0xF)], vec![cur]);
                    cur = src(t, XYZW);
                }
                if neg {
                    self.em.op(Opcode::INEG, vec![dst(t, 0xF)], vec![cur]);
                }
            }
            ModKind::Double => {
                let mut cur = base;
                if abs {
                    self.em.op(Opcode::DABS, vec![dst(t, 0xF)], vec![cur]);
                    cur = src(t, XYZW);
                }
                if neg {
                    self.em.op(Opcode::DNEG, vec![dst(t, 0xF)], vec![cur]);
                }
            }
        }
        Ok(src(t, XYZW))
    }

    /// The destination for `op`, or `None` for `null`.
    pub fn write(&mut self, op: &Operand) -> Result<Option<DstOperand>> {
        if op.file == RegisterFile::Null {
            return Ok(None);
        }
        let r = self.register(op, true)?;
        let (name, relative) = dest_name(op, &r);
        self.em.dests.push(super::D3dDest {
            instruction: self.em.cur,
            register: r,
            name,
            relative,
            scalar: matches!(op.components, Components::One | Components::None),
        });
        Ok(Some(dst(r, mask_of(op.components))))
    }

    /// A relative index's address register, loaded with the index value.
    fn address(&mut self, rel: &Operand, array: u32) -> Result<IndirectAddr> {
        let v = self.read_as(rel, OperandKind::Int, OperandType::Int)?;
        Ok(self.em.load_addr(select(&v, 0), array))
    }

    /// A TGSI index for a D3D index whose immediate part `k` maps to the
    /// TGSI index `map(k)`; relative parts go through an address register.
    fn index(
        &mut self,
        idx: &D3dIndex,
        array: u32,
        map: &dyn Fn(u32) -> Option<i64>,
    ) -> Result<Index> {
        let k = u32::try_from(idx.immediate())
            .map_err(|_| self.fail("a register index beyond 32 bits"))?;
        let offset =
            map(k).ok_or_else(|| self.fail(format!("register index {k} is not declared")))?;
        let offset = i32::try_from(offset).map_err(|_| self.fail("register index out of range"))?;
        match idx.relative() {
            None => Ok(Index::direct(offset)),
            Some(rel) => {
                let addr = self.address(rel, array)?;
                Ok(Index {
                    offset,
                    indirect: Some(addr),
                })
            }
        }
    }

    fn nth<'o>(&self, op: &'o Operand, n: usize) -> Result<&'o D3dIndex> {
        op.indices.get(n).ok_or_else(|| {
            self.fail(format!(
                "operand {} needs {} index(es)",
                op.file.name(),
                n + 1
            ))
        })
    }

    /// The TGSI index of the io register `r` of `file` (a mapped register
    /// or one inside a declared index range, at its affine position).
    fn io_lookup(&self, outputs: bool, file: RegisterFile, r: u32) -> Option<(RegMap, i64)> {
        let table = if outputs {
            &self.lay.outputs
        } else {
            &self.lay.inputs
        };
        if let Some(m) = table.get(&(file, r)) {
            return Some((*m, 0));
        }
        // A register inside an index range that has no declaration of its own.
        let range = self
            .lay
            .ranges
            .iter()
            .find(|x| x.file == file && r >= x.first && r < x.first + x.count)?;
        let m = table.get(&(file, range.first))?;
        Some((*m, r as i64 - range.first as i64))
    }

    /// Builds the TGSI register of a register operand.
    fn register(&mut self, op: &Operand, write: bool) -> Result<Register> {
        use RegisterFile as R;
        let file = op.file;
        match file {
            R::Temp => self.temp_register(op),
            R::IndexableTemp => self.indexable_temp_register(op),
            R::Input | R::InputPatchConstant | R::Output => self.io_register(op, write),
            R::InputControlPoint | R::OutputControlPoint => self.control_point_register(op),
            R::ConstantBuffer => self.constant_buffer_register(op),
            R::ImmediateConstantBuffer => self.icb_register(op),
            R::ThisPointer => self.this_pointer_register(op),
            R::OutputDepth
            | R::OutputDepthGreaterEqual
            | R::OutputDepthLessEqual
            | R::OutputCoverageMask
            | R::OutputStencilRef => match self.lay.outputs.get(&(file, 0)) {
                Some(RegMap::Temp { index, .. }) => Ok(reg(File::Temp, *index as i32)),
                _ => Err(self.fail(format!("{} is not declared", file.name()))),
            },
            _ => self.special_register(op, write),
        }
    }

    /// `r#`: the scope's temps.
    fn temp_register(&mut self, op: &Operand) -> Result<Register> {
        let scope = &self.lay.scopes[self.scope];
        let (base, count) = (scope.base, scope.count);
        let idx = self.nth(op, 0)?.clone();
        if idx.relative().is_some() {
            return Err(self.fail("a relatively indexed r# register"));
        }
        let n = imm_index(&idx).unwrap_or(u32::MAX);
        if n >= count {
            return Err(self.fail(format!("r{n} is beyond dcl_temps {count}")));
        }
        Ok(reg(File::Temp, (base + n) as i32))
    }

    /// `x#[i]`: a TEMP array.
    fn indexable_temp_register(&mut self, op: &Operand) -> Result<Register> {
        let x = imm_index(self.nth(op, 0)?)
            .ok_or_else(|| self.fail("x# with a relative register number"))?;
        let a = *self.lay.scopes[self.scope]
            .arrays
            .get(&x)
            .ok_or_else(|| self.fail(format!("x{x} is not declared")))?;
        let idx = self.nth(op, 1)?.clone();
        let direct = idx.relative().is_none();
        if direct && idx.immediate() >= a.len as u64 {
            return Err(self.fail(format!(
                "x{x}[{}] is beyond its {} registers",
                idx.immediate(),
                a.len
            )));
        }
        let first = a.first as i64;
        let index = self.index(&idx, a.id, &|k| Some(first + k as i64))?;
        Ok(Register {
            file: File::Temp,
            index,
            dimension: None,
        })
    }

    /// `v#`, `vpc#` and `o#` (per-vertex, patch constants, or through a temporary).
    fn io_register(&mut self, op: &Operand, write: bool) -> Result<Register> {
        use RegisterFile as R;
        let file = op.file;
        let outputs = file == R::Output;
        if outputs && !write && self.lay.processor != tgsi_ir::enums::Processor::TessCtrl {
            return Err(self.fail("an output register read as a source"));
        }
        if (file == R::InputPatchConstant || (outputs && self.patch_phase))
            && let Some(a) = self.lay.patch
        {
            let idx = self.nth(op, 0)?.clone();
            let first = a.first as i64;
            let len = a.len as u64;
            let index = self.index(&idx, a.id, &|k| {
                (k as u64 <= len).then_some(first + k as i64)
            })?;
            return Ok(Register {
                file: File::Temp,
                index,
                dimension: None,
            });
        }
        let two_d = op.indices.len() >= 2;
        let idx = self.nth(op, op.indices.len().saturating_sub(1))?.clone();
        let k = idx.immediate() as u32;
        let (m, delta) = self
            .io_lookup(outputs, file, k)
            .ok_or_else(|| self.fail(format!("{}{k} is not declared", file.name())))?;
        let (tfile, base, array) = match m {
            RegMap::Direct(f, i) | RegMap::PerVertex(f, i) => (f, i as i64 + delta, 0),
            RegMap::Temp { index, array } => (File::Temp, index as i64 + delta, array),
        };
        let index = self.index(&idx, array, &|v| Some(base + v as i64 - k as i64))?;
        let dimension = match m {
            RegMap::PerVertex(..) if outputs => {
                let inv = self
                    .lay
                    .invocation_sv
                    .ok_or_else(|| self.fail("per-vertex output outside a hull shader"))?;
                Some(Index {
                    offset: 0,
                    indirect: Some(IndirectAddr {
                        file: File::SystemValue,
                        index: inv as i32,
                        component: tgsi_ir::ir::Component::X,
                        array_id: 0,
                    }),
                })
            }
            RegMap::PerVertex(..) => {
                if !two_d {
                    return Err(self.fail("a per-vertex input without a vertex index"));
                }
                let v = self.nth(op, 0)?.clone();
                Some(self.index(&v, 0, &|x| Some(x as i64))?)
            }
            _ => None,
        };
        Ok(Register {
            file: tfile,
            index,
            dimension,
        })
    }

    /// `vicp[v][r]` and `vocp[v][r]`.
    fn control_point_register(&mut self, op: &Operand) -> Result<Register> {
        use RegisterFile as R;
        let file = op.file;
        let outputs = file == R::OutputControlPoint;
        let key_file = if outputs {
            R::Output
        } else {
            R::InputControlPoint
        };
        let idx = self.nth(op, 1)?.clone();
        let k = idx.immediate() as u32;
        let (m, delta) = self
            .io_lookup(outputs, key_file, k)
            .ok_or_else(|| self.fail(format!("{}[..][{k}] is not declared", file.name())))?;
        let RegMap::PerVertex(tfile, base) = m else {
            return Err(self.fail(format!("{} register {k} is not per-vertex", file.name())));
        };
        let base = base as i64 + delta;
        let index = self.index(&idx, 0, &|v| Some(base + v as i64 - k as i64))?;
        let v = self.nth(op, 0)?.clone();
        let dimension = Some(self.index(&v, 0, &|x| Some(x as i64))?);
        Ok(Register {
            file: tfile,
            index,
            dimension,
        })
    }

    /// `cb#[i]` (SM5.1: a range of buffers).
    fn constant_buffer_register(&mut self, op: &Operand) -> Result<Register> {
        let sm51 = self.lay.sm51;
        let id_idx = self.nth(op, 0)?.clone();
        let (reg_idx, vec_idx) = if sm51 {
            (self.nth(op, 1)?.clone(), self.nth(op, 2)?.clone())
        } else {
            (id_idx.clone(), self.nth(op, 1)?.clone())
        };
        let id = imm_index(&id_idx);
        let dimension = match (sm51, id) {
            (true, Some(id)) => {
                let m = *self
                    .lay
                    .res
                    .get(&(super::layout::ResKind::Cb, id))
                    .ok_or_else(|| self.fail(format!("CB{id} is not declared")))?;
                let (base, first) = (m.base as i64, m.first as i64);
                self.index(&reg_idx, 0, &|r| Some(base + r as i64 - first))?
            }
            (true, None) => return Err(self.fail("a relative constant-buffer range id")),
            (false, _) => {
                // cb[r + k]: the buffer index itself (this-pointer calls)
                self.index(&reg_idx, 0, &|r| Some(r as i64))?
            }
        };
        let index = self.index(&vec_idx, 0, &|v| Some(v as i64))?;
        Ok(Register {
            file: File::Const,
            index,
            dimension: Some(dimension),
        })
    }

    /// `icb[i]`: immediates after the program's own.
    fn icb_register(&mut self, op: &Operand) -> Result<Register> {
        let n = self.lay.icb.len() as u64;
        if n == 0 {
            return Err(self.fail("icb read without an immediate constant buffer"));
        }
        let idx = self.nth(op, 0)?.clone();
        if idx.relative().is_none() && idx.immediate() >= n {
            return Err(self.fail(format!(
                "icb[{}] is beyond its {n} vectors",
                idx.immediate()
            )));
        }
        let index = self.index(&idx, 0, &|v| Some(super::emit::ICB_BASE as i64 + v as i64))?;
        Ok(Register {
            file: File::Immediate,
            index,
            dimension: None,
        })
    }

    /// `this[i]`: the interfaces' constant buffer.
    fn this_pointer_register(&mut self, op: &Operand) -> Result<Register> {
        let slots = self.lay.interfaces.slots as i64;
        let cb = self.lay.interfaces.cb;
        let idx = self.nth(op, 0)?.clone();
        let index = self.index(&idx, 0, &|v| Some(slots + v as i64))?;
        Ok(Register {
            file: File::Const,
            index,
            dimension: Some(Index::direct(cb as i32)),
        })
    }

    /// Registers with a fixed TGSI form (system values, temps the prologue fills, the fork/join instance counter, the clock).
    fn special_register(&mut self, op: &Operand, write: bool) -> Result<Register> {
        let file = op.file;
        let special = *self.lay.specials.get(&file).ok_or_else(|| {
            self.fail(format!(
                "register {} is not declared or has no TGSI form",
                file.name()
            ))
        })?;
        if write {
            return Err(self.fail(format!("{} cannot be written", file.name())));
        }
        match special {
            Special::Sv(k) => Ok(reg(File::SystemValue, k as i32)),
            Special::Temp(t) => Ok(reg(File::Temp, t as i32)),
            Special::PhaseInstance => match self.phase_counter {
                Some(t) => Ok(reg(File::Temp, t as i32)),
                None => Err(self.fail(format!("{} outside a fork or join phase", file.name()))),
            },
            Special::Clock => {
                let t = self.em.scratch();
                self.em.op(Opcode::CLOCK, vec![dst(t, 0x3)], vec![]);
                Ok(t)
            }
        }
    }

    /// True when writing `d` may change what one of `srcs` reads (same
    /// register, or any relative index).
    pub fn overlaps(d: &Operand, srcs: &[&Operand]) -> bool {
        let key = |o: &Operand| -> Option<(RegisterFile, Vec<u64>)> {
            if o.indices.iter().any(|i| i.relative().is_some()) {
                return None;
            }
            Some((o.file, o.indices.iter().map(|i| i.immediate()).collect()))
        };
        let dk = key(d);
        srcs.iter().any(|s| {
            if s.indices.iter().any(|i| i.relative().is_some()) || dk.is_none() {
                return s.file == d.file
                    || (d.file == RegisterFile::IndexableTemp
                        && s.file == RegisterFile::IndexableTemp);
            }
            let sk = key(s);
            sk.as_ref().map(|k| &k.0) == dk.as_ref().map(|k| &k.0)
                && sk.as_ref().map(|k| &k.1) == dk.as_ref().map(|k| &k.1)
        })
    }
}

impl Layout {
    /// Moves the layout's immediates out (the emitter continues the pool).
    pub fn imms_of(lay: &Layout) -> super::emit::ImmPool {
        super::emit::ImmPool {
            entries: lay.imms.entries.clone(),
        }
    }
}
