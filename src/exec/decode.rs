//! Pre-decoding: turns a shader's IR into a flat array of [`Inst`] whose
//! operands are already resolved to storage (an absolute register number in
//! the batch's register file, a constant-buffer slot, a resource), whose
//! swizzles are channel indices, whose modifiers come from the opcode table
//! ([`Opcode::src_type`]) and whose jump targets come from the block structure
//! (labels in the IR are never read, except CAL's, which names the subroutine
//! and is checked to point at a BGNSUB).
//!
//! Every index is validated here so that the machine never meets an operand
//! it cannot address; bad input is an [`ExecError`] naming the instruction.

use super::ExecError;
use crate::enums::{
    File, InterpLocation, InterpMode, MemType, PipeFormat, Processor, PropertyName, ReturnType,
    SemanticName, TextureTarget,
};
use crate::ir::{ImageDecl, Index, Instruction, Register, SamplerViewDecl, Shader, SrcOperand};
use crate::opcode::{Category, Opcode, OperandType};

/// Most entries one register file may have (TEMP, IN, OUT, IMM, SV, ADDR).
pub const MAX_FILE_ENTRIES: u32 = 4096;
/// Most nested control-flow frames (IF, loops, switches, calls) per batch.
pub const MAX_DEPTH: usize = 64;

/// Where an indirect index reads its per-lane offset: register `reg`
/// (absolute), channel `chan`, as a signed integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrRef {
    pub reg: u32,
    pub chan: u8,
}

/// A constant-buffer index part: `offset` plus, optionally, a per-lane register value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexExpr {
    pub offset: i32,
    pub addr: Option<AddrRef>,
}

/// What a source operand reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrcKind {
    /// A register of the batch file, same for every lane.
    Reg(u32),
    /// `base + offset + addr[lane]`, valid when `offset + addr[lane] < len`.
    RegIndirect {
        base: u32,
        len: u32,
        offset: i32,
        addr: AddrRef,
    },
    /// `CONST[buf][slot]`, both direct.
    Const { buf: u32, slot: i32 },
    /// A constant read with a per-lane buffer or slot.
    ConstIndirect { buf: IndexExpr, slot: IndexExpr },
    /// No operand (unused source slot).
    None,
}

/// Source modifiers, decided from the opcode's source type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modifier {
    None,
    Apply {
        ty: OperandType,
        abs: bool,
        neg: bool,
    },
}

/// A pre-decoded source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    pub kind: SrcKind,
    /// Register channel feeding channel c (0..4).
    pub swz: [u8; 4],
    pub modifier: Modifier,
    /// Float32 denormals read as sign-preserved zeros ([`super::Numerics::Direct3D`]).
    pub flush: bool,
}

impl Src {
    pub const NONE: Src = Src {
        kind: SrcKind::None,
        swz: [0, 1, 2, 3],
        modifier: Modifier::None,
        flush: false,
    };
}

/// What a destination operand writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DstKind {
    Null,
    Reg(u32),
    RegIndirect {
        base: u32,
        len: u32,
        offset: i32,
        addr: AddrRef,
    },
}

/// A pre-decoded destination: storage and write mask (bit c = channel c).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dst {
    pub kind: DstKind,
    pub mask: u8,
}

impl Dst {
    pub const NULL: Dst = Dst {
        kind: DstKind::Null,
        mask: 0,
    };
}

/// The memory a LOAD/STORE/atomic/RESQ works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    Buffer(u32),
    Shared,
    Const(u32),
    /// `IMAGE[index]`, with the target and format the access uses (the
    /// instruction's memory token, else the `DCL IMAGE`; UNKNOWN / `None`:
    /// the bound image's own).
    Image {
        index: u32,
        target: TextureTarget,
        format: Option<crate::texture::Format>,
    },
}

/// What a texture or sampling instruction needs besides its register sources
/// (`Code::tex[inst.aux]`). The instruction's `src[..num_srcs]` are its
/// non-resource sources in operand order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexInst {
    /// The instruction's texture target, or the `DCL SVIEW` target.
    pub target: TextureTarget,
    pub return_type: Option<ReturnType>,
    /// Sampler-view index (for SAMP-only opcodes: the SAMP index).
    pub sview: IndexExpr,
    /// Sampler index (for SVIEW-only opcodes: the SVIEW index).
    pub sampler: IndexExpr,
    /// Swizzle of the SVIEW operand (of the SAMP operand when there is none).
    pub resource_swizzle: [u8; 4],
    /// The channel GATHER4 gathers: the first swizzle selector of its SAMP operand.
    pub gather_component: u8,
    pub num_srcs: u8,
    /// The texel offset (first texture offset), read as integers from rows x, y, z.
    pub offset: Option<Src>,
}

/// A fragment-shader input register and what fills it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragInput {
    /// Index in the IN file.
    pub index: u32,
    pub semantic: Option<(SemanticName, u32)>,
    pub mode: InterpMode,
    pub location: InterpLocation,
}

