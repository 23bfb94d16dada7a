//! Images during a run: [`SharedImage`] holds a texture's level 0 as atomic
//! words so that threads may load, store and run atomics on it, and
//! [`image_op`] executes LOAD, STORE, every ATOM* and RESQ on IMAGE with
//! Direct3D bounds (out-of-range reads give 0, writes and atomics are
//! dropped; an atomic out of range returns 0). Lanes act in lane order.

use super::{Dim, Format, LANES, Reg, Shape, Texture};
use crate::ground::words::AtomicWords;
use std::sync::atomic::Ordering;
use tgsi_ir::enums::TextureTarget;
use tgsi_ir::opcode::Opcode;

/// A texture whose bytes are atomic words during a run (level 0 is the one
/// images address; the other levels are kept and written back unchanged).
#[derive(Debug)]
pub struct SharedImage {
    /// Target, format and dimensions; its `levels` are empty (level 0 is
    /// in `words`, the others in `rest`).
    pub layout: Texture,
    words: AtomicWords<'static>,
    rest: Vec<Vec<u8>>,
}

impl SharedImage {
    /// Copies a texture into atomic storage.
    pub fn from_texture(t: &Texture) -> SharedImage {
        let bytes: &[u8] = t.levels.first().map_or(&[], |v| v.as_slice());
        SharedImage {
            layout: Texture {
                levels: Vec::new(),
                ..*t
            },
            words: AtomicWords::from_bytes(bytes),
            rest: t.levels.iter().skip(1).cloned().collect(),
        }
    }

    /// Copies the contents back into `t` (level 0; the texture must have the
    /// same layout it was made from).
    pub fn write_back(&self, t: &mut Texture) {
        if let Some(level) = t.levels.first_mut() {
            self.words.write_back(level);
        }
    }

    /// A texture with the current contents.
    pub fn to_texture(&self) -> Texture {
        let mut levels = vec![self.words.to_bytes()];
        levels.extend(self.rest.iter().cloned());
        Texture {
            levels,
            ..self.layout
        }
    }

    fn slices(&self) -> u32 {
        if self.layout.target == TextureTarget::Tex3D {
            self.layout.depth
        } else {
            self.layout.layers
        }
    }

    fn byte(&self, i: usize) -> u8 {
        self.words
            .get(i / 4)
            .map_or(0, |w| (w.load(Ordering::Relaxed) >> (8 * (i % 4))) as u8)
    }

    fn read(&self, off: usize, n: usize) -> [u8; 16] {
        let mut b = [0u8; 16];
        for (k, v) in b.iter_mut().enumerate().take(n.min(16)) {
            *v = self.byte(off + k);
        }
        b
    }

