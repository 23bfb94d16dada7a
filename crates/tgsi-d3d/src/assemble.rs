//! The SM4/SM5 assembler's back half: a parsed and validated listing → a
//! DXBC container as fxc would lay it out for the program alone (no `RDEF`,
//! `STAT` or debug chunks):
//!
//! * the signature chunks, read from the listing's `// Input signature:`,
//!   `// Output signature:` and `// Patch Constant signature:` tables when
//!   it has them, else derived from the declarations
//!   ([`signatures_from_declarations`]); the kinds follow fxc: `ISG1`/
//!   `OSG1`/`PSG1` when the program enables minimum precision, `OSG5` for
//!   SM5 geometry shaders, else `ISGN`/`OSGN`/`PCSG`; domain shaders put
//!   the patch constants before the outputs, hull shaders after;
//! * the program as `SHEX` for SM5, and for SM4 compute shaders or SM4
//!   programs with raw or structured buffers; `SHDR` for other SM4
//!   programs ([`program_chunk_tag`]);
//! * `SFI0` when the program uses an optional feature
//!   ([`shader_features`]).
//!
//! A library listing (`lib_*` functions after fxc's `// Library:` banner)
//! becomes a `LIBH` chunk (flags, function names and creator from the
//! banner; each function's level-9 mode from its `lib_4_0_vs_*`/
//! `lib_4_0_ps_*` sections) after one `LIBF` chunk per function: a nested
//! container with the `LFS0` read back from the `// Function parameter
//! signature` table ([`parameter_from_row`]; interpolation modes are not
//! listed and come out 0), the validated program chunk and `SFI0` when
//! used. The level-9 `Aon9` chunks are not rebuilt from the indented
//! Direct3D 9 sections, nor are `RDEF` and `STAT`.

use crate::container::{Chunk, Container, FourCC, tags};
use crate::encode::encode_program_bytes;
use crate::enums::{GlobalFlags, Interpolation, ProgramType, RegisterFile, SystemValue, UavFlags};
use crate::ir::{Components, Index, Payload, Program};
use crate::library::{
    LibraryFunction, LibraryHeader, NO_REGISTER as NO_PARAMETER_REGISTER, PARAMETER_IN,
    PARAMETER_OUT, Parameter, ParameterSignature,
};
use crate::opcode::Opcode;
use crate::parse::{ParsedProgram, parse_listing};
use crate::rdef::VARIABLE_TYPES;
use crate::sfi0::Sfi0;
use crate::signature::{
    ComponentType, NO_REGISTER, Signature, SignatureElement, SignatureKind, SignatureRole,
    SpecialOutput, StageForTable,
};
use crate::source_map::SourceMap;
use tgsi_ir::diag::{Diagnostic, Diagnostics};
use tgsi_ir::ir::Span;

/// A container built from a listing, and what went into it.
#[derive(Clone, Debug, PartialEq)]
pub struct Assembly {
    /// the DXBC container, checksum included
    pub container: Vec<u8>,
    pub program: Program,
    pub map: SourceMap,
    /// the signature chunks, in chunk order
    pub signatures: Vec<Signature>,
    /// for each signature, whether it came from a listing table (else from
    /// the declarations)
    pub from_tables: Vec<bool>,
    /// `SHDR` or `SHEX`
    pub program_tag: FourCC,
    /// the `SFI0` feature mask (no chunk when 0)
    pub features: u64,
    /// for a library: its header and functions (the fields above then
    /// describe the first function; `signatures` is empty)
    pub library: Option<LibraryAssembly>,
}

/// Assembles a listing into a DXBC container: one program, or a library
/// (see [`assemble_listing`]).
pub fn assemble(text: &str) -> Result<(Vec<u8>, SourceMap), Diagnostics> {
    let a = assemble_listing(text)?;
    Ok((a.container, a.map))
}

/// Assembles a listing, returning the container and its parts: a
/// one-program listing, or a library listing (`lib_*` functions under
/// fxc's `// Library:` banner) into `LIBF` containers and a `LIBH`.
pub fn assemble_listing(text: &str) -> Result<Assembly, Diagnostics> {
    let mut programs = parse_listing(text)?;
    if programs
        .iter()
        .any(|p| p.program.version.program_type == ProgramType::Library)
    {
        return assemble_library(text, programs);
    }
    if programs.len() != 1 {
        let span = programs.get(1).map(|p| p.map.version).unwrap_or_default();
        return Err(Diagnostics(vec![
            Diagnostic::error(format!(
                "a listing of {} programs that is not a library cannot be assembled into one container",
                programs.len()
            ))
            .with_primary(span, "a second program starts here"),
        ]));
    }
    let parsed = programs.remove(0);
    let program = parsed.program;
    // What the reference pages call invalid is refused, as on the TGSI side
    // (`tgsi::assemble` is parse + validate).
    let checked = crate::validate::validate(&program, Some(&parsed.map));
    if checked.has_errors() {
        return Err(checked);
    }
    let header = &text[parsed.header.start..parsed.header.end];
    let tables = signature_tables(
        header,
        parsed.header.start,
        StageForTable::of(Some(program.version.program_type)),
    )?;
    let derived = signatures_from_declarations(&program);
    let mut signatures = Vec::new();
    let mut from_tables = Vec::new();
    for role in chunk_roles(program.version.program_type) {
        let (elements, listed) = match tables.get(role) {
            Some(e) => (e.clone(), true),
            None => (derived.get(role).to_vec(), false),
        };
        let kind = signature_kind(&program, role, &elements);
        signatures.push(Signature { kind, elements });
        from_tables.push(listed);
    }
    let payload = encode(&program, &parsed.map)?;
    let program_tag = program_chunk_tag(&program);
    let features = shader_features(&program);
    let mut chunks: Vec<Chunk> = signatures
        .iter()
        .map(|s| Chunk::new(s.kind.tag(), s.to_bytes()))
        .collect();
    chunks.push(Chunk::new(program_tag, payload));
    if features != 0 {
        chunks.push(Chunk::new(tags::SFI0, Sfi0 { flags: features }.to_bytes()));
    }
    let container = Container::new(chunks).to_bytes();
    Ok(Assembly {
        container,
        program,
        map: parsed.map,
        signatures,
        from_tables,
        program_tag,
        features,
        library: None,
    })
}