/// A fragment-shader output register and its semantic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragOutput {
    /// Absolute register number.
    pub reg: u32,
    pub semantic: SemanticName,
    pub index: u32,
}

/// One pre-decoded instruction.
#[derive(Clone, Copy, Debug)]
pub struct Inst {
    pub op: Opcode,
    pub saturate: bool,
    pub dst: [Dst; 2],
    pub src: [Src; 5],
    /// Swizzle of the resource operand (LOAD permutes its result with it).
    pub resource: Option<Resource>,
    /// Jump target from the block structure (meaning depends on the opcode):
    /// IF/UIF → its ELSE or ENDIF; ELSE → ENDIF; BGNLOOP → ENDLOOP; ENDLOOP →
    /// BGNLOOP; BRK/CONT in a loop → that loop's ENDLOOP; CAL → first
    /// instruction of the subroutine body; SWITCH → its ENDSWITCH.
    pub target: u32,
    /// SWITCH: index into [`Code::switch_cases`]; texture and sampling
    /// opcodes: index into [`Code::tex`]; INTERP_*: the IN register index.
    pub aux: u32,
    /// BRK: true when it leaves a switch (false: a loop).
    pub brk_switch: bool,
    /// Float32 denormal results are written as sign-preserved zeros
    /// ([`super::Numerics::Direct3D`]).
    pub flush: bool,
    /// The program runs under [`super::Numerics::Direct3D`] (conversions
    /// to half round toward zero).
    pub d3d: bool,
}

/// Where each register file lives in the batch register array.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileRange {
    pub base: u32,
    pub len: u32,
}

/// A system value register and what fills it.
#[derive(Clone, Copy, Debug)]
pub struct SystemValue {
    pub reg: u32,
    pub name: SemanticName,
}

/// The whole pre-decoded program.
#[derive(Clone, Debug)]
pub struct Code {
    pub processor: Processor,
    pub insts: Vec<Inst>,
    /// Per instruction: its fast path (`fast.rs`), if it has one.
    pub fast: Vec<super::fast::Kernel>,
    pub temp: FileRange,
    pub output: FileRange,
    pub input: FileRange,
    pub addr: FileRange,
    pub system: FileRange,
    pub imm: FileRange,
    /// Total registers of a batch.
    pub num_regs: u32,
    /// Immediate words, 4 per IMM register.
    pub imm_words: Vec<[u32; 4]>,
    pub system_values: Vec<SystemValue>,
    /// Per SWITCH: the CASE instructions that belong to it.
    pub switch_cases: Vec<Vec<u32>>,
    pub block_size: [u32; 3],
    pub has_barrier: bool,
    pub uses_shared: bool,
    /// Texture/sampling instruction details, by `Inst::aux`.
    pub tex: Vec<TexInst>,
    /// Fragment inputs (declared IN registers of a fragment shader).
    pub frag_inputs: Vec<FragInput>,
    /// Declared outputs with a semantic.
    pub frag_outputs: Vec<FragOutput>,
    /// `DCL SVIEW` declarations, by index.
    pub sviews: Vec<(u32, SamplerViewDecl)>,
    /// `DCL IMAGE` declarations, by index.
    pub images: Vec<(u32, ImageDecl)>,
    /// FS_COORD_ORIGIN LOWER_LEFT.
    pub origin_lower_left: bool,
    /// FS_COORD_PIXEL_CENTER INTEGER.
    pub pixel_center_integer: bool,
    /// FS_COLOR0_WRITES_ALL_CBUFS.
    pub color0_writes_all: bool,
    /// The numeric rules the program was compiled under.
    pub numerics: super::Numerics,
    /// The compiled engine's machine code for this program, when it runs
    /// compiled (`crate::jit`); `None`: the interpreter runs it.
    pub jit: Option<std::sync::Arc<crate::jit::Compiled>>,
}

fn err(i: usize, inst: &Instruction, msg: impl std::fmt::Display) -> ExecError {
    ExecError {
        instruction: Some(i),
        message: format!("instruction {i} ({}): {msg}", inst.opcode),
    }
}

struct Layout {
    processor: Processor,
    sviews: Vec<(u32, SamplerViewDecl)>,
    images: Vec<(u32, ImageDecl)>,
    temp_arrays: Vec<(u32, u32, u32)>, // (array id, first, last)
    temp: FileRange,
    output: FileRange,
    input: FileRange,
    addr: FileRange,
    system: FileRange,
    imm: FileRange,
}

impl Layout {
    fn range(&self, file: File) -> Option<FileRange> {
        Some(match file {
            File::Temp => self.temp,
            File::Output => self.output,
            File::Input => self.input,
            File::Address => self.addr,
            File::SystemValue => self.system,
            File::Immediate => self.imm,
            _ => return None,
        })
    }
}