    fn write(&self, off: usize, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            let a = off + i;
            let (wi, sh) = (a / 4, a % 4);
            let take = (4 - sh).min(bytes.len() - i);
            let Some(w) = self.words.get(wi) else { return };
            if sh == 0 && take == 4 {
                let v = u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
                w.store(v, Ordering::Relaxed);
            } else {
                let mut mask = 0u32;
                let mut val = 0u32;
                for k in 0..take {
                    mask |= 0xff << (8 * (sh + k));
                    val |= (bytes[i + k] as u32) << (8 * (sh + k));
                }
                let _ = w.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| {
                    Some((o & !mask) | val)
                });
            }
            i += take;
        }
    }

    /// The raw words of the texel an image access with address `a` (the
    /// four words of the coordinate operand) under `target` reaches (UNKNOWN:
    /// the image's own), or `None` out of range: what a debugger shows of
    /// an image write. Texels shorter than a word are zero-padded.
    pub fn texel_words(&self, target: TextureTarget, a: [u32; 4]) -> Option<Vec<u32>> {
        let shape = self.shape_of(target)?;
        let bpt = self.layout.format.bytes_per_texel();
        let at = self.texel_at(shape, a, bpt)?;
        let bytes = self.read(at, bpt);
        Some(
            bytes[..bpt.min(16)]
                .chunks(4)
                .map(|c| c.iter().rev().fold(0u32, |w, b| (w << 8) | *b as u32))
                .collect(),
        )
    }

    /// The texel image address `a` names on `target` (the image's own
    /// target when `Unknown`) as (x, y, z, layer): z the slice of a 3D
    /// image, layer the array layer (a cube's face, a cube array's
    /// layer-face), 0 where the target has none. None for a target no
    /// image has.
    pub fn texel_coord(&self, target: TextureTarget, a: [u32; 4]) -> Option<[u32; 4]> {
        Some(coord_of(self.shape_of(target)?, a))
    }

    /// The shape of `target`, the image's own when `Unknown`.
    fn shape_of(&self, target: TextureTarget) -> Option<Shape> {
        Shape::of(match target {
            TextureTarget::Unknown => self.layout.target,
            t => t,
        })
    }

    /// Byte offset of the texel that address `a` (x, y, slice or layer,
    /// sample) names in an image of `shape`, or `None` out of range.
    fn texel_at(&self, shape: Shape, a: [u32; 4], bpt: usize) -> Option<usize> {
        let [x, y, slice, layer] = coord_of(shape, a);
        let sample = if shape.msaa { a[3] } else { 0 };
        // a 3D image's slice or an array's layer: one of the two is 0
        self.offset(x, y, slice + layer, sample, bpt)
    }

    /// Byte offset of texel (x, y, slice, sample) of level 0, or `None` out of range.
    fn offset(&self, x: u32, y: u32, z: u32, sample: u32, bpt: usize) -> Option<usize> {
        if x >= self.layout.width
            || y >= self.layout.height
            || z >= self.slices()
            || sample >= self.layout.samples
        {
            return None;
        }
        let i = (((z as usize * self.layout.height as usize + y as usize)
            * self.layout.width as usize
            + x as usize)
            * self.layout.samples as usize
            + sample as usize)
            * bpt;
        (i + bpt <= self.words.byte_len()).then_some(i)
    }
}

/// Address `a` on an image of `shape` as (x, y, z, layer)
/// ([`SharedImage::texel_coord`]).
fn coord_of(shape: Shape, a: [u32; 4]) -> [u32; 4] {
    match (shape.dim, shape.array) {
        (Dim::Buffer | Dim::D1, false) => [a[0], 0, 0, 0],
        (Dim::D1, true) => [a[0], 0, 0, a[1]],
        (Dim::D2, false) => [a[0], a[1], 0, 0],
        (Dim::D3, _) => [a[0], a[1], a[2], 0],
        _ => [a[0], a[1], 0, a[2]],
    }
}

/// New value of an atomic: `old` op `v` (`t` = ATOMCAS's new value, `v` its compare).
pub fn atomic_value(op: Opcode, old: u32, v: u32, t: u32) -> Result<u32, String> {
    use Opcode as O;
    Ok(match op {
        O::ATOMUADD => old.wrapping_add(v),
        O::ATOMXCHG => v,
        O::ATOMCAS => {
            if old == v {
                t
            } else {
                old
            }
        }
        O::ATOMAND => old & v,
        O::ATOMOR => old | v,
        O::ATOMXOR => old ^ v,
        O::ATOMUMIN => old.min(v),
        O::ATOMUMAX => old.max(v),
        O::ATOMIMIN => (old as i32).min(v as i32) as u32,
        O::ATOMIMAX => (old as i32).max(v as i32) as u32,
        O::ATOMFADD => (f32::from_bits(old) + f32::from_bits(v)).to_bits(),
        O::ATOMINC_WRAP => {
            let n = old.wrapping_add(1);
            if n <= v { n } else { 0 }
        }
        O::ATOMDEC_WRAP => {
            if old > 0 && old < v {
                old - 1
            } else {
                0
            }
        }
        other => return Err(format!("{other} is not an atomic opcode")),
    })
}

