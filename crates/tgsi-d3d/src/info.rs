//! A summary of a DXBC blob for `tgsi info FILE.dxbc`: chunks and sizes,
//! checksum status, shader model and type, global flags and required
//! features, signatures, resource bindings, constant buffers and the STAT
//! counters; as a JSON value or as text.
//!
//! Libraries summarise each function's nested container, effects each
//! embedded shader.

use super::DecodeError;
use super::container::{ChecksumStatus, Container, checksum_hex, checksum_status, tags};
use super::effect::{embedded_shaders, is_raw_effect};
use super::enums::{GLOBAL_FLAG_NAMES, GlobalFlags};
use super::library::{LibraryHeader, ParameterSignature};
use super::listing::{ProgramFacts, check_nesting, decode_chunk};
use super::rdef::{
    Rdef, VARIABLE_USED, cbuffer_kind_name, dimension_name, input_type_name, return_type_name,
    variable_type_name,
};
use super::sfi0::Sfi0;
use super::signature::{
    Signature, SignatureKind, component_type_name, mask_letters, min_precision_name,
    system_value_name,
};
use super::stat::Stat;
use serde_json::{Map, Value, json};

/// One chunk of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Tag.
    pub tag: String,
    /// Byte offset of the chunk header in the blob.
    pub offset: usize,
    /// Payload size.
    pub size: usize,
}

/// What `tgsi info` reports about a blob.
#[derive(Clone, Debug)]
pub struct BlobInfo {
    /// Total size in bytes.
    pub size: usize,
    /// `shader`, `library`, `effect` or `raw effect`.
    pub kind: &'static str,
    /// The chunks (empty for a raw effect).
    pub chunks: Vec<ChunkInfo>,
    /// Checksum status (`None` for a raw effect).
    pub checksum: Option<ChecksumStatus>,
    /// The program's version and size.
    pub program: Option<ProgramFacts>,
    /// Decoded RDEF.
    pub rdef: Option<Rdef>,
    /// SFI0 feature mask.
    pub features: Option<Sfi0>,
    /// Signatures in chunk order.
    pub signatures: Vec<Signature>,
    /// STAT counters.
    pub stat: Option<Stat>,
    /// Library header.
    pub library: Option<LibraryHeader>,
    /// A library function's parameter signature (`LFS0`).
    pub parameters: Option<ParameterSignature>,
    /// Nested blobs: library functions or an effect's shaders.
    pub nested: Vec<NestedInfo>,
}

/// A container inside another one.
#[derive(Clone, Debug)]
pub struct NestedInfo {
    /// Byte offset in the outer blob.
    pub offset: usize,
    /// The library function's name (from LIBH), for library functions.
    pub name: Option<String>,
    /// Its summary.
    pub info: BlobInfo,
}

/// Decodes what `tgsi info` shows. Chunks this crate does not decode are
/// listed by tag and size only.
pub fn info(bytes: &[u8]) -> Result<BlobInfo, DecodeError> {
    info_at_depth(bytes, 0)
}

fn info_at_depth(bytes: &[u8], depth: usize) -> Result<BlobInfo, DecodeError> {
    check_nesting(depth, 0)?;
    if is_raw_effect(bytes) {
        let mut nested = Vec::new();
        for s in embedded_shaders(bytes) {
            nested.push(NestedInfo {
                offset: s.offset,
                name: None,
                info: info_at_depth(s.bytes, depth + 1).map_err(|e| e.shifted(s.offset))?,
            });
        }
        return Ok(BlobInfo {
            size: bytes.len(),
            kind: "raw effect",
            chunks: Vec::new(),
            checksum: None,
            program: None,
            rdef: None,
            features: None,
            signatures: Vec::new(),
            stat: None,
            library: None,
            parameters: None,
            nested,
        });
    }
    let c = Container::parse(bytes)?;
    let rdef = decode_chunk(&c, tags::RDEF, Rdef::parse)?;
    let stat = decode_chunk(&c, tags::STAT, Stat::parse)?;
    let features = decode_chunk(&c, tags::SFI0, Sfi0::parse)?;
    let mut program = None;
    if let Some(ch) = c.program() {
        program = Some(ProgramFacts::scan(&ch.data).map_err(|e| e.shifted(ch.payload_offset))?);
    }
    let mut signatures = Vec::new();
    for ch in &c.chunks {
        if let Some(kind) = SignatureKind::from_tag(ch.tag) {
            signatures
                .push(Signature::parse(kind, &ch.data).map_err(|e| e.shifted(ch.payload_offset))?);
        }
    }
    let mut library = None;
    let mut nested = Vec::new();
    if let Some(ch) = c.chunk(tags::LIBH) {
        library = Some(LibraryHeader::parse(&ch.data).map_err(|e| e.shifted(ch.payload_offset))?);
        let names: Vec<String> = library
            .as_ref()
            .map(|l: &LibraryHeader| l.functions.iter().map(|f| f.name.clone()).collect())
            .unwrap_or_default();
        for (i, f) in c.chunks_with(tags::LIBF).enumerate() {
            nested.push(NestedInfo {
                offset: f.payload_offset,
                name: names.get(i).cloned(),
                info: info_at_depth(&f.data, depth + 1).map_err(|e| e.shifted(f.payload_offset))?,
            });
        }
    }
    let is_effect = c.chunk(tags::FX10).is_some();
    if is_effect {
        for s in embedded_shaders(bytes) {
            nested.push(NestedInfo {
                offset: s.offset,
                name: None,
                info: info_at_depth(s.bytes, depth + 1).map_err(|e| e.shifted(s.offset))?,
            });
        }
    }
    Ok(BlobInfo {
        size: bytes.len(),
        kind: if library.is_some() {
            "library"
        } else if is_effect {
            "effect"
        } else {
            "shader"
        },
        chunks: c
            .chunks
            .iter()
            .map(|ch| ChunkInfo {
                tag: ch.tag.name(),
                offset: ch.payload_offset - 8,
                size: ch.data.len(),
            })
            .collect(),
        checksum: Some(checksum_status(bytes)?),
        program,
        rdef,
        features,
        signatures,
        stat,
        library,
        parameters: decode_chunk(&c, tags::LFS0, ParameterSignature::parse)?,
        nested,
    })
}