/// Register files' sizes: the larger of the declared ranges and the direct uses.
fn file_sizes(shader: &Shader) -> Result<[u32; 6], ExecError> {
    let slot = |f: File| match f {
        File::Temp => Some(0),
        File::Output => Some(1),
        File::Input => Some(2),
        File::Address => Some(3),
        File::SystemValue => Some(4),
        File::Immediate => Some(5),
        _ => None,
    };
    let mut sizes = [0u32; 6];
    let too_big = |f: File, n: i64| ExecError {
        instruction: None,
        message: format!(
            "register file {f} needs {n} entries; the machine allows at most {MAX_FILE_ENTRIES}"
        ),
    };
    for d in shader.declarations() {
        if let Some(s) = slot(d.file) {
            let n = d.last as i64 + 1;
            if n > MAX_FILE_ENTRIES as i64 || d.first > d.last {
                return Err(too_big(d.file, n));
            }
            sizes[s] = sizes[s].max(n as u32);
        }
    }
    sizes[5] = sizes[5].max(shader.immediates().count() as u32);
    if sizes[5] > MAX_FILE_ENTRIES {
        return Err(too_big(File::Immediate, sizes[5] as i64));
    }
    let mut note = |r: &Register| -> Result<(), ExecError> {
        if let Some(s) = slot(r.file)
            && r.index.indirect.is_none()
        {
            let n = r.index.offset as i64 + 1;
            if r.index.offset < 0 || n > MAX_FILE_ENTRIES as i64 {
                return Err(too_big(r.file, n));
            }
            sizes[s] = sizes[s].max(n as u32);
        }
        for ind in [r.index.indirect, r.dimension.and_then(|d| d.indirect)]
            .into_iter()
            .flatten()
        {
            if let Some(s) = slot(ind.file) {
                let n = ind.index as i64 + 1;
                if ind.index < 0 || n > MAX_FILE_ENTRIES as i64 {
                    return Err(too_big(ind.file, n));
                }
                sizes[s] = sizes[s].max(n as u32);
            }
        }
        Ok(())
    };
    for inst in shader.instructions() {
        for d in &inst.dst {
            note(&d.reg)?;
        }
        for s in &inst.src {
            note(&s.reg)?;
        }
        for o in inst.texture.iter().flat_map(|t| &t.offsets) {
            note(&Register::new(o.file, o.index))?;
        }
    }
    Ok(sizes)
}

/// Kinds of open blocks while matching the structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    If {
        at: usize,
        else_at: Option<usize>,
    },
    Loop {
        at: usize,
    },
    Switch {
        at: usize,
        table: usize,
        default_seen: bool,
    },
    Sub {
        at: usize,
    },
}

