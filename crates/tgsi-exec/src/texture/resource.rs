//! Texture storage: a resource's levels as bytes, its dimensions per level,
//! and texel addressing. Level k has dims max(1, w >> k), max(1, h >> k) and,
//! for 3D, max(1, d >> k); layers and samples are not reduced. Texel
//! (x, y, z_or_layer, sample) of a level sits at byte
//! ((((z_or_layer * h_k + y) * w_k + x) * samples + sample) * bytes_per_texel).
//! A 1D array keeps its layers in the z_or_layer slot (h = 1).

use super::{Dim, Format, Shape};
use tgsi_ir::enums::TextureTarget;

/// The largest resource the engine allocates (all levels together).
pub const MAX_TEXTURE_BYTES: usize = 1 << 30;

/// A texture (or image, or buffer) resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texture {
    pub target: TextureTarget,
    pub format: Format,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// Array layers; a cube has 6 per cube.
    pub layers: u32,
    pub samples: u32,
    pub levels: Vec<Vec<u8>>,
}

/// Number of levels of a full mip chain for these dimensions.
pub fn full_chain(w: u32, h: u32, d: u32) -> u32 {
    32 - w.max(h).max(d).max(1).leading_zeros()
}

impl Texture {
    /// A zeroed resource. `size` = [width, height, depth]; `layers` array
    /// layers. For an array target given 1 layer whose size's last dimension
    /// is above 1, that dimension is the layer count ([w, layers, 1] for 1D
    /// arrays, [w, h, layers] for 2D/cube arrays); a CUBE given 1 layer gets
    /// 6. Refuses resources over [`MAX_TEXTURE_BYTES`].
    pub fn new(
        target: TextureTarget,
        format: Format,
        size: [u32; 3],
        layers: u32,
        levels: u32,
        samples: u32,
    ) -> Result<Texture, String> {
        let shape = Shape::of(target).ok_or("texture target UNKNOWN cannot hold data")?;
        let [w, mut h, mut d] = size;
        let mut layers = layers;
        if w == 0 || h == 0 || d == 0 || layers == 0 {
            return Err(format!(
                "texture size ({w}, {h}, {d}) x {layers} layers has a zero dimension"
            ));
        }
        if shape.array && layers == 1 {
            match shape.dim {
                Dim::D1 if h > 1 => (layers, h) = (h, 1),
                Dim::D2 | Dim::Cube if d > 1 => (layers, d) = (d, 1),
                _ => {}
            }
        }
        if shape.dim == Dim::Cube && !shape.array && layers == 1 {
            layers = 6;
        }
        match shape.dim {
            Dim::Buffer | Dim::D1 if h != 1 || d != 1 => {
                return Err(format!("{target} texture must have height and depth 1"));
            }
            Dim::D2 | Dim::Cube if d != 1 => {
                return Err(format!("{target} texture must have depth 1"));
            }
            _ => {}
        }
        if !shape.array && shape.dim != Dim::Cube && layers != 1 {
            return Err(format!("{target} texture cannot have {layers} layers"));
        }
        if shape.dim == Dim::Cube {
            if w != h {
                return Err(format!("cube faces must be square, got {w}x{h}"));
            }
            if !layers.is_multiple_of(6) || (!shape.array && layers != 6) {
                return Err(format!(
                    "{target} texture cannot have {layers} layers (6 per cube)"
                ));
            }
        }
        if shape.dim == Dim::Buffer {
            (h, d) = (1, 1);
        }
        if ![1, 2, 4, 8, 16].contains(&samples) {
            return Err(format!("{samples} samples per texel: only 1, 2, 4, 8, 16"));
        }
        if samples > 1 && !shape.msaa {
            return Err(format!("{target} texture cannot be multisampled"));
        }
        let max_levels = full_chain(w, h, if shape.dim == Dim::D3 { d } else { 1 });
        if levels == 0 || levels > max_levels {
            return Err(format!(
                "{levels} mip levels for a {w}x{h}x{d} texture (1..={max_levels})"
            ));
        }
        if (shape.msaa || shape.dim == Dim::Buffer) && levels != 1 {
            return Err(format!("{target} texture has exactly one level"));
        }
        let mut t = Texture {
            target,
            format,
            width: w,
            height: h,
            depth: d,
            layers,
            samples,
            levels: Vec::new(),
        };
        let mut total: u128 = 0;
        for k in 0..levels {
            total += t.level_len(k) as u128;
        }
        if total > MAX_TEXTURE_BYTES as u128 {
            return Err(format!(
                "texture of {total} bytes exceeds the {} byte limit",
                MAX_TEXTURE_BYTES
            ));
        }
        t.levels = (0..levels).map(|k| vec![0u8; t.level_len(k)]).collect();
        Ok(t)
    }

