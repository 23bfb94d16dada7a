//! The Direct3D 9 programs fxc embeds for feature level 9 (`*_4_0_level_9_x`
//! targets): the `Aon9` chunk (the level-9 program), and for some blobs
//! `XNAP` (XNA prepass) and `XNAS` (XNA) chunks of the same shape. This
//! module owns their payload layout, the Direct3D 9 token stream inside them
//! ([`program`], tables in [`tables`]) and the text fxc prints for them at
//! the end of an SM4 listing's `//` header ([`mod@print`], [`level9_sections`]).
//!
//! Payload layout (little-endian; offsets from the first payload byte):
//!
//! | offset | field |
//! |---|---|
//! | 0 | u32 payload size in bytes |
//! | 4 | u32 Direct3D 9 version token (model 2 minor 0 even for `*_2_x` programs) |
//! | 8 | u32 size of the token stream in bytes |
//! | 12 | u32 offset of the token stream |
//! | 16 | u16 count, u16 offset: constant-buffer mappings (12 bytes each) |
//! | 20 | u16 count, u16 offset: loop-register mappings |
//! | 24 | u16 count, u16 offset: a table no corpus blob uses |
//! | 28 | u16 count, u16 offset: sampler mappings (4 bytes each) |
//! | 32 | u16 count, u16 offset: runtime-generated constants (4 bytes each) |
//!
//! fxc places the tables right after the 36-byte header in the order
//! samplers, constant buffers, loop registers, the unused table, runtime
//! constants, then the token stream; an empty table's offset is where it
//! would start. [`encode`] writes that layout; [`decode`] follows whatever
//! offsets it is given.
//!
//! A constant-buffer mapping is u16 buffer, u16 first register, u16
//! register count, u16 target `c#`, then one data-conversion byte per
//! component. A sampler mapping is four bytes: source resource `t#`, source
//! sampler `s#`, target sampler `s#`, and a byte that is zero in every corpus
//! blob (kept as is). A runtime-constant mapping is u16 kind and u16 target
//! `c#`. In the corpus every sampler maps `t#` to the `s#` of the same number
//! and the one runtime constant has kind 0 and target 0, so the order of
//! those two field pairs is not confirmed by data (it follows DXDecompiler's
//! reading). No corpus blob has a loop-register mapping or an entry in the
//! unused table: [`decode`] rejects such payloads instead of guessing their
//! record layout.

pub mod print;
pub mod program;
pub mod tables;

use crate::DecodeError;
use crate::blob::{Bytes, Writer};
use crate::container::{Container, tags};
use crate::enums::d3d_enum;
use program::{Program, ShaderVersion};

/// The chunks that carry a level-9 program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level9ChunkKind {
    /// `Aon9`: the program the Direct3D 11 runtime runs on level-9 hardware.
    Level9,
    /// `XNAP`: the XNA prepass program.
    XnaPrepass,
    /// `XNAS`: the XNA program.
    Xna,
}

/// One row of the chunk-kind table.
#[derive(Clone, Copy, Debug)]
pub struct Level9ChunkInfo {
    pub kind: Level9ChunkKind,
    pub fourcc: [u8; 4],
    /// The title line of its listing section, without `// `.
    pub title: &'static str,
}

/// The level-9 chunks, in the order fxc lists them (independent of their
/// order in the container: `Aon9` chunks first, in file order, then `XNAP`,
/// then `XNAS`).
pub static LEVEL9_CHUNKS: &[Level9ChunkInfo] = &[
    Level9ChunkInfo {
        kind: Level9ChunkKind::Level9,
        fourcc: tags::AON9.0,
        title: "Level9 shader bytecode:",
    },
    Level9ChunkInfo {
        kind: Level9ChunkKind::XnaPrepass,
        fourcc: tags::XNAP.0,
        title: "XNA Prepass shader bytecode:",
    },
    Level9ChunkInfo {
        kind: Level9ChunkKind::Xna,
        fourcc: tags::XNAS.0,
        title: "XNA shader bytecode:",
    },
];

