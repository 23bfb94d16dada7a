//! PNG files in and out, as 8-bit RGBA pixel arrays: what `tgsi render` and
//! the golden-image tests read and write.
//!
//! Loading accepts every PNG colour type and depth: grey, grey + alpha, RGB,
//! RGBA and palette images (with `tRNS` transparency) at 1 to 16 bits. Each
//! becomes four 8-bit channels: grey g → (g, g, g, 255), missing alpha →
//! 255, 16-bit samples → round(v · 255 / 65535). Saving writes 8-bit RGBA.
//! [`texture_from_image`] and [`target_to_image`] convert between such
//! images and the machine's textures (a PNG texture, a render target).
//! Sizes are capped so that a hostile header cannot ask for huge buffers.

use crate::enums::TextureTarget;
use crate::texture::{Format, Texture};
use std::path::Path;

/// Largest width × height accepted when loading (64 Mpixel).
pub const MAX_PIXELS: u64 = 1 << 26;

/// An image of `width × height` pixels, 4 bytes (R, G, B, A) each, rows top
/// to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgba8Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Rgba8Image {
    /// A zeroed image; an error when a side is 0 or the image is too large.
    pub fn new(width: u32, height: u32) -> Result<Rgba8Image, String> {
        check_size(width, height)?;
        Ok(Rgba8Image {
            width,
            height,
            pixels: vec![0; width as usize * height as usize * 4],
        })
    }

    /// Pixel (x, y), or None outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.pixels.get(i..i + 4).map(|p| [p[0], p[1], p[2], p[3]])
    }
}

fn check_size(width: u32, height: u32) -> Result<(), String> {
    if width == 0 || height == 0 {
        return Err(format!("a {width}x{height} image has no pixels"));
    }
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(format!(
            "a {width}x{height} image is larger than the limit of {MAX_PIXELS} pixels"
        ));
    }
    Ok(())
}

/// Decodes a PNG file's bytes.
pub fn decode_png(bytes: &[u8]) -> Result<Rgba8Image, String> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // Palette → RGB(A), grey below 8 bits → 8 bits, tRNS → alpha; 16-bit samples kept.
    decoder.set_transformations(png::Transformations::EXPAND);
    decoder.set_limits(png::Limits {
        bytes: (MAX_PIXELS * 8 + (1 << 20)) as usize,
    });
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("not a readable PNG file: {e}"))?;
    let (width, height) = {
        let info = reader.info();
        (info.width, info.height)
    };
    check_size(width, height)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| format!("a {width}x{height} PNG image is too large"))?;
    let mut buf = vec![0u8; size];
    let frame = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("corrupt PNG data: {e}"))?;
    // The first frame (an animated PNG's default image) is the image.
    let (width, height) = (frame.width, frame.height);
    check_size(width, height)?;
    let channels = match frame.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => {
            return Err("palette PNG was not expanded to RGB by the decoder".to_string());
        }
    };
    let wide = match frame.bit_depth {
        png::BitDepth::Eight => false,
        png::BitDepth::Sixteen => true,
        other => {
            return Err(format!(
                "PNG samples of {other:?} bits were not expanded to 8 bits by the decoder"
            ));
        }
    };
    let bytes_per_sample = if wide { 2 } else { 1 };
    let n = width as usize * height as usize;
    let line = frame.line_size;
    let data = &buf[..frame.buffer_size().min(buf.len())];
    let mut pixels = Vec::with_capacity(n * 4);
    for y in 0..height as usize {
        let row = data
            .get(y * line..y * line + width as usize * channels * bytes_per_sample)
            .ok_or_else(|| {
                "the PNG decoder returned fewer rows than the header says".to_string()
            })?;
        for px in row.chunks_exact(channels * bytes_per_sample) {
            let sample = |c: usize| -> u8 {
                if wide {
                    narrow16(u16::from_be_bytes([px[2 * c], px[2 * c + 1]]))
                } else {
                    px[c]
                }
            };
            let rgba = match channels {
                1 => [sample(0), sample(0), sample(0), 255],
                2 => [sample(0), sample(0), sample(0), sample(1)],
                3 => [sample(0), sample(1), sample(2), 255],
                _ => [sample(0), sample(1), sample(2), sample(3)],
            };
            pixels.extend_from_slice(&rgba);
        }
    }
    Ok(Rgba8Image {
        width,
        height,
        pixels,
    })
}

/// A 16-bit sample as the nearest 8-bit one: round(v · 255 / 65535).
fn narrow16(v: u16) -> u8 {
    ((u32::from(v) * 255 + 32767) / 65535) as u8
}

