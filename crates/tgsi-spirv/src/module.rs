//! The module being written: types and constants, the register file,
//! resources and system values, operand fetch and store, and the walk over
//! the instructions (per-opcode code in `ops.rs`, control flow in `flow.rs`).

use super::{Error, Options, buffer_binding, const_binding};
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    self, AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, MemoryModel, StorageClass, Word,
};
use std::collections::HashMap;
use tgsi_ir::enums::{File, Processor, PropertyName, SemanticName};
use tgsi_ir::ir::{DstOperand, Instruction, Register, Shader, SrcOperand, Statement};
use tgsi_ir::opcode::{Opcode, OperandType};

/// Bytes of `MEMORY` (shared memory): the machine's own size.
pub(crate) const SHARED_BYTES: u32 = 32 * 1024;

/// The types the translator uses.
pub(crate) struct Types {
    pub void: Word,
    pub bool: Word,
    pub u32: Word,
    pub i32: Word,
    pub f32: Word,
    pub b4: Word,
    pub u4: Word,
    pub i4: Word,
    pub f4: Word,
    pub u3: Word,
}

/// The register arrays and system values a shader declares.
#[derive(Default)]
struct RegisterPlan {
    temps: u32,
    addrs: u32,
    ins: u32,
    outs: u32,
    svs: Vec<(u32, SemanticName)>,
}

/// The Vulkan built-in behind a compute system value (`uvec3` inputs).
fn builtin_of(name: SemanticName) -> Option<BuiltIn> {
    match name {
        SemanticName::ThreadId => Some(BuiltIn::LocalInvocationId),
        SemanticName::BlockId => Some(BuiltIn::WorkgroupId),
        SemanticName::GridSize => Some(BuiltIn::NumWorkgroups),
        _ => None,
    }
}

/// A storage buffer of words: its variable.
#[derive(Clone, Copy)]
pub(crate) struct WordBuffer {
    pub var: Word,
}

pub(crate) struct Translator<'a> {
    pub shader: &'a Shader,
    pub options: Options,
    pub b: Builder,
    pub t: Types,
    pub glsl: Word,
    /// `TEMP`: one function array of `uvec4`, and its length.
    pub temps: Option<(Word, u32)>,
    pub addrs: Option<(Word, u32)>,
    pub imms: Vec<Word>,
    /// The immediates as a private array, when an indirect index reads
    /// them.
    pub imm_array: Option<Word>,
    pub consts: HashMap<u32, WordBuffer>,
    pub buffers: HashMap<u32, WordBuffer>,
    /// `MEMORY` (shared): a workgroup array of words.
    pub shared: Option<Word>,
    /// `SV[n]`: a function variable holding its `uvec4`.
    pub svs: HashMap<u32, Word>,
    /// The built-in input variables, by the system value they carry.
    builtins: HashMap<SemanticName, Word>,
    /// The block type of every word buffer (`struct { uint words[]; }`).
    words_struct: Option<Word>,
    /// `IN` and `OUT`: function arrays of `uvec4`, and their lengths.
    pub ins: Option<(Word, u32)>,
    pub outs: Option<(Word, u32)>,
    /// Where each `IN` register comes from and each `OUT` register goes.
    pub in_sources: Vec<(u32, super::io::Source)>,
    pub out_sinks: Vec<(u32, super::io::Sink)>,
    /// `int` built-ins of vertex and fragment system values.
    pub int_builtins: HashMap<SemanticName, Word>,
    /// A fragment shader writes its depth.
    pub depth_replacing: bool,
    /// A fragment shader writes its stencil reference.
    pub stencil_replacing: bool,
    /// The `ClipDistance` / `CullDistance` arrays, once made.
    pub distance_vars: Option<super::io::Distances>,
    /// Textures and samplers by index ([`super::texture`]).
    pub images: HashMap<u32, super::texture::Image>,
    /// `IMAGE[n]` ([`super::image`]).
    pub storage_images: HashMap<u32, super::image::StorageImage>,
    /// `SAMP[n]`: its variable and type.
    pub samplers: HashMap<u32, (Word, Word)>,
    pub flow: Vec<super::flow::Frame>,
    pub interface: Vec<Word>,
    u32_consts: HashMap<u32, Word>,
    ptr_types: HashMap<(StorageClass, Word), Word>,
    /// The instruction being translated (for errors).
    pub at: usize,
    /// Its float sources flush denormals (Direct3D's rule for its opcode,
    /// [`tgsi_ir::opcode::Opcode::direct3d_flush`]).
    pub flush_sources: bool,
    /// The vertices of a geometry or tessellation shader's per-vertex
    /// inputs (0 in other stages): `IN[v][r]` is element v × `in_regs` + r
    /// of the `IN` array.
    pub in_vertices: u32,
    pub in_regs: u32,
    /// A geometry shader's count of emitted vertices (a function variable).
    pub emitted: Option<Word>,
    /// Where the registers live: function variables, or private module
    /// variables when subroutines (CAL) share them.
    pub reg_class: StorageClass,
    /// The function of each subroutine, by its BGNSUB's instruction index.
    pub subroutines: HashMap<u32, Word>,
    /// Translating a subroutine (RET returns without the outputs).
    pub in_subroutine: bool,
    /// The capture buffer and `VertexIndex` of a capturing vertex shader.
    pub capture: Option<(WordBuffer, Word)>,
    /// A geometry shader's input and output `PrimitiveId`, when it writes
    /// no `PRIMID` of its own.
    pub primitive_id_pass: Option<(Word, Word)>,
    /// The 64-bit types, made with the first 64-bit instruction.
    pub wide: Option<super::wide::WideTypes>,
    /// The `uint` specialization constants declared, by constant id.
    pub spec_constants: HashMap<u32, Word>,
    /// `SPV_EXT_demote_to_helper_invocation` and its capability declared.
    pub demote_declared: bool,
    /// The tessellation locations this module's varyings between the two
    /// tessellation stages take, and whose they are
    /// ([`super::tess::tessellation_location`]).
    pub tess_claims: HashMap<u32, (SemanticName, u32)>,
    /// The push constant block of `CS_USER_DATA_AMD` (a `uvec4`).
    pub user_data: Option<Word>,
    /// The private table of the standard sample positions (SAMPLE_POS).
    pub sample_positions: Option<Word>,
    /// A TESS_CTRL shader's output variables, by `OUT` register.
    pub patch_outputs: HashMap<u32, super::tess::PatchOutput>,
    /// A TESS_EVAL shader's `TessCoord` and level inputs of its system
    /// values, with their lengths.
    pub tess_inputs: HashMap<SemanticName, (Word, u32)>,
}

