//! Declarations → register maps: which TGSI register (or temporary) each
//! D3D register becomes, the TGSI declarations and properties, the input
//! prologue (inputs that need a conversion or that several TGSI inputs
//! share), the output flushes (outputs written through a temporary), the
//! resource bindings and the input/output table.
//!
//! Rules (see `docs/d3d-lowering.md`):
//! * `r#` of each scope (the program; each hull-shader phase) get their own
//!   range of `TEMP`s; `x#[n]` become `TEMP` arrays with an `ARRAY` id.
//! * An input/output register maps straight to one TGSI register (same
//!   number, same components) when one declaration of one kind covers it;
//!   otherwise (several kinds packed into one register, `SV_IsFrontFace`,
//!   the `oDepth`-like outputs, hull-shader patch constants, domain-shader
//!   patch constants, geometry shaders with several streams) it is a
//!   temporary, filled by the prologue or copied to its TGSI outputs by a
//!   flush. A `dcl_indexrange` whose registers include one such
//!   temporary becomes one `TEMP` array.
//! * User semantics become `GENERIC[n]` with n the TGSI register number.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::emit::{ImmPool, dst, reg, scalar_src, src};
use super::{Binding, D3dSlot, IoComponent, LowerError, Signatures, Tessellator};
use crate::enums::{
    GlobalFlags, InputPrimitive, Interpolation, PrimitiveTopology, ProgramType, RegisterFile,
    ResourceDimension, ReturnType as D3dReturn, SamplerMode, SystemValue,
};
use crate::ir::{
    Components, CustomData, Index as D3dIndex, Instruction as D3dInst, Operand, Payload, Program,
};
use crate::opcode::Opcode as D;
use crate::signature::NO_REGISTER;
use tgsi_ir::enums::{
    File, ImmType, InterpLocation, InterpMode, MemType, PipeFormat, Primitive, Processor,
    PropertyName, ReturnType, SemanticName, TextureTarget,
};
use tgsi_ir::ir::{
    Declaration, ImageDecl, Instruction, Interp, Property, SamplerViewDecl, Semantic, WriteMask,
};
use tgsi_ir::opcode::Opcode;

/// Where a D3D input/output register lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegMap {
    /// That TGSI register, same components.
    Direct(File, u32),
    /// `File[vertex][index]` (geometry and tessellation per-vertex data).
    PerVertex(File, u32),
    /// A temporary (inside `ARRAY(array)` when `array` is not 0).
    Temp { index: u32, array: u32 },
}

/// A `TEMP` array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TempArray {
    pub first: u32,
    pub len: u32,
    pub id: u32,
}

/// The temporaries of one scope (the program, or one hull-shader phase).
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub base: u32,
    pub count: u32,
    pub arrays: HashMap<u32, TempArray>,
}

/// D3D registers that are not `v#`/`o#`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// `SV[index]`.
    Sv(u32),
    /// A temporary the prologue fills.
    Temp(u32),
    /// `vForkInstanceID` / `vJoinInstanceID`: the loop counter of the phase.
    PhaseInstance,
    /// `vCycleCounter`: read with CLOCK.
    Clock,
}

/// The kinds of resource slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResKind {
    Cb,
    Texture,
    Sampler,
    Uav,
    Tgsm,
}

/// What a resource slot (range) became.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResMap {
    pub file: File,
    /// TGSI index of the range's first register.
    pub base: u32,
    /// The range's first D3D register.
    pub first: u32,
    pub dimension: ResourceDimension,
    pub target: TextureTarget,
    /// Structure stride (structured buffers).
    pub stride: u32,
    /// Byte offset in MEMORY[0] (g#).
    pub byte_offset: u32,
    pub byte_size: u32,
    pub comparison: bool,
    pub return_type: ReturnType,
}

/// A `dcl_indexrange`.
#[derive(Clone, Copy, Debug)]
pub struct IndexRange {
    pub file: RegisterFile,
    pub first: u32,
    pub count: u32,
    /// The range belongs to a hull-shader fork/join phase.
    pub patch: bool,
}

