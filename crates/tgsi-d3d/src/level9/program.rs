//! A Direct3D 9 shader program (vs_1_1 … ps_3_0, and the `lib_4_0_*`
//! programs of level-9 libraries) as an IR, with its token-stream decoder and
//! encoder. Decoding then encoding gives back the same bytes.
//!
//! Token layout (all little-endian 32-bit words): a version token, then
//! instructions and comments, then the end token `0x0000FFFF`.
//!
//! * instruction token: opcode in bits 0..16, opcode controls in 16..24, the
//!   number of following tokens in 24..28 (shader model 2 and later; zero
//!   before), predicated in bit 28, co-issue in bit 30, bit 31 clear;
//! * comment token: `0xFFFE` and the length in words in bits 16..31;
//! * parameter tokens have bit 31 set: register number in 0..11, register
//!   type in 28..31 (low bits) and 11..13 (high bits), relative addressing in
//!   bit 13; a destination adds the write mask (16..20), result modifiers
//!   (20..24) and the shift (24..28, signed); a source adds the swizzle
//!   (16..24) and the source modifier (24..28). From shader model 2 on a
//!   relatively addressed operand is followed by the address register token.

use super::tables::{
    COMMENT_OPCODE, DECL_USAGES, END_TOKEN, Layout, Opcode, RegisterFile, RegisterNaming,
    SAMPLER_TEXTURE_TYPES, SourceModifier,
};
use crate::DecodeError;

/// Which kind of program a version token announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderKind {
    Vertex,
    Pixel,
    /// A vertex function of a `lib_4_0_level_9_*` library.
    LibraryVertex,
    /// A pixel function of a `lib_4_0_level_9_*` library.
    LibraryPixel,
}

/// The version-token type codes (bits 16..32) and listing prefixes.
static SHADER_KINDS: &[(ShaderKind, u16, &str)] = &[
    (ShaderKind::Vertex, 0xFFFE, "vs"),
    (ShaderKind::Pixel, 0xFFFF, "ps"),
    (ShaderKind::LibraryVertex, 0x4C56, "lib_4_0_vs"),
    (ShaderKind::LibraryPixel, 0x4C50, "lib_4_0_ps"),
];

/// The version token of a program: kind, major and minor version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShaderVersion {
    pub kind: ShaderKind,
    pub major: u8,
    pub minor: u8,
}

impl ShaderVersion {
    /// Reads a version token; `None` if its type code is not a known kind.
    pub fn from_token(token: u32) -> Option<ShaderVersion> {
        let code = (token >> 16) as u16;
        let (kind, _, _) = SHADER_KINDS.iter().find(|(_, c, _)| *c == code)?;
        Some(ShaderVersion {
            kind: *kind,
            major: (token >> 8) as u8,
            minor: token as u8,
        })
    }

    /// The version token.
    pub fn token(self) -> u32 {
        let code = SHADER_KINDS
            .iter()
            .find(|(kind, _, _)| *kind == self.kind)
            .map_or(0, |(_, code, _)| *code);
        (u32::from(code) << 16) | (u32::from(self.major) << 8) | u32::from(self.minor)
    }

    /// True for pixel programs (library pixel functions included).
    pub fn is_pixel(self) -> bool {
        matches!(self.kind, ShaderKind::Pixel | ShaderKind::LibraryPixel)
    }

    /// The name fxc prints: `vs_2_0`, `ps_2_x` (minor 1 of model 2),
    /// `vs_3_sw` (minor 255), `lib_4_0_ps_2_0`.
    pub fn name(self) -> String {
        let prefix = SHADER_KINDS
            .iter()
            .find(|(kind, _, _)| *kind == self.kind)
            .map_or("", |(_, _, prefix)| *prefix);
        let minor = match (self.major, self.minor) {
            (_, 0xFF) => "sw".to_string(),
            (2, 1) => "x".to_string(),
            (_, minor) => minor.to_string(),
        };
        format!("{prefix}_{}_{minor}", self.major)
    }
}