/// Encodes an image as an 8-bit RGBA PNG.
pub fn encode_png(img: &Rgba8Image) -> Result<Vec<u8>, String> {
    check_size(img.width, img.height)?;
    let expected = img.width as usize * img.height as usize * 4;
    if img.pixels.len() != expected {
        return Err(format!(
            "a {}x{} image needs {expected} bytes of pixels, found {}",
            img.width,
            img.height,
            img.pixels.len()
        ));
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, img.width, img.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .map_err(|e| format!("writing the PNG header: {e}"))?;
        writer
            .write_image_data(&img.pixels)
            .map_err(|e| format!("writing the PNG data: {e}"))?;
        writer
            .finish()
            .map_err(|e| format!("finishing the PNG file: {e}"))?;
    }
    Ok(out)
}

/// Reads and decodes a PNG file; errors name the file.
pub fn load_png(path: &Path) -> Result<Rgba8Image, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    decode_png(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Encodes and writes a PNG file; errors name the file.
pub fn save_png(path: &Path, img: &Rgba8Image) -> Result<(), String> {
    let bytes = encode_png(img).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// A float colour channel as an 8-bit UNORM value: clamped to [0, 1] (NaN
/// → 0), scaled by 255 and rounded to nearest (D3D's float → UNORM rule).
pub fn unorm8(v: f32) -> u8 {
    if v.is_nan() {
        return 0;
    }
    (v.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8
}

/// An RGBA8 image as a 2D texture (`rgba8` or `rgba8_srgb`), optionally with
/// every mip level (each texel of level k+1 the average of the up to 2x2
/// texels of level k it covers, averaged as decoded floats, so sRGB levels
/// are filtered in linear space).
pub fn texture_from_image(img: &Rgba8Image, srgb: bool, mips: bool) -> Result<Texture, String> {
    let name = if srgb { "rgba8_srgb" } else { "rgba8" };
    let format =
        Format::from_short_name(name).ok_or_else(|| format!("no texel format `{name}`"))?;
    let levels = if mips {
        32 - img.width.max(img.height).leading_zeros()
    } else {
        1
    };
    let mut tex = Texture::new(
        TextureTarget::Tex2D,
        format,
        [img.width, img.height, 1],
        1,
        levels,
        1,
    )?;
    let level0 = tex.levels.first_mut().ok_or("the texture has no level 0")?;
    if level0.len() != img.pixels.len() {
        return Err(format!(
            "a {}x{} RGBA8 level holds {} bytes, the image {}",
            img.width,
            img.height,
            level0.len(),
            img.pixels.len()
        ));
    }
    level0.copy_from_slice(&img.pixels);
    for k in 1..levels {
        let (w, h, _) = tex.level_dims(k);
        let (pw, ph, _) = tex.level_dims(k - 1);
        for y in 0..h {
            for x in 0..w {
                let mut sum = [0f32; 4];
                let mut n = 0f32;
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let (sx, sy) = (2 * x + dx, 2 * y + dy);
                    if sx < pw && sy < ph {
                        let t = tex.texel(k - 1, sx, sy, 0, 0);
                        for (acc, word) in sum.iter_mut().zip(t) {
                            *acc += f32::from_bits(word);
                        }
                        n += 1.0;
                    }
                }
                let avg = sum.map(|s| (s / n).to_bits());
                tex.set_texel(k, x, y, 0, 0, avg)?;
            }
        }
    }
    Ok(tex)
}

/// The render target's pixels as 8-bit RGBA.
pub fn target_to_image(target: &Texture) -> Result<Rgba8Image, String> {
    let mut img = Rgba8Image::new(target.width, target.height)?;
    let level = target.levels.first().ok_or("the target has no level 0")?;
    match target.format.short_name() {
        "rgba8" | "rgba8_srgb" => {
            if level.len() != img.pixels.len() {
                return Err("the target's storage does not match its size".into());
            }
            img.pixels.copy_from_slice(level);
        }
        _ => {
            for y in 0..target.height {
                for x in 0..target.width {
                    let t = target.texel(0, x, y, 0, 0);
                    let i = (y as usize * target.width as usize + x as usize) * 4;
                    for (out, word) in img.pixels[i..i + 4].iter_mut().zip(t) {
                        *out = unorm8(f32::from_bits(word));
                    }
                }
            }
        }
    }
    Ok(img)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode_raw(
        width: u32,
        height: u32,
        color: png::ColorType,
        depth: png::BitDepth,
        data: &[u8],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, width, height);
        e.set_color(color);
        e.set_depth(depth);
        let mut w = e.write_header().unwrap();
        w.write_image_data(data).unwrap();
        w.finish().unwrap();
        out
    }

    #[test]
    fn rgba_round_trip_is_exact() {
        let mut img = Rgba8Image::new(3, 2).unwrap();
        for (i, b) in img.pixels.iter_mut().enumerate() {
            *b = (i * 37 % 256) as u8;
        }
        let back = decode_png(&encode_png(&img).unwrap()).unwrap();
        assert_eq!(back, img);
        assert_eq!(
            back.pixel(2, 1),
            Some([
                (20 * 37 % 256) as u8,
                (21 * 37 % 256) as u8,
                (22 * 37 % 256) as u8,
                (23 * 37 % 256) as u8
            ])
        );
        assert_eq!(back.pixel(3, 0), None);
    }

    #[test]
    fn grey_rgb_and_16_bit_become_rgba8() {
        let grey = encode_raw(
            2,
            1,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[10, 200],
        );
        let g = decode_png(&grey).unwrap();
        assert_eq!(g.pixels, vec![10, 10, 10, 255, 200, 200, 200, 255]);

        let rgb = encode_raw(1, 1, png::ColorType::Rgb, png::BitDepth::Eight, &[1, 2, 3]);
        assert_eq!(decode_png(&rgb).unwrap().pixels, vec![1, 2, 3, 255]);

        let ga = encode_raw(
            1,
            1,
            png::ColorType::GrayscaleAlpha,
            png::BitDepth::Eight,
            &[7, 9],
        );
        assert_eq!(decode_png(&ga).unwrap().pixels, vec![7, 7, 7, 9]);

        // 16-bit: 0xFFFF → 255, 0x8080 = 32896 → round(32896·255/65535) = 128,
        // 0x0080 = 128 → round(0.498) = 0, 0x0081 = 129 → round(0.502) = 1.
        let wide = encode_raw(
            1,
            1,
            png::ColorType::Rgba,
            png::BitDepth::Sixteen,
            &[0xFF, 0xFF, 0x80, 0x80, 0x00, 0x80, 0x00, 0x81],
        );
        assert_eq!(decode_png(&wide).unwrap().pixels, vec![255, 128, 0, 1]);

        // 1-bit grey: bits 1, 0 → 255, 0.
        let bits = encode_raw(
            2,
            1,
            png::ColorType::Grayscale,
            png::BitDepth::One,
            &[0b1000_0000],
        );
        assert_eq!(
            decode_png(&bits).unwrap().pixels,
            vec![255, 255, 255, 255, 0, 0, 0, 255]
        );
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(
            decode_png(b"not a png")
                .unwrap_err()
                .contains("not a readable PNG")
        );
        let good = encode_png(&Rgba8Image::new(4, 4).unwrap()).unwrap();
        assert!(decode_png(&good[..good.len() - 20]).is_err());
        assert!(Rgba8Image::new(0, 4).is_err());
        let short = Rgba8Image {
            width: 2,
            height: 2,
            pixels: vec![0; 15],
        };
        assert!(encode_png(&short).unwrap_err().contains("needs 16 bytes"));
        assert!(
            load_png(Path::new("/nonexistent/x.png"))
                .unwrap_err()
                .contains("cannot read")
        );
    }

    #[test]
    fn unorm8_rounds_and_clamps() {
        assert_eq!(unorm8(0.0), 0);
        assert_eq!(unorm8(1.0), 255);
        assert_eq!(unorm8(2.0), 255);
        assert_eq!(unorm8(-1.0), 0);
        assert_eq!(unorm8(f32::NAN), 0);
        // 0.5 · 255 = 127.5 → 128; 1/255 → 1; 0.4/255 → 0.
        assert_eq!(unorm8(0.5), 128);
        assert_eq!(unorm8(1.0 / 255.0), 1);
        assert_eq!(unorm8(0.4 / 255.0), 0);
    }

    #[test]
    fn image_to_texture_and_mips() {
        let mut img = Rgba8Image::new(2, 2).unwrap();
        // Texels 0, 100, 200, 255 in every channel.
        for (i, v) in [0u8, 100, 200, 255].iter().enumerate() {
            img.pixels[i * 4..i * 4 + 4].copy_from_slice(&[*v; 4]);
        }
        let t = texture_from_image(&img, false, true).unwrap();
        assert_eq!(t.levels.len(), 2);
        assert_eq!(t.levels[0], img.pixels);
        // (0 + 100 + 200 + 255) / 4 = 138.75 → 139.
        assert_eq!(t.levels[1], vec![139; 4]);
        let t = texture_from_image(&img, true, false).unwrap();
        assert_eq!(t.format.short_name(), "rgba8_srgb");
        assert_eq!(t.levels.len(), 1);
    }

    #[test]
    fn float_target_to_png_pixels() {
        let format = Format::from_short_name("rgba32f").unwrap();
        let mut t = Texture::new(TextureTarget::Tex2D, format, [2, 1, 1], 1, 1, 1).unwrap();
        t.set_texel(0, 0, 0, 0, 0, [0.5f32, 1.5, -1.0, 1.0].map(f32::to_bits))
            .unwrap();
        t.set_texel(
            0,
            1,
            0,
            0,
            0,
            [f32::NAN, 0.2, 1.0 / 255.0, 0.0].map(f32::to_bits),
        )
        .unwrap();
        let img = target_to_image(&t).unwrap();
        // 0.5 → 127.5 → 128; clamps; NaN → 0; 0.2 → 51.
        assert_eq!(img.pixels, vec![128, 255, 0, 255, 0, 51, 1, 0]);
    }
}