impl Code {
    pub fn compile(shader: &Shader, numerics: super::Numerics) -> Result<Code, ExecError> {
        let sizes = file_sizes(shader)?;
        let mut base = 0u32;
        let mut next = |len: u32| {
            let r = FileRange { base, len };
            base += len;
            r
        };
        let temp = next(sizes[0]);
        let output = next(sizes[1]);
        let input = next(sizes[2]);
        let addr = next(sizes[3]);
        let system = next(sizes[4]);
        let imm = next(sizes[5]);
        let num_regs = base;
        let mut layout = Layout {
            processor: shader.processor,
            sviews: Vec::new(),
            images: Vec::new(),
            temp_arrays: Vec::new(),
            temp,
            output,
            input,
            addr,
            system,
            imm,
        };
        let mut system_values = Vec::new();
        let mut uses_shared_decl = false;
        let mut frag_inputs = Vec::new();
        let mut frag_outputs = Vec::new();
        for d in shader.declarations() {
            match d.file {
                File::Input if shader.processor == Processor::Fragment => {
                    for (k, i) in (d.first..=d.last).enumerate() {
                        let (mode, location) = d
                            .interp
                            .map_or((InterpMode::Perspective, InterpLocation::Center), |p| {
                                (p.mode, p.location)
                            });
                        frag_inputs.push(FragInput {
                            index: i,
                            semantic: d.semantic.map(|s| (s.name, s.index + k as u32)),
                            mode,
                            location,
                        });
                    }
                }
                File::Output => {
                    if let Some(sem) = d.semantic {
                        for (k, i) in (d.first..=d.last).enumerate() {
                            frag_outputs.push(FragOutput {
                                reg: output.base + i,
                                semantic: sem.name,
                                index: sem.index + k as u32,
                            });
                        }
                    }
                }
                File::SamplerView => {
                    if let Some(v) = d.sampler_view {
                        for i in d.first..=d.last {
                            layout.sviews.push((i, v));
                        }
                    }
                }
                File::Image => {
                    if let Some(v) = d.image {
                        for i in d.first..=d.last {
                            layout.images.push((i, v));
                        }
                    }
                }
                File::Temp => {
                    if let Some(id) = d.array_id {
                        layout.temp_arrays.push((id, d.first, d.last));
                    }
                }
                File::SystemValue => {
                    if let Some(sem) = d.semantic {
                        for i in d.first..=d.last {
                            system_values.push(SystemValue {
                                reg: system.base + i,
                                name: sem.name,
                            });
                        }
                    }
                }
                File::Memory => {
                    if d.mem_type != MemType::Shared {
                        return Err(ExecError {
                            instruction: None,
                            message: format!(
                                "MEMORY[{}] declared {}: only SHARED memory is supported by the machine",
                                d.first, d.mem_type
                            ),
                        });
                    }
                    uses_shared_decl = true;
                }
                _ => {}
            }
        }
        let imm_words: Vec<[u32; 4]> = shader
            .immediates()
            .map(|im| {
                let mut w = [0u32; 4];
                for (k, v) in im.words.iter().take(4).enumerate() {
                    w[k] = *v;
                }
                w
            })
            .collect();

        let ir: Vec<&Instruction> = shader.instructions().collect();
        let mut insts = Vec::with_capacity(ir.len());
        let mut has_barrier = false;
        let mut tex = Vec::new();
        for (i, inst) in ir.iter().enumerate() {
            insts.push(decode_inst(i, inst, &layout, &mut tex)?);
            has_barrier |= inst.opcode == Opcode::BARRIER;
        }
        let mut switch_cases = Vec::new();
        link_blocks(&ir, &mut insts, &mut switch_cases)?;
        if numerics == super::Numerics::Direct3D {
            mark_direct3d(&mut insts);
        }
        let dim = |p: PropertyName| shader.property(p).unwrap_or(1).max(1);
        let block_size = [
            dim(PropertyName::CsFixedBlockWidth),
            dim(PropertyName::CsFixedBlockHeight),
            dim(PropertyName::CsFixedBlockDepth),
        ];
        let fast = super::fast::build_all(&insts);
        let uses_shared =
            uses_shared_decl || insts.iter().any(|i| i.resource == Some(Resource::Shared));
        let prop = |p: PropertyName| shader.property(p).unwrap_or(0);
        Ok(Code {
            tex,
            frag_inputs,
            frag_outputs,
            sviews: layout.sviews,
            images: layout.images,
            origin_lower_left: prop(PropertyName::FsCoordOrigin) == 1,
            pixel_center_integer: prop(PropertyName::FsCoordPixelCenter) == 1,
            color0_writes_all: prop(PropertyName::FsColor0WritesAllCbufs) != 0,
            numerics,
            processor: shader.processor,
            insts,
            temp,
            output,
            input,
            addr,
            system,
            imm,
            num_regs,
            imm_words,
            system_values,
            switch_cases,
            block_size,
            has_barrier,
            uses_shared,
            fast,
            jit: None,
        })
    }
}

/// Explains why an opcode cannot run yet, or `None` when the machine runs it.
fn unsupported(op: Opcode, processor: Processor) -> Option<&'static str> {
    let info = op.info();
    match info.category {
        _ if op == Opcode::FBFETCH => {
            Some("(framebuffer fetch) is not supported: the machine has no blending stage")
        }
        Category::Derivative | Category::Fragment | Category::Interpolation
            if processor != Processor::Fragment =>
        {
            Some("needs the fragment stage (it is only valid in a FRAG shader)")
        }
        Category::Geometry => Some("needs the geometry stage (not yet implemented)"),
        Category::Bindless => Some("needs bindless texture/image support (not yet implemented)"),
        Category::Gap => Some("is an unused opcode slot"),
        _ => None,
    }
}

fn decode_index(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    idx: &Index,
) -> Result<IndexExpr, ExecError> {
    let addr = match idx.indirect {
        None => None,
        Some(ind) => {
            let range = layout
                .range(ind.file)
                .filter(|_| {
                    matches!(
                        ind.file,
                        File::Address
                            | File::Temp
                            | File::Input
                            | File::SystemValue
                            | File::Immediate
                            | File::Output
                    )
                })
                .ok_or_else(|| {
                    err(
                        i,
                        inst,
                        format!("indirect index through {} is not supported", ind.file),
                    )
                })?;
            if ind.index < 0 || ind.index as u32 >= range.len {
                return Err(err(
                    i,
                    inst,
                    format!(
                        "indirect register {}[{}] is out of range",
                        ind.file, ind.index
                    ),
                ));
            }
            Some(AddrRef {
                reg: range.base + ind.index as u32,
                chan: ind.component as u8,
            })
        }
    };
    Ok(IndexExpr {
        offset: idx.offset,
        addr,
    })
}