/// Class linkage tables.
#[derive(Clone, Debug, Default)]
pub struct Interfaces {
    /// `CONST[cb]` holds the selectors and `this` rows.
    pub cb: u32,
    pub slots: u32,
    /// `ft#` → bodies.
    pub tables: HashMap<u32, Vec<u32>>,
    /// `fp#` → (tables, array size).
    pub interfaces: HashMap<u32, (Vec<u32>, u32)>,
}

/// Everything the declarations decide.
#[derive(Debug)]
pub struct Layout {
    pub processor: Processor,
    pub program_type: ProgramType,
    pub sm51: bool,
    /// Scope of each D3D instruction.
    pub scope_of: Vec<usize>,
    pub scopes: Vec<Scope>,
    /// `r#` of all scopes: TEMP[0..plain_temps).
    pub plain_temps: u32,
    pub arrays: Vec<TempArray>,
    pub next_temp: u32,
    pub next_array_id: u32,
    pub inputs: HashMap<(RegisterFile, u32), RegMap>,
    pub outputs: HashMap<(RegisterFile, u32), RegMap>,
    /// Hull shaders: the patch-constant outputs; domain shaders: the
    /// patch-constant inputs (one TEMP array indexed by register).
    pub patch: Option<TempArray>,
    pub specials: HashMap<RegisterFile, Special>,
    pub ranges: Vec<IndexRange>,
    pub decls: Vec<Declaration>,
    pub props: Vec<Property>,
    /// Filled before the first instruction of the program.
    pub prologue: Vec<(usize, Instruction)>,
    /// Output copies: stream 0 at every exit of the program (all stages
    /// but geometry), and before each EMIT of its stream (geometry).
    pub flush: BTreeMap<u32, Vec<(usize, Instruction)>>,
    /// Hull shaders: patch constants copied to their outputs at the end.
    pub patch_flush: Vec<(usize, Instruction)>,
    pub res: HashMap<(ResKind, u32), ResMap>,
    pub bindings: Vec<Binding>,
    /// Immediate constant buffer rows (4 words each).
    pub icb: Vec<[u32; 4]>,
    /// `u#` range id → BUFFER holding its hidden counter.
    pub counters: HashMap<u32, u32>,
    /// (t range, t register, s range, s register) → SAMP slot for TG4.
    pub combined: HashMap<(u32, u32, u32, u32), u32>,
    pub interfaces: Interfaces,
    pub thread_group: [u32; 3],
    pub io_in: Vec<IoComponent>,
    pub io_out: Vec<IoComponent>,
    pub tessellator: Option<Tessellator>,
    /// SV index of INVOCATIONID in a hull shader (control-point outputs
    /// are written at `OUT[SV[k].x][n]`).
    pub invocation_sv: Option<u32>,
    pub output_control_points: u32,
    /// Geometry shaders: the stream each EMIT without one uses.
    pub gs_multistream: bool,
    /// Immediates the prologue and flushes use.
    pub imms: ImmPool,
    pub depth_layout: Option<u32>,
}

type Result<T> = std::result::Result<T, LowerError>;

/// Most temporaries a lowered shader may use (TGSI register indices are
/// 16-bit signed).
pub const MAX_TEMPS: u32 = 32767;

/// One `dcl_input*`/`dcl_output*`.
#[derive(Clone, Debug)]
struct IoDecl {
    at: usize,
    file: RegisterFile,
    /// Register number (the last index).
    reg: u32,
    mask: u8,
    sv: SystemValue,
    interp: Interpolation,
    /// Hull shaders: declared in a fork/join phase.
    patch: bool,
    stream: u32,
}

/// Semantics TGSI keeps in `.x` of their register (D3D may pack them in
/// any component).
fn scalar_semantic(t: Target) -> bool {
    matches!(
        t,
        Target::In(
            Some((SemanticName::Layer | SemanticName::ViewportIndex, _)),
            _
        ) | Target::Out(
            SemanticName::Layer | SemanticName::ViewportIndex | SemanticName::PrimId,
            _
        )
    )
}

