//! Linear-light copies of sRGB RGBA8 textures for compiled code
//! ([`LinearCopies`]): each texel decoded once per draw, as four f32 words
//! (r, g, b through the sRGB decode table, a as UNORM8, the words
//! [`Format::decode`] gives), so that compiled code reads an sRGB view's
//! bilinear taps as RGBA32F ones, two 64-bit words a texel, instead of a
//! texel word and three lookups in the decode table per tap. The filtered
//! results are the same bits: the taps hold the same values and the lerps
//! are the same.

use super::{Format, Texture};
use std::sync::OnceLock;

/// The most texels a copy holds (every level): 16 MiB of f32 words.
pub const MAX_COPY_TEXELS: u64 = 1 << 20;

/// Texels a draw of any size may copy (a 64 x 64 texture and its levels).
pub const SMALL_TEXELS: u64 = 1 << 13;

/// Per texture index, its linear copy, made the first time compiled code
/// samples it through an sRGB RGBA8 view (from any thread). Made for one
/// draw (or other run), while its textures do not change; a texture
/// larger than the copies' cap keeps the decode table.
pub struct LinearCopies {
    max_texels: u64,
    copies: Vec<OnceLock<Option<LinearTexture>>>,
}

/// One texture's levels decoded, with what they were made from.
struct LinearTexture {
    /// The first level's address and each level's length in bytes: the
    /// texture the copy belongs to.
    source: (usize, Vec<usize>),
    levels: Vec<Vec<u8>>,
}

impl LinearCopies {
    /// Room for the copies of `textures` textures of at most `max_texels`
    /// texels each (never above [`MAX_COPY_TEXELS`]); none made yet.
    pub fn new(textures: usize, max_texels: u64) -> LinearCopies {
        LinearCopies {
            max_texels: max_texels.min(MAX_COPY_TEXELS),
            copies: (0..textures).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The copy of texture `index` (which is `tex`), its levels read as
    /// sRGB RGBA8 texels, made now if it is the first request; None when
    /// the texture is above the cap or its texels are not 4 bytes wide, or
    /// when the copy was made from another texture.
    pub(crate) fn levels(&self, index: usize, tex: &Texture) -> Option<&[Vec<u8>]> {
        let slot = self.copies.get(index)?;
        let copy = slot.get_or_init(|| self.make(tex)).as_ref()?;
        (copy.source == source_of(tex)).then_some(copy.levels.as_slice())
    }

    /// Room for the copies of `res`'s textures for a draw over `samples`
    /// pixel samples: a copy of at most [`SMALL_TEXELS`] texels or half as
    /// many as the samples, so that decoding a texture costs a fraction of
    /// the draw; none without [`crate::Limits::linear_copies`].
    pub fn for_draw(res: &crate::Resources, samples: u64, limits: &crate::Limits) -> LinearCopies {
        let cap = if limits.linear_copies {
            (samples / 2).max(SMALL_TEXELS)
        } else {
            0
        };
        LinearCopies::new(res.textures.len(), cap)
    }

    fn make(&self, tex: &Texture) -> Option<LinearTexture> {
        if tex.format.bytes_per_texel() != 4 {
            return None;
        }
        let texels: u64 = tex.levels.iter().map(|l| l.len() as u64 / 4).sum();
        if texels > self.max_texels {
            return None;
        }
        let levels = tex
            .levels
            .iter()
            .map(|level| {
                let mut out = Vec::with_capacity(level.len() * 4);
                for texel in level.chunks_exact(4) {
                    for word in Format::Rgba8Srgb.decode(texel) {
                        out.extend_from_slice(&word.to_le_bytes());
                    }
                }
                out
            })
            .collect();
        Some(LinearTexture {
            source: source_of(tex),
            levels,
        })
    }
}

/// What identifies a texture's texels: the first level's address and every
/// level's length.
fn source_of(tex: &Texture) -> (usize, Vec<usize>) {
    let first = tex.levels.first().map_or(0, |l| l.as_ptr() as usize);
    (first, tex.levels.iter().map(Vec::len).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi_ir::enums::TextureTarget;

    /// A copy holds each texel as `Format::decode` reads it (every byte
    /// value in every channel), is made once, and is refused above the cap
    /// and for another texture at the same index.
    #[test]
    fn copies_hold_the_decoded_texels() {
        let mut tex = Texture::new(
            TextureTarget::Tex2D,
            Format::Rgba8Srgb,
            [16, 16, 1],
            1,
            2,
            1,
        )
        .unwrap();
        for (i, b) in tex.levels[0].iter_mut().enumerate() {
            *b = (i * 7 + i / 4) as u8;
        }
        let copies = LinearCopies::new(2, 1000);
        let levels = copies.levels(1, &tex).unwrap();
        assert_eq!(levels.len(), 2);
        for (texel, words) in tex.levels[0].chunks(4).zip(levels[0].chunks(16)) {
            let want = Format::Rgba8Srgb.decode(texel);
            let got: Vec<u32> = words
                .chunks(4)
                .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
                .collect();
            assert_eq!(got, want);
        }
        let first = levels[0].as_ptr();
        assert_eq!(copies.levels(1, &tex).unwrap()[0].as_ptr(), first);
        let other = tex.clone();
        assert!(copies.levels(1, &other).is_none());
        assert!(copies.levels(5, &tex).is_none());
        let small = LinearCopies::new(1, 16 * 16);
        assert!(
            small.levels(0, &tex).is_none(),
            "320 texels over a cap of 256"
        );
    }
}