/// The bounds an indirect access into `reg` may reach: its ARRAY if it names
/// one, else the whole file.
fn indirect_bounds(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
    range: FileRange,
) -> Result<(u32, u32), ExecError> {
    let array_id = reg.index.indirect.map_or(0, |a| a.array_id);
    if array_id != 0 && reg.file == File::Temp {
        let &(_, first, last) = layout
            .temp_arrays
            .iter()
            .find(|(id, _, _)| *id == array_id)
            .ok_or_else(|| err(i, inst, format!("ARRAY({array_id}) is not declared")))?;
        // Offsets stay relative to the file start: the array bounds only
        // narrow which entries the lane may reach.
        return Ok((range.base + first, last - first + 1));
    }
    Ok((range.base, range.len))
}

fn decode_reg_access(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
) -> Result<SrcKind, ExecError> {
    if reg.file == File::Const {
        let slot = decode_index(i, inst, layout, &reg.index)?;
        let buf = match &reg.dimension {
            Some(d) => decode_index(i, inst, layout, d)?,
            None => IndexExpr {
                offset: 0,
                addr: None,
            },
        };
        return Ok(match (buf.addr, slot.addr) {
            (None, None) => {
                if buf.offset < 0 {
                    return Err(err(
                        i,
                        inst,
                        format!("constant buffer index {} is negative", buf.offset),
                    ));
                }
                SrcKind::Const {
                    buf: buf.offset as u32,
                    slot: slot.offset,
                }
            }
            _ => SrcKind::ConstIndirect { buf, slot },
        });
    }
    let range = layout.range(reg.file).ok_or_else(|| {
        err(
            i,
            inst,
            format!("register file {} cannot be read as a register", reg.file),
        )
    })?;
    if reg.dimension.is_some() {
        return Err(err(
            i,
            inst,
            format!(
                "2-D {} registers need the geometry/tessellation stages (not yet implemented)",
                reg.file
            ),
        ));
    }
    match reg.index.indirect {
        None => {
            // file_sizes grew the file to cover every direct use.
            Ok(SrcKind::Reg(range.base + reg.index.offset as u32))
        }
        Some(_) => {
            let ix = decode_index(i, inst, layout, &reg.index)?;
            let (base, len) = indirect_bounds(i, inst, layout, reg, range)?;
            // Make the offset relative to `base` (array start).
            let offset = ix.offset - (base - range.base) as i32;
            Ok(SrcKind::RegIndirect {
                base,
                len,
                offset,
                addr: ix.addr.expect("indirect index has an address"),
            })
        }
    }
}

fn decode_src(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    k: usize,
    s: &SrcOperand,
) -> Result<Src, ExecError> {
    let kind = decode_reg_access(i, inst, layout, &s.reg)?;
    let ty = inst.opcode.src_type(k);
    let modifier = if s.absolute || s.negate {
        Modifier::Apply {
            ty,
            abs: s.absolute,
            neg: s.negate,
        }
    } else {
        Modifier::None
    };
    let swz = [0, 1, 2, 3].map(|c| s.swizzle.get(c) as u8);
    Ok(Src {
        kind,
        swz,
        modifier,
        flush: false,
    })
}

/// Marks what [`super::Numerics::Direct3D`] changes: the float32 sources of
/// float arithmetic, derivatives, conversions from float and packing flush
/// denormals, and so do the float results of arithmetic, derivatives and
/// D2F. Moves and selects (MOV, CMP) keep their bits; the table types of the
/// packing opcodes and of D2I/D2U are not all float, so they are listed.
fn mark_direct3d(insts: &mut [Inst]) {
    use Opcode::*;
    for inst in insts {
        let info = inst.op.info();
        inst.d3d = true;
        let (sources, result) = match info.category {
            Category::FloatAlu if !matches!(inst.op, MOV | CMP) => {
                (true, info.dst_type == OperandType::Float)
            }
            Category::Derivative => (true, true),
            Category::Conversion => (true, inst.op == D2F),
            Category::Pack => (matches!(inst.op, PK2H | PK2US | PK4B | PK4UB), false),
            _ => (false, false),
        };
        inst.flush = result;
        if sources {
            for (k, src) in inst.src.iter_mut().enumerate().take(info.num_src as usize) {
                src.flush = info.src_types.get(k) == Some(&OperandType::Float);
            }
        }
    }
}