/// The program's tokens, or the encoder's error at its instruction.
fn encode(program: &Program, map: &SourceMap) -> Result<Vec<u8>, Diagnostics> {
    encode_program_bytes(program).map_err(|e| {
        let span = map
            .instructions
            .get(e.instruction)
            .map(|i| i.span)
            .unwrap_or_default();
        Diagnostics(vec![
            Diagnostic::error(format!("the program cannot be encoded: {}", e.message))
                .with_primary(span, "here"),
        ])
    })
}

/// One function of an assembled library.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryFunctionAssembly {
    /// the function's nested DXBC container (the `LIBF` payload)
    pub container: Vec<u8>,
    pub program: Program,
    pub map: SourceMap,
    /// rebuilt from the `// Function parameter signature` table
    pub parameters: ParameterSignature,
    /// `SHDR` or `SHEX`
    pub program_tag: FourCC,
    /// the `SFI0` feature mask (no chunk when 0)
    pub features: u64,
}

/// A library built from a listing: its `LIBH` header and one `LIBF`
/// container per function.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryAssembly {
    pub header: LibraryHeader,
    pub functions: Vec<LibraryFunctionAssembly>,
}

/// Assembles a library listing: the `// Library:` banner gives `LIBH`
/// (flags, function names, creator; a function's mode from the level-9
/// `lib_4_0_vs_*`/`lib_4_0_ps_*` sections of its header), each function
/// a `LIBF` container holding its `LFS0` (from the parameter table), its
/// program chunk and `SFI0` when a feature is used. `RDEF`, `STAT` and
/// the level-9 `Aon9` chunks are not rebuilt.
fn assemble_library(text: &str, programs: Vec<ParsedProgram>) -> Result<Assembly, Diagnostics> {
    let first_header = programs.first().map(|p| p.header).unwrap_or_default();
    let first_version = programs.first().map(|p| p.map.version).unwrap_or_default();
    let banner = library_banner(text, first_header, first_version, programs.len())?;
    let mut functions = Vec::new();
    let mut diags = Vec::new();
    for parsed in programs {
        match assemble_function(text, parsed) {
            Ok(f) => functions.push(f),
            Err(d) => diags.extend(d.0),
        }
    }
    if !diags.is_empty() {
        return Err(Diagnostics(diags));
    }
    let header = LibraryHeader {
        version: 1,
        creator: banner.creator,
        flags: banner.flags,
        functions: banner
            .names
            .into_iter()
            .zip(&functions)
            .map(|(name, f)| LibraryFunction { mode: f.mode, name })
            .collect(),
    };
    let mut chunks: Vec<Chunk> = functions
        .iter()
        .map(|f| Chunk::new(tags::LIBF, f.assembly.container.clone()))
        .collect();
    chunks.push(Chunk::new(tags::LIBH, header.to_bytes()));
    let container = Container::new(chunks).to_bytes();
    let functions: Vec<LibraryFunctionAssembly> =
        functions.into_iter().map(|f| f.assembly).collect();
    let Some(first) = functions.first() else {
        return Err(Diagnostics(vec![
            Diagnostic::error("a library listing without functions")
                .with_primary(first_header, "here"),
        ]));
    };
    Ok(Assembly {
        container,
        program: first.program.clone(),
        map: first.map.clone(),
        signatures: Vec::new(),
        from_tables: Vec::new(),
        program_tag: first.program_tag,
        features: first.features,
        library: Some(LibraryAssembly { header, functions }),
    })
}

/// A function and its `LIBH` mode.
struct AssembledFunction {
    assembly: LibraryFunctionAssembly,
    mode: u32,
}

fn assemble_function(text: &str, parsed: ParsedProgram) -> Result<AssembledFunction, Diagnostics> {
    let program = parsed.program;
    if program.version.program_type != ProgramType::Library {
        return Err(Diagnostics(vec![
            Diagnostic::error("a library listing holds only `lib_*` programs")
                .with_primary(parsed.map.version, "not a library function"),
        ]));
    }
    let checked = crate::validate::validate(&program, Some(&parsed.map));
    if checked.has_errors() {
        return Err(checked);
    }
    let header = &text[parsed.header.start..parsed.header.end];
    let parameters = parameter_table(header, parsed.header.start, parsed.map.version)?;
    let mode = header.lines().fold(0, |mode, line| {
        let line = line.trim();
        if line.starts_with("lib_4_0_vs_") {
            mode | 1
        } else if line.starts_with("lib_4_0_ps_") {
            mode | 2
        } else {
            mode
        }
    });
    let payload = encode(&program, &parsed.map)?;
    let program_tag = program_chunk_tag(&program);
    let features = shader_features(&program);
    let mut chunks = vec![
        Chunk::new(tags::LFS0, parameters.to_bytes()),
        Chunk::new(program_tag, payload),
    ];
    if features != 0 {
        chunks.push(Chunk::new(tags::SFI0, Sfi0 { flags: features }.to_bytes()));
    }
    Ok(AssembledFunction {
        assembly: LibraryFunctionAssembly {
            container: Container::new(chunks).to_bytes(),
            program,
            map: parsed.map,
            parameters,
            program_tag,
            features,
        },
        mode,
    })
}

