//! The reflection chunk (`RDEF`): constant buffers with their variables and
//! types, resource bindings (with SM5.1 register spaces), the creator string
//! and the SM5 `RD11` block; decoded, re-encoded byte for byte, and printed
//! as fxc's "Buffer Definitions" and "Resource Bindings" sections.
//!
//! Types, member lists and interface lists are kept in arenas and referred
//! to by index, because fxc shares them: two variables can point at the same
//! type record, and two struct types at the same member array. The encoder
//! writes every arena entry once, at its first use, in fxc's order (strings
//! deduplicated, records 4-byte aligned with 0xAB padding), which reproduces
//! fxc's bytes exactly:
//!
//! header (+ `RD11`) · binding records · binding names · constant-buffer
//! records · per buffer: its name, its variable records, per variable: name,
//! type (name, subtype, base class, interfaces, members, record), default
//! value · creator string.

use super::DecodeError;
use super::blob::{Bytes, Writer, le_words, to_u32};
use super::enums::ReturnType;
use std::collections::HashMap;

/// Program type of the target word (high 16 bits).
pub const PROGRAM_TYPES: [(u16, &str); 9] = [
    (0xFFFF, "ps"),
    (0xFFFE, "vs"),
    (0x4753, "gs"),
    (0x4853, "hs"),
    (0x4453, "ds"),
    (0x4353, "cs"),
    (0xFFF0, "lib"),
    (0x4C46, "lib_function"),
    (0xFEFF, "fx"),
];

/// The target word of RDEF: `minor | major << 8 | program_type << 16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdefTarget(pub u32);

impl RdefTarget {
    /// Minor shader-model version.
    pub fn minor(self) -> u32 {
        self.0 & 0xff
    }
    /// Major shader-model version.
    pub fn major(self) -> u32 {
        (self.0 >> 8) & 0xff
    }
    /// Program type (see [`PROGRAM_TYPES`]).
    pub fn program_type(self) -> u16 {
        (self.0 >> 16) as u16
    }
    /// Whether this is a library (`lib_*`) or library-function target.
    pub fn is_library(self) -> bool {
        matches!(self.program_type(), 0xFFF0 | 0x4C46)
    }
    /// Whether records use the SM5 layout (the `RD11` block, 40-byte
    /// variables and 36-byte types): SM5 targets and libraries.
    pub fn has_sm5_layout(self) -> bool {
        self.major() >= 5 || self.is_library()
    }
    /// Whether bindings carry space and range ID (SM5.1).
    pub fn is_sm51(self) -> bool {
        self.major() == 5 && self.minor() >= 1
    }
    /// Bytes per resource-binding record.
    pub fn binding_size(self) -> usize {
        if self.is_sm51() { 40 } else { 32 }
    }
    /// Bytes per variable record.
    pub fn variable_size(self) -> usize {
        if self.has_sm5_layout() { 40 } else { 24 }
    }
    /// Bytes per type record.
    pub fn type_size(self) -> usize {
        if self.has_sm5_layout() { 36 } else { 16 }
    }
}

/// The `Format` and `Dim` columns a binding's input type decides alone.
pub type TypeColumns = Option<(&'static str, &'static str)>;

/// `D3D_SHADER_INPUT_TYPE`: value, name, the listing's `Type` column, its
/// register letter, and its `Format` and `Dim` columns where the type
/// decides them (`None`: the binding's return type and dimension do).
pub const INPUT_TYPES: [(u32, &str, &str, char, TypeColumns); 12] = [
    (0, "cbuffer", "cbuffer", 'b', Some(("NA", "NA"))),
    (1, "tbuffer", "tbuffer", 't', Some(("NA", "NA"))),
    (2, "texture", "texture", 't', None),
    (3, "sampler", "sampler", 's', Some(("NA", "NA"))),
    (4, "uav_rwtyped", "UAV", 'u', None),
    (5, "structured", "texture", 't', Some(("struct", "r/o"))),
    (6, "uav_rwstructured", "UAV", 'u', Some(("struct", "r/w"))),
    (7, "byteaddress", "texture", 't', Some(("byte", "r/o"))),
    (8, "uav_rwbyteaddress", "UAV", 'u', Some(("byte", "r/w"))),
    (
        9,
        "uav_append_structured",
        "UAV",
        'u',
        Some(("struct", "append")),
    ),
    (
        10,
        "uav_consume_structured",
        "UAV",
        'u',
        Some(("struct", "consume")),
    ),
    (
        11,
        "uav_rwstructured_with_counter",
        "UAV",
        'u',
        Some(("struct", "r/w+cnt")),
    ),
];

/// The sampler input type (`D3D_SIT_SAMPLER`).
const INPUT_TYPE_SAMPLER: u32 = 3;

/// `D3D_SRV_DIMENSION`: value and listing name.
pub const DIMENSIONS: [(u32, &str); 12] = [
    (0, "unknown"),
    (1, "buf"),
    (2, "1d"),
    (3, "1darray"),
    (4, "2d"),
    (5, "2darray"),
    (6, "2dMS"),
    (7, "2darrayMS"),
    (8, "3d"),
    (9, "cube"),
    (10, "cubearray"),
    (11, "bufex"),
];

/// `D3D_CBUFFER_TYPE`: value and the word the listing puts before its name.
pub const CBUFFER_KINDS: [(u32, &str); 4] = [
    (0, "cbuffer"),
    (1, "tbuffer"),
    (2, "interfaces"),
    (3, "Resource bind info for"),
];

/// `D3D_SHADER_VARIABLE_CLASS`: value and name.
pub const VARIABLE_CLASSES: [(u16, &str); 8] = [
    (0, "scalar"),
    (1, "vector"),
    (2, "matrix_rows"),
    (3, "matrix_columns"),
    (4, "object"),
    (5, "struct"),
    (6, "interface_class"),
    (7, "interface_pointer"),
];

