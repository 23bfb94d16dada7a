//! The SM4/SM5 validator: every structural and semantic problem of a
//! [`Program`] at once, each pointing at the instruction or operand it is
//! about.
//!
//! What it owns:
//!
//! * `layout` – sections and blocks: declarations before the first
//!   instruction (per hull-shader phase), the hull-shader phase order,
//!   `if`/`else`/`endif`, `loop`/`endloop`, `switch`/`case`/`default`/
//!   `endswitch` with D3D's fall-through rule, `break`/`continue` placement,
//!   subroutines (`label`, `call`, `ret`) and the nesting limit;
//! * `decls` – the declaration table: every declaration checked against
//!   the Direct3D 11 limits and the stage, duplicates, the declarations a
//!   stage needs (thread-group size, GS topology, …);
//! * `instructions` – per instruction: availability (shader model, stage,
//!   global flags: everything derived from the opcode table), control fields,
//!   operand count, register files per operand kind, declarations of the
//!   registers used, index ranges, masks and swizzles (doubles included),
//!   modifiers and immediates, and the constraints of Microsoft's
//!   per-instruction reference pages;
//! * `resources` – the operands that name a declared object (resources,
//!   UAVs, shared memory, samplers, constant buffers, labels, streams,
//!   interfaces): their declaration, kind, range, sampler mode and the
//!   resource dimensions each instruction accepts.
//!
//! Per-opcode facts come from [`crate::opcode`]; only constraints that
//! are remarks of one reference page (the store masks, `swapc`, `sync`, the
//! double-precision masks and swizzles …) are written here, each with the
//! page it comes from.
//!
//! Choices where the documentation leaves room:
//!
//! * the Direct3D 11 (11.1 for UAV slots) limits apply to every model;
//! * UAV instructions are accepted in every stage (Direct3D 11.1 allows UAVs
//!   at every stage; the SFI0 chunk, not the program, says which is needed);
//! * an instruction that cannot be checked further (wrong operand count,
//!   unknown declaration) reports that once and skips the rest of its checks.

mod decls;
mod instructions;
mod layout;
mod resources;

use crate::enums::{OperandModifier, ProgramType, RegisterFile};
use crate::ir::{Components, Index, Operand, Program};
use crate::source_map::SourceMap;
use tgsi_ir::diag::{Diagnostic, Diagnostics};
use tgsi_ir::ir::Span;

/// Checks a program; returns every problem found.
///
/// With a [`SourceMap`] (from the assembler, or
/// [`SourceMap::from_payload`] for binary input) every diagnostic points at
/// the instruction or operand it is about; without one the message names the
/// instruction index and mnemonic.
pub fn validate(program: &Program, map: Option<&SourceMap>) -> Diagnostics {
    let mut report = Reporter {
        program,
        map,
        diags: Vec::new(),
    };
    let layout = layout::check(program, &mut report);
    let table = decls::Declarations::build(program, &layout, &mut report);
    instructions::check(program, &layout, &table, &mut report);
    Diagnostics(report.diags)
}

/// Where a diagnostic points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Site {
    /// the program as a whole (its version line / token)
    Program,
    /// one instruction
    Inst(usize),
    /// an instruction's mnemonic (its opcode token in binary input)
    Mnemonic(usize),
    /// operand `.1` of instruction `.0`
    Operand(usize, usize),
}

/// Collects diagnostics and attaches positions (spans, or words in the
/// message when there is no source map).
pub(crate) struct Reporter<'a> {
    program: &'a Program,
    map: Option<&'a SourceMap>,
    pub diags: Vec<Diagnostic>,
}

