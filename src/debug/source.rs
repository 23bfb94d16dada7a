//! A shader as the user wrote it, and the naming of a machine record in its
//! terms: instruction numbers, lines and texts, register and memory names,
//! and for Direct3D the grouping of lowered TGSI steps into the Direct3D
//! instructions they came from.

use super::{NamedValue, NamedWrite, Target, Trace, TraceStep};
use std::sync::Arc;
use tgsi_d3d::lower::D3dDest;
use tgsi_d3d::print::{PrintOptions, print_instruction};
use tgsi_exec::trace::{LaneTrace, Location, Selector, Status, Tracer, Write};
use tgsi_exec::{ExecError, Numerics, Program};
use tgsi_ir::diag::LineIndex;
use tgsi_ir::enums::{File, ProcessorNumbering};
use tgsi_ir::ir::{Instruction, Shader, Statement};
use tgsi_shader_test::d3d::{BuildError, D3dShader, check_assembly, check_container};

/// The language a program was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Tgsi,
    /// SM4/SM5 assembly or DXBC.
    D3d,
}

impl Language {
    /// `tgsi` or `d3d`.
    pub fn name(self) -> &'static str {
        match self {
            Language::Tgsi => "tgsi",
            Language::D3d => "d3d",
        }
    }
}

/// One instruction of the program as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedInstruction {
    /// Its number: TGSI, the one `tgsi dis` prints; Direct3D, its index
    /// among the program's instructions, declarations excluded.
    pub pc: u32,
    /// Its 1-based line in the file (text) or in `tgsi dis`'s output (binary).
    pub line: u32,
    /// The instruction as `tgsi dis` prints it, without indentation or number.
    pub text: String,
}

/// A shader ready to be debugged.
pub struct Source {
    pub name: String,
    pub language: Language,
    /// The lines the user reads (the file, or `tgsi dis`'s output).
    pub listing: Vec<String>,
    pub instructions: Vec<ListedInstruction>,
    shader: Shader,
    d3d: Option<D3dShader>,
    /// Per TGSI instruction: the listed instruction it belongs to (`None`:
    /// code the lowering added that no Direct3D instruction stands for).
    owner: Vec<Option<usize>>,
    /// Direct3D: the lowered destinations' indices ordered by the Direct3D
    /// instruction they belong to (a step's are found by a binary search).
    dests_by_instruction: Vec<usize>,
    /// Direct3D: per listed instruction, whether its destination holds
    /// doubles (`dmov`, `dadd`, `ftod`...): its writes pair as 64-bit
    /// values, whatever TGSI moved them.
    writes_doubles: Vec<bool>,
}

fn build_error(name: &str, text: &str, e: BuildError) -> String {
    match e {
        BuildError::Text(d) => d.render(name, text),
        BuildError::Message(m) => m,
    }
}

impl Source {
    /// Reads a shader from its bytes: a DXBC blob, SM4/SM5 assembly, TGSI
    /// text or Mesa's binary TGSI tokens. Errors are rendered with the
    /// file, line and column (byte offsets for binary input).
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Source, String> {
        use crate::sniff::Kind;
        let text = std::str::from_utf8(bytes).ok();
        match (crate::sniff::kind_of(bytes), text) {
            (Some(Kind::Dxbc), _) => Source::from_dxbc(name, bytes),
            (Some(Kind::SmAsm), Some(text)) => Source::from_d3d_assembly(name, text, 0),
            (Some(Kind::Tokens), _) => Source::from_tokens(name, bytes),
            // text (marked or not: the assembler says what it lacks)
            (_, Some(text)) if !text.contains('\0') => Source::from_tgsi_text(name, text, 0),
            _ => Source::from_tokens(name, bytes),
        }
    }

    /// TGSI text; its lines are counted from `line_offset` + 1 (a section
    /// of a larger file).
    pub fn from_tgsi_text(name: &str, text: &str, line_offset: u32) -> Result<Source, String> {
        let (shader, map) = tgsi_text::assemble(text).map_err(|d| d.render(name, text))?;
        let index = LineIndex::new(text);
        let lines: Vec<u32> = map
            .statements
            .iter()
            .map(|s| index.line(s.start) as u32 + line_offset)
            .collect();
        let listing = text.lines().map(str::to_string).collect();
        Ok(Source::tgsi(name, shader, listing, Some(&lines)))
    }