/// `D3D_SHADER_VARIABLE_TYPE`: value and HLSL spelling.
pub const VARIABLE_TYPES: [(u16, &str); 58] = [
    (0, "void"),
    (1, "bool"),
    (2, "int"),
    (3, "float"),
    (4, "string"),
    (5, "texture"),
    (6, "Texture1D"),
    (7, "Texture2D"),
    (8, "Texture3D"),
    (9, "TextureCube"),
    (10, "sampler"),
    (11, "sampler1D"),
    (12, "sampler2D"),
    (13, "sampler3D"),
    (14, "samplerCUBE"),
    (15, "PixelShader"),
    (16, "VertexShader"),
    (17, "pixelfragment"),
    (18, "vertexfragment"),
    (19, "uint"),
    (20, "uint8"),
    (21, "GeometryShader"),
    (22, "RasterizerState"),
    (23, "DepthStencilState"),
    (24, "BlendState"),
    (25, "Buffer"),
    (26, "cbuffer"),
    (27, "tbuffer"),
    (28, "Texture1DArray"),
    (29, "Texture2DArray"),
    (30, "RenderTargetView"),
    (31, "DepthStencilView"),
    (32, "Texture2DMS"),
    (33, "Texture2DMSArray"),
    (34, "TextureCubeArray"),
    (35, "HullShader"),
    (36, "DomainShader"),
    (37, "interface"),
    (38, "ComputeShader"),
    (39, "double"),
    (40, "RWTexture1D"),
    (41, "RWTexture1DArray"),
    (42, "RWTexture2D"),
    (43, "RWTexture2DArray"),
    (44, "RWTexture3D"),
    (45, "RWBuffer"),
    (46, "ByteAddressBuffer"),
    (47, "RWByteAddressBuffer"),
    (48, "StructuredBuffer"),
    (49, "RWStructuredBuffer"),
    (50, "AppendStructuredBuffer"),
    (51, "ConsumeStructuredBuffer"),
    (52, "min8float"),
    (53, "min10float"),
    (54, "min16float"),
    (55, "min12int"),
    (56, "min16int"),
    (57, "min16uint"),
];

fn name_of<T: PartialEq + Copy + std::fmt::Display>(table: &[(T, &str)], v: T) -> String {
    table
        .iter()
        .find(|r| r.0 == v)
        .map(|r| r.1.to_string())
        .unwrap_or_else(|| v.to_string())
}

/// Name of an input type (`cbuffer`, `structured`, ...).
pub fn input_type_name(v: u32) -> String {
    INPUT_TYPES
        .iter()
        .find(|r| r.0 == v)
        .map(|r| r.1.to_string())
        .unwrap_or_else(|| v.to_string())
}
/// Name of a return type (`D3D_RESOURCE_RETURN_TYPE`: the numbering and
/// names of the token's [`ReturnType`] without its `unused`, and
/// `continued` without the brackets the program listing puts around it).
pub fn return_type_name(v: u32) -> String {
    match ReturnType::from_u32(v) {
        Some(ReturnType::Continued) => "continued".to_string(),
        Some(t) if t != ReturnType::Unused => t.name().to_string(),
        _ => v.to_string(),
    }
}
/// Name of a view dimension.
pub fn dimension_name(v: u32) -> String {
    name_of(&DIMENSIONS, v)
}
/// Name of a constant-buffer kind.
pub fn cbuffer_kind_name(v: u32) -> String {
    name_of(&CBUFFER_KINDS, v)
}
/// Name of a variable class.
pub fn variable_class_name(v: u16) -> String {
    name_of(&VARIABLE_CLASSES, v)
}
/// HLSL name of a variable base type.
pub fn variable_type_name(v: u16) -> String {
    name_of(&VARIABLE_TYPES, v)
}

/// Variable flag: the shader reads the variable (`D3D_SVF_USED`).
pub const VARIABLE_USED: u32 = 2;
/// Binding flag: comparison sampler (`D3D_SIF_COMPARISON_SAMPLER`).
pub const BINDING_COMPARISON_SAMPLER: u32 = 2;
/// No texture / sampler slot (`-1`) in SM5 variable records.
pub const NO_SLOT: u32 = u32::MAX;
/// Offset fxc prints as `N/A` (effect-only variables).
pub const NO_OFFSET: u32 = u32::MAX;

/// The SM5 block after the RDEF header: a tag (`RD11`, or `0x25441313` for
/// SM5.1), the header and record sizes, and the interface-slot count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rd11 {
    /// `RD11` or the SM5.1 tag.
    pub tag: u32,
    /// Header size, constant-buffer, binding, variable, type and member
    /// record sizes (60, 24, 32 or 40, 40, 36, 12).
    pub sizes: [u32; 6],
    /// Interface slots the shader uses.
    pub interface_slot_count: u32,
}

/// A resource binding (`D3D11_SHADER_INPUT_BIND_DESC` + SM5.1 fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceBinding {
    /// HLSL name.
    pub name: String,
    /// `D3D_SHADER_INPUT_TYPE` (see [`INPUT_TYPES`]).
    pub input_type: u32,
    /// `D3D_RESOURCE_RETURN_TYPE` (or a structure stride for structured buffers).
    pub return_type: u32,
    /// `D3D_SRV_DIMENSION`.
    pub dimension: u32,
    /// Sample count (`0xFFFFFFFF` when not multisampled).
    pub sample_count: u32,
    /// First register.
    pub bind_point: u32,
    /// Registers used (0 = unbounded in SM5.1).
    pub bind_count: u32,
    /// `D3D_SHADER_INPUT_FLAGS` (bits 2-3: component count - 1).
    pub flags: u32,
    /// SM5.1 register space.
    pub space: u32,
    /// SM5.1 range ID (the `T0`/`CB1` the program uses).
    pub id: u32,
}

/// A member of a struct type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeMember {
    /// Member name.
    pub name: String,
    /// Index into [`Rdef::types`].
    pub type_id: usize,
    /// Byte offset inside the parent struct.
    pub offset: u32,
}

/// A type record (`D3D11_SHADER_TYPE_DESC`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderType {
    /// `D3D_SHADER_VARIABLE_CLASS`.
    pub class: u16,
    /// `D3D_SHADER_VARIABLE_TYPE`.
    pub base_type: u16,
    /// Rows.
    pub rows: u16,
    /// Columns.
    pub columns: u16,
    /// Array elements (0 = not an array).
    pub elements: u16,
    /// Index into [`Rdef::member_lists`], for structs.
    pub members: Option<usize>,
    /// SM5 layout only: parent interface (interface pointers, classes).
    pub subtype: Option<usize>,
    /// SM5 layout only: base class.
    pub base_class: Option<usize>,
    /// SM5 layout only: index into [`Rdef::interface_lists`].
    pub interfaces: Option<usize>,
    /// SM5 layout only: type name (`float4`, `bar`, `iChangeColour`).
    pub name: Option<String>,
}