impl<'a> Translator<'a> {
    pub fn new(shader: &'a Shader, options: &Options) -> Result<Translator<'a>, Error> {
        let in_vertices = match shader.processor {
            Processor::Geometry => super::geometry::input_vertices(shader)?,
            Processor::TessCtrl | Processor::TessEval => super::tess::PATCH_VERTICES,
            _ => 0,
        };
        let mut b = Builder::new();
        b.set_version(1, 5);
        b.capability(Capability::Shader);
        match shader.processor {
            Processor::Geometry => b.capability(Capability::Geometry),
            Processor::TessCtrl | Processor::TessEval => b.capability(Capability::Tessellation),
            _ => {}
        }
        if !options.omit_signed_zero_mode {
            b.capability(Capability::SignedZeroInfNanPreserve);
        }
        if !options.omit_denorm_mode {
            b.capability(if options.direct3d {
                Capability::DenormFlushToZero
            } else {
                Capability::DenormPreserve
            });
        }
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let glsl = b.ext_inst_import("GLSL.std.450");
        let void = b.type_void();
        let bool_ = b.type_bool();
        let u32_ = b.type_int(32, 0);
        let i32_ = b.type_int(32, 1);
        let f32_ = b.type_float(32, None);
        let t = Types {
            void,
            bool: bool_,
            u32: u32_,
            i32: i32_,
            f32: f32_,
            b4: b.type_vector(bool_, 4),
            u4: b.type_vector(u32_, 4),
            i4: b.type_vector(i32_, 4),
            f4: b.type_vector(f32_, 4),
            u3: b.type_vector(u32_, 3),
        };
        Ok(Translator {
            shader,
            options: *options,
            b,
            t,
            glsl,
            temps: None,
            addrs: None,
            imms: Vec::new(),
            imm_array: None,
            consts: HashMap::new(),
            buffers: HashMap::new(),
            shared: None,
            svs: HashMap::new(),
            builtins: HashMap::new(),
            words_struct: None,
            ins: None,
            outs: None,
            in_sources: Vec::new(),
            out_sinks: Vec::new(),
            int_builtins: HashMap::new(),
            depth_replacing: false,
            stencil_replacing: false,
            distance_vars: None,
            images: HashMap::new(),
            storage_images: HashMap::new(),
            samplers: HashMap::new(),
            flow: Vec::new(),
            interface: Vec::new(),
            u32_consts: HashMap::new(),
            ptr_types: HashMap::new(),
            at: 0,
            flush_sources: false,
            in_vertices,
            in_regs: 0,
            emitted: None,
            reg_class: if shader.instructions().any(|i| i.opcode == Opcode::BGNSUB) {
                StorageClass::Private
            } else {
                StorageClass::Function
            },
            subroutines: HashMap::new(),
            in_subroutine: false,
            capture: None,
            primitive_id_pass: None,
            wide: None,
            spec_constants: HashMap::new(),
            demote_declared: false,
            tess_claims: HashMap::new(),
            user_data: None,
            sample_positions: None,
            patch_outputs: HashMap::new(),
            tess_inputs: HashMap::new(),
        })
    }

    /// An error at the instruction being translated.
    pub fn fail(&self, message: impl Into<String>) -> Error {
        Error {
            instruction: Some(self.at),
            message: message.into(),
        }
    }

    pub fn c_u32(&mut self, v: u32) -> Word {
        if let Some(&c) = self.u32_consts.get(&v) {
            return c;
        }
        let c = self.b.constant_bit32(self.t.u32, v);
        self.u32_consts.insert(v, c);
        c
    }

    pub fn c_i32(&mut self, v: i32) -> Word {
        let t = self.t.i32;
        self.b.constant_bit32(t, v as u32)
    }

    pub fn c_f32(&mut self, v: f32) -> Word {
        let t = self.t.f32;
        self.b.constant_bit32(t, v.to_bits())
    }

    /// A vector of four copies of `c` of vector type `ty`.
    pub fn splat(&mut self, ty: Word, c: Word) -> Word {
        self.b
            .composite_construct(ty, None, [c, c, c, c])
            .expect("in a block")
    }

    pub fn ptr(&mut self, class: StorageClass, pointee: Word) -> Word {
        if let Some(&p) = self.ptr_types.get(&(class, pointee)) {
            return p;
        }
        let p = self.b.type_pointer(None, class, pointee);
        self.ptr_types.insert((class, pointee), p);
        p
    }

    /// The vector type of operand type `ty` (32-bit types only).
    pub fn vec_of(&self, ty: OperandType) -> Result<Word, Error> {
        match ty {
            OperandType::Float | OperandType::Untyped => Ok(self.t.f4),
            OperandType::Int => Ok(self.t.i4),
            OperandType::Uint => Ok(self.t.u4),
            OperandType::Double | OperandType::Int64 | OperandType::Uint64 => {
                Err(self.fail("64-bit operations are not translated to SPIR-V yet"))
            }
        }
    }

    // ---- declarations ------------------------------------------------------

    /// A storage buffer of words at `binding` (read-only for constants).
    pub(crate) fn word_buffer(&mut self, binding: u32, read_only: bool) -> WordBuffer {
        let st = match self.words_struct {
            Some(st) => st,
            None => {
                let u32_ = self.t.u32;
                let arr = self.b.type_runtime_array(u32_);
                self.b
                    .decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
                let st = self.b.type_struct([arr]);
                self.b.decorate(st, Decoration::Block, []);
                self.b
                    .member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
                self.words_struct = Some(st);
                st
            }
        };
        let p = self.ptr(StorageClass::StorageBuffer, st);
        let var = self.b.variable(p, None, StorageClass::StorageBuffer, None);
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        if read_only {
            self.b.decorate(var, Decoration::NonWritable, []);
        }
        self.interface.push(var);
        WordBuffer { var }
    }

    /// A built-in input variable of type `uvec3`.
    fn builtin_u3(&mut self, which: BuiltIn) -> Word {
        let u3 = self.t.u3;
        let p = self.ptr(StorageClass::Input, u3);
        let var = self.b.variable(p, None, StorageClass::Input, None);
        self.b
            .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(which)]);
        self.interface.push(var);
        var
    }

    /// Immediates, buffers and shared memory (module-level declarations).
    fn declare_globals(&mut self) -> Result<(), Error> {
        let shader = self.shader;
        for imm in shader.immediates() {
            // the machine's IMM register: the first four words (two
            // 64-bit values low word first)
            let mut w = [0u32; 4];
            for (slot, word) in w.iter_mut().zip(&imm.words) {
                *slot = *word;
            }
            let cs: Vec<Word> = w.iter().map(|&v| self.c_u32(v)).collect();
            let u4 = self.t.u4;
            let c = self.b.constant_composite(u4, cs);
            self.imms.push(c);
        }
        let indirect_immediates = shader
            .instructions()
            .flat_map(|i| i.src.iter())
            .any(|s| s.reg.file == File::Immediate && s.reg.index.indirect.is_some());
        if shader
            .instructions()
            .any(|i| i.opcode == Opcode::SAMPLE_POS)
        {
            self.declare_sample_positions();
        }
        if shader.declarations().any(|d| {
            d.file == File::SystemValue
                && d.semantic
                    .is_some_and(|s| s.name == SemanticName::CsUserDataAmd)
        }) {
            self.declare_user_data();
        }
        if indirect_immediates && !self.imms.is_empty() {
            // a private array of the immediates, read by indirect indices
            let (u4, len) = (self.t.u4, self.c_u32(self.imms.len() as u32));
            let arr = self.b.type_array(u4, len);
            let init = self.b.constant_composite(arr, self.imms.clone());
            let p = self.ptr(StorageClass::Private, arr);
            let var = self.b.variable(p, None, StorageClass::Private, Some(init));
            self.interface.push(var);
            self.imm_array = Some(var);
        }
        for d in shader.declarations() {
            match d.file {
                File::Const => {
                    let n = d.dimension.unwrap_or(0);
                    if !self.consts.contains_key(&n) {
                        let wb = self.word_buffer(const_binding(n), true);
                        self.consts.insert(n, wb);
                    }
                }
                File::Buffer => {
                    for n in d.first..=d.last {
                        if !self.buffers.contains_key(&n) {
                            let wb = self.word_buffer(buffer_binding(n), false);
                            self.buffers.insert(n, wb);
                        }
                    }
                }
                File::Memory => {
                    if self.shared.is_none() {
                        let (u32_, n) = (self.t.u32, self.c_u32(SHARED_BYTES / 4));
                        let arr = self.b.type_array(u32_, n);
                        let p = self.ptr(StorageClass::Workgroup, arr);
                        let var = self.b.variable(p, None, StorageClass::Workgroup, None);
                        self.interface.push(var);
                        self.shared = Some(var);
                    }
                }
                File::SystemValue => {
                    let Some(name) = d.semantic.map(|s| s.name) else {
                        continue;
                    };
                    if let Some(which) = builtin_of(name)
                        && shader.processor == Processor::Compute
                        && !self.builtins.contains_key(&name)
                    {
                        let var = self.builtin_u3(which);
                        self.builtins.insert(name, var);
                    }
                    self.declare_int_builtin(name);
                    self.declare_tessellation_input(name);
                }
                File::Temp
                | File::Address
                | File::Null
                | File::Input
                | File::Output
                | File::Sampler
                | File::SamplerView
                | File::Image => {}
                other => {
                    return Err(Error::general(format!(
                        "{other} registers are not translated to SPIR-V yet"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The register arrays' lengths and the system values the shader
    /// declares.
    fn register_plan(&mut self) -> Result<RegisterPlan, Error> {
        let shader = self.shader;
        let mut plan = RegisterPlan::default();
        for d in shader.declarations() {
            match d.file {
                File::Temp => plan.temps = plan.temps.max(d.last + 1),
                File::Address => plan.addrs = plan.addrs.max(d.last + 1),
                File::Input => plan.ins = plan.ins.max(d.last + 1),
                File::Output => plan.outs = plan.outs.max(d.last + 1),
                File::SystemValue => {
                    let name = d.semantic.map(|s| s.name).ok_or_else(|| {
                        Error::general(format!("SV[{}] has no semantic", d.first))
                    })?;
                    for n in d.first..=d.last {
                        plan.svs.push((n, name));
                    }
                }
                _ => {}
            }
        }
        self.in_regs = plan.ins;
        if shader.processor == Processor::TessCtrl {
            // its outputs are the output variables themselves
            plan.outs = 0;
        }
        if self.in_vertices > 0 {
            plan.ins *= self.in_vertices;
        }
        Ok(plan)
    }

    /// The register arrays, the system values' variables and the emit
    /// counter, in `self.reg_class`: function variables made in the entry
    /// block, or module (private) ones made before any function when
    /// subroutines share them.
    fn make_register_vars(&mut self, plan: &RegisterPlan) {
        let (u4, class) = (self.t.u4, self.reg_class);
        let var_of = |t: &mut Self, ty: Word| {
            let p = t.ptr(class, ty);
            let var = t.b.variable(p, None, class, None);
            if class != StorageClass::Function {
                t.interface.push(var);
            }
            var
        };
        for (len, slot) in [
            (plan.temps, 0),
            (plan.addrs, 1),
            (plan.ins, 2),
            (plan.outs, 3),
        ] {
            if len == 0 {
                continue;
            }
            let n = self.c_u32(len);
            let arr = self.b.type_array(u4, n);
            let var = var_of(self, arr);
            let found = Some((var, len));
            match slot {
                0 => self.temps = found,
                1 => self.addrs = found,
                2 => self.ins = found,
                _ => self.outs = found,
            }
        }
        if self.shader.processor == Processor::Geometry {
            let u32_ = self.t.u32;
            self.emitted = Some(var_of(self, u32_));
        }
        for (n, _) in &plan.svs {
            let var = var_of(self, u4);
            self.svs.insert(*n, var);
        }
    }

    /// Zeroes the register arrays, copies the inputs in and stores the
    /// system values (in the entry block).
    fn init_registers(&mut self, plan: &RegisterPlan) -> Result<(), Error> {
        let u4 = self.t.u4;
        // zero the register arrays (TGSI registers start at 0)
        for (var, len) in [self.temps, self.addrs, self.ins, self.outs]
            .into_iter()
            .flatten()
        {
            let zero = self.c_u32(0);
            let z4 = self.b.constant_composite(u4, [zero, zero, zero, zero]);
            for k in 0..len {
                let p = self.reg_ptr_direct(var, k);
                self.b
                    .store(p, z4, None, [])
                    .map_err(|e| self.fail(e.to_string()))?;
            }
        }
        if let Some(var) = self.emitted {
            let zero = self.c_u32(0);
            sp!(self, self.b.store(var, zero, None, []))?;
        }
        self.load_inputs()?;
        for (n, name) in &plan.svs {
            let value = self.system_value(*name)?;
            let var = self.svs[n];
            self.b
                .store(var, value, None, [])
                .map_err(|e| self.fail(e.to_string()))?;
        }
        Ok(())
    }

    /// The `uvec4` of system value `name` (vectors have w = 0).
    fn system_value(&mut self, name: SemanticName) -> Result<Word, Error> {
        if let Some(v) = self.int_system_value(name)? {
            return Ok(v);
        }
        if let Some(v) = self.tessellation_system_value(name)? {
            return Ok(v);
        }
        let zero = self.c_u32(0);
        let from_u3 = |t: &mut Self, v: Word| -> Word {
            let u4 = t.t.u4;
            let z = t.c_u32(0);
            let x =
                t.b.composite_extract(t.t.u32, None, v, [0])
                    .expect("in a block");
            let y =
                t.b.composite_extract(t.t.u32, None, v, [1])
                    .expect("in a block");
            let zc =
                t.b.composite_extract(t.t.u32, None, v, [2])
                    .expect("in a block");
            t.b.composite_construct(u4, None, [x, y, zc, z])
                .expect("in a block")
        };
        if let Some(&var) = self.builtins.get(&name) {
            let u3 = self.t.u3;
            let v = self.b.load(u3, None, var, None, []).expect("in a block");
            return Ok(from_u3(self, v));
        }
        match name {
            SemanticName::BlockSize => {
                let [x, y, z] = self.block_size().map(|v| self.c_u32(v));
                let u4 = self.t.u4;
                Ok(self.b.constant_composite(u4, [x, y, z, zero]))
            }
            SemanticName::CsUserDataAmd => {
                let var = self
                    .user_data
                    .ok_or_else(|| self.fail("CS_USER_DATA_AMD without its push constants"))?;
                let u4 = self.t.u4;
                let p = self.ptr(StorageClass::PushConstant, u4);
                let first = sp!(self, self.b.access_chain(p, None, var, [zero]))?;
                Ok(sp!(self, self.b.load(u4, None, first, None, []))?)
            }
            other => Err(Error::general(format!(
                "system value {other} is not translated to SPIR-V yet"
            ))),
        }
    }

    /// The fragment coordinate properties: (origin lower-left, integer
    /// pixel centres).
    pub(crate) fn fragment_coord_rules(&self) -> (bool, bool) {
        let mut rules = (false, false);
        for p in self.shader.properties() {
            match p.name {
                PropertyName::FsCoordOrigin => rules.0 = p.value != 0,
                PropertyName::FsCoordPixelCenter => rules.1 = p.value != 0,
                _ => {}
            }
        }
        rules
    }

    /// `CS_USER_DATA_AMD`: a push constant block of one `uvec4` at offset
    /// 0 ([`crate::USER_DATA_PUSH_CONSTANT`]), declared with the globals.
    fn declare_user_data(&mut self) {
        let u4 = self.t.u4;
        let block = self.b.type_struct([u4]);
        self.b.decorate(block, Decoration::Block, []);
        self.b
            .member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        let p = self.ptr(StorageClass::PushConstant, block);
        let var = self.b.variable(p, None, StorageClass::PushConstant, None);
        self.interface.push(var);
        self.user_data = Some(var);
    }

    /// CS_FIXED_BLOCK_WIDTH/HEIGHT/DEPTH (1 when absent).
    pub fn block_size(&self) -> [u32; 3] {
        let mut size = [1u32; 3];
        for p in self.shader.properties() {
            match p.name {
                PropertyName::CsFixedBlockWidth => size[0] = p.value.max(1),
                PropertyName::CsFixedBlockHeight => size[1] = p.value.max(1),
                PropertyName::CsFixedBlockDepth => size[2] = p.value.max(1),
                _ => {}
            }
        }
        size
    }

    // ---- the walk ----------------------------------------------------------

    pub fn translate(mut self) -> Result<Vec<u32>, Error> {
        if self
            .shader
            .property(PropertyName::LegacyMathRules)
            .unwrap_or(0)
            != 0
        {
            // (the machine runs them: `tgsi_exec::ops::legacy`)
            return Err(Error::general(
                "PROPERTY LEGACY_MATH_RULES (products with a zero factor are 0) is not translated to SPIR-V",
            ));
        }
        self.declare_globals()?;
        self.declare_textures()?;
        self.declare_images()?;
        self.declare_io()?;
        let void = self.t.void;
        let fn_ty = self.b.type_function(void, []);
        let plan = self.register_plan()?;
        if self.reg_class != StorageClass::Function {
            self.make_register_vars(&plan);
        }
        // each subroutine's function, named before any call
        for (k, inst) in self.shader.instructions().enumerate() {
            if inst.opcode == Opcode::BGNSUB {
                let id = self.b.id();
                self.subroutines.insert(k as u32, id);
            }
        }
        let main = self
            .b
            .begin_function(void, None, FunctionControl::NONE, fn_ty)
            .map_err(|e| Error::general(e.to_string()))?;
        self.b
            .begin_block(None)
            .map_err(|e| Error::general(e.to_string()))?;
        if self.reg_class == StorageClass::Function {
            self.make_register_vars(&plan);
        }
        self.init_registers(&plan)?;
        let insts: Vec<&Instruction> = self
            .shader
            .statements
            .iter()
            .filter_map(|s| match s {
                Statement::Instruction(i) => Some(i),
                _ => None,
            })
            .collect();
        if let Some(at) = super::flow::recursive_call(&insts) {
            self.at = at;
            return Err(self.fail(
                "this CAL can reach its own subroutine again: SPIR-V allows no recursion \
                 (the machine runs it up to its call depth limit)",
            ));
        }
        let mut main_end = insts.len();
        for (k, inst) in insts.iter().enumerate() {
            self.at = k;
            // flow keeps its operands' bits (`instruction` sets its own rule)
            self.flush_sources = false;
            if super::flow::is_flow(inst.opcode) {
                if self.flow_instruction(inst)? {
                    main_end = k;
                    break;
                }
            } else {
                self.instruction(inst)?;
            }
        }
        self.flush_sources = false;
        if !self.flow.is_empty() {
            return Err(Error::general("the program leaves a block open"));
        }
        if self.b.selected_block().is_some() {
            self.store_outputs()?;
            self.b.ret().map_err(|e| Error::general(e.to_string()))?;
        }
        self.b
            .end_function()
            .map_err(|e| Error::general(e.to_string()))?;
        self.translate_subroutines(&insts, main_end, fn_ty)?;
        let interface = std::mem::take(&mut self.interface);
        let model = match self.shader.processor {
            Processor::Vertex => ExecutionModel::Vertex,
            Processor::Fragment => ExecutionModel::Fragment,
            Processor::Geometry => ExecutionModel::Geometry,
            Processor::TessCtrl => ExecutionModel::TessellationControl,
            Processor::TessEval => ExecutionModel::TessellationEvaluation,
            _ => ExecutionModel::GLCompute,
        };
        self.b.entry_point(model, main, "main", interface);
        match model {
            ExecutionModel::GLCompute => {
                let [x, y, z] = self.block_size();
                self.b
                    .execution_mode(main, ExecutionMode::LocalSize, [x, y, z]);
            }
            ExecutionModel::Geometry => self.geometry_modes(main)?,
            ExecutionModel::TessellationControl | ExecutionModel::TessellationEvaluation => {
                self.tessellation_modes(main)?
            }
            ExecutionModel::Fragment => {
                self.b
                    .execution_mode(main, ExecutionMode::OriginUpperLeft, []);
                if self.depth_replacing {
                    self.b
                        .execution_mode(main, ExecutionMode::DepthReplacing, []);
                }
                if self.stencil_replacing {
                    self.b
                        .execution_mode(main, ExecutionMode::StencilRefReplacingEXT, []);
                }
            }
            _ => {}
        }
        let denorm = if self.options.direct3d {
            ExecutionMode::DenormFlushToZero
        } else {
            ExecutionMode::DenormPreserve
        };
        if !self.options.omit_denorm_mode {
            self.b.execution_mode(main, denorm, [32]);
        }
        // signed zeros, infinities and NaNs as IEEE says (a device may
        // otherwise compile as if there were none: lavapipe gives
        // -0 × 0 = +0 without this mode)
        if !self.options.omit_signed_zero_mode {
            self.b
                .execution_mode(main, ExecutionMode::SignedZeroInfNanPreserve, [32]);
        }
        // and for doubles, where the module has them (lavapipe folds
        // 0 / NaN into 0 without it)
        if self.wide.is_some() {
            if !self.options.omit_denorm_mode_64 {
                self.b.capability(Capability::DenormPreserve);
                self.b
                    .execution_mode(main, ExecutionMode::DenormPreserve, [64]);
            }
            if !self.options.omit_signed_zero_mode_64 {
                self.b.capability(Capability::SignedZeroInfNanPreserve);
                self.b
                    .execution_mode(main, ExecutionMode::SignedZeroInfNanPreserve, [64]);
            }
        }
        let _ = spirv::Op::Nop;
        use rspirv::binary::Assemble;
        Ok(self.b.module().assemble())
    }

    // ---- registers ---------------------------------------------------------

    /// A pointer to element `k` of a register array.
    pub fn reg_ptr_direct(&mut self, array: Word, k: u32) -> Word {
        let u4 = self.t.u4;
        let p = self.ptr(self.reg_class, u4);
        let i = self.c_u32(k);
        self.b
            .access_chain(p, None, array, [i])
            .expect("in a block")
    }

    /// The array and length of a writable register file.
    fn reg_array(&self, file: File) -> Result<(Word, u32), Error> {
        let found = match file {
            File::Temp => self.temps,
            File::Address => self.addrs,
            File::Input => self.ins,
            File::Output => self.outs,
            _ => None,
        };
        found.ok_or_else(|| self.fail(format!("{file} registers are not declared")))
    }

    /// The index of a register access as an `int` (direct or through an
    /// address register) and whether it is known in range.
    pub(crate) fn index_of(&mut self, reg: &Register) -> Result<(Word, Option<u32>), Error> {
        if let (Some(dim), File::Input, true) = (reg.dimension, reg.file, self.in_vertices > 0) {
            // IN[v][r] of a geometry shader: v × registers + r
            let flat = Register {
                file: File::Input,
                index: reg.index,
                dimension: None,
            };
            let (r, r_known) = self.index_of(&flat)?;
            let vertex = Register {
                file: File::Input,
                index: dim,
                dimension: None,
            };
            let (v, v_known) = self.index_of(&vertex)?;
            if let (Some(r), Some(v)) = (r_known, v_known) {
                let k = v * self.in_regs + r;
                let in_range = r < self.in_regs && v < self.in_vertices;
                return Ok((
                    self.c_i32(k as i32),
                    Some(if in_range { k } else { u32::MAX }),
                ));
            }
            let i32_ = self.t.i32;
            let n = self.c_i32(self.in_regs as i32);
            let base = sp!(self, self.b.i_mul(i32_, None, v, n))?;
            return Ok((sp!(self, self.b.i_add(i32_, None, base, r))?, None));
        }
        if reg.dimension.is_some() && reg.file != File::Const {
            return Err(self.fail("2-D registers are not translated to SPIR-V yet"));
        }
        match reg.index.indirect {
            None => {
                let k = reg.index.offset;
                Ok((self.c_i32(k), u32::try_from(k).ok()))
            }
            Some(a) => {
                let addr = self.load_reg4(&Register::new(a.file, a.index))?;
                let i32_ = self.t.i32;
                let c = self
                    .b
                    .composite_extract(self.t.u32, None, addr, [a.component as u32])
                    .expect("in a block");
                let c = self.b.bitcast(i32_, None, c).expect("in a block");
                let off = self.c_i32(reg.index.offset);
                let sum = self.b.i_add(i32_, None, c, off).expect("in a block");
                Ok((sum, None))
            }
        }
    }

    /// The four words of a register.
    pub fn load_reg4(&mut self, reg: &Register) -> Result<Word, Error> {
        let u4 = self.t.u4;
        match reg.file {
            File::Immediate => {
                let k = reg.index.offset;
                if reg.index.indirect.is_some() {
                    let array = self
                        .imm_array
                        .ok_or_else(|| self.fail("an indirect immediate without immediates"))?;
                    let len = self.imms.len() as u32;
                    let (i, _) = self.index_of(reg)?;
                    return self.read_array_of(array, StorageClass::Private, len, i);
                }
                usize::try_from(k)
                    .ok()
                    .and_then(|k| self.imms.get(k).copied())
                    .ok_or_else(|| self.fail(format!("IMM[{k}] is not defined")))
            }
            File::SystemValue => {
                let var = *self.svs.get(&(reg.index.offset as u32)).ok_or_else(|| {
                    self.fail(format!("SV[{}] is not declared", reg.index.offset))
                })?;
                Ok(self.b.load(u4, None, var, None, []).expect("in a block"))
            }
            File::Output if self.shader.processor == Processor::TessCtrl => {
                self.load_patch_output(reg)
            }
            File::Temp | File::Address | File::Input | File::Output => {
                let (array, len) = self.reg_array(reg.file)?;
                let (i, known) = self.index_of(reg)?;
                self.read_array(array, len, i, known)
            }
            File::Const => self.load_const(reg),
            other => Err(self.fail(format!(
                "reading {other} registers is not translated to SPIR-V yet"
            ))),
        }
    }

    /// Element `i` of a register array, 0 when out of range.
    fn read_array(
        &mut self,
        array: Word,
        len: u32,
        i: Word,
        known: Option<u32>,
    ) -> Result<Word, Error> {
        let u4 = self.t.u4;
        if let Some(k) = known {
            if k >= len {
                let zero = self.c_u32(0);
                return Ok(self.b.constant_composite(u4, [zero, zero, zero, zero]));
            }
            let p = self.reg_ptr_direct(array, k);
            return Ok(self.b.load(u4, None, p, None, []).expect("in a block"));
        }
        self.read_array_of(array, self.reg_class, len, i)
    }

    /// Element `i` (an `int`) of the `uvec4` array `array` of storage
    /// `class`, 0 when out of range.
    fn read_array_of(
        &mut self,
        array: Word,
        class: StorageClass,
        len: u32,
        i: Word,
    ) -> Result<Word, Error> {
        let u4 = self.t.u4;
        let (ok, clamped) = self.clamp_index(i, len);
        let p4 = self.ptr(class, u4);
        let p = self
            .b
            .access_chain(p4, None, array, [clamped])
            .expect("in a block");
        let v = self.b.load(u4, None, p, None, []).expect("in a block");
        let zero = self.c_u32(0);
        let z4 = self.b.constant_composite(u4, [zero, zero, zero, zero]);
        let b4 = self.t.b4;
        let ok4 = self
            .b
            .composite_construct(b4, None, [ok, ok, ok, ok])
            .expect("in a block");
        Ok(self.b.select(u4, None, ok4, v, z4).expect("in a block"))
    }

    /// (0 <= i < len, i clamped into range) for an `int` index.
    pub fn clamp_index(&mut self, i: Word, len: u32) -> (Word, Word) {
        let (bool_, u32_) = (self.t.bool, self.t.u32);
        let iu = self.b.bitcast(u32_, None, i).expect("in a block");
        let n = self.c_u32(len);
        let ok = self.b.u_less_than(bool_, None, iu, n).expect("in a block");
        let zero = self.c_u32(0);
        let clamped = self.b.select(u32_, None, ok, iu, zero).expect("in a block");
        (ok, clamped)
    }

    /// `CONST[b][k]`: four words at word 4k of constant buffer b, 0 out of range.
    fn load_const(&mut self, reg: &Register) -> Result<Word, Error> {
        let slot = Register {
            dimension: None,
            ..*reg
        };
        let n = match reg.dimension {
            Some(d) if d.indirect.is_some() => {
                // the buffer chosen at run time among the declared ones (a
                // buffer that is not declared reads zeros)
                let (which, _) = self.index_of(&Register {
                    file: File::Const,
                    index: d,
                    dimension: None,
                })?;
                let mut declared: Vec<(u32, WordBuffer)> =
                    self.consts.iter().map(|(n, wb)| (*n, *wb)).collect();
                declared.sort_by_key(|(n, _)| *n);
                let (u4, b4, i32_) = (self.t.u4, self.t.b4, self.t.i32);
                let zero = self.c_u32(0);
                let mut v = self.b.constant_composite(u4, [zero, zero, zero, zero]);
                for (n, wb) in declared {
                    let words = self.load_const_from(wb, &slot)?;
                    let k = self.b.constant_bit32(i32_, n);
                    let is = sp!(self, self.b.i_equal(self.t.bool, None, which, k))?;
                    let is4 = sp!(self, self.b.composite_construct(b4, None, [is, is, is, is]))?;
                    v = sp!(self, self.b.select(u4, None, is4, words, v))?;
                }
                return Ok(v);
            }
            Some(d) => d.offset as u32,
            None => 0,
        };
        let wb = *self
            .consts
            .get(&n)
            .ok_or_else(|| self.fail(format!("CONST[{n}] is not declared")))?;
        self.load_const_from(wb, &slot)
    }

    /// The slot `reg` (its index direct or indirect) of constant buffer
    /// `wb`, zeros outside it.
    fn load_const_from(&mut self, wb: WordBuffer, reg: &Register) -> Result<Word, Error> {
        let (i, _) = self.index_of(reg)?;
        let (u32_, i32_, bool_) = (self.t.u32, self.t.i32, self.t.bool);
        let four = self.c_i32(4);
        let base = self.b.i_mul(i32_, None, i, four).expect("in a block");
        let base = self.b.bitcast(u32_, None, base).expect("in a block");
        // a slot index whose word address would wrap (negative, or 2^30 and
        // up) reads nothing: the word index is then past every buffer
        let iu = self.b.bitcast(u32_, None, i).expect("in a block");
        let limit = self.c_u32(0x4000_0000);
        let fits = sp!(self, self.b.u_less_than(bool_, None, iu, limit))?;
        let nowhere = self.c_u32(u32::MAX);
        let base = sp!(self, self.b.select(u32_, None, fits, base, nowhere))?;
        let mut words = Vec::new();
        for c in 0..4 {
            let off = self.c_u32(c);
            let at = self.b.i_add(u32_, None, base, off).expect("in a block");
            let at = sp!(self, self.b.select(u32_, None, fits, at, nowhere))?;
            words.push(self.buffer_word(wb, at)?);
        }
        let u4 = self.t.u4;
        Ok(self
            .b
            .composite_construct(u4, None, words)
            .expect("in a block"))
    }

    /// Word `at` of a storage buffer, 0 out of range (`at` an unsigned word index).
    pub fn buffer_word(&mut self, wb: WordBuffer, at: Word) -> Result<Word, Error> {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let len = self
            .b
            .array_length(u32_, None, wb.var, 0)
            .expect("in a block");
        let ok = self
            .b
            .u_less_than(bool_, None, at, len)
            .expect("in a block");
        // read only in range (a zero-length buffer has no word to read)
        let zero = self.c_u32(0);
        let v = self.when(ok, Some(zero), |t| {
            let p = t.ptr(StorageClass::StorageBuffer, u32_);
            let ptr = sp!(t, t.b.access_chain(p, None, wb.var, [zero, at]))?;
            Ok(Some(sp!(t, t.b.load(u32_, None, ptr, None, []))?))
        })?;
        Ok(v.unwrap_or(zero))
    }

    /// A source operand as a vector of operand type `ty`: swizzled, with
    /// its absolute value and negation in that type.
    pub fn fetch(&mut self, src: &SrcOperand, ty: OperandType) -> Result<Word, Error> {
        let v = self.fetch_bits(src)?;
        let u4 = self.t.u4;
        let vty = self.vec_of(ty)?;
        let mut v = if vty == u4 {
            v
        } else {
            self.b.bitcast(vty, None, v).expect("in a block")
        };
        let float = vty == self.t.f4;
        if ty == OperandType::Float && self.flush_sources {
            v = self.flush(v)?;
        }
        if src.absolute {
            let op = if float {
                rspirv::spirv::GlslStd450Op::FAbs
            } else {
                rspirv::spirv::GlslStd450Op::SAbs
            };
            let (g, vi) = (self.glsl, if float { vty } else { self.t.i4 });
            let x = if vi == vty {
                v
            } else {
                self.b.bitcast(vi, None, v).expect("in a block")
            };
            let a = self
                .b
                .ext_inst(vi, None, g, op as u32, [Operand::IdRef(x)])
                .expect("in a block");
            v = if vi == vty {
                a
            } else {
                self.b.bitcast(vty, None, a).expect("in a block")
            };
        }
        if src.negate {
            v = if float {
                self.b.f_negate(vty, None, v).expect("in a block")
            } else {
                self.b.s_negate(vty, None, v).expect("in a block")
            };
        }
        Ok(v)
    }

    /// A source operand's swizzled bits (a `uvec4`), without modifiers.
    pub fn fetch_bits(&mut self, src: &SrcOperand) -> Result<Word, Error> {
        let raw = self.load_reg4(&src.reg)?;
        let u4 = self.t.u4;
        let sw: Vec<u32> = src.swizzle.0.iter().map(|c| *c as u32).collect();
        sp!(self, self.b.vector_shuffle(u4, None, raw, raw, sw))
    }

    /// Direct3D's rule for float32 denormals, in code (devices may not
    /// honour the `DenormFlushToZero` mode): each becomes a zero of its sign.
    pub fn flush(&mut self, v: Word) -> Result<Word, Error> {
        let (f4, u4, b4) = (self.t.f4, self.t.u4, self.t.b4);
        let bits = sp!(self, self.b.bitcast(u4, None, v))?;
        let exp = self.c_u32(0x7f80_0000);
        let sign = self.c_u32(0x8000_0000);
        let zero = self.c_u32(0);
        let (exp4, sign4, zero4) = (
            self.splat(u4, exp),
            self.splat(u4, sign),
            self.splat(u4, zero),
        );
        let e = sp!(self, self.b.bitwise_and(u4, None, bits, exp4))?;
        let denormal = sp!(self, self.b.i_equal(b4, None, e, zero4))?;
        let signed_zero = sp!(self, self.b.bitwise_and(u4, None, bits, sign4))?;
        let out = sp!(self, self.b.select(u4, None, denormal, signed_zero, bits))?;
        sp!(self, self.b.bitcast(f4, None, out))
    }

    /// Writes channels `mask` of `value` (a vector of any 32-bit type) to
    /// destination `dst` (its write mask applied too).
    /// The `uint` specialization constant `id` (default `default`),
    /// declared once.
    pub(crate) fn spec_constant(&mut self, id: u32, default: u32) -> Word {
        if let Some(&c) = self.spec_constants.get(&id) {
            return c;
        }
        let u32_ = self.t.u32;
        let c = self.b.spec_constant_bit32(u32_, default);
        self.b
            .decorate(c, Decoration::SpecId, [Operand::LiteralBit32(id)]);
        self.spec_constants.insert(id, c);
        c
    }

    /// Writes `value` to the instruction's first destination (through its
    /// write mask).
    pub(crate) fn store_result(&mut self, inst: &Instruction, value: Word) -> Result<(), Error> {
        let dst = inst
            .dst
            .first()
            .ok_or_else(|| self.fail(format!("{} has no destination", inst.opcode)))?;
        self.store(dst, value, 0xF)
    }

    pub fn store(&mut self, dst: &DstOperand, value: Word, mask: u8) -> Result<(), Error> {
        self.store_channels(dst, value, mask & dst.write_mask.bits())
    }

    /// Writes channels `mask` of `value` to `dst`, whatever its write mask
    /// says (the 64-bit opcodes' rules decide which channels they write).
    pub fn store_channels(&mut self, dst: &DstOperand, value: Word, mask: u8) -> Result<(), Error> {
        if mask == 0 || dst.reg.file == File::Null {
            return Ok(());
        }
        let u4 = self.t.u4;
        if dst.reg.file == File::Output && self.shader.processor == Processor::TessCtrl {
            let bits = sp!(self, self.b.bitcast(u4, None, value))?;
            return self.store_patch_output(dst, bits, mask);
        }
        let (array, len) = self.reg_array(dst.reg.file)?;
        let bits = self.b.bitcast(u4, None, value).expect("in a block");
        let (i, known) = self.index_of(&dst.reg)?;
        let p4 = self.ptr(self.reg_class, u4);
        let write = |t: &mut Self, ptr: Word| {
            let old = t.b.load(u4, None, ptr, None, []).expect("in a block");
            let lanes: Vec<u32> = (0..4)
                .map(|c| if mask >> c & 1 == 1 { 4 + c } else { c })
                .collect();
            let v =
                t.b.vector_shuffle(u4, None, old, bits, lanes)
                    .expect("in a block");
            t.b.store(ptr, v, None, []).expect("in a block");
        };
        match known {
            Some(k) if k < len => {
                let ptr = self.reg_ptr_direct(array, k);
                write(self, ptr);
            }
            Some(_) => {}
            None => {
                let (ok, clamped) = self.clamp_index(i, len);
                self.when(ok, None, |t| {
                    let ptr = sp!(t, t.b.access_chain(p4, None, array, [clamped]))?;
                    write(t, ptr);
                    Ok(None)
                })?;
            }
        }
        Ok(())
    }
}
