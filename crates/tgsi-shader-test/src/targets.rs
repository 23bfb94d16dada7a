//! The render targets of one `[test]` and the pixel probes that read them.
//!
//! With `[render target N]` sections, every declared target exists from the
//! start of the test, cleared to 0, and every `draw quad` renders into all of
//! them (they must share one size). Without any, `draw quad [W H]` renders
//! into one rgba32f target 0 of W×H (64×64 by default), kept while the size
//! stays the same, so draws accumulate. `clear rt N (r, g, b, a)` converts
//! the colour like Direct3D's ClearRenderTargetView: floats for float and
//! normalized formats, truncated to integers for integer formats.
//!
//! Probes read a texel as the shader would ([`tgsi_exec::texture::Format::decode`]):
//! `rgba` compares floats (an integer target's values converted to float; a
//! UNORM/SNORM/sRGB target within 1/255 unless `ulp` is given), `rgbaui` and
//! `rgbai` compare the 32-bit words exactly (integers, or the bits of the
//! float values).

use super::parse::{Expected, RenderTargetSection};
use super::values::{ValueType, values_match};
use tgsi_exec::texture::format::NumClass;
use tgsi_exec::texture::{Format, Texture};
use tgsi_ir::enums::TextureTarget;

/// The targets of one test.
pub struct Frame {
    targets: Vec<Option<Texture>>,
    declared: bool,
    /// Which targets [`Frame::take`] made up to fill gaps.
    scratch: Vec<bool>,
}

fn new_target(format: Format, width: u32, height: u32) -> Result<Texture, String> {
    new_target_samples(format, width, height, 1)
}

fn new_target_samples(
    format: Format,
    width: u32,
    height: u32,
    samples: u32,
) -> Result<Texture, String> {
    let target = if samples > 1 {
        TextureTarget::Msaa2D
    } else {
        TextureTarget::Tex2D
    };
    Texture::new(target, format, [width, height, 1], 1, 1, samples).map_err(|e| {
        format!(
            "render target {width}x{height} {}: {e}",
            format.short_name()
        )
    })
}

/// The value `clear` stores for one float of the clear colour.
fn clear_word(format: Format, bits: u32) -> u32 {
    let f = f32::from_bits(bits);
    match format.num_class() {
        NumClass::Uint => f as u32,
        NumClass::Sint => f as i32 as u32,
        _ => bits,
    }
}

impl Frame {
    /// The declared targets (cleared to 0), or none yet.
    pub fn new(sections: &[Option<RenderTargetSection>]) -> Result<Frame, String> {
        let mut targets = Vec::with_capacity(sections.len());
        for s in sections {
            targets.push(match s {
                Some(s) => Some(new_target_samples(
                    s.format, s.size[0], s.size[1], s.samples,
                )?),
                None => None,
            });
        }
        Ok(Frame {
            declared: targets.iter().any(Option::is_some),
            targets,
            scratch: Vec::new(),
        })
    }

    /// `clear rt N (r, g, b, a)` (float bits).
    pub fn clear(&mut self, target: u32, color: [u32; 4]) -> Result<(), String> {
        if !self.declared && target == 0 && self.targets.first().is_none_or(Option::is_none) {
            self.targets = vec![Some(new_target(Format::Rgba32Float, 64, 64)?)];
        }
        let Some(Some(t)) = self.targets.get_mut(target as usize) else {
            return Err(format!("there is no render target {target} to clear"));
        };
        let texel = t.format.encode(color.map(|c| clear_word(t.format, c)));
        if let Some(level) = t.levels.first_mut() {
            for chunk in level.chunks_exact_mut(texel.len().max(1)) {
                chunk.copy_from_slice(&texel);
            }
        }
        Ok(())
    }

    /// The size of a `draw quad [W H]`: the declared targets' (which must
    /// agree with each other and with W H), or W×H (default 64×64) for the
    /// default target, which is created (cleared) when its size changes.
    pub fn quad_size(&mut self, size: Option<[u32; 2]>) -> Result<[u32; 2], String> {
        if !self.declared {
            let [w, h] = size.unwrap_or([64, 64]);
            let same =
                matches!(self.targets.first(), Some(Some(t)) if (t.width, t.height) == (w, h));
            if !same {
                self.targets = vec![Some(new_target(Format::Rgba32Float, w, h)?)];
            }
            return Ok([w, h]);
        }
        let mut sizes = self.targets.iter().flatten().map(|t| [t.width, t.height]);
        let first = sizes.next().unwrap_or([64, 64]);
        if let Some(other) = sizes.find(|s| *s != first) {
            return Err(format!(
                "draw quad: the render targets differ in size ({}x{} and {}x{})",
                first[0], first[1], other[0], other[1]
            ));
        }
        if let Some(s) = size.filter(|s| *s != first) {
            return Err(format!(
                "draw quad {} {}: the render targets are {}x{}",
                s[0], s[1], first[0], first[1]
            ));
        }
        Ok(first)
    }