impl ShaderType {
    /// A numeric type (SM4 layout fields only).
    pub fn numeric(
        class: u16,
        base_type: u16,
        rows: u16,
        columns: u16,
        elements: u16,
    ) -> ShaderType {
        ShaderType {
            class,
            base_type,
            rows,
            columns,
            elements,
            members: None,
            subtype: None,
            base_class: None,
            interfaces: None,
            name: None,
        }
    }
}

/// A constant-buffer variable (`D3D11_SHADER_VARIABLE_DESC`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Name.
    pub name: String,
    /// Byte offset in the buffer.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// `D3D_SHADER_VARIABLE_FLAGS` ([`VARIABLE_USED`] ...).
    pub flags: u32,
    /// Index into [`Rdef::types`].
    pub type_id: usize,
    /// Default value (`size` bytes), when the HLSL gave one.
    pub default_value: Option<Vec<u8>>,
    /// SM5 layout only: first texture, texture count, first sampler,
    /// sampler count (`[NO_SLOT, 0, NO_SLOT, 0]` when none).
    pub slots: [u32; 4],
}

/// A constant buffer (`D3D11_SHADER_BUFFER_DESC`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstantBuffer {
    /// Name.
    pub name: String,
    /// Variables, in record order.
    pub variables: Vec<Variable>,
    /// Size in bytes.
    pub size: u32,
    /// `D3D_SHADER_CBUFFER_FLAGS`.
    pub flags: u32,
    /// `D3D_CBUFFER_TYPE` (see [`CBUFFER_KINDS`]).
    pub kind: u32,
}

/// A decoded `RDEF` chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rdef {
    /// Shader model and program type.
    pub target: RdefTarget,
    /// Compile flags (`D3DCOMPILE_*`).
    pub flags: u32,
    /// Compiler that wrote the blob.
    pub creator: String,
    /// The SM5 block (present with the SM5 layout).
    pub rd11: Option<Rd11>,
    /// Resource bindings, in record order.
    pub bindings: Vec<ResourceBinding>,
    /// Constant buffers, in record order.
    pub constant_buffers: Vec<ConstantBuffer>,
    /// Type arena.
    pub types: Vec<ShaderType>,
    /// Member-list arena.
    pub member_lists: Vec<Vec<TypeMember>>,
    /// Interface-list arena (lists of type indices).
    pub interface_lists: Vec<Vec<usize>>,
}

/// Deepest type nesting accepted (struct in struct ...).
const MAX_TYPE_DEPTH: usize = 64;
/// Largest "Buffer Definitions" section printed.
const MAX_LISTING_BYTES: usize = 16 << 20;

/// Decoder state: arena indices by payload offset.
struct TypeReader<'a> {
    b: Bytes<'a>,
    target: RdefTarget,
    types: Vec<ShaderType>,
    in_progress: Vec<usize>,
    type_at: HashMap<usize, usize>,
    member_lists: Vec<Vec<TypeMember>>,
    member_list_at: HashMap<usize, usize>,
    interface_lists: Vec<Vec<usize>>,
    interface_list_at: HashMap<usize, usize>,
}

impl TypeReader<'_> {
    /// Decodes the type at `offset` (once; later references share it).
    /// Arena entries are created after everything they refer to, which is
    /// the order the encoder writes records in.
    fn read_type(&mut self, offset: usize, depth: usize) -> Result<usize, DecodeError> {
        if let Some(&id) = self.type_at.get(&offset) {
            return Ok(id);
        }
        if self.in_progress.contains(&offset) {
            return Err(DecodeError::at(
                offset,
                format!("RDEF type at offset {offset} contains itself"),
            ));
        }
        if depth > MAX_TYPE_DEPTH {
            return Err(DecodeError::at(
                offset,
                format!("RDEF types nest deeper than {MAX_TYPE_DEPTH} levels"),
            ));
        }
        let b = self.b;
        b.check_table(offset, 1, self.target.type_size(), "RDEF type")?;
        self.in_progress.push(offset);
        let class = b.u16(offset, "type class")?;
        let base_type = b.u16(offset + 2, "type")?;
        let rows = b.u16(offset + 4, "type rows")?;
        let columns = b.u16(offset + 6, "type columns")?;
        let elements = b.u16(offset + 8, "type elements")?;
        let member_count = usize::from(b.u16(offset + 10, "type member count")?);
        let member_offset = b.u32(offset + 12, "type member offset")? as usize;
        let mut t = ShaderType::numeric(class, base_type, rows, columns, elements);
        if self.target.has_sm5_layout() {
            let subtype = b.u32(offset + 16, "type subtype")? as usize;
            let base_class = b.u32(offset + 20, "type base class")? as usize;
            let interface_count = b.u32(offset + 24, "type interface count")? as usize;
            let interface_offset = b.u32(offset + 28, "type interface offset")? as usize;
            let name_offset = b.u32(offset + 32, "type name offset")? as usize;
            if name_offset != 0 {
                t.name = Some(
                    b.cstr(name_offset, "type name")
                        .map_err(|e| e.moved_to(offset + 32))?,
                );
            }
            if subtype != 0 {
                t.subtype = Some(self.read_type(subtype, depth + 1)?);
            }
            if base_class != 0 {
                t.base_class = Some(self.read_type(base_class, depth + 1)?);
            }
            if interface_count != 0 {
                t.interfaces = Some(match self.interface_list_at.get(&interface_offset) {
                    Some(&list) => list,
                    None => {
                        let offsets =
                            b.u32s(interface_offset, interface_count, "type interface list")?;
                        let mut list = Vec::with_capacity(offsets.len());
                        for o in offsets {
                            list.push(self.read_type(o as usize, depth + 1)?);
                        }
                        self.interface_lists.push(list);
                        let list_id = self.interface_lists.len() - 1;
                        self.interface_list_at.insert(interface_offset, list_id);
                        list_id
                    }
                });
            }
        }
        if member_count > 0 {
            t.members = Some(match self.member_list_at.get(&member_offset) {
                Some(&list) if self.member_lists[list].len() == member_count => list,
                _ => {
                    b.check_table(member_offset, member_count, 12, "type members")?;
                    let mut list = Vec::with_capacity(member_count);
                    for i in 0..member_count {
                        let at = member_offset + 12 * i;
                        let name = b.cstr_at_field(at, "member name")?;
                        let member_type = b.u32(at + 4, "member type")? as usize;
                        let type_id = self.read_type(member_type, depth + 1)?;
                        list.push(TypeMember {
                            name,
                            type_id,
                            offset: b.u32(at + 8, "member offset")?,
                        });
                    }
                    self.member_lists.push(list);
                    let list_id = self.member_lists.len() - 1;
                    self.member_list_at.insert(member_offset, list_id);
                    list_id
                }
            });
        }
        self.in_progress.retain(|&o| o != offset);
        self.types.push(t);
        let id = self.types.len() - 1;
        self.type_at.insert(offset, id);
        Ok(id)
    }
}