fn resource_of(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
) -> Result<Resource, ExecError> {
    if reg.index.indirect.is_some() || reg.dimension.is_some_and(|d| d.indirect.is_some()) {
        return Err(err(
            i,
            inst,
            format!("indirect {} resources are not supported", reg.file),
        ));
    }
    let n = reg.index.offset;
    if n < 0 {
        return Err(err(i, inst, format!("negative {} index {n}", reg.file)));
    }
    match reg.file {
        File::Buffer => Ok(Resource::Buffer(n as u32)),
        File::Memory => Ok(Resource::Shared),
        File::Const | File::ConstBuf => {
            let b = reg.dimension.map_or(n, |d| d.offset);
            Ok(Resource::Const(b.max(0) as u32))
        }
        File::Image => {
            let decl = layout
                .images
                .iter()
                .find(|(k, _)| *k == n as u32)
                .map(|(_, d)| *d);
            let mem = inst.memory.unwrap_or_default();
            let target = if mem.target != TextureTarget::Buffer {
                mem.target
            } else {
                decl.map_or(TextureTarget::Unknown, |d| d.target)
            };
            let pipe = if mem.format != PipeFormat::NONE {
                mem.format
            } else {
                decl.map_or(PipeFormat::NONE, |d| d.format)
            };
            let format = if pipe == PipeFormat::NONE {
                None
            } else {
                Some(crate::texture::Format::from_pipe(pipe).ok_or_else(|| {
                    err(
                        i,
                        inst,
                        format!("IMAGE[{n}]: format {pipe} is not supported by the texture engine"),
                    )
                })?)
            };
            Ok(Resource::Image {
                index: n as u32,
                target,
                format,
            })
        }
        File::HwAtomic => Err(err(i, inst, "HWATOMIC counters are not supported")),
        f => Err(err(i, inst, format!("{f} is not a memory resource"))),
    }
}

fn decode_inst(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    tex: &mut Vec<TexInst>,
) -> Result<Inst, ExecError> {
    let op = inst.opcode;
    if let Some(why) = unsupported(op, layout.processor) {
        return Err(err(i, inst, format!("opcode {op} {why}")));
    }
    let info = op.info();
    if inst.dst.len() != info.num_dst as usize || inst.src.len() != info.num_src as usize {
        return Err(err(
            i,
            inst,
            format!(
                "expected {} destination(s) and {} source(s), found {} and {}",
                info.num_dst,
                info.num_src,
                inst.dst.len(),
                inst.src.len()
            ),
        ));
    }
    let mut out = Inst {
        op,
        saturate: inst.saturate,
        dst: [Dst::NULL; 2],
        src: [Src::NONE; 5],
        resource: None,
        target: 0,
        aux: 0,
        brk_switch: false,
        flush: false,
        d3d: false,
    };
    let memory_dst = op == Opcode::STORE;
    let memory_src0 =
        matches!(info.category, Category::Atomic) || matches!(op, Opcode::LOAD | Opcode::RESQ);
    for (k, d) in inst.dst.iter().enumerate() {
        if memory_dst {
            out.resource = Some(resource_of(i, inst, layout, &d.reg)?);
            out.dst[k] = Dst {
                kind: DstKind::Null,
                mask: d.write_mask.bits(),
            };
            continue;
        }
        let kind = match d.reg.file {
            File::Null => DstKind::Null,
            File::Temp | File::Output | File::Address => {
                let range = layout.range(d.reg.file).expect("register file has a range");
                if d.reg.dimension.is_some() {
                    return Err(err(
                        i,
                        inst,
                        "2-D destinations need the geometry/tessellation stages (not yet implemented)",
                    ));
                }
                match d.reg.index.indirect {
                    None => DstKind::Reg(range.base + d.reg.index.offset as u32),
                    Some(_) => {
                        let ix = decode_index(i, inst, layout, &d.reg.index)?;
                        let (base, len) = indirect_bounds(i, inst, layout, &d.reg, range)?;
                        let offset = ix.offset - (base - range.base) as i32;
                        DstKind::RegIndirect {
                            base,
                            len,
                            offset,
                            addr: ix.addr.expect("indirect index has an address"),
                        }
                    }
                }
            }
            f => return Err(err(i, inst, format!("register file {f} cannot be written"))),
        };
        out.dst[k] = Dst {
            kind,
            mask: d.write_mask.bits(),
        };
    }
    if matches!(info.category, Category::Texture | Category::Sampling) {
        out.aux = tex.len() as u32;
        tex.push(decode_tex(i, inst, layout, &mut out.src)?);
        return Ok(out);
    }
    if info.category == Category::Interpolation {
        let r = &inst.src[0].reg;
        if r.file != File::Input || r.dimension.is_some() {
            return Err(err(
                i,
                inst,
                "the interpolated operand must be an IN register",
            ));
        }
        // Direct: the IN index; indirect: read per lane from src[0]'s kind.
        out.aux = r.index.offset.max(0) as u32;
    }
    for (k, s) in inst.src.iter().enumerate() {
        if k == 0 && memory_src0 {
            out.resource = Some(resource_of(i, inst, layout, &s.reg)?);
            out.src[0] = Src {
                kind: SrcKind::None,
                swz: [0, 1, 2, 3].map(|c| s.swizzle.get(c) as u8),
                modifier: Modifier::None,
                flush: false,
            };
            continue;
        }
        out.src[k] = decode_src(i, inst, layout, k, s)?;
    }
    if matches!(
        op,
        Opcode::ATOMFADD | Opcode::ATOMINC_WRAP | Opcode::ATOMDEC_WRAP
    ) && out.resource.is_none()
    {
        return Err(err(i, inst, "atomic without a resource operand"));
    }
    Ok(out)
}

