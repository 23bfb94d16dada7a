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
use tgsi_ir::enums::{
    File, InterpLocation, InterpMode, MemType, PipeFormat, Processor, PropertyName, ReturnType,
    SemanticName, TextureTarget,
};
use tgsi_ir::ir::{ImageDecl, Index, Instruction, Register, SamplerViewDecl, Shader, SrcOperand};
use tgsi_ir::opcode::{Category, Opcode, OperandType};

/// Most entries one register file may have (TEMP, IN, OUT, IMM, SV, ADDR).
pub use tgsi_ir::validate::MAX_FILE_ENTRIES;
/// Most nested control-flow frames (IF, loops, switches, calls) per batch.
pub const MAX_DEPTH: usize = tgsi_ir::validate::MAX_NESTING;
/// Most instructions a program may have to run (its decoded form takes
/// about a kilobyte per instruction).
pub use tgsi_ir::validate::MAX_PROGRAM_INSTRUCTIONS;

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

/// A 2-D `[vertex][attribute]` operand of the geometry and tessellation
/// stages whose indices are not both direct (direct ones become
/// [`SrcKind::Reg`] when they live in registers). Entry `first + row *
/// stride + col`, valid when `row < rows` and `col < stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Vertex inputs: the register of entry 0; patch store: its first register.
    pub base: u32,
    /// The entry of row 0, column 0.
    pub first: u32,
    pub stride: u32,
    pub rows: u32,
    pub row: IndexExpr,
    pub col: IndexExpr,
}

/// Entries of the patch store per register: entry e is lane `e % 16` of
/// register `base + e / 16`, so that the store is shared by the lanes.
pub const PATCH_ENTRIES_PER_REG: u32 = 16;

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
    /// A per-lane vertex input `IN[v][a]` ([`Code::grids`]`[grid]`, registers).
    Vertex { grid: u32 },
    /// An entry of the tessellation-control patch store, shared by the
    /// lanes of a patch ([`Code::grids`]`[grid]`).
    Patch { grid: u32 },
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
    /// An entry of the tessellation-control patch store ([`Code::grids`]`[grid]`);
    /// lanes write it in lane order.
    Patch {
        grid: u32,
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
    /// SAMPLE_INFO / SAMPLE_POS whose resource is a TEMP register: they ask
    /// about the render target (tgsi.rst; Direct3D's `rasterizer` operand)
    /// instead of a sampler view. Sources are then the TEMP and the index.
    pub rasterizer: bool,
}

/// A fragment-shader input register and what fills it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragInput {
    /// Index in the IN file.
    pub index: u32,
    pub semantic: Option<(SemanticName, u32)>,
    pub mode: InterpMode,
    pub location: InterpLocation,
    /// The declaration names an interpolation mode (without one the mode
    /// reads as PERSPECTIVE here; the drawing pipeline makes such inputs
    /// CONSTANT, except COLOR, as Mesa does).
    pub mode_declared: bool,
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
    /// An indirect BUFFER / IMAGE operand (SM5.1 resource ranges): the
    /// lane's resource index is this offset plus the lane's register value;
    /// `resource` then describes the access with the offset's declaration.
    pub resource_addr: Option<IndexExpr>,
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
    /// A float32 multiply of this instruction gives +0 when a factor is
    /// ±0, whatever the other (`PROPERTY LEGACY_MATH_RULES`, see
    /// [`crate::ops::legacy`]).
    pub zero_wins: bool,
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
    /// Per IN register (by index): the channels some instruction may read
    /// (bit c for channel c); the others need no value.
    pub input_reads: Vec<u8>,
    /// The registers a batch reset clears (see `reset.rs`): the writable
    /// files but the TEMP and OUT registers the program writes before
    /// anything reads them.
    pub reset: Vec<std::ops::Range<u32>>,
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
    /// NUM_CLIPDIST_ENABLED / NUM_CULLDIST_ENABLED, when declared.
    pub clip_distances: Option<u32>,
    pub cull_distances: Option<u32>,
    /// The numeric rules the program was compiled under.
    pub numerics: super::Numerics,
    /// The 2-D operands, by [`SrcKind::Vertex`] / [`SrcKind::Patch`] /
    /// [`DstKind::Patch`] index.
    pub grids: Vec<Grid>,
    /// GEOM, TESS_CTRL, TESS_EVAL: the per-vertex inputs `IN[v][a]`, one
    /// register per (v, a) at `vertex_in.base + v * input.len + a`, for
    /// `vertex_rows` vertices. Not cleared by a batch reset: the stage fills it.
    pub vertex_in: FileRange,
    pub vertex_rows: u32,
    /// TESS_CTRL: the patch store (every OUT access): entries `0..output.len`
    /// are the 1-D (per-patch) outputs, then `patch_rows` control points of
    /// `output.len` entries, [`PATCH_ENTRIES_PER_REG`] entries per register.
    pub patch: FileRange,
    pub patch_rows: u32,
    /// Declared inputs with a semantic: (IN index, name, semantic index).
    pub input_semantics: Vec<(u32, SemanticName, u32)>,
    /// The shader's properties (last value of each).
    pub properties: Vec<(PropertyName, u32)>,
    /// The code an engine compiled this program to, when it runs compiled
    /// ([`super::engine::CompiledCode`]); `None`: the interpreter runs it.
    pub compiled: Option<std::sync::Arc<dyn super::engine::CompiledCode>>,
    /// The debugger following one invocation ([`crate::trace`]), if any.
    pub tracer: Option<std::sync::Arc<crate::trace::Tracer>>,
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
    vertex_in: FileRange,
    vertex_rows: u32,
    patch: FileRange,
    patch_rows: u32,
    /// The 2-D operands met so far (shared with [`Code::grids`]).
    grids: std::cell::RefCell<Vec<Grid>>,
}