impl Rdef {
    /// Decodes an RDEF payload (errors at payload-relative offsets).
    pub fn parse(payload: &[u8]) -> Result<Rdef, DecodeError> {
        let b = Bytes::new(payload);
        let cb_count = b.u32(0, "constant buffer count")? as usize;
        let cb_offset = b.u32(4, "constant buffer offset")? as usize;
        let binding_count = b.u32(8, "resource binding count")? as usize;
        let binding_offset = b.u32(12, "resource binding offset")? as usize;
        let target = RdefTarget(b.u32(16, "target")?);
        let flags = b.u32(20, "compile flags")?;
        let creator_offset = b.u32(24, "creator offset")? as usize;
        let creator = b
            .cstr(creator_offset, "creator string")
            .map_err(|e| e.moved_to(24))?;
        let rd11 = if target.has_sm5_layout() {
            let w = b.u32s(28, 8, "RD11 block")?;
            Some(Rd11 {
                tag: w[0],
                sizes: [w[1], w[2], w[3], w[4], w[5], w[6]],
                interface_slot_count: w[7],
            })
        } else {
            None
        };
        let bsize = target.binding_size();
        b.check_table(binding_offset, binding_count, bsize, "resource bindings")
            .map_err(|e| e.moved_to(8))?;
        let mut bindings = Vec::with_capacity(binding_count);
        for i in 0..binding_count {
            let at = binding_offset + i * bsize;
            let w = b.u32s(at, bsize / 4, "resource binding")?;
            let name = b
                .cstr(w[0] as usize, "binding name")
                .map_err(|e| e.moved_to(at))?;
            bindings.push(ResourceBinding {
                name,
                input_type: w[1],
                return_type: w[2],
                dimension: w[3],
                sample_count: w[4],
                bind_point: w[5],
                bind_count: w[6],
                flags: w[7],
                space: w.get(8).copied().unwrap_or(0),
                id: w.get(9).copied().unwrap_or(w[5]),
            });
        }
        b.check_table(cb_offset, cb_count, 24, "constant buffers")
            .map_err(|e| e.moved_to(0))?;
        let mut reader = TypeReader {
            b,
            target,
            types: Vec::new(),
            in_progress: Vec::new(),
            type_at: HashMap::new(),
            member_lists: Vec::new(),
            member_list_at: HashMap::new(),
            interface_lists: Vec::new(),
            interface_list_at: HashMap::new(),
        };
        let vsize = target.variable_size();
        let mut constant_buffers = Vec::with_capacity(cb_count);
        for i in 0..cb_count {
            let at = cb_offset + 24 * i;
            let w = b.u32s(at, 6, "constant buffer")?;
            let name = b
                .cstr(w[0] as usize, "constant buffer name")
                .map_err(|e| e.moved_to(at))?;
            let var_count = w[1] as usize;
            let var_offset = w[2] as usize;
            b.check_table(var_offset, var_count, vsize, "variables")
                .map_err(|e| e.moved_to(at + 4))?;
            let mut variables = Vec::with_capacity(var_count);
            for v in 0..var_count {
                let vat = var_offset + vsize * v;
                let vw = b.u32s(vat, vsize / 4, "variable")?;
                let name = b
                    .cstr(vw[0] as usize, "variable name")
                    .map_err(|e| e.moved_to(vat))?;
                let type_id = reader.read_type(vw[4] as usize, 0)?;
                let default_value = if vw[5] != 0 {
                    Some(
                        b.slice(vw[5] as usize, vw[2] as usize, "default value")
                            .map_err(|e| e.moved_to(vat + 20))?
                            .to_vec(),
                    )
                } else {
                    None
                };
                let slots = if vsize == 40 {
                    [vw[6], vw[7], vw[8], vw[9]]
                } else {
                    [NO_SLOT, 0, NO_SLOT, 0]
                };
                variables.push(Variable {
                    name,
                    offset: vw[1],
                    size: vw[2],
                    flags: vw[3],
                    type_id,
                    default_value,
                    slots,
                });
            }
            constant_buffers.push(ConstantBuffer {
                name,
                variables,
                size: w[3],
                flags: w[4],
                kind: w[5],
            });
        }
        let types = reader.types;
        Ok(Rdef {
            target,
            flags,
            creator,
            rd11,
            bindings,
            constant_buffers,
            types,
            member_lists: reader.member_lists,
            interface_lists: reader.interface_lists,
        })
    }

    /// An empty RDEF for `target` with the given creator (the `RD11` block
    /// filled in as fxc writes it when the target needs one).
    pub fn new(target: RdefTarget, creator: &str) -> Rdef {
        let rd11 = target.has_sm5_layout().then(|| Rd11 {
            tag: if target.is_sm51() {
                0x2544_1313
            } else {
                u32::from_le_bytes(*b"RD11")
            },
            sizes: [60, 24, to_u32(target.binding_size()), 40, 36, 12],
            interface_slot_count: 0,
        });
        Rdef {
            target,
            flags: 0,
            creator: creator.to_string(),
            rd11,
            bindings: Vec::new(),
            constant_buffers: Vec::new(),
            types: Vec::new(),
            member_lists: Vec::new(),
            interface_lists: Vec::new(),
        }
    }

    /// Encodes the payload in fxc's layout.
    pub fn to_bytes(&self) -> Vec<u8> {
        let enc = Encoder {
            rdef: self,
            w: Writer::new(),
            strings: HashMap::new(),
            type_offsets: vec![None; self.types.len()],
            in_progress: vec![false; self.types.len()],
            member_list_offsets: vec![None; self.member_lists.len()],
            interface_list_offsets: vec![None; self.interface_lists.len()],
            defaults: HashMap::new(),
            first_interface_class: None,
        };
        enc.encode()
    }