/// A SVIEW or SAMP operand's index (direct or per lane).
fn resource_index(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
) -> Result<IndexExpr, ExecError> {
    if reg.dimension.is_some() {
        return Err(err(
            i,
            inst,
            format!("2-D {} operands are not supported", reg.file),
        ));
    }
    let ix = decode_index(i, inst, layout, &reg.index)?;
    if ix.addr.is_none() && ix.offset < 0 {
        return Err(err(
            i,
            inst,
            format!("negative {} index {}", reg.file, ix.offset),
        ));
    }
    Ok(ix)
}

/// Splits a texture/sampling instruction's sources into register sources
/// (written to `srcs` in operand order) and resource operands.
fn decode_tex(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    srcs: &mut [Src; 5],
) -> Result<TexInst, ExecError> {
    let mut sview: Option<(IndexExpr, [u8; 4])> = None;
    let mut sampler: Option<(IndexExpr, [u8; 4])> = None;
    let mut n = 0usize;
    for (k, s) in inst.src.iter().enumerate() {
        let swz = [0, 1, 2, 3].map(|c| s.swizzle.get(c) as u8);
        let slot = match s.reg.file {
            File::SamplerView => &mut sview,
            File::Sampler => &mut sampler,
            _ => {
                srcs[n] = decode_src(i, inst, layout, k, s)?;
                n += 1;
                continue;
            }
        };
        if slot.is_some() {
            return Err(err(i, inst, format!("two {} operands", s.reg.file)));
        }
        *slot = Some((resource_index(i, inst, layout, &s.reg)?, swz));
    }
    let (view, view_swz, has_sview) = match (sview, sampler) {
        (Some((v, sw)), _) => (v, sw, true),
        (None, Some((v, sw))) => (v, sw, false),
        (None, None) => {
            return Err(err(
                i,
                inst,
                "needs a SVIEW or SAMP operand (sampling the render target is not supported)",
            ));
        }
    };
    let samp = sampler.map_or(view, |(v, _)| v);
    let gather_component = sampler.map_or(0, |(_, sw)| sw[0]);
    let decl = layout
        .sviews
        .iter()
        .find(|(k, _)| view.offset >= 0 && *k == view.offset as u32)
        .map(|(_, d)| *d);
    let token = inst
        .texture
        .as_ref()
        .map_or(TextureTarget::Unknown, |t| t.target);
    let decl_target = decl.map_or(TextureTarget::Unknown, |d| d.target);
    // Ops with a SVIEW operand take the declared target (the SAMPLE family has
    // none of its own); SAMP-only ops take the instruction's. Still UNKNOWN:
    // the texture engine uses the bound texture's target.
    let target = match (has_sview, decl_target, token) {
        (true, t, _) | (false, _, t) if t != TextureTarget::Unknown => t,
        (_, d, TextureTarget::Unknown) => d,
        (_, _, t) => t,
    };
    let return_type = decl.map(|d| d.return_types[0]).or_else(|| {
        inst.texture
            .as_ref()
            .and_then(|t| ReturnType::from_u32(t.return_type as u32))
    });
    let offsets = inst.texture.as_ref().map_or(&[][..], |t| &t.offsets[..]);
    if offsets.len() > 1 {
        return Err(err(
            i,
            inst,
            format!("{} texel offsets: only one is supported", offsets.len()),
        ));
    }
    let offset = match offsets.first() {
        None => None,
        Some(o) => {
            let range = layout.range(o.file).ok_or_else(|| {
                err(
                    i,
                    inst,
                    format!("a texel offset cannot be read from {}", o.file),
                )
            })?;
            if o.index < 0 || o.index as u32 >= range.len {
                return Err(err(
                    i,
                    inst,
                    format!(
                        "texel offset register {}[{}] is out of range",
                        o.file, o.index
                    ),
                ));
            }
            let sw = o.swizzle;
            Some(Src {
                kind: SrcKind::Reg(range.base + o.index as u32),
                swz: [sw[0] as u8, sw[1] as u8, sw[2] as u8, 3],
                modifier: Modifier::None,
                flush: false,
            })
        }
    };
    Ok(TexInst {
        target,
        return_type,
        sview: view,
        sampler: samp,
        resource_swizzle: view_swz,
        gather_component,
        num_srcs: n as u8,
        offset,
    })
}