/// What the `// Library:` banner says.
struct LibraryBanner {
    flags: u32,
    names: Vec<String>,
    creator: String,
}

/// Reads `// Library:  flags F, N functions:`, the `//   i  name` lines
/// and `// Created by:  creator` from the first function's header.
fn library_banner(
    text: &str,
    header: Span,
    first_version: Span,
    programs: usize,
) -> Result<LibraryBanner, Diagnostics> {
    let err = |span: Span, message: String, label: &str| {
        Diagnostics(vec![Diagnostic::error(message).with_primary(span, label)])
    };
    let mut lines = comment_lines(&text[header.start..header.end], header.start);
    let Some((flags, count, banner_span)) = lines.by_ref().find_map(|(span, body)| {
        let rest = body.strip_prefix("Library:")?.trim();
        let (flags, count) = rest.strip_prefix("flags ")?.split_once(',')?;
        let count = count.trim().strip_suffix("functions:")?.trim();
        Some((
            flags.trim().parse::<u32>().ok()?,
            count.parse::<usize>().ok()?,
            span,
        ))
    }) else {
        return Err(Diagnostics(vec![
            Diagnostic::error(
                "a library listing needs fxc's `// Library:  flags F, N functions:` banner",
            )
            .with_primary(
                first_version,
                "the first function, without a banner before it",
            )
            .with_note("the banner names the functions of the `LIBH` chunk"),
        ]));
    };
    let mut names = Vec::new();
    let mut creator = None;
    for (span, body) in lines {
        if let Some(c) = body.strip_prefix("Created by:") {
            creator = Some(c.trim().to_string());
            break;
        }
        let mut words = body.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some(i), Some(name), None) if i.parse::<usize>() == Ok(names.len()) => {
                names.push(name.to_string())
            }
            (None, ..) => {}
            _ => {
                return Err(err(
                    span,
                    "malformed library function line".into(),
                    "expected `//   INDEX  NAME`",
                ));
            }
        }
    }
    let Some(creator) = creator else {
        return Err(err(
            banner_span,
            "the library banner has no `// Created by:` line".into(),
            "this banner",
        ));
    };
    if names.len() != count || count != programs {
        return Err(err(
            banner_span,
            format!(
                "the banner announces {count} functions and names {}, the listing holds {programs} programs",
                names.len()
            ),
            "this banner",
        ));
    }
    Ok(LibraryBanner {
        flags,
        names,
        creator,
    })
}

/// The `//` lines of `text` (at byte `base`): each line's span and its
/// trimmed text after `//`.
fn comment_lines(text: &str, base: usize) -> impl Iterator<Item = (Span, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').filter_map(move |raw| {
        let start = base + offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let body = line.trim_start().strip_prefix("//")?;
        Some((Span::new(start, start + line.len()), body.trim()))
    })
}

/// The `// Function parameter signature (return: R, parameters: N):`
/// table of a function header, its rows read back with
/// [`parameter_from_row`].
pub fn parameter_table(
    header: &str,
    base: usize,
    version: Span,
) -> Result<ParameterSignature, Diagnostics> {
    let mut lines = comment_lines(header, base);
    let Some((count, heading)) = lines.by_ref().find_map(|(span, body)| {
        let rest = body.strip_prefix("Function parameter signature (return: ")?;
        let (_, n) = rest.split_once("parameters: ")?;
        Some((n.strip_suffix("):")?.parse::<usize>().ok()?, span))
    }) else {
        return Err(Diagnostics(vec![
            Diagnostic::error(
                "a library function needs its `// Function parameter signature` table",
            )
            .with_primary(version, "this function has none")
            .with_note("the table is the function's `LFS0` chunk"),
        ]));
    };
    let mut parameters = Vec::new();
    let mut diags = Vec::new();
    let mut rows_started = false;
    for (span, body) in lines {
        if body.starts_with("---") {
            rows_started = true;
            continue;
        }
        if !rows_started {
            continue;
        }
        if body.is_empty() {
            break;
        }
        let row = &header[span.start - base..span.end - base];
        match parameter_from_row(row, span.start) {
            Ok(p) => parameters.push(p),
            Err(d) => diags.push(d),
        }
    }
    if !diags.is_empty() {
        return Err(Diagnostics(diags));
    }
    if parameters.len() != count + 1 {
        return Err(Diagnostics(vec![
            Diagnostic::error(format!(
                "the table announces {count} parameters and a return row, it has {} rows",
                parameters.len()
            ))
            .with_primary(heading, "this table"),
        ]));
    }
    Ok(ParameterSignature { parameters })
}