    /// The size of a `draw`: the declared targets' (which must agree), the
    /// default target's when there is one, else the depth target's size or
    /// 64×64 for a new default rgba32f target.
    pub fn draw_size(&mut self, depth: Option<[u32; 2]>) -> Result<[u32; 2], String> {
        if !self.declared {
            if let Some(Some(t)) = self.targets.first()
                && depth.is_none_or(|d| d == [t.width, t.height])
            {
                return Ok([t.width, t.height]);
            }
            let [w, h] = depth.unwrap_or([64, 64]);
            self.targets = vec![Some(new_target(Format::Rgba32Float, w, h)?)];
            return Ok([w, h]);
        }
        self.quad_size(None)
    }

    /// Takes the targets out for [`tgsi_exec::Program::draw`]: target n
    /// at index n, undeclared gaps filled with scratch targets.
    pub fn take(&mut self, [w, h]: [u32; 2]) -> Result<Vec<Texture>, String> {
        let mut out = Vec::with_capacity(self.targets.len());
        self.scratch = self.targets.iter().map(Option::is_none).collect();
        for t in &mut self.targets {
            out.push(match t.take() {
                Some(t) => t,
                None => new_target(Format::R8Unorm, w, h)?,
            });
        }
        Ok(out)
    }

    /// Puts back what [`Frame::take`] took (scratch targets are dropped).
    pub fn put_back(&mut self, targets: Vec<Texture>) {
        let scratch = std::mem::take(&mut self.scratch);
        for (k, (slot, t)) in self.targets.iter_mut().zip(targets).enumerate() {
            if !scratch.get(k).copied().unwrap_or(false) {
                *slot = Some(t);
            }
        }
    }

    /// Target `n`, for a probe.
    pub fn target(&self, n: u32) -> Result<&Texture, String> {
        match self.targets.get(n as usize) {
            Some(Some(t)) => Ok(t),
            _ if !self.declared && n == 0 => {
                Err("no `draw quad` before this probe in the test".to_string())
            }
            _ => Err(format!("there is no [render target {n}]")),
        }
    }
}

/// A pixel of a target as probes read it: a multisampled target of a float
/// or normalized format resolves to the average of its samples (an integer
/// one reads sample 0).
pub fn resolved_texel(t: &Texture, x: u32, y: u32) -> [u32; 4] {
    if t.samples <= 1 || t.format.is_integer() {
        return t.texel(0, x, y, 0, 0);
    }
    let mut sum = [0f64; 4];
    for s in 0..t.samples {
        let v = t.texel(0, x, y, 0, s);
        for c in 0..4 {
            sum[c] += f32::from_bits(v[c]) as f64;
        }
    }
    sum.map(|v| ((v / t.samples as f64) as f32).to_bits())
}

/// A texel's decoded words as values of the probe's type: integers of an
/// integer format converted to float for `rgba`, otherwise the words.
pub fn pixel_values(expected: &Expected, format: Format, texel: [u32; 4]) -> Vec<u64> {
    texel
        .iter()
        .take(expected.values.len())
        .map(|&w| {
            let w = match (expected.value_type, format.num_class()) {
                (ValueType::Float, NumClass::Uint) => (w as f32).to_bits(),
                (ValueType::Float, NumClass::Sint) => (w as i32 as f32).to_bits(),
                _ => w,
            };
            u64::from(w)
        })
        .collect()
}