    /// Mesa's binary TGSI tokens (little-endian words).
    pub fn from_tokens(name: &str, bytes: &[u8]) -> Result<Source, String> {
        let words = tgsi_text::tokens::bytes_to_words(bytes).map_err(|e| format!("{name}: {e}"))?;
        let shader = tgsi_text::tokens::decode(&words, ProcessorNumbering::Mesa22)
            .map_err(|e| format!("{name}: {e}"))?;
        let listing = tgsi_text::print(&shader)
            .lines()
            .map(str::to_string)
            .collect();
        Ok(Source::tgsi(name, shader, listing, None))
    }

    /// A TGSI shader; `lines` per statement, or the printed listing's lines.
    fn tgsi(name: &str, shader: Shader, listing: Vec<String>, lines: Option<&[u32]>) -> Source {
        let printed = tgsi_text::print(&shader);
        // the printer writes the processor, then one line per statement
        let printed: Vec<&str> = printed.lines().skip(1).collect();
        let mut instructions = Vec::new();
        for (k, st) in shader.statements.iter().enumerate() {
            if !matches!(st, Statement::Instruction(_)) {
                continue;
            }
            let raw = printed.get(k).copied().unwrap_or("").trim_start();
            let text = match raw.split_once(": ") {
                Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest.trim_start(),
                _ => raw,
            };
            instructions.push(ListedInstruction {
                pc: instructions.len() as u32,
                line: lines.map_or(k as u32 + 2, |l| l.get(k).copied().unwrap_or(0)),
                text: text.to_string(),
            });
        }
        let owner = (0..instructions.len()).map(Some).collect();
        Source {
            name: name.to_string(),
            language: Language::Tgsi,
            listing,
            instructions,
            shader,
            d3d: None,
            owner,
            dests_by_instruction: Vec::new(),
            writes_doubles: Vec::new(),
        }
    }

    /// SM4/SM5 assembly (fxc's listing or vkd3d's spelling).
    pub fn from_d3d_assembly(name: &str, text: &str, line_offset: u32) -> Result<Source, String> {
        let d3d = check_assembly(text)
            .and_then(D3dShader::lower)
            .map_err(|e| build_error(name, text, e))?;
        let map = tgsi_d3d::assemble::assemble_listing(text)
            .map_err(|d| d.render(name, text))?
            .map;
        let listing = text.lines().map(str::to_string).collect();
        let index = LineIndex::new(text);
        let line_of = |k: usize, _: &str| {
            map.instructions
                .get(k)
                .map_or(0, |s| index.line(s.span.start) as u32 + line_offset)
        };
        Ok(Source::direct3d(name, d3d, listing, line_of))
    }

    /// A DXBC container holding one program; lines are those of `tgsi dis`.
    pub fn from_dxbc(name: &str, bytes: &[u8]) -> Result<Source, String> {
        let d3d = check_container(bytes, name)
            .and_then(D3dShader::lower)
            .map_err(|e| build_error(name, "", e))?;
        let listing_text = tgsi_d3d::disassemble(bytes)
            .unwrap_or_else(|_| tgsi_d3d::print::print_program(&d3d.program));
        let listing: Vec<String> = listing_text.lines().map(str::to_string).collect();
        // Each instruction is the next listing line that prints as it does.
        let mut cursor = 0usize;
        let trimmed: Vec<String> = listing.iter().map(|l| l.trim().to_string()).collect();
        let line_of = move |_: usize, printed: &str| {
            let at = trimmed[cursor.min(trimmed.len())..]
                .iter()
                .position(|l| l == printed)
                .map(|p| cursor + p);
            match at {
                Some(i) => {
                    cursor = i + 1;
                    i as u32 + 1
                }
                None => 0,
            }
        };
        Ok(Source::direct3d(name, d3d, listing, line_of))
    }