/// Reads a parameter-table row as [`ParameterSignature::listing`] prints
/// it: name, optional semantic, optional `vN NUM MASK` and `oN NUM MASK`,
/// then `[in|out|inout] [row_major] TYPE`. Rows, columns and class come
/// from the type; the interpolation mode is not listed (0) and neither
/// are the first components (0, or -1 without a register).
pub fn parameter_from_row(line: &str, line_start: usize) -> Result<Parameter, Diagnostic> {
    let mut tokens: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                tokens.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if tokens.first().is_some_and(|t| t.1 == "//") {
        tokens.remove(0);
    }
    let span = |t: (usize, &str)| Span::new(line_start + t.0, line_start + t.0 + t.1.len());
    let whole = Span::new(line_start, line_start + line.len());
    let malformed = |span: Span, label: &str| {
        Diagnostic::error("malformed function parameter row").with_primary(span, label)
    };
    if tokens.len() < 2 {
        return Err(malformed(whole, "expected a name and a type"));
    }
    let name = tokens[0];
    let ty = tokens[tokens.len() - 1];
    let mut end = tokens.len() - 1;
    let row_major = end > 1 && tokens[end - 1].1 == "row_major";
    if row_major {
        end -= 1;
    }
    let flags = match tokens[end - 1].1 {
        "in" if end > 1 => PARAMETER_IN,
        "out" if end > 1 => PARAMETER_OUT,
        "inout" if end > 1 => PARAMETER_IN | PARAMETER_OUT,
        _ => 0,
    };
    if flags != 0 {
        end -= 1;
    }
    let mut middle = &tokens[1..end];
    let semantic = if middle.len() % 3 == 1 {
        let s = middle[0].1.to_string();
        middle = &middle[1..];
        Some(s)
    } else {
        None
    };
    let (base_type, class, rows, columns) = parameter_type_from(ty.1, row_major)
        .ok_or_else(|| malformed(span(ty), "unknown parameter type"))?;
    let mut first_in_register = NO_PARAMETER_REGISTER;
    let mut first_out_register = NO_PARAMETER_REGISTER;
    for group in middle.chunks(3) {
        let [reg, num, mask] = group else {
            return Err(malformed(
                span(group[0]),
                "expected `vN NUM MASK` or `oN NUM MASK`",
            ));
        };
        let (slot, number) = match reg.1.split_at_checked(1) {
            Some(("v", n)) => (&mut first_in_register, n),
            Some(("o", n)) => (&mut first_out_register, n),
            _ => return Err(malformed(span(*reg), "expected a `v#` or `o#` register")),
        };
        if *slot != NO_PARAMETER_REGISTER {
            return Err(malformed(span(*reg), "a second register of this kind"));
        }
        *slot = number
            .parse()
            .map_err(|_| malformed(span(*reg), "bad register number"))?;
        if num.1.parse::<u32>() != Ok(rows) {
            return Err(malformed(
                span(*num),
                &format!("the type `{}` takes {rows} registers", ty.1),
            ));
        }
        let expected = &"xyzw"[..columns.clamp(1, 4) as usize];
        if mask.1 != expected {
            return Err(malformed(
                span(*mask),
                &format!("the type `{}` spans `{expected}`", ty.1),
            ));
        }
    }
    Ok(Parameter {
        name: name.1.to_string(),
        semantic,
        base_type,
        class,
        rows,
        columns,
        interpolation: 0,
        flags,
        first_in_register,
        first_in_component: first_component(first_in_register),
        first_out_register,
        first_out_component: first_component(first_out_register),
    })
}

/// `float3` → (float, vector, 1, 3); `float2x3` → column-major with 3
/// rows of 2 columns, `row_major float2x3` → 2 rows of 3; `void` →
/// all 0. The base types come from [`VARIABLE_TYPES`].
fn parameter_type_from(ty: &str, row_major: bool) -> Option<(u32, u32, u32, u32)> {
    if ty == "void" {
        return Some((0, 0, 0, 0));
    }
    VARIABLE_TYPES
        .iter()
        .filter_map(|(value, name)| {
            let dims = ty.strip_prefix(name)?;
            let shape = if dims.is_empty() {
                (0, 1, 1)
            } else if let Some((a, b)) = dims.split_once('x') {
                let (a, b) = (small_dim(a)?, small_dim(b)?);
                if row_major { (2, a, b) } else { (3, b, a) }
            } else {
                (1, 1, small_dim(dims)?)
            };
            Some((name.len(), (u32::from(*value), shape.0, shape.1, shape.2)))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, t)| t)
}

/// fxc lists no first component: 0 for a parameter in that register
/// file, -1 without one.
fn first_component(register: u32) -> u32 {
    if register == NO_PARAMETER_REGISTER {
        NO_PARAMETER_REGISTER
    } else {
        0
    }
}

fn small_dim(s: &str) -> Option<u32> {
    s.parse().ok().filter(|n| (1..=4).contains(n))
}

/// The signature chunks of a stage, in fxc's chunk order.
fn chunk_roles(t: ProgramType) -> Vec<SignatureRole> {
    use SignatureRole::*;
    match t {
        ProgramType::Domain => vec![Input, PatchConstant, Output],
        ProgramType::Hull => vec![Input, Output, PatchConstant],
        _ => vec![Input, Output],
    }
}

/// The chunk kind fxc writes for a signature.
fn signature_kind(
    program: &Program,
    role: SignatureRole,
    elements: &[SignatureElement],
) -> SignatureKind {
    let min_precision = global_flags(program).contains(GlobalFlags::ENABLE_MINIMUM_PRECISION)
        || elements.iter().any(|e| e.min_precision != 0);
    let v = program.version;
    match role {
        SignatureRole::Input if min_precision => SignatureKind::Isg1,
        SignatureRole::Input => SignatureKind::Isgn,
        SignatureRole::Output if min_precision => SignatureKind::Osg1,
        SignatureRole::Output if v.program_type == ProgramType::Geometry && v.major >= 5 => {
            SignatureKind::Osg5
        }
        SignatureRole::Output => SignatureKind::Osgn,
        SignatureRole::PatchConstant if min_precision => SignatureKind::Psg1,
        SignatureRole::PatchConstant => SignatureKind::Pcsg,
    }
}

fn global_flags(program: &Program) -> GlobalFlags {
    program
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::DclGlobalFlags)
        .fold(GlobalFlags::empty(), |f, i| f | i.controls.global_flags)
}

/// True if the program declares a raw or structured buffer (SRV, UAV or
/// thread-group memory).
fn uses_raw_or_structured(program: &Program) -> bool {
    program.instructions.iter().any(|i| {
        matches!(
            i.opcode,
            Opcode::DclResourceRaw
                | Opcode::DclResourceStructured
                | Opcode::DclUavRaw
                | Opcode::DclUavStructured
                | Opcode::DclTgsmRaw
                | Opcode::DclTgsmStructured
        )
    })
}

