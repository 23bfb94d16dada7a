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

    /// Global flags, thread groups, geometry and tessellation settings,
    /// index ranges, immediate constant buffers, class linkage.
    fn misc_declarations(&mut self) -> Result<()> {
        let p = self.p;
        let mut tess = Tessellator {
            domain: None,
            partitioning: None,
            output_primitive: None,
            max_tessfactor: None,
            input_control_points: 0,
            output_control_points: 0,
        };
        let mut hull_phase_patch = false;
        let mut streams = BTreeSet::new();
        for (i, inst) in p.instructions.iter().enumerate() {
            let c = &inst.controls;
            match inst.opcode {
                D::HsForkPhase | D::HsJoinPhase => hull_phase_patch = true,
                D::HsControlPointPhase => hull_phase_patch = false,
                D::DclGlobalFlags
                    if c.global_flags
                        .contains(GlobalFlags::FORCE_EARLY_DEPTH_STENCIL)
                        && self.lay.processor == Processor::Fragment =>
                {
                    self.prop(PropertyName::FsEarlyDepthStencil, 1);
                }
                D::DclThreadGroup => {
                    if let Payload::ThreadGroup(g) = inst.payload {
                        if g.contains(&0) {
                            return Err(self.fail(i, "a thread group size of 0"));
                        }
                        self.lay.thread_group = g;
                        self.prop(PropertyName::CsFixedBlockWidth, g[0]);
                        self.prop(PropertyName::CsFixedBlockHeight, g[1]);
                        self.prop(PropertyName::CsFixedBlockDepth, g[2]);
                    }
                }
                D::DclGsInputPrimitive => {
                    let prim = match c.input_primitive.0 {
                        InputPrimitive::Point => Primitive::Points,
                        InputPrimitive::Line => Primitive::Lines,
                        InputPrimitive::Triangle => Primitive::Triangles,
                        InputPrimitive::LineAdj => Primitive::LinesAdjacency,
                        InputPrimitive::TriangleAdj => Primitive::TrianglesAdjacency,
                        other => {
                            return Err(self.fail(
                                i,
                                format!(
                                    "geometry-shader input primitive {} has no TGSI form",
                                    other.name()
                                ),
                            ));
                        }
                    };
                    self.prop(PropertyName::GsInputPrimitive, prim as u32);
                }
                D::DclGsOutputPrimitiveTopology => {
                    let prim = match c.output_topology.0 {
                        PrimitiveTopology::PointList => Primitive::Points,
                        PrimitiveTopology::LineList | PrimitiveTopology::LineStrip => {
                            Primitive::LineStrip
                        }
                        PrimitiveTopology::TriangleList | PrimitiveTopology::TriangleStrip => {
                            Primitive::TriangleStrip
                        }
                        other => {
                            return Err(self.fail(
                                i,
                                format!(
                                    "geometry-shader output topology {} has no TGSI form",
                                    other.name()
                                ),
                            ));
                        }
                    };
                    self.prop(PropertyName::GsOutputPrimitive, prim as u32);
                }
                D::DclMaxOutputVertexCount => {
                    if let Payload::Count(n) = inst.payload {
                        self.prop(PropertyName::GsMaxOutputVertices, n);
                    }
                }
                D::DclGsInstanceCount => {
                    if let Payload::Count(n) = inst.payload {
                        self.prop(PropertyName::GsInvocations, n.max(1));
                    }
                }
                D::DclStream => {
                    if let Some(s) = inst
                        .operands
                        .first()
                        .and_then(|o| o.indices.first())
                        .and_then(imm_index)
                    {
                        streams.insert(s);
                    }
                }
                D::DclInputControlPointCount => {
                    tess.input_control_points = c.control_point_count as u32;
                }
                D::DclOutputControlPointCount => {
                    let n = c.control_point_count as u32;
                    tess.output_control_points = n;
                    self.lay.output_control_points = n;
                    if n > 0 && self.lay.processor == Processor::TessCtrl {
                        self.prop(PropertyName::TcsVerticesOut, n);
                    }
                }
                D::DclTessDomain => {
                    tess.domain = Some(c.tess_domain.0);
                    if self.lay.processor == Processor::TessEval {
                        use crate::enums::TessellatorDomain as T;
                        let prim = match c.tess_domain.0 {
                            T::Isoline => Some(Primitive::Lines),
                            T::Triangle => Some(Primitive::Triangles),
                            T::Quad => Some(Primitive::Quads),
                            T::Undefined => None,
                        };
                        if let Some(prim) = prim {
                            self.prop(PropertyName::TesPrimMode, prim as u32);
                        }
                    }
                }
                D::DclTessPartitioning => tess.partitioning = Some(c.tess_partitioning.0),
                D::DclTessOutputPrimitive => {
                    tess.output_primitive = Some(c.tess_output_primitive.0)
                }
                D::DclHsMaxTessFactor => {
                    if let Payload::Float(bits) = inst.payload {
                        tess.max_tessfactor = Some(f32::from_bits(bits));
                    }
                }
                D::DclIndexRange => {
                    let (Some(op), Payload::Count(n)) = (inst.operands.first(), &inst.payload)
                    else {
                        continue;
                    };
                    let Some(first) = op.indices.last().and_then(imm_index) else {
                        return Err(self.fail(i, "index range without a register number"));
                    };
                    if *n == 0 || *n > 4096 {
                        return Err(self.fail(i, format!("index range of {n} registers")));
                    }
                    self.lay.ranges.push(IndexRange {
                        file: op.file,
                        first,
                        count: *n,
                        patch: hull_phase_patch && op.file == RegisterFile::Output,
                    });
                }
                D::CustomData => {
                    if let Payload::CustomData(CustomData::ImmediateConstantBuffer(words)) =
                        &inst.payload
                    {
                        if !self.lay.icb.is_empty() {
                            return Err(self.fail(i, "a second immediate constant buffer"));
                        }
                        if words.len() % 4 != 0 || words.len() / 4 > 4096 {
                            return Err(self.fail(
                                i,
                                format!("immediate constant buffer of {} words: expected a multiple of 4, at most 4096 vectors", words.len()),
                            ));
                        }
                        self.lay.icb = words.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
                    }
                }
                D::DclFunctionTable => {
                    if let Payload::FunctionTable { index, bodies } = &inst.payload {
                        self.lay.interfaces.tables.insert(*index, bodies.clone());
                    }
                }
                D::DclInterface => {
                    if let Payload::Interface {
                        index,
                        array_size,
                        tables,
                        ..
                    } = &inst.payload
                    {
                        let size = (*array_size as u32).max(1);
                        let end = index
                            .checked_add(size)
                            .filter(|e| *e <= 4096)
                            .ok_or_else(|| self.fail(i, "interface slots beyond 4096"))?;
                        self.lay.interfaces.slots = self.lay.interfaces.slots.max(end);
                        self.lay
                            .interfaces
                            .interfaces
                            .insert(*index, (tables.clone(), size));
                    }
                }
                _ => {}
            }
        }
        self.lay.gs_multistream = streams.len() > 1;
        if self.lay.program_type == ProgramType::Hull {
            self.lay.tessellator = Some(tess);
        }
        Ok(())
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

    /// Constant buffers, textures, samplers, UAVs, shared memory.
    fn resources(&mut self) -> Result<()> {
        let p = self.p;
        // UAV buffers first: read-only buffers and counters go after them.
        let mut max_uav_buffer = 0u32;
        let mut max_t = 0u32;
        let mut max_s = 0u32;
        let mut max_cb = 0u32;
        let directs = self.direct_registers();
        for (i, inst) in p.instructions.iter().enumerate() {
            if !matches!(
                inst.opcode,
                D::DclUavRaw
                    | D::DclUavStructured
                    | D::DclResource
                    | D::DclResourceRaw
                    | D::DclResourceStructured
                    | D::DclSampler
                    | D::DclConstantBuffer
            ) {
                continue;
            }
            let (id, lo, hi, space) = self.range_of(i, inst)?;
            let last = hi.unwrap_or(lo).min(255).max(lo);
            let last = inst
                .operands
                .first()
                .and_then(|op| directs.get(&(op.file, id)))
                .and_then(|d| d.last())
                .map_or(last, |&d| last.max(d.min(255)));
            let top = self.space_index(i, last, space)? + 1;
            match inst.opcode {
                D::DclUavRaw | D::DclUavStructured => max_uav_buffer = max_uav_buffer.max(top),
                D::DclResource | D::DclResourceRaw | D::DclResourceStructured => {
                    max_t = max_t.max(top)
                }
                D::DclSampler => max_s = max_s.max(top),
                _ => max_cb = max_cb.max(top),
            }
        }
        let t_buffer_base = max_uav_buffer.max(64);
        let counter_base = (t_buffer_base + max_t.max(128)).max(192);
        let combined_base = max_t.max(max_s).max(128);
        self.lay.interfaces.cb = max_cb.max(14);
        let mut shared_offset = 0u32;

        for (i, inst) in p.instructions.iter().enumerate() {
            let kind = match inst.opcode {
                D::DclConstantBuffer => ResKind::Cb,
                D::DclResource | D::DclResourceRaw | D::DclResourceStructured => ResKind::Texture,
                D::DclSampler => ResKind::Sampler,
                D::DclUavTyped | D::DclUavRaw | D::DclUavStructured => ResKind::Uav,
                D::DclTgsmRaw | D::DclTgsmStructured => ResKind::Tgsm,
                _ => continue,
            };
            if kind == ResKind::Tgsm {
                let op = inst.operands.first();
                let Some(g) = op.and_then(|o| o.indices.first()).and_then(imm_index) else {
                    return Err(self.fail(i, "shared memory declaration without a register"));
                };
                let size = match inst.payload {
                    Payload::Count(bytes) => bytes as u64,
                    Payload::TgsmStructured { stride, count } => stride as u64 * count as u64,
                    _ => 0,
                };
                let stride = match inst.payload {
                    Payload::TgsmStructured { stride, .. } => stride,
                    _ => 0,
                };
                if shared_offset as u64 + size > 1 << 20 {
                    return Err(self.fail(i, "more than 1 MiB of shared memory"));
                }
                let m = ResMap {
                    file: File::Memory,
                    base: 0,
                    first: g,
                    dimension: if stride > 0 {
                        ResourceDimension::StructuredBuffer
                    } else {
                        ResourceDimension::RawBuffer
                    },
                    target: TextureTarget::Buffer,
                    stride,
                    byte_offset: shared_offset,
                    byte_size: size as u32,
                    comparison: false,
                    return_type: ReturnType::Uint,
                };
                self.lay.res.insert((ResKind::Tgsm, g), m);
                let b = self.binding(D3dSlot::SharedMemory { register: g }, File::Memory, 0);
                b.byte_offset = shared_offset;
                b.byte_size = size as u32;
                b.stride = stride;
                shared_offset += (size as u32).div_ceil(16) * 16;
                continue;
            }
            let (id, lo, hi, space) = self.range_of(i, inst)?;
            let base = self.space_index(i, lo, space)?;
            let dimension = match inst.opcode {
                D::DclResourceRaw | D::DclUavRaw => ResourceDimension::RawBuffer,
                D::DclResourceStructured | D::DclUavStructured => {
                    ResourceDimension::StructuredBuffer
                }
                _ => inst.controls.resource_dimension.0,
            };
            let stride = match inst.payload {
                Payload::Structured { stride, .. } => stride,
                _ => 0,
            };
            let return_type = match &inst.payload {
                Payload::ReturnTypes { types, .. } => return_type_of(types[0]),
                _ => ReturnType::Uint,
            };
            let typed = !matches!(
                dimension,
                ResourceDimension::RawBuffer | ResourceDimension::StructuredBuffer
            );
            let (file, base) = match kind {
                ResKind::Cb => (File::Const, base),
                ResKind::Sampler => (File::Sampler, base),
                ResKind::Texture if typed => (File::SamplerView, base),
                ResKind::Texture => (File::Buffer, t_buffer_base + base),
                ResKind::Uav if typed => (File::Image, base),
                _ => (File::Buffer, base),
            };
            let comparison =
                kind == ResKind::Sampler && inst.controls.sampler_mode.0 == SamplerMode::Comparison;
            let target = target_of(dimension);
            self.lay.res.insert(
                (kind, id),
                ResMap {
                    file,
                    base,
                    first: lo,
                    dimension,
                    target,
                    stride,
                    byte_offset: 0,
                    byte_size: 0,
                    comparison,
                    return_type,
                },
            );
            // Declarations: each register of a bounded range, the first of
            // an unbounded one (indirect accesses need only one), and every
            // register an instruction names directly (in an unbounded range,
            // or beyond a bounded one: D3D leaves that undefined, the
            // lowering gives it the register's own slot).
            let mut registers: BTreeSet<u32> = match hi {
                Some(h) => (lo..=h.min(lo.saturating_add(255))).collect(),
                None => BTreeSet::from([lo]),
            };
            if let Some(d) = inst
                .operands
                .first()
                .and_then(|op| directs.get(&(op.file, id)))
            {
                registers.extend(d.iter().copied());
            }
            for register in registers {
                let index = self.space_index(i, register, space)?;
                let index = if file == File::Buffer && kind == ResKind::Texture {
                    t_buffer_base + index
                } else {
                    index
                };
                if index > 32767 {
                    return Err(self.fail(i, "register index beyond the TGSI range"));
                }
                let slot = match kind {
                    ResKind::Cb => D3dSlot::ConstantBuffer { register, space },
                    ResKind::Texture => D3dSlot::Texture { register, space },
                    ResKind::Sampler => D3dSlot::Sampler { register, space },
                    _ => D3dSlot::Uav { register, space },
                };
                let b = self.binding(slot, file, index);
                b.stride = stride;
                let decl = match kind {
                    ResKind::Cb => {
                        let size = match (&inst.payload, inst.operands.first()) {
                            (Payload::ConstantBuffer(Some(r)), _) => r.size,
                            (_, Some(op)) => op.indices.get(1).and_then(imm_index).unwrap_or(1),
                            _ => 1,
                        };
                        if size > 4096 {
                            return Err(self.fail(
                                i,
                                format!("constant buffer of {size} vectors: at most 4096"),
                            ));
                        }
                        let mut d = Declaration::new(File::Const, 0, size.max(1) - 1);
                        d.dimension = Some(index);
                        d
                    }
                    ResKind::Sampler => Declaration::new(File::Sampler, index, index),
                    ResKind::Texture if typed => {
                        let mut d = Declaration::new(File::SamplerView, index, index);
                        d.sampler_view = Some(SamplerViewDecl {
                            target,
                            return_types: [return_type; 4],
                        });
                        d
                    }
                    ResKind::Uav if typed => {
                        let mut d = Declaration::new(File::Image, index, index);
                        d.image = Some(ImageDecl {
                            target,
                            format: PipeFormat::NONE,
                            raw: false,
                            writable: true,
                        });
                        d
                    }
                    _ => Declaration::new(File::Buffer, index, index),
                };
                self.lay.decls.push(decl);
            }
        }
        if shared_offset > 0 {
            let mut d = Declaration::new(File::Memory, 0, 0);
            d.mem_type = MemType::Shared;
            self.lay.decls.push(d);
        }
        // Hidden UAV counters and combined texture+sampler slots.
        for (i, inst) in p.instructions.iter().enumerate() {
            match inst.opcode {
                D::ImmAtomicAlloc | D::ImmAtomicConsume => {
                    let Some(u) = inst.operands.get(1) else {
                        continue;
                    };
                    let Some(id) = u.indices.first().and_then(imm_index) else {
                        return Err(self.fail(i, "UAV counter of an indirectly indexed UAV"));
                    };
                    if self.lay.counters.contains_key(&id) {
                        continue;
                    }
                    let m = self
                        .lay
                        .res
                        .get(&(ResKind::Uav, id))
                        .copied()
                        .ok_or_else(|| self.fail(i, format!("u{id} is not declared")))?;
                    let index = counter_base + m.base;
                    self.lay.counters.insert(id, index);
                    let space = 0;
                    self.binding(
                        D3dSlot::UavCounter {
                            register: m.first,
                            space,
                        },
                        File::Buffer,
                        index,
                    );
                    self.lay
                        .decls
                        .push(Declaration::new(File::Buffer, index, index));
                }
                D::Gather4C | D::Gather4PoC | D::Gather4CS | D::Gather4PoCS | D::SampleCClampS => {
                    let res = inst
                        .operands
                        .iter()
                        .rfind(|o| o.file == RegisterFile::Resource);
                    let smp = inst
                        .operands
                        .iter()
                        .rfind(|o| o.file == RegisterFile::Sampler);
                    let (Some(t), Some(s)) = (res, smp) else {
                        continue;
                    };
                    let key = match self.combined_key(t, s) {
                        Some(k) => k,
                        None => {
                            return Err(self.fail(
                                i,
                                "gather with comparison through an indirectly indexed texture or sampler: TG4 needs one fixed SAMP slot",
                            ));
                        }
                    };
                    if self.lay.combined.contains_key(&key) {
                        continue;
                    }
                    let index = combined_base + self.lay.combined.len() as u32;
                    self.lay.combined.insert(key, index);
                    self.binding(
                        D3dSlot::TextureWithSampler {
                            texture: key.1,
                            sampler: key.3,
                        },
                        File::Sampler,
                        index,
                    );
                    self.lay
                        .decls
                        .push(Declaration::new(File::Sampler, index, index));
                }
                _ => {}
            }
        }
        if self.lay.interfaces.slots > 0 {
            let cb = self.lay.interfaces.cb;
            let slots = self.lay.interfaces.slots;
            self.binding(D3dSlot::Interfaces { slots }, File::Const, cb);
            let mut d = Declaration::new(File::Const, 0, 2 * slots - 1);
            d.dimension = Some(cb);
            self.lay.decls.push(d);
        }
        Ok(())
    }

    /// (t range, t register, s range, s register) of direct operands.
    fn combined_key(&self, t: &Operand, s: &Operand) -> Option<(u32, u32, u32, u32)> {
        let ix = |o: &Operand| -> Option<(u32, u32)> {
            let v: Vec<Option<u32>> = o.indices.iter().map(imm_index).collect();
            if self.lay.sm51 {
                Some((v.first().copied()??, v.get(1).copied()??))
            } else {
                let r = v.first().copied()??;
                Some((r, r))
            }
        };
        let (ta, tb) = ix(t)?;
        let (sa, sb) = ix(s)?;
        Some((ta, tb, sa, sb))
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

    /// Inputs, outputs and the other special registers.
    fn io(&mut self) -> Result<()> {
        let p = self.p;
        let processor = self.lay.processor;
        let hull = processor == Processor::TessCtrl;
        let mut inputs: Vec<IoDecl> = Vec::new();
        let mut outputs: Vec<IoDecl> = Vec::new();
        let mut patch_phase = false;
        let mut stream = 0u32;
        for (i, inst) in p.instructions.iter().enumerate() {
            match inst.opcode {
                D::HsForkPhase | D::HsJoinPhase => patch_phase = true,
                D::HsControlPointPhase => patch_phase = false,
                D::DclStream => {
                    stream = inst
                        .operands
                        .first()
                        .and_then(|o| o.indices.first())
                        .and_then(imm_index)
                        .unwrap_or(0)
                }
                _ => {}
            }
            let is_in = matches!(
                inst.opcode,
                D::DclInput
                    | D::DclInputSgv
                    | D::DclInputSiv
                    | D::DclInputPs
                    | D::DclInputPsSgv
                    | D::DclInputPsSiv
            );
            let is_out = matches!(
                inst.opcode,
                D::DclOutput | D::DclOutputSgv | D::DclOutputSiv
            );
            if !is_in && !is_out {
                continue;
            }
            let Some(op) = inst.operands.first() else {
                continue;
            };
            let sv = match inst.payload {
                Payload::Name(sv) => sv,
                _ => SystemValue::Undefined,
            };
            let decl = IoDecl {
                at: i,
                file: op.file,
                reg: op.indices.last().and_then(imm_index).unwrap_or(0),
                mask: declared_mask(op),
                sv,
                interp: inst.controls.interpolation.0,
                patch: patch_phase,
                stream,
            };
            if is_in {
                match op.file {
                    RegisterFile::Input
                    | RegisterFile::InputControlPoint
                    | RegisterFile::InputPatchConstant => inputs.push(decl),
                    RegisterFile::OutputControlPoint => {}
                    f => self.special_input(i, f)?,
                }
            } else {
                outputs.push(decl);
            }
        }
        self.inputs(&inputs)?;
        if hull {
            self.hull_outputs(&outputs)?;
        } else {
            self.outputs(&outputs)?;
        }
        Ok(())
    }

    fn special_input(&mut self, i: usize, f: RegisterFile) -> Result<()> {
        use RegisterFile as R;
        let special = match f {
            R::InputPrimitiveId => Special::Sv(self.sv(SemanticName::PrimId)),
            R::InputCoverageMask => Special::Sv(self.sv(SemanticName::SampleMask)),
            R::InputGsInstanceId | R::OutputControlPointId => {
                Special::Sv(self.sv(SemanticName::InvocationId))
            }
            R::InputThreadGroupId => Special::Sv(self.sv(SemanticName::BlockId)),
            R::InputThreadIdInGroup => Special::Sv(self.sv(SemanticName::ThreadId)),
            R::InputDomainPoint => Special::Sv(self.sv(SemanticName::TessCoord)),
            R::InputForkInstanceId | R::InputJoinInstanceId => Special::PhaseInstance,
            R::CycleCounter => Special::Clock,
            R::InputThreadId | R::InputThreadIdInGroupFlattened => {
                if self.lay.specials.contains_key(&f) {
                    return Ok(());
                }
                let block = self.sv(SemanticName::BlockId);
                let thread = self.sv(SemanticName::ThreadId);
                let t = self.lay.persistent_temp();
                let [sx, sy, sz] = self.lay.thread_group;
                let svr = |k: u32| reg(File::SystemValue, k as i32);
                let temp = reg(File::Temp, t as i32);
                if f == R::InputThreadId {
                    // vThreadID = vThreadGroupID * group size + vThreadIDInGroup
                    let (k, _) = (self.lay.imms.vector(ImmType::Uint32, [sx, sy, sz, 0]), 0);
                    let size = src(reg(File::Immediate, k as i32), [0, 1, 2, 3]);
                    self.lay.prologue.push((
                        i,
                        Instruction::new(
                            Opcode::UMAD,
                            vec![dst(temp, 0x7)],
                            vec![
                                src(svr(block), [0, 1, 2, 3]),
                                size,
                                src(svr(thread), [0, 1, 2, 3]),
                            ],
                        ),
                    ));
                } else {
                    // z * (sx * sy) + y * sx + x
                    let (kx, cx) = self.lay.imms.scalar(ImmType::Uint32, sx);
                    let (kxy, cxy) = self.lay.imms.scalar(ImmType::Uint32, sx.wrapping_mul(sy));
                    let _ = sz;
                    self.lay.prologue.push((
                        i,
                        Instruction::new(
                            Opcode::UMAD,
                            vec![dst(temp, 1)],
                            vec![
                                scalar_src(svr(thread), 1),
                                scalar_src(reg(File::Immediate, kx as i32), cx),
                                scalar_src(svr(thread), 0),
                            ],
                        ),
                    ));
                    self.lay.prologue.push((
                        i,
                        Instruction::new(
                            Opcode::UMAD,
                            vec![dst(temp, 1)],
                            vec![
                                scalar_src(svr(thread), 2),
                                scalar_src(reg(File::Immediate, kxy as i32), cxy),
                                scalar_src(temp, 0),
                            ],
                        ),
                    ));
                }
                Special::Temp(t)
            }
            R::InnerCoverage => {
                // Without conservative rasterization, "the pixel is fully
                // covered" is "every sample is covered":
                // (SAMPLEMASK == (1 << samples) - 1) & 1, the sample count
                // from SAMPLE_INFO of the render target (a TEMP operand).
                let mask = self.sv(SemanticName::SampleMask);
                let t = self.lay.persistent_temp();
                let temp = reg(File::Temp, t as i32);
                let imm = |lay: &mut Layout, v: u32| {
                    let (k, c) = lay.imms.scalar(ImmType::Uint32, v);
                    scalar_src(reg(File::Immediate, k as i32), c)
                };
                let (zero, one, all) = (
                    imm(&mut self.lay, 0),
                    imm(&mut self.lay, 1),
                    imm(&mut self.lay, u32::MAX),
                );
                let x = || scalar_src(temp, 0);
                for (op, srcs) in [
                    (Opcode::SAMPLE_INFO, vec![src(temp, [0, 1, 2, 3]), zero]),
                    (Opcode::SHL, vec![one, x()]),
                    (Opcode::UADD, vec![x(), all]),
                    (
                        Opcode::USEQ,
                        vec![scalar_src(reg(File::SystemValue, mask as i32), 0), x()],
                    ),
                    (Opcode::AND, vec![x(), one]),
                ] {
                    self.lay
                        .prologue
                        .push((i, Instruction::new(op, vec![dst(temp, 1)], srcs)));
                }
                Special::Temp(t)
            }
            other => {
                return Err(self.fail(
                    i,
                    format!("input register {} has no TGSI form", other.name()),
                ));
            }
        };
        self.lay.specials.insert(f, special);
        Ok(())
    }

    /// What an input declaration becomes.
    fn input_target(&mut self, d: &IoDecl) -> Result<Target> {
        use SystemValue as S;
        let processor = self.lay.processor;
        let generic = |r: u32| Some((SemanticName::Generic, r));
        Ok(match processor {
            Processor::Vertex => match d.sv {
                S::VertexId => Target::Sv(SemanticName::VertexId),
                S::InstanceId => Target::Sv(SemanticName::InstanceId),
                _ => Target::In(None, None),
            },
            Processor::Fragment => {
                let interp = interp_of(d.interp);
                match d.sv {
                    S::Undefined => Target::In(
                        generic(d.reg),
                        interp.or_else(|| interp_of(Interpolation::Linear)),
                    ),
                    S::Position => Target::In(
                        Some((SemanticName::Position, 0)),
                        interp.or_else(|| interp_of(Interpolation::LinearNoPerspective)),
                    ),
                    S::IsFrontFace => Target::Face,
                    S::SampleIndex => Target::Sv(SemanticName::SampleId),
                    S::PrimitiveId => Target::Sv(SemanticName::PrimId),
                    S::ClipDistance => {
                        self.clip_in += 1;
                        Target::In(Some((SemanticName::ClipDist, self.clip_in - 1)), interp)
                    }
                    S::CullDistance => {
                        self.clip_in += 1;
                        Target::In(Some((SemanticName::ClipDist, self.clip_in - 1)), interp)
                    }
                    S::RenderTargetArrayIndex => {
                        Target::In(Some((SemanticName::Layer, 0)), constant_interp())
                    }
                    S::ViewportArrayIndex => {
                        Target::In(Some((SemanticName::ViewportIndex, 0)), constant_interp())
                    }
                    other => {
                        return Err(self.fail(
                            d.at,
                            format!("pixel-shader input {} has no TGSI semantic", other.name()),
                        ));
                    }
                }
            }
            _ => match d.sv {
                S::Position => Target::In(Some((SemanticName::Position, 0)), None),
                S::ClipDistance => {
                    self.clip_in += 1;
                    Target::In(Some((SemanticName::ClipDist, self.clip_in - 1)), None)
                }
                S::CullDistance => {
                    self.clip_in += 1;
                    Target::In(Some((SemanticName::ClipDist, self.clip_in - 1)), None)
                }
                S::PrimitiveId => Target::Sv(SemanticName::PrimId),
                _ => Target::In(generic(d.reg), None),
            },
        })
    }

    fn inputs(&mut self, decls: &[IoDecl]) -> Result<()> {
        let processor = self.lay.processor;
        // Patch constants of a domain shader: one TEMP array filled from
        // TESSOUTER/TESSINNER/PATCH inputs.
        let (patch, plain): (Vec<&IoDecl>, Vec<&IoDecl>) = decls
            .iter()
            .partition(|d| d.file == RegisterFile::InputPatchConstant);
        // Per-vertex registers of GS/HS/DS and plain registers.
        let mut by_reg: BTreeMap<(RegisterFile, u32), Vec<(IoDecl, Target)>> = BTreeMap::new();
        for d in plain {
            let t = self.input_target(d)?;
            let file = if d.file == RegisterFile::InputControlPoint {
                RegisterFile::Input
            } else {
                d.file
            };
            by_reg
                .entry((file, d.reg))
                .or_default()
                .push((d.clone(), t));
        }
        let max_reg = by_reg.keys().map(|k| k.1 + 1).max().unwrap_or(0);
        self.next_in = max_reg;
        let per_vertex = matches!(
            processor,
            Processor::Geometry | Processor::TessCtrl | Processor::TessEval
        );
        let mut shadowed: Vec<(RegisterFile, u32)> = Vec::new();
        for ((file, r), pieces) in &by_reg {
            let mut merged: Vec<(u8, Target, usize)> = Vec::new();
            for (d, t) in pieces {
                match merged.iter_mut().find(|m| m.1 == *t) {
                    Some(m) => m.0 |= d.mask,
                    None => merged.push((d.mask, *t, d.at)),
                }
            }
            if per_vertex && *file != RegisterFile::InputPatchConstant {
                // One semantic per register: the first declaration's.
                let mask = merged.iter().fold(0, |a, m| a | m.0);
                let sem = match merged[0].1 {
                    Target::In(s, _) => s,
                    _ => Some((SemanticName::Generic, *r)),
                };
                let mut d = Declaration::new(File::Input, *r, *r);
                d.usage_mask = WriteMask::from_bits_truncate(mask);
                d.semantic = sem.map(|(name, index)| Semantic {
                    name,
                    index,
                    streams: [0; 4],
                });
                self.lay.decls.push(d);
                // v[n][r] (control-point phase) and vicp[n][r] name the same data
                for f in [RegisterFile::Input, RegisterFile::InputControlPoint] {
                    self.lay
                        .inputs
                        .insert((f, *r), RegMap::PerVertex(File::Input, *r));
                }
                self.note_io(true, false, *file, *r, mask, File::Input, *r, sem, 0);
                continue;
            }
            let direct = merged.len() == 1
                && !matches!(merged[0].1, Target::Face)
                && !(scalar_semantic(merged[0].1) && merged[0].0 != 1);
            if direct {
                let (mask, t, _) = merged[0];
                let m = self.declare_input(*r, mask, t, true);
                self.lay.inputs.insert((*file, *r), m);
            } else {
                let temp = self.lay.persistent_temp();
                for (n, (mask, t, at)) in merged.into_iter().enumerate() {
                    let m = self.declare_input(*r, mask, t, n == 0);
                    self.fill(at, temp, mask, m, t);
                }
                self.lay.inputs.insert(
                    (*file, *r),
                    RegMap::Temp {
                        index: temp,
                        array: 0,
                    },
                );
                shadowed.push((*file, *r));
            }
        }
        // Index ranges over shadowed inputs become arrays.
        let ranges: Vec<IndexRange> = self
            .lay
            .ranges
            .iter()
            .filter(|r| r.file == RegisterFile::Input)
            .copied()
            .collect();
        for range in ranges {
            let members: Vec<u32> = (range.first..range.first + range.count).collect();
            if !members
                .iter()
                .any(|m| shadowed.contains(&(RegisterFile::Input, *m)))
            {
                continue;
            }
            let a = self.lay.new_array(range.count);
            for (k, m) in members.iter().enumerate() {
                let t = a.first + k as u32;
                match self.lay.inputs.get(&(RegisterFile::Input, *m)).copied() {
                    Some(RegMap::Temp { index, .. }) => {
                        self.lay.prologue.push((
                            0,
                            Instruction::new(
                                Opcode::MOV,
                                vec![dst(reg(File::Temp, t as i32), 0xF)],
                                vec![src(reg(File::Temp, index as i32), [0, 1, 2, 3])],
                            ),
                        ));
                    }
                    Some(RegMap::Direct(f, k)) => {
                        self.lay.prologue.push((
                            0,
                            Instruction::new(
                                Opcode::MOV,
                                vec![dst(reg(File::Temp, t as i32), 0xF)],
                                vec![src(reg(f, k as i32), [0, 1, 2, 3])],
                            ),
                        ));
                    }
                    _ => {}
                }
                self.lay.inputs.insert(
                    (RegisterFile::Input, *m),
                    RegMap::Temp {
                        index: t,
                        array: a.id,
                    },
                );
            }
        }
        if !patch.is_empty() || processor == Processor::TessEval {
            self.domain_patch_inputs(&patch)?;
        }
        Ok(())
    }

    /// Declares the TGSI register of one input piece; `first` pieces keep
    /// the D3D register number.
    fn declare_input(&mut self, r: u32, mask: u8, t: Target, first: bool) -> RegMap {
        match t {
            Target::Sv(name) => {
                let k = self.sv(name);
                self.note_io(
                    true,
                    false,
                    RegisterFile::Input,
                    r,
                    mask,
                    File::SystemValue,
                    k,
                    Some((name, 0)),
                    0,
                );
                RegMap::Direct(File::SystemValue, k)
            }
            Target::In(sem, interp) => {
                let index = if first && !self.generic_used_in.contains(&r) {
                    r
                } else {
                    self.next_in += 1;
                    self.next_in - 1
                };
                self.generic_used_in.insert(index);
                let sem = match sem {
                    Some((SemanticName::Generic, _)) => Some((SemanticName::Generic, index)),
                    s => s,
                };
                let scalar = scalar_semantic(t);
                let mut d = Declaration::new(File::Input, index, index);
                d.usage_mask = WriteMask::from_bits_truncate(if scalar { 1 } else { mask });
                if self.lay.processor != Processor::Vertex {
                    d.semantic = sem.map(|(name, index)| Semantic {
                        name,
                        index,
                        streams: [0; 4],
                    });
                    d.interp = interp;
                }
                self.lay.decls.push(d);
                self.note_io(
                    true,
                    false,
                    RegisterFile::Input,
                    r,
                    mask,
                    File::Input,
                    index,
                    sem,
                    0,
                );
                if scalar && let Some(last) = self.lay.io_in.last_mut() {
                    last.component = 0;
                }
                RegMap::Direct(File::Input, index)
            }
            Target::Face => {
                let index = self.next_in;
                self.next_in += 1;
                let mut d = Declaration::new(File::Input, index, index);
                d.usage_mask = WriteMask::X;
                d.semantic = Some(Semantic {
                    name: SemanticName::Face,
                    index: 0,
                    streams: [0; 4],
                });
                d.interp = constant_interp();
                self.lay.decls.push(d);
                self.note_io(
                    true,
                    false,
                    RegisterFile::Input,
                    r,
                    mask,
                    File::Input,
                    index,
                    Some((SemanticName::Face, 0)),
                    0,
                );
                RegMap::Direct(File::Input, index)
            }
            Target::Out(..) => RegMap::Direct(File::Input, r),
        }
    }

    /// Prologue copy of one input piece into its temporary.
    fn fill(&mut self, at: usize, temp: u32, mask: u8, from: RegMap, t: Target) {
        let RegMap::Direct(file, k) = from else {
            return;
        };
        let to = dst(reg(File::Temp, temp as i32), mask);
        let inst = if t == Target::Face {
            // D3D's is_front_face is ~0 (front) or 0; TGSI FACE is +1.0 / -1.0.
            let (zi, zc) = self.lay.imms.scalar(ImmType::Flt32, 0);
            Instruction::new(
                Opcode::FSLT,
                vec![to],
                vec![
                    scalar_src(reg(File::Immediate, zi as i32), zc),
                    scalar_src(reg(file, k as i32), 0),
                ],
            )
        } else if scalar_semantic(t) {
            // TGSI keeps the value in .x
            Instruction::new(
                Opcode::MOV,
                vec![to],
                vec![scalar_src(reg(file, k as i32), 0)],
            )
        } else {
            Instruction::new(
                Opcode::MOV,
                vec![to],
                vec![src(reg(file, k as i32), [0, 1, 2, 3])],
            )
        };
        self.lay.prologue.push((at, inst));
    }

    #[allow(clippy::too_many_arguments)]
    fn note_io(
        &mut self,
        input: bool,
        patch: bool,
        d3d_file: RegisterFile,
        r: u32,
        mask: u8,
        file: File,
        index: u32,
        semantic: Option<(SemanticName, u32)>,
        stream: u32,
    ) {
        for c in 0..4u8 {
            if mask & (1 << c) == 0 {
                continue;
            }
            let signature = self.signature_name(input, patch, r, c);
            let e = IoComponent {
                d3d_file,
                d3d_register: r,
                d3d_component: c,
                file,
                index,
                component: c,
                semantic,
                stream,
                signature,
            };
            if input {
                self.lay.io_in.push(e);
            } else {
                self.lay.io_out.push(e);
            }
        }
    }

    /// Domain shaders: vpc# → a TEMP array filled from the patch inputs.
    fn domain_patch_inputs(&mut self, decls: &[&IoDecl]) -> Result<()> {
        let len = decls.iter().map(|d| d.reg + 1).max().unwrap_or(0).max(
            self.lay
                .ranges
                .iter()
                .filter(|r| r.file == RegisterFile::InputPatchConstant)
                .map(|r| r.first + r.count)
                .max()
                .unwrap_or(0),
        );
        if len == 0 {
            return Ok(());
        }
        let a = self.lay.new_array(len);
        self.lay.patch = Some(a);
        self.patch_constant_io(decls, a, true);
        Ok(())
    }

    /// The patch constants of a domain shader's inputs (`input`) or of a
    /// hull shader's outputs: `vpc#` / `o#` live in the TEMP array `a`; the
    /// tess factors become components of one TESSOUTER / TESSINNER
    /// register, the others PATCH[#] registers. Inputs are copied into the
    /// array in the prologue, outputs out of it when the patch-constant
    /// phases end.
    fn patch_constant_io(&mut self, decls: &[&IoDecl], a: TempArray, input: bool) {
        let (file, d3d_file) = if input {
            (File::Input, RegisterFile::InputPatchConstant)
        } else {
            (File::Output, RegisterFile::Output)
        };
        let mut factors: [Option<u32>; 2] = [None, None];
        let mut plain: HashMap<u32, u32> = HashMap::new();
        for d in decls {
            let temp = reg(File::Temp, (a.first + d.reg) as i32);
            let factor = tess_factor(d.sv);
            let (name, index) = match factor {
                Some((true, _)) => (SemanticName::TessOuter, 0),
                Some((false, _)) => (SemanticName::TessInner, 0),
                None => (SemanticName::Patch, d.reg),
            };
            let known = match factor {
                Some((is_outer, _)) => factors[usize::from(!is_outer)],
                None => plain.get(&d.reg).copied(),
            };
            let k = match known {
                Some(k) => k,
                None => {
                    let next = if input {
                        &mut self.next_in
                    } else {
                        &mut self.next_out
                    };
                    let k = *next;
                    *next += 1;
                    match factor {
                        Some((is_outer, _)) => factors[usize::from(!is_outer)] = Some(k),
                        None => {
                            plain.insert(d.reg, k);
                        }
                    }
                    let mut decl = Declaration::new(file, k, k);
                    decl.semantic = Some(Semantic {
                        name,
                        index,
                        streams: [0; 4],
                    });
                    self.lay.decls.push(decl);
                    k
                }
            };
            let r = reg(file, k as i32);
            let Some((_, comp)) = factor else {
                let mov = if input {
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(temp, d.mask)],
                        vec![src(r, [0, 1, 2, 3])],
                    )
                } else {
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(r, d.mask)],
                        vec![src(temp, [0, 1, 2, 3])],
                    )
                };
                self.patch_move(d.at, input, mov);
                self.note_io(
                    input,
                    true,
                    d3d_file,
                    d.reg,
                    d.mask,
                    file,
                    k,
                    Some((name, index)),
                    0,
                );
                continue;
            };
            for c in (0..4u8).filter(|c| d.mask & (1 << c) != 0) {
                let mov = if input {
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(temp, 1 << c)],
                        vec![scalar_src(r, comp)],
                    )
                } else {
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(r, 1 << comp)],
                        vec![scalar_src(temp, c)],
                    )
                };
                self.patch_move(d.at, input, mov);
                let signature = self.signature_name(input, true, d.reg, c);
                let e = IoComponent {
                    d3d_file,
                    d3d_register: d.reg,
                    d3d_component: c,
                    file,
                    index: k,
                    component: comp,
                    semantic: Some((name, 0)),
                    stream: 0,
                    signature,
                };
                if input {
                    self.lay.io_in.push(e);
                } else {
                    self.lay.io_out.push(e);
                }
            }
        }
    }

    /// A patch-constant copy: into the array in the prologue (inputs), out
    /// of it after the patch-constant phases (outputs).
    fn patch_move(&mut self, at: usize, input: bool, mov: Instruction) {
        if input {
            self.lay.prologue.push((at, mov));
        } else {
            self.lay.patch_flush.push((at, mov));
        }
    }

    /// What an output declaration becomes.
    fn output_target(&mut self, d: &IoDecl, clip: &mut u32) -> Result<Target> {
        use SystemValue as S;
        if self.lay.processor == Processor::Fragment {
            return Ok(Target::Out(SemanticName::Color, d.reg));
        }
        Ok(match d.sv {
            S::Position => Target::Out(SemanticName::Position, 0),
            S::ClipDistance => {
                *clip += 1;
                Target::Out(SemanticName::ClipDist, *clip - 1)
            }
            S::CullDistance => {
                *clip += 1;
                Target::Out(SemanticName::ClipDist, *clip - 1)
            }
            S::RenderTargetArrayIndex => Target::Out(SemanticName::Layer, 0),
            S::ViewportArrayIndex => Target::Out(SemanticName::ViewportIndex, 0),
            S::PrimitiveId => Target::Out(SemanticName::PrimId, 0),
            _ => Target::Out(SemanticName::Generic, d.reg),
        })
    }

    fn declare_output(
        &mut self,
        index: u32,
        mask: u8,
        name: SemanticName,
        sem_index: u32,
        stream: u32,
    ) {
        let mut d = Declaration::new(File::Output, index, index);
        d.usage_mask = WriteMask::from_bits_truncate(mask);
        d.semantic = Some(Semantic {
            name,
            index: sem_index,
            streams: [stream as u8; 4],
        });
        self.lay.decls.push(d);
    }

    fn outputs(&mut self, decls: &[IoDecl]) -> Result<()> {
        let geometry = self.lay.processor == Processor::Geometry;
        let multistream = self.lay.gs_multistream;
        let (regs, special): (Vec<&IoDecl>, Vec<&IoDecl>) =
            decls.iter().partition(|d| d.file == RegisterFile::Output);
        let max_reg = regs.iter().map(|d| d.reg + 1).max().unwrap_or(0);
        self.next_out = max_reg;
        let mut clip = 0u32;
        // (stream, reg) → pieces
        let mut by_reg: BTreeMap<(u32, u32), Vec<Piece>> = BTreeMap::new();
        for d in &regs {
            let t = self.output_target(d, &mut clip)?;
            let stream = if geometry { d.stream } else { 0 };
            let pieces = by_reg.entry((stream, d.reg)).or_default();
            match pieces.iter_mut().find(|p| p.1 == t) {
                Some(p) => p.0 |= d.mask,
                None => pieces.push((d.mask, t, d.at)),
            }
        }
        let mut shadows: HashMap<u32, u32> = HashMap::new();
        let mut used_index: BTreeSet<u32> = BTreeSet::new();
        // Which registers need a temporary.
        let mut shadowed: BTreeSet<u32> = BTreeSet::new();
        for ((_, r), pieces) in &by_reg {
            let moved = pieces.iter().any(|p| scalar_semantic(p.1) && p.0 != 1);
            if multistream || pieces.len() > 1 || moved {
                shadowed.insert(*r);
            }
        }
        // Index ranges touching a shadowed register shadow all of theirs.
        let out_ranges: Vec<IndexRange> = self
            .lay
            .ranges
            .iter()
            .filter(|r| r.file == RegisterFile::Output)
            .copied()
            .collect();
        let mut array_of: HashMap<u32, (u32, u32)> = HashMap::new();
        for range in &out_ranges {
            let members = range.first..range.first + range.count;
            if members.clone().any(|m| shadowed.contains(&m)) {
                let a = self.lay.new_array(range.count);
                for (k, m) in members.enumerate() {
                    shadowed.insert(m);
                    array_of.insert(m, (a.first + k as u32, a.id));
                }
            }
        }
        for r in &shadowed {
            let (temp, array) = match array_of.get(r) {
                Some(v) => *v,
                None => (self.lay.persistent_temp(), 0),
            };
            shadows.insert(*r, temp);
            self.lay.outputs.insert(
                (RegisterFile::Output, *r),
                RegMap::Temp { index: temp, array },
            );
        }
        for ((stream, r), pieces) in &by_reg {
            for (n, (mask, t, at)) in pieces.iter().enumerate() {
                let Target::Out(name, sem_index) = *t else {
                    continue;
                };
                let keep = n == 0 && *stream == 0 && !used_index.contains(r);
                let index = if keep {
                    *r
                } else {
                    self.next_out += 1;
                    self.next_out - 1
                };
                used_index.insert(index);
                let sem_index = if name == SemanticName::Generic {
                    index
                } else {
                    sem_index
                };
                let scalar = scalar_semantic(*t);
                let out_mask = if scalar { 1 } else { *mask };
                self.declare_output(index, out_mask, name, sem_index, *stream);
                self.note_io(
                    false,
                    false,
                    RegisterFile::Output,
                    *r,
                    *mask,
                    File::Output,
                    index,
                    Some((name, sem_index)),
                    *stream,
                );
                if scalar && let Some(last) = self.lay.io_out.last_mut() {
                    last.component = 0;
                }
                match shadows.get(r) {
                    None => {
                        self.lay.outputs.insert(
                            (RegisterFile::Output, *r),
                            RegMap::Direct(File::Output, index),
                        );
                    }
                    Some(temp) => {
                        // TGSI keeps LAYER, VIEWPORT_INDEX and PRIM_ID in .x
                        let from = if scalar {
                            scalar_src(reg(File::Temp, *temp as i32), first_component(*mask))
                        } else {
                            src(reg(File::Temp, *temp as i32), [0, 1, 2, 3])
                        };
                        let inst = Instruction::new(
                            Opcode::MOV,
                            vec![dst(reg(File::Output, index as i32), out_mask)],
                            vec![from],
                        );
                        self.lay.flush.entry(*stream).or_default().push((*at, inst));
                    }
                }
            }
        }
        // oDepth, oMask, oStencilRef: a temporary copied to its component.
        for d in special {
            use RegisterFile as R;
            let (name, comp, layout) = match d.file {
                R::OutputDepth => (SemanticName::Position, 2, None),
                R::OutputDepthGreaterEqual => (SemanticName::Position, 2, Some(2)),
                R::OutputDepthLessEqual => (SemanticName::Position, 2, Some(3)),
                R::OutputCoverageMask => (SemanticName::SampleMask, 0, None),
                R::OutputStencilRef => (SemanticName::Stencil, 1, None),
                other => {
                    return Err(self.fail(
                        d.at,
                        format!("output register {} has no TGSI form", other.name()),
                    ));
                }
            };
            if self.lay.outputs.contains_key(&(d.file, 0)) {
                continue;
            }
            if let Some(l) = layout {
                self.lay.depth_layout = Some(l);
                self.prop(PropertyName::FsDepthLayout, l);
            }
            let index = self.next_out;
            self.next_out += 1;
            self.declare_output(index, 1 << comp, name, 0, 0);
            self.note_io(
                false,
                false,
                d.file,
                0,
                1,
                File::Output,
                index,
                Some((name, 0)),
                0,
            );
            if let Some(last) = self.lay.io_out.last_mut() {
                last.component = comp;
            }
            let temp = self.lay.persistent_temp();
            self.lay.outputs.insert(
                (d.file, 0),
                RegMap::Temp {
                    index: temp,
                    array: 0,
                },
            );
            let inst = Instruction::new(
                Opcode::MOV,
                vec![dst(reg(File::Output, index as i32), 1 << comp)],
                vec![scalar_src(reg(File::Temp, temp as i32), 0)],
            );
            self.lay.flush.entry(0).or_default().push((d.at, inst));
        }
        Ok(())
    }

    /// Hull shaders: control-point outputs are per-vertex `OUT[][n]`;
    /// patch constants go to one TEMP array copied to TESSOUTER,
    /// TESSINNER and PATCH outputs at the end.
    fn hull_outputs(&mut self, decls: &[IoDecl]) -> Result<()> {
        let inv = self.sv(SemanticName::InvocationId);
        self.lay.invocation_sv = Some(inv);
        let (patch, cp): (Vec<&IoDecl>, Vec<&IoDecl>) = decls.iter().partition(|d| d.patch);
        let mut cp_regs: BTreeMap<u32, (u8, Option<(SemanticName, u32)>)> = BTreeMap::new();
        for d in &cp {
            let sem = if d.sv == SystemValue::Position {
                (SemanticName::Position, 0)
            } else {
                (SemanticName::Generic, d.reg)
            };
            let e = cp_regs.entry(d.reg).or_insert((0, Some(sem)));
            e.0 |= d.mask;
        }
        // Without a control-point phase the inputs pass through.
        let has_cp_phase = self
            .p
            .instructions
            .iter()
            .any(|i| i.opcode == D::HsControlPointPhase);
        if !has_cp_phase {
            let mut regs: BTreeMap<u32, u8> = BTreeMap::new();
            for e in &self.sigs.inputs {
                if e.register != NO_REGISTER {
                    *regs.entry(e.register).or_default() |= e.mask;
                }
            }
            for ((f, r), m) in &self.lay.inputs {
                if *f == RegisterFile::InputControlPoint && matches!(m, RegMap::PerVertex(..)) {
                    regs.entry(*r).or_insert(0xF);
                }
            }
            for (r, mask) in regs {
                cp_regs
                    .entry(r)
                    .or_insert((mask, Some((SemanticName::Generic, r))));
                if !self
                    .lay
                    .inputs
                    .contains_key(&(RegisterFile::InputControlPoint, r))
                {
                    let mut d = Declaration::new(File::Input, r, r);
                    d.usage_mask = WriteMask::from_bits_truncate(mask);
                    d.semantic = Some(Semantic {
                        name: SemanticName::Generic,
                        index: r,
                        streams: [0; 4],
                    });
                    self.lay.decls.push(d);
                    self.lay.inputs.insert(
                        (RegisterFile::InputControlPoint, r),
                        RegMap::PerVertex(File::Input, r),
                    );
                }
                // OUT[inv][r] = IN[inv][r]
                let invocation = tgsi_ir::ir::IndirectAddr {
                    file: File::SystemValue,
                    index: inv as i32,
                    component: tgsi_ir::ir::Component::X,
                    array_id: 0,
                };
                let mut to = reg(File::Output, r as i32);
                to.dimension = Some(tgsi_ir::ir::Index {
                    offset: 0,
                    indirect: Some(invocation),
                });
                let mut from = reg(File::Input, r as i32);
                from.dimension = to.dimension;
                self.lay.prologue.push((
                    0,
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(to, mask)],
                        vec![src(from, [0, 1, 2, 3])],
                    ),
                ));
            }
        }
        let max_cp = cp_regs.keys().map(|r| r + 1).max().unwrap_or(0);
        for (r, (mask, sem)) in &cp_regs {
            let mut d = Declaration::new(File::Output, *r, *r);
            d.usage_mask = WriteMask::from_bits_truncate(*mask);
            d.semantic = sem.map(|(name, index)| Semantic {
                name,
                index,
                streams: [0; 4],
            });
            self.lay.decls.push(d);
            self.lay.outputs.insert(
                (RegisterFile::Output, *r),
                RegMap::PerVertex(File::Output, *r),
            );
            self.note_io(
                false,
                false,
                RegisterFile::Output,
                *r,
                *mask,
                File::Output,
                *r,
                *sem,
                0,
            );
        }
        self.next_out = max_cp;
        let len = patch.iter().map(|d| d.reg + 1).max().unwrap_or(0).max(
            self.lay
                .ranges
                .iter()
                .filter(|r| r.patch || r.file == RegisterFile::InputPatchConstant)
                .map(|r| r.first + r.count)
                .max()
                .unwrap_or(0),
        );
        if len == 0 {
            return Ok(());
        }
        let a = self.lay.new_array(len);
        self.lay.patch = Some(a);
        self.patch_constant_io(&patch, a, false);
        Ok(())
    }
}