/// A register: its file and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Register {
    pub file: RegisterFile,
    pub number: u16,
}

/// The address of a relatively addressed operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Relative {
    /// Shader model 1: no address token follows; the address is `a0.x`.
    Implicit,
    /// Shader model 2 and later: the address register token (`a0.x`, `aL`).
    Address(Box<Source>),
}

/// A source operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub register: Register,
    /// Four 2-bit component selectors, x in the low bits (`0xE4` = `.xyzw`).
    pub swizzle: u8,
    pub modifier: SourceModifier,
    pub relative: Option<Relative>,
}

/// A destination operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destination {
    pub register: Register,
    /// Bit 0 = x … bit 3 = w; never zero.
    pub write_mask: u8,
    pub saturate: bool,
    pub partial_precision: bool,
    pub centroid: bool,
    /// Result shift: 1 = `_x2`, 2 = `_x4`, -1 = `_d2`, … (range -8..=7).
    pub shift: i8,
    pub relative: Option<Relative>,
}

/// The usage token of a `dcl` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Declaration {
    /// Index into [`DECL_USAGES`].
    pub usage: u8,
    pub usage_index: u8,
    /// Index into [`SAMPLER_TEXTURE_TYPES`] (for `s#` declarations).
    pub texture_type: u8,
}

/// What follows an instruction token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    Regular {
        destination: Option<Destination>,
        /// The predicate of a predicated instruction (`(p0.x) mov …`).
        predicate: Option<Source>,
        sources: Vec<Source>,
    },
    Declaration {
        declaration: Declaration,
        destination: Destination,
    },
    DefineFloat {
        destination: Destination,
        /// The raw bits of the four floats.
        values: [u32; 4],
    },
    DefineInt {
        destination: Destination,
        values: [i32; 4],
    },
    DefineBool {
        destination: Destination,
        value: u32,
    },
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    pub opcode: Opcode,
    /// Opcode-specific controls (comparison of `if_*`, `texldp`/`texldb`).
    pub controls: u8,
    /// Shader model 1 pixel co-issue (`+` prefix).
    pub coissue: bool,
    pub body: Body,
}

/// An element of the token stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Instruction(Instruction),
    /// A comment block (`CTAB`, debug data …): its words after the comment
    /// token. Listings skip comments; the encoder keeps them.
    Comment(Vec<u32>),
}

/// A whole program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub version: ShaderVersion,
    pub items: Vec<Item>,
}

impl Program {
    /// The instructions, comments left out.
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.items.iter().filter_map(|item| match item {
            Item::Instruction(instruction) => Some(instruction),
            Item::Comment(_) => None,
        })
    }
}

const PARAMETER_BIT: u32 = 1 << 31;
const RELATIVE_BIT: u32 = 1 << 13;
const PARAMETER_RESERVED_BITS: u32 = 0b11 << 14;
const PREDICATED_BIT: u32 = 1 << 28;
const INSTRUCTION_RESERVED_BIT: u32 = 1 << 29;
const COISSUE_BIT: u32 = 1 << 30;
const RESULT_SATURATE: u32 = 1;
const RESULT_PARTIAL_PRECISION: u32 = 2;
const RESULT_CENTROID: u32 = 4;
/// Bits of a `dcl` usage token that carry nothing.
const DECLARATION_UNUSED_BITS: u32 = 0x07F0_FFE0;

/// Reads the words of one token stream, reporting byte offsets from its start.
struct Cursor<'a> {
    words: &'a [u32],
    /// Index of the next word.
    position: usize,
    /// Words at and after this index belong to something else.
    limit: usize,
}

impl Cursor<'_> {
    fn offset(&self) -> usize {
        self.position * 4
    }

    fn next(&mut self, what: &str) -> Result<u32, DecodeError> {
        if self.position >= self.limit {
            return Err(DecodeError::at(
                self.offset(),
                format!("expected {what}, found the end of the instruction"),
            ));
        }
        let word = self.words[self.position];
        self.position += 1;
        Ok(word)
    }

    fn exhausted(&self) -> bool {
        self.position >= self.limit
    }
}