/// `SHEX` for SM5, SM4 compute shaders and SM4 programs with raw or
/// structured buffers (what fxc writes); `SHDR` otherwise.
pub fn program_chunk_tag(program: &Program) -> FourCC {
    let v = program.version;
    let extended = v.major >= 5
        || v.program_type == ProgramType::Compute
        || uses_raw_or_structured(program)
        || global_flags(program).contains(GlobalFlags::ENABLE_RAW_AND_STRUCTURED_BUFFERS);
    if extended { tags::SHEX } else { tags::SHDR }
}

/// The `SFI0` feature mask fxc writes for a program (see
/// [`crate::sfi0::FEATURES`]): doubles, minimum precision and the 11.1
/// extensions from the global flags; raw/structured buffers or compute on
/// SM4; UAVs outside pixel and compute shaders; UAV slots above 7; the
/// tiled-resource opcodes; `oStencilRef`; `vInnerCoverage`; typed UAV
/// loads of more than one component; rasterizer-ordered UAVs; and render
/// target or viewport array indices written by a vertex, hull or domain
/// shader.
pub fn shader_features(program: &Program) -> u64 {
    let v = program.version;
    let flags = global_flags(program);
    let mut f = 0u64;
    if flags.contains(GlobalFlags::ENABLE_DOUBLE_PRECISION_FLOAT_OPS) {
        f |= 0x1;
    }
    if v.major == 4
        && (v.program_type == ProgramType::Compute
            || uses_raw_or_structured(program)
            || flags.contains(GlobalFlags::ENABLE_RAW_AND_STRUCTURED_BUFFERS))
    {
        f |= 0x2;
    }
    if flags.contains(GlobalFlags::ENABLE_MINIMUM_PRECISION) {
        f |= 0x10;
    }
    if flags.contains(GlobalFlags::ENABLE_11_1_DOUBLE_EXTENSIONS) {
        f |= 0x20;
    }
    if flags.contains(GlobalFlags::ENABLE_11_1_SHADER_EXTENSIONS) {
        f |= 0x40;
    }
    let uav_stage = matches!(v.program_type, ProgramType::Pixel | ProgramType::Compute);
    for inst in &program.instructions {
        let op = inst.opcode;
        let is_uav_decl = matches!(
            op,
            Opcode::DclUavTyped | Opcode::DclUavRaw | Opcode::DclUavStructured
        );
        if is_uav_decl {
            if !uav_stage {
                f |= 0x4;
            }
            if let Some(decl) = inst.operands.first() {
                // SM5.0: the slot; SM5.1: the range's last slot (`*` included)
                let last = if decl.indices.len() == 3 {
                    decl.indices.get(2)
                } else {
                    decl.indices.first()
                };
                if matches!(last, Some(Index::Imm32(n)) if *n >= 8) {
                    f |= 0x8;
                }
            }
            if inst.controls.uav.contains(UavFlags::RASTERIZER_ORDERED) {
                f |= 0x1000;
            }
        }
        if (Opcode::Gather4S..=Opcode::CheckAccessFullyMapped).contains(&op) {
            f |= 0x100;
        }
        if matches!(op, Opcode::LdUavTyped | Opcode::LdUavTypedS)
            && let Some(Components::Mask(m)) = inst.operands.first().map(|o| o.components)
            && m.count_ones() > 1
        {
            f |= 0x800;
        }
        for o in &inst.operands {
            match o.file {
                RegisterFile::OutputStencilRef => f |= 0x200,
                RegisterFile::InnerCoverage => f |= 0x400,
                _ => {}
            }
        }
        if matches!(op, Opcode::DclOutputSiv | Opcode::DclOutputSgv)
            && matches!(
                v.program_type,
                ProgramType::Vertex | ProgramType::Domain | ProgramType::Hull
            )
            && matches!(
                inst.payload,
                Payload::Name(
                    SystemValue::RenderTargetArrayIndex | SystemValue::ViewportArrayIndex
                )
            )
        {
            f |= 0x2000;
        }
    }
    f
}

/// Signature elements by role.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SignatureSet {
    pub inputs: Option<Vec<SignatureElement>>,
    pub outputs: Option<Vec<SignatureElement>>,
    pub patch_constants: Option<Vec<SignatureElement>>,
}

impl SignatureSet {
    fn slot(&mut self, role: SignatureRole) -> &mut Option<Vec<SignatureElement>> {
        match role {
            SignatureRole::Input => &mut self.inputs,
            SignatureRole::Output => &mut self.outputs,
            SignatureRole::PatchConstant => &mut self.patch_constants,
        }
    }

    /// The elements of `role`, if that signature is present.
    pub fn get(&self, role: SignatureRole) -> Option<&Vec<SignatureElement>> {
        match role {
            SignatureRole::Input => self.inputs.as_ref(),
            SignatureRole::Output => self.outputs.as_ref(),
            SignatureRole::PatchConstant => self.patch_constants.as_ref(),
        }
    }
}

