//! Lowering of SM4/SM5 programs ([`crate::ir::Program`]) to the
//! project's TGSI IR ([`tgsi_ir::ir::Shader`]).
//!
//! What it owns:
//!
//! * [`lower`]: one program to one TGSI shader, with a map from every TGSI
//!   instruction to the D3D instruction it came from, the resource bindings
//!   (which `CONST`/`SVIEW`/`SAMP`/`BUFFER`/`IMAGE`/`MEMORY` index each
//!   `cb#`/`t#`/`s#`/`u#`/`g#` became) and the input/output map;
//! * [`Signatures`]: the signature elements of a container, or derived from
//!   the declarations of assembled text;
//! * [`container_programs`]: every program of a blob (libraries and effects
//!   included) with the signatures of its own container;
//! * [`Lowered::to_text`]: the TGSI text with `; <d3d instruction>` comment
//!   lines before each group of TGSI lines.
//!
//! The instruction-by-instruction expansions are listed in
//! `docs/d3d-lowering.md`. Layout of the module: `layout` (declarations →
//! register maps, TGSI declarations, prologue and output flushes), `ctx`
//! (operands, modifiers, destinations), `alu` (arithmetic, bits, doubles,
//! conversions), `flow` (control flow, subroutines, hull-shader phases,
//! interface calls), `resource` (sampling, loads, stores, atomics, queries),
//! `emit` (the instruction list and immediates), `tidy` (repeated
//! computations dropped), `finish` (labels, final register numbering,
//! statements).

mod alu;
mod ctx;
mod emit;
mod finish;
mod flow;
mod layout;
mod resource;
#[cfg(test)]
mod tests;
mod tidy;

use crate::DecodeError;
use crate::container::Container;
use crate::enums::{
    ProgramType, RegisterFile, TessellatorDomain, TessellatorOutputPrimitive,
    TessellatorPartitioning,
};
use crate::ir::Program;
use crate::signature::{Signature, SignatureElement, SignatureKind, SignatureRole, StageForTable};
use tgsi_ir::enums::{File, SemanticName};
use tgsi_ir::ir::{Shader, Statement};

pub use ctx::Ctx;

/// The signature elements of a program: inputs, outputs and patch
/// constants (hull-shader outputs, domain-shader inputs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signatures {
    pub inputs: Vec<SignatureElement>,
    pub outputs: Vec<SignatureElement>,
    pub patch_constants: Vec<SignatureElement>,
}

impl Signatures {
    /// The signature chunks of a container (`ISGN`/`ISG1`, `OSGN`/`OSG5`/
    /// `OSG1`, `PCSG`/`PSG1`); absent chunks give empty lists.
    pub fn from_container(container: &Container) -> Result<Signatures, DecodeError> {
        let mut out = Signatures::default();
        for chunk in &container.chunks {
            let Some(kind) = SignatureKind::from_tag(chunk.tag) else {
                continue;
            };
            let sig =
                Signature::parse(kind, &chunk.data).map_err(|e| e.shifted(chunk.payload_offset))?;
            let list = match kind.role() {
                SignatureRole::Input => &mut out.inputs,
                SignatureRole::Output => &mut out.outputs,
                SignatureRole::PatchConstant => &mut out.patch_constants,
            };
            list.extend(sig.elements);
        }
        Ok(out)
    }

    /// The signature tables of an fxc listing's `//` header (`// Input
    /// signature:`, `// Output signature:`, `// Patch Constant signature:`),
    /// or `None` when the header has none. `program_type` decides how
    /// pixel-shader targets and hull-shader patch constants are stored.
    pub fn from_listing_header(header: &str, program_type: ProgramType) -> Option<Signatures> {
        let stage = match program_type {
            ProgramType::Pixel => StageForTable::Pixel,
            ProgramType::Hull => StageForTable::Hull,
            _ => StageForTable::Other,
        };
        let mut out = Signatures::default();
        let mut found = false;
        let mut current: Option<SignatureKind> = None;
        let mut in_rows = false;
        for line in header.lines() {
            let body = line.trim_end();
            let kind = match body {
                "// Input signature:" => Some(SignatureKind::Isgn),
                "// Output signature:" => Some(SignatureKind::Osgn),
                "// Patch Constant signature:" => Some(SignatureKind::Pcsg),
                _ => None,
            };
            if kind.is_some() {
                current = kind;
                in_rows = false;
                found = true;
                continue;
            }
            let Some(kind) = current else { continue };
            if body.starts_with("// ---") {
                in_rows = true;
                continue;
            }
            if !in_rows {
                continue;
            }
            if body == "//" || !body.starts_with("// ") {
                current = None;
                continue;
            }
            let Ok(e) = SignatureElement::from_listing_row(body, 0, kind, stage) else {
                continue;
            };
            match kind.role() {
                SignatureRole::Input => out.inputs.push(e),
                SignatureRole::Output => out.outputs.push(e),
                SignatureRole::PatchConstant => out.patch_constants.push(e),
            }
        }
        found.then_some(out)
    }