    /// Number of levels.
    pub fn level_count(&self) -> u32 {
        self.levels.len() as u32
    }

    /// True when depth varies per level (3D).
    pub fn is_3d(&self) -> bool {
        self.target == TextureTarget::Tex3D
    }

    /// (width, height, depth-or-layers) of level `k`.
    pub fn level_dims(&self, k: u32) -> (u32, u32, u32) {
        let m = |v: u32| if k >= 32 { 1 } else { (v >> k).max(1) };
        let z = if self.is_3d() {
            m(self.depth)
        } else {
            self.layers
        };
        (m(self.width), m(self.height), z)
    }

    fn level_len(&self, k: u32) -> usize {
        let (w, h, z) = self.level_dims(k);
        let n = w as u128 * h as u128 * z as u128 * self.samples as u128;
        let bytes = n * self.format.bytes_per_texel() as u128;
        bytes.min(usize::MAX as u128) as usize
    }

    /// Byte offset of a texel in its level, or `None` when out of range.
    pub fn texel_offset(&self, level: u32, x: u32, y: u32, z: u32, sample: u32) -> Option<usize> {
        if level >= self.level_count() || sample >= self.samples {
            return None;
        }
        let (w, h, d) = self.level_dims(level);
        if x >= w || y >= h || z >= d {
            return None;
        }
        let i = (((z as usize * h as usize + y as usize) * w as usize + x as usize)
            * self.samples as usize
            + sample as usize)
            * self.format.bytes_per_texel();
        Some(i)
    }

    /// The decoded texel (zeros when out of range).
    pub fn texel(&self, level: u32, x: u32, y: u32, z: u32, sample: u32) -> [u32; 4] {
        self.texel_as(self.format, level, x, y, z, sample)
    }

    /// The texel decoded as `format` (same bytes per texel), zeros when out of range.
    pub fn texel_as(
        &self,
        format: Format,
        level: u32,
        x: u32,
        y: u32,
        z: u32,
        sample: u32,
    ) -> [u32; 4] {
        let bpt = self.format.bytes_per_texel();
        match self.texel_offset(level, x, y, z, sample) {
            Some(o) => match self.levels[level as usize].get(o..o + bpt) {
                Some(b) => format.decode(b),
                None => [0; 4],
            },
            None => [0; 4],
        }
    }

    /// Encodes and stores a texel.
    pub fn set_texel(
        &mut self,
        level: u32,
        x: u32,
        y: u32,
        z: u32,
        sample: u32,
        v: [u32; 4],
    ) -> Result<(), String> {
        let bpt = self.format.bytes_per_texel();
        let o = self.texel_offset(level, x, y, z, sample).ok_or_else(|| {
            format!("texel ({x}, {y}, {z}) sample {sample} of level {level} is out of range")
        })?;
        let fmt = self.format;
        let bytes = self.levels[level as usize]
            .get_mut(o..o + bpt)
            .ok_or("texture level storage is shorter than its dimensions")?;
        fmt.encode_into(v, bytes);
        Ok(())
    }
}
