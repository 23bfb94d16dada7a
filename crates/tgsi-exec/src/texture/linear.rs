//! Decoded copies of textures for compiled code ([`LinearCopies`]): each
//! texel decoded once per draw by its view's format, as the four f32 words
//! [`Format::decode`] gives (sRGB: r, g, b through the decode table, a as
//! UNORM8), so that compiled code reads the bilinear taps of an sRGB
//! RGBA8 view, or of a view of any other filterable format it does not
//! decode itself (R8, RG16, RGBA16F, R32F, RGB10A2, ...), as RGBA32F ones,
//! one 16-byte load a texel (for sRGB instead of a texel word and three
//! lookups in the decode table per tap). The filtered results are the
//! same bits: the taps hold the values the interpreter decodes and the
//! lerps are the same.

use super::{Format, Texture};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most texels a draw's copies hold together (every level of every
/// texture): 16 MiB of f32 words.
pub const MAX_COPY_TEXELS: u64 = 1 << 20;

/// Texels a draw of any size may copy of one texture (a 64 x 64 texture
/// and its levels, decoded in some microseconds).
pub const SMALL_TEXELS: u64 = 1 << 13;

/// Per texture index, its decoded copy, made the first time compiled code
/// samples it inline through a view that needs one (an sRGB RGBA8 view,
/// or another filterable format than RGBA8 UNORM and RGBA32F), from any
/// thread. Made for one draw (or other run), while its textures do not
/// change; a texture above the caps is not copied (an sRGB view keeps the
/// decode table, another format the interpreter's handler).
pub struct LinearCopies {
    max_texels: u64,
    /// Texels the copies not made yet may still take, all together.
    room: AtomicU64,
    copies: Vec<OnceLock<Option<LinearTexture>>>,
}

/// One texture's levels decoded, with what they were made from.
struct LinearTexture {
    /// The first level's address and each level's length in bytes: the
    /// texture the copy belongs to.
    source: (usize, Vec<usize>),
    /// The format the texels were decoded by.
    format: Format,
    levels: Vec<Vec<u8>>,
}

impl LinearCopies {
    /// Room for the copies of `textures` textures of at most `max_texels`
    /// texels each, [`MAX_COPY_TEXELS`] in all; none made yet.
    pub fn new(textures: usize, max_texels: u64) -> LinearCopies {
        LinearCopies {
            max_texels,
            room: AtomicU64::new(MAX_COPY_TEXELS),
            copies: (0..textures).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The copy of texture `index` (which is `tex`), its levels read as
    /// texels of `format`, made now if it is the first request; None when
    /// the texture is above the cap, is multisampled, its texels are not
    /// `format`'s size or are integers, or the draw's copies have no room
    /// left, or when the copy was made from another texture or format.
    pub(crate) fn levels(&self, index: usize, tex: &Texture, format: Format) -> Option<&[Vec<u8>]> {
        let slot = self.copies.get(index)?;
        let copy = slot.get_or_init(|| self.make(tex, format)).as_ref()?;
        (copy.source == source_of(tex) && copy.format == format).then_some(copy.levels.as_slice())
    }

    /// Room for the copies of `res`'s textures for a draw known to shade
    /// `samples` pixel samples (0 when that is not known): a copy of at
    /// most [`SMALL_TEXELS`] texels or a sixteenth of the samples, so that
    /// decoding a texture costs a fraction of the draw; none without
    /// [`crate::Limits::linear_copies`].
    pub fn for_draw(res: &crate::Resources, samples: u64, limits: &crate::Limits) -> LinearCopies {
        let cap = if limits.linear_copies {
            (samples / 16).max(SMALL_TEXELS)
        } else {
            0
        };
        LinearCopies::new(res.textures.len(), cap)
    }

    /// Whether a copy of one of `res`'s textures could need more room than
    /// a draw of any size gets ([`SMALL_TEXELS`]): then the draw's samples
    /// are worth estimating for [`Self::for_draw`].
    pub fn wants_samples(res: &crate::Resources) -> bool {
        res.textures.iter().flatten().any(|t| {
            let texels = texels_of(t);
            copyable(t, t.format) && texels > SMALL_TEXELS && texels <= MAX_COPY_TEXELS
        })
    }

    fn make(&self, tex: &Texture, format: Format) -> Option<LinearTexture> {
        if !copyable(tex, format) {
            return None;
        }
        let bpt = format.bytes_per_texel();
        let texels = texels_of(tex);
        if texels > self.max_texels {
            return None;
        }
        // the room all the copies share
        self.room
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                r.checked_sub(texels)
            })
            .ok()?;
        let levels = tex
            .levels
            .iter()
            .map(|level| {
                let mut out = Vec::with_capacity(level.len() / bpt * 16);
                for texel in level.chunks_exact(bpt) {
                    for word in format.decode(texel) {
                        out.extend_from_slice(&word.to_le_bytes());
                    }
                }
                out
            })
            .collect();
        Some(LinearTexture {
            source: source_of(tex),
            format,
            levels,
        })
    }
}