/// The first component of a mask.
fn first_component(mask: u8) -> u8 {
    (mask.trailing_zeros() as u8).min(3)
}

/// A piece of an output register: mask, target, declaring instruction.
type Piece = (u8, Target, usize);

/// What a piece of a register becomes on the TGSI side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    In(Option<(SemanticName, u32)>, Option<Interp>),
    Sv(SemanticName),
    Face,
    Out(SemanticName, u32),
}

pub fn err(message: impl Into<String>) -> LowerError {
    LowerError {
        instruction: None,
        text: String::new(),
        message: message.into(),
    }
}

pub fn at_err(program: &Program, i: usize, message: impl Into<String>) -> LowerError {
    let text = program
        .instructions
        .get(i)
        .map(|inst| {
            crate::print::print_instruction(inst, program.version, &Default::default())
                .lines()
                .next()
                .unwrap_or("")
                .trim_end()
                .to_string()
        })
        .unwrap_or_default();
    LowerError {
        instruction: Some(i),
        text,
        message: message.into(),
    }
}

pub use at_err as error_at;

/// The immediate value of an index, if it is one.
pub fn imm_index(i: &D3dIndex) -> Option<u32> {
    match i {
        D3dIndex::Imm32(v) => Some(*v),
        D3dIndex::Imm64(v) => u32::try_from(*v).ok(),
        _ => None,
    }
}

/// The component mask an operand declares (all four when it has none).
pub fn declared_mask(op: &Operand) -> u8 {
    match op.components {
        Components::Mask(m) if m != 0 => m,
        Components::Mask(_) => 0xF,
        Components::One => 1,
        Components::None => 1,
        Components::Swizzle(_) => 0xF,
        Components::Select(c) => 1 << (c & 3),
    }
}

fn processor_of(p: &Program) -> Processor {
    match p.version.program_type {
        ProgramType::Pixel => Processor::Fragment,
        ProgramType::Vertex => Processor::Vertex,
        ProgramType::Geometry => Processor::Geometry,
        ProgramType::Hull => Processor::TessCtrl,
        ProgramType::Domain => Processor::TessEval,
        ProgramType::Compute => Processor::Compute,
        ProgramType::Library => {
            // A library function runs in the stage that links it; it is
            // lowered as a pixel shader when it needs one, else as a
            // vertex shader.
            let pixel_only = p.instructions.iter().any(|i| {
                matches!(
                    i.opcode,
                    D::Discard
                        | D::DerivRtx
                        | D::DerivRty
                        | D::DerivRtxCoarse
                        | D::DerivRtxFine
                        | D::DerivRtyCoarse
                        | D::DerivRtyFine
                        | D::EvalCentroid
                        | D::EvalSampleIndex
                        | D::EvalSnapped
                        | D::DclInputPs
                        | D::DclInputPsSgv
                        | D::DclInputPsSiv
                )
            });
            if pixel_only {
                Processor::Fragment
            } else {
                Processor::Vertex
            }
        }
    }
}

fn interp_of(i: Interpolation) -> Option<Interp> {
    let (mode, location) = match i {
        Interpolation::Undefined => return None,
        Interpolation::Constant => (InterpMode::Constant, InterpLocation::Center),
        Interpolation::Linear => (InterpMode::Perspective, InterpLocation::Center),
        Interpolation::LinearCentroid => (InterpMode::Perspective, InterpLocation::Centroid),
        Interpolation::LinearNoPerspective => (InterpMode::Linear, InterpLocation::Center),
        Interpolation::LinearNoPerspectiveCentroid => {
            (InterpMode::Linear, InterpLocation::Centroid)
        }
        Interpolation::LinearSample => (InterpMode::Perspective, InterpLocation::Sample),
        Interpolation::LinearNoPerspectiveSample => (InterpMode::Linear, InterpLocation::Sample),
    };
    Some(Interp {
        mode,
        location,
        cylindrical_wrap: 0,
    })
}

