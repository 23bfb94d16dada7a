//! From `[texture N]`, `[image N]` and `[sampler N]` sections to the
//! machine's [`Texture`] and [`Sampler`] (also used by `tgsi render`).
//!
//! Texel data: components in order, texels row-major (x fastest), then rows,
//! then depth slices or array layers (a cube's six faces in the order +X,
//! -X, +Y, -Y, +Z, -Z), level by level. Values typed `float` (the default
//! for float and normalized formats) are encoded by the format; `uint`,
//! `int` and `hex` values are the channel's raw bits: bytes for `rgba8`,
//! `rgba8_srgb` and `r8`, half-float bits for `rgba16f`, words for the
//! 32-bit formats (so integer formats take integers, and `rgba8` data may be
//! written as 0..255 bytes). Texels without data stay zero.

use super::parse::{
    AddressMode, Filter, SamplerSection, TextureSection, TextureTarget as SectionTarget,
};
use super::values::ValueType;
use tgsi_exec::texture::format::Layout;
use tgsi_exec::texture::{self, Format, MipFilter, Sampler, Texture, Wrap};
use tgsi_ir::enums::TextureTarget;

/// The machine's target for a section's target word.
pub fn target_of(t: SectionTarget) -> TextureTarget {
    match t {
        SectionTarget::D1 => TextureTarget::Tex1D,
        SectionTarget::D2 => TextureTarget::Tex2D,
        SectionTarget::D3 => TextureTarget::Tex3D,
        SectionTarget::Cube => TextureTarget::Cube,
        SectionTarget::D1Array => TextureTarget::Array1D,
        SectionTarget::D2Array => TextureTarget::Array2D,
        SectionTarget::CubeArray => TextureTarget::CubeArray,
        SectionTarget::Rect => TextureTarget::Rect,
        SectionTarget::Buffer => TextureTarget::Buffer,
    }
}

/// Where each channel of a texel of `format` is stored: (first bit, bits)
/// inside the texel's little-endian bytes, in r, g, b, a order.
fn channel_bits(format: Format) -> Vec<(u32, u32)> {
    match format.layout() {
        Layout::Plain { bits, n, bgra, .. } => (0..n as u32)
            .map(|c| {
                let mem = if bgra && c < 3 { 2 - c } else { c };
                (mem * bits as u32, bits as u32)
            })
            .collect(),
        Layout::Rgb10a2 { .. } => vec![(0, 10), (10, 10), (20, 10), (30, 2)],
        Layout::Rg11b10f => vec![(0, 11), (11, 11), (22, 10)],
        Layout::Z32f => vec![(0, 32)],
        Layout::Z16 => vec![(0, 16)],
    }
}

/// Writes `bits` bits of `value` at bit `first` of `out` (little-endian).
fn write_channel(out: &mut [u8], first: u32, bits: u32, value: u32) {
    for b in 0..bits {
        let bit = first + b;
        if let Some(byte) = out.get_mut((bit / 8) as usize) {
            let m = 1u8 << (bit % 8);
            if (value >> b) & 1 != 0 {
                *byte |= m;
            } else {
                *byte &= !m;
            }
        }
    }
}