/// Whether `tex` can be copied as texels of `format`: one sample per
/// texel, texels of `format`'s size, values that are filtered (not
/// integers).
fn copyable(tex: &Texture, format: Format) -> bool {
    let bpt = format.bytes_per_texel();
    tex.samples == 1 && bpt > 0 && bpt == tex.format.bytes_per_texel() && !format.is_integer()
}

/// The texels of every level of a texture.
fn texels_of(tex: &Texture) -> u64 {
    let bpt = tex.format.bytes_per_texel().max(1) as u64;
    tex.levels.iter().map(|l| l.len() as u64 / bpt).sum()
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
        let levels = copies.levels(1, &tex, Format::Rgba8Srgb).unwrap();
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
        assert_eq!(
            copies.levels(1, &tex, Format::Rgba8Srgb).unwrap()[0].as_ptr(),
            first
        );
        // (made by one format: not another's)
        assert!(copies.levels(1, &tex, Format::Rgba8Unorm).is_none());
        let other = tex.clone();
        assert!(copies.levels(1, &other, Format::Rgba8Srgb).is_none());
        assert!(copies.levels(5, &tex, Format::Rgba8Srgb).is_none());
        let small = LinearCopies::new(1, 16 * 16);
        assert!(
            small.levels(0, &tex, Format::Rgba8Srgb).is_none(),
            "320 texels over a cap of 256"
        );
        // the copies share their room
        let shared = LinearCopies {
            room: AtomicU64::new(500),
            ..LinearCopies::new(2, 1000)
        };
        assert!(shared.levels(0, &tex, Format::Rgba8Srgb).is_some());
        assert!(
            shared.levels(1, &tex, Format::Rgba8Srgb).is_none(),
            "320 more texels in a room of 180"
        );
    }

    /// Textures of other formats are copied as their views read them
    /// (RG16F, RGB10A2 texels of every byte value decoded by
    /// `Format::decode`); integer formats, a view of another texel size
    /// and multisampled textures are not.
    #[test]
    fn copies_decode_by_the_views_format() {
        for format in [Format::Rg16Float, Format::Rgb10a2Unorm, Format::R8Unorm] {
            let mut tex = Texture::new(TextureTarget::Tex2D, format, [8, 8, 1], 1, 4, 1).unwrap();
            for level in &mut tex.levels {
                for (i, b) in level.iter_mut().enumerate() {
                    *b = (i * 37 + i / 3) as u8;
                }
            }
            let bpt = format.bytes_per_texel();
            let copies = LinearCopies::new(1, 1000);
            let levels = copies.levels(0, &tex, format).expect("a copy");
            assert_eq!(levels.len(), 4);
            for (level, copy) in tex.levels.iter().zip(levels) {
                assert_eq!(copy.len(), level.len() / bpt * 16);
                for (texel, words) in level.chunks(bpt).zip(copy.chunks(16)) {
                    let got: Vec<u32> = words
                        .chunks(4)
                        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
                        .collect();
                    assert_eq!(got, format.decode(texel), "{format:?}");
                }
            }
        }
        // an integer texture, a view whose format is not the texture's
        // size, a multisampled texture
        for (target, format, view, samples) in [
            (
                TextureTarget::Tex2D,
                Format::Rgba8Uint,
                Format::Rgba8Uint,
                1,
            ),
            (
                TextureTarget::Tex2D,
                Format::Rgba16Float,
                Format::Rgba8Unorm,
                1,
            ),
            (
                TextureTarget::Msaa2D,
                Format::Rgba8Unorm,
                Format::Rgba8Unorm,
                4,
            ),
        ] {
            let tex = Texture::new(target, format, [8, 8, 1], 1, 1, samples).unwrap();
            assert!(
                LinearCopies::new(1, 1000).levels(0, &tex, view).is_none(),
                "{target:?} {format:?} {view:?}"
            );
        }
    }

    /// A draw copies small textures whatever its size and larger ones up
    /// to a sixteenth of its samples; the samples are worth estimating
    /// only with such a larger texture bound.
    #[test]
    fn draws_copy_as_their_samples_allow() {
        let tex = |side: u32| {
            let size = [side, side, 1];
            Some(Texture::new(TextureTarget::Tex2D, Format::Rgba8Srgb, size, 1, 1, 1).unwrap())
        };
        let mut res = crate::Resources {
            textures: vec![tex(64), None],
            ..crate::Resources::default()
        };
        assert!(!LinearCopies::wants_samples(&res));
        let limits = crate::Limits::default();
        let copies = LinearCopies::for_draw(&res, 0, &limits);
        assert!(
            copies
                .levels(0, res.textures[0].as_ref().unwrap(), Format::Rgba8Srgb)
                .is_some()
        );
        res.textures[1] = tex(128);
        assert!(LinearCopies::wants_samples(&res));
        let big = res.textures[1].as_ref().unwrap();
        assert!(
            LinearCopies::for_draw(&res, 0, &limits)
                .levels(1, big, Format::Rgba8Srgb)
                .is_none()
        );
        let copies = LinearCopies::for_draw(&res, 16 * 128 * 128, &limits);
        assert!(copies.levels(1, big, Format::Rgba8Srgb).is_some());
        let off = crate::Limits {
            linear_copies: false,
            ..limits
        };
        let copies = LinearCopies::for_draw(&res, 16 * 128 * 128, &off);
        assert!(
            copies
                .levels(0, res.textures[0].as_ref().unwrap(), Format::Rgba8Srgb)
                .is_none()
        );
    }

    /// A TEX of texture 0 through the first view and sampler, in a
    /// fragment shader.
    fn tex_op() -> super::super::TexOp {
        super::super::TexOp {
            opcode: tgsi_ir::opcode::Opcode::TEX,
            target: TextureTarget::Tex2D,
            resource_swizzle: [0, 1, 2, 3],
            gather_component: 0,
            return_type: None,
            fragment: true,
        }
    }

    /// Compiled code's description of an sRGB sample reads the copy's
    /// RGBA32F texels, every level, without the decode table; a sample
    /// compiled code cannot take inline (CLAMP_TO_BORDER, which reads the
    /// border) makes no copy.
    #[test]
    fn inline_samples_read_the_copy_and_only_they_make_one() {
        use super::super::exec::{inline_bilinear, plan_inline};
        use super::super::{Bindings, Filter, MipFilter, Sampler, View, Wrap};
        for (side, levels, wrap, inline) in [
            (16, 5, Wrap::Repeat, true),
            (12, 4, Wrap::Repeat, true),
            (16, 1, Wrap::ClampToBorder, false),
        ] {
            let sampler = Sampler {
                wrap: [wrap; 3],
                min: Filter::Linear,
                mag: Filter::Linear,
                mip: MipFilter::Linear,
                ..Sampler::default()
            };
            let size = [side, side, 1];
            let tex =
                Texture::new(TextureTarget::Tex2D, Format::Rgba8Srgb, size, 1, levels, 1).unwrap();
            let textures = vec![Some(tex)];
            let copies = LinearCopies::new(1, SMALL_TEXELS);
            let b = Bindings {
                textures: &textures,
                views: &[View::full()],
                samplers: &[sampler],
                images: &[],
                linear: Some(&copies),
            };
            let plan = plan_inline(&b, &tex_op(), 0, 0).expect("a planned sample");
            let made = || copies.copies[0].get().is_some();
            match inline_bilinear(&b, &plan) {
                Some(k) => {
                    assert!(inline, "{side}");
                    assert!(made() && k.first.is_float() && k.srgb.is_none());
                    let lods = k.lods.expect("mipmapped levels");
                    assert!(lods.levels[..levels as usize].iter().all(|l| l.is_float()));
                }
                None => assert!(!inline && !made(), "{side}: a copy made for nothing"),
            }
        }
    }
}