    /// A lowered Direct3D program; `line_of(d3d index, printed text)` gives
    /// each instruction's line.
    fn direct3d(
        name: &str,
        d3d: D3dShader,
        listing: Vec<String>,
        mut line_of: impl FnMut(usize, &str) -> u32,
    ) -> Source {
        let program = &d3d.program;
        let dests = &d3d.lowered.dests;
        let mut dests_by_instruction: Vec<usize> = (0..dests.len()).collect();
        // stable: a Direct3D instruction's destinations keep their order
        dests_by_instruction.sort_by_key(|&k| dests[k].instruction);
        let mut listed_of = vec![None; program.instructions.len()];
        let mut instructions = Vec::new();
        let mut writes_doubles = Vec::new();
        for (k, inst) in program.instructions.iter().enumerate() {
            // declarations, and the immediate constant buffer (custom data)
            // that fxc lists as `dcl_immediateConstantBuffer`, are no steps
            if inst.opcode.is_declaration() || inst.opcode == tgsi_d3d::opcode::Opcode::CustomData {
                continue;
            }
            let fxc = print_instruction(inst, program.version, &PrintOptions::default());
            let text = fxc.lines().next().unwrap_or("").trim().to_string();
            let line = line_of(k, &text);
            listed_of[k] = Some(instructions.len());
            writes_doubles.push(inst.opcode.info().operands.first().is_some_and(|o| {
                use tgsi_d3d::opcode::{OperandKind, Role};
                o.role == Role::Dst && o.kind == OperandKind::Double
            }));
            instructions.push(ListedInstruction {
                pc: instructions.len() as u32,
                line,
                text,
            });
        }
        let owner = d3d
            .lowered
            .origins
            .iter()
            .map(|&o| listed_of.get(o).copied().flatten())
            .collect();
        Source {
            name: name.to_string(),
            language: Language::D3d,
            listing,
            instructions,
            shader: d3d.lowered.shader.clone(),
            dests_by_instruction,
            d3d: Some(d3d),
            owner,
            writes_doubles,
        }
    }

    /// The TGSI the machine runs (a Direct3D program's lowering).
    pub fn shader(&self) -> &Shader {
        &self.shader
    }

    /// The Direct3D lowering (bindings, input and output maps), if any.
    pub fn d3d(&self) -> Option<&D3dShader> {
        self.d3d.as_ref()
    }

    /// The program for the interpreter, with `tracer` attached.
    pub fn program(&self, tracer: &Arc<Tracer>) -> Result<Program, ExecError> {
        let numerics = if self.d3d.is_some() {
            Numerics::Direct3D
        } else {
            Numerics::Ieee
        };
        let mut program = Program::compile_with(&self.shader, numerics)?;
        program.set_tracer(tracer.clone());
        Ok(program)
    }

    /// The line (in the file, or in `tgsi dis`'s output of a binary) of the
    /// instruction TGSI instruction `pc` belongs to.
    pub fn line_of(&self, pc: usize) -> Option<u32> {
        let listed = self.owner.get(pc).copied().flatten()?;
        self.instructions.get(listed).map(|i| i.line)
    }

    /// The machine's record in this program's terms.
    pub fn trace(&self, rec: LaneTrace, selector: Selector) -> Trace {
        let tgsi: Vec<&Instruction> = self.shader.instructions().collect();
        let mut names = Names::default();
        let mut steps: Vec<TraceStep> = Vec::with_capacity(rec.steps.len());
        let mut last_owner: Option<usize> = None;
        // Direct3D: inside the rest of an instruction's TGSI entered from
        // another instruction (the return from a call it made), which is
        // not another execution of it
        let mut resumed = false;
        let d3d = self.language == Language::D3d;
        for s in rec.steps {
            let pc = s.pc as usize;
            let Some(owner) = self.owner.get(pc).copied().flatten() else {
                last_owner = None;
                continue;
            };
            let writes = self.name_writes(&mut names, &tgsi, pc, &s.writes);
            let entered = last_owner != Some(owner);
            if d3d && entered {
                resumed = pc > 0 && self.owner.get(pc - 1) == Some(&Some(owner));
            }
            last_owner = Some(owner);
            if d3d && resumed && writes.is_empty() {
                continue;
            }
            match steps.last_mut() {
                // a Direct3D instruction's TGSI instructions make one step
                Some(prev) if d3d && !entered && !resumed => merge_writes(&mut prev.writes, writes),
                _ => steps.push(TraceStep {
                    instruction: owner,
                    writes,
                }),
            }
            resumed = false;
        }
        if d3d {
            for s in &mut steps {
                s.writes = order_writes(std::mem::take(&mut s.writes));
                if self.writes_doubles.get(s.instruction).copied() == Some(true) {
                    pair_doubles(&mut s.writes);
                }
            }
        }
        Trace {
            language: self.language,
            stage: self.shader.processor,
            file: self.name.clone(),
            selector,
            identity: rec.identity,
            listing: self.listing.clone(),
            instructions: self.instructions.clone(),
            steps,
            status: match rec.status {
                Status::Error(m) => Status::Error(self.error_in_source_terms(m, rec.failed_at)),
                other => other,
            },
            inputs: self.name_values(&rec.start, false),
            outputs: self.name_values(&rec.outputs, true),
            quad: rec.quad,
        }
    }