impl Layout {
    /// Records a 2-D operand; returns its index in [`Code::grids`].
    fn grid(&self, g: Grid) -> u32 {
        let mut grids = self.grids.borrow_mut();
        grids.push(g);
        (grids.len() - 1) as u32
    }

    /// The patch-store grid of a TESS_CTRL output operand: 1-D operands are
    /// the per-patch entries, 2-D ones `[control point][output]`.
    fn patch_grid(&self, i: usize, inst: &Instruction, reg: &Register) -> Result<u32, ExecError> {
        let stride = self.output.len;
        let (first, rows, row) = match &reg.dimension {
            Some(d) => (stride, self.patch_rows, decode_index(i, inst, self, d)?),
            None => (
                0,
                1,
                IndexExpr {
                    offset: 0,
                    addr: None,
                },
            ),
        };
        let col = decode_index(i, inst, self, &reg.index)?;
        Ok(self.grid(Grid {
            base: self.patch.base,
            first,
            stride,
            rows,
            row,
            col,
        }))
    }

    /// A 2-D `IN[v][a]` operand: a register when both indices are direct
    /// (none, reading 0, when out of range), else a per-lane grid.
    fn vertex_input(
        &self,
        i: usize,
        inst: &Instruction,
        reg: &Register,
    ) -> Result<SrcKind, ExecError> {
        let Some(d) = &reg.dimension else {
            return Err(err(i, inst, "a vertex input needs a vertex index"));
        };
        if self.vertex_rows == 0 {
            return Err(err(
                i,
                inst,
                "2-D IN registers need a GEOM, TESS_CTRL or TESS_EVAL shader",
            ));
        }
        let (stride, rows) = (self.input.len, self.vertex_rows);
        let row = decode_index(i, inst, self, d)?;
        let col = decode_index(i, inst, self, &reg.index)?;
        if row.addr.is_none() && col.addr.is_none() {
            let inside = (0..rows as i64).contains(&(row.offset as i64))
                && (0..stride as i64).contains(&(col.offset as i64));
            return Ok(if inside {
                SrcKind::Reg(self.vertex_in.base + row.offset as u32 * stride + col.offset as u32)
            } else {
                SrcKind::None
            });
        }
        Ok(SrcKind::Vertex {
            grid: self.grid(Grid {
                base: self.vertex_in.base,
                first: 0,
                stride,
                rows,
                row,
                col,
            }),
        })
    }

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

/// [`Code::input_reads`]: for each source operand reading an IN register,
/// the channels its swizzle takes for the channels the opcode computes
/// from (per component: the written ones; dot products: their mask; scalar
/// opcodes: x); every channel of every IN register when one is read
/// through an address register.
fn input_reads(insts: &[Inst], input: FileRange) -> Vec<u8> {
    let mut reads = vec![0u8; input.len as usize];
    for inst in insts {
        let used = reset::channels_used(inst);
        for s in &inst.src {
            match s.kind {
                SrcKind::Reg(r) if r >= input.base && r < input.base + input.len => {
                    let channels = (0..4)
                        .filter(|c| used & (1 << c) != 0)
                        .fold(0u8, |m, c| m | 1 << (s.swz[c] & 3));
                    reads[(r - input.base) as usize] |= channels;
                }
                SrcKind::RegIndirect { base, len, .. }
                    if base < input.base + input.len && input.base < base + len =>
                {
                    reads.iter_mut().for_each(|m| *m = 0xF);
                }
                _ => {}
            }
        }
    }
    reads
}

impl Code {
    /// The most instructions a batch can visit in one run of a program that
    /// never jumps back (no loop, no subroutine call): its length, each
    /// instruction visited at most once. None for a program that loops or
    /// calls, whose count has no bound below the budget.
    pub fn most_visited(&self) -> Option<u64> {
        let back = self
            .insts
            .iter()
            .any(|i| matches!(i.op, Opcode::BGNLOOP | Opcode::ENDLOOP | Opcode::CAL));
        (!back).then_some(self.insts.len() as u64)
    }