/// The signature tables of an fxc listing header (`header` starts at byte
/// `base` of the listing): each `// Input signature:`, `// Output
/// signature:` and `// Patch Constant signature:` section, its rows read
/// with [`SignatureElement::from_listing_row`] (`// no Input` is an empty
/// signature). Every bad row is reported.
pub fn signature_tables(
    header: &str,
    base: usize,
    stage: StageForTable,
) -> Result<SignatureSet, Diagnostics> {
    let mut set = SignatureSet::default();
    let mut diags = Vec::new();
    let mut section: Option<SignatureRole> = None;
    let mut rows_started = false;
    let mut offset = 0;
    for raw in header.split_inclusive('\n') {
        let line_start = base + offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let Some(body) = line.trim_start().strip_prefix("//") else {
            section = None;
            continue;
        };
        let body = body.trim();
        let heading = match body {
            "Input signature:" => Some(SignatureRole::Input),
            "Output signature:" => Some(SignatureRole::Output),
            "Patch Constant signature:" => Some(SignatureRole::PatchConstant),
            _ => None,
        };
        if let Some(role) = heading {
            section = Some(role);
            rows_started = false;
            *set.slot(role) = Some(Vec::new());
            continue;
        }
        let Some(role) = section else { continue };
        if body.is_empty() {
            if rows_started {
                section = None;
            }
            continue;
        }
        if body.starts_with("Name ") {
            continue;
        }
        if body.starts_with("---") {
            rows_started = true;
            continue;
        }
        if body.starts_with("no ") || !rows_started {
            section = None;
            continue;
        }
        // the row's kind only decides its role here; the chunk kind is
        // chosen once all rows are read
        let kind = match role {
            SignatureRole::Input => SignatureKind::Isgn,
            SignatureRole::Output => SignatureKind::Osgn,
            SignatureRole::PatchConstant => SignatureKind::Pcsg,
        };
        match SignatureElement::from_listing_row(line, line_start, kind, stage) {
            Ok(e) => {
                if let Some(v) = set.slot(role).as_mut() {
                    v.push(e);
                }
            }
            Err(d) => diags.push(d),
        }
    }
    if diags.is_empty() {
        Ok(set)
    } else {
        Err(Diagnostics(diags))
    }
}

/// Signatures for a listing without tables, one element per declared
/// register: system values by their `SV_` semantic (`SV_Position`,
/// `SV_TessFactor` …), pixel-shader outputs as `SV_Target` (and `SV_Depth`,
/// `SV_Coverage`, `SV_StencilRef` …), every other register as `TEXCOORD`
/// numbered in declaration order (`constant`-interpolated pixel inputs as
/// `int`, all others `float`); every declared component counts as used.
pub fn signatures_from_declarations(program: &Program) -> DerivedSignatures {
    let stage = program.version.program_type;
    let mut d = DerivedSignatures::default();
    let mut patch_phase = false;
    let mut stream = 0;
    for inst in &program.instructions {
        match inst.opcode {
            Opcode::HsForkPhase | Opcode::HsJoinPhase => patch_phase = true,
            Opcode::HsDecls | Opcode::HsControlPointPhase => patch_phase = false,
            Opcode::DclStream => {
                if let Some(Index::Imm32(n)) = inst.operands.first().and_then(|o| o.indices.first())
                {
                    stream = *n;
                }
            }
            _ => {}
        }
        let input = inst.opcode.declares_input();
        let output = inst.opcode.declares_output();
        if !input && !output {
            continue;
        }
        let Some(op) = inst.operands.first() else {
            continue;
        };
        let sv = match inst.payload {
            Payload::Name(sv) => Some(sv),
            _ => None,
        };
        let mask = match op.components {
            Components::Mask(m) => m,
            _ => 0xF,
        };
        let register = match op.indices.last() {
            Some(Index::Imm32(n)) => *n,
            _ => 0,
        };
        let (role, element) = match op.file {
            RegisterFile::Input | RegisterFile::InputControlPoint if input => {
                let mut e = element_for(sv, register, mask, true, stage);
                // constant interpolation is what integer inputs need
                if sv.is_none() && inst.controls.interpolation.0 == Interpolation::Constant {
                    e.component_type = ComponentType::Sint.number();
                }
                (SignatureRole::Input, e)
            }
            RegisterFile::InputPatchConstant if input => (
                SignatureRole::PatchConstant,
                element_for(sv, register, mask, true, stage),
            ),
            RegisterFile::InputPrimitiveId if input => (
                SignatureRole::Input,
                SignatureElement::for_system_value(SystemValue::PrimitiveId, NO_REGISTER, 1, 1),
            ),
            RegisterFile::Output if output => {
                let role = if stage == ProgramType::Hull && patch_phase {
                    SignatureRole::PatchConstant
                } else {
                    SignatureRole::Output
                };
                let mut e = element_for(sv, register, mask, false, stage);
                e.stream = stream;
                (role, e)
            }
            file if output => match SpecialOutput::of_file(file) {
                Some(special) => (
                    SignatureRole::Output,
                    SignatureElement::new(
                        special.semantic,
                        0,
                        0,
                        special.component.number(),
                        NO_REGISTER,
                        1,
                        0xE,
                    ),
                ),
                None => continue,
            },
            _ => continue,
        };
        d.push(role, element);
    }
    d.finish()
}

/// Derived signatures by role (always present, possibly empty).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DerivedSignatures {
    pub inputs: Vec<SignatureElement>,
    pub outputs: Vec<SignatureElement>,
    pub patch_constants: Vec<SignatureElement>,
}

impl DerivedSignatures {
    /// The elements of `role`.
    pub fn get(&self, role: SignatureRole) -> &[SignatureElement] {
        match role {
            SignatureRole::Input => &self.inputs,
            SignatureRole::Output => &self.outputs,
            SignatureRole::PatchConstant => &self.patch_constants,
        }
    }

