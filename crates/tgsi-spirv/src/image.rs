//! `IMAGE[n]`: storage images at binding 128 + n of set 0. LOAD reads a
//! texel (`OpImageRead`, converted by the image's format as the machine
//! decodes it), STORE writes one (the destination's write mask keeps the
//! other channels), the 32-bit integer atomics go through a texel pointer,
//! and RESQ gives the size. With the machine's (Direct3D's) bounds: an
//! address outside the image reads 0 and writes nothing, an atomic there
//! returns 0.

use super::Error;
use super::module::Translator;
use rspirv::spirv::{Capability, Dim, ImageFormat, Scope, StorageClass, Word};
use tgsi_ir::enums::{File, PipeFormat, TextureTarget};
use tgsi_ir::ir::Instruction;
use tgsi_ir::opcode::{Opcode, OperandType};

/// The binding of `IMAGE[n]`.
pub const fn image_binding(n: u32) -> u32 {
    128 + n
}

/// What the texels of a storage image are read as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Float,
    Uint,
    Sint,
}

/// A declared storage image.
#[derive(Clone, Copy)]
pub(crate) struct StorageImage {
    var: Word,
    ty: Word,
    class: Class,
    dim: Dim,
    arrayed: bool,
    /// Address components (x, then y, then the slice or layer).
    coords: u32,
}

/// The SPIR-V format and the texel class of a `PIPE_FORMAT_*` storage
/// format (`Unknown` for none: read and written without a format).
fn storage_format(format: PipeFormat) -> Result<(ImageFormat, Class), String> {
    use Class::*;
    use ImageFormat as F;
    if format == PipeFormat::NONE {
        return Ok((F::Unknown, Float));
    }
    let name = format.name().unwrap_or("");
    let name = name.strip_prefix("PIPE_FORMAT_").unwrap_or(name);
    Ok(match name {
        "R32G32B32A32_FLOAT" => (F::Rgba32f, Float),
        "R32G32B32A32_UINT" => (F::Rgba32ui, Uint),
        "R32G32B32A32_SINT" => (F::Rgba32i, Sint),
        "R16G16B16A16_FLOAT" => (F::Rgba16f, Float),
        "R16G16B16A16_UNORM" => (F::Rgba16, Float),
        "R16G16B16A16_SNORM" => (F::Rgba16Snorm, Float),
        "R16G16B16A16_UINT" => (F::Rgba16ui, Uint),
        "R16G16B16A16_SINT" => (F::Rgba16i, Sint),
        "R8G8B8A8_UNORM" => (F::Rgba8, Float),
        "R8G8B8A8_SNORM" => (F::Rgba8Snorm, Float),
        "R8G8B8A8_UINT" => (F::Rgba8ui, Uint),
        "R8G8B8A8_SINT" => (F::Rgba8i, Sint),
        "R32G32_FLOAT" => (F::Rg32f, Float),
        "R32G32_UINT" => (F::Rg32ui, Uint),
        "R32G32_SINT" => (F::Rg32i, Sint),
        "R16G16_FLOAT" => (F::Rg16f, Float),
        "R16G16_UINT" => (F::Rg16ui, Uint),
        "R16G16_SINT" => (F::Rg16i, Sint),
        "R8G8_UNORM" => (F::Rg8, Float),
        "R8G8_UINT" => (F::Rg8ui, Uint),
        "R8G8_SINT" => (F::Rg8i, Sint),
        "R32_FLOAT" => (F::R32f, Float),
        "R32_UINT" => (F::R32ui, Uint),
        "R32_SINT" => (F::R32i, Sint),
        "R16_FLOAT" => (F::R16f, Float),
        "R16_UINT" => (F::R16ui, Uint),
        "R16_SINT" => (F::R16i, Sint),
        "R8_UNORM" => (F::R8, Float),
        "R8_UINT" => (F::R8ui, Uint),
        "R8_SINT" => (F::R8i, Sint),
        "R10G10B10A2_UNORM" => (F::Rgb10A2, Float),
        "R10G10B10A2_UINT" => (F::Rgb10a2ui, Uint),
        "R11G11B10_FLOAT" => (F::R11fG11fB10f, Float),
        _ => {
            return Err(format!(
                "image format {format} has no SPIR-V storage format"
            ));
        }
    })
}