    /// The writes of TGSI instruction `pc` named in source terms (Direct3D:
    /// only the registers a Direct3D destination stands for).
    fn name_writes(
        &self,
        names: &mut Names,
        tgsi: &[&Instruction],
        pc: usize,
        writes: &[Write],
    ) -> Vec<NamedWrite> {
        let mut out = Vec::new();
        let float = tgsi.get(pc).is_some_and(|i| {
            use tgsi_ir::opcode::OperandType;
            matches!(
                i.opcode.info().dst_type,
                OperandType::Float | OperandType::Double
            )
        });
        for (k, w) in writes.iter().enumerate() {
            let target = match w.at {
                Location::Reg {
                    file,
                    index,
                    vertex,
                    chan,
                } => {
                    let name = match &self.d3d {
                        None => Some((tgsi_reg_name(file, index, vertex), false)),
                        Some(d) => w
                            .dst
                            .and_then(|n| tgsi.get(pc)?.dst.get(n as usize))
                            .and_then(|dst| self.d3d_dest(&d.lowered.dests, pc, dst))
                            .map(|dest| (dest.name_at(index as i64), dest.scalar)),
                    };
                    let Some((name, scalar)) = name else { continue };
                    // a one-component D3D register (`oDepth`) has no component to name
                    let full = if scalar {
                        name
                    } else {
                        format!("{name}.{}", chan_letter(chan))
                    };
                    Target::Reg(names.get(full))
                }
                Location::Memory { buffer, offset } => {
                    let (mem, offset) = self.memory_name(buffer, offset);
                    Target::Memory { mem, offset }
                }
                Location::Image { index, coord } => Target::Image {
                    mem: self.image_name(index),
                    coord,
                },
            };
            let wide = w.wide.then(|| {
                let hi = writes.get(k + 1).map_or(0, |n| n.word);
                u64::from(w.word) | (u64::from(hi) << 32)
            });
            let float = float && matches!(target, Target::Reg(_));
            out.push(NamedWrite {
                target,
                word: w.word,
                texel: w.texel.clone(),
                wide,
                float,
            });
        }
        out
    }

