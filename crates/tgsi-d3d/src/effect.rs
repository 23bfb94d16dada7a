//! Effects (`fx_4_0`, `fx_4_1`, `fx_5_0`): finds the shader containers an
//! effect embeds, so each can be listed like a standalone blob.
//!
//! An effect is either a DXBC container with an `FX10` chunk or, for
//! `fx_5_0`, a raw effect file starting with `0xFEFF2001`. Both store their
//! shaders as complete DXBC containers inside the effect data; this module
//! locates them by their `DXBC` magic and keeps those whose header and
//! chunk table parse, fit in the data and hold a program (`SHDR`/`SHEX`;
//! the effect's expression containers, `CTAB`/`CLI4`/`FXLC`, are skipped).

use super::blob::Bytes;
use super::container::{Container, DXBC_MAGIC, tags};

/// The first word of a raw `fx_5_0` effect file.
pub const RAW_EFFECT_MAGIC: u32 = 0xFEFF_2001;

/// Whether `blob` is a raw `fx_5_0` effect (not wrapped in DXBC).
pub fn is_raw_effect(blob: &[u8]) -> bool {
    Bytes::new(blob).u32(0, "the effect tag").ok() == Some(RAW_EFFECT_MAGIC)
}

/// A shader container found inside an effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedShader<'a> {
    /// Byte offset of the container in the effect blob.
    pub offset: usize,
    /// The container's bytes.
    pub bytes: &'a [u8],
}

/// The effect data of a blob (the whole of a raw effect, the `FX10`
/// chunk of a wrapped one) and its byte offset; `None` for other blobs.
fn effect_data(blob: &[u8]) -> Option<(&[u8], usize)> {
    if is_raw_effect(blob) {
        return Some((blob, 0));
    }
    let c = Container::parse(blob).ok()?;
    let fx = c.chunk(tags::FX10)?;
    let start = fx.payload_offset;
    Some((blob.get(start..start + fx.data.len())?, start))
}

/// The words of an effect header (D3DX11 Effects' `SBinaryHeader`) that a
/// check reads: byte offsets inside the effect data.
const HEADER_UNSTRUCTURED: usize = 32;
const HEADER_TOTAL_SHADERS: usize = 68;
/// The header's length: `fx_4_x`'s, and `fx_5_0`'s five more counts.
fn header_len(tag: u32) -> usize {
    if tag == RAW_EFFECT_MAGIC { 96 } else { 76 }
}

/// What is wrong with an effect's framing, as (byte offset in the blob,
/// message): a header or unstructured data (where the shaders are) that
/// runs past the data, a `DXBC` magic there whose container does not
/// parse, or more shader programs than the header counts. Empty for a
/// sound effect and for blobs that are no effect.
pub fn framing_problems(blob: &[u8]) -> Vec<(usize, String)> {
    let Some((data, base)) = effect_data(blob) else {
        return Vec::new();
    };
    let bytes = Bytes::new(data);
    let word = |at: usize| bytes.u32(at, "an effect word").ok();
    let mut problems = Vec::new();
    let tag = word(0).unwrap_or(0);
    let header = header_len(tag);
    if data.len() < header {
        problems.push((
            base,
            format!(
                "the effect's header needs {header} bytes, the data holds {}",
                data.len()
            ),
        ));
        return problems;
    }
    let unstructured = word(HEADER_UNSTRUCTURED).unwrap_or(0) as usize;
    if unstructured > data.len() - header {
        problems.push((
            base + HEADER_UNSTRUCTURED,
            format!(
                "the effect's unstructured data ({unstructured} bytes from byte offset {}) runs past the end of its {} bytes",
                base + header,
                data.len()
            ),
        ));
    }
    // A shader in the unstructured data is its size word, then a container
    // whose own size word (at +24) says the same: such a container must be
    // whole. Other `DXBC` bytes (in a name, a constant) are not shaders.
    let shaders_end = (header + unstructured).min(data.len());
    let mut at = header + 4;
    while at + 28 <= shaders_end {
        if data[at..at + 4] != DXBC_MAGIC {
            at += 1;
            continue;
        }
        let (Some(framed), Some(own)) = (word(at - 4), word(at + 24)) else {
            break;
        };
        if framed != own {
            at += 1;
            continue;
        }
        let size = own as usize;
        let bytes = data.get(at..at.saturating_add(size)).unwrap_or(&data[at..]);
        match Container::parse(bytes) {
            Ok(_) => at += size.max(4),
            Err(e) => {
                problems.push((
                    base + at,
                    format!(
                        "a shader container of the effect is broken: {}",
                        e.shifted(base + at)
                    ),
                ));
                at += 4;
            }
        }
    }
    let programs = embedded_shaders(blob).len();
    let declared = word(HEADER_TOTAL_SHADERS).unwrap_or(0) as usize;
    if programs > declared {
        problems.push((
            base + HEADER_TOTAL_SHADERS,
            format!("the effect's header counts {declared} shader(s), its data holds {programs} programs"),
        ));
    }
    problems
}