    /// The creator's fxc version, when the creator string names one
    /// (`Microsoft (R) HLSL Shader Compiler 9.29.952.3111` -> `[9, 29, 952, 3111]`).
    pub fn compiler_version(&self) -> Option<Vec<u32>> {
        let version = self.creator.rsplit(' ').next()?;
        let parts: Result<Vec<u32>, _> = version.split('.').map(str::parse).collect();
        parts.ok().filter(|p| !p.is_empty())
    }
}

struct Encoder<'a> {
    rdef: &'a Rdef,
    w: Writer,
    strings: HashMap<String, usize>,
    type_offsets: Vec<Option<usize>>,
    in_progress: Vec<bool>,
    member_list_offsets: Vec<Option<usize>>,
    interface_list_offsets: Vec<Option<usize>>,
    defaults: HashMap<Vec<u8>, usize>,
    first_interface_class: Option<usize>,
}

impl Encoder<'_> {
    fn string(&mut self, s: &str) -> usize {
        if let Some(&at) = self.strings.get(s) {
            return at;
        }
        let at = self.w.cstr(s);
        self.strings.insert(s.to_string(), at);
        at
    }

    /// Writes type `id` (and everything it refers to) unless already
    /// written; returns its offset. A type that refers back to itself gets
    /// offset 0 for that reference (decoded data never does that).
    fn write_type(&mut self, id: usize) -> usize {
        if let Some(at) = self.type_offsets.get(id).copied().flatten() {
            return at;
        }
        let Some(t) = self.rdef.types.get(id) else {
            return 0;
        };
        if self.in_progress[id] {
            return 0;
        }
        self.in_progress[id] = true;
        let sm5 = self.rdef.target.has_sm5_layout();
        let name_at = match (&t.name, sm5) {
            (Some(n), true) => self.string(n),
            _ => 0,
        };
        let subtype_at = t.subtype.filter(|_| sm5).map_or(0, |s| self.write_type(s));
        let base_at = t
            .base_class
            .filter(|_| sm5)
            .map_or(0, |s| self.write_type(s));
        let (interface_count, interface_at) = match t.interfaces.filter(|_| sm5) {
            Some(list) => {
                let items = self
                    .rdef
                    .interface_lists
                    .get(list)
                    .cloned()
                    .unwrap_or_default();
                let at = match self.interface_list_offsets[list] {
                    Some(at) => at,
                    None => {
                        let offsets: Vec<usize> =
                            items.iter().map(|&i| self.write_type(i)).collect();
                        self.w.align4();
                        let at = self.w.pos();
                        for o in offsets {
                            self.w.u32(to_u32(o));
                        }
                        self.interface_list_offsets[list] = Some(at);
                        at
                    }
                };
                (items.len(), at)
            }
            None => (0, 0),
        };
        let (member_count, mut member_at) = match t.members {
            Some(list) => {
                let members = self
                    .rdef
                    .member_lists
                    .get(list)
                    .cloned()
                    .unwrap_or_default();
                let at = match self.member_list_offsets[list] {
                    Some(at) => at,
                    None => {
                        let mut records = Vec::with_capacity(members.len());
                        for m in &members {
                            let name = self.string(&m.name);
                            let ty = self.write_type(m.type_id);
                            records.push((name, ty, m.offset));
                        }
                        self.w.align4();
                        let at = self.w.pos();
                        for (name, ty, offset) in records {
                            self.w.u32(to_u32(name));
                            self.w.u32(to_u32(ty));
                            self.w.u32(offset);
                        }
                        self.member_list_offsets[list] = Some(at);
                        at
                    }
                };
                (members.len(), at)
            }
            None => (0, 0),
        };
        self.w.align4();
        let at = self.w.pos();
        // fxc points every member-less interface class at the first one.
        if t.class == 6 && member_count == 0 {
            member_at = *self.first_interface_class.get_or_insert(at);
        }
        self.w.u16(t.class);
        self.w.u16(t.base_type);
        self.w.u16(t.rows);
        self.w.u16(t.columns);
        self.w.u16(t.elements);
        self.w.u16(u16::try_from(member_count).unwrap_or(u16::MAX));
        self.w.u32(to_u32(member_at));
        if sm5 {
            self.w.u32(to_u32(subtype_at));
            self.w.u32(to_u32(base_at));
            self.w.u32(to_u32(interface_count));
            self.w.u32(to_u32(interface_at));
            self.w.u32(to_u32(name_at));
        }
        self.type_offsets[id] = Some(at);
        self.in_progress[id] = false;
        at
    }

    fn encode(mut self) -> Vec<u8> {
        let r = self.rdef;
        let target = r.target;
        self.w.raw(&[0; 28]);
        if let Some(rd11) = &r.rd11 {
            self.w.u32(rd11.tag);
            for s in rd11.sizes {
                self.w.u32(s);
            }
            self.w.u32(rd11.interface_slot_count);
        }
        let binding_at = self.w.pos();
        let bsize = target.binding_size();
        self.w.raw(&vec![0; bsize * r.bindings.len()]);
        let binding_names: Vec<usize> = r.bindings.iter().map(|b| self.string(&b.name)).collect();
        for (i, (bnd, name)) in r.bindings.iter().zip(binding_names).enumerate() {
            let at = binding_at + i * bsize;
            let mut words = vec![
                to_u32(name),
                bnd.input_type,
                bnd.return_type,
                bnd.dimension,
                bnd.sample_count,
                bnd.bind_point,
                bnd.bind_count,
                bnd.flags,
            ];
            if bsize == 40 {
                words.push(bnd.space);
                words.push(bnd.id);
            }
            for (k, wv) in words.into_iter().enumerate() {
                self.w.patch_u32(at + 4 * k, wv);
            }
        }
        let cb_at = if r.constant_buffers.is_empty() {
            0
        } else {
            self.w.align4();
            self.w.pos()
        };
        self.w.raw(&vec![0; 24 * r.constant_buffers.len()]);
        let vsize = target.variable_size();
        for (i, cb) in r.constant_buffers.iter().enumerate() {
            let name = self.string(&cb.name);
            self.w.align4();
            let vars_at = self.w.pos();
            self.w.raw(&vec![0; vsize * cb.variables.len()]);
            for (v, var) in cb.variables.iter().enumerate() {
                let vname = self.string(&var.name);
                let ty = self.write_type(var.type_id);
                let default_at = match &var.default_value {
                    Some(bytes) => match self.defaults.get(bytes) {
                        Some(&at) => at,
                        None => {
                            self.w.align4();
                            let at = self.w.pos();
                            self.w.raw(bytes);
                            self.defaults.insert(bytes.clone(), at);
                            at
                        }
                    },
                    None => 0,
                };
                let mut words = vec![
                    to_u32(vname),
                    var.offset,
                    var.size,
                    var.flags,
                    to_u32(ty),
                    to_u32(default_at),
                ];
                if vsize == 40 {
                    words.extend_from_slice(&var.slots);
                }
                let at = vars_at + vsize * v;
                for (k, wv) in words.into_iter().enumerate() {
                    self.w.patch_u32(at + 4 * k, wv);
                }
            }
            let at = cb_at + 24 * i;
            for (k, wv) in [
                to_u32(name),
                to_u32(cb.variables.len()),
                to_u32(vars_at),
                cb.size,
                cb.flags,
                cb.kind,
            ]
            .into_iter()
            .enumerate()
            {
                self.w.patch_u32(at + 4 * k, wv);
            }
        }
        let creator_at = self.string(&r.creator);
        self.w.align4();
        for (k, wv) in [
            to_u32(r.constant_buffers.len()),
            to_u32(cb_at),
            to_u32(r.bindings.len()),
            to_u32(binding_at),
            target.0,
            r.flags,
            to_u32(creator_at),
        ]
        .into_iter()
        .enumerate()
        {
            self.w.patch_u32(4 * k, wv);
        }
        self.w.finish()
    }
}