    /// Elements derived from the declarations of a program without
    /// signature tables (assembled text): each declared input/output
    /// register becomes an element named after its system value
    /// (`SV_Position`, `SV_VertexID`, …, `SV_Target` for pixel-shader
    /// outputs) or `TEXCOORD` with the register number as index.
    pub fn from_declarations(program: &Program) -> Signatures {
        let d = crate::assemble::signatures_from_declarations(program);
        Signatures {
            inputs: d.inputs,
            outputs: d.outputs,
            patch_constants: d.patch_constants,
        }
    }
}

/// A program that could not be lowered: which D3D instruction and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct LowerError {
    /// Index of the D3D instruction (declarations count), when one is to blame.
    pub instruction: Option<usize>,
    /// That instruction as fxc prints it.
    pub text: String,
    pub message: String,
}

impl LowerError {
    fn describe(&self) -> String {
        match self.instruction {
            Some(i) => format!("instruction {i} (`{}`): {}", self.text, self.message),
            None => self.message.clone(),
        }
    }
}

/// A Direct3D binding slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum D3dSlot {
    /// `cb#` (SM5.1: the register of the range).
    ConstantBuffer { register: u32, space: u32 },
    /// `t#`.
    Texture { register: u32, space: u32 },
    /// `s#`.
    Sampler { register: u32, space: u32 },
    /// `u#`.
    Uav { register: u32, space: u32 },
    /// The hidden counter of `u#` (`imm_atomic_alloc`/`imm_atomic_consume`).
    UavCounter { register: u32, space: u32 },
    /// `g#`.
    SharedMemory { register: u32 },
    /// A texture read through a sampler in one slot (TG4 takes both from
    /// its SAMP index): bind texture `t#` and sampler `s#` state there.
    TextureWithSampler { texture: u32, sampler: u32 },
    /// Class linkage: row k holds, in x, which function table of its
    /// interface slot k uses (an index into the `dcl_interface` table
    /// list); row `slots + k` holds the `this[k]` data.
    Interfaces { slots: u32 },
}

/// How a D3D slot was lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub slot: D3dSlot,
    pub file: File,
    pub index: u32,
    /// Byte offset inside the TGSI resource (shared memory regions).
    pub byte_offset: u32,
    /// Declared byte size (shared memory) or 0.
    pub byte_size: u32,
    /// Structure stride in bytes (structured buffers) or 0.
    pub stride: u32,
}

/// One component of a D3D input or output register and the TGSI register
/// component that carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoComponent {
    pub d3d_file: RegisterFile,
    pub d3d_register: u32,
    pub d3d_component: u8,
    pub file: File,
    pub index: u32,
    pub component: u8,
    pub semantic: Option<(SemanticName, u32)>,
    /// Geometry-shader output stream.
    pub stream: u32,
    /// The signature element covering it (name, index), when there is one.
    pub signature: Option<(String, u32)>,
}

/// The tessellator settings of a hull shader (TGSI puts them on the
/// tessellation-evaluation shader; kept here for a runner).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tessellator {
    pub domain: Option<TessellatorDomain>,
    pub partitioning: Option<TessellatorPartitioning>,
    pub output_primitive: Option<TessellatorOutputPrimitive>,
    pub max_tessfactor: Option<f32>,
    pub input_control_points: u32,
    pub output_control_points: u32,
}

impl Tessellator {
    /// The tessellator settings these declarations state, or why they state
    /// none (a declaration missing or `*_undefined`).
    pub fn settings(&self) -> Result<tgsi_ir::tess::Settings, String> {
        use tgsi_ir::tess::{Domain, OutputPrimitive, Partitioning, Settings};
        let domain = match self.domain {
            Some(TessellatorDomain::Isoline) => Domain::Isoline,
            Some(TessellatorDomain::Triangle) => Domain::Triangle,
            Some(TessellatorDomain::Quad) => Domain::Quad,
            Some(TessellatorDomain::Undefined) | None => {
                return Err("the tessellator domain is undefined".into());
            }
        };
        let partitioning = match self.partitioning {
            Some(TessellatorPartitioning::Integer) => Partitioning::Integer,
            Some(TessellatorPartitioning::Pow2) => Partitioning::Pow2,
            Some(TessellatorPartitioning::FractionalOdd) => Partitioning::FractionalOdd,
            Some(TessellatorPartitioning::FractionalEven) => Partitioning::FractionalEven,
            Some(TessellatorPartitioning::Undefined) | None => {
                return Err("the tessellator partitioning is undefined".into());
            }
        };
        let output = match self.output_primitive {
            Some(TessellatorOutputPrimitive::Point) => OutputPrimitive::Point,
            Some(TessellatorOutputPrimitive::Line) => OutputPrimitive::Line,
            Some(TessellatorOutputPrimitive::TriangleCw) => OutputPrimitive::TriangleCw,
            Some(TessellatorOutputPrimitive::TriangleCcw) => OutputPrimitive::TriangleCcw,
            Some(TessellatorOutputPrimitive::Undefined) | None => {
                return Err("the tessellator output primitive is undefined".into());
            }
        };
        Ok(Settings::new(domain, partitioning, output))
    }
}