/// Matches the block structure and fills jump targets.
fn link_blocks(
    ir: &[&Instruction],
    insts: &mut [Inst],
    switch_cases: &mut Vec<Vec<u32>>,
) -> Result<(), ExecError> {
    let mut open: Vec<Open> = Vec::new();
    let mismatch = |i: usize, what: &str| err(i, ir[i], what);
    for i in 0..ir.len() {
        let op = ir[i].opcode;
        match op {
            Opcode::IF | Opcode::UIF => open.push(Open::If {
                at: i,
                else_at: None,
            }),
            Opcode::ELSE => match open.last_mut() {
                Some(Open::If {
                    at,
                    else_at: else_at @ None,
                }) => {
                    insts[*at].target = i as u32;
                    *else_at = Some(i);
                }
                _ => return Err(mismatch(i, "ELSE without a matching IF")),
            },
            Opcode::ENDIF => match open.pop() {
                Some(Open::If { at, else_at }) => match else_at {
                    Some(e) => insts[e].target = i as u32,
                    None => insts[at].target = i as u32,
                },
                _ => return Err(mismatch(i, "ENDIF without a matching IF")),
            },
            Opcode::BGNLOOP => open.push(Open::Loop { at: i }),
            Opcode::ENDLOOP => match open.pop() {
                Some(Open::Loop { at }) => {
                    insts[at].target = i as u32;
                    insts[i].target = at as u32;
                    // BRK/CONT of this loop jump to here.
                    for inner in &mut insts[at + 1..i] {
                        if matches!(inner.op, Opcode::BRK | Opcode::CONT)
                            && inner.target == u32::MAX - at as u32
                        {
                            inner.target = i as u32;
                        }
                    }
                }
                _ => return Err(mismatch(i, "ENDLOOP without a matching BGNLOOP")),
            },
            Opcode::BRK | Opcode::CONT => {
                // The innermost breakable block (CONT: the innermost loop),
                // not crossing a subroutine boundary.
                let mut found = false;
                for o in open.iter().rev() {
                    match *o {
                        Open::Loop { at } => {
                            // Patched when the ENDLOOP is seen.
                            insts[i].target = u32::MAX - at as u32;
                            found = true;
                            break;
                        }
                        Open::Switch { .. } if op == Opcode::BRK => {
                            insts[i].brk_switch = true;
                            found = true;
                            break;
                        }
                        Open::Sub { .. } => break,
                        _ => {}
                    }
                }
                if !found {
                    let what = if op == Opcode::BRK {
                        "a loop or switch"
                    } else {
                        "a loop"
                    };
                    return Err(mismatch(i, &format!("{op} outside of {what}")));
                }
            }
            Opcode::SWITCH => {
                switch_cases.push(Vec::new());
                insts[i].aux = (switch_cases.len() - 1) as u32;
                open.push(Open::Switch {
                    at: i,
                    table: switch_cases.len() - 1,
                    default_seen: false,
                });
            }
            Opcode::CASE | Opcode::DEFAULT => match open.last_mut() {
                Some(Open::Switch {
                    table,
                    default_seen,
                    ..
                }) => {
                    if op == Opcode::CASE {
                        switch_cases[*table].push(i as u32);
                    } else if *default_seen {
                        return Err(mismatch(i, "second DEFAULT in one SWITCH"));
                    } else {
                        *default_seen = true;
                    }
                }
                _ => {
                    return Err(mismatch(
                        i,
                        &format!("{op} outside of a SWITCH (or inside an unclosed block of it)"),
                    ));
                }
            },
            Opcode::ENDSWITCH => match open.pop() {
                Some(Open::Switch { at, .. }) => insts[at].target = i as u32,
                _ => return Err(mismatch(i, "ENDSWITCH without a matching SWITCH")),
            },
            Opcode::BGNSUB => {
                if !open.is_empty() {
                    return Err(mismatch(i, "BGNSUB inside another block"));
                }
                open.push(Open::Sub { at: i })
            }
            Opcode::ENDSUB => match open.pop() {
                Some(Open::Sub { .. }) => {}
                _ => return Err(mismatch(i, "ENDSUB without a matching BGNSUB")),
            },
            _ => {}
        }
    }
    if let Some(o) = open.last() {
        let (at, what) = match *o {
            Open::If { at, .. } => (at, "IF without ENDIF"),
            Open::Loop { at } => (at, "BGNLOOP without ENDLOOP"),
            Open::Switch { at, .. } => (at, "SWITCH without ENDSWITCH"),
            Open::Sub { at } => (at, "BGNSUB without ENDSUB"),
        };
        return Err(mismatch(at, what));
    }
    // CAL: its label names the subroutine; it must be a BGNSUB (or the
    // instruction right after one).
    for i in 0..ir.len() {
        if ir[i].opcode != Opcode::CAL {
            continue;
        }
        let label = ir[i]
            .label
            .ok_or_else(|| mismatch(i, "CAL without a label"))? as usize;
        let body = if label < ir.len() && ir[label].opcode == Opcode::BGNSUB {
            label + 1
        } else if label > 0 && label <= ir.len() && ir[label - 1].opcode == Opcode::BGNSUB {
            label
        } else {
            return Err(mismatch(
                i,
                &format!("CAL label {label} does not point at a BGNSUB"),
            ));
        };
        insts[i].target = body as u32;
    }
    Ok(())
}