impl Level9ChunkKind {
    /// The kind of a chunk FourCC, if it carries a level-9 program.
    pub fn from_fourcc(fourcc: [u8; 4]) -> Option<Level9ChunkKind> {
        LEVEL9_CHUNKS
            .iter()
            .find(|row| row.fourcc == fourcc)
            .map(|row| row.kind)
    }

    /// The table row of this kind.
    pub fn info(self) -> &'static Level9ChunkInfo {
        LEVEL9_CHUNKS
            .iter()
            .find(|row| row.kind == self)
            .expect("every Level9ChunkKind has a table row")
    }

    fn print_rank(self) -> usize {
        LEVEL9_CHUNKS
            .iter()
            .position(|row| row.kind == self)
            .unwrap_or(usize::MAX)
    }
}

d3d_enum! {
    /// How the runtime converts one component of a constant-buffer value into
    /// a Direct3D 9 float constant; the name is the `Data Conversion` column's.
    DataConversion {
        Float = 0 "FLT",
        /// no corpus blob uses it (name as DXDecompiler reads it)
        Bool = 1 "BOOL",
        Int = 2 "INT",
        Uint = 3 "UINT",
    }
}

/// Constant-buffer registers copied into Direct3D 9 float constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstantBufferMapping {
    /// First target register `c#`.
    pub target_register: u16,
    /// Constant buffer `cb#`.
    pub buffer: u16,
    /// First 16-byte register in the buffer.
    pub start_register: u16,
    pub register_count: u16,
    pub conversions: [DataConversion; 4],
}

/// A Direct3D 9 sampler fed by a Direct3D 11 sampler and resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerMapping {
    pub target_sampler: u8,
    pub source_sampler: u8,
    pub source_resource: u8,
    /// The fourth byte of the record (zero in every corpus blob).
    pub reserved: u8,
}

d3d_enum! {
    /// Constants the runtime fills in itself; the name is the `Constant
    /// Description` column's.
    RuntimeConstant {
        VertexShaderPositionOffset = 0 "Vertex Shader position offset",
    }
}

/// A runtime-generated constant and the register it lands in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuntimeConstantMapping {
    pub constant: RuntimeConstant,
    pub target_register: u16,
}

/// The decoded payload of an `Aon9`, `XNAP` or `XNAS` chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level9Shader {
    /// The version token of the header (which says minor 0 where the
    /// program's own token says `2_x`).
    pub header_version: ShaderVersion,
    pub constant_buffer_mappings: Vec<ConstantBufferMapping>,
    pub sampler_mappings: Vec<SamplerMapping>,
    pub runtime_constant_mappings: Vec<RuntimeConstantMapping>,
    pub program: Program,
}

const HEADER_SIZE: usize = 36;
const CONSTANT_BUFFER_MAPPING_SIZE: usize = 12;
const SAMPLER_MAPPING_SIZE: usize = 4;
const RUNTIME_CONSTANT_MAPPING_SIZE: usize = 4;

/// The byte range of a table, checked against the payload.
fn table_range(
    b: Bytes,
    field_offset: usize,
    record_size: usize,
    what: &str,
) -> Result<(usize, usize), DecodeError> {
    let payload = b.data();
    let count = usize::from(b.u16(field_offset, what)?);
    let start = usize::from(b.u16(field_offset + 2, what)?);
    let end = start + count * record_size;
    if count > 0 && (start < HEADER_SIZE || end > payload.len()) {
        return Err(DecodeError::at(
            field_offset,
            format!(
                "{count} {what} at offset {start} ({record_size} bytes each) do not fit in the {}-byte payload after its {HEADER_SIZE}-byte header",
                payload.len()
            ),
        ));
    }
    Ok((start, count))
}