/// Names of the set `dcl_globalFlags` bits.
pub fn global_flag_names(flags: u32) -> Vec<String> {
    let mut names: Vec<String> = GLOBAL_FLAG_NAMES
        .iter()
        .filter(|(flag, _)| flags & flag.bits() != 0)
        .map(|(_, n)| n.to_string())
        .collect();
    let known = GlobalFlags::all().bits();
    if flags & !known != 0 {
        names.push(format!("0x{:x}", flags & !known));
    }
    names
}

fn signature_name(kind: SignatureKind) -> &'static str {
    match kind.role() {
        super::signature::SignatureRole::Input => "input",
        super::signature::SignatureRole::Output => "output",
        super::signature::SignatureRole::PatchConstant => "patch_constant",
    }
}

impl BlobInfo {
    /// The summary as JSON.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("size".into(), json!(self.size));
        o.insert("kind".into(), json!(self.kind));
        o.insert("chunks".into(), self.chunks_json());
        if let Some(status) = &self.checksum {
            o.insert("checksum".into(), checksum_json(status));
        }
        if let Some(p) = &self.program {
            o.insert("program".into(), program_json(p));
        }
        if let Some(f) = &self.features {
            o.insert("features".into(), json!(f.names()));
        }
        if let Some(r) = &self.rdef {
            o.insert("creator".into(), json!(r.creator));
            o.insert("compile_flags".into(), json!(r.flags));
            o.insert("resource_bindings".into(), resource_bindings_json(r));
            o.insert("constant_buffers".into(), constant_buffers_json(r));
        }
        let sigs = self.signatures_json();
        if !sigs.is_empty() {
            o.insert("signatures".into(), Value::Object(sigs));
        }
        if let Some(s) = &self.stat {
            o.insert("stat".into(), stat_json(s));
        }
        if let Some(l) = &self.library {
            o.insert("library".into(), library_json(l));
        }
        if let Some(p) = &self.parameters {
            o.insert("parameters".into(), parameters_json(p));
        }
        if !self.nested.is_empty() {
            o.insert("nested".into(), self.nested_json());
        }
        Value::Object(o)
    }

    /// `chunks`: tag, offset and size of each chunk.
    fn chunks_json(&self) -> Value {
        Value::Array(
            self.chunks
                .iter()
                .map(|c| json!({"tag": c.tag, "offset": c.offset, "size": c.size}))
                .collect(),
        )
    }

    /// `signatures`: each signature by its role, with its chunk and elements.
    fn signatures_json(&self) -> Map<String, Value> {
        let mut sigs = Map::new();
        for s in &self.signatures {
            sigs.insert(
                signature_name(s.kind).into(),
                json!({
                    "chunk": s.kind.tag().name(),
                    "elements": s.elements.iter().map(|e| json!({
                        "semantic": e.semantic_name,
                        "index": e.semantic_index,
                        "register": if e.register == u32::MAX { Value::Null } else { json!(e.register) },
                        "system_value": system_value_name(e.system_value),
                        "component_type": component_type_name(e.component_type),
                        "mask": mask_letters(e.mask).trim_end().to_string(),
                        "rw_mask": mask_letters(e.rw_mask).trim_end().to_string(),
                        "stream": e.stream,
                        "min_precision": min_precision_name(e.min_precision),
                    })).collect::<Vec<_>>(),
                }),
            );
        }
        sigs
    }

    /// `nested`: each nested blob's summary with its offset (and function
    /// name).
    fn nested_json(&self) -> Value {
        Value::Array(
            self.nested
                .iter()
                .map(|n| {
                    let mut v = n.info.to_json();
                    if let Value::Object(m) = &mut v {
                        m.insert("offset".into(), json!(n.offset));
                        if let Some(name) = &n.name {
                            m.insert("function".into(), json!(name));
                        }
                    }
                    v
                })
                .collect(),
        )
    }

    /// The summary as indented text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out, "");
        out
    }

    fn write_text(&self, out: &mut String, pad: &str) {
        out.push_str(&format!("{pad}{}: {} bytes\n", self.kind, self.size));
        match &self.checksum {
            Some(ChecksumStatus::Valid) => out.push_str(&format!("{pad}checksum: valid\n")),
            Some(ChecksumStatus::Mismatch { expected, stored }) => out.push_str(&format!(
                "{pad}checksum: MISMATCH (stored {}, computed {})\n",
                checksum_hex(stored),
                checksum_hex(expected)
            )),
            None => {}
        }
        if !self.chunks.is_empty() {
            out.push_str(&format!("{pad}chunks:\n"));
            for c in &self.chunks {
                out.push_str(&format!(
                    "{pad}  {:<4} at {:>6}, {:>6} bytes\n",
                    c.tag, c.offset, c.size
                ));
            }
        }
        if let Some(p) = &self.program {
            out.push_str(&format!(
                "{pad}program: {} ({} dwords, {} tokens)\n",
                p.model(),
                p.length,
                p.token_count
            ));
            if let Some(g) = p.global_flags {
                out.push_str(&format!(
                    "{pad}global flags: {}\n",
                    global_flag_names(g).join(", ")
                ));
            }
        }
        if let Some(r) = &self.rdef {
            out.push_str(&format!("{pad}creator: {}\n", r.creator));
        }
        if let Some(f) = &self.features
            && f.flags != 0
        {
            out.push_str(&format!("{pad}features: {}\n", f.names().join(", ")));
        }
        for s in &self.signatures {
            out.push_str(&format!(
                "{pad}{} signature ({}):\n",
                signature_name(s.kind),
                s.kind.tag()
            ));
            for e in &s.elements {
                let reg = if e.register == u32::MAX {
                    "-".to_string()
                } else {
                    e.register.to_string()
                };
                out.push_str(&format!(
                    "{pad}  {}{} reg {} mask {} {} {}\n",
                    e.semantic_name,
                    e.semantic_index,
                    reg,
                    mask_letters(e.mask).trim_end(),
                    system_value_name(e.system_value),
                    component_type_name(e.component_type)
                ));
            }
        }
        if let Some(r) = &self.rdef {
            if !r.bindings.is_empty() {
                out.push_str(&format!("{pad}resource bindings:\n"));
                for b in &r.bindings {
                    out.push_str(&format!(
                        "{pad}  {} {} bind {} count {} space {}\n",
                        b.name,
                        input_type_name(b.input_type),
                        b.bind_point,
                        b.bind_count,
                        b.space
                    ));
                }
            }
            for cb in &r.constant_buffers {
                out.push_str(&format!(
                    "{pad}{} {} ({} bytes):\n",
                    cbuffer_kind_name(cb.kind),
                    cb.name,
                    cb.size
                ));
                for v in &cb.variables {
                    out.push_str(&format!(
                        "{pad}  {} {} at {} ({} bytes){}\n",
                        r.type_name(v.type_id),
                        v.name,
                        v.offset,
                        v.size,
                        if v.flags & VARIABLE_USED == 0 {
                            " unused"
                        } else {
                            ""
                        }
                    ));
                }
            }
        }
        if let Some(s) = &self.stat {
            out.push_str(&format!(
                "{pad}instruction slots: {}\n",
                s.instruction_count()
            ));
        }
        if let Some(l) = &self.library {
            out.push_str(&format!(
                "{pad}library functions: {}\n",
                l.functions
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(p) = &self.parameters {
            out.push_str(&format!("{pad}parameters:\n"));
            for line in p.listing().lines().skip(4).filter(|l| *l != "//") {
                out.push_str(&format!(
                    "{pad} {}\n",
                    line.strip_prefix("//").unwrap_or(line)
                ));
            }
        }
        for n in &self.nested {
            match &n.name {
                Some(name) => {
                    out.push_str(&format!("{pad}function {name} at byte {}:\n", n.offset))
                }
                None => out.push_str(&format!("{pad}nested container at byte {}:\n", n.offset)),
            }
            n.info.write_text(out, &format!("{pad}  "));
        }
    }
}

/// `checksum`: valid, or both the computed and the stored one.
fn checksum_json(status: &ChecksumStatus) -> Value {
    match status {
        ChecksumStatus::Valid => json!({"status": "valid"}),
        ChecksumStatus::Mismatch { expected, stored } => json!({
            "status": "mismatch",
            "computed": checksum_hex(expected),
            "stored": checksum_hex(stored),
        }),
    }
}

/// `program`: the shader model, size and global flags.
fn program_json(p: &ProgramFacts) -> Value {
    json!({
        "model": p.model(),
        "major": p.major,
        "minor": p.minor,
        "dwords": p.length,
        "tokens": p.token_count,
        "global_flags": p.global_flags.map(global_flag_names).unwrap_or_default(),
        "debug_messages": p.has_debug_messages,
    })
}

/// `resource_bindings`: the RDEF bindings.
fn resource_bindings_json(r: &Rdef) -> Value {
    Value::Array(
        r.bindings
            .iter()
            .map(|b| {
                json!({
                    "name": b.name,
                    "type": input_type_name(b.input_type),
                    "return_type": return_type_name(b.return_type),
                    "dimension": dimension_name(b.dimension),
                    "bind_point": b.bind_point,
                    "bind_count": b.bind_count,
                    "space": b.space,
                    "id": b.id,
                    "flags": b.flags,
                })
            })
            .collect(),
    )
}

/// `constant_buffers`: the RDEF constant buffers and their variables.
fn constant_buffers_json(r: &Rdef) -> Value {
    Value::Array(
        r.constant_buffers
            .iter()
            .map(|cb| {
                json!({
                    "name": cb.name,
                    "kind": cbuffer_kind_name(cb.kind),
                    "size": cb.size,
                    "variables": cb.variables.iter().map(|v| json!({
                        "name": v.name,
                        "type": r.type_name(v.type_id),
                        "offset": v.offset,
                        "size": v.size,
                        "used": v.flags & VARIABLE_USED != 0,
                        "has_default": v.default_value.is_some(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// `stat`: the STAT counters by name.
fn stat_json(s: &Stat) -> Value {
    let mut m = Map::new();
    for (name, v) in s.named_fields() {
        m.insert(name, json!(v));
    }
    Value::Object(m)
}

/// `library`: the LIBH creator, flags and functions.
fn library_json(l: &LibraryHeader) -> Value {
    json!({
        "creator": l.creator,
        "flags": l.flags,
        "functions": l.functions.iter().map(|f| json!({"name": f.name, "mode": f.mode})).collect::<Vec<_>>(),
    })
}

/// `parameters`: a library function's parameter signature (LFS0).
fn parameters_json(p: &ParameterSignature) -> Value {
    Value::Array(
        p.parameters
            .iter()
            .map(|q| {
                json!({
                    "name": q.name,
                    "semantic": q.semantic,
                    "type": variable_type_name(u16::try_from(q.base_type).unwrap_or(u16::MAX)),
                    "rows": q.rows,
                    "columns": q.columns,
                    "flags": q.flags,
                    "first_in_register": q.first_in_register,
                    "first_out_register": q.first_out_register,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::{Chunk, FourCC};
    use crate::rdef::RdefTarget;
    use crate::signature::SignatureElement;

    #[test]
    fn summarises_a_small_blob() {
        let mut osgn = Signature::new(SignatureKind::Osgn);
        osgn.elements
            .push(SignatureElement::new("SV_Target", 0, 0, 3, 0, 0xf, 0));
        let shex = crate::blob::le_bytes(&[0x50, 3, 0x0100_003e]);
        let blob = Container::new(vec![
            Chunk::new(
                tags::RDEF,
                Rdef::new(RdefTarget(0xFFFF_0500), "fxc").to_bytes(),
            ),
            Chunk::new(FourCC(*b"OSGN"), osgn.to_bytes()),
            Chunk::new(tags::SHEX, shex),
        ])
        .to_bytes();
        let i = info(&blob).unwrap();
        let j = i.to_json();
        assert_eq!(j["kind"], "shader");
        assert_eq!(j["checksum"]["status"], "valid");
        assert_eq!(j["program"]["model"], "ps_5_0");
        assert_eq!(
            j["signatures"]["output"]["elements"][0]["semantic"],
            "SV_Target"
        );
        assert_eq!(j["chunks"][2]["tag"], "SHEX");
        let text = i.to_text();
        assert!(
            text.contains("program: ps_5_0 (3 dwords, 1 tokens)"),
            "{text}"
        );
        assert!(
            text.contains("SV_Target0 reg 0 mask xyzw NONE float"),
            "{text}"
        );
        let mut broken = blob.clone();
        broken[8] ^= 1;
        assert_eq!(
            info(&broken).unwrap().to_json()["checksum"]["status"],
            "mismatch"
        );
        assert_eq!(
            global_flag_names(0x5),
            ["refactoringAllowed", "forceEarlyDepthStencil"]
        );
    }
}
