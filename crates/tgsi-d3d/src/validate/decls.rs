//! The declaration table: what each declaration makes available, checked
//! against the Direct3D 11 limits and the stage as it is built; then the
//! declarations a stage cannot do without.
//!
//! Limits (Direct3D 11 `D3D11_*` constants, the 11.1 UAV slot count, and the
//! "Compute Shaders on Downlevel Hardware" page for `cs_4_x`):
//!
//! | what | limit |
//! |---|---|
//! | `r#` + `x#[…]` registers per phase | 4096 |
//! | input / output registers | 32 (pixel-shader outputs: 8) |
//! | constant buffer slots / size | 14 / 4096 vectors |
//! | immediate constant buffer | 4096 vectors |
//! | samplers / SRVs / UAVs | 16 / 128 / 64 (`cs_4_x`: one UAV, raw or structured) |
//! | structure stride | 4 … 2048 bytes, a multiple of 4 |
//! | thread-group shared memory | 32 KiB (`cs_4_x`: 16 KiB) |
//! | thread group | x, y ≤ 1024, z ≤ 64, x·y·z ≤ 1024 (`cs_4_x`: x, y ≤ 768, z = 1, x·y·z ≤ 768) |
//! | GS output vertices / instances / streams | 1024 / 32 / 4 |
//! | control points / max tessellation factor | 32 / 1.0 … 64.0 |

use std::collections::{HashMap, HashSet};

use super::layout::{Class, Layout, ScopeKind, classify};
use super::{Reporter, Site, mask_letters, stage_name};
use crate::enums::{
    GlobalFlags, InputPrimitive, Interpolation, PrimitiveTopology, ProgramType, RegisterFile,
    ResourceDimension, SamplerMode, TessellatorDomain, TessellatorOutputPrimitive,
    TessellatorPartitioning,
};
use crate::ir::{Components, CustomData, Instruction, Payload, Program, Version};
use crate::opcode::Opcode;

pub(crate) const MAX_TEMPS: u32 = 4096;
pub(crate) const MAX_IO_REGISTERS: u32 = 32;
pub(crate) const MAX_PS_OUTPUTS: u32 = 8;
pub(crate) const MAX_CONSTANT_BUFFERS: u32 = 14;
pub(crate) const MAX_CONSTANT_BUFFER_VECTORS: u32 = 4096;
pub(crate) const MAX_ICB_VECTORS: u32 = 4096;
pub(crate) const MAX_SAMPLERS: u32 = 16;
pub(crate) const MAX_RESOURCES: u32 = 128;
pub(crate) const MAX_UAVS: u32 = 64;
pub(crate) const MAX_STRIDE: u32 = 2048;
pub(crate) const MAX_GS_OUTPUT_VERTICES: u32 = 1024;
pub(crate) const MAX_GS_INSTANCES: u32 = 32;
pub(crate) const MAX_STREAMS: u32 = 4;
pub(crate) const MAX_CONTROL_POINTS: u32 = 32;

/// How an SRV, UAV or shared-memory register was declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ResourceKind {
    Typed(ResourceDimension),
    Raw,
    Structured(u32),
}

