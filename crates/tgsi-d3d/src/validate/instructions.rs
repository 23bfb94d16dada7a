//! Per-instruction checks: availability, control fields, operand shapes,
//! the registers each operand names, and the constraints of Microsoft's
//! per-instruction reference pages.
//!
//! From the opcode table ([`crate::opcode`]): the first shader model of
//! each opcode (with the `cs_4_x` and raw/structured-buffer exceptions), the
//! 11.1 extension flags it needs, the stages that have it, its operand count
//! and the kind of each operand, which operands are single components, and
//! which control fields (`_sat`, `_z`/`_nz`, precise …) it may carry.
//!
//! From the reference pages (each rule names its page where it is checked):
//! double-precision masks and swizzles, the prefix masks of `store_raw` /
//! `store_structured`, `swapc`'s two destinations, the `sync` flag
//! combinations per stage, `case` taking a literal and the `.r` resource
//! swizzle of the comparison sampling ops.
//!
//! The operands that name a declared object (resources, UAVs, shared
//! memory, samplers, constant buffers, labels, streams, interfaces) are
//! checked in [`super::resources`], on the same [`Ctx`].

use super::decls::{
    Declarations, file_stages, is_cs_4x, is_numbered_io, phase_file, stage_has_file,
};
use super::layout::{Class, Layout, classify};
use super::{Reporter, Site, component_mask, mask_letters, operand_text, stage_name};
use crate::enums::{
    GLOBAL_FLAG_NAMES, GlobalFlags, InfoReturnType, MinPrecision, OperandModifier, ProgramType,
    RegisterFile, SyncFlags,
};
use crate::ir::{Components, ExtendedOpcode, Instruction, Operand, Payload, Program, Version};
use crate::opcode::{
    CONTROL_FIELDS, OpFlags, Opcode, OpcodeInfo, OperandKind, OperandSpec, PayloadKind, Role,
    ShaderModel,
};

/// What the checks of one program share (the operand checks of
/// [`super::resources`] too).
pub(super) struct Ctx<'c, 'r, 'a> {
    pub(super) program: &'c Program,
    layout: &'c Layout,
    pub(super) decls: &'c Declarations,
    pub(super) report: &'r mut Reporter<'a>,
    pub(super) version: Version,
    pub(super) stage: ProgramType,
    /// the version is an SM4/SM5 model (else per-opcode model checks are skipped)
    known_model: bool,
}

/// Checks every instruction.
pub(crate) fn check(
    program: &Program,
    layout: &Layout,
    decls: &Declarations,
    report: &mut Reporter,
) {
    let version = program.version;
    let known_model = matches!(
        (version.major, version.minor),
        (4, 0) | (4, 1) | (5, 0) | (5, 1)
    );
    let mut ctx = Ctx {
        program,
        layout,
        decls,
        report,
        version,
        stage: version.program_type,
        known_model,
    };
    ctx.version_check();
    for i in 0..program.instructions.len() {
        ctx.instruction(i);
    }
}

/// Registers that take one component and no mask (`oDepth`, `vPrim` …).
fn is_scalar_register(file: RegisterFile) -> bool {
    use RegisterFile as F;
    matches!(
        file,
        F::OutputDepth
            | F::OutputDepthGreaterEqual
            | F::OutputDepthLessEqual
            | F::OutputStencilRef
            | F::OutputCoverageMask
            | F::InputPrimitiveId
            | F::OutputControlPointId
            | F::InputForkInstanceId
            | F::InputJoinInstanceId
            | F::InputCoverageMask
            | F::InputThreadIdInGroupFlattened
            | F::InputGsInstanceId
            | F::InnerCoverage
    )
}

/// Files an instruction may write.
fn is_writable(file: RegisterFile) -> bool {
    use RegisterFile as F;
    matches!(
        file,
        F::Temp
            | F::IndexableTemp
            | F::Output
            | F::OutputDepth
            | F::OutputDepthGreaterEqual
            | F::OutputDepthLessEqual
            | F::OutputCoverageMask
            | F::OutputStencilRef
            | F::Null
    )
}

/// Files an instruction may read as a value.
fn is_readable(file: RegisterFile) -> bool {
    use RegisterFile as F;
    matches!(
        file,
        F::Temp
            | F::Input
            | F::IndexableTemp
            | F::Immediate32
            | F::Immediate64
            | F::ConstantBuffer
            | F::ImmediateConstantBuffer
            | F::InputPrimitiveId
            | F::OutputControlPointId
            | F::InputForkInstanceId
            | F::InputJoinInstanceId
            | F::InputControlPoint
            | F::OutputControlPoint
            | F::InputPatchConstant
            | F::InputDomainPoint
            | F::InputThreadId
            | F::InputThreadGroupId
            | F::InputThreadIdInGroup
            | F::InputCoverageMask
            | F::InputThreadIdInGroupFlattened
            | F::InputGsInstanceId
            | F::CycleCounter
            | F::InnerCoverage
            | F::ThisPointer
    )
}

/// System registers that need no declaration.
fn needs_no_declaration(file: RegisterFile) -> bool {
    matches!(
        file,
        RegisterFile::Null
            | RegisterFile::Rasterizer
            | RegisterFile::CycleCounter
            | RegisterFile::ThisPointer
            | RegisterFile::Immediate32
            | RegisterFile::Immediate64
    )
}