    /// The Direct3D destination that TGSI instruction `pc`'s `dst` stands
    /// for (the first one of its Direct3D instruction naming its register).
    fn d3d_dest<'a>(
        &self,
        dests: &'a [D3dDest],
        pc: usize,
        dst: &tgsi_ir::ir::DstOperand,
    ) -> Option<&'a D3dDest> {
        let d3d = self.owner_d3d(pc);
        let order = &self.dests_by_instruction;
        let first = order.partition_point(|&k| dests[k].instruction < d3d);
        order[first..]
            .iter()
            .map(|&k| &dests[k])
            .take_while(|d| d.instruction == d3d)
            .find(|d| d.register == dst.reg)
    }

    /// The Direct3D instruction (declarations counted) TGSI instruction `pc` came from.
    fn owner_d3d(&self, pc: usize) -> usize {
        self.d3d
            .as_ref()
            .and_then(|d| d.lowered.origins.get(pc).copied())
            .unwrap_or(usize::MAX)
    }

    /// `BUFFER[n]` / `MEMORY`, or the Direct3D `u#` / `g#` with the offset in it.
    fn memory_name(&self, buffer: Option<u32>, offset: u32) -> (String, u32) {
        use tgsi_d3d::lower::D3dSlot;
        let tgsi = || match buffer {
            Some(n) => (format!("BUFFER[{n}]"), offset),
            None => ("MEMORY".to_string(), offset),
        };
        let Some(d) = &self.d3d else { return tgsi() };
        for b in &d.lowered.bindings {
            let name = || slot_name(b.slot).unwrap_or_default();
            match (b.slot, buffer) {
                (D3dSlot::Uav { .. } | D3dSlot::UavCounter { .. }, Some(n))
                    if b.file == File::Buffer && b.index == n =>
                {
                    return (name(), offset);
                }
                (D3dSlot::SharedMemory { .. }, None)
                    if offset >= b.byte_offset
                        && (b.byte_size == 0 || offset < b.byte_offset + b.byte_size) =>
                {
                    return (name(), offset - b.byte_offset);
                }
                _ => {}
            }
        }
        tgsi()
    }

    /// A Direct3D program's execution error in its own terms: the
    /// instruction as listed (its `pc` and text) rather than the TGSI one
    /// it was lowered to, and its resources as `u#`, `t#`, `s#`, `cb#`,
    /// `g#`. TGSI programs' errors are left as they are.
    fn error_in_source_terms(&self, message: String, tgsi_pc: Option<usize>) -> String {
        let Some(d) = &self.d3d else { return message };
        // the machine's prefix, `instruction N (OPCODE): `, names TGSI
        let reason = match message.split_once("): ") {
            Some((head, reason)) if head.starts_with("instruction ") => reason,
            _ => message.as_str(),
        };
        let reason = d3d_resource_names(d, reason);
        let listed = tgsi_pc
            .and_then(|pc| self.owner.get(pc).copied().flatten())
            .and_then(|k| self.instructions.get(k));
        match listed {
            Some(inst) => format!("instruction {} (`{}`): {reason}", inst.pc, inst.text),
            None => reason,
        }
    }

    fn image_name(&self, index: u32) -> String {
        use tgsi_d3d::lower::D3dSlot;
        let bound = self.d3d.as_ref().and_then(|d| {
            d.lowered.bindings.iter().find_map(|b| match b.slot {
                D3dSlot::Uav { .. } if b.file == File::Image && b.index == index => {
                    slot_name(b.slot)
                }
                _ => None,
            })
        });
        bound.unwrap_or_else(|| format!("IMAGE[{index}]"))
    }

    /// Register values named in source terms (Direct3D: inputs and outputs
    /// through the lowering's maps; registers no D3D one stands for are left out).
    fn name_values(&self, values: &[(Location, u32)], outputs: bool) -> Vec<NamedValue> {
        let mut out = Vec::new();
        for &(at, word) in values {
            let Location::Reg {
                file,
                index,
                vertex,
                chan,
            } = at
            else {
                continue;
            };
            let name = match &self.d3d {
                None => Some(format!(
                    "{}.{}",
                    tgsi_reg_name(file, index, vertex),
                    chan_letter(chan)
                )),
                Some(d) => {
                    let map = if outputs {
                        &d.lowered.outputs
                    } else {
                        &d.lowered.inputs
                    };
                    map.iter()
                        .find(|c| c.file == file && c.index == index && c.component == chan)
                        .map(|c| {
                            let reg = c.d3d_file.name();
                            let numbered = matches!(
                                c.d3d_file,
                                tgsi_d3d::enums::RegisterFile::Input
                                    | tgsi_d3d::enums::RegisterFile::Output
                            );
                            let base = if numbered {
                                format!("{reg}{}", c.d3d_register)
                            } else {
                                reg.to_string()
                            };
                            let base = match vertex {
                                Some(v) => format!("{base}[{v}]"),
                                None => base,
                            };
                            format!("{base}.{}", chan_letter(c.d3d_component))
                        })
                }
            };
            if let Some(name) = name {
                out.push(NamedValue { name, word });
            }
        }
        out
    }
}

/// Register names made once and shared by every write (a long trace
/// writes the same few channels over and over).
#[derive(Default)]
struct Names(std::collections::HashMap<String, Arc<str>>);

impl Names {
    fn get(&mut self, name: String) -> Arc<str> {
        self.0
            .entry(name)
            .or_insert_with_key(|k| Arc::from(k.as_str()))
            .clone()
    }
}

/// `TEMP[3]`, `OUT[2][1]` (a control point's output).
fn tgsi_reg_name(file: File, index: u32, vertex: Option<u32>) -> String {
    match vertex {
        Some(v) => format!("{file}[{v}][{index}]"),
        None => format!("{file}[{index}]"),
    }
}

fn chan_letter(c: u8) -> char {
    ['x', 'y', 'z', 'w'][(c & 3) as usize]
}

/// Adds `more` (later writes of the same step) to `writes`: a later write
/// of the same register channel or memory word replaces the earlier one.
fn merge_writes(writes: &mut Vec<NamedWrite>, more: Vec<NamedWrite>) {
    for w in more {
        match writes.iter_mut().find(|o| o.target == w.target) {
            Some(o) => *o = w,
            None => writes.push(w),
        }
    }
}