/// Builds the resource a `[texture N]` / `[image N]` section describes.
pub fn texture_from_section(s: &TextureSection) -> Result<Texture, String> {
    let target = target_of(s.target);
    let format = s.format;
    let [w, h, d] = s.size;
    let (size, layers) = match s.target {
        SectionTarget::D1 | SectionTarget::Buffer => ([w, 1, 1], 1),
        SectionTarget::D2 | SectionTarget::Rect => ([w, h, 1], 1),
        SectionTarget::D3 => ([w, h, d], 1),
        SectionTarget::Cube => ([w, h, 1], 6),
        SectionTarget::D1Array => ([w, 1, 1], h),
        SectionTarget::D2Array | SectionTarget::CubeArray => ([w, h, 1], d),
    };
    let mut tex = Texture::new(target, format, size, layers, s.levels, 1)?;
    let comps = format.channels();
    let channels = channel_bits(format);
    let bpt = format.bytes_per_texel();
    for (k, data) in s.data.iter().enumerate() {
        let Some(level) = tex.levels.get_mut(k) else {
            return Err(format!(
                "texel data for level {k}, but the resource has {} level(s)",
                s.levels
            ));
        };
        let texels = level.len() / bpt;
        if data.words.len() > texels * comps {
            return Err(format!(
                "level {k} holds {} components but {} values were given",
                texels * comps,
                data.words.len()
            ));
        }
        for (i, chunk) in data.words.chunks(comps).enumerate() {
            let out = &mut level[i * bpt..(i + 1) * bpt];
            match data.value_type {
                ValueType::Float => {
                    let mut v = [0u32; 4];
                    v[..chunk.len()].copy_from_slice(chunk);
                    format.encode_into(v, out);
                }
                _ => {
                    for (c, &word) in chunk.iter().enumerate() {
                        let (first, bits) = channels.get(c).copied().unwrap_or((0, 0));
                        if bits < 32 && u64::from(word) >= 1u64 << bits {
                            return Err(format!(
                                "level {k}, texel {i}: the value {word} does not fit the {bits}-bit channel {c} of `{}` (integer values are raw channel bits)",
                                format.short_name()
                            ));
                        }
                        write_channel(out, first, bits, word);
                    }
                }
            }
        }
    }
    Ok(tex)
}