    pub fn compile(shader: &Shader, numerics: super::Numerics) -> Result<Code, ExecError> {
        let (mut layout, num_regs) = register_layout(shader)?;
        let Layout {
            temp,
            output,
            input,
            addr,
            system,
            imm,
            vertex_in,
            vertex_rows,
            patch,
            patch_rows,
            ..
        } = layout;
        let input_semantics = input_semantics(shader);
        let properties = last_properties(shader);
        let Declared {
            system_values,
            uses_shared_decl,
            frag_inputs,
            frag_outputs,
        } = declared(shader, &mut layout)?;
        let imm_words = immediate_words(shader);

        let ir: Vec<&Instruction> = shader.instructions().collect();
        if ir.len() > MAX_PROGRAM_INSTRUCTIONS {
            return Err(ExecError::general(format!(
                "the program has {} instructions; the machine runs at most {MAX_PROGRAM_INSTRUCTIONS}",
                ir.len()
            )));
        }
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
        if shader.property(PropertyName::LegacyMathRules).unwrap_or(0) != 0 {
            for inst in &mut insts {
                inst.zero_wins = crate::ops::legacy::of(inst.op).is_some();
            }
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
        let input_reads = input_reads(&insts, input);
        // the fragment stage fills its declared inputs' read channels
        let filled_inputs: Vec<u32> = match shader.processor {
            Processor::Fragment => frag_inputs.iter().map(|f| input.base + f.index).collect(),
            _ => Vec::new(),
        };
        let reset = reset::reset_ranges(
            shader.processor,
            &insts,
            &tex,
            [temp, output],
            &filled_inputs,
            patch.base + patch.len,
        );
        Ok(Code {
            reset,
            tex,
            frag_inputs,
            input_reads,
            frag_outputs,
            sviews: layout.sviews,
            images: layout.images,
            origin_lower_left: prop(PropertyName::FsCoordOrigin) == 1,
            pixel_center_integer: prop(PropertyName::FsCoordPixelCenter) == 1,
            color0_writes_all: prop(PropertyName::FsColor0WritesAllCbufs) != 0,
            clip_distances: shader.property(PropertyName::NumClipdistEnabled),
            cull_distances: shader.property(PropertyName::NumCulldistEnabled),
            numerics,
            grids: layout.grids.into_inner(),
            vertex_in,
            vertex_rows,
            patch,
            patch_rows,
            input_semantics,
            properties,
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
            compiled: None,
            tracer: None,
        })
    }
}

/// The register files of a program one after the other in one register
/// array, and its size in registers.
fn register_layout(shader: &Shader) -> Result<(Layout, u32), ExecError> {
    let sizes = file_sizes(shader)?;
    let mut base = 0u32;
    let mut next = |len: u32| {
        let r = FileRange { base, len };
        base += len;
        r
    };
    let (vertex_rows, patch_rows) = stage_rows(shader)?;
    let temp = next(sizes[0]);
    let output = next(sizes[1]);
    let input = next(sizes[2]);
    let addr = next(sizes[3]);
    // (only a tessellation control program has a patch store: the other
    // stages' batches would clear a register nothing uses)
    let patch_entries = match shader.processor {
        Processor::TessCtrl => sizes[1] * (1 + patch_rows),
        _ => 0,
    };
    let patch = next(patch_entries.div_ceil(PATCH_ENTRIES_PER_REG));
    let vertex_regs = sizes[2] * vertex_rows;
    if vertex_regs > MAX_VERTEX_INPUT_REGS {
        return Err(ExecError {
            instruction: None,
            message: format!(
                "{vertex_rows} vertices of {} inputs need {vertex_regs} registers; the machine allows at most {MAX_VERTEX_INPUT_REGS}",
                sizes[2]
            ),
        });
    }
    let vertex_in = next(vertex_regs);
    let system = next(sizes[4]);
    let imm = next(sizes[5]);
    let num_regs = base;
    let layout = Layout {
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
        vertex_in,
        vertex_rows,
        patch,
        patch_rows,
        grids: std::cell::RefCell::new(Vec::new()),
    };
    Ok((layout, num_regs))
}

/// Declared inputs with a semantic: (IN index, name, semantic index).
fn input_semantics(shader: &Shader) -> Vec<(u32, SemanticName, u32)> {
    let mut input_semantics = Vec::new();
    for d in shader.declarations() {
        if let (File::Input, Some(sem)) = (d.file, d.semantic) {
            for (k, i) in (d.first..=d.last).enumerate() {
                input_semantics.push((i, sem.name, sem.index + k as u32));
            }
        }
    }
    input_semantics
}

/// The shader's properties, the last value of each.
fn last_properties(shader: &Shader) -> Vec<(PropertyName, u32)> {
    let mut properties: Vec<(PropertyName, u32)> = Vec::new();
    for p in shader.properties() {
        properties.retain(|(n, _)| *n != p.name);
        properties.push((p.name, p.value));
    }
    properties
}

/// What the declarations say beyond register sizes.
struct Declared {
    system_values: Vec<SystemValue>,
    uses_shared_decl: bool,
    frag_inputs: Vec<FragInput>,
    frag_outputs: Vec<FragOutput>,
}

/// Walks the declarations: fragment inputs and outputs, sampler views and
/// images (into `layout`), temp arrays, system values, shared memory.
fn declared(shader: &Shader, layout: &mut Layout) -> Result<Declared, ExecError> {
    let (output, system) = (layout.output, layout.system);
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
                        mode_declared: d.interp.is_some(),
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
    Ok(Declared {
        system_values,
        uses_shared_decl,
        frag_inputs,
        frag_outputs,
    })
}

/// The immediates as four words each.
fn immediate_words(shader: &Shader) -> Vec<[u32; 4]> {
    shader
        .immediates()
        .map(|im| {
            let mut w = [0u32; 4];
            for (k, v) in im.words.iter().take(4).enumerate() {
                w[k] = *v;
            }
            w
        })
        .collect()
}

/// Most vertices of a tessellation patch (input or output control points).
pub const MAX_PATCH_VERTICES: u32 = 32;
/// Most registers the 2-D inputs of one batch may take (16 MiB).
const MAX_VERTEX_INPUT_REGS: u32 = 1 << 16;

/// The vertex rows of the 2-D inputs and the control-point rows of the
/// patch store: GEOM reads the vertices of its input primitive (6 when
/// GS_INPUT_PRIMITIVE is missing), TESS_CTRL and TESS_EVAL up to 32 control
/// points, TESS_CTRL writes TCS_VERTICES_OUT (1..=32) control points.
fn stage_rows(shader: &Shader) -> Result<(u32, u32), ExecError> {
    Ok(match shader.processor {
        Processor::Geometry => {
            let n = shader
                .property(PropertyName::GsInputPrimitive)
                .and_then(tgsi_ir::enums::Primitive::from_u32)
                .map_or(0, |p| p.vertices_per_primitive());
            (if n == 0 { 6 } else { n }, 0)
        }
        Processor::TessCtrl => {
            let out = shader.property(PropertyName::TcsVerticesOut).unwrap_or(1);
            if !(1..=MAX_PATCH_VERTICES).contains(&out) {
                return Err(ExecError {
                    instruction: None,
                    message: format!(
                        "TCS_VERTICES_OUT {out}: a patch has 1 to {MAX_PATCH_VERTICES} output control points"
                    ),
                });
            }
            (MAX_PATCH_VERTICES, out)
        }
        Processor::TessEval => (MAX_PATCH_VERTICES, 0),
        _ => (0, 0),
    })
}

mod blocks;
mod instructions;
mod operands;

use blocks::link_blocks;
use instructions::{decode_inst, mark_direct3d};
use operands::{decode_index, decode_src, indirect_bounds, resource_index, resource_of};
mod reset;