/// Decodes an `Aon9`/`XNAP`/`XNAS` payload. Errors carry byte offsets from
/// the first payload byte (shift them with [`DecodeError::shifted`]).
pub fn decode(payload: &[u8]) -> Result<Level9Shader, DecodeError> {
    if payload.len() < HEADER_SIZE {
        return Err(DecodeError::at(
            payload.len(),
            format!(
                "a level-9 chunk starts with a {HEADER_SIZE}-byte header, but the payload is {} bytes",
                payload.len()
            ),
        ));
    }
    let b = Bytes::new(payload);
    let declared_size = b.u32(0, "level-9 chunk size")?;
    if declared_size as usize != payload.len() {
        return Err(DecodeError::at(
            0,
            format!(
                "the header says the chunk is {declared_size} bytes, but the payload is {}",
                payload.len()
            ),
        ));
    }
    let version_token = b.u32(4, "Direct3D 9 version token")?;
    let header_version = ShaderVersion::from_token(version_token).ok_or_else(|| {
        DecodeError::at(
            4,
            format!("0x{version_token:08x} is not a Direct3D 9 version token"),
        )
    })?;
    let program_size = b.u32(8, "token stream size")? as usize;
    let program_offset = b.u32(12, "token stream offset")? as usize;
    if program_offset < HEADER_SIZE
        || program_offset > payload.len()
        || program_size > payload.len() - program_offset
    {
        return Err(DecodeError::at(
            8,
            format!(
                "the token stream ({program_size} bytes at offset {program_offset}) does not fit in the {}-byte payload after its header",
                payload.len()
            ),
        ));
    }

    let (start, count) = table_range(
        b,
        16,
        CONSTANT_BUFFER_MAPPING_SIZE,
        "constant-buffer mappings",
    )?;
    let mut constant_buffer_mappings = Vec::with_capacity(count);
    for record in 0..count {
        let at = start + record * CONSTANT_BUFFER_MAPPING_SIZE;
        let mut conversions = [DataConversion::Float; 4];
        for (component, conversion) in conversions.iter_mut().enumerate() {
            let byte = payload[at + 8 + component];
            *conversion = DataConversion::from_u32(byte.into()).ok_or_else(|| {
                DecodeError::at(
                    at + 8 + component,
                    format!("unknown data conversion {byte}"),
                )
            })?;
        }
        constant_buffer_mappings.push(ConstantBufferMapping {
            buffer: b.u16(at, "constant-buffer mapping")?,
            start_register: b.u16(at + 2, "constant-buffer mapping")?,
            register_count: b.u16(at + 4, "constant-buffer mapping")?,
            target_register: b.u16(at + 6, "constant-buffer mapping")?,
            conversions,
        });
    }

    for (field, what) in [
        (20, "loop-register mappings"),
        (24, "entries of the fourth mapping table"),
    ] {
        let count = b.u16(field, what)?;
        if count != 0 {
            return Err(DecodeError::at(
                field,
                format!(
                    "{count} {what}: no corpus blob has any, so their record layout is unknown and they are not decoded"
                ),
            ));
        }
    }

    let (start, count) = table_range(b, 28, SAMPLER_MAPPING_SIZE, "sampler mappings")?;
    let sampler_mappings = (0..count)
        .map(|record| {
            let at = start + record * SAMPLER_MAPPING_SIZE;
            SamplerMapping {
                source_resource: payload[at],
                source_sampler: payload[at + 1],
                target_sampler: payload[at + 2],
                reserved: payload[at + 3],
            }
        })
        .collect();

    let (start, count) = table_range(
        b,
        32,
        RUNTIME_CONSTANT_MAPPING_SIZE,
        "runtime constant mappings",
    )?;
    let mut runtime_constant_mappings = Vec::with_capacity(count);
    for record in 0..count {
        let at = start + record * RUNTIME_CONSTANT_MAPPING_SIZE;
        let number = b.u16(at, "runtime constant mapping")?;
        let constant = RuntimeConstant::from_u32(number.into()).ok_or_else(|| {
            DecodeError::at(at, format!("unknown runtime constant kind {number}"))
        })?;
        runtime_constant_mappings.push(RuntimeConstantMapping {
            constant,
            target_register: b.u16(at + 2, "runtime constant mapping")?,
        });
    }

    let program = program::decode(&payload[program_offset..program_offset + program_size])
        .map_err(|e| e.shifted(program_offset))?;
    Ok(Level9Shader {
        header_version,
        constant_buffer_mappings,
        sampler_mappings,
        runtime_constant_mappings,
        program,
    })
}