/// The machine's sampler for a `[sampler N]` section (or `tgsi render
/// --sampler`). The border colour is kept as float bits.
pub fn sampler_from_section(s: &SamplerSection) -> Sampler {
    let filter = |f: Filter| match f {
        Filter::Linear => texture::Filter::Linear,
        Filter::Nearest | Filter::None => texture::Filter::Nearest,
    };
    let wrap = |a: AddressMode| match a {
        AddressMode::Wrap => Wrap::Repeat,
        AddressMode::Clamp => Wrap::ClampToEdge,
        AddressMode::Border => Wrap::ClampToBorder,
        AddressMode::Mirror => Wrap::MirrorRepeat,
        AddressMode::MirrorOnce => Wrap::MirrorClampToEdge,
    };
    Sampler {
        wrap: s.address.map(wrap),
        min: filter(s.min_filter),
        mag: filter(s.mag_filter),
        mip: match s.mip_filter {
            Filter::None => MipFilter::None,
            Filter::Nearest => MipFilter::Nearest,
            Filter::Linear => MipFilter::Linear,
        },
        lod_bias: s.lod_bias,
        min_lod: s.min_lod,
        max_lod: s.max_lod,
        compare: s.compare,
        border: s.border.map(f32::to_bits),
        normalized: s.normalized_coords,
        ..Sampler::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{LevelData, parse_file};

    fn section(text: &str) -> TextureSection {
        let file = parse_file("t", text).unwrap();
        match &file.sections[0].1 {
            super::super::parse::Section::Texture(t) => t.clone(),
            other => panic!("not a texture section: {other:?}"),
        }
    }

    #[test]
    fn rgba8_floats_and_bytes_give_the_same_texels() {
        let floats = section(
            "[texture 0]\ntarget 2d\nformat rgba8\nsize (2, 1)\n1.0 0.0 0.5 1.0  0.2 0.4 0.6 0.8\n",
        );
        let t = texture_from_section(&floats).unwrap();
        assert_eq!(t.target, TextureTarget::Tex2D);
        assert_eq!((t.width, t.height, t.layers), (2, 1, 1));
        // 0.5 * 255 = 127.5 rounds to 128; 0.2 * 255 = 51; 0.4 -> 102; 0.6 -> 153; 0.8 -> 204.
        assert_eq!(t.levels[0], vec![255, 0, 128, 255, 51, 102, 153, 204]);
        let bytes = section(
            "[texture 0]\ntarget 2d\nformat rgba8\nsize (2, 1)\nuint 255 0 128 255 51 102 153 204\n",
        );
        assert_eq!(texture_from_section(&bytes).unwrap().levels[0], t.levels[0]);
    }

    #[test]
    fn layout_levels_layers_and_cube_faces() {
        let s = section(
            "[texture 3]\ntarget 2d\nformat r32f\nsize (4, 2)\nlevels 2\n\
             0 1 2 3 4 5 6 7\nlevel 1\n9.5 10.5\n",
        );
        let t = texture_from_section(&s).unwrap();
        assert_eq!(t.levels.len(), 2);
        // Row 1, column 2 is the 7th value (index 6).
        assert_eq!(t.texel(0, 2, 1, 0, 0)[0], 6.0f32.to_bits());
        assert_eq!(t.texel(1, 1, 0, 0, 0)[0], 10.5f32.to_bits());

        let s = section("[texture 0]\ntarget 2d_array\nformat r32ui\nsize (1, 1, 3)\n7 8 9\n");
        let t = texture_from_section(&s).unwrap();
        assert_eq!(t.layers, 3);
        assert_eq!(t.texel(0, 0, 0, 2, 0)[0], 9);

        let s = section("[texture 0]\ntarget cube\nformat r32i\nsize (1, 1)\n1 2 3 4 5 -6\n");
        let t = texture_from_section(&s).unwrap();
        assert_eq!(t.layers, 6);
        assert_eq!(t.texel(0, 0, 0, 5, 0)[0], (-6i32) as u32);

        let s = section("[texture 0]\ntarget 1d_array\nformat r32f\nsize (2, 2)\n1 2 3 4\n");
        let t = texture_from_section(&s).unwrap();
        assert_eq!((t.width, t.height, t.layers), (2, 1, 2));
        assert_eq!(t.texel(0, 0, 0, 1, 0)[0], 3.0f32.to_bits());
    }

    #[test]
    fn raw_values_must_fit_the_channel() {
        let s = TextureSection {
            index: 0,
            image: false,
            target: SectionTarget::D2,
            format: Format::Rgba8Unorm,
            size: [1, 1, 1],
            levels: 1,
            data: vec![LevelData {
                value_type: ValueType::Uint,
                words: vec![256, 0, 0, 0],
            }],
        };
        let e = texture_from_section(&s).unwrap_err();
        assert!(e.contains("does not fit the 8-bit channel 0"), "{e}");
        // Missing texels stay zero; a half given texel is padded with zeros.
        let s = section("[texture 0]\ntarget 2d\nformat rgba32f\nsize (2, 1)\n1 2 3 4 5\n");
        let t = texture_from_section(&s).unwrap();
        assert_eq!(t.texel(0, 1, 0, 0, 0), [5.0f32.to_bits(), 0, 0, 0]);
    }

    #[test]
    fn sampler_sections_map_field_by_field() {
        let d = sampler_from_section(&SamplerSection::new(0));
        assert_eq!(d, Sampler::default());
        let file = parse_file(
            "t",
            "[sampler 1]\nfilter linear nearest linear\naddress wrap mirror mirror_once\n\
             border (1, 0.5, 0, 1)\ncompare less\nlod_bias -1\nmin_lod 0.5\nmax_lod 4\nnormalized_coords false\n",
        )
        .unwrap();
        let super::super::parse::Section::Sampler(s) = &file.sections[0].1 else {
            panic!("not a sampler");
        };
        let m = sampler_from_section(s);
        assert_eq!(
            m.wrap,
            [Wrap::Repeat, Wrap::MirrorRepeat, Wrap::MirrorClampToEdge]
        );
        assert_eq!(
            (m.min, m.mag, m.mip),
            (
                texture::Filter::Linear,
                texture::Filter::Nearest,
                MipFilter::Linear
            )
        );
        assert_eq!(
            m.border,
            [1.0f32.to_bits(), 0.5f32.to_bits(), 0, 1.0f32.to_bits()]
        );
        assert_eq!(m.compare, Some(texture::CompareFunc::Less));
        assert_eq!((m.lod_bias, m.min_lod, m.max_lod), (-1.0, 0.5, 4.0));
        assert!(!m.normalized && m.seamless_cube);
    }
}