/// A Direct3D slot as its program names it: `cb#`, `t#`, `s#`, `u#`,
/// `u#.counter`, `g#` (class linkage's rows have no name).
fn slot_name(slot: tgsi_d3d::lower::D3dSlot) -> Option<String> {
    use tgsi_d3d::lower::D3dSlot;
    match slot {
        D3dSlot::ConstantBuffer { register, .. } => Some(format!("cb{register}")),
        D3dSlot::Texture { register, .. } => Some(format!("t{register}")),
        D3dSlot::TextureWithSampler { texture, .. } => Some(format!("t{texture}")),
        D3dSlot::Sampler { register, .. } => Some(format!("s{register}")),
        D3dSlot::Uav { register, .. } => Some(format!("u{register}")),
        D3dSlot::UavCounter { register, .. } => Some(format!("u{register}.counter")),
        D3dSlot::SharedMemory { register } => Some(format!("g{register}")),
        D3dSlot::Interfaces { .. } => None,
    }
}

/// `text` with each TGSI resource a Direct3D slot was lowered to
/// (`BUFFER[0]`, `IMAGE[1]`, `SVIEW[2]`, `SAMP[0]`, `CONST[1]`) named as
/// the Direct3D program names it.
fn d3d_resource_names(d: &D3dShader, text: &str) -> String {
    let name_of = |file: File, index: u32| {
        d.lowered
            .bindings
            .iter()
            .find(|b| b.file == file && b.index == index)
            .and_then(|b| slot_name(b.slot))
    };
    let files = [
        File::Buffer,
        File::Image,
        File::SamplerView,
        File::Sampler,
        File::Const,
    ];
    let mut out = String::new();
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for file in files {
            let Some(after) = rest
                .strip_prefix(file.name())
                .and_then(|a| a.strip_prefix('['))
            else {
                continue;
            };
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let (Ok(index), Some(tail)) = (
                after[..digits].parse::<u32>(),
                after[digits..].strip_prefix(']'),
            ) else {
                continue;
            };
            if let Some(name) = name_of(file, index) {
                out.push_str(&name);
                rest = tail;
                continue 'scan;
            }
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The 64-bit values of a Direct3D double instruction's writes (in
/// component order): each `.x` or `.z` followed by the same register's `.y`
/// or `.w` carries the pair on its first channel, a double.
fn pair_doubles(writes: &mut [NamedWrite]) {
    for k in 0..writes.len().saturating_sub(1) {
        let (Target::Reg(lo), Target::Reg(hi)) = (&writes[k].target, &writes[k + 1].target) else {
            continue;
        };
        let (Some((lo_reg, lo_chan)), Some((hi_reg, hi_chan))) =
            (lo.rsplit_once('.'), hi.rsplit_once('.'))
        else {
            continue;
        };
        if lo_reg == hi_reg && matches!((lo_chan, hi_chan), ("x", "y") | ("z", "w")) {
            let value = u64::from(writes[k].word) | u64::from(writes[k + 1].word) << 32;
            writes[k].wide = Some(value);
            writes[k].float = true;
            writes[k + 1].float = true;
        }
    }
}

/// Register writes grouped by register in first-write order, each in
/// component order x, y, z, w; memory writes after them in order.
fn order_writes(writes: Vec<NamedWrite>) -> Vec<NamedWrite> {
    let base = |w: &NamedWrite| match &w.target {
        Target::Reg(r) => r.rsplit_once('.').map(|(b, _)| b.to_string()),
        _ => None,
    };
    let mut order: Vec<String> = Vec::new();
    for w in &writes {
        if let Some(b) = base(w)
            && !order.contains(&b)
        {
            order.push(b);
        }
    }
    let mut regs: Vec<(usize, usize, NamedWrite)> = Vec::new();
    let mut mem = Vec::new();
    for w in writes {
        match base(&w) {
            Some(b) => {
                let rank = order.iter().position(|o| *o == b).unwrap_or(0);
                let chan = w
                    .target
                    .to_string()
                    .chars()
                    .last()
                    .map_or(4, |c| "xyzw".find(c).unwrap_or(4));
                regs.push((rank, chan, w));
            }
            None => mem.push(w),
        }
    }
    regs.sort_by_key(|r| (r.0, r.1));
    let mut out: Vec<NamedWrite> = regs.into_iter().map(|(_, _, w)| w).collect();
    out.extend(mem);
    out
}
