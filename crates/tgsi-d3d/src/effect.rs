//! Effects (`fx_4_0`, `fx_4_1`, `fx_5_0`): finds the shader containers an
//! effect embeds, so each can be listed like a standalone blob.
//!
//! An effect is either a DXBC container with an `FX10` chunk or, for
//! `fx_5_0`, a raw effect file starting with `0xFEFF2001`. Both store their
//! shaders as complete DXBC containers inside the effect data; this module
//! locates them by their `DXBC` magic and keeps those whose header and
//! chunk table parse, fit in the data and hold a program (`SHDR`/`SHEX`;
//! the effect's expression containers, `CTAB`/`CLI4`/`FXLC`, are skipped).

use super::container::{Container, DXBC_MAGIC, tags};

/// The first word of a raw `fx_5_0` effect file.
pub const RAW_EFFECT_MAGIC: u32 = 0xFEFF_2001;

/// Whether `blob` is a raw `fx_5_0` effect (not wrapped in DXBC).
pub fn is_raw_effect(blob: &[u8]) -> bool {
    blob.len() >= 4 && u32::from_le_bytes([blob[0], blob[1], blob[2], blob[3]]) == RAW_EFFECT_MAGIC
}

/// A shader container found inside an effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedShader<'a> {
    /// Byte offset of the container in the effect blob.
    pub offset: usize,
    /// The container's bytes.
    pub bytes: &'a [u8],
}

/// The shader containers embedded in an effect, in file order. For a DXBC
/// effect the search covers its `FX10` chunk; for a raw effect the whole
/// file. Other blobs give an empty list.
pub fn embedded_shaders(blob: &[u8]) -> Vec<EmbeddedShader<'_>> {
    let (data, base) = if is_raw_effect(blob) {
        (blob, 0)
    } else {
        let Ok(c) = Container::parse(blob) else {
            return Vec::new();
        };
        let Some(fx) = c.chunk(tags::FX10) else {
            return Vec::new();
        };
        let start = fx.payload_offset;
        (&blob[start..start + fx.data.len()], start)
    };
    let mut found = Vec::new();
    let mut at = 0usize;
    while at + 32 <= data.len() {
        if data[at..at + 4] != DXBC_MAGIC {
            at += 1;
            continue;
        }
        let size = u32::from_le_bytes([data[at + 24], data[at + 25], data[at + 26], data[at + 27]])
            as usize;
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
}