    fn push(&mut self, role: SignatureRole, e: SignatureElement) {
        let list = match role {
            SignatureRole::Input => &mut self.inputs,
            SignatureRole::Output => &mut self.outputs,
            SignatureRole::PatchConstant => &mut self.patch_constants,
        };
        // hull and geometry shaders declare some registers more than once
        let same = |o: &SignatureElement| {
            o.stream == e.stream
                && o.register == e.register
                && o.mask == e.mask
                && o.semantic_name.starts_with("SV_") == e.semantic_name.starts_with("SV_")
                && (e.register != NO_REGISTER || o.semantic_name == e.semantic_name)
        };
        if !list.iter().any(same) {
            list.push(e);
        }
    }

    /// Orders the elements by stream, register and first component, and
    /// numbers the semantic indices of repeated names.
    fn finish(mut self) -> DerivedSignatures {
        for list in [
            &mut self.inputs,
            &mut self.outputs,
            &mut self.patch_constants,
        ] {
            list.sort_by_key(|e| (e.stream, e.register, e.mask.trailing_zeros()));
            let mut counts: Vec<(String, u32)> = Vec::new();
            for e in list.iter_mut() {
                if e.semantic_name == "SV_Target" || e.semantic_name.contains("TessFactor") {
                    continue;
                }
                let key = format!("{}#{}", e.stream, e.semantic_name);
                match counts.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, n)) => {
                        e.semantic_index = *n;
                        *n += 1;
                    }
                    None => counts.push((key, 1)),
                }
            }
        }
        self
    }
}