fn constant_interp() -> Option<Interp> {
    interp_of(Interpolation::Constant)
}

/// TGSI target of a resource dimension.
pub fn target_of(d: ResourceDimension) -> TextureTarget {
    match d {
        ResourceDimension::Buffer
        | ResourceDimension::RawBuffer
        | ResourceDimension::StructuredBuffer => TextureTarget::Buffer,
        ResourceDimension::Texture1D => TextureTarget::Tex1D,
        ResourceDimension::Texture2D => TextureTarget::Tex2D,
        ResourceDimension::Texture2DMS => TextureTarget::Msaa2D,
        ResourceDimension::Texture3D => TextureTarget::Tex3D,
        ResourceDimension::TextureCube => TextureTarget::Cube,
        ResourceDimension::Texture1DArray => TextureTarget::Array1D,
        ResourceDimension::Texture2DArray => TextureTarget::Array2D,
        ResourceDimension::Texture2DMSArray => TextureTarget::Msaa2DArray,
        ResourceDimension::TextureCubeArray => TextureTarget::CubeArray,
        ResourceDimension::Unknown => TextureTarget::Unknown,
    }
}

fn return_type_of(t: D3dReturn) -> ReturnType {
    match t {
        D3dReturn::Unorm => ReturnType::Unorm,
        D3dReturn::Snorm => ReturnType::Snorm,
        D3dReturn::Sint => ReturnType::Sint,
        D3dReturn::Uint => ReturnType::Uint,
        _ => ReturnType::Float,
    }
}

/// Tess-factor system values: (outer?, component).
fn tess_factor(sv: SystemValue) -> Option<(bool, u8)> {
    use SystemValue as S;
    Some(match sv {
        S::FinalQuadUeq0EdgeTessFactor | S::FinalTriUeq0EdgeTessFactor => (true, 0),
        S::FinalQuadVeq0EdgeTessFactor | S::FinalTriVeq0EdgeTessFactor => (true, 1),
        S::FinalQuadUeq1EdgeTessFactor | S::FinalTriWeq0EdgeTessFactor => (true, 2),
        S::FinalQuadVeq1EdgeTessFactor => (true, 3),
        S::FinalLineDensityTessFactor => (true, 0),
        S::FinalLineDetailTessFactor => (true, 1),
        S::FinalQuadUInsideTessFactor | S::FinalTriInsideTessFactor => (false, 0),
        S::FinalQuadVInsideTessFactor => (false, 1),
        _ => return None,
    })
}

struct Builder<'a> {
    p: &'a Program,
    sigs: &'a Signatures,
    lay: Layout,
    next_in: u32,
    next_out: u32,
    next_sv: u32,
    svs: HashMap<SemanticName, u32>,
    generic_used_in: BTreeSet<u32>,
    clip_in: u32,
}

impl Layout {
    /// Reads every declaration of the program.
    pub fn build(p: &Program, sigs: &Signatures) -> Result<Layout> {
        let processor = processor_of(p);
        let lay = Layout {
            processor,
            program_type: p.version.program_type,
            sm51: p.version.is_sm51(),
            scope_of: Vec::new(),
            scopes: Vec::new(),
            plain_temps: 0,
            arrays: Vec::new(),
            next_temp: 0,
            next_array_id: 1,
            inputs: HashMap::new(),
            outputs: HashMap::new(),
            patch: None,
            specials: HashMap::new(),
            ranges: Vec::new(),
            decls: Vec::new(),
            props: Vec::new(),
            prologue: Vec::new(),
            flush: BTreeMap::new(),
            patch_flush: Vec::new(),
            res: HashMap::new(),
            bindings: Vec::new(),
            icb: Vec::new(),
            counters: HashMap::new(),
            combined: HashMap::new(),
            interfaces: Interfaces::default(),
            thread_group: [1, 1, 1],
            io_in: Vec::new(),
            io_out: Vec::new(),
            tessellator: None,
            invocation_sv: None,
            output_control_points: 0,
            gs_multistream: false,
            imms: ImmPool::default(),
            depth_layout: None,
        };
        let mut b = Builder {
            p,
            sigs,
            lay,
            next_in: 0,
            next_out: 0,
            next_sv: 0,
            svs: HashMap::new(),
            generic_used_in: BTreeSet::new(),
            clip_in: 0,
        };
        b.scopes()?;
        b.misc_declarations()?;
        b.resources()?;
        b.io()?;
        Ok(b.lay)
    }