// ---------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------

/// How the resource-binding table is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingTableStyle {
    /// fxc 9.x: `Slot Elements`.
    Slot,
    /// fxc 10.x: `HLSL Bind  Count`.
    HlslBind,
    /// fxc 10.x on SM5.1: an `ID` column and `space` binds.
    HlslBindWithId,
}

impl Rdef {
    /// The HLSL spelling of type `type_id` (`float4`, `row_major float4x3`,
    /// `struct bar`, `interface iFoo`), with `[N]` for arrays.
    pub fn type_name(&self, type_id: usize) -> String {
        match self.types.get(type_id) {
            Some(t) => {
                let base = match (t.class, &t.name) {
                    (5, Some(n)) => format!("struct {n}"),
                    (5, None) => "struct".to_string(),
                    _ => self.type_spelling(t),
                };
                if t.elements > 0 {
                    format!("{base}[{}]", t.elements)
                } else {
                    base
                }
            }
            None => format!("<type {type_id}>"),
        }
    }

    /// The HLSL spelling of a type as the listing writes it before a name
    /// (`float4`, `row_major float4x3`, `interface iFoo`, `uint`).
    fn type_spelling(&self, t: &ShaderType) -> String {
        let base = variable_type_name(t.base_type);
        match t.class {
            0 => base,
            1 => format!("{base}{}", t.columns),
            2 => format!("row_major {base}{}x{}", t.rows, t.columns),
            3 => format!("{base}{}x{}", t.rows, t.columns),
            7 => format!("interface {}", t.name.clone().unwrap_or_default()),
            _ => t.name.clone().unwrap_or(base),
        }
    }

    /// Appends the lines of a declaration at `indent` (the number of spaces
    /// after `//`): plain types in one line, structs over several. `tail`
    /// is what follows the offset column (` Size: ...` at top level).
    #[allow(clippy::too_many_arguments)]
    fn declaration(
        &self,
        out: &mut String,
        type_id: usize,
        name: &str,
        indent: usize,
        offset: u32,
        tail: &str,
        depth: usize,
    ) -> Result<(), DecodeError> {
        // Shared member lists can make a small chunk expand exponentially.
        if out.len() > MAX_LISTING_BYTES {
            return Err(DecodeError::at(
                0,
                format!("RDEF structs expand to more than {MAX_LISTING_BYTES} bytes of listing"),
            ));
        }
        if depth > MAX_TYPE_DEPTH {
            return Err(DecodeError::at(
                0,
                format!("RDEF types nest deeper than {MAX_TYPE_DEPTH} levels"),
            ));
        }
        let t = self.types.get(type_id).ok_or_else(|| {
            DecodeError::at(
                0,
                format!("RDEF refers to type {type_id}, which does not exist"),
            )
        })?;
        let pad = " ".repeat(indent);
        // fxc leaves out one-element arrays (SM5.1 `ConstantBuffer<T>`).
        let array = if t.elements > 1 {
            format!("[{}]", t.elements)
        } else {
            String::new()
        };
        let offset_text = if offset == NO_OFFSET {
            "N/A".to_string()
        } else {
            offset.to_string()
        };
        let head = match (t.class, t.members) {
            (5, Some(list)) => {
                let struct_name = match &t.name {
                    Some(n) => format!("struct {n}"),
                    None => "struct".to_string(),
                };
                out.push_str(&format!("//{pad}{struct_name}\n//{pad}{{\n//{pad}    \n"));
                let members = self.member_lists.get(list).ok_or_else(|| {
                    DecodeError::at(
                        0,
                        format!("RDEF refers to member list {list}, which does not exist"),
                    )
                })?;
                for (i, m) in members.iter().enumerate() {
                    let is_struct = self
                        .types
                        .get(m.type_id)
                        .is_some_and(|mt| mt.class == 5 && mt.members.is_some());
                    if is_struct && i > 0 {
                        out.push_str(&format!("//{pad}    \n"));
                    }
                    let member_offset = if offset == NO_OFFSET {
                        NO_OFFSET
                    } else {
                        offset.wrapping_add(m.offset)
                    };
                    self.declaration(
                        out,
                        m.type_id,
                        &m.name,
                        indent + 4,
                        member_offset,
                        "",
                        depth + 1,
                    )?;
                }
                out.push_str("//\n");
                format!("//{pad}}} {name}{array};")
            }
            _ => format!("//{pad}{} {name}{array};", self.type_spelling(t)),
        };
        out.push_str(&format!("{head:<40}// Offset: {offset_text:>4}{tail}\n"));
        Ok(())
    }