/// Encodes a level-9 payload in fxc's layout (see the module docs).
pub fn encode(shader: &Level9Shader) -> Vec<u8> {
    let samplers_at = HEADER_SIZE;
    let constant_buffers_at = samplers_at + shader.sampler_mappings.len() * SAMPLER_MAPPING_SIZE;
    let empty_tables_at =
        constant_buffers_at + shader.constant_buffer_mappings.len() * CONSTANT_BUFFER_MAPPING_SIZE;
    let runtime_at = empty_tables_at;
    let program_at =
        runtime_at + shader.runtime_constant_mappings.len() * RUNTIME_CONSTANT_MAPPING_SIZE;
    let program = program::encode(&shader.program);
    let total = program_at + program.len();

    let mut out = Writer::new();
    let table = |out: &mut Writer, count: usize, at: usize| {
        out.u16(count as u16);
        out.u16(at as u16);
    };
    out.u32(total as u32);
    out.u32(shader.header_version.token());
    out.u32(program.len() as u32);
    out.u32(program_at as u32);
    table(
        &mut out,
        shader.constant_buffer_mappings.len(),
        constant_buffers_at,
    );
    table(&mut out, 0, empty_tables_at);
    table(&mut out, 0, empty_tables_at);
    table(&mut out, shader.sampler_mappings.len(), samplers_at);
    table(&mut out, shader.runtime_constant_mappings.len(), runtime_at);
    for mapping in &shader.sampler_mappings {
        out.raw(&[
            mapping.source_resource,
            mapping.source_sampler,
            mapping.target_sampler,
            mapping.reserved,
        ]);
    }
    for mapping in &shader.constant_buffer_mappings {
        for field in [
            mapping.buffer,
            mapping.start_register,
            mapping.register_count,
            mapping.target_register,
        ] {
            out.u16(field);
        }
        for conversion in mapping.conversions {
            out.raw(&[conversion.number() as u8]);
        }
    }
    for mapping in &shader.runtime_constant_mappings {
        out.u16(mapping.constant.number() as u16);
        out.u16(mapping.target_register);
    }
    out.raw(&program);
    out.finish()
}

/// The listing section of one level-9 chunk: its mapping tables (each
/// closed by two `//` lines), the title, `//`, the program and the slot
/// summary. Starts with the first table's title line (or the program title)
/// and ends with the summary line and its `\n`. Sampler rows are sorted by
/// target sampler (corpus blobs store them in that order already, so the
/// sort is not confirmed by data).
pub fn section_text(kind: Level9ChunkKind, shader: &Level9Shader) -> String {
    let mut out = String::new();
    if !shader.constant_buffer_mappings.is_empty() {
        out.push_str("// Constant buffer to DX9 shader constant mappings:\n//\n");
        out.push_str("// Target Reg Buffer  Start Reg # of Regs        Data Conversion\n");
        out.push_str("// ---------- ------- --------- --------- ----------------------\n");
        for mapping in &shader.constant_buffer_mappings {
            let conversions: Vec<String> = mapping
                .conversions
                .iter()
                .map(|c| format!("{:>4}", c.name()))
                .collect();
            out.push_str(&format!(
                "// c{:<9} cb{:<5} {:>9} {:>9} {:>22}\n",
                mapping.target_register,
                mapping.buffer,
                mapping.start_register,
                mapping.register_count,
                format!("({})", conversions.join(","))
            ));
        }
        out.push_str("//\n//\n");
    }
    if !shader.sampler_mappings.is_empty() {
        out.push_str("// Sampler/Resource to DX9 shader sampler mappings:\n//\n");
        out.push_str("// Target Sampler Source Sampler  Source Resource\n");
        out.push_str("// -------------- --------------- ----------------\n");
        let mut mappings = shader.sampler_mappings.clone();
        mappings.sort_by_key(|m| m.target_sampler);
        for mapping in &mappings {
            out.push_str(&format!(
                "// s{:<13} s{:<14} t{:<15} \n",
                mapping.target_sampler, mapping.source_sampler, mapping.source_resource
            ));
        }
        out.push_str("//\n//\n");
    }
    if !shader.runtime_constant_mappings.is_empty() {
        out.push_str("// Runtime generated constant mappings:\n//\n");
        out.push_str("// Target Reg                               Constant Description\n");
        out.push_str("// ---------- --------------------------------------------------\n");
        for mapping in &shader.runtime_constant_mappings {
            out.push_str(&format!(
                "// c{:<9} {:>50}\n",
                mapping.target_register,
                mapping.constant.name()
            ));
        }
        out.push_str("//\n//\n");
    }
    out.push_str("// ");
    out.push_str(kind.info().title);
    out.push_str("\n//\n");
    out.push_str(&print::listing(&shader.program));
    out
}