/// (dimension, arrayed, address components) of a storage image target.
fn image_shape(target: TextureTarget) -> Result<(Dim, bool, u32), String> {
    use TextureTarget as T;
    Ok(match target {
        T::Buffer => (Dim::DimBuffer, false, 1),
        T::Tex1D => (Dim::Dim1D, false, 1),
        T::Array1D => (Dim::Dim1D, true, 2),
        T::Tex2D | T::Rect => (Dim::Dim2D, false, 2),
        T::Array2D => (Dim::Dim2D, true, 3),
        T::Tex3D => (Dim::Dim3D, false, 3),
        T::Cube => (Dim::DimCube, false, 3),
        T::CubeArray => (Dim::DimCube, true, 3),
        other => {
            return Err(format!(
                "{other} images are not translated to SPIR-V yet (multisampled)"
            ));
        }
    })
}

impl Translator<'_> {
    /// Declares every `IMAGE` register (before main).
    pub(crate) fn declare_images(&mut self) -> Result<(), Error> {
        for d in self.shader.declarations() {
            if d.file != File::Image {
                continue;
            }
            let decl = d
                .image
                .ok_or_else(|| Error::general(format!("IMAGE[{}] without a target", d.first)))?;
            if decl.raw {
                return Err(Error::general(
                    "raw IMAGE registers are not translated to SPIR-V yet",
                ));
            }
            let (format, class) = storage_format(decl.format).map_err(Error::general)?;
            let (dim, arrayed, coords) = image_shape(decl.target).map_err(Error::general)?;
            match dim {
                Dim::Dim1D => self.b.capability(Capability::Image1D),
                Dim::DimBuffer => self.b.capability(Capability::ImageBuffer),
                Dim::DimCube if arrayed => self.b.capability(Capability::ImageCubeArray),
                _ => {}
            }
            if format == ImageFormat::Unknown {
                self.b.capability(Capability::StorageImageReadWithoutFormat);
                self.b
                    .capability(Capability::StorageImageWriteWithoutFormat);
            } else if !matches!(
                format,
                ImageFormat::Rgba32f
                    | ImageFormat::Rgba16f
                    | ImageFormat::R32f
                    | ImageFormat::Rgba8
                    | ImageFormat::Rgba8Snorm
                    | ImageFormat::Rgba32i
                    | ImageFormat::Rgba16i
                    | ImageFormat::Rgba8i
                    | ImageFormat::R32i
                    | ImageFormat::Rgba32ui
                    | ImageFormat::Rgba16ui
                    | ImageFormat::Rgba8ui
                    | ImageFormat::R32ui
            ) {
                self.b.capability(Capability::StorageImageExtendedFormats);
            }
            self.b.capability(Capability::ImageQuery);
            let sampled = match class {
                Class::Float => self.t.f32,
                Class::Uint => self.t.u32,
                Class::Sint => self.t.i32,
            };
            let ty = self
                .b
                .type_image(sampled, dim, 0, arrayed as u32, 0, 2, format, None);
            for n in d.first..=d.last {
                let var = self.uniform_var(ty, image_binding(n));
                self.storage_images.insert(
                    n,
                    StorageImage {
                        var,
                        ty,
                        class,
                        dim,
                        arrayed,
                        coords,
                    },
                );
            }
        }
        Ok(())
    }

    /// LOAD, STORE, RESQ and the atomics on `IMAGE`; `None` for other
    /// resources.
    pub(crate) fn image_instruction(&mut self, inst: &Instruction) -> Result<Option<()>, Error> {
        let op = inst.opcode;
        let resource = if op == Opcode::STORE {
            inst.dst.first().map(|d| d.reg)
        } else {
            inst.src.first().map(|s| s.reg)
        };
        let Some(resource) = resource.filter(|r| r.file == File::Image) else {
            return Ok(None);
        };
        let n = resource.index.offset as u32;
        let image = *self
            .storage_images
            .get(&n)
            .ok_or_else(|| self.fail(format!("IMAGE[{n}] is not declared")))?;
        let img = sp!(self, self.b.load(image.ty, None, image.var, None, []))?;
        let size = self.image_size(image, img)?;
        if op == Opcode::RESQ {
            return self.store(&inst.dst[0], size, 0xF).map(Some);
        }
        let address_k = if op == Opcode::STORE { 0 } else { 1 };
        let address = inst
            .src
            .get(address_k)
            .ok_or_else(|| self.fail(format!("{op} without an address")))?;
        let a = self.fetch(address, OperandType::Uint)?;
        let coord = self.image_coord(image, a)?;
        let inside = self.image_inside(image, a, size)?;
        match op {
            Opcode::LOAD => self.image_load(inst, image, img, coord, inside)?,
            Opcode::STORE => self.image_store(inst, image, coord, inside)?,
            _ => self.image_atomic(inst, image, coord, inside)?,
        }
        Ok(Some(()))
    }

    /// The address as the image's `int` coordinate vector.
    fn image_coord(&mut self, image: StorageImage, a: Word) -> Result<Word, Error> {
        let i4 = self.t.i4;
        let ai = sp!(self, self.b.bitcast(i4, None, a))?;
        let i32_ = self.t.i32;
        match image.coords {
            1 => sp!(self, self.b.composite_extract(i32_, None, ai, [0])),
            n => {
                let ty = self.b.type_vector(i32_, n);
                let idx: Vec<u32> = (0..n).collect();
                sp!(self, self.b.vector_shuffle(ty, None, ai, ai, idx))
            }
        }
    }

    /// RESQ's `uvec4`: (width, height, depth or layers, 1), unused
    /// components 0 (a cube array's layers counted in cubes), as the
    /// machine gives it.
    fn image_size(&mut self, image: StorageImage, img: Word) -> Result<Word, Error> {
        let (i32_, u32_, u4) = (self.t.i32, self.t.u32, self.t.u4);
        let n = match (image.dim, image.arrayed) {
            (Dim::DimBuffer | Dim::Dim1D, false) => 1,
            (Dim::Dim1D, true) | (Dim::Dim2D | Dim::DimCube, false) => 2,
            _ => 3,
        };
        let q = if n == 1 {
            i32_
        } else {
            self.b.type_vector(i32_, n)
        };
        let s = sp!(self, self.b.image_query_size(q, None, img))?;
        let zero = self.c_u32(0);
        let one = self.c_u32(1);
        let mut parts = [zero, zero, zero, one];
        for (c, part) in parts.iter_mut().enumerate().take(n as usize) {
            let v = if n == 1 {
                s
            } else {
                sp!(self, self.b.composite_extract(i32_, None, s, [c as u32]))?
            };
            *part = sp!(self, self.b.bitcast(u32_, None, v))?;
        }
        sp!(self, self.b.composite_construct(u4, None, parts))
    }

    /// True when address `a` names a texel: each component below its
    /// size (six faces per cube).
    fn image_inside(&mut self, image: StorageImage, a: Word, size: Word) -> Result<Word, Error> {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let mut ok: Option<Word> = None;
        for c in 0..image.coords {
            let x = sp!(self, self.b.composite_extract(u32_, None, a, [c]))?;
            let mut limit = sp!(self, self.b.composite_extract(u32_, None, size, [c]))?;
            if image.dim == Dim::DimCube && c == 2 {
                // the face (and layer) index: 6 per cube
                let six = self.c_u32(6);
                limit = if image.arrayed {
                    sp!(self, self.b.i_mul(u32_, None, limit, six))?
                } else {
                    six
                };
            }
            let lt = sp!(self, self.b.u_less_than(bool_, None, x, limit))?;
            ok = Some(match ok {
                None => lt,
                Some(o) => sp!(self, self.b.logical_and(bool_, None, o, lt))?,
            });
        }
        ok.ok_or_else(|| self.fail("an image without coordinates"))
    }

    /// The `vec4` type of the image's texels.
    fn texel_type(&self, image: StorageImage) -> Word {
        match image.class {
            Class::Float => self.t.f4,
            Class::Uint => self.t.u4,
            Class::Sint => self.t.i4,
        }
    }

    fn image_load(
        &mut self,
        inst: &Instruction,
        image: StorageImage,
        img: Word,
        coord: Word,
        inside: Word,
    ) -> Result<(), Error> {
        let u4 = self.t.u4;
        let texel = self.texel_type(image);
        // the texel's channel words, zeros outside the image
        let zero = self.splat_bits(u4, 0);
        let v = self.when_typed(inside, u4, zero, |t| {
            let r = sp!(t, t.b.image_read(texel, None, img, coord, None, []))?;
            sp!(t, t.b.bitcast(u4, None, r))
        })?;
        // the resource operand's swizzle picks the channels
        let sw: Vec<u32> = inst.src[0].swizzle.0.iter().map(|c| *c as u32).collect();
        let v = sp!(self, self.b.vector_shuffle(u4, None, v, v, sw))?;
        self.store_result(inst, v)
    }

    fn image_store(
        &mut self,
        inst: &Instruction,
        image: StorageImage,
        coord: Word,
        inside: Word,
    ) -> Result<(), Error> {
        let value = inst
            .src
            .get(1)
            .ok_or_else(|| self.fail("STORE without a value"))?;
        let v = self.fetch(value, OperandType::Uint)?;
        let mask = inst.dst[0].write_mask.bits() & 0xF;
        let texel = self.texel_type(image);
        let u4 = self.t.u4;
        self.when(inside, None, |t| {
            let img = sp!(t, t.b.load(image.ty, None, image.var, None, []))?;
            let mut words = v;
            if mask != 0xF {
                // the channels outside the mask keep the texel's
                let old = sp!(t, t.b.image_read(texel, None, img, coord, None, []))?;
                let old = sp!(t, t.b.bitcast(u4, None, old))?;
                let pick: Vec<u32> = (0..4)
                    .map(|c| if mask >> c & 1 == 1 { c } else { 4 + c })
                    .collect();
                words = sp!(t, t.b.vector_shuffle(u4, None, v, old, pick))?;
            }
            let w = sp!(t, t.b.bitcast(texel, None, words))?;
            sp!(t, t.b.image_write(img, coord, w, None, []))?;
            Ok(None)
        })?;
        Ok(())
    }

    fn image_atomic(
        &mut self,
        inst: &Instruction,
        image: StorageImage,
        coord: Word,
        inside: Word,
    ) -> Result<(), Error> {
        let op = inst.opcode;
        let scalar = match image.class {
            Class::Uint => self.t.u32,
            Class::Sint => self.t.i32,
            Class::Float => {
                return Err(self.fail(format!(
                    "{op} on a float image is not translated to SPIR-V yet"
                )));
            }
        };
        let u32_ = self.t.u32;
        let operand = |t: &mut Self, k: usize| -> Result<Word, Error> {
            let x = t.operand_x(inst, k)?;
            sp!(t, t.b.bitcast(scalar, None, x))
        };
        let value = operand(self, 2)?;
        let third = if op == Opcode::ATOMCAS {
            Some(operand(self, 3)?)
        } else {
            None
        };
        let zero = self.c_u32(0);
        let scope = self.c_u32(Scope::Device as u32);
        let old = self.when(inside, Some(zero), |t| {
            let p = t.ptr(StorageClass::Image, scalar);
            let sample = t.c_u32(0);
            let tp = sp!(
                t,
                t.b.image_texel_pointer(p, None, image.var, coord, sample)
            )?;
            let r = t.atomic_op(op, scalar, tp, scope, value, third)?;
            Ok(Some(sp!(t, t.b.bitcast(u32_, None, r))?))
        })?;
        let old = old.unwrap_or(zero);
        let u4 = self.t.u4;
        let v = self.splat(u4, old);
        match inst.dst.first() {
            Some(d) => self.store(d, v, 0xF),
            None => Ok(()),
        }
    }
}