/// Decodes a program from its bytes (version token to end token, nothing
/// after). Errors carry byte offsets from the first byte of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<Program, DecodeError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(DecodeError::at(
            bytes.len() - bytes.len() % 4,
            format!(
                "a Direct3D 9 token stream is whole 32-bit words, but it is {} bytes long",
                bytes.len()
            ),
        ));
    }
    let words = crate::blob::le_words(bytes);
    let Some(&version_token) = words.first() else {
        return Err(DecodeError::at(
            0,
            "expected a version token, found nothing",
        ));
    };
    let version = ShaderVersion::from_token(version_token).ok_or_else(|| {
        DecodeError::at(
            0,
            format!("0x{version_token:08x} is not a Direct3D 9 version token"),
        )
    })?;
    let mut cursor = Cursor {
        words: &words,
        position: 1,
        limit: words.len(),
    };
    let mut items = Vec::new();
    loop {
        let start = cursor.position;
        let Some(&token) = words.get(start) else {
            return Err(DecodeError::at(
                start * 4,
                "the program ends without an end token (0x0000ffff)",
            ));
        };
        if token == END_TOKEN {
            if start + 1 != words.len() {
                return Err(DecodeError::at(
                    (start + 1) * 4,
                    format!(
                        "{} bytes follow the end token",
                        (words.len() - start - 1) * 4
                    ),
                ));
            }
            break;
        }
        if token & 0xFFFF == u32::from(COMMENT_OPCODE) {
            if token & PARAMETER_BIT != 0 {
                return Err(DecodeError::at(start * 4, "comment token with bit 31 set"));
            }
            let length = ((token >> 16) & 0x7FFF) as usize;
            let end = start + 1 + length;
            if end > words.len() {
                return Err(DecodeError::at(
                    start * 4,
                    format!(
                        "comment of {length} words runs past the end of the program ({} words left)",
                        words.len() - start - 1
                    ),
                ));
            }
            items.push(Item::Comment(words[start + 1..end].to_vec()));
            cursor.position = end;
            continue;
        }
        let instruction = decode_instruction(&mut cursor, version)?;
        items.push(Item::Instruction(instruction));
    }
    Ok(Program { version, items })
}