/// The shader containers embedded in an effect, in file order. For a DXBC
/// effect the search covers its `FX10` chunk; for a raw effect the whole
/// file. Other blobs give an empty list.
pub fn embedded_shaders(blob: &[u8]) -> Vec<EmbeddedShader<'_>> {
    let Some((data, base)) = effect_data(blob) else {
        return Vec::new();
    };
    let words = Bytes::new(data);
    let mut found = Vec::new();
    let mut at = 0usize;
    while at + 32 <= data.len() {
        if data[at..at + 4] != DXBC_MAGIC {
            at += 1;
            continue;
        }
        let size = words.u32(at + 24, "a container size").unwrap_or(0) as usize;
        let candidate = at
            .checked_add(size)
            .filter(|&end| end <= data.len() && size >= 32)
            .map(|end| &data[at..end]);
        match candidate.map(|bytes| (bytes, Container::parse(bytes))) {
            Some((bytes, Ok(c))) => {
                // Expression containers (CTAB/CLI4/FXLC) have no program.
                if c.program().is_some() {
                    found.push(EmbeddedShader {
                        offset: base + at,
                        bytes,
                    });
                }
                at += size;
            }
            _ => at += 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::{Chunk, FourCC};

    #[test]
    fn finds_containers_in_raw_and_wrapped_effects() {
        let shader = Container::new(vec![Chunk::new(
            FourCC(*b"SHEX"),
            vec![0x50, 0, 0, 0, 2, 0, 0, 0],
        )])
        .to_bytes();
        let mut raw = RAW_EFFECT_MAGIC.to_le_bytes().to_vec();
        raw.extend_from_slice(&[0; 12]);
        raw.extend_from_slice(&(shader.len() as u32).to_le_bytes());
        raw.extend_from_slice(&shader);
        raw.extend_from_slice(b"DXBC junk that is not a container at all......");
        let expression = Container::new(vec![Chunk::new(FourCC(*b"FXLC"), vec![0; 4])]).to_bytes();
        raw.extend_from_slice(&expression);
        let found = embedded_shaders(&raw);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].offset, 20);
        assert_eq!(found[0].bytes, &shader[..]);

        let wrapped = Container::new(vec![Chunk::new(tags::FX10, raw[4..].to_vec())]).to_bytes();
        let found = embedded_shaders(&wrapped);
        assert_eq!(found.len(), 1);
        assert_eq!(
            &wrapped[found[0].offset..found[0].offset + shader.len()],
            &shader[..]
        );
        assert!(embedded_shaders(&shader).is_empty());
    }

    /// A raw effect: a 96-byte header counting `declared` shaders, then the
    /// unstructured data (the shader's size word and bytes).
    fn raw_effect(shader: &[u8], declared: u32) -> Vec<u8> {
        let mut e = vec![0u8; 96];
        e[..4].copy_from_slice(&RAW_EFFECT_MAGIC.to_le_bytes());
        e[32..36].copy_from_slice(&(shader.len() as u32 + 4).to_le_bytes());
        e[68..72].copy_from_slice(&declared.to_le_bytes());
        e.extend_from_slice(&(shader.len() as u32).to_le_bytes());
        e.extend_from_slice(shader);
        e
    }

    #[test]
    fn framing_problems_name_their_byte_offsets() {
        let shader = Container::new(vec![Chunk::new(
            FourCC(*b"SHEX"),
            vec![0x50, 0, 0, 0, 2, 0, 0, 0],
        )])
        .to_bytes();
        assert!(framing_problems(&raw_effect(&shader, 1)).is_empty());
        // `DXBC` in a name of the unstructured data is no shader
        let mut named = raw_effect(&shader, 1);
        named.splice(96..96, b"DXBCMaterial\0\0\0\0".iter().copied());
        let unstructured = (shader.len() + 4 + 16) as u32;
        named[32..36].copy_from_slice(&unstructured.to_le_bytes());
        assert!(
            framing_problems(&named).is_empty(),
            "{:?}",
            framing_problems(&named)
        );
        assert!(framing_problems(&shader).is_empty(), "no effect");
        // more programs than the header counts
        let problems = framing_problems(&raw_effect(&shader, 0));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].0, 68);
        // cut inside the shader: the data runs past, the container is broken
        let whole = raw_effect(&shader, 1);
        let problems = framing_problems(&whole[..whole.len() - 4]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].0, 32);
        assert!(problems[0].1.contains("runs past the end"), "{problems:?}");
        assert_eq!(problems[1].0, 100);
        assert!(problems[1].1.contains("broken"), "{problems:?}");
        // a header cut short
        let problems = framing_problems(&whole[..40]);
        assert!(
            problems[0].1.contains("header needs 96 bytes"),
            "{problems:?}"
        );
    }
}