    /// A fresh temporary that lives for the whole program.
    pub fn persistent_temp(&mut self) -> u32 {
        let t = self.next_temp;
        self.next_temp += 1;
        t
    }

    /// A fresh TEMP array of `len` registers.
    pub fn new_array(&mut self, len: u32) -> TempArray {
        let a = TempArray {
            first: self.next_temp,
            len,
            id: self.next_array_id,
        };
        self.next_temp += len;
        self.next_array_id += 1;
        self.arrays.push(a);
        a
    }
}

impl Builder<'_> {
    fn fail(&self, i: usize, m: impl Into<String>) -> LowerError {
        at_err(self.p, i, m)
    }

    /// Scopes and their temporaries.
    fn scopes(&mut self) -> Result<()> {
        let hull = self.p.version.program_type == ProgramType::Hull;
        let mut scope = 0usize;
        self.lay.scopes.push(Scope::default());
        for (i, inst) in self.p.instructions.iter().enumerate() {
            if hull
                && matches!(
                    inst.opcode,
                    D::HsControlPointPhase | D::HsForkPhase | D::HsJoinPhase
                )
            {
                self.lay.scopes.push(Scope::default());
                scope = self.lay.scopes.len() - 1;
            }
            self.lay.scope_of.push(scope);
            if let (D::DclTemps, Payload::Count(n)) = (&inst.opcode, &inst.payload) {
                if *n > 4096 {
                    return Err(self.fail(i, format!("{n} temporaries: at most 4096")));
                }
                let s = &mut self.lay.scopes[scope];
                s.count = s.count.max(*n);
            }
        }
        let mut base = 0u32;
        for s in &mut self.lay.scopes {
            s.base = base;
            base = base.saturating_add(s.count);
        }
        if base > MAX_TEMPS {
            return Err(err(format!(
                "the phases declare {base} temporaries: at most {MAX_TEMPS}"
            )));
        }
        self.lay.plain_temps = base;
        self.lay.next_temp = base;
        for (i, inst) in self.p.instructions.iter().enumerate() {
            if let (
                D::DclIndexableTemp,
                Payload::IndexableTemp {
                    register, count, ..
                },
            ) = (&inst.opcode, &inst.payload)
            {
                if *count == 0 || *count > 4096 {
                    return Err(self.fail(i, format!("indexable temp of {count} registers")));
                }
                let a = self.lay.new_array(*count);
                if self.lay.next_temp > MAX_TEMPS {
                    return Err(self.fail(i, format!("more than {MAX_TEMPS} temporaries")));
                }
                let scope = self.lay.scope_of[i];
                self.lay.scopes[scope].arrays.insert(*register, a);
            }
        }
        Ok(())
    }

    fn prop(&mut self, name: PropertyName, value: u32) {
        self.lay.props.retain(|p| p.name != name);
        self.lay.props.push(Property { name, value });
    }

    /// The TGSI index of register `reg` of a range in `space` (SM5.1), or
    /// the register itself.
    fn space_index(&self, i: usize, reg: u32, space: u32) -> Result<u32> {
        if !self.lay.sm51 {
            return Ok(reg);
        }
        if reg >= 256 || space >= 64 {
            return Err(self.fail(
                i,
                format!("register {reg} in space {space}: the lowering maps SM5.1 registers below 256 in spaces below 64 (TGSI index = space * 256 + register)"),
            ));
        }
        Ok(space * 256 + reg)
    }

    /// Range id, first register, last register (None: unbounded) and space of
    /// a resource declaration operand.
    fn range_of(&self, i: usize, inst: &D3dInst) -> Result<(u32, u32, Option<u32>, u32)> {
        let op = inst
            .operands
            .first()
            .ok_or_else(|| self.fail(i, "declaration without a register"))?;
        let ix: Vec<Option<u32>> = op.indices.iter().map(imm_index).collect();
        let space = match &inst.payload {
            Payload::ReturnTypes { space, .. }
            | Payload::Space(space)
            | Payload::Structured { space, .. } => space.unwrap_or(0),
            Payload::ConstantBuffer(Some(r)) => r.space,
            _ => 0,
        };
        if self.lay.sm51 {
            match (
                ix.first().copied().flatten(),
                ix.get(1).copied().flatten(),
                ix.get(2).copied().flatten(),
            ) {
                (Some(id), Some(lo), Some(hi)) => {
                    let hi = (hi != u32::MAX).then_some(hi);
                    if hi.is_some_and(|h| h < lo) {
                        return Err(self.fail(i, "empty register range"));
                    }
                    Ok((id, lo, hi, space))
                }
                _ => Err(self.fail(i, "SM5.1 declaration without a register range")),
            }
        } else {
            match ix.first().copied().flatten() {
                Some(r) => Ok((r, r, Some(r), 0)),
                None => Err(self.fail(i, "declaration without a register number")),
            }
        }
    }

    /// SM5.1: the registers instructions name with an immediate index, per
    /// (register file, range id) (`T2[9]` names register 9 of range T2).
    fn direct_registers(&self) -> HashMap<(RegisterFile, u32), BTreeSet<u32>> {
        let mut out: HashMap<(RegisterFile, u32), BTreeSet<u32>> = HashMap::new();
        if !self.lay.sm51 {
            return out;
        }
        for inst in &self.p.instructions {
            if inst.opcode.is_declaration() {
                continue;
            }
            for op in &inst.operands {
                if !matches!(
                    op.file,
                    RegisterFile::ConstantBuffer
                        | RegisterFile::Resource
                        | RegisterFile::Sampler
                        | RegisterFile::UnorderedAccessView
                ) {
                    continue;
                }
                if let (Some(id), Some(r)) = (
                    op.indices.first().and_then(imm_index),
                    op.indices.get(1).and_then(imm_index),
                ) {
                    out.entry((op.file, id)).or_default().insert(r);
                }
            }
        }
        out
    }

    fn binding(&mut self, slot: D3dSlot, file: File, index: u32) -> &mut Binding {
        self.lay.bindings.push(Binding {
            slot,
            file,
            index,
            byte_offset: 0,
            byte_size: 0,
            stride: 0,
        });
        self.lay.bindings.last_mut().expect("just pushed")
    }

    fn sv(&mut self, name: SemanticName) -> u32 {
        if let Some(k) = self.svs.get(&name) {
            return *k;
        }
        let k = self.next_sv;
        self.next_sv += 1;
        self.svs.insert(name, k);
        let mut d = Declaration::new(File::SystemValue, k, k);
        d.semantic = Some(Semantic {
            name,
            index: 0,
            streams: [0; 4],
        });
        self.lay.decls.push(d);
        k
    }

    fn signature_name(
        &self,
        input: bool,
        patch: bool,
        reg: u32,
        comp: u8,
    ) -> Option<(String, u32)> {
        let list = if patch {
            &self.sigs.patch_constants
        } else if input {
            &self.sigs.inputs
        } else {
            &self.sigs.outputs
        };
        list.iter()
            .find(|e| e.register == reg && e.mask & (1 << comp) != 0)
            .map(|e| (e.semantic_name.clone(), e.semantic_index))
    }
}

mod declarations;
mod inputs;
mod outputs;
mod resources;