fn decode_instruction(
    cursor: &mut Cursor<'_>,
    version: ShaderVersion,
) -> Result<Instruction, DecodeError> {
    let start = cursor.position;
    let token = cursor.next("an instruction token")?;
    let at = start * 4;
    if token & PARAMETER_BIT != 0 {
        return Err(DecodeError::at(
            at,
            format!("expected an instruction token, found parameter token 0x{token:08x}"),
        ));
    }
    if token & INSTRUCTION_RESERVED_BIT != 0 {
        return Err(DecodeError::at(
            at,
            format!("instruction token 0x{token:08x} sets reserved bit 29"),
        ));
    }
    let number = token as u16;
    let opcode = Opcode::from_number(number)
        .ok_or_else(|| DecodeError::at(at, format!("unknown Direct3D 9 opcode {number}")))?;
    let info = opcode.info();
    let controls = (token >> 16) as u8;
    check_controls(opcode, controls, version).map_err(|m| DecodeError::at(at, m))?;
    let length = ((token >> 24) & 0xF) as usize;
    let predicated = token & PREDICATED_BIT != 0;
    let coissue = token & COISSUE_BIT != 0;
    let outer_limit = cursor.limit;
    let counted = version.major >= 2;
    if counted {
        if start + 1 + length > cursor.limit {
            return Err(DecodeError::at(
                at,
                format!(
                    "{} declares {length} operand tokens, but only {} words are left",
                    info.name,
                    cursor.limit - start - 1
                ),
            ));
        }
        cursor.limit = start + 1 + length;
    } else if length != 0 {
        return Err(DecodeError::at(
            at,
            format!(
                "shader model {} instruction tokens carry no length, but this one says {length}",
                version.major
            ),
        ));
    }
    if predicated && !matches!(info.layout, Layout::Regular { .. }) {
        return Err(DecodeError::at(
            at,
            format!("{} cannot be predicated", info.name),
        ));
    }
    let body = match info.layout {
        Layout::Regular {
            destination,
            sources,
        } => {
            let destination = if destination {
                Some(decode_destination(cursor, version)?)
            } else {
                None
            };
            let predicate = if predicated {
                Some(decode_source(cursor, version)?)
            } else {
                None
            };
            let mut operands = Vec::new();
            if counted {
                while !cursor.exhausted() {
                    operands.push(decode_source(cursor, version)?);
                }
            } else {
                for _ in 0..model_one_source_count(opcode, sources, version) {
                    operands.push(decode_source(cursor, version)?);
                }
            }
            Body::Regular {
                destination,
                predicate,
                sources: operands,
            }
        }
        Layout::Declaration => {
            let usage_at = cursor.offset();
            let usage_token = cursor.next("a declaration usage token")?;
            let declaration = decode_declaration(usage_token)
                .map_err(|message| DecodeError::at(usage_at, message))?;
            let destination = decode_destination(cursor, version)?;
            Body::Declaration {
                declaration,
                destination,
            }
        }
        Layout::DefineFloat => {
            let destination = decode_destination(cursor, version)?;
            let mut values = [0u32; 4];
            for value in &mut values {
                *value = cursor.next("a constant value")?;
            }
            Body::DefineFloat {
                destination,
                values,
            }
        }
        Layout::DefineInt => {
            let destination = decode_destination(cursor, version)?;
            let mut values = [0i32; 4];
            for value in &mut values {
                *value = cursor.next("an integer constant value")? as i32;
            }
            Body::DefineInt {
                destination,
                values,
            }
        }
        Layout::DefineBool => {
            let destination = decode_destination(cursor, version)?;
            let value = cursor.next("a boolean constant value")?;
            Body::DefineBool { destination, value }
        }
    };
    if counted {
        if !cursor.exhausted() {
            return Err(DecodeError::at(
                cursor.offset(),
                format!(
                    "{} declares {length} operand tokens but uses {}",
                    info.name,
                    cursor.position - start - 1
                ),
            ));
        }
        cursor.limit = outer_limit;
    }
    Ok(Instruction {
        opcode,
        controls,
        coissue,
        body,
    })
}

/// Source counts of shader model 1, which encodes no instruction length.
fn model_one_source_count(opcode: Opcode, table_count: u8, version: ShaderVersion) -> u8 {
    let texcrd_era = version.is_pixel() && version.major == 1 && version.minor >= 4;
    match opcode {
        Opcode::Tex | Opcode::TexCoord if texcrd_era => 1,
        _ => table_count,
    }
}

/// Checks the opcode controls against what the opcode uses them for.
fn check_controls(opcode: Opcode, controls: u8, version: ShaderVersion) -> Result<(), String> {
    let info = opcode.info();
    let valid = match info.naming {
        super::tables::Naming::Comparison => {
            controls != 0 && usize::from(controls) < super::tables::COMPARISONS.len()
        }
        super::tables::Naming::TextureLoad if version.major >= 2 || version.minor >= 4 => {
            controls <= 2
        }
        _ => controls == 0,
    };
    if valid {
        Ok(())
    } else {
        Err(format!(
            "{} does not take instruction controls {controls}",
            info.name
        ))
    }
}

fn decode_declaration(token: u32) -> Result<Declaration, String> {
    if token & PARAMETER_BIT == 0 {
        return Err(format!(
            "declaration usage token 0x{token:08x} lacks bit 31"
        ));
    }
    if token & DECLARATION_UNUSED_BITS != 0 {
        return Err(format!(
            "declaration usage token 0x{token:08x} sets unused bits"
        ));
    }
    let usage = (token & 0x1F) as u8;
    let usage_index = ((token >> 16) & 0xF) as u8;
    let texture_type = ((token >> 27) & 0xF) as u8;
    if usize::from(usage) >= DECL_USAGES.len() {
        return Err(format!("unknown declaration usage {usage}"));
    }
    if usize::from(texture_type) >= SAMPLER_TEXTURE_TYPES.len() {
        return Err(format!("unknown sampler texture type {texture_type}"));
    }
    Ok(Declaration {
        usage,
        usage_index,
        texture_type,
    })
}