    /// The "Buffer Definitions" section (empty without constant buffers),
    /// ending with its closing `//`.
    pub fn buffer_definitions(&self) -> Result<String, DecodeError> {
        if self.constant_buffers.is_empty() {
            return Ok(String::new());
        }
        let mut out = String::from("// Buffer Definitions: \n//\n");
        for cb in &self.constant_buffers {
            out.push_str(&format!(
                "// {} {}\n// {{\n//\n",
                cbuffer_kind_name(cb.kind),
                cb.name
            ));
            for (i, v) in cb.variables.iter().enumerate() {
                let is_struct = self
                    .types
                    .get(v.type_id)
                    .is_some_and(|t| t.class == 5 && t.members.is_some());
                if is_struct && i > 0 {
                    out.push_str("//   \n");
                }
                let size = if v.size == 0 {
                    "N/A".to_string()
                } else {
                    v.size.to_string()
                };
                let unused = if v.flags & VARIABLE_USED == 0 {
                    " [unused]"
                } else {
                    ""
                };
                self.declaration(
                    &mut out,
                    v.type_id,
                    &v.name,
                    3,
                    v.offset,
                    &format!(" Size: {size:>5}{unused}"),
                    0,
                )?;
                if let Some(bytes) = &v.default_value {
                    let words = le_words(bytes);
                    for (row, chunk) in words.chunks(4).enumerate() {
                        out.push_str(if row == 0 { "//      = " } else { "//        " });
                        for w in chunk {
                            out.push_str(&format!("0x{w:08x} "));
                        }
                        out.push('\n');
                    }
                }
            }
            out.push_str("//\n// }\n//\n");
        }
        out.push_str("//\n");
        Ok(out)
    }

    /// The "Resource Bindings" section (empty without bindings), ending
    /// with its two closing `//` lines.
    pub fn resource_bindings(&self, style: BindingTableStyle) -> String {
        if self.bindings.is_empty() {
            return String::new();
        }
        let mut out = String::from("// Resource Bindings:\n//\n");
        match style {
            BindingTableStyle::Slot => {
                out.push_str("// Name                                 Type  Format         Dim Slot Elements\n");
                out.push_str("// ------------------------------ ---------- ------- ----------- ---- --------\n");
            }
            BindingTableStyle::HlslBind => {
                out.push_str("// Name                                 Type  Format         Dim      HLSL Bind  Count\n");
                out.push_str("// ------------------------------ ---------- ------- ----------- -------------- ------\n");
            }
            BindingTableStyle::HlslBindWithId => {
                out.push_str("// Name                                 Type  Format         Dim      ID      HLSL Bind  Count\n");
                out.push_str("// ------------------------------ ---------- ------- ----------- ------- -------------- ------\n");
            }
        }
        for b in &self.bindings {
            let row = INPUT_TYPES.iter().find(|r| r.0 == b.input_type);
            let mut kind = row
                .map(|r| r.2.to_string())
                .unwrap_or_else(|| b.input_type.to_string());
            if b.input_type == INPUT_TYPE_SAMPLER && b.flags & BINDING_COMPARISON_SAMPLER != 0 {
                kind.push_str("_c");
            }
            let (format, dim) = match row.and_then(|r| r.4) {
                Some((format, dim)) => (format.to_string(), dim.to_string()),
                None => typed_format_and_dim(b),
            };
            let letter = match row.map(|r| r.3) {
                Some('b') => "cb".to_string(),
                Some(c) => c.to_string(),
                None => "?".to_string(),
            };
            match style {
                BindingTableStyle::Slot => out.push_str(&format!(
                    "// {:<30} {kind:>10} {format:>7} {dim:>11} {:>4} {:>8}\n",
                    b.name, b.bind_point, b.bind_count
                )),
                BindingTableStyle::HlslBind => out.push_str(&format!(
                    "// {:<30} {kind:>10} {format:>7} {dim:>11} {:>14} {:>6} \n",
                    b.name,
                    format!("{letter}{}", b.bind_point),
                    b.bind_count
                )),
                BindingTableStyle::HlslBindWithId => {
                    let bind = if b.space > 0 {
                        format!("{letter}{},space{}", b.bind_point, b.space)
                    } else {
                        format!("{letter}{}", b.bind_point)
                    };
                    let count = if b.bind_count == 0 {
                        "unbounded".to_string()
                    } else {
                        b.bind_count.to_string()
                    };
                    out.push_str(&format!(
                        "// {:<30} {kind:>10} {format:>7} {dim:>11} {:>7} {bind:>14} {count:>6} \n",
                        b.name,
                        format!("{}{}", letter.to_ascii_uppercase(), b.id),
                    ));
                }
            }
        }
        out.push_str("//\n//\n");
        out
    }
}