/// A Direct3D destination register and the TGSI register that carries it,
/// so that a debugger names what a D3D instruction wrote in D3D terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct D3dDest {
    /// The D3D instruction (declarations count) that writes it.
    pub instruction: usize,
    /// The TGSI destination register (its final number).
    pub register: tgsi_ir::ir::Register,
    /// The D3D name (`r3`, `o0`, `x1[4]`, `oDepth`); with a relative
    /// index, the text before the index.
    pub name: String,
    /// A relative index: (first, bracketed): the D3D index is the written
    /// TGSI index minus `first`, printed `name[k]` when bracketed, else `namek`.
    pub relative: Option<(i64, bool)>,
    /// A one-component register written without a component (`oDepth`,
    /// `oMask`): named without one.
    pub scalar: bool,
}

impl D3dDest {
    /// The D3D register name for TGSI register index `tgsi_index`.
    pub fn name_at(&self, tgsi_index: i64) -> String {
        match self.relative {
            None => self.name.clone(),
            Some((first, true)) => format!("{}[{}]", self.name, tgsi_index - first),
            Some((first, false)) => format!("{}{}", self.name, tgsi_index - first),
        }
    }
}

/// A lowered program.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub shader: Shader,
    /// Per TGSI instruction (in order): the index of the D3D instruction
    /// (declarations count) it came from.
    pub origins: Vec<usize>,
    pub bindings: Vec<Binding>,
    pub inputs: Vec<IoComponent>,
    pub outputs: Vec<IoComponent>,
    /// Hull shaders: the tessellator declarations.
    pub tessellator: Option<Tessellator>,
    /// Every D3D destination operand and its TGSI register, in lowering order.
    pub dests: Vec<D3dDest>,
}

impl Lowered {
    /// The TGSI text (the canonical printer's), with a `; <d3d instruction>`
    /// comment line before each group of instructions that came from one
    /// D3D instruction. The TGSI assembler reads it back.
    pub fn to_text(&self, program: &Program) -> String {
        let printed = tgsi_text::print(&self.shader);
        let mut lines = printed.lines();
        let mut out = String::new();
        if let Some(header) = lines.next() {
            out.push_str(header);
            out.push('\n');
        }
        let options = crate::print::PrintOptions {
            exact_floats: true,
            ..Default::default()
        };
        let mut instruction = 0usize;
        let mut last: Option<usize> = None;
        for (statement, line) in self.shader.statements.iter().zip(lines) {
            if matches!(statement, Statement::Instruction(_)) {
                let origin = self.origins.get(instruction).copied();
                instruction += 1;
                if origin.is_some() && origin != last {
                    last = origin;
                    if let Some(d3d) = origin.and_then(|o| program.instructions.get(o)) {
                        let text = crate::print::print_instruction(d3d, program.version, &options);
                        let first = text.lines().next().unwrap_or("").trim_end();
                        out.push_str("; ");
                        out.push_str(first);
                        out.push('\n');
                    } else if origin == Some(emit::NO_ORIGIN) {
                        out.push_str("; (added by the lowering: the phases' scheduling)\n");
                    }
                }
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// Lowers one program. `signatures` are its container's (or
/// [`Signatures::from_declarations`] for text without tables).
pub fn lower(program: &Program, signatures: &Signatures) -> Result<Lowered, LowerError> {
    let mut ctx = Ctx::new(program, signatures)?;
    flow::lower_program(&mut ctx)?;
    finish::finish(ctx)
}

/// A program chunk found in a blob with the signatures of its container.
#[derive(Clone, Debug)]
pub struct ContainerProgram {
    /// Byte offset of the SHDR/SHEX payload in the blob.
    pub offset: usize,
    pub payload: Vec<u8>,
    pub signatures: Signatures,
}

/// Every program of a blob in file order (the container's own, each
/// library function's, each shader an effect embeds), each with the
/// signatures of the container it sits in.
pub fn container_programs(blob: &[u8]) -> Result<Vec<ContainerProgram>, DecodeError> {
    let mut out = Vec::new();
    crate::visit_programs(blob, &mut |container, chunk, offset, _| {
        out.push(ContainerProgram {
            offset,
            payload: chunk.data.clone(),
            signatures: Signatures::from_container(container)?,
        });
        Ok(())
    })?;
    Ok(out)
}