fn encode_declaration(declaration: Declaration) -> u32 {
    PARAMETER_BIT
        | u32::from(declaration.usage & 0x1F)
        | (u32::from(declaration.usage_index & 0xF) << 16)
        | (u32::from(declaration.texture_type & 0xF) << 27)
}

/// The register of a parameter token, checked against the register table.
fn decode_register(token: u32, at: usize) -> Result<Register, DecodeError> {
    if token & PARAMETER_BIT == 0 {
        return Err(DecodeError::at(
            at,
            format!("expected a parameter token (bit 31 set), found 0x{token:08x}"),
        ));
    }
    if token & PARAMETER_RESERVED_BITS != 0 {
        return Err(DecodeError::at(
            at,
            format!("parameter token 0x{token:08x} sets reserved bits 14..16"),
        ));
    }
    let type_number = (((token >> 28) & 0x7) | ((token >> 8) & 0x18)) as u8;
    let file = RegisterFile::from_number(type_number).ok_or_else(|| {
        DecodeError::at(
            at,
            format!("unknown Direct3D 9 register type {type_number}"),
        )
    })?;
    let number = (token & 0x7FF) as u16;
    if let RegisterNaming::Named(names) = file.info().naming
        && usize::from(number) >= names.len()
    {
        return Err(DecodeError::at(
            at,
            format!("register {file:?} has no number {number}"),
        ));
    }
    Ok(Register { file, number })
}

fn encode_register(register: Register) -> u32 {
    let type_number = register.file as u32;
    PARAMETER_BIT
        | (u32::from(register.number) & 0x7FF)
        | ((type_number & 0x7) << 28)
        | ((type_number & 0x18) << 8)
}

fn decode_relative(
    token: u32,
    cursor: &mut Cursor<'_>,
    version: ShaderVersion,
) -> Result<Option<Relative>, DecodeError> {
    if token & RELATIVE_BIT == 0 {
        return Ok(None);
    }
    if version.major < 2 {
        return Ok(Some(Relative::Implicit));
    }
    let at = cursor.offset();
    let address_token = cursor.next("an address register token")?;
    if address_token & RELATIVE_BIT != 0 {
        return Err(DecodeError::at(
            at,
            "an address register token cannot itself be relatively addressed",
        ));
    }
    let address = source_fields(address_token, at, None)?;
    Ok(Some(Relative::Address(Box::new(address))))
}

fn source_fields(token: u32, at: usize, relative: Option<Relative>) -> Result<Source, DecodeError> {
    let register = decode_register(token, at)?;
    let modifier_number = ((token >> 24) & 0xF) as u8;
    let modifier = SourceModifier::from_number(modifier_number)
        .ok_or_else(|| DecodeError::at(at, format!("unknown source modifier {modifier_number}")))?;
    Ok(Source {
        register,
        swizzle: (token >> 16) as u8,
        modifier,
        relative,
    })
}

fn decode_source(cursor: &mut Cursor<'_>, version: ShaderVersion) -> Result<Source, DecodeError> {
    let at = cursor.offset();
    let token = cursor.next("a source operand")?;
    // Check the token itself before reading what may follow it.
    decode_register(token, at)?;
    let relative = decode_relative(token, cursor, version)?;
    source_fields(token, at, relative)
}