/// The element for a declared `v#`/`vicp`/`vpc#`/`o#` register.
fn element_for(
    sv: Option<SystemValue>,
    register: u32,
    mask: u8,
    input: bool,
    stage: ProgramType,
) -> SignatureElement {
    const FLOAT: u32 = ComponentType::Float as u32;
    let rw_mask = if input { mask } else { 0xF & !mask };
    let Some(sv) = sv.filter(|s| *s != SystemValue::Undefined) else {
        if !input && stage == ProgramType::Pixel {
            return SignatureElement::new("SV_Target", register, 0, FLOAT, register, mask, rw_mask);
        }
        return SignatureElement::new("TEXCOORD", 0, 0, FLOAT, register, mask, rw_mask);
    };
    SignatureElement::for_system_value(sv, register, mask, rw_mask)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::verify_checksum;

    const VS: &str = "//\n// Input signature:\n//\n\
// Name                 Index   Mask Register SysValue  Format   Used\n\
// -------------------- ----- ------ -------- -------- ------- ------\n\
// POSITION                 0   xyzw        0     NONE   float   xyzw\n\
//\n//\n// Output signature:\n//\n\
// Name                 Index   Mask Register SysValue  Format   Used\n\
// -------------------- ----- ------ -------- -------- ------- ------\n\
// SV_Position              0   xyzw        0      POS   float   xyzw\n\
//\nvs_4_0\ndcl_input v0.xyzw\ndcl_output_siv o0.xyzw, position\nmov o0.xyzw, v0.xyzw\nret \n";

    #[test]
    fn tables_become_signature_chunks_with_a_valid_checksum() {
        let a = assemble_listing(VS).unwrap();
        verify_checksum(&a.container).unwrap();
        assert_eq!(a.program_tag, tags::SHDR);
        assert_eq!(a.from_tables, vec![true, true]);
        let c = Container::parse(&a.container).unwrap();
        let names: Vec<String> = c.chunks.iter().map(|c| c.tag.name()).collect();
        assert_eq!(names, vec!["ISGN", "OSGN", "SHDR"]);
        let out = Signature::parse(SignatureKind::Osgn, &c.chunks[1].data).unwrap();
        assert_eq!(
            out.elements[0],
            SignatureElement::new("SV_Position", 0, 1, 3, 0, 0xF, 0)
        );
    }

    #[test]
    fn declarations_give_signatures_without_tables() {
        let ps = "ps_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\ndcl_input_ps_siv linear noperspective v0.xyzw, position\ndcl_input_ps linear v1.xy\ndcl_input_ps linear v1.zw\ndcl_input_ps_sgv constant v2.x, is_front_face\ndcl_output o0.xyzw\ndcl_output o1.xy\ndcl_output oDepth\nret \n";
        let a = assemble_listing(ps).unwrap();
        assert_eq!(a.from_tables, vec![false, false]);
        let inputs = &a.signatures[0].elements;
        let names: Vec<(&str, u32, u32)> = inputs
            .iter()
            .map(|e| (e.semantic_name.as_str(), e.semantic_index, e.register))
            .collect();
        assert_eq!(
            names,
            vec![
                ("SV_Position", 0, 0),
                ("TEXCOORD", 0, 1),
                ("TEXCOORD", 1, 1),
                ("SV_IsFrontFace", 0, 2)
            ]
        );
        let outputs = &a.signatures[1].elements;
        assert_eq!(
            outputs[1],
            SignatureElement::new("SV_Target", 1, 0, 3, 1, 0x3, 0xC)
        );
        assert_eq!(outputs[2].register, NO_REGISTER);
        assert_eq!(a.features, 0x1);
        assert_eq!(a.program_tag, tags::SHEX);
    }

    #[test]
    fn chunk_kinds_and_features_follow_fxc() {
        let gs =
            assemble_listing("gs_5_0\ndcl_inputprimitive point \ndcl_stream m0\ndcl_outputtopology pointlist \ndcl_output_siv o0.xyzw, position\ndcl_maxout 1\nret \n")
                .unwrap();
        assert_eq!(gs.signatures[1].kind, SignatureKind::Osg5);
        let hs = assemble_listing(
            "hs_5_0\nhs_decls \ndcl_input_control_point_count 3\ndcl_output_control_point_count 3\ndcl_tessellator_domain domain_tri\ndcl_tessellator_partitioning partitioning_integer\ndcl_tessellator_output_primitive output_triangle_cw\nhs_fork_phase \ndcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\nret \n",
        )
        .unwrap();
        let kinds: Vec<SignatureKind> = hs.signatures.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            vec![
                SignatureKind::Isgn,
                SignatureKind::Osgn,
                SignatureKind::Pcsg
            ]
        );
        assert_eq!(hs.signatures[2].elements[0].semantic_name, "SV_TessFactor");
        let cs4 = assemble_listing("cs_4_0\ndcl_thread_group 1, 1, 1\nret \n").unwrap();
        assert_eq!((cs4.program_tag, cs4.features), (tags::SHEX, 0x2));
        let rov = assemble_listing("ps_5_0\ndcl_uav_typed_texture2d_rov (float,float,float,float) u9\ndcl_output oStencilRef\ndcl_temps 1\nld_uav_typed r0.xy, l(0, 0, 0, 0), u9.xyzw\nmov oStencilRef, l(0)\nret \n").unwrap();
        assert_eq!(rov.features, 0x8 | 0x200 | 0x800 | 0x1000);
        let e = assemble_listing("lib_4_0\nret \n").unwrap_err();
        assert!(e.0[0].message.contains("library"), "{}", e.0[0].message);
    }

    const LIBRARY: &str = "//\n// Library:  flags 0, 2 functions:\n//   0  F\n//   1  G\n//\n\
// Created by:  Microsoft (R) HLSL Shader Compiler 10.1\n//\n//\n\
// Function parameter signature (return: yes, parameters: 1):\n//\n\
// Name                 SemanticName         In 1st,Num,Mask Out 1st,Num,Mask Type\n\
// -------------------- -------------------- --------------- ---------------- ----\n\
// F                    SV_TARGET                              o0    1   xyz  out float3\n\
// val                                        v2    3   xy     o1    3   xy   inout float2x3\n\
//\n//\n// Level9 shader bytecode:\n//\n    lib_4_0_ps_2_0\n    mov oT0.x, c0.x\n\n\
// approximately 1 instruction slots used\n\
lib_4_0\ndcl_output o0.xyz\nmov o0.xyz, l(1.0, 1.0, 1.0, 0)\nret \n\
// Approximately 2 instruction slots used\n\
// Function parameter signature (return: no, parameters: 0):\n//\n\
// Name                 SemanticName         In 1st,Num,Mask Out 1st,Num,Mask Type\n\
// -------------------- -------------------- --------------- ---------------- ----\n\
// G                                                                          void\n//\n\
lib_4_0\nret \n";

    #[test]
    fn library_listings_become_libf_containers_and_a_libh() {
        let a = assemble_listing(LIBRARY).unwrap();
        verify_checksum(&a.container).unwrap();
        let c = Container::parse(&a.container).unwrap();
        let names: Vec<String> = c.chunks.iter().map(|c| c.tag.name()).collect();
        assert_eq!(names, vec!["LIBF", "LIBF", "LIBH"]);
        let header = LibraryHeader::parse(&c.chunks[2].data).unwrap();
        let modes: Vec<(u32, &str)> = header
            .functions
            .iter()
            .map(|f| (f.mode, f.name.as_str()))
            .collect();
        assert_eq!(modes, vec![(2, "F"), (0, "G")]);
        assert_eq!(header.creator, "Microsoft (R) HLSL Shader Compiler 10.1");
        let f = Container::parse(&c.chunks[0].data).unwrap();
        let names: Vec<String> = f.chunks.iter().map(|c| c.tag.name()).collect();
        assert_eq!(names, vec!["LFS0", "SHDR"]);
        let sig = ParameterSignature::parse(&f.chunks[0].data).unwrap();
        let val = &sig.parameters[1];
        assert_eq!(
            (val.class, val.rows, val.columns, val.flags),
            (3, 3, 2, PARAMETER_IN | PARAMETER_OUT)
        );
        assert_eq!((val.first_in_register, val.first_out_register), (2, 1));
        // the printer lists the rebuilt table as it was written
        assert!(sig.listing().contains(
            "// val                                        v2    3   xy     o1    3   xy   inout float2x3"
        ));
        let g = &a.library.as_ref().unwrap().functions[1]
            .parameters
            .parameters[0];
        assert_eq!(
            (g.base_type, g.first_out_register),
            (0, NO_PARAMETER_REGISTER)
        );
    }

    #[test]
    fn library_banner_and_rows_are_checked() {
        let text = LIBRARY.replace("//   1  G\n", "");
        let e = assemble_listing(&text).unwrap_err();
        assert!(e.0[0].message.contains("announces 2 functions and names 1"));
        let text = LIBRARY.replace("3   xy   inout", "2   xy   inout");
        let e = assemble_listing(&text).unwrap_err();
        let span = e.0[0].primary.as_ref().unwrap().span;
        assert_eq!(&text[span.start..span.end], "2");
        let text = LIBRARY.replace("out float3", "out flaot3");
        let e = assemble_listing(&text).unwrap_err();
        let span = e.0[0].primary.as_ref().unwrap().span;
        assert_eq!(&text[span.start..span.end], "flaot3");
        assert_eq!(parameter_type_from("float2x3", true), Some((3, 2, 2, 3)));
        assert_eq!(parameter_type_from("uint", false), Some((19, 0, 1, 1)));
        assert_eq!(parameter_type_from("uint1", false), Some((19, 1, 1, 1)));
    }

    #[test]
    fn bad_table_rows_are_reported_at_their_column() {
        let text = VS.replace(
            "POSITION                 0   xyzw",
            "POSITION                 0   xqzw",
        );
        let e = assemble_listing(&text).unwrap_err();
        let span = e.0[0].primary.as_ref().unwrap().span;
        assert_eq!(&text[span.start..span.end], "xqzw");
    }
}