impl Reporter<'_> {
    fn span(&self, site: Site) -> Option<Span> {
        let map = self.map?;
        match site {
            Site::Program => Some(map.version),
            Site::Inst(i) => map.instructions.get(i).map(|s| s.span),
            Site::Mnemonic(i) => map.instructions.get(i).map(|s| s.mnemonic),
            Site::Operand(i, k) => map.operand(i, k),
        }
    }

    /// Words naming a site, for messages without a source map.
    fn describe(&self, site: Site) -> String {
        let name = |i: usize| {
            self.program
                .instructions
                .get(i)
                .map_or("?", |inst| inst.opcode.name())
        };
        match site {
            Site::Program => "program".to_string(),
            Site::Inst(i) | Site::Mnemonic(i) => format!("instruction {i} (`{}`)", name(i)),
            Site::Operand(i, k) => format!("instruction {i} (`{}`), operand {k}", name(i)),
        }
    }

    /// Reports an error at `site`, with a short label for the caret.
    pub fn error(&mut self, site: Site, message: impl Into<String>, label: impl Into<String>) {
        let mut d = Diagnostic::error(message);
        match self.span(site) {
            Some(span) => d = d.with_primary(span, label),
            None => d.message = format!("{}: {}", self.describe(site), d.message),
        }
        self.diags.push(d);
    }

    /// Adds a secondary place to the last diagnostic (a note without a map).
    pub fn also(&mut self, site: Site, label: impl Into<String>) {
        let span = self.span(site);
        let place = self.describe(site);
        if let Some(d) = self.diags.last_mut() {
            d.add_place(span, label.into(), &place);
        }
    }

    /// Adds a note to the last diagnostic.
    pub fn note(&mut self, note: impl Into<String>) {
        if let Some(d) = self.diags.last_mut() {
            d.notes.push(note.into());
        }
    }
}

/// The stage word used in messages ("pixel shader").
pub(crate) fn stage_name(stage: ProgramType) -> &'static str {
    match stage {
        ProgramType::Pixel => "pixel shader",
        ProgramType::Vertex => "vertex shader",
        ProgramType::Geometry => "geometry shader",
        ProgramType::Hull => "hull shader",
        ProgramType::Domain => "domain shader",
        ProgramType::Compute => "compute shader",
        ProgramType::Library => "library",
    }
}

pub(crate) use crate::ir::mask_letters;

/// The components an operand selects, as a bit mask (bit 0 = x): the write
/// mask of a destination, the letters of a swizzle, the selected component,
/// all four for a one-component or component-less register.
pub(crate) fn component_mask(c: Components) -> u8 {
    match c {
        Components::Mask(m) => m & 0xf,
        Components::Swizzle(s) => s.iter().fold(0, |m, &c| m | 1 << (c & 3)),
        Components::Select(c) => 1 << (c & 3),
        Components::One => 1,
        Components::None => 0,
    }
}

/// The operand's components as written after the register (`.xyzw`, `.x`).
pub(crate) fn component_suffix(c: Components) -> String {
    let letters = c.letters();
    if letters.is_empty() {
        letters
    } else {
        format!(".{letters}")
    }
}

/// A short listing-like spelling of an operand for messages (`-r0.xy`,
/// `cb0[r1.x + 2].z`, `l(…)`).
pub(crate) fn operand_text(op: &Operand) -> String {
    let body = match op.file {
        RegisterFile::Immediate32 => "l(…)".to_string(),
        RegisterFile::Immediate64 => "d(…)".to_string(),
        file => {
            let mut s = file.name().to_string();
            // fxc writes the first index right after the prefix (`r0`,
            // `cb0[2]`), except for per-vertex inputs (`v[2][1]`) and the
            // files that are always bracketed (`icb[3]`, `vicp[0][1]`)
            let inline_first = matches!(
                file,
                RegisterFile::Temp
                    | RegisterFile::Input
                    | RegisterFile::Output
                    | RegisterFile::IndexableTemp
                    | RegisterFile::Sampler
                    | RegisterFile::Resource
                    | RegisterFile::ConstantBuffer
                    | RegisterFile::Label
                    | RegisterFile::Stream
                    | RegisterFile::FunctionBody
                    | RegisterFile::FunctionTable
                    | RegisterFile::Interface
                    | RegisterFile::InputPatchConstant
                    | RegisterFile::UnorderedAccessView
                    | RegisterFile::ThreadGroupSharedMemory
            ) && !(file == RegisterFile::Input && op.indices.len() == 2);
            for (k, index) in op.indices.iter().enumerate() {
                if k == 0 && inline_first && index.relative().is_none() {
                    s.push_str(&index.immediate().to_string());
                } else {
                    s.push('[');
                    s.push_str(&index_text(index));
                    s.push(']');
                }
            }
            s.push_str(&component_suffix(op.components));
            s
        }
    };
    match op.modifier {
        OperandModifier::None => body,
        OperandModifier::Neg => format!("-{body}"),
        OperandModifier::Abs => format!("|{body}|"),
        OperandModifier::AbsNeg => format!("-|{body}|"),
    }
}

fn index_text(index: &Index) -> String {
    match index.relative() {
        Some(r) => format!("{} + {}", operand_text(r), index.immediate()),
        None => index.immediate().to_string(),
    }
}

#[cfg(test)]
mod tests;