/// The listing name of a global flag (`enableMinimumPrecision`).
fn flag_name(flag: GlobalFlags) -> &'static str {
    GLOBAL_FLAG_NAMES
        .iter()
        .find(|(f, _)| *f == flag)
        .map_or("?", |(_, name)| *name)
}

/// Words for an operand kind ("a float value").
pub(super) fn kind_words(kind: OperandKind) -> &'static str {
    match kind {
        OperandKind::Float => "a float value",
        OperandKind::Int => "a signed integer value",
        OperandKind::Uint => "an unsigned integer value",
        OperandKind::Double => "a double value",
        OperandKind::Typeless => "a value",
        OperandKind::Resource => "a resource",
        OperandKind::Sampler => "a sampler `s#`",
        OperandKind::Memory => "a UAV or shared memory",
        OperandKind::Label => "a label",
        OperandKind::Stream => "a stream `m#`",
        OperandKind::Interface => "an interface `fp#`",
        OperandKind::Declared => "a declared register",
    }
}

fn control_name(flag: OpFlags) -> &'static str {
    match flag {
        f if f == OpFlags::SATURATE => "`_sat`",
        f if f == OpFlags::PRECISE => "precise mask",
        f if f == OpFlags::TEST => "`_z`/`_nz` test",
        f if f == OpFlags::RESINFO_RETURN => "resinfo return type",
        f if f == OpFlags::SAMPLEINFO_RETURN => "sampleinfo return type",
        f if f == OpFlags::SYNC => "sync flags",
        f if f == OpFlags::RESOURCE_DIM => "resource dimension",
        f if f == OpFlags::SAMPLE_COUNT => "sample count",
        f if f == OpFlags::CB_ACCESS => "constant-buffer access pattern",
        f if f == OpFlags::SAMPLER_MODE => "sampler mode",
        f if f == OpFlags::INTERPOLATION => "interpolation mode",
        f if f == OpFlags::GLOBAL_FLAGS => "global flags",
        f if f == OpFlags::INPUT_PRIMITIVE => "input primitive",
        f if f == OpFlags::OUTPUT_TOPOLOGY => "output topology",
        f if f == OpFlags::CONTROL_POINT_COUNT => "control point count",
        f if f == OpFlags::TESS_DOMAIN => "tessellator domain",
        f if f == OpFlags::TESS_PARTITIONING => "tessellator partitioning",
        f if f == OpFlags::TESS_OUTPUT_PRIMITIVE => "tessellator output primitive",
        f if f == OpFlags::INTERFACE_DYNAMIC => "`_dynamicindexed`",
        f if f == OpFlags::UAV_COHERENT => "`_glc`",
        f if f == OpFlags::UAV_RASTERIZER_ORDERED => "`_rov`",
        f if f == OpFlags::UAV_COUNTER => "`_opc`",
        _ => "control field",
    }
}

/// The payload shape a table row expects, and whether `payload` has it.
fn payload_fits(kind: PayloadKind, payload: &Payload) -> bool {
    matches!(
        (kind, payload),
        (PayloadKind::None, Payload::None)
            | (PayloadKind::ReturnTypes, Payload::ReturnTypes { .. })
            | (PayloadKind::ConstantBuffer, Payload::ConstantBuffer(_))
            | (PayloadKind::Space, Payload::Space(_))
            | (PayloadKind::Structured, Payload::Structured { .. })
            | (PayloadKind::Count, Payload::Count(_))
            | (PayloadKind::Name, Payload::Name(_))
            | (PayloadKind::IndexableTemp, Payload::IndexableTemp { .. })
            | (PayloadKind::TgsmStructured, Payload::TgsmStructured { .. })
            | (PayloadKind::FunctionTable, Payload::FunctionTable { .. })
            | (PayloadKind::Interface, Payload::Interface { .. })
            | (PayloadKind::Float, Payload::Float(_))
            | (PayloadKind::ThreadGroup, Payload::ThreadGroup(_))
            | (PayloadKind::CallSite, Payload::CallSite(_))
            | (PayloadKind::CustomData, Payload::CustomData(_))
    )
}

/// The double-precision swizzles: "The valid swizzles for the source
/// parameters are .xyzw, .xyxy, .zwxy, .zwzw" (`dadd`, `dmul`, `dmax`,
/// `dmin`, `dmov`, `dmovc`, `deq`, `dge`, `dlt`, `dne`, `dtof`, `dtoi`,
/// `dtou`, `ddiv`, `dfma`, `drcp` (sm5 - asm)).
const DOUBLE_SWIZZLES: [[u8; 4]; 4] = [[0, 1, 2, 3], [0, 1, 0, 1], [2, 3, 0, 1], [2, 3, 2, 3]];

/// Double destination masks: "The valid dest masks are .xy, .zw, and
/// .xyzw" (`dadd`, `dmul`, `dmov`, `dmovc`, `ftod`, `itod`, `utod` …).
const DOUBLE_MASKS: [u8; 3] = [0b0011, 0b1100, 0b1111];