fn decode_destination(
    cursor: &mut Cursor<'_>,
    version: ShaderVersion,
) -> Result<Destination, DecodeError> {
    let at = cursor.offset();
    let token = cursor.next("a destination operand")?;
    let register = decode_register(token, at)?;
    let write_mask = ((token >> 16) & 0xF) as u8;
    if write_mask == 0 {
        return Err(DecodeError::at(at, "destination write mask is empty"));
    }
    let modifiers = (token >> 20) & 0xF;
    if modifiers & !(RESULT_SATURATE | RESULT_PARTIAL_PRECISION | RESULT_CENTROID) != 0 {
        return Err(DecodeError::at(
            at,
            format!("unknown result modifier bits 0x{modifiers:x}"),
        ));
    }
    // A 4-bit two's-complement field.
    let shift = (((token >> 24) & 0xF) as i8) << 4 >> 4;
    let relative = decode_relative(token, cursor, version)?;
    Ok(Destination {
        register,
        write_mask,
        saturate: modifiers & RESULT_SATURATE != 0,
        partial_precision: modifiers & RESULT_PARTIAL_PRECISION != 0,
        centroid: modifiers & RESULT_CENTROID != 0,
        shift,
        relative,
    })
}

fn encode_relative(relative: &Option<Relative>, words: &mut Vec<u32>) {
    if let Some(Relative::Address(address)) = relative {
        encode_source(address, words);
    }
}

fn encode_source(source: &Source, words: &mut Vec<u32>) {
    let mut token = encode_register(source.register)
        | (u32::from(source.swizzle) << 16)
        | ((source.modifier as u32) << 24);
    if source.relative.is_some() {
        token |= RELATIVE_BIT;
    }
    words.push(token);
    encode_relative(&source.relative, words);
}

fn encode_destination(destination: &Destination, words: &mut Vec<u32>) {
    let mut modifiers = 0;
    if destination.saturate {
        modifiers |= RESULT_SATURATE;
    }
    if destination.partial_precision {
        modifiers |= RESULT_PARTIAL_PRECISION;
    }
    if destination.centroid {
        modifiers |= RESULT_CENTROID;
    }
    let mut token = encode_register(destination.register)
        | (u32::from(destination.write_mask & 0xF) << 16)
        | (modifiers << 20)
        | ((destination.shift as u32 & 0xF) << 24);
    if destination.relative.is_some() {
        token |= RELATIVE_BIT;
    }
    words.push(token);
    encode_relative(&destination.relative, words);
}

/// Encodes a program back to bytes. (A comment longer than 0x7FFF words or
/// an instruction with more than 15 operand tokens has no encoding; the
/// decoder never produces one.)
pub fn encode(program: &Program) -> Vec<u8> {
    let mut words = vec![program.version.token()];
    for item in &program.items {
        match item {
            Item::Comment(body) => {
                words.push(u32::from(COMMENT_OPCODE) | ((body.len() as u32 & 0x7FFF) << 16));
                words.extend_from_slice(body);
            }
            Item::Instruction(instruction) => {
                encode_instruction(instruction, program.version, &mut words);
            }
        }
    }
    words.push(END_TOKEN);
    crate::blob::le_bytes(&words)
}