/// Executes an image opcode. `srcs` = the address, then the data operands
/// (STORE: value; ATOM*: value, and ATOMCAS's new value). `target` and
/// `format` come from the instruction's memory token (UNKNOWN target = the
/// image's own); the format must have the image's bytes per texel. LOAD
/// writes the decoded texel, atomics the old value, to all four rows of
/// each active lane; STORE writes the channels in `dst_mask`.
#[allow(clippy::too_many_arguments)]
pub fn image_op(
    img: &SharedImage,
    opcode: Opcode,
    target: TextureTarget,
    format: Format,
    srcs: &[Reg],
    dst_mask: u8,
    active: u16,
    out: &mut Reg,
) -> Result<(), String> {
    use Opcode as O;
    let target = if target == TextureTarget::Unknown {
        img.layout.target
    } else {
        target
    };
    let shape = Shape::of(target).ok_or("image target UNKNOWN")?;
    let bpt = format.bytes_per_texel();
    if bpt != img.layout.format.bytes_per_texel() {
        return Err(format!(
            "{opcode}: format {format} ({bpt} bytes) on an image of format {} ({} bytes)",
            img.layout.format,
            img.layout.format.bytes_per_texel()
        ));
    }
    let lanes = (0..LANES).filter(|&l| active >> l & 1 == 1);
    if opcode == O::RESQ {
        for l in lanes {
            let (w, h) = (img.layout.width, img.layout.height);
            let v = match (shape.dim, shape.array) {
                (Dim::Buffer | Dim::D1, false) => [w, 0, 0],
                (Dim::D1, true) => [w, img.layout.layers, 0],
                (Dim::D2, false) | (Dim::Cube, false) => [w, h, 0],
                (Dim::D2, true) => [w, h, img.layout.layers],
                (Dim::Cube, true) => [w, h, img.layout.layers / 6],
                (Dim::D3, _) => [w, h, img.layout.depth],
                (Dim::Buffer, true) => [w, 0, 0],
            };
            out[0][l] = v[0];
            out[1][l] = v[1];
            out[2][l] = v[2];
            out[3][l] = img.layout.samples;
        }
        return Ok(());
    }
    let addr = srcs
        .first()
        .ok_or_else(|| format!("{opcode} needs an address operand"))?;
    // texel address of a lane: (x, y, slice, sample)
    let texel = |l: usize| -> Option<usize> {
        img.texel_at(shape, [addr[0][l], addr[1][l], addr[2][l], addr[3][l]], bpt)
    };
    match opcode {
        O::LOAD => {
            for l in lanes {
                let v = match texel(l) {
                    Some(o) => format.decode(&img.read(o, bpt)[..bpt]),
                    None => [0; 4],
                };
                for c in 0..4 {
                    out[c][l] = v[c];
                }
            }
            Ok(())
        }
        O::STORE => {
            let val = srcs.get(1).ok_or("STORE needs a value operand")?;
            for l in lanes {
                let Some(o) = texel(l) else { continue };
                let mut v = [val[0][l], val[1][l], val[2][l], val[3][l]];
                if dst_mask & 0xF != 0xF {
                    let old = format.decode(&img.read(o, bpt)[..bpt]);
                    for c in 0..4 {
                        if dst_mask >> c & 1 == 0 {
                            v[c] = old[c];
                        }
                    }
                }
                img.write(o, &format.encode(v));
            }
            Ok(())
        }
        O::ATOMUADD
        | O::ATOMXCHG
        | O::ATOMCAS
        | O::ATOMAND
        | O::ATOMOR
        | O::ATOMXOR
        | O::ATOMUMIN
        | O::ATOMUMAX
        | O::ATOMIMIN
        | O::ATOMIMAX
        | O::ATOMFADD
        | O::ATOMINC_WRAP
        | O::ATOMDEC_WRAP => {
            if !matches!(format, Format::R32Uint | Format::R32Sint | Format::R32Float) {
                return Err(format!(
                    "{opcode} on image format {format}: atomics need r32ui, r32i or r32f"
                ));
            }
            let v = srcs
                .get(1)
                .ok_or_else(|| format!("{opcode} needs a value operand"))?;
            let t = if opcode == O::ATOMCAS {
                Some(srcs.get(2).ok_or("ATOMCAS needs a new-value operand")?)
            } else {
                None
            };
            atomic_value(opcode, 0, 0, 0)?;
            for l in lanes {
                let old = match texel(l).and_then(|o| img.words.get(o / 4)) {
                    Some(w) => {
                        let (vv, tt) = (v[0][l], t.map_or(0, |t| t[0][l]));
                        w.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| {
                            atomic_value(opcode, o, vv, tt).ok()
                        })
                        .unwrap_or(0)
                    }
                    None => 0,
                };
                for row in out.iter_mut() {
                    row[l] = old;
                }
            }
            Ok(())
        }
        other => Err(format!("{other} is not an image opcode")),
    }
}