/// The level-9 part of an fxc listing header for one container; `None` when
/// no chunk is `Aon9`, `XNAP` or `XNAS`.
///
/// Sections come in fxc's order: every `Aon9` chunk in file order, then
/// `XNAP`, then `XNAS` (fxc does not follow file order: its blobs store
/// `XNAS`, `XNAP`, `Aon9`). Consecutive sections are separated by one `//`
/// line.
///
/// **Where the text goes.** The returned text starts with the first
/// section's first line (`// Constant buffer to DX9 shader constant
/// mappings:`, `// Sampler/Resource to DX9 shader sampler mappings:`,
/// `// Runtime generated constant mappings:` or `// Level9 shader
/// bytecode:`) and ends with the last section's `// approximately N
/// instruction slots used…` line including its `\n`. fxc prints it after the
/// header's usual last block (the output signature, or a library function's
/// parameter signature) and that block's closing `//` line, preceded by one
/// more `//` line; the SM4 program (`vs_4_0`, `lib_4_0`, …) follows on the
/// very next line. So a header that normally ends
/// `…signature table\n//\nvs_4_0\n` becomes
/// `…signature table\n//\n//\n` + this text + `vs_4_0\n`.
///
/// Errors carry byte offsets from the first byte of the failing chunk's
/// payload (the container shifts them).
pub fn level9_sections(container: &Container) -> Result<Option<String>, DecodeError> {
    let mut found: Vec<(Level9ChunkKind, &[u8])> = container
        .chunks
        .iter()
        .filter_map(|chunk| {
            Level9ChunkKind::from_fourcc(chunk.tag.0).map(|kind| (kind, chunk.data.as_slice()))
        })
        .collect();
    if found.is_empty() {
        return Ok(None);
    }
    found.sort_by_key(|(kind, _)| kind.print_rank());
    let mut sections = Vec::with_capacity(found.len());
    for (kind, payload) in found {
        let shader = decode(payload)?;
        sections.push(section_text(kind, &shader));
    }
    Ok(Some(sections.join("//\n")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::Chunk;
    use program::{Body, Destination, Instruction, Item, Register, Source};
    use tables::{Opcode, RegisterFile, SourceModifier};

    fn register(file: RegisterFile, number: u16) -> Register {
        Register { file, number }
    }

    fn sample_shader() -> Level9Shader {
        let version = ShaderVersion::from_token(0xFFFE_0200).unwrap();
        let mov = Instruction {
            opcode: Opcode::Mov,
            controls: 0,
            coissue: false,
            body: Body::Regular {
                destination: Some(Destination {
                    register: register(RegisterFile::RasterizerOut, 0),
                    write_mask: 0xF,
                    saturate: false,
                    partial_precision: false,
                    centroid: false,
                    shift: 0,
                    relative: None,
                }),
                predicate: None,
                sources: vec![Source {
                    register: register(RegisterFile::Input, 0),
                    swizzle: 0xE4,
                    modifier: SourceModifier::None,
                    relative: None,
                }],
            },
        };
        Level9Shader {
            header_version: version,
            constant_buffer_mappings: vec![ConstantBufferMapping {
                target_register: 1,
                buffer: 13,
                start_register: 0,
                register_count: 7,
                conversions: [
                    DataConversion::Int,
                    DataConversion::Int,
                    DataConversion::Uint,
                    DataConversion::Float,
                ],
            }],
            sampler_mappings: vec![
                SamplerMapping {
                    target_sampler: 1,
                    source_sampler: 0,
                    source_resource: 3,
                    reserved: 0,
                },
                SamplerMapping {
                    target_sampler: 0,
                    source_sampler: 1,
                    source_resource: 2,
                    reserved: 0,
                },
            ],
            runtime_constant_mappings: vec![RuntimeConstantMapping {
                constant: RuntimeConstant::VertexShaderPositionOffset,
                target_register: 0,
            }],
            program: Program {
                version,
                items: vec![Item::Instruction(mov)],
            },
        }
    }

    #[test]
    fn encode_then_decode_gives_the_shader_back() {
        let shader = sample_shader();
        let bytes = encode(&shader);
        assert_eq!(
            Bytes::new(&bytes).u32(0, "size").unwrap() as usize,
            bytes.len()
        );
        assert_eq!(
            Bytes::new(&bytes).u32(12, "program offset").unwrap(),
            36 + 8 + 12 + 4
        );
        assert_eq!(decode(&bytes), Ok(shader));
    }

    #[test]
    fn section_text_prints_every_table_in_fxc_columns() {
        let text = section_text(Level9ChunkKind::Xna, &sample_shader());
        let expected = "\
// Constant buffer to DX9 shader constant mappings:
//
// Target Reg Buffer  Start Reg # of Regs        Data Conversion
// ---------- ------- --------- --------- ----------------------
// c1         cb13            0         7  ( INT, INT,UINT, FLT)
//
//
// Sampler/Resource to DX9 shader sampler mappings:
//
// Target Sampler Source Sampler  Source Resource
// -------------- --------------- ----------------
// s0             s1              t2               \n// s1             s0              t3               \n//
//
// Runtime generated constant mappings:
//
// Target Reg                               Constant Description
// ---------- --------------------------------------------------
// c0                              Vertex Shader position offset
//
//
// XNA shader bytecode:
//
    vs_2_0
    mov oPos, v0

// approximately 1 instruction slot used
";
        assert_eq!(text, expected);
    }

    #[test]
    fn sections_follow_fxc_order_and_join_with_one_comment_line() {
        let shader = sample_shader();
        let mut lean = shader.clone();
        lean.constant_buffer_mappings.clear();
        lean.sampler_mappings.clear();
        lean.runtime_constant_mappings.clear();
        let bytes = encode(&lean);
        let container = Container::new(vec![
            Chunk::new(tags::XNAS, bytes.clone()),
            Chunk::new(tags::SHDR, Vec::new()),
            Chunk::new(tags::XNAP, bytes.clone()),
            Chunk::new(tags::AON9, bytes),
        ]);
        let text = level9_sections(&container).unwrap().unwrap();
        let titles: Vec<&str> = text.lines().filter(|l| l.ends_with("bytecode:")).collect();
        assert_eq!(
            titles,
            [
                "// Level9 shader bytecode:",
                "// XNA Prepass shader bytecode:",
                "// XNA shader bytecode:"
            ]
        );
        assert!(text.contains("slot used\n//\n// XNA Prepass"));
        assert!(text.ends_with("slot used\n"));
        let no_level9 = Container::new(vec![Chunk::new(tags::SHDR, Vec::new())]);
        assert_eq!(level9_sections(&no_level9), Ok(None));
    }

    #[test]
    fn bad_payloads_report_payload_offsets() {
        let bytes = encode(&sample_shader());
        let error = decode(&bytes[..20]).unwrap_err();
        assert_eq!(error.offset, 20);
        let mut wrong_size = bytes.clone();
        wrong_size[0] ^= 1;
        assert_eq!(decode(&wrong_size).unwrap_err().offset, 0);
        let mut loops = bytes.clone();
        loops[20] = 1;
        let error = decode(&loops).unwrap_err();
        assert_eq!(error.offset, 20);
        assert!(error.message.contains("loop-register"), "{error}");
        let mut conversion = bytes.clone();
        let cb_at = 36 + 8;
        conversion[cb_at + 9] = 7;
        assert_eq!(decode(&conversion).unwrap_err().offset, cb_at + 9);
        let mut program = bytes.clone();
        let program_at = Bytes::new(&bytes).u32(12, "program offset").unwrap() as usize;
        program[program_at + 4] = 0x4B; // opcode 75 does not exist
        assert_eq!(decode(&program).unwrap_err().offset, program_at + 4);
        let mut table = bytes.clone();
        table[16] = 200;
        assert_eq!(decode(&table).unwrap_err().offset, 16);
    }
}