/// Prefix masks: "dest can only have a write mask that is one of the
/// following: .x, .xy, .xyz, .xyzw" (`store_raw`, `store_structured`).
const PREFIX_MASKS: [u8; 4] = [0b0001, 0b0011, 0b0111, 0b1111];

impl Ctx<'_, '_, '_> {
    pub(super) fn error(
        &mut self,
        site: Site,
        message: impl Into<String>,
        label: impl Into<String>,
    ) {
        self.report.error(site, message, label);
    }

    fn scope(&self, i: usize) -> usize {
        self.layout.scope_of.get(i).copied().unwrap_or(0)
    }

    fn version_check(&mut self) {
        let v = self.version;
        if !self.known_model {
            self.error(
                Site::Program,
                format!(
                    "shader model {}.{} is not an SM4/SM5 model: expected 4.0, 4.1, 5.0 or 5.1",
                    v.major, v.minor
                ),
                "unknown shader model",
            );
        } else if matches!(self.stage, ProgramType::Hull | ProgramType::Domain) && v.major < 5 {
            self.error(
                Site::Program,
                format!(
                    "{}s need shader model 5.0, found {}.{}",
                    stage_name(self.stage),
                    v.major,
                    v.minor
                ),
                "tessellation needs 5.0",
            );
        }
    }

    fn instruction(&mut self, i: usize) {
        let inst = &self.program.instructions[i];
        let info = inst.opcode.info();
        if info.model == ShaderModel::Reserved {
            self.error(
                Site::Mnemonic(i),
                format!(
                    "opcode 0x{:02x} is reserved, not an instruction",
                    inst.opcode.number()
                ),
                "reserved opcode",
            );
            return;
        }
        if !payload_fits(info.payload, &inst.payload) {
            self.error(
                Site::Inst(i),
                format!(
                    "`{}` carries a payload of the wrong shape: expected {:?}",
                    info.name, info.payload
                ),
                "malformed instruction",
            );
            return;
        }
        self.availability(i, inst, info);
        self.controls(i, inst, info);
        if inst.opcode == Opcode::CustomData {
            return;
        }
        if inst.operands.len() != info.operands.len() {
            self.error(
                Site::Inst(i),
                format!(
                    "`{}` takes {} operand{}, found {}",
                    info.name,
                    info.operands.len(),
                    if info.operands.len() == 1 { "" } else { "s" },
                    inst.operands.len()
                ),
                "wrong operand count",
            );
            return;
        }
        if classify(inst) == Class::Declaration {
            return;
        }
        let scope = self.scope(i);
        for (k, (op, spec)) in inst.operands.iter().zip(info.operands).enumerate() {
            let site = Site::Operand(i, k);
            let scalar = info.is_scalar_operand(k);
            match spec.kind {
                kind if kind.is_value() => self.value_operand(i, k, op, *spec, scalar, scope),
                OperandKind::Resource | OperandKind::Memory => {
                    self.resource_operand(i, k, op, *spec, info)
                }
                OperandKind::Sampler => self.sampler_operand(site, op, info),
                OperandKind::Label => self.label_operand(site, op, inst.opcode),
                OperandKind::Stream => self.stream_operand(site, op),
                OperandKind::Interface => self.interface_operand(site, op),
                _ => {}
            }
        }
        self.extended(i, inst);
        self.documented(i, inst, info);
    }

    /// Shader model, stage and global-flag requirements of the opcode.
    fn availability(&mut self, i: usize, inst: &Instruction, info: &OpcodeInfo) {
        let v = self.version;
        let flags = self.decls.global_flags;
        let have = (v.major, v.minor);
        let (major, minor) = info.model.version();
        if self.known_model && have < (major, minor) {
            let compute_4x = is_cs_4x(v)
                && info
                    .flags
                    .intersects(OpFlags::CS_4X | OpFlags::RAW_STRUCTURED_4X);
            let raw_structured = v.major == 4 && info.flags.contains(OpFlags::RAW_STRUCTURED_4X);
            if compute_4x {
                // available in cs_4_0 / cs_4_1 ("cs_4_0 and cs_4_1 support this instruction")
            } else if raw_structured {
                if !flags.contains(GlobalFlags::ENABLE_RAW_AND_STRUCTURED_BUFFERS) {
                    self.error(
                        Site::Mnemonic(i),
                        format!(
                            "`{}` in a {}.{} shader needs the `{}` global flag",
                            info.name,
                            v.major,
                            v.minor,
                            flag_name(GlobalFlags::ENABLE_RAW_AND_STRUCTURED_BUFFERS)
                        ),
                        "raw/structured buffers not enabled",
                    );
                }
            } else {
                self.error(
                    Site::Mnemonic(i),
                    format!(
                        "`{}` needs shader model {major}.{minor}, this program is {}.{}",
                        info.name, v.major, v.minor
                    ),
                    format!("not in shader model {}.{}", v.major, v.minor),
                );
                return;
            }
        }
        let mut needed = GlobalFlags::empty();
        if info.is_double() {
            needed |= GlobalFlags::ENABLE_DOUBLE_PRECISION_FLOAT_OPS;
        }
        match info.model {
            ShaderModel::Sm5_0DoubleExtensions11_1 => {
                needed |= GlobalFlags::ENABLE_11_1_DOUBLE_EXTENSIONS
            }
            ShaderModel::Sm5_0ShaderExtensions11_1 => {
                needed |= GlobalFlags::ENABLE_11_1_SHADER_EXTENSIONS
            }
            _ => {}
        }
        let missing: Vec<&str> = GLOBAL_FLAG_NAMES
            .iter()
            .filter(|(f, _)| needed.contains(*f) && !flags.contains(*f))
            .map(|(_, name)| *name)
            .collect();
        if !missing.is_empty() {
            self.error(
                Site::Mnemonic(i),
                format!(
                    "`{}` needs the global flag{} `{}` in `dcl_globalFlags`",
                    info.name,
                    if missing.len() > 1 { "s" } else { "" },
                    missing.join("` and `")
                ),
                "feature not enabled",
            );
        }
        if !info.allows_stage(self.stage) {
            let stages: Vec<&str> = [
                (OpFlags::STAGE_VS, "vertex"),
                (OpFlags::STAGE_HS, "hull"),
                (OpFlags::STAGE_DS, "domain"),
                (OpFlags::STAGE_GS, "geometry"),
                (OpFlags::STAGE_PS, "pixel"),
                (OpFlags::STAGE_CS, "compute"),
            ]
            .iter()
            .filter(|(f, _)| info.flags.contains(*f))
            .map(|(_, n)| *n)
            .collect();
            self.error(
                Site::Mnemonic(i),
                format!(
                    "`{}` is not available in a {}: only in {} shaders",
                    info.name,
                    stage_name(self.stage),
                    stages.join(" and ")
                ),
                format!("not in a {}", stage_name(self.stage)),
            );
        }
        let min_precision = inst
            .operands
            .iter()
            .any(|o| o.min_precision != MinPrecision::Default);
        if min_precision
            && !flags.contains(GlobalFlags::ENABLE_MINIMUM_PRECISION)
            && self.stage != ProgramType::Library
        {
            self.error(
                Site::Mnemonic(i),
                format!(
                    "`{}` uses minimum-precision operands without the `{}` global flag",
                    info.name,
                    flag_name(GlobalFlags::ENABLE_MINIMUM_PRECISION)
                ),
                "minimum precision not enabled",
            );
        }
    }

    /// Control fields the opcode does not have must stay at their default.
    fn controls(&mut self, i: usize, inst: &Instruction, info: &OpcodeInfo) {
        // resinfo and sampleinfo keep their return type in one field
        let info_return = OpFlags::RESINFO_RETURN | OpFlags::SAMPLEINFO_RETURN;
        for f in CONTROL_FIELDS {
            let shared = info_return.contains(f.flag) && info.flags.intersects(info_return);
            if !info.flags.contains(f.flag) && !shared && inst.controls.field(f.flag) != 0 {
                self.error(
                    Site::Mnemonic(i),
                    format!(
                        "`{}` has no {}, but one is set",
                        info.name,
                        control_name(f.flag)
                    ),
                    "not allowed on this instruction",
                );
            }
        }
        if inst.opcode == Opcode::SampleInfo
            && inst.controls.info_return.0 == InfoReturnType::RcpFloat
        {
            self.error(
                Site::Mnemonic(i),
                "`sampleinfo` returns float or `_uint`, not `_rcpFloat`",
                "bad return type",
            );
        }
    }

    /// A value operand (an ALU destination or source).
    fn value_operand(
        &mut self,
        i: usize,
        k: usize,
        op: &Operand,
        spec: OperandSpec,
        scalar: bool,
        scope: usize,
    ) {
        let site = Site::Operand(i, k);
        let name = self.program.instructions[i].opcode.name();
        match spec.role {
            Role::Dst => {
                if !is_writable(op.file) {
                    self.error(
                        site,
                        format!(
                            "operand {k} of `{name}` is written, but `{}` cannot be written",
                            operand_text(op)
                        ),
                        format!(
                            "expected a destination register, found `{}`",
                            op.file.name()
                        ),
                    );
                    return;
                }
                if op.modifier != OperandModifier::None {
                    self.error(
                        site,
                        format!(
                            "a destination cannot carry a source modifier (`{}`)",
                            operand_text(op)
                        ),
                        "modifier on a destination",
                    );
                }
                // `null` discards one of two results ("Either destHI or destLO may be
                // specified as NULL", imul (sm4 - asm); likewise sincos, udiv, umul)
                let results = self.program.instructions[i].opcode.info().num_dst();
                if op.file == RegisterFile::Null && results < 2 {
                    self.error(
                        site,
                        format!("`{name}` has one result; `null` only stands for one of two results (`sincos`, `imul`, `udiv` …)"),
                        "expected a register",
                    );
                }
                match op.components {
                    Components::Mask(0) if op.file != RegisterFile::Null => {
                        self.error(
                            site,
                            format!("`{}` writes no component", operand_text(op)),
                            "empty write mask",
                        );
                    }
                    Components::Mask(m) if scalar && m.count_ones() != 1 => {
                        self.error(
                            site,
                            format!("operand {k} of `{name}` writes one component, found the mask `.{}`", mask_letters(m)),
                            "expected a one-component mask",
                        );
                    }
                    Components::Swizzle(_) | Components::Select(_) => {
                        self.error(
                            site,
                            format!(
                                "destination `{}` has a swizzle; a destination takes a write mask",
                                operand_text(op)
                            ),
                            "expected a write mask",
                        );
                    }
                    Components::None | Components::One
                        if !(is_scalar_register(op.file) || op.file == RegisterFile::Null) =>
                    {
                        self.error(
                            site,
                            format!("destination `{}` has no write mask", operand_text(op)),
                            "expected a write mask",
                        );
                    }
                    _ => {}
                }
            }
            _ => {
                if !is_readable(op.file) {
                    self.error(
                        site,
                        format!(
                            "operand {k} of `{name}` reads {}, but `{}` cannot be read",
                            kind_words(spec.kind),
                            operand_text(op)
                        ),
                        format!(
                            "expected a source register or immediate, found `{}`",
                            op.file.name()
                        ),
                    );
                    return;
                }
                self.source_shape(site, op, spec.kind, scalar, name, k);
            }
        }
        self.register_use(i, site, op, spec.role, scope, 0);
    }

    /// Component selection, modifiers and immediates of a source.
    fn source_shape(
        &mut self,
        site: Site,
        op: &Operand,
        kind: OperandKind,
        scalar: bool,
        name: &str,
        k: usize,
    ) {
        let text = operand_text(op);
        if op.file == RegisterFile::Immediate64 && kind != OperandKind::Double {
            self.error(
                site,
                format!(
                    "operand {k} of `{name}` reads 32-bit values, found a 64-bit immediate `d(…)`"
                ),
                "expected `l(…)`",
            );
        }
        if op.file.is_immediate() {
            if scalar && op.values.len() > 2 {
                self.error(site, format!("operand {k} of `{name}` takes one component, found an immediate of {} values", op.values.len()), "expected `l(n)`");
            }
        } else {
            match op.components {
                Components::Mask(_) => {
                    self.error(site, format!("source `{text}` has a write mask; a source takes a swizzle or one component"), "expected a swizzle");
                }
                Components::Swizzle(_) if scalar => {
                    self.error(
                        site,
                        format!("operand {k} of `{name}` must select one component (`.x`, `.y` …), found `{text}`"),
                        "expected `.select_component`",
                    );
                }
                Components::None if !is_scalar_register(op.file) => {
                    self.error(
                        site,
                        format!("source `{text}` selects no component"),
                        "expected a swizzle",
                    );
                }
                _ => {}
            }
        }
        // Source modifiers are read in the instruction's type: `-` is a float,
        // double or two's-complement integer negate; `|…|` only exists for
        // floats and doubles ("Optional negate modifier on source operands
        // takes 2's complement", `imul (sm4 - asm)`; `_abs` appears only on the
        // float and double pages).
        let abs = matches!(op.modifier, OperandModifier::Abs | OperandModifier::AbsNeg);
        let neg = matches!(op.modifier, OperandModifier::Neg | OperandModifier::AbsNeg);
        if abs && matches!(kind, OperandKind::Int | OperandKind::Uint) {
            self.error(site, format!("`|…|` on `{text}`: `{name}` reads this operand as an integer, and abs is a float modifier"), "abs on an integer operand");
        }
        if neg && kind == OperandKind::Uint {
            self.error(
                site,
                format!("`-` on `{text}`: `{name}` reads this operand as an unsigned integer"),
                "negate on an unsigned operand",
            );
        }
    }

    /// The register an operand names: declared, in range, inside the declared
    /// components; relative indices checked as sources. `depth` counts
    /// nested relative indices.
    fn register_use(
        &mut self,
        i: usize,
        site: Site,
        op: &Operand,
        role: Role,
        scope: usize,
        depth: usize,
    ) {
        let stage = self.stage;
        if !stage_has_file(stage, op.file) {
            let stages = file_stages(op.file).unwrap_or(&[]);
            let names: Vec<&str> = stages.iter().map(|s| stage_name(*s)).collect();
            self.error(
                site,
                format!(
                    "a {} has no `{}` register (it exists in: {})",
                    stage_name(stage),
                    op.file.name(),
                    names.join(", ")
                ),
                "not in this stage",
            );
            return;
        }
        phase_file(self.report, stage, self.layout.kind_of(i), op.file, site);
        self.relative_indices(i, site, op, scope, depth);
        let text = operand_text(op);
        let used = component_mask(op.components);
        match op.file {
            RegisterFile::Temp => self.temp_register(site, op, &text, scope),
            RegisterFile::IndexableTemp => self.indexable_temp(site, op, &text, used, scope),
            file if is_numbered_io(file) => self.io_register(site, op, &text, used, scope),
            RegisterFile::ConstantBuffer => self.constant_buffer(site, op, &text),
            RegisterFile::ImmediateConstantBuffer => {
                self.immediate_constant_buffer(site, op, &text)
            }
            file if needs_no_declaration(file) => {}
            file => self.system_register(site, file, role, scope),
        }
    }

    /// Relative indices: select-one-component sources of declared registers,
    /// each checked like a source operand (nested ones to a depth of three).
    fn relative_indices(&mut self, i: usize, site: Site, op: &Operand, scope: usize, depth: usize) {
        for index in &op.indices {
            if let Some(rel) = index.relative() {
                if depth > 2 {
                    continue;
                }
                if !is_readable(rel.file) {
                    self.error(
                        site,
                        format!(
                            "relative index `{}` is not a readable register",
                            operand_text(rel)
                        ),
                        "bad relative index",
                    );
                    continue;
                }
                if !matches!(rel.components, Components::Select(_) | Components::One) {
                    self.error(
                        site,
                        format!(
                            "relative index `{}` must select one component (`r0.x`)",
                            operand_text(rel)
                        ),
                        "expected one component",
                    );
                }
                self.register_use(i, site, rel, Role::Src, scope, depth + 1);
            }
        }
    }

    /// `r#`: one immediate index below the section's `dcl_temps` count.
    fn temp_register(&mut self, site: Site, op: &Operand, text: &str, scope: usize) {
        if op.indices.len() != 1 {
            self.error(site, format!("`{text}` needs one index"), "expected `r#`");
            return;
        }
        if op.indices[0].relative().is_some() {
            self.error(
                site,
                format!("`{text}`: temporary registers cannot be indexed relatively (use `x#[…]`)"),
                "relative index on r#",
            );
            return;
        }
        let n = op.indices[0].immediate();
        match self.decls.temps(scope) {
            None => self.error(
                site,
                format!("`{text}` is used but no `dcl_temps` declares temporary registers"),
                "undeclared temp",
            ),
            Some(count) if n >= count as u64 => self.error(
                site,
                format!(
                    "`r{n}` is out of range: `dcl_temps {count}` declares r0 to r{}",
                    count as i64 - 1
                ),
                "temp out of range",
            ),
            _ => {}
        }
    }

    /// `x#[i]`: a declared indexable temp, `i` below its register count, the
    /// components inside its component count.
    fn indexable_temp(&mut self, site: Site, op: &Operand, text: &str, used: u8, scope: usize) {
        if op.indices.len() != 2 {
            self.error(
                site,
                format!("`{text}` needs two indices (`x#[i]`)"),
                "expected `x#[i]`",
            );
            return;
        }
        let reg = op.indices[0].immediate() as u32;
        let Some((count, comps)) = self.decls.indexable(scope, reg) else {
            self.error(
                site,
                format!("`x{reg}` is used but no `dcl_indexableTemp` declares it"),
                "undeclared indexable temp",
            );
            return;
        };
        let at = op.indices[1].immediate();
        if at >= count as u64 {
            self.error(
                site,
                format!("`{text}` is out of range: `x{reg}` has {count} registers"),
                "index out of range",
            );
        }
        let declared = ((1u16 << comps.min(4)) - 1) as u8;
        self.components_within(
            site,
            text,
            used,
            declared,
            &format!(
                "`x{reg}` has {comps} component{}",
                if comps == 1 { "" } else { "s" }
            ),
        );
    }

    /// `icb[i]`: the program has an immediate constant buffer with more than
    /// `i` vectors.
    fn immediate_constant_buffer(&mut self, site: Site, op: &Operand, text: &str) {
        let Some(vectors) = self.decls.icb_vectors else {
            self.error(
                site,
                format!("`{text}` is read but the program has no `dcl_immediateConstantBuffer`"),
                "no immediate constant buffer",
            );
            return;
        };
        if let Some(index) = op.indices.first()
            && index.immediate() >= vectors as u64
        {
            self.error(
                site,
                format!(
                    "`{text}` is out of range: the immediate constant buffer has {vectors} vectors"
                ),
                "index out of range",
            );
        }
    }

    /// System-value registers (`vThreadID`, `oDepth`, `vPrim` …) need their
    /// `dcl_input` / `dcl_output`.
    fn system_register(&mut self, site: Site, file: RegisterFile, role: Role, scope: usize) {
        if !self.decls.has_system(scope, file) && !self.declares_system_anywhere(file) {
            let dcl = if matches!(role, Role::Dst) {
                "dcl_output"
            } else {
                "dcl_input"
            };
            self.error(
                site,
                format!(
                    "`{}` is used but not declared (expected `{dcl} {}`)",
                    file.name(),
                    file.name()
                ),
                "undeclared register",
            );
        }
    }

    /// True if some section declares a system register (the hull shader's
    /// phases may share `dcl_input` declarations of the global section).
    fn declares_system_anywhere(&self, file: RegisterFile) -> bool {
        self.program.version.program_type != ProgramType::Hull
            && self.decls.scopes.iter().any(|s| s.system.contains(&file))
    }

    fn components_within(&mut self, site: Site, text: &str, used: u8, declared: u8, what: &str) {
        let outside = used & !declared;
        if outside != 0 {
            self.error(
                site,
                format!(
                    "`{text}` uses component{} `.{}` outside the declaration ({what})",
                    if outside.count_ones() == 1 { "" } else { "s" },
                    mask_letters(outside)
                ),
                "component not declared",
            );
        }
    }

    /// `v#`, `o#`, `vpc#`, `v[n][r]`, `vicp[n][r]`, `vocp[n][r]`.
    fn io_register(&mut self, site: Site, op: &Operand, text: &str, used: u8, scope: usize) {
        let Some(reg_index) = op.indices.last() else {
            self.error(
                site,
                format!("`{text}` needs a register index"),
                "missing index",
            );
            return;
        };
        let per_vertex = op.indices.len() == 2;
        if per_vertex
            && let Some(vertex) = op.indices.first()
            && vertex.relative().is_none()
        {
            let limit = match op.file {
                RegisterFile::OutputControlPoint => self.decls.output_control_points,
                _ => self.decls.input_vertices,
            };
            if let Some(limit) = limit
                && vertex.immediate() >= limit as u64
            {
                self.error(
                    site,
                    format!(
                        "`{text}`: vertex {} is out of range, the input has {limit}",
                        vertex.immediate()
                    ),
                    "vertex out of range",
                );
            }
        }
        let reg = reg_index.immediate() as u32;
        if reg_index.relative().is_some() {
            // relative access needs a dcl_indexrange holding the base register
            match self.decls.index_range(scope, op.file, reg) {
                Some(range) => self.components_within(
                    site,
                    text,
                    used,
                    range.mask,
                    &format!("the index range has `.{}`", mask_letters(range.mask)),
                ),
                None => self.error(
                    site,
                    format!(
                        "`{text}` is indexed relatively, but no `dcl_indexrange` covers `{}{reg}`",
                        op.file.name()
                    ),
                    "no index range",
                ),
            }
            return;
        }
        match self.decls.register_mask(scope, op.file, reg) {
            Some(mask) => self.components_within(
                site,
                text,
                used,
                mask,
                &format!("declared `.{}`", mask_letters(mask)),
            ),
            None => match self.decls.index_range(scope, op.file, reg) {
                // registers inside an index range may be left undeclared
                Some(range) => self.components_within(
                    site,
                    text,
                    used,
                    range.mask,
                    &format!("the index range has `.{}`", mask_letters(range.mask)),
                ),
                None => {
                    let dcl = if op.file == RegisterFile::Output {
                        "dcl_output"
                    } else {
                        "dcl_input"
                    };
                    self.error(
                        site,
                        format!(
                            "`{}{reg}` is used but not declared (expected `{dcl}`)",
                            op.file.name()
                        ),
                        "undeclared register",
                    );
                }
            },
        }
    }

    /// Extended opcode tokens only where they mean something.
    fn extended(&mut self, i: usize, inst: &Instruction) {
        let info = inst.opcode.info();
        let has_resource = info
            .operands
            .iter()
            .any(|o| matches!(o.kind, OperandKind::Resource | OperandKind::Memory));
        for ext in &inst.extended {
            let ok = match ext {
                ExtendedOpcode::SampleControls { offsets } => {
                    if offsets.iter().any(|o| !(-8..=7).contains(o)) {
                        self.error(
                            Site::Mnemonic(i),
                            format!(
                                "`_aoffimmi({},{},{})`: offsets range from -8 to 7",
                                offsets[0], offsets[1], offsets[2]
                            ),
                            "offset out of range",
                        );
                    }
                    info.flags.contains(OpFlags::RES_SRV)
                }
                ExtendedOpcode::ResourceDim { .. } | ExtendedOpcode::ResourceReturnType(_) => {
                    has_resource
                }
            };
            if !ok {
                self.error(
                    Site::Mnemonic(i),
                    format!("`{}` takes no {:?} token", info.name, ext),
                    "unexpected extended opcode token",
                );
            }
        }
    }

    /// Constraints written on the reference page of one instruction.
    fn documented(&mut self, i: usize, inst: &Instruction, info: &OpcodeInfo) {
        let ops = &inst.operands;
        if info.is_double() {
            self.double_rules(i, inst, info);
        }
        match inst.opcode {
            // store_raw / store_structured (sm5 - asm): "dest can only have a write
            // mask that is one of the following: .x, .xy, .xyz, .xyzw"
            Opcode::StoreRaw | Opcode::StoreStructured => {
                if let Components::Mask(m) = ops[0].components
                    && !PREFIX_MASKS.contains(&m)
                {
                    self.error(
                        Site::Operand(i, 0),
                        format!("`{}` writes a prefix of components: expected the mask .x, .xy, .xyz or .xyzw, found `.{}`", info.name, mask_letters(m)),
                        "mask must not skip components",
                    );
                }
            }
            // swapc (sm5 - asm): dest0 and dest1 are "Register with arbitrary
            // nonempty write masks. Must be different than" the other.
            Opcode::Swapc => {
                for (k, op) in ops.iter().enumerate().take(2) {
                    if op.file == RegisterFile::Null {
                        self.error(
                            Site::Operand(i, k),
                            "`swapc` writes both destinations; `null` is not allowed",
                            "expected a register",
                        );
                    }
                }
                if ops[0].file == ops[1].file
                    && ops[0].file != RegisterFile::Null
                    && ops[0].indices == ops[1].indices
                {
                    self.error(
                        Site::Operand(i, 1),
                        format!(
                            "`swapc` destinations must be different registers, both are `{}`",
                            operand_text(&Operand {
                                components: Components::None,
                                ..ops[0].clone()
                            })
                        ),
                        "same register as dest0",
                    );
                    self.report.also(Site::Operand(i, 0), "dest0");
                }
            }
            Opcode::Sync => self.sync_rules(i, inst),
            // case (sm4 - asm): "case [32-bit immediate]"
            Opcode::Case
                if ops[0].file != RegisterFile::Immediate32 || ops[0].values.len() != 1 =>
            {
                self.error(
                    Site::Operand(i, 0),
                    format!(
                        "`case` takes a 32-bit literal `l(n)`, found `{}`",
                        operand_text(&ops[0])
                    ),
                    "expected a literal",
                );
            }
            // sample_c (sm4 - asm): "srcResource.r, // must be .r swizzle" (sample_c_lz and the
            // _s / _cl_s variants too; gather4_c returns four texels and takes any swizzle)
            Opcode::SampleC | Opcode::SampleCLz | Opcode::SampleCLzS | Opcode::SampleCClampS => {
                let k = info
                    .operands
                    .iter()
                    .position(|o| o.kind == OperandKind::Resource)
                    .unwrap_or(0);
                let res = &ops[k];
                if component_mask(res.components) != 0b0001
                    && !matches!(res.components, Components::None)
                {
                    self.error(
                        Site::Operand(i, k),
                        format!("`{}` compares the red channel: the resource takes the `.r` swizzle (`{}.xxxx`), found `{}`", info.name, res.file.name(), operand_text(res)),
                        "expected `.xxxx`",
                    );
                }
            }
            _ => {}
        }
    }

    /// Masks and swizzles of the double-precision instructions.
    fn double_rules(&mut self, i: usize, inst: &Instruction, info: &OpcodeInfo) {
        for (k, (op, spec)) in inst.operands.iter().zip(info.operands).enumerate() {
            let site = Site::Operand(i, k);
            match (spec.role, spec.kind) {
                (Role::Dst, OperandKind::Double) => {
                    if let Components::Mask(m) = op.components
                        && op.file != RegisterFile::Null
                        && !DOUBLE_MASKS.contains(&m)
                    {
                        self.error(
                            site,
                            format!("`{}` writes doubles: the valid masks are .xy, .zw and .xyzw, found `.{}`", info.name, mask_letters(m)),
                            "expected .xy, .zw or .xyzw",
                        );
                    }
                }
                // deq/dge/dlt/dne, dtof/dtoi/dtou: "The valid dest masks are any one
                // or two components" (deq, dtof (sm5 - asm))
                (Role::Dst, _) => {
                    if let Components::Mask(m) = op.components
                        && op.file != RegisterFile::Null
                        && m.count_ones() > 2
                    {
                        self.error(
                            site,
                            format!("`{}` writes one 32-bit result per double: expected one or two components, found `.{}`", info.name, mask_letters(m)),
                            "expected one or two components",
                        );
                    }
                }
                (Role::Src, OperandKind::Double) => {
                    if op.file.is_immediate() {
                        continue;
                    }
                    let ok = match op.components {
                        Components::Swizzle(s) => DOUBLE_SWIZZLES.contains(&s),
                        _ => false,
                    };
                    if !ok {
                        self.error(
                            site,
                            format!("`{}` reads doubles: the valid swizzles are .xyzw, .xyxy, .zwxy and .zwzw, found `{}`", info.name, operand_text(op)),
                            "expected .xyzw, .xyxy, .zwxy or .zwzw",
                        );
                    }
                }
                // the 32-bit sources of ftod/itod/utod and dmovc's condition: any swizzle
                // ("The valid swizzles for src0 are anything", dmovc (sm5 - asm))
                _ => {}
            }
        }
    }

    /// sync (sm5 - asm): "In the pixel shader, only sync_uglobal is allowed.
    /// In the compute shader, (_uglobal or _ugroup) and/or _g must be
    /// specified. _t is optional in addition."
    fn sync_rules(&mut self, i: usize, inst: &Instruction) {
        let f = inst.controls.sync;
        let global = f.contains(SyncFlags::UAV_MEMORY_GLOBAL);
        let group = f.contains(SyncFlags::UAV_MEMORY_GROUP);
        if global && group {
            self.error(
                Site::Mnemonic(i),
                "`sync` with both `_uglobal` and `_ugroup`: choose one UAV fence scope",
                "conflicting fences",
            );
        }
        match self.stage {
            ProgramType::Compute | ProgramType::Library => {
                if !(global || group || f.contains(SyncFlags::THREAD_GROUP_SHARED_MEMORY)) {
                    self.error(
                        Site::Mnemonic(i),
                        "a compute-shader `sync` needs a fence: `_uglobal`, `_ugroup` or `_g` (with `_t` optional)",
                        "expected a memory fence",
                    );
                }
            }
            stage => {
                if f != SyncFlags::UAV_MEMORY_GLOBAL {
                    self.error(
                        Site::Mnemonic(i),
                        format!("only `sync_uglobal` is allowed in a {}; `_ugroup`, `_g` and `_t` belong to compute shaders", stage_name(stage)),
                        "expected `sync_uglobal`",
                    );
                }
            }
        }
    }
}