/// True when the probed values match: integers exactly, floats as
/// [`values_match`] does, or within 1/255 for a normalized format probed
/// without `ulp` (given, even `ulp 0`, it compares in units in the last
/// place).
pub fn pixel_matches(expected: &Expected, format: Format, got: &[u64]) -> bool {
    let normalized = matches!(format.num_class(), NumClass::Unorm | NumClass::Snorm);
    got.len() == expected.values.len()
        && expected.values.iter().zip(got).all(|(&e, &g)| {
            if expected.value_type == ValueType::Float && normalized && expected.ulp.is_none() {
                let (e, g) = (f32::from_bits(e as u32), f32::from_bits(g as u32));
                if e.is_nan() || g.is_nan() {
                    return e.is_nan() && g.is_nan();
                }
                // 1/255 plus a little for the rounding of the decimal value.
                (f64::from(e) - f64::from(g)).abs() <= 1.0 / 255.0 + 1e-6
            } else {
                values_match(expected.value_type, e, g, expected.ulp.unwrap_or(0))
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(v: &[f32], ulp: Option<u64>) -> Expected {
        Expected {
            value_type: ValueType::Float,
            values: v.iter().map(|f| u64::from(f.to_bits())).collect(),
            ulp,
        }
    }

    #[test]
    fn clears_convert_like_direct3d_and_targets_persist() {
        let rt = |format, index| {
            Some(RenderTargetSection {
                index,
                format,
                size: [2, 2],
                samples: 1,
            })
        };
        let mut f =
            Frame::new(&[rt(Format::Rgba32Uint, 0), None, rt(Format::Rgba8Unorm, 2)]).unwrap();
        f.clear(0, [2.7f32, -1.0, 5.0, 1e10].map(f32::to_bits))
            .unwrap();
        assert_eq!(
            f.target(0).unwrap().texel(0, 1, 1, 0, 0),
            [2, 0, 5, u32::MAX]
        );
        assert!(
            f.clear(1, [0; 4])
                .unwrap_err()
                .contains("no render target 1")
        );
        assert!(f.target(1).unwrap_err().contains("[render target 1]"));
        assert_eq!(f.quad_size(None).unwrap(), [2, 2]);
        assert!(f.quad_size(Some([4, 4])).unwrap_err().contains("are 2x2"));
        let taken = f.take([2, 2]).unwrap();
        assert_eq!(taken.len(), 3);
        f.put_back(taken);
        assert!(f.target(1).is_err() && f.target(2).is_ok());
        // Without sections: a default target per size.
        let mut d = Frame::new(&[]).unwrap();
        assert!(d.target(0).unwrap_err().contains("no `draw quad`"));
        assert_eq!(d.quad_size(Some([8, 4])).unwrap(), [8, 4]);
        assert_eq!(d.target(0).unwrap().format, Format::Rgba32Float);
    }

    #[test]
    fn probes_read_integers_exactly_and_unorm_within_a_step() {
        let e = floats(&[0.5, 1.0, 0.0, 0.2], None);
        // 0.5 stored in 8 bits is 128/255 = 0.50196: within 1/255.
        let texel = Format::Rgba8Unorm
            .decode(&Format::Rgba8Unorm.encode([0.5f32, 1.0, 0.0, 0.2].map(f32::to_bits)));
        let got = pixel_values(&e, Format::Rgba8Unorm, texel);
        assert!(pixel_matches(&e, Format::Rgba8Unorm, &got));
        assert!(!pixel_matches(
            &floats(&[0.49, 1.0, 0.0, 0.2], None),
            Format::Rgba8Unorm,
            &got
        ));
        // `ulp 0` given: exact, even on a normalized target; `ulp 1` is
        // one float step, far inside 1/255.
        assert!(!pixel_matches(
            &floats(&[0.5, 1.0, 0.0, 0.2], Some(0)),
            Format::Rgba8Unorm,
            &got
        ));
        let exact = got
            .iter()
            .map(|&w| f32::from_bits(w as u32))
            .collect::<Vec<_>>();
        assert!(pixel_matches(
            &floats(&exact, Some(0)),
            Format::Rgba8Unorm,
            &got
        ));
        // The same bits on a float target compare exactly.
        assert!(!pixel_matches(&e, Format::Rgba32Float, &got));
        // rgba on a uint target: the integers as floats; rgbaui: the words.
        let texel = [3, 0xffff_ffff, 0, 1];
        let got = pixel_values(
            &floats(&[3.0, 4294967296.0, 0.0, 1.0], None),
            Format::Rgba32Uint,
            texel,
        );
        assert!(pixel_matches(
            &floats(&[3.0, 4294967296.0, 0.0, 1.0], None),
            Format::Rgba32Uint,
            &got
        ));
        let ui = Expected {
            value_type: ValueType::Uint,
            values: vec![3, 0xffff_ffff],
            ulp: None,
        };
        let got = pixel_values(&ui, Format::Rgba32Uint, texel);
        assert_eq!(got, vec![3, 0xffff_ffff]);
        assert!(pixel_matches(&ui, Format::Rgba32Uint, &got));
    }
}