impl ResourceKind {
    pub fn describe(self) -> String {
        match self {
            ResourceKind::Typed(d) => format!("a typed {}", d.name()),
            ResourceKind::Raw => "a raw buffer".to_string(),
            ResourceKind::Structured(stride) => format!("a structured buffer (stride {stride})"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct ResourceDecl {
    pub kind: ResourceKind,
    pub inst: usize,
    /// SM5.1: the registers the declaration binds (`T0[2:6]`; `*` = u32::MAX)
    pub range: Option<(u64, u64)>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct ConstantBufferDecl {
    /// size in vectors (None: SM5.1 without a size, or 0 = unknown)
    pub size: Option<u32>,
    pub dynamic: bool,
    pub inst: usize,
}

/// `dcl_indexrange`: registers `start .. start + count` of `file` with `mask`
/// may be indexed relatively.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexRange {
    pub file: RegisterFile,
    pub start: u32,
    pub count: u32,
    pub mask: u8,
}

impl ScopeDecls {
    /// Notes declaration `i` as where `r#` and `x#` together first passed
    /// [`MAX_TEMPS`], if they now do.
    fn note_temps(&mut self, i: usize) {
        if self.temps.unwrap_or(0) as u64 + self.indexable_total > MAX_TEMPS as u64 {
            self.temps_exceeded_at.get_or_insert(i);
        }
    }
}

/// The declarations of one section (the program, or a hull-shader phase).
#[derive(Clone, Debug, Default)]
pub(crate) struct ScopeDecls {
    pub temps: Option<u32>,
    /// `x#` → (register count, component count)
    pub indexable: HashMap<u32, (u32, u32)>,
    /// The registers of the `dcl_indexableTemp`s so far, and the first
    /// one that took `r#` and `x#` together past [`MAX_TEMPS`].
    pub indexable_total: u64,
    pub temps_exceeded_at: Option<usize>,
    /// input/output registers (`v#`, `o#`, `vpc#`, `vicp`, `vocp`): (file, register) → mask
    pub registers: HashMap<(RegisterFile, u32), u8>,
    /// system-value registers declared by `dcl_input`/`dcl_output` (`vThreadID`, `oDepth` …)
    pub system: HashSet<RegisterFile>,
    pub index_ranges: Vec<IndexRange>,
    /// where `dcl_temps` is (for duplicates)
    temps_at: Option<usize>,
}

/// Everything the program declares.
#[derive(Clone, Debug, Default)]
pub(crate) struct Declarations {
    pub global_flags: GlobalFlags,
    /// per layout scope
    pub scopes: Vec<ScopeDecls>,
    pub constant_buffers: HashMap<u32, ConstantBufferDecl>,
    pub samplers: HashMap<u32, SamplerMode>,
    pub resources: HashMap<u32, ResourceDecl>,
    pub uavs: HashMap<u32, ResourceDecl>,
    pub tgsm: HashMap<u32, ResourceDecl>,
    /// vectors in `dcl_immediateConstantBuffer`
    pub icb_vectors: Option<u32>,
    pub streams: HashSet<u32>,
    pub function_bodies: HashMap<u32, usize>,
    pub function_tables: HashSet<u32>,
    /// `fp#` → array size
    pub interfaces: HashMap<u32, u32>,
    pub thread_group: Option<[u32; 3]>,
    /// GS: vertices per input primitive; HS/DS: input control points
    pub input_vertices: Option<u32>,
    pub output_control_points: Option<u32>,
    global_flags_at: Option<usize>,
    icb_at: Option<usize>,
}

impl Declarations {
    /// The declarations of `scope`, falling back to the global section (the
    /// hull shader's `hs_decls`).
    pub fn lookup<T>(&self, scope: usize, f: impl Fn(&ScopeDecls) -> Option<T>) -> Option<T> {
        self.scopes.get(scope).and_then(&f).or_else(|| {
            if scope != 0 {
                self.scopes.first().and_then(&f)
            } else {
                None
            }
        })
    }

    pub fn temps(&self, scope: usize) -> Option<u32> {
        self.lookup(scope, |s| s.temps)
    }

    pub fn indexable(&self, scope: usize, reg: u32) -> Option<(u32, u32)> {
        self.lookup(scope, |s| s.indexable.get(&reg).copied())
    }

    pub fn register_mask(&self, scope: usize, file: RegisterFile, reg: u32) -> Option<u8> {
        self.lookup(scope, |s| s.registers.get(&(file, reg)).copied())
    }

    pub fn has_system(&self, scope: usize, file: RegisterFile) -> bool {
        self.lookup(scope, |s| s.system.contains(&file).then_some(()))
            .is_some()
    }

    /// The index range of `file` holding register `reg`.
    pub fn index_range(&self, scope: usize, file: RegisterFile, reg: u32) -> Option<IndexRange> {
        self.lookup(scope, |s| {
            s.index_ranges
                .iter()
                .find(|r| r.file == file && reg >= r.start && reg - r.start < r.count)
                .copied()
        })
    }

    /// Builds the table, reporting what is wrong with each declaration and
    /// what the stage needs but lacks.
    pub fn build(program: &Program, layout: &Layout, report: &mut Reporter) -> Declarations {
        let mut d = Declarations {
            scopes: vec![ScopeDecls::default(); layout.scopes.len()],
            ..Default::default()
        };
        let mut b = Builder {
            version: program.version,
            d: &mut d,
            report,
            tgsm_bytes: 0,
            uav_count: 0,
            stream: 0,
            declared: HashMap::new(),
        };
        for (i, inst) in program.instructions.iter().enumerate() {
            if classify(inst) == Class::Declaration {
                let scope = layout.scope_of.get(i).copied().unwrap_or(0);
                b.declaration(inst, i, scope, layout.kind_of(i));
            }
        }
        b.finish(program, layout);
        d
    }
}

struct Builder<'d, 'r, 'a> {
    version: Version,
    d: &'d mut Declarations,
    report: &'r mut Reporter<'a>,
    tgsm_bytes: u64,
    uav_count: u32,
    /// the stream of the last `dcl_stream`
    stream: u32,
    /// components declared so far: (scope, stream, file, register) → mask
    declared: HashMap<(usize, u32, RegisterFile, u32), u8>,
}

/// True for `cs_4_0` / `cs_4_1`.
pub(crate) fn is_cs_4x(v: Version) -> bool {
    v.program_type == ProgramType::Compute && v.major == 4
}

/// The stages that have a register file (None: every stage).
pub(crate) fn file_stages(file: RegisterFile) -> Option<&'static [ProgramType]> {
    use ProgramType::*;
    use RegisterFile as F;
    Some(match file {
        F::InputThreadId
        | F::InputThreadGroupId
        | F::InputThreadIdInGroup
        | F::InputThreadIdInGroupFlattened
        | F::ThreadGroupSharedMemory => &[Compute],
        F::OutputControlPointId
        | F::InputForkInstanceId
        | F::InputJoinInstanceId
        | F::OutputControlPoint => &[Hull],
        F::InputControlPoint | F::InputPatchConstant => &[Hull, Domain],
        F::InputDomainPoint => &[Domain],
        F::InputPrimitiveId => &[Geometry, Hull, Domain],
        F::InputGsInstanceId | F::Stream => &[Geometry],
        F::InputCoverageMask
        | F::InnerCoverage
        | F::OutputDepth
        | F::OutputDepthGreaterEqual
        | F::OutputDepthLessEqual
        | F::OutputCoverageMask
        | F::OutputStencilRef
        | F::Rasterizer => &[Pixel],
        F::Input | F::Output => &[Vertex, Hull, Domain, Geometry, Pixel],
        _ => return None,
    })
}

/// True if `stage` has `file` (libraries have every file).
pub(crate) fn stage_has_file(stage: ProgramType, file: RegisterFile) -> bool {
    stage == ProgramType::Library || file_stages(file).is_none_or(|s| s.contains(&stage))
}

/// Files a `dcl_input*` may declare.
fn is_input_file(file: RegisterFile) -> bool {
    use RegisterFile as F;
    matches!(
        file,
        F::Input
            | F::InputPrimitiveId
            | F::InputControlPoint
            | F::OutputControlPoint
            | F::InputPatchConstant
            | F::InputDomainPoint
            | F::OutputControlPointId
            | F::InputForkInstanceId
            | F::InputJoinInstanceId
            | F::InputThreadId
            | F::InputThreadGroupId
            | F::InputThreadIdInGroup
            | F::InputThreadIdInGroupFlattened
            | F::InputCoverageMask
            | F::InputGsInstanceId
            | F::CycleCounter
            | F::InnerCoverage
    )
}

/// Files a `dcl_output*` may declare.
fn is_output_file(file: RegisterFile) -> bool {
    use RegisterFile as F;
    matches!(
        file,
        F::Output
            | F::OutputDepth
            | F::OutputDepthGreaterEqual
            | F::OutputDepthLessEqual
            | F::OutputCoverageMask
            | F::OutputStencilRef
    )
}

/// Files whose registers are declared one by one (with a mask) rather than
/// as a whole.
pub(crate) fn is_numbered_io(file: RegisterFile) -> bool {
    matches!(
        file,
        RegisterFile::Input
            | RegisterFile::Output
            | RegisterFile::InputPatchConstant
            | RegisterFile::InputControlPoint
            | RegisterFile::OutputControlPoint
    )
}

impl Builder<'_, '_, '_> {
    fn stage(&self) -> ProgramType {
        self.version.program_type
    }

    fn error(&mut self, site: Site, message: impl Into<String>, label: impl Into<String>) {
        self.report.error(site, message, label);
    }

    /// Reports a second declaration of `what` (`sampler \`s3\``) at `site`,
    /// pointing at the first one when it is known.
    fn declared_twice(&mut self, site: Site, what: &str, first: Option<usize>) {
        self.error(
            site,
            format!("{what} is declared twice"),
            "second declaration",
        );
        if let Some(first) = first {
            self.report.also(Site::Inst(first), "first declared here");
        }
    }

    /// Before SM5.1, register `{prefix}{slot}` of a `what` (`sampler`) must
    /// be one of the `count` slots.
    fn check_slot(&mut self, i: usize, what: &str, prefix: &str, slot: u32, count: u32) {
        if !self.version.is_sm51() && slot >= count {
            self.error(
                Site::Operand(i, 0),
                format!(
                    "{what} `{prefix}{slot}` is out of range: the slots are {prefix}0 to {prefix}{}",
                    count - 1
                ),
                "slot out of range",
            );
        }
    }

    /// The register number a declaration names (its first index; for
    /// per-vertex registers `v[n][r]`, the last).
    fn register_of(inst: &Instruction) -> Option<u32> {
        let op = inst.operands.first()?;
        let index = if is_numbered_io(op.file) {
            op.indices.last()?
        } else {
            op.indices.first()?
        };
        Some(index.immediate() as u32)
    }

    fn declaration(&mut self, inst: &Instruction, i: usize, scope: usize, kind: ScopeKind) {
        // shape problems (operand count, payload) are reported with the instruction checks
        match (inst.opcode, &inst.payload) {
            (Opcode::DclTemps, Payload::Count(n)) => {
                let s = &mut self.d.scopes[scope];
                if let Some(first) = s.temps_at {
                    self.error(
                        Site::Inst(i),
                        "`dcl_temps` appears twice in one section",
                        "second declaration",
                    );
                    self.report.also(Site::Inst(first), "first declared here");
                } else {
                    s.temps = Some(*n);
                    s.temps_at = Some(i);
                    // (with x# declared before it; alone it is checked below)
                    if s.indexable_total > 0 {
                        s.note_temps(i);
                    }
                }
                if *n > MAX_TEMPS {
                    self.error(
                        Site::Inst(i),
                        format!(
                            "`dcl_temps {n}` exceeds the limit of {MAX_TEMPS} temporary registers"
                        ),
                        "too many temps",
                    );
                }
            }
            (
                Opcode::DclIndexableTemp,
                Payload::IndexableTemp {
                    register,
                    count,
                    components,
                },
            ) => {
                if !(1..=4).contains(components) {
                    self.error(
                        Site::Inst(i),
                        format!("`x{register}` has {components} components; expected 1 to 4"),
                        "bad component count",
                    );
                }
                if *count == 0 {
                    self.error(
                        Site::Inst(i),
                        format!("`x{register}` declares no registers"),
                        "expected a count of at least 1",
                    );
                }
                let decls = &mut self.d.scopes[scope];
                let earlier = decls.indexable.insert(*register, (*count, *components));
                // the registers of the declarations in force (a second
                // declaration of one `x#` replaces the first)
                decls.indexable_total += *count as u64;
                decls.indexable_total -= earlier.map_or(0, |(c, _)| c as u64);
                decls.note_temps(i);
                if earlier.is_some() {
                    self.error(
                        Site::Inst(i),
                        format!("`x{register}` is declared twice in one section"),
                        "second declaration",
                    );
                }
            }
            (Opcode::DclGlobalFlags, Payload::None) => self.global_flags(inst, i),
            (op, _) if op.declares_input() || op.declares_output() => self.io(inst, i, scope, kind),
            (Opcode::DclIndexRange, Payload::Count(count)) => {
                self.index_range(inst, i, scope, *count)
            }
            // each of these checks its own declarations and passes over the others
            _ => {
                self.resource_declaration(inst, i);
                self.stage_declaration(inst, i, kind);
                self.linkage_declaration(inst, i);
            }
        }
    }

    /// Constant buffers, samplers, shader resources, UAVs and shared memory.
    fn resource_declaration(&mut self, inst: &Instruction, i: usize) {
        let stage = self.stage();
        match (inst.opcode, &inst.payload) {
            (Opcode::DclConstantBuffer, Payload::ConstantBuffer(range)) => {
                let Some(op) = inst.operands.first() else {
                    return;
                };
                let slot = op.indices.first().map_or(0, |x| x.immediate() as u32);
                let size = if self.version.is_sm51() {
                    range.map(|r| r.size)
                } else {
                    op.indices.get(1).map(|x| x.immediate() as u32)
                };
                self.check_slot(i, "constant buffer", "cb", slot, MAX_CONSTANT_BUFFERS);
                if let Some(size) = size.filter(|&s| s > MAX_CONSTANT_BUFFER_VECTORS) {
                    self.error(Site::Operand(i, 0), format!("constant buffer of {size} vectors exceeds the limit of {MAX_CONSTANT_BUFFER_VECTORS}"), "too large");
                }
                let decl = ConstantBufferDecl {
                    size: size.filter(|&s| s != 0),
                    dynamic: inst.controls.cb_access.0
                        == crate::enums::ConstantBufferAccess::DynamicIndexed,
                    inst: i,
                };
                if let Some(first) = self.d.constant_buffers.insert(slot, decl) {
                    let what = format!("constant buffer `cb{slot}`");
                    self.declared_twice(Site::Operand(i, 0), &what, Some(first.inst));
                }
            }
            (Opcode::DclSampler, _) => {
                let Some(slot) = Self::register_of(inst) else {
                    return;
                };
                self.check_slot(i, "sampler", "s", slot, MAX_SAMPLERS);
                let mode = inst.controls.sampler_mode.0;
                // `dcl_sampler (sm4 - asm)`: "Using a sampler in mono mode is supported only in a pixel shader."
                if mode == SamplerMode::Mono
                    && !matches!(stage, ProgramType::Pixel | ProgramType::Library)
                {
                    self.error(
                        Site::Inst(i),
                        format!(
                            "`mode_mono` samplers exist only in pixel shaders, not in a {}",
                            stage_name(stage)
                        ),
                        "mono sampler",
                    );
                }
                if self.d.samplers.insert(slot, mode).is_some() {
                    self.declared_twice(Site::Operand(i, 0), &format!("sampler `s{slot}`"), None);
                }
            }
            (Opcode::DclResource, _) => {
                let dim = inst.controls.resource_dimension.0;
                let valid = !matches!(
                    dim,
                    ResourceDimension::Unknown
                        | ResourceDimension::RawBuffer
                        | ResourceDimension::StructuredBuffer
                );
                if !valid {
                    self.error(Site::Inst(i), format!("`dcl_resource` with dimension `{}`: expected a buffer or texture dimension (raw and structured buffers have their own declarations)", dim.name()), "bad dimension");
                }
                self.dimension_model(dim, i);
                // the sample count belongs to multisampled textures only
                if !dim.is_multisampled() && inst.controls.sample_count != 0 {
                    self.error(
                        Site::Inst(i),
                        format!(
                            "a sample count ({}) on a `{}` resource, which is not multisampled",
                            inst.controls.sample_count,
                            dim.name()
                        ),
                        "unexpected sample count",
                    );
                } else if inst.controls.sample_count > 32 {
                    self.error(
                        Site::Inst(i),
                        format!("sample count {} exceeds 32", inst.controls.sample_count),
                        "too many samples",
                    );
                }
                self.srv(inst, i, ResourceKind::Typed(dim));
            }
            (Opcode::DclResourceRaw, _) => self.srv(inst, i, ResourceKind::Raw),
            (Opcode::DclResourceStructured, Payload::Structured { stride, .. }) => {
                self.stride(*stride, i);
                self.srv(inst, i, ResourceKind::Structured(*stride));
            }
            (Opcode::DclUavTyped, _) => {
                let dim = inst.controls.resource_dimension.0;
                // typed UAVs: buffers, 1D/2D (arrays) and 3D textures; no multisampled or cube views
                let valid = matches!(
                    dim,
                    ResourceDimension::Buffer
                        | ResourceDimension::Texture1D
                        | ResourceDimension::Texture1DArray
                        | ResourceDimension::Texture2D
                        | ResourceDimension::Texture2DArray
                        | ResourceDimension::Texture3D
                );
                if !valid {
                    self.error(Site::Inst(i), format!("`dcl_uav_typed` with dimension `{}`: a typed UAV is a buffer or a 1D, 2D or 3D texture (or array)", dim.name()), "bad UAV dimension");
                }
                self.uav(inst, i, ResourceKind::Typed(dim));
            }
            (Opcode::DclUavRaw, _) => self.uav(inst, i, ResourceKind::Raw),
            (Opcode::DclUavStructured, Payload::Structured { stride, .. }) => {
                self.stride(*stride, i);
                self.uav(inst, i, ResourceKind::Structured(*stride));
            }
            (Opcode::DclTgsmRaw, Payload::Count(bytes)) => {
                if *bytes == 0 || !bytes.is_multiple_of(4) {
                    self.error(
                        Site::Inst(i),
                        format!(
                            "shared memory of {bytes} bytes: expected a positive multiple of 4"
                        ),
                        "bad size",
                    );
                }
                self.tgsm(inst, i, ResourceKind::Raw, *bytes as u64);
            }
            (Opcode::DclTgsmStructured, Payload::TgsmStructured { stride, count }) => {
                self.stride(*stride, i);
                if *count == 0 {
                    self.error(
                        Site::Inst(i),
                        "shared memory of 0 structures",
                        "expected at least 1",
                    );
                }
                self.tgsm(
                    inst,
                    i,
                    ResourceKind::Structured(*stride),
                    *stride as u64 * *count as u64,
                );
            }
            _ => {}
        }
    }

    /// The thread group of a compute shader and the geometry shader's
    /// primitives, vertex count, instances and streams.
    fn stage_declaration(&mut self, inst: &Instruction, i: usize, kind: ScopeKind) {
        match (inst.opcode, &inst.payload) {
            (Opcode::DclThreadGroup, Payload::ThreadGroup(size)) => self.thread_group(*size, i),
            (Opcode::DclMaxOutputVertexCount, Payload::Count(n)) if *n > MAX_GS_OUTPUT_VERTICES => {
                self.error(Site::Inst(i), format!("`dcl_maxout {n}` exceeds the limit of {MAX_GS_OUTPUT_VERTICES} output vertices"), "too many vertices");
            }
            (Opcode::DclGsInstanceCount, Payload::Count(n))
                if !(1..=MAX_GS_INSTANCES).contains(n) =>
            {
                self.error(
                    Site::Inst(i),
                    format!("`dcl_gsinstances {n}`: expected 1 to {MAX_GS_INSTANCES} instances"),
                    "bad instance count",
                );
            }
            (Opcode::DclGsInputPrimitive, _) => {
                let p = inst.controls.input_primitive.0;
                let vertices = match p {
                    InputPrimitive::Undefined => {
                        self.error(
                            Site::Inst(i),
                            "`dcl_inputprimitive` names no primitive",
                            "expected point, line, triangle, lineadj, triangleadj or patchN",
                        );
                        None
                    }
                    InputPrimitive::Point => Some(1),
                    InputPrimitive::Line => Some(2),
                    InputPrimitive::Triangle => Some(3),
                    InputPrimitive::LineAdj => Some(4),
                    InputPrimitive::TriangleAdj => Some(6),
                    patch => Some(patch.number() - InputPrimitive::Patch1.number() + 1),
                };
                if vertices.is_some_and(|v| v > 6) && self.version.major < 5 {
                    self.error(
                        Site::Inst(i),
                        format!("`{}` input primitives need shader model 5.0", p.name()),
                        "patch input in a 4.x shader",
                    );
                }
                self.d.input_vertices = vertices;
            }
            (Opcode::DclGsOutputPrimitiveTopology, _) => {
                let t = inst.controls.output_topology.0;
                // `dcl_outputtopology`: a geometry shader emits points, line strips or triangle strips
                if !matches!(
                    t,
                    PrimitiveTopology::PointList
                        | PrimitiveTopology::LineStrip
                        | PrimitiveTopology::TriangleStrip
                ) {
                    self.error(Site::Inst(i), format!("`dcl_outputtopology {}`: expected pointlist, linestrip or trianglestrip", t.name()), "bad topology");
                }
            }
            (Opcode::DclStream, _) => {
                let Some(m) = Self::register_of(inst) else {
                    return;
                };
                if m >= MAX_STREAMS {
                    self.error(
                        Site::Operand(i, 0),
                        format!(
                            "stream `m{m}` is out of range: the streams are m0 to m{}",
                            MAX_STREAMS - 1
                        ),
                        "stream out of range",
                    );
                }
                self.stream = m;
                if !self.d.streams.insert(m) {
                    self.declared_twice(Site::Operand(i, 0), &format!("stream `m{m}`"), None);
                }
            }
            _ => self.tessellation_declaration(inst, i, kind),
        }
    }

    /// The tessellation stages' control points, tessellator settings and
    /// phase instance counts.
    fn tessellation_declaration(&mut self, inst: &Instruction, i: usize, kind: ScopeKind) {
        let stage = self.stage();
        match (inst.opcode, &inst.payload) {
            (Opcode::DclInputControlPointCount | Opcode::DclOutputControlPointCount, _) => {
                let n = inst.controls.control_point_count as u32;
                let input = inst.opcode == Opcode::DclInputControlPointCount;
                let min = if input { 1 } else { 0 };
                if !(min..=MAX_CONTROL_POINTS).contains(&n) {
                    self.error(
                        Site::Inst(i),
                        format!(
                            "`{} {n}`: expected {min} to {MAX_CONTROL_POINTS} control points",
                            inst.opcode.name()
                        ),
                        "bad control point count",
                    );
                }
                if input {
                    self.d.input_vertices = Some(n);
                } else {
                    self.d.output_control_points = Some(n);
                }
            }
            (Opcode::DclTessDomain, _)
                if inst.controls.tess_domain.0 == TessellatorDomain::Undefined =>
            {
                self.error(
                    Site::Inst(i),
                    "`dcl_tessellator_domain` names no domain",
                    "expected domain_isoline, domain_tri or domain_quad",
                );
            }
            (Opcode::DclTessPartitioning, _)
                if inst.controls.tess_partitioning.0 == TessellatorPartitioning::Undefined =>
            {
                self.error(
                    Site::Inst(i),
                    "`dcl_tessellator_partitioning` names no partitioning",
                    "expected integer, pow2, fractional_odd or fractional_even",
                );
            }
            (Opcode::DclTessOutputPrimitive, _)
                if inst.controls.tess_output_primitive.0
                    == TessellatorOutputPrimitive::Undefined =>
            {
                self.error(
                    Site::Inst(i),
                    "`dcl_tessellator_output_primitive` names no primitive",
                    "expected output_point, output_line, output_triangle_cw or output_triangle_ccw",
                );
            }
            (Opcode::DclHsMaxTessFactor, Payload::Float(bits)) => {
                let f = f32::from_bits(*bits);
                if !(1.0..=64.0).contains(&f) {
                    self.error(
                        Site::Inst(i),
                        format!("`dcl_hs_max_tessfactor` {f}: expected 1.0 to 64.0"),
                        "out of range",
                    );
                }
            }
            (
                Opcode::DclHsForkPhaseInstanceCount | Opcode::DclHsJoinPhaseInstanceCount,
                Payload::Count(n),
            ) => {
                let wanted = if inst.opcode == Opcode::DclHsForkPhaseInstanceCount {
                    ScopeKind::Fork
                } else {
                    ScopeKind::Join
                };
                if stage == ProgramType::Hull && kind != wanted {
                    let phase = if wanted == ScopeKind::Fork {
                        "hs_fork_phase"
                    } else {
                        "hs_join_phase"
                    };
                    self.error(
                        Site::Inst(i),
                        format!("`{}` outside an `{phase}`", inst.opcode.name()),
                        format!("expected inside an `{phase}`"),
                    );
                }
                if *n == 0 {
                    self.error(
                        Site::Inst(i),
                        "a phase instance count of 0",
                        "expected at least 1",
                    );
                }
            }
            _ => {}
        }
    }

    /// Function bodies, function tables, interfaces and the immediate
    /// constant buffer.
    fn linkage_declaration(&mut self, inst: &Instruction, i: usize) {
        match (inst.opcode, &inst.payload) {
            (Opcode::DclFunctionBody, Payload::Count(n)) => {
                let first = self.d.function_bodies.insert(*n, i);
                if first.is_some() {
                    self.declared_twice(Site::Inst(i), &format!("function body `fb{n}`"), None);
                }
            }
            (Opcode::DclFunctionTable, Payload::FunctionTable { index, bodies }) => {
                for b in bodies {
                    if !self.d.function_bodies.contains_key(b) {
                        self.error(Site::Inst(i), format!("function table `ft{index}` names `fb{b}`, which no `dcl_function_body` declares"), "undeclared function body");
                    }
                }
                if !self.d.function_tables.insert(*index) {
                    let what = format!("function table `ft{index}`");
                    self.declared_twice(Site::Inst(i), &what, None);
                }
            }
            (
                Opcode::DclInterface,
                Payload::Interface {
                    index,
                    array_size,
                    tables,
                    ..
                },
            ) => {
                for t in tables {
                    if !self.d.function_tables.contains(t) {
                        self.error(Site::Inst(i), format!("interface `fp{index}` names `ft{t}`, which no `dcl_function_table` declares"), "undeclared function table");
                    }
                }
                if self
                    .d
                    .interfaces
                    .insert(*index, *array_size as u32)
                    .is_some()
                {
                    self.declared_twice(Site::Inst(i), &format!("interface `fp{index}`"), None);
                }
            }
            (
                Opcode::CustomData,
                Payload::CustomData(CustomData::ImmediateConstantBuffer(data)),
            ) => {
                if let Some(first) = self.d.icb_at {
                    self.error(
                        Site::Inst(i),
                        "a second immediate constant buffer",
                        "only one is allowed",
                    );
                    self.report.also(Site::Inst(first), "the first is here");
                }
                self.d.icb_at.get_or_insert(i);
                if !data.len().is_multiple_of(4) {
                    self.error(
                        Site::Inst(i),
                        format!(
                            "immediate constant buffer of {} values: expected whole vectors of 4",
                            data.len()
                        ),
                        "incomplete vector",
                    );
                }
                let vectors = data.len().div_ceil(4) as u32;
                if vectors > MAX_ICB_VECTORS {
                    self.error(Site::Inst(i), format!("immediate constant buffer of {vectors} vectors exceeds the limit of {MAX_ICB_VECTORS}"), "too large");
                }
                self.d.icb_vectors = Some(vectors);
            }
            _ => {}
        }
    }

    fn global_flags(&mut self, inst: &Instruction, i: usize) {
        if let Some(first) = self.d.global_flags_at {
            self.error(
                Site::Inst(i),
                "`dcl_globalFlags` appears twice",
                "second declaration",
            );
            self.report.also(Site::Inst(first), "first declared here");
        }
        self.d.global_flags_at.get_or_insert(i);
        let flags = inst.controls.global_flags;
        self.d.global_flags |= flags;
        if flags.contains(GlobalFlags::FORCE_EARLY_DEPTH_STENCIL)
            && !matches!(self.stage(), ProgramType::Pixel | ProgramType::Library)
        {
            self.error(
                Site::Inst(i),
                format!(
                    "`forceEarlyDepthStencil` applies to pixel shaders, not to a {}",
                    stage_name(self.stage())
                ),
                "pixel-shader flag",
            );
        }
        let sm5 = GlobalFlags::ENABLE_DOUBLE_PRECISION_FLOAT_OPS
            | GlobalFlags::ENABLE_11_1_DOUBLE_EXTENSIONS
            | GlobalFlags::ENABLE_11_1_SHADER_EXTENSIONS
            | GlobalFlags::ENABLE_MINIMUM_PRECISION;
        if self.version.major < 5 && flags.intersects(sm5) {
            self.error(Site::Inst(i), "global flags of shader model 5 (doubles, 11.1 extensions, minimum precision) in a 4.x shader", "needs shader model 5.0");
        }
    }

    /// The `[lower:upper]` range of an SM5.1 resource declaration.
    fn range_of(&self, inst: &Instruction) -> Option<(u64, u64)> {
        let op = inst.operands.first()?;
        if !self.version.is_sm51() || op.indices.len() != 3 {
            return None;
        }
        Some((op.indices[1].immediate(), op.indices[2].immediate()))
    }

    fn dimension_model(&mut self, dim: ResourceDimension, i: usize) {
        if dim == ResourceDimension::TextureCubeArray
            && (self.version.major, self.version.minor) < (4, 1)
        {
            self.error(
                Site::Inst(i),
                "cube-map arrays need shader model 4.1",
                "texturecubearray in a 4.0 shader",
            );
        }
    }

    fn stride(&mut self, stride: u32, i: usize) {
        if stride == 0 || !stride.is_multiple_of(4) || stride > MAX_STRIDE {
            self.error(
                Site::Inst(i),
                format!(
                    "structure stride {stride}: expected a multiple of 4 from 4 to {MAX_STRIDE}"
                ),
                "bad stride",
            );
        }
    }

    fn srv(&mut self, inst: &Instruction, i: usize, kind: ResourceKind) {
        let Some(slot) = Self::register_of(inst) else {
            return;
        };
        self.check_slot(i, "resource", "t", slot, MAX_RESOURCES);
        if let Some(first) = self.d.resources.insert(
            slot,
            ResourceDecl {
                kind,
                inst: i,
                range: self.range_of(inst),
            },
        ) {
            let what = format!("resource `t{slot}`");
            self.declared_twice(Site::Operand(i, 0), &what, Some(first.inst));
        }
    }

    fn uav(&mut self, inst: &Instruction, i: usize, kind: ResourceKind) {
        let Some(slot) = Self::register_of(inst) else {
            return;
        };
        self.uav_count += 1;
        if is_cs_4x(self.version) {
            // "Only a single UAV may be bound … Typed UAVs are not supported on downlevel hardware."
            if self.uav_count == 2 {
                self.error(Site::Inst(i), "a second UAV in a `cs_4_x` shader: compute shaders on 10.x hardware have one UAV", "one UAV only");
            }
        } else {
            self.check_slot(i, "UAV", "u", slot, MAX_UAVS);
        }
        if let Some(first) = self.d.uavs.insert(
            slot,
            ResourceDecl {
                kind,
                inst: i,
                range: self.range_of(inst),
            },
        ) {
            let what = format!("UAV `u{slot}`");
            self.declared_twice(Site::Operand(i, 0), &what, Some(first.inst));
        }
    }

    fn tgsm(&mut self, inst: &Instruction, i: usize, kind: ResourceKind, bytes: u64) {
        let Some(slot) = Self::register_of(inst) else {
            return;
        };
        let limit: u64 = if is_cs_4x(self.version) {
            16 * 1024
        } else {
            32 * 1024
        };
        let before = self.tgsm_bytes;
        self.tgsm_bytes += bytes;
        if before <= limit && self.tgsm_bytes > limit {
            self.error(
                Site::Inst(i),
                format!(
                    "thread-group shared memory totals {} bytes, over the limit of {limit}",
                    self.tgsm_bytes
                ),
                "too much shared memory",
            );
        }
        if let Some(first) = self.d.tgsm.insert(
            slot,
            ResourceDecl {
                kind,
                inst: i,
                range: self.range_of(inst),
            },
        ) {
            let what = format!("shared memory `g{slot}`");
            self.declared_twice(Site::Operand(i, 0), &what, Some(first.inst));
        }
    }

    fn thread_group(&mut self, [x, y, z]: [u32; 3], i: usize) {
        if self.d.thread_group.is_some() {
            self.error(
                Site::Inst(i),
                "`dcl_thread_group` appears twice",
                "second declaration",
            );
        }
        self.d.thread_group = Some([x, y, z]);
        let total = (x as u64).saturating_mul(y as u64).saturating_mul(z as u64);
        // D3D11_CS_THREAD_GROUP_MAX_* and the downlevel page's 768 / z = 1
        let (max_xy, max_z, max_total) = if is_cs_4x(self.version) {
            (768, 1, 768)
        } else {
            (1024, 64, 1024)
        };
        let what = if is_cs_4x(self.version) {
            "cs_4_x"
        } else {
            "cs_5_0"
        };
        if x == 0 || y == 0 || z == 0 {
            self.error(
                Site::Inst(i),
                format!("thread group {x}×{y}×{z} has an empty dimension"),
                "expected at least 1 in each dimension",
            );
        } else if x > max_xy || y > max_xy || z > max_z || total > max_total {
            self.error(
                Site::Inst(i),
                format!("thread group {x}×{y}×{z} ({total} threads) exceeds the {what} limits: x and y ≤ {max_xy}, z ≤ {max_z}, x·y·z ≤ {max_total}"),
                "thread group too large",
            );
        }
    }

    fn io(&mut self, inst: &Instruction, i: usize, scope: usize, kind: ScopeKind) {
        let Some(op) = inst.operands.first() else {
            return;
        };
        let stage = self.stage();
        let input = inst.opcode.declares_input();
        let fits = if input {
            is_input_file(op.file)
        } else {
            is_output_file(op.file)
        };
        if !fits {
            let what = if input { "an input" } else { "an output" };
            self.error(
                Site::Operand(i, 0),
                format!(
                    "`{}` declares `{}`, which is not {what} register",
                    inst.opcode.name(),
                    op.file.name()
                ),
                format!("expected {what} register"),
            );
            return;
        }
        if !stage_has_file(stage, op.file) {
            self.error(
                Site::Operand(i, 0),
                format!(
                    "a {} has no `{}` register",
                    stage_name(stage),
                    op.file.name()
                ),
                "not in this stage",
            );
            return;
        }
        phase_file(self.report, stage, kind, op.file, Site::Operand(i, 0));
        if matches!(
            inst.opcode,
            Opcode::DclInputPs | Opcode::DclInputPsSgv | Opcode::DclInputPsSiv
        ) {
            let mode = inst.controls.interpolation.0;
            if mode == Interpolation::Undefined && inst.opcode == Opcode::DclInputPs {
                self.error(
                    Site::Inst(i),
                    "a pixel-shader input without an interpolation mode",
                    "expected constant, linear, … ",
                );
            }
            if matches!(
                mode,
                Interpolation::LinearSample | Interpolation::LinearNoPerspectiveSample
            ) && (self.version.major, self.version.minor) < (4, 1)
            {
                self.error(
                    Site::Inst(i),
                    format!("`{}` interpolation needs shader model 4.1", mode.name()),
                    "sample interpolation in a 4.0 shader",
                );
            }
        }
        if !is_numbered_io(op.file) {
            self.d.scopes[scope].system.insert(op.file);
            return;
        }
        let Some(reg) = Self::register_of(inst) else {
            return;
        };
        let limit = if op.file == RegisterFile::Output && stage == ProgramType::Pixel {
            MAX_PS_OUTPUTS
        } else {
            MAX_IO_REGISTERS
        };
        if reg >= limit {
            self.error(
                Site::Operand(i, 0),
                format!(
                    "`{}{reg}` is out of range: a {} has {limit} of them",
                    op.file.name(),
                    stage_name(stage)
                ),
                "register out of range",
            );
        }
        if op.indices.len() == 2
            && matches!(
                op.file,
                RegisterFile::Input | RegisterFile::InputControlPoint
            )
        {
            let vertices = op.indices[0].immediate() as u32;
            if vertices > MAX_CONTROL_POINTS {
                self.error(
                    Site::Operand(i, 0),
                    format!("{vertices} input vertices exceed the limit of {MAX_CONTROL_POINTS}"),
                    "too many vertices",
                );
            }
        }
        let mask = match op.components {
            Components::Mask(m) => m,
            _ => 0xf,
        };
        *self.d.scopes[scope]
            .registers
            .entry((op.file, reg))
            .or_insert(0) |= mask;
        // a geometry shader declares the outputs of each stream after its `dcl_stream`
        let stream = if op.file == RegisterFile::Output {
            self.stream
        } else {
            0
        };
        let entry = self
            .declared
            .entry((scope, stream, op.file, reg))
            .or_insert(0);
        let overlap = *entry & mask;
        *entry |= mask;
        if overlap != 0 {
            self.error(
                Site::Operand(i, 0),
                format!(
                    "`{}{reg}.{}` is declared twice in one section",
                    op.file.name(),
                    mask_letters(overlap)
                ),
                "components declared again",
            );
        }
    }

    fn index_range(&mut self, inst: &Instruction, i: usize, scope: usize, count: u32) {
        let Some(op) = inst.operands.first() else {
            return;
        };
        if !is_numbered_io(op.file) {
            self.error(
                Site::Operand(i, 0),
                format!(
                    "`dcl_indexrange` on `{}`: expected input or output registers",
                    op.file.name()
                ),
                "expected v#, o# or vpc#",
            );
            return;
        }
        let Some(start) = Self::register_of(inst) else {
            return;
        };
        if count == 0 {
            self.error(
                Site::Inst(i),
                "`dcl_indexrange` of 0 registers",
                "expected at least 1",
            );
        }
        if start as u64 + count as u64 > MAX_IO_REGISTERS as u64 {
            self.error(
                Site::Inst(i),
                format!(
                    "index range `{}{start}` + {count} ends past register {}",
                    op.file.name(),
                    MAX_IO_REGISTERS - 1
                ),
                "range out of bounds",
            );
        }
        let mask = match op.components {
            Components::Mask(m) => m,
            _ => 0xf,
        };
        self.d.scopes[scope].index_ranges.push(IndexRange {
            file: op.file,
            start,
            count,
            mask,
        });
    }

    /// Program-level checks once every declaration is known.
    fn finish(&mut self, program: &Program, layout: &Layout) {
        for (scope, s) in self.d.scopes.iter().enumerate() {
            let indexable: u64 = s.indexable.values().map(|&(count, _)| count as u64).sum();
            let total = s.temps.unwrap_or(0) as u64 + indexable;
            if total > MAX_TEMPS as u64 && indexable > 0 {
                let at = s.temps_exceeded_at.unwrap_or_else(|| {
                    layout
                        .scope_of
                        .iter()
                        .position(|&x| x == scope)
                        .unwrap_or(0)
                });
                self.report.error(
                    Site::Inst(at),
                    format!("{total} temporary registers (`r#` and `x#`) in one section exceed the limit of {MAX_TEMPS}"),
                    "too many temps",
                );
            }
        }
        for (&n, &at) in &self.d.function_bodies {
            if !layout.labels.contains_key(&(RegisterFile::FunctionBody, n)) {
                self.report.error(
                    Site::Inst(at),
                    format!("function body `fb{n}` is declared but no `label fb{n}` defines it"),
                    "missing body",
                );
            }
        }
        let has = |op: Opcode| program.instructions.iter().any(|inst| inst.opcode == op);
        let required: &[(Opcode, &str)] = match self.stage() {
            ProgramType::Compute => &[(Opcode::DclThreadGroup, "its thread-group size")],
            ProgramType::Geometry => &[
                (Opcode::DclGsInputPrimitive, "its input primitive"),
                (Opcode::DclGsOutputPrimitiveTopology, "its output topology"),
                (
                    Opcode::DclMaxOutputVertexCount,
                    "its maximum output vertex count",
                ),
            ],
            ProgramType::Hull => &[
                (
                    Opcode::DclInputControlPointCount,
                    "its input control point count",
                ),
                (
                    Opcode::DclOutputControlPointCount,
                    "its output control point count",
                ),
                (Opcode::DclTessDomain, "its tessellator domain"),
                (Opcode::DclTessPartitioning, "its tessellator partitioning"),
                (
                    Opcode::DclTessOutputPrimitive,
                    "its tessellator output primitive",
                ),
            ],
            ProgramType::Domain => &[(Opcode::DclTessDomain, "its tessellator domain")],
            _ => &[],
        };
        for (op, what) in required {
            if !has(*op) {
                self.report.error(
                    Site::Program,
                    format!(
                        "a {} must declare {what} (`{}`)",
                        stage_name(self.stage()),
                        op.name()
                    ),
                    format!("no `{}`", op.name()),
                );
            }
        }
    }
}

/// Registers that exist only in some hull-shader phases.
pub(crate) fn phase_file(
    report: &mut Reporter,
    stage: ProgramType,
    kind: ScopeKind,
    file: RegisterFile,
    site: Site,
) {
    if stage != ProgramType::Hull {
        return;
    }
    let (phases, allowed): (&str, &[ScopeKind]) = match file {
        RegisterFile::InputForkInstanceId => ("hs_fork_phase", &[ScopeKind::Fork]),
        RegisterFile::InputJoinInstanceId => ("hs_join_phase", &[ScopeKind::Join]),
        RegisterFile::OutputControlPointId => {
            ("hs_control_point_phase", &[ScopeKind::ControlPoint])
        }
        RegisterFile::OutputControlPoint => {
            ("fork and join phases", &[ScopeKind::Fork, ScopeKind::Join])
        }
        _ => return,
    };
    if !allowed.contains(&kind) {
        report.error(
            site,
            format!("`{}` exists only in {phases}", file.name()),
            "not in this phase",
        );
    }
}