fn encode_instruction(instruction: &Instruction, version: ShaderVersion, words: &mut Vec<u32>) {
    let mut operands = Vec::new();
    let mut predicated = false;
    match &instruction.body {
        Body::Regular {
            destination,
            predicate,
            sources,
        } => {
            if let Some(destination) = destination {
                encode_destination(destination, &mut operands);
            }
            if let Some(predicate) = predicate {
                predicated = true;
                encode_source(predicate, &mut operands);
            }
            for source in sources {
                encode_source(source, &mut operands);
            }
        }
        Body::Declaration {
            declaration,
            destination,
        } => {
            operands.push(encode_declaration(*declaration));
            encode_destination(destination, &mut operands);
        }
        Body::DefineFloat {
            destination,
            values,
        } => {
            encode_destination(destination, &mut operands);
            operands.extend_from_slice(values);
        }
        Body::DefineInt {
            destination,
            values,
        } => {
            encode_destination(destination, &mut operands);
            operands.extend(values.iter().map(|v| *v as u32));
        }
        Body::DefineBool { destination, value } => {
            encode_destination(destination, &mut operands);
            operands.push(*value);
        }
    }
    let mut token = u32::from(instruction.opcode as u16) | (u32::from(instruction.controls) << 16);
    if version.major >= 2 {
        token |= (operands.len() as u32 & 0xF) << 24;
    }
    if predicated {
        token |= PREDICATED_BIT;
    }
    if instruction.coissue {
        token |= COISSUE_BIT;
    }
    words.push(token);
    words.extend(operands);
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::blob::le_bytes as bytes;

    fn round_trip(words: &[u32]) -> Program {
        let data = bytes(words);
        let program = decode(&data).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(encode(&program), data, "encode gives back the bytes");
        program
    }

    #[test]
    fn version_names() {
        let name = |t| ShaderVersion::from_token(t).unwrap().name();
        assert_eq!(name(0xFFFE_0200), "vs_2_0");
        assert_eq!(name(0xFFFE_0201), "vs_2_x");
        assert_eq!(name(0xFFFF_0201), "ps_2_x");
        assert_eq!(name(0xFFFF_0300), "ps_3_0");
        assert_eq!(name(0xFFFE_03FF), "vs_3_sw");
        assert_eq!(name(0xFFFF_0104), "ps_1_4");
        assert_eq!(name(0x4C56_0200), "lib_4_0_vs_2_0");
        assert_eq!(name(0x4C50_0201), "lib_4_0_ps_2_x");
        assert_eq!(ShaderVersion::from_token(0x1234_0200), None);
        let v = ShaderVersion::from_token(0x4C50_0201).unwrap();
        assert_eq!(v.token(), 0x4C50_0201);
        assert!(v.is_pixel());
    }

    #[test]
    fn decodes_a_vs_2_0_program() {
        // vs_2_0; dcl_texcoord1 v1; dp4 oPos.z, v0, c3; mov oT1, v2
        let program = round_trip(&[
            0xFFFE_0200,
            0x0200_001F,
            0x8001_0005,
            0x900F_0001,
            0x0300_0009,
            0xC004_0000,
            0x90E4_0000,
            0xA0E4_0003,
            0x0200_0001,
            0xE00F_0001,
            0x90E4_0002,
            END_TOKEN,
        ]);
        let instructions: Vec<_> = program.instructions().collect();
        assert_eq!(instructions.len(), 3);
        let Body::Declaration { declaration, .. } = &instructions[0].body else {
            panic!("dcl decodes as a declaration");
        };
        assert_eq!((declaration.usage, declaration.usage_index), (5, 1));
        let Body::Regular {
            destination: Some(destination),
            sources,
            ..
        } = &instructions[1].body
        else {
            panic!("dp4 has a destination");
        };
        assert_eq!(destination.register.file, RegisterFile::RasterizerOut);
        assert_eq!(destination.write_mask, 0b0100);
        assert_eq!(sources[1].register.file, RegisterFile::Const);
        assert_eq!(sources[1].register.number, 3);
    }

    #[test]
    fn relative_addressing_and_predication_read_their_extra_tokens() {
        // vs_2_x; (p0.x) mov r0, -c5[a0.y]
        let program = round_trip(&[
            0xFFFE_0201,
            0x1400_0001,
            0x800F_0000,
            0xB000_1000, // p0.xxxx: type 19 = 0b10011 → low 3 bits 3, high 2 bits 2
            0xA1E4_2005,
            0xB055_0000,
            END_TOKEN,
        ]);
        let instruction = program.instructions().next().unwrap();
        let Body::Regular {
            predicate: Some(predicate),
            sources,
            ..
        } = &instruction.body
        else {
            panic!("predicated mov");
        };
        assert_eq!(predicate.register.file, RegisterFile::Predicate);
        assert_eq!(sources[0].modifier, SourceModifier::Negate);
        let Some(Relative::Address(address)) = &sources[0].relative else {
            panic!("relative source");
        };
        assert_eq!(address.register.file, RegisterFile::AddressTexture);
        assert_eq!(address.swizzle, 0x55);
    }

    #[test]
    fn model_one_reads_counts_from_the_table() {
        // vs_1_1; mov r0, c0[a0.x]; ps_1_4 texld r0, t0
        let program = round_trip(&[
            0xFFFE_0101,
            0x0000_0001,
            0x800F_0000,
            0xA0E4_2000,
            END_TOKEN,
        ]);
        let instruction = program.instructions().next().unwrap();
        let Body::Regular { sources, .. } = &instruction.body else {
            panic!("mov");
        };
        assert_eq!(sources[0].relative, Some(Relative::Implicit));
        let program = round_trip(&[
            0xFFFF_0104,
            0x0000_0042,
            0x800F_0000,
            0xB0E4_0000,
            END_TOKEN,
        ]);
        let Body::Regular { sources, .. } = &program.instructions().next().unwrap().body else {
            panic!("texld");
        };
        assert_eq!(sources.len(), 1);
        let program = round_trip(&[0xFFFF_0101, 0x0000_0042, 0xB00F_0000, END_TOKEN]);
        let Body::Regular { sources, .. } = &program.instructions().next().unwrap().body else {
            panic!("tex");
        };
        assert!(sources.is_empty());
    }

    #[test]
    fn comments_are_kept_and_definitions_read_raw_values() {
        let program = round_trip(&[
            0xFFFF_0200,
            0x0002_FFFE,
            0x4241_5443,
            0x0000_0000,
            0x0500_0051,
            0xA00F_0006,
            0x3F80_0000,
            0x0000_0000,
            0xBF00_0000,
            0x8000_0000,
            0x0500_0030,
            0xF00F_0000,
            0x0000_00FF,
            0xFFFF_FFFF,
            0x0000_0001,
            0x0000_0000,
            0x0200_002F,
            0xE00F_0800,
            0x0000_0001,
            END_TOKEN,
        ]);
        assert_eq!(program.items.len(), 4);
        assert!(matches!(&program.items[0], Item::Comment(words) if words.len() == 2));
        let Item::Instruction(Instruction {
            body: Body::DefineInt { values, .. },
            ..
        }) = &program.items[2]
        else {
            panic!("defi");
        };
        assert_eq!(values, &[255, -1, 1, 0]);
    }

    #[test]
    fn errors_name_the_offending_word() {
        let error =
            decode(&bytes(&[0xFFFE_0200, 0x0300_0002, 0x800F_0000, END_TOKEN])).unwrap_err();
        assert_eq!(error.offset, 4, "{error}");
        let error = decode(&bytes(&[0xFFFE_0200, 0x0000_004B, END_TOKEN])).unwrap_err();
        assert!(
            error.message.contains("unknown Direct3D 9 opcode 75"),
            "{error}"
        );
        let error = decode(&bytes(&[
            0xFFFE_0200,
            0x0200_0001,
            0x800F_0000,
            0x90E4_0000,
        ]))
        .unwrap_err();
        assert_eq!(error.offset, 16, "{error}");
        assert!(error.message.contains("end token"), "{error}");
        let error = decode(&bytes(&[
            0xFFFE_0200,
            0x0200_0001,
            0x800F_0000,
            0x00E4_0000,
            END_TOKEN,
        ]))
        .unwrap_err();
        assert_eq!(error.offset, 12, "{error}");
        let error = decode(&bytes(&[
            0xFFFE_0200,
            0x0200_0001,
            0x8000_0000,
            0x90E4_0000,
            END_TOKEN,
        ]))
        .unwrap_err();
        assert!(error.message.contains("write mask"), "{error}");
        let error = decode(&bytes(&[0xFFFE_0200, END_TOKEN, 0])).unwrap_err();
        assert_eq!(error.offset, 8, "{error}");
        let error = decode(&[0, 2, 0xFE, 0xFF, 1]).unwrap_err();
        assert_eq!(error.offset, 4, "{error}");
        let error = decode(&bytes(&[
            0xFFFE_0200,
            0x0201_0001,
            0x800F_0000,
            0x90E4_0000,
            END_TOKEN,
        ]))
        .unwrap_err();
        assert!(error.message.contains("controls"), "{error}");
    }
}