/// The `Format` and `Dim` columns of a typed binding (textures, typed UAVs
/// and unknown input types): return type and component count, dimension
/// and sample count.
fn typed_format_and_dim(b: &ResourceBinding) -> (String, String) {
    let mut format = return_type_name(b.return_type);
    let components = ((b.flags >> 2) & 3) + 1;
    if components > 1 {
        format.push_str(&components.to_string());
    }
    let mut dim = dimension_name(b.dimension);
    if matches!(b.dimension, 6 | 7) && b.sample_count != 0 && b.sample_count != u32::MAX {
        dim.push_str(&b.sample_count.to_string());
    }
    (format, dim)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cbuffer with a struct variable (two float members sharing one
    /// type), a default value and a texture binding, built from data.
    fn sample() -> Rdef {
        let mut r = Rdef::new(
            RdefTarget(0xFFFF_0500),
            "Microsoft (R) HLSL Shader Compiler 10.1",
        );
        let mut float = ShaderType::numeric(0, 3, 1, 1, 0);
        float.name = Some("float".into());
        r.types.push(float);
        r.member_lists.push(vec![
            TypeMember {
                name: "a".into(),
                type_id: 0,
                offset: 0,
            },
            TypeMember {
                name: "b".into(),
                type_id: 0,
                offset: 4,
            },
        ]);
        let mut s = ShaderType::numeric(5, 0, 1, 2, 0);
        s.members = Some(0);
        s.name = Some("S".into());
        r.types.push(s);
        r.constant_buffers.push(ConstantBuffer {
            name: "cb".into(),
            variables: vec![
                Variable {
                    name: "s".into(),
                    offset: 0,
                    size: 8,
                    flags: VARIABLE_USED,
                    type_id: 1,
                    default_value: None,
                    slots: [NO_SLOT, 0, NO_SLOT, 0],
                },
                Variable {
                    name: "f".into(),
                    offset: 8,
                    size: 4,
                    flags: 0,
                    type_id: 0,
                    default_value: Some(vec![0, 0, 0x80, 0x3f]),
                    slots: [NO_SLOT, 0, NO_SLOT, 0],
                },
            ],
            size: 16,
            flags: 0,
            kind: 0,
        });
        r.bindings.push(ResourceBinding {
            name: "cb".into(),
            input_type: 0,
            return_type: 0,
            dimension: 0,
            sample_count: 0,
            bind_point: 3,
            bind_count: 1,
            flags: 0,
            space: 0,
            id: 3,
        });
        r.bindings.push(ResourceBinding {
            name: "tex".into(),
            input_type: 2,
            return_type: 5,
            dimension: 6,
            sample_count: 4,
            bind_point: 0,
            bind_count: 1,
            flags: 12,
            space: 0,
            id: 0,
        });
        r
    }

    #[test]
    fn return_types_use_the_token_numbering_and_reflection_spelling() {
        assert_eq!(return_type_name(5), "float");
        assert_eq!(return_type_name(3), "sint");
        assert_eq!(return_type_name(8), "continued");
        assert_eq!(return_type_name(9), "9");
        assert_eq!(return_type_name(0), "0");
    }

    #[test]
    fn built_rdef_round_trips_and_shares_types() {
        let r = sample();
        let bytes = r.to_bytes();
        let back = Rdef::parse(&bytes).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.to_bytes(), bytes);
        // One float type record shared by both members and the variable.
        assert_eq!(back.types.len(), 2);
        assert_eq!(back.compiler_version(), Some(vec![10, 1]));
    }

    #[test]
    fn prints_buffers_and_bindings_like_fxc() {
        let r = sample();
        assert_eq!(
            r.buffer_definitions().unwrap(),
            "// Buffer Definitions: \n//\n// cbuffer cb\n// {\n//\n\
             //   struct S\n\
             //   {\n\
             //       \n\
             //       float a;                       // Offset:    0\n\
             //       float b;                       // Offset:    4\n\
             //\n\
             //   } s;                               // Offset:    0 Size:     8\n\
             //   float f;                           // Offset:    8 Size:     4 [unused]\n\
             //      = 0x3f800000 \n\
             //\n// }\n//\n//\n"
        );
        let table = r.resource_bindings(BindingTableStyle::HlslBind);
        assert!(table.contains("// cb                                cbuffer      NA          NA            cb3      1 \n"), "{table}");
        assert!(table.contains("// tex                               texture  float4       2dMS4             t0      1 \n"), "{table}");
        let old = r.resource_bindings(BindingTableStyle::Slot);
        assert!(
            old.contains(
                "// cb                                cbuffer      NA          NA    3        1\n"
            ),
            "{old}"
        );
    }

    #[test]
    fn shared_member_lists_cannot_blow_up_the_listing() {
        // Type k is a struct of two members of type k-1, 40 levels deep:
        // 2^40 leaf lines if printed naively.
        let mut r = Rdef::new(RdefTarget(0xFFFF_0500), "fxc");
        r.types.push(ShaderType::numeric(0, 3, 1, 1, 0));
        for k in 1..=40 {
            r.member_lists.push(vec![
                TypeMember {
                    name: "a".into(),
                    type_id: k - 1,
                    offset: 0,
                },
                TypeMember {
                    name: "b".into(),
                    type_id: k - 1,
                    offset: 0,
                },
            ]);
            let mut s = ShaderType::numeric(5, 0, 1, 1, 0);
            s.members = Some(k - 1);
            r.types.push(s);
        }
        r.constant_buffers.push(ConstantBuffer {
            name: "cb".into(),
            variables: vec![Variable {
                name: "v".into(),
                offset: 0,
                size: 4,
                flags: 0,
                type_id: 40,
                default_value: None,
                slots: [NO_SLOT, 0, NO_SLOT, 0],
            }],
            size: 16,
            flags: 0,
            kind: 0,
        });
        let back = Rdef::parse(&r.to_bytes()).unwrap();
        let e = back.buffer_definitions().unwrap_err();
        assert!(e.message.contains("expand to more than"), "{}", e.message);
    }

    #[test]
    fn malformed_rdef_reports_offsets() {
        let bytes = sample().to_bytes();
        // Truncated header.
        let e = Rdef::parse(&bytes[..20]).unwrap_err();
        assert_eq!(e.offset, 20);
        // Creator offset out of range.
        let mut bad = bytes.clone();
        bad[24..28].copy_from_slice(&5000u32.to_le_bytes());
        let e = Rdef::parse(&bad).unwrap_err();
        assert_eq!(e.offset, 24);
        assert!(
            e.message
                .contains("creator string: string offset 5000 is outside"),
            "{}",
            e.message
        );
        // Binding count too large.
        let mut bad = bytes.clone();
        bad[8..12].copy_from_slice(&1000u32.to_le_bytes());
        let e = Rdef::parse(&bad).unwrap_err();
        assert_eq!(e.offset, 8);
        assert!(
            e.message.contains("1000 records of 32 bytes"),
            "{}",
            e.message
        );
        // A struct whose member is the struct itself.
        let r = Rdef::parse(&bytes).unwrap();
        let mut enc = r.to_bytes();
        let s_type = {
            // find the struct record: class 5 at a 4-aligned offset
            (0..enc.len() - 36)
                .step_by(4)
                .find(|&o| enc[o] == 5 && enc[o + 1] == 0 && enc[o + 10] == 2)
                .unwrap()
        };
        let members =
            u32::from_le_bytes(enc[s_type + 12..s_type + 16].try_into().unwrap()) as usize;
        enc[members + 4..members + 8].copy_from_slice(&(s_type as u32).to_le_bytes());
        let e = Rdef::parse(&enc).unwrap_err();
        assert_eq!(e.offset, s_type);
        assert!(e.message.contains("contains itself"), "{}", e.message);
    }
}
