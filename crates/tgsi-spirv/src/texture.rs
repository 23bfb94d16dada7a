//! Textures and samplers: `SVIEW[n]` (and the texture behind `SAMP[n]` of
//! the legacy TEX opcodes) is a sampled image at binding 64 + n, `SAMP[n]`
//! a sampler at binding 96 + n, both in set 0. TEX, TXP, TXB, TXL, TXD,
//! TEX_LZ, SAMPLE, SAMPLE_B, SAMPLE_L, SAMPLE_D and SAMPLE_LZ sample
//! (implicit LOD in fragment shaders, LOD 0 elsewhere, as the machine
//! does); TXF, TXF_LZ and SAMPLE_I fetch texels. The resource operand's
//! swizzle picks the result's channels.

use super::Error;
use super::module::Translator;
use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Decoration, Dim, ImageFormat, ImageOperands, StorageClass, Word};
use std::collections::HashMap;
use tgsi_ir::enums::{File, Processor, ReturnType, TextureTarget};
use tgsi_ir::ir::{Instruction, SrcOperand};
use tgsi_ir::opcode::{Category, Opcode};

/// A texture binding: its variable, image type and texel type (`vec4` of it).
#[derive(Clone, Copy)]
pub(crate) struct Image {
    pub var: Word,
    pub ty: Word,
    pub texel: Word,
    pub target: TextureTarget,
}

/// The binding of `SVIEW[n]` (and of `SAMP[n]`'s texture for TEX).
pub const fn texture_binding(n: u32) -> u32 {
    64 + n
}

/// The binding of `SAMP[n]`.
pub const fn sampler_binding(n: u32) -> u32 {
    96 + n
}

/// How a target is sampled in SPIR-V.
#[derive(Clone, Copy)]
struct Shape {
    dim: Dim,
    arrayed: bool,
    ms: bool,
    /// Coordinates (with the layer of arrays).
    coords: u32,
    /// A depth texture sampled with a compare (`Dref`).
    shadow: bool,
    /// RECT: texel-unit coordinates, divided by the size before sampling.
    rect: bool,
}

/// Whether two targets differ in the compare only (2D_ARRAY and
/// SHADOW2D_ARRAY): one image serves both.
fn same_but_shadow(a: TextureTarget, b: TextureTarget) -> bool {
    match (shape(a), shape(b)) {
        (Ok(x), Ok(y)) => {
            a != b
                && x.dim == y.dim
                && x.arrayed == y.arrayed
                && x.ms == y.ms
                && x.rect == y.rect
                && x.coords == y.coords
        }
        _ => false,
    }
}

/// Whether `op` on a target that is `shadow` samples with a depth compare,
/// as the machine decides: SAMPLE_C and SAMPLE_C_LZ always, the legacy
/// opcodes (which name their texture by the sampler) on shadow targets;
/// the other SVIEW opcodes read the texels.
pub(crate) fn compares(op: Opcode, shadow: bool) -> bool {
    use Opcode as O;
    matches!(op, O::SAMPLE_C | O::SAMPLE_C_LZ) || (shadow && (legacy_sample(op) || op == O::TG4))
}

/// The legacy opcodes that sample (filter) the texture their sampler
/// names: TEX, TXP, TXB, TXL, TXD, TEX_LZ and the cube-array forms.
fn legacy_sample(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::TEX | O::TXP | O::TXB | O::TXL | O::TXD | O::TEX_LZ | O::TEX2 | O::TXB2 | O::TXL2
    )
}

/// Each sampler the shader samples with, and whether with a depth
/// compare (SAMPLE_C, SAMPLE_C_LZ, and the legacy opcodes on shadow
/// targets): a device leaves a compare with a sampler that
/// has no compare function (and a plain sample with one that has) open,
/// where the machine follows the sampler.
pub fn sampler_uses(shader: &tgsi_ir::ir::Shader) -> Vec<(u32, bool)> {
    let mut out: Vec<(u32, bool)> = Vec::new();
    for inst in shader.instructions() {
        let Some(samp) = inst.src.iter().find(|s| s.reg.file == File::Sampler) else {
            continue;
        };
        let shadow = inst
            .texture
            .as_ref()
            .and_then(|t| shape(t.target).ok())
            .is_some_and(|sh| sh.shadow);
        let use_ = (samp.reg.index.offset as u32, compares(inst.opcode, shadow));
        if !out.contains(&use_) {
            out.push(use_);
        }
    }
    out
}

/// The component a gather reads.
#[derive(Clone, Copy)]
enum GatherComponent {
    Constant(u32),
    /// A `uint` 0..=3 of each invocation.
    Dynamic(Word),
}

/// The shape of a target SPIR-V can sample, or why not.
fn shape(target: TextureTarget) -> Result<Shape, String> {
    use TextureTarget as T;
    let (dim, arrayed, ms, coords) = match target {
        T::Tex1D | T::Shadow1D => (Dim::Dim1D, false, false, 1),
        T::Tex2D | T::Shadow2D | T::Rect | T::ShadowRect => (Dim::Dim2D, false, false, 2),
        T::Tex3D => (Dim::Dim3D, false, false, 3),
        T::Cube | T::ShadowCube => (Dim::DimCube, false, false, 3),
        T::Array1D | T::Shadow1DArray => (Dim::Dim1D, true, false, 2),
        T::Array2D | T::Shadow2DArray => (Dim::Dim2D, true, false, 3),
        T::CubeArray | T::ShadowCubeArray => (Dim::DimCube, true, false, 4),
        T::Msaa2D => (Dim::Dim2D, false, true, 2),
        T::Msaa2DArray => (Dim::Dim2D, true, true, 3),
        T::Buffer => (Dim::DimBuffer, false, false, 1),
        other => {
            return Err(format!("{other} textures are not translated to SPIR-V"));
        }
    };
    Ok(Shape {
        dim,
        arrayed,
        ms,
        coords,
        shadow: target.is_shadow(),
        rect: matches!(target, T::Rect | T::ShadowRect),
    })
}

/// The textures the legacy TEX opcodes name by their sampler's index
/// (sampled at the binding of `SVIEW[n]`), in order, once each.
pub(crate) fn legacy_textures(shader: &tgsi_ir::ir::Shader) -> Vec<u32> {
    let mut out = Vec::new();
    for inst in shader.instructions() {
        if inst.opcode.info().category == Category::Texture
            && inst.texture.is_some()
            && let Some(src) = inst.src.last()
            && src.reg.file == File::Sampler
        {
            let n = src.reg.index.offset as u32;
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out.sort();
    out
}

impl Translator<'_> {
    /// Declares every texture and sampler the shader uses (before main).
    pub(crate) fn declare_textures(&mut self) -> Result<(), Error> {
        let shader = self.shader;
        let mut views: HashMap<u32, (TextureTarget, ReturnType)> = HashMap::new();
        for d in shader.declarations() {
            match d.file {
                File::SamplerView => {
                    let v = d.sampler_view.ok_or_else(|| {
                        Error::general(format!("SVIEW[{}] without a target", d.first))
                    })?;
                    for n in d.first..=d.last {
                        views.insert(n, (v.target, v.return_types[0]));
                    }
                }
                File::Sampler => {
                    for n in d.first..=d.last {
                        let s = self.b.type_sampler();
                        let var = self.uniform_var(s, sampler_binding(n));
                        self.samplers.insert(n, (var, s));
                    }
                }
                _ => {}
            }
        }
        // the legacy TEX opcodes name the texture by its sampler, with the target
        for inst in shader.instructions() {
            if inst.opcode.info().category == Category::Texture
                && let (Some(t), Some(src)) = (&inst.texture, inst.src.last())
                && src.reg.file == File::Sampler
            {
                let n = src.reg.index.offset as u32;
                match views.get(&n).copied() {
                    // with and without a compare: one image (Vulkan's
                    // compare is the instruction's, not the image type's)
                    Some((target, rt)) if same_but_shadow(target, t.target) => {
                        let plain = if shape(target).is_ok_and(|sh| sh.shadow) {
                            t.target
                        } else {
                            target
                        };
                        views.insert(n, (plain, rt));
                    }
                    Some((target, _)) if target != t.target => {
                        return Err(Error::general(format!(
                            "texture {n} is sampled both as {target} and as {}",
                            t.target
                        )));
                    }
                    Some(_) => {}
                    None => {
                        views.insert(n, (t.target, ReturnType::Float));
                    }
                }
            }
        }
        let mut keys: Vec<u32> = views.keys().copied().collect();
        keys.sort();
        for n in keys {
            let (target, rt) = views[&n];
            let Shape {
                dim,
                arrayed,
                ms,
                shadow,
                rect,
                ..
            } = shape(target).map_err(Error::general)?;
            if rect {
                // the size divides RECT coordinates
                self.b.capability(Capability::ImageQuery);
            }
            if dim == Dim::Dim1D {
                self.b.capability(Capability::Sampled1D);
            }
            if dim == Dim::DimBuffer {
                self.b.capability(Capability::SampledBuffer);
            }
            if dim == Dim::DimCube && arrayed {
                self.b.capability(Capability::SampledCubeArray);
            }
            let sampled = match rt {
                ReturnType::Sint => self.t.i32,
                ReturnType::Uint => self.t.u32,
                _ => self.t.f32,
            };
            let texel = match rt {
                ReturnType::Sint => self.t.i4,
                ReturnType::Uint => self.t.u4,
                _ => self.t.f4,
            };
            let ty = self.b.type_image(
                sampled,
                dim,
                shadow as u32,
                arrayed as u32,
                ms as u32,
                1,
                ImageFormat::Unknown,
                None,
            );
            let var = self.uniform_var(ty, texture_binding(n));
            self.images.insert(
                n,
                Image {
                    var,
                    ty,
                    texel,
                    target,
                },
            );
        }
        Ok(())
    }

    /// The declared texture `n`.
    fn image_of(&self, n: u32) -> Result<Image, Error> {
        self.images
            .get(&n)
            .copied()
            .ok_or_else(|| self.fail(format!("texture {n} is not declared")))
    }

    /// The declared sampler `n`: its variable and type.
    fn sampler_of(&self, n: u32) -> Result<(Word, Word), Error> {
        self.samplers
            .get(&n)
            .copied()
            .ok_or_else(|| self.fail(format!("SAMP[{n}] is not declared")))
    }

    /// A resource variable (`UniformConstant`) of type `ty` at `binding`.
    pub(crate) fn uniform_var(&mut self, ty: Word, binding: u32) -> Word {
        let p = self.ptr(StorageClass::UniformConstant, ty);
        let var = self
            .b
            .variable(p, None, StorageClass::UniformConstant, None);
        self.bind(var, binding);
        var
    }

    fn bind(&mut self, var: Word, binding: u32) {
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        self.interface.push(var);
    }

    /// A texture or sampling instruction; `None` for every other opcode.
    pub(crate) fn texture_instruction(&mut self, inst: &Instruction) -> Result<Option<()>, Error> {
        use Opcode as O;
        let op = inst.opcode;
        let legacy = legacy_sample(op) || matches!(op, O::TXF | O::TXF_LZ);
        let sample = matches!(
            op,
            O::SAMPLE
                | O::SAMPLE_B
                | O::SAMPLE_L
                | O::SAMPLE_D
                | O::SAMPLE_I
                | O::SAMPLE_I_MS
                | O::SAMPLE_C
                | O::SAMPLE_C_LZ
        );
        if matches!(op, O::TXQ | O::SVIEWINFO) {
            return self.size_query(inst).map(Some);
        }
        if op == O::GATHER4 {
            // the component: the sampler operand's swizzle `.x`
            let component = inst.src.get(2).map_or(0, |s| s.swizzle.0[0] as u32);
            return self
                .gather(inst, 1, GatherComponent::Constant(component))
                .map(Some);
        }
        if op == O::TG4 {
            let component = self.tg4_component(inst)?;
            return self.gather(inst, 2, component).map(Some);
        }
        if matches!(op, O::LODQ | O::LOD) {
            return self.lod_query(inst).map(Some);
        }
        if matches!(op, O::TXQS | O::SAMPLE_INFO | O::SAMPLE_POS) {
            return self.sample_query(inst).map(Some);
        }
        if !legacy && !sample {
            if matches!(op.info().category, Category::Texture | Category::Sampling) {
                return Err(self.fail(format!("{op} is not translated to SPIR-V yet")));
            }
            return Ok(None);
        }
        // (texture index, resource operand, sampler index)
        let (tex, res_k, samp) = if legacy {
            // the sampler follows the operands: TXD's two gradients, the
            // second operand of TEX2/TXB2/TXL2 (reference, bias, level)
            let k = match op {
                O::TXD => 3,
                O::TEX2 | O::TXB2 | O::TXL2 => 2,
                _ => 1,
            };
            let s = inst
                .src
                .get(k)
                .ok_or_else(|| self.fail(format!("{op} without a sampler")))?;
            (
                s.reg.index.offset as u32,
                k,
                Some(s.reg.index.offset as u32),
            )
        } else {
            let r = inst
                .src
                .get(1)
                .ok_or_else(|| self.fail(format!("{op} without a view")))?;
            let s = (!matches!(op, O::SAMPLE_I | O::SAMPLE_I_MS))
                .then(|| inst.src.get(2).map(|s| s.reg.index.offset as u32));
            (r.reg.index.offset as u32, 1, s.flatten())
        };
        let image = self.image_of(tex)?;
        // a legacy opcode's own target (a texture sampled with and without
        // a compare is one image)
        let target = match &inst.texture {
            Some(t) if legacy && same_but_shadow(image.target, t.target) => t.target,
            _ => image.target,
        };
        let sh = shape(target).map_err(|e| self.fail(e))?;
        let fetch = matches!(op, O::TXF | O::TXF_LZ | O::SAMPLE_I | O::SAMPLE_I_MS);
        let texel = if fetch {
            self.fetched_texel(inst, image, sh)?
        } else {
            self.sampled_texel(inst, image, sh, samp)?
        };
        // the resource operand's swizzle picks the channels
        let v = self.swizzled(image.texel, texel, &inst.src[res_k])?;
        self.store_result(inst, v)?;
        Ok(Some(()))
    }

    /// A texel fetch (TXF, TXF_LZ, SAMPLE_I): integer coordinates moved by
    /// the constant texel offsets (not the layer), bounds after.
    fn fetched_texel(
        &mut self,
        inst: &Instruction,
        image: Image,
        sh: Shape,
    ) -> Result<Word, Error> {
        let op = inst.opcode;
        let (ms, ncoord) = (sh.ms, sh.coords);
        let coords_src = &inst.src[0];
        if matches!(image.target, TextureTarget::Cube | TextureTarget::CubeArray) {
            return Err(self.fail(format!(
                "{op} fetches from a cube texture: OpImageFetch has no cube form (and the machine refuses the fetch too)"
            )));
        }
        let mut c = self.fetch(coords_src, tgsi_ir::opcode::OperandType::Int)?;
        // texel offsets move the address (not the layer), bounds after
        let dims = ncoord - sh.arrayed as u32;
        // a fetch adds them to its integer address: any value is exact
        if let Some((o, _)) = self.texel_offsets(inst, 3)? {
            let (i4, i32_) = (self.t.i4, self.t.i32);
            let zero = self.c_i32(0);
            let comps: Vec<Word> = (0..4u32)
                .map(|k| {
                    if k < dims {
                        self.b
                            .composite_extract(i32_, None, o, [k])
                            .expect("in a block")
                    } else {
                        zero
                    }
                })
                .collect();
            let o4 = sp!(self, self.b.composite_construct(i4, None, comps))?;
            c = sp!(self, self.b.i_add(i4, None, c, o4))?;
        }
        // the level (the sample of a multisampled texture): `.w`, 0 for
        // TXF_LZ; SAMPLE_I_MS's third operand's .x (level 0 of a texture
        // with one sample)
        let i32_ = self.t.i32;
        let last = match op {
            Opcode::TXF_LZ => self.c_i32(0),
            Opcode::SAMPLE_I_MS if ms => {
                let s = inst
                    .src
                    .get(2)
                    .ok_or_else(|| self.fail("SAMPLE_I_MS without a sample index"))?;
                let v = self.fetch(s, tgsi_ir::opcode::OperandType::Int)?;
                sp!(self, self.b.composite_extract(i32_, None, v, [0]))?
            }
            Opcode::SAMPLE_I_MS => self.c_i32(0),
            _ => sp!(self, self.b.composite_extract(i32_, None, c, [3]))?,
        };
        self.texel_fetch(image, c, ncoord, ms, last)
    }

    /// A sample with sampler `samp` (TEX and its forms, SAMPLE and its
    /// forms), a depth compare on shadow targets.
    fn sampled_texel(
        &mut self,
        inst: &Instruction,
        image: Image,
        sh: Shape,
        samp: Option<u32>,
    ) -> Result<Word, Error> {
        use Opcode as O;
        let op = inst.opcode;
        let (ms, ncoord) = (sh.ms, sh.coords);
        let coords_src = &inst.src[0];
        if ms {
            return Err(self.fail(format!("{op} samples a multisampled texture")));
        }
        if sh.dim == Dim::DimBuffer {
            return Err(self.fail(format!(
                "{op} samples a buffer texture, which SPIR-V cannot"
            )));
        }
        let samp = samp.ok_or_else(|| self.fail(format!("{op} without a sampler")))?;
        let (svar, sty) = self.sampler_of(samp)?;
        let mut c = self.fetch(coords_src, tgsi_ir::opcode::OperandType::Float)?;
        let f4 = self.t.f4;
        if op == O::TXP {
            let f32_ = self.t.f32;
            let w = sp!(self, self.b.composite_extract(f32_, None, c, [3]))?;
            let w4 = self.splat(f4, w);
            c = sp!(self, self.b.f_div(f4, None, c, w4))?;
        }
        let img = sp!(self, self.b.load(image.ty, None, image.var, None, []))?;
        let s = sp!(self, self.b.load(sty, None, svar, None, []))?;
        let sit = self.b.type_sampled_image(image.ty);
        let si = sp!(self, self.b.sampled_image(sit, None, img, s))?;
        let f32_ = self.t.f32;
        let mut coord = self.first_channels(c, ncoord, f32_)?;
        if sh.rect {
            coord = self.rect_to_normalized(img, coord)?;
        }
        if compares(op, sh.shadow) {
            let reference = self.shadow_reference(inst, sh, c)?;
            self.sample_compare(inst, sh, si, (coord, c), reference)
        } else {
            self.sample(inst, si, image, coord, c)
        }
    }

    /// The first `n` channels of a `vec4` of `elem` (the vector itself for
    /// 4, a scalar for 1).
    fn first_channels(&mut self, v: Word, n: u32, elem: Word) -> Result<Word, Error> {
        match n {
            1 => sp!(self, self.b.composite_extract(elem, None, v, [0])),
            4 => Ok(v),
            n => {
                let ty = self.b.type_vector(elem, n);
                let idx: Vec<u32> = (0..n).collect();
                sp!(self, self.b.vector_shuffle(ty, None, v, v, idx))
            }
        }
    }

    /// A sample with the opcode's level of detail (implicit in fragment
    /// shaders, else explicit: TXL's `.w`, SAMPLE_L's operand, 0), bias,
    /// explicit gradients (TXD, SAMPLE_D) and constant texel offsets.
    fn sample(
        &mut self,
        inst: &Instruction,
        si: Word,
        image: Image,
        coord: Word,
        c4: Word,
    ) -> Result<Word, Error> {
        use Opcode as O;
        let op = inst.opcode;
        let f32_ = self.t.f32;
        let implicit = self.shader.processor == Processor::Fragment;
        let operand = |t: &mut Self, k: usize| -> Result<Word, Error> {
            let s = inst
                .src
                .get(k)
                .ok_or_else(|| t.fail(format!("{op}: missing operand {k}")))?;
            t.fetch(s, tgsi_ir::opcode::OperandType::Float)
        };
        let x_of = |t: &mut Self, v: Word| sp!(t, t.b.composite_extract(f32_, None, v, [0]));
        let w = |t: &mut Self| sp!(t, t.b.composite_extract(f32_, None, c4, [3]));
        let sh = shape(image.target).map_err(|e| self.fail(e))?;
        let grad_dims = sh.coords - sh.arrayed as u32;
        let (mut mask, mut operands) = (ImageOperands::NONE, Vec::new());
        let mut explicit = false;
        match op {
            // outside fragment shaders there are no derivatives: the bias
            // is the level of detail, as on the machine
            O::TXB | O::TXB2 | O::SAMPLE_B => {
                let bias = match op {
                    O::TXB => w(self)?,
                    O::TXB2 => {
                        let v = operand(self, 1)?;
                        x_of(self, v)?
                    }
                    _ => {
                        let v = operand(self, 3)?;
                        x_of(self, v)?
                    }
                };
                if implicit {
                    mask |= ImageOperands::BIAS;
                } else {
                    mask |= ImageOperands::LOD;
                    explicit = true;
                }
                operands.push(bias);
            }
            O::TXD | O::SAMPLE_D => {
                let (kx, ky) = if op == O::TXD { (1, 2) } else { (3, 4) };
                let (dx, dy) = (operand(self, kx)?, operand(self, ky)?);
                let dx = self.first_channels(dx, grad_dims, f32_)?;
                let dy = self.first_channels(dy, grad_dims, f32_)?;
                mask |= ImageOperands::GRAD;
                operands.extend([dx, dy]);
                explicit = true;
            }
            _ => {
                let lod = match op {
                    O::TXL => Some(w(self)?),
                    O::TXL2 => {
                        let v = operand(self, 1)?;
                        Some(x_of(self, v)?)
                    }
                    O::SAMPLE_L => {
                        let v = operand(self, 3)?;
                        Some(x_of(self, v)?)
                    }
                    O::TEX_LZ => Some(self.c_f32(0.0)),
                    _ if !implicit => Some(self.c_f32(0.0)),
                    _ => None,
                };
                if let Some(l) = lod {
                    mask |= ImageOperands::LOD;
                    operands.push(l);
                    explicit = true;
                }
            }
        }
        if let Some(offset) = self.const_offset(inst, grad_dims)? {
            mask |= ImageOperands::CONST_OFFSET;
            operands.push(offset);
        }
        let ops: Vec<Operand> = operands.into_iter().map(Operand::IdRef).collect();
        if explicit {
            sp!(
                self,
                self.b
                    .image_sample_explicit_lod(image.texel, None, si, coord, mask, ops)
            )
        } else {
            let mask = (!mask.is_empty()).then_some(mask);
            sp!(
                self,
                self.b
                    .image_sample_implicit_lod(image.texel, None, si, coord, mask, ops)
            )
        }
    }

    /// The instruction's texel offsets as a constant `int` vector of `n`
    /// components, when it has them (immediates only: SPIR-V's sampling
    /// takes constant offsets).
    fn const_offset(&mut self, inst: &Instruction, n: u32) -> Result<Option<Word>, Error> {
        let Some(o) = inst.texture.as_ref().and_then(|t| t.offsets.first()) else {
            return Ok(None);
        };
        if o.file != File::Immediate {
            return Err(self.fail(format!(
                "{} with texel offsets in a register: Vulkan takes offsets that are not constants only on gathers",
                inst.opcode
            )));
        }
        let words = self
            .shader
            .immediates()
            .nth(o.index.max(0) as usize)
            .map(|imm| imm.words.clone())
            .unwrap_or_default();
        let i32_ = self.t.i32;
        let comps: Vec<Word> = (0..n as usize)
            .map(|c| {
                let w = words.get(o.swizzle[c] as usize).copied().unwrap_or(0);
                self.c_i32(w as i32)
            })
            .collect();
        Ok(Some(if n == 1 {
            comps[0]
        } else {
            let ty = self.b.type_vector(i32_, n);
            self.b.constant_composite(ty, comps)
        }))
    }

    /// TXQ and SVIEWINFO: (width, height, depth or layers, levels) of the
    /// level in `.x` of operand 0, as the machine gives them ((0, 0, 0,
    /// levels) past the last level; a cube array's layers counted in cubes).
    fn size_query(&mut self, inst: &Instruction) -> Result<(), Error> {
        let (i32_, u32_, u4, bool_) = (self.t.i32, self.t.u32, self.t.u4, self.t.bool);
        let res = inst
            .src
            .get(1)
            .ok_or_else(|| self.fail(format!("{} without a texture", inst.opcode)))?;
        let n = res.reg.index.offset as u32;
        let image = self.image_of(n)?;
        let sh = shape(image.target).map_err(|e| self.fail(e))?;
        self.b.capability(Capability::ImageQuery);
        let img = sp!(self, self.b.load(image.ty, None, image.var, None, []))?;
        if sh.dim == Dim::DimBuffer {
            // (elements, 0, 0, 1) at every level, as the machine gives it
            let size = sp!(self, self.b.image_query_size(i32_, None, img))?;
            let size = sp!(self, self.b.bitcast(u32_, None, size))?;
            let (zero, one) = (self.c_u32(0), self.c_u32(1));
            let v = sp!(
                self,
                self.b
                    .composite_construct(u4, None, [size, zero, zero, one])
            )?;
            return self.store_result(inst, v);
        }
        let lod = self.fetch(&inst.src[0], tgsi_ir::opcode::OperandType::Uint)?;
        let lod = sp!(self, self.b.composite_extract(u32_, None, lod, [0]))?;
        // a multisampled texture has one level
        let levels = if sh.ms {
            self.c_u32(1)
        } else {
            let levels = sp!(self, self.b.image_query_levels(i32_, None, img))?;
            sp!(self, self.b.bitcast(u32_, None, levels))?
        };
        let inside = sp!(self, self.b.u_less_than(bool_, None, lod, levels))?;
        let zero = self.c_u32(0);
        let n = match (sh.dim, sh.arrayed) {
            (Dim::Dim1D, false) => 1,
            (Dim::Dim1D, true) | (Dim::Dim2D | Dim::DimCube, false) => 2,
            _ => 3,
        };
        let q = if n == 1 {
            i32_
        } else {
            self.b.type_vector(i32_, n)
        };
        // level 0's size, halved per level (at least 1) as the machine's
        // levels are; layers are not halved
        let size = if sh.ms {
            sp!(self, self.b.image_query_size(q, None, img))?
        } else {
            let lod0 = self.c_i32(0);
            sp!(self, self.b.image_query_size_lod(q, None, img, lod0))?
        };
        let one = self.c_u32(1);
        let mut parts = [zero, zero, zero, levels];
        for (c, part) in parts.iter_mut().enumerate().take(n as usize) {
            let v = if n == 1 {
                size
            } else {
                sp!(self, self.b.composite_extract(i32_, None, size, [c as u32]))?
            };
            let mut v = sp!(self, self.b.bitcast(u32_, None, v))?;
            let layer = sh.arrayed && c as u32 == n - 1;
            if !layer {
                let shifted = sp!(self, self.b.shift_right_logical(u32_, None, v, lod))?;
                v = self.gl(u32_, rspirv::spirv::GlslStd450Op::UMax, &[shifted, one])?;
            }
            *part = sp!(self, self.b.select(u32_, None, inside, v, zero))?;
        }
        let v = sp!(self, self.b.composite_construct(u4, None, parts))?;
        self.store_result(inst, v)
    }

    /// TXQS and SAMPLE_INFO (the sample count, an integer in `.x`) and
    /// SAMPLE_POS (the position of a sample in the pixel, from its top-left
    /// corner, in `.xy`: the standard pattern of the count, (0, 0) for an
    /// index past it) of a texture, or with a TEMP first operand of the
    /// render target (its sample count the specialization constant
    /// [`crate::TARGET_SAMPLES_SPEC_ID`]).
    fn sample_query(&mut self, inst: &Instruction) -> Result<(), Error> {
        let op = inst.opcode;
        let (i32_, u32_, u4, bool_) = (self.t.i32, self.t.u32, self.t.u4, self.t.bool);
        let first = inst
            .src
            .first()
            .ok_or_else(|| self.fail(format!("{op} without a source")))?;
        let count = if first.reg.file == File::Temp && op != Opcode::TXQS {
            self.target_samples()
        } else {
            let n = first.reg.index.offset as u32;
            let image = self.image_of(n)?;
            let sh = shape(image.target).map_err(|e| self.fail(e))?;
            if sh.ms {
                self.b.capability(Capability::ImageQuery);
                let img = sp!(self, self.b.load(image.ty, None, image.var, None, []))?;
                let n = sp!(self, self.b.image_query_samples(i32_, None, img))?;
                sp!(self, self.b.bitcast(u32_, None, n))?
            } else {
                self.c_u32(1)
            }
        };
        let zero = self.c_u32(0);
        if op != Opcode::SAMPLE_POS {
            let v = sp!(
                self,
                self.b
                    .composite_construct(u4, None, [count, zero, zero, zero])
            )?;
            return self.store_result(inst, v);
        }
        let table = self
            .sample_positions
            .ok_or_else(|| self.fail("SAMPLE_POS without its table"))?;
        let index = inst
            .src
            .last()
            .ok_or_else(|| self.fail("SAMPLE_POS without a sample index"))?;
        let index = self.fetch(index, tgsi_ir::opcode::OperandType::Uint)?;
        let index = sp!(self, self.b.composite_extract(u32_, None, index, [0]))?;
        // the patterns of 1, 2, 4, 8 and 16 samples one after the other:
        // count n's starts at n - 1
        let one = self.c_u32(1);
        let sixteen = self.c_u32(16);
        let below = sp!(self, self.b.i_sub(u32_, None, count, one))?;
        let pow2 = sp!(self, self.b.bitwise_and(u32_, None, count, below))?;
        let pow2 = sp!(self, self.b.i_equal(bool_, None, pow2, zero))?;
        let nonzero = sp!(self, self.b.i_not_equal(bool_, None, count, zero))?;
        let small = sp!(self, self.b.u_less_than_equal(bool_, None, count, sixteen))?;
        let inside = sp!(self, self.b.u_less_than(bool_, None, index, count))?;
        let mut ok = sp!(self, self.b.logical_and(bool_, None, pow2, nonzero))?;
        ok = sp!(self, self.b.logical_and(bool_, None, ok, small))?;
        ok = sp!(self, self.b.logical_and(bool_, None, ok, inside))?;
        let at = sp!(self, self.b.i_add(u32_, None, below, index))?;
        let at = sp!(self, self.b.select(u32_, None, ok, at, zero))?;
        let u2 = self.b.type_vector(u32_, 2);
        let p = self.ptr(StorageClass::Private, u2);
        let slot = sp!(self, self.b.access_chain(p, None, table, [at]))?;
        let xy = sp!(self, self.b.load(u2, None, slot, None, []))?;
        let x = sp!(self, self.b.composite_extract(u32_, None, xy, [0]))?;
        let y = sp!(self, self.b.composite_extract(u32_, None, xy, [1]))?;
        let (x, y) = (
            sp!(self, self.b.select(u32_, None, ok, x, zero))?,
            sp!(self, self.b.select(u32_, None, ok, y, zero))?,
        );
        let v = sp!(
            self,
            self.b.composite_construct(u4, None, [x, y, zero, zero])
        )?;
        // a view operand's swizzle picks the channels, as the machine's
        let v = if first.reg.file == File::SamplerView {
            self.swizzled(u4, v, first)?
        } else {
            v
        };
        self.store_result(inst, v)
    }

    /// The standard sample positions of 1, 2, 4, 8 and 16 samples (the
    /// positions of `tgsi_ir::samples`, as f32 bits), a private array the
    /// SAMPLE_POS instructions read; declared with the globals.
    pub(crate) fn declare_sample_positions(&mut self) {
        let u32_ = self.t.u32;
        let u2 = self.b.type_vector(u32_, 2);
        let mut items = Vec::new();
        for count in [1u32, 2, 4, 8, 16] {
            for i in 0..count {
                let (x, y) = tgsi_ir::samples::sample_position(count, i).unwrap_or_default();
                let (cx, cy) = (self.c_u32(x.to_bits()), self.c_u32(y.to_bits()));
                items.push(self.b.constant_composite(u2, [cx, cy]));
            }
        }
        let len = self.c_u32(items.len() as u32);
        let arr = self.b.type_array(u2, len);
        let init = self.b.constant_composite(arr, items);
        let p = self.ptr(StorageClass::Private, arr);
        let var = self.b.variable(p, None, StorageClass::Private, Some(init));
        self.interface.push(var);
        self.sample_positions = Some(var);
    }

    /// The render target's sample count, the specialization constant
    /// [`crate::TARGET_SAMPLES_SPEC_ID`] (default 1; declared once).
    fn target_samples(&mut self) -> Word {
        self.spec_constant(crate::TARGET_SAMPLES_SPEC_ID, 1)
    }

    /// TG4's component: `.x` of its second operand read as the machine
    /// reads it (bits below 4 as an integer, others as a float, saturated
    /// to an integer), modulo 4: a constant for an immediate, else a value
    /// in each invocation.
    fn tg4_component(&mut self, inst: &Instruction) -> Result<GatherComponent, Error> {
        let src = inst
            .src
            .get(1)
            .ok_or_else(|| self.fail("TG4 without a component operand"))?;
        let of_bits = |bits: u32| {
            if bits < 4 {
                bits
            } else {
                (f32::from_bits(bits) as i32 & 3) as u32
            }
        };
        if src.reg.file == File::Immediate && src.reg.index.indirect.is_none() {
            let bits = self
                .shader
                .immediates()
                .nth(src.reg.index.offset.max(0) as usize)
                .and_then(|imm| imm.words.get(src.swizzle.0[0] as usize).copied())
                .unwrap_or(0);
            return Ok(GatherComponent::Constant(of_bits(bits)));
        }
        let (u32_, i32_, f4, bool_) = (self.t.u32, self.t.i32, self.t.f4, self.t.bool);
        let v = self.fetch(src, tgsi_ir::opcode::OperandType::Uint)?;
        let bits = sp!(self, self.b.composite_extract(u32_, None, v, [0]))?;
        let f = sp!(self, self.b.bitcast(f4, None, v))?;
        let i = self.float_to_int(f, true)?;
        let i = sp!(self, self.b.composite_extract(i32_, None, i, [0]))?;
        let i = sp!(self, self.b.bitcast(u32_, None, i))?;
        let three = self.c_u32(3);
        let i = sp!(self, self.b.bitwise_and(u32_, None, i, three))?;
        let four = self.c_u32(4);
        let small = sp!(self, self.b.u_less_than(bool_, None, bits, four))?;
        Ok(GatherComponent::Dynamic(sp!(
            self,
            self.b.select(u32_, None, small, bits, i)
        )?))
    }

    /// GATHER4 (`GATHER4 dst, coord, SVIEW[n], SAMP[m]`) and TG4 (`TG4
    /// dst, coord, component, SAMP[n]`, the texture of the sampler's
    /// index): the four texels' `component` around the coordinates, in
    /// Direct3D's order. `view` is the operand naming the texture.
    fn gather(
        &mut self,
        inst: &Instruction,
        view: usize,
        component: GatherComponent,
    ) -> Result<(), Error> {
        let f32_ = self.t.f32;
        let op = inst.opcode;
        let operand = |t: &Self, k: usize| {
            inst.src
                .get(k)
                .ok_or_else(|| t.fail(format!("{op}: missing operand {k}")))
        };
        let n = operand(self, view)?.reg.index.offset as u32;
        let samp = operand(self, 2)?.reg.index.offset as u32;
        let image = self.image_of(n)?;
        let target = match &inst.texture {
            Some(t) if op == Opcode::TG4 && same_but_shadow(image.target, t.target) => t.target,
            _ => image.target,
        };
        let sh = shape(target).map_err(|e| self.fail(e))?;
        if sh.rect || !matches!(sh.dim, Dim::Dim2D | Dim::DimCube) {
            return Err(self.fail(format!(
                "{op} on a {} texture is not translated to SPIR-V yet",
                image.target
            )));
        }
        let (svar, sty) = self.sampler_of(samp)?;
        let c = self.fetch(&inst.src[0], tgsi_ir::opcode::OperandType::Float)?;
        let coord = self.first_channels(c, sh.coords, f32_)?;
        let img = sp!(self, self.b.load(image.ty, None, image.var, None, []))?;
        let s = sp!(self, self.b.load(sty, None, svar, None, []))?;
        let sit = self.b.type_sampled_image(image.ty);
        let si = sp!(self, self.b.sampled_image(sit, None, img, s))?;
        let (mask, ops) = match self.gather_offset(inst)? {
            Some((o, true)) => (Some(ImageOperands::CONST_OFFSET), vec![Operand::IdRef(o)]),
            Some((o, false)) => (Some(ImageOperands::OFFSET), vec![Operand::IdRef(o)]),
            None => (None, vec![]),
        };
        let v = if compares(op, sh.shadow) {
            // the compare of each texel with the reference, as the machine's
            let reference = self.shadow_reference(inst, sh, c)?;
            sp!(
                self,
                self.b
                    .image_dref_gather(image.texel, None, si, coord, reference, mask, ops)
            )?
        } else {
            match component {
                GatherComponent::Constant(c) => {
                    let c = self.c_u32(c);
                    sp!(
                        self,
                        self.b
                            .image_gather(image.texel, None, si, coord, c, mask, ops)
                    )?
                }
                GatherComponent::Dynamic(which) => {
                    // SPIR-V gathers a constant component: all four, then
                    // the one each invocation names
                    let bool_ = self.t.bool;
                    let mut v = 0;
                    for c in 0..4u32 {
                        let k = self.c_u32(c);
                        let g = sp!(
                            self,
                            self.b
                                .image_gather(image.texel, None, si, coord, k, mask, ops.clone())
                        )?;
                        v = if c == 0 {
                            g
                        } else {
                            let is = sp!(self, self.b.i_equal(bool_, None, which, k))?;
                            sp!(self, self.b.select(image.texel, None, is, g, v))?
                        };
                    }
                    v
                }
            }
        };
        // a view operand's swizzle picks the channels, as the machine's
        // (TG4 names a sampler, whose swizzle it ignores)
        let view_operand = operand(self, view)?;
        let v = if view_operand.reg.file == File::SamplerView {
            self.swizzled(image.texel, v, view_operand)?
        } else {
            v
        };
        self.store_result(inst, v)
    }

    /// The four-channel `v` (of type `ty`) through operand `o`'s swizzle,
    /// as the machine applies a resource operand's swizzle to a result.
    fn swizzled(&mut self, ty: Word, v: Word, o: &SrcOperand) -> Result<Word, Error> {
        let sw: Vec<u32> = o.swizzle.0.iter().map(|c| *c as u32 & 3).collect();
        Ok(sp!(self, self.b.vector_shuffle(ty, None, v, v, sw))?)
    }

    /// The instruction's texel offsets as an `int` vector of `n`
    /// components: a constant for immediates (true), else the register's
    /// channels, each lane's own (false).
    fn texel_offsets(&mut self, inst: &Instruction, n: u32) -> Result<Option<(Word, bool)>, Error> {
        let Some(o) = inst
            .texture
            .as_ref()
            .and_then(|t| t.offsets.first())
            .copied()
        else {
            return Ok(None);
        };
        if o.file == File::Immediate {
            return Ok(self.const_offset(inst, n)?.map(|c| (c, true)));
        }
        let src = SrcOperand {
            reg: tgsi_ir::ir::Register::new(o.file, o.index),
            swizzle: tgsi_ir::ir::Swizzle([o.swizzle[0], o.swizzle[1], o.swizzle[2], o.swizzle[2]]),
            negate: false,
            absolute: false,
        };
        let v = self.fetch(&src, tgsi_ir::opcode::OperandType::Int)?;
        let ty = self.b.type_vector(self.t.i32, n);
        let v = sp!(self, self.b.vector_shuffle(ty, None, v, v, 0..n))?;
        Ok(Some((v, false)))
    }

    /// A gather's texel offsets (x, y) ([`Self::texel_offsets`]); in a
    /// register through Vulkan's `ImageGatherExtended` (the device defines
    /// offsets within its `minTexelGatherOffset..=maxTexelGatherOffset`
    /// only).
    fn gather_offset(&mut self, inst: &Instruction) -> Result<Option<(Word, bool)>, Error> {
        let offsets = self.texel_offsets(inst, 2)?;
        if matches!(offsets, Some((_, false))) {
            self.b.capability(Capability::ImageGatherExtended);
        }
        Ok(offsets)
    }

    /// LODQ (`LODQ dst, coord, SAMP[n]`) and LOD (`LOD dst, coord,
    /// SVIEW[n], SAMP[m]`) in a fragment shader: `OpImageQueryLod`'s level
    /// accessed and computed level of detail in `.x` and `.y`, 0 in `.zw`,
    /// the resource operand's swizzle applied (the machine's layout).
    fn lod_query(&mut self, inst: &Instruction) -> Result<(), Error> {
        let op = inst.opcode;
        if self.shader.processor != Processor::Fragment {
            return Err(self.fail(format!(
                "{op} outside a fragment shader (it needs implicit derivatives)"
            )));
        }
        let (view, samp) = match op {
            Opcode::LODQ => (1, 1),
            _ => (1, 2),
        };
        let operand = |t: &Self, k: usize| {
            inst.src
                .get(k)
                .ok_or_else(|| t.fail(format!("{op}: missing operand {k}")))
        };
        let (tex, samp) = (
            operand(self, view)?.reg.index.offset as u32,
            operand(self, samp)?.reg.index.offset as u32,
        );
        let image = self.image_of(tex)?;
        let sh = shape(image.target).map_err(|e| self.fail(e))?;
        if sh.ms || sh.rect || sh.dim == Dim::DimBuffer {
            return Err(self.fail(format!(
                "{op} on a {} texture is not translated to SPIR-V",
                image.target
            )));
        }
        let (svar, sty) = self.sampler_of(samp)?;
        self.b.capability(rspirv::spirv::Capability::ImageQuery);
        let (f32_, f4) = (self.t.f32, self.t.f4);
        let c = self.fetch(&inst.src[0], tgsi_ir::opcode::OperandType::Float)?;
        let coord = self.first_channels(c, sh.coords - sh.arrayed as u32, f32_)?;
        let img = sp!(self, self.b.load(image.ty, None, image.var, None, []))?;
        let s = sp!(self, self.b.load(sty, None, svar, None, []))?;
        let sit = self.b.type_sampled_image(image.ty);
        let si = sp!(self, self.b.sampled_image(sit, None, img, s))?;
        let f2 = self.b.type_vector(f32_, 2);
        let lod = sp!(self, self.b.image_query_lod(f2, None, si, coord))?;
        let zero = self.c_f32(0.0);
        let z2 = self.b.constant_composite(f2, [zero, zero]);
        let v = sp!(self, self.b.vector_shuffle(f4, None, lod, z2, [0, 1, 2, 3]))?;
        // LOD's view operand's swizzle picks the channels (LODQ's operand
        // is a sampler, whose swizzle the machine ignores)
        let v = if op == Opcode::LOD {
            self.swizzled(f4, v, &inst.src[view])?
        } else {
            v
        };
        self.store_result(inst, v)
    }

    /// RECT coordinates (texel units) as normalized ones: divided by the
    /// size of level 0.
    fn rect_to_normalized(&mut self, img: Word, coord: Word) -> Result<Word, Error> {
        let (i32_, f32_) = (self.t.i32, self.t.f32);
        let (iv2, fv2) = (self.b.type_vector(i32_, 2), self.b.type_vector(f32_, 2));
        let zero = self.c_i32(0);
        let size = sp!(self, self.b.image_query_size_lod(iv2, None, img, zero))?;
        let size = sp!(self, self.b.convert_s_to_f(fv2, None, size))?;
        sp!(self, self.b.f_div(fv2, None, coord, size))
    }

    /// The depth reference of a compare on a shadow target: SAMPLE_C's and
    /// SAMPLE_C_LZ's fourth operand, else a channel of the coordinates
    /// (`.w` on 2D arrays and cubes, `.z` otherwise), as the machine reads
    /// them.
    fn shadow_reference(&mut self, inst: &Instruction, sh: Shape, c4: Word) -> Result<Word, Error> {
        use Opcode as O;
        let f32_ = self.t.f32;
        let op = inst.opcode;
        if matches!(op, O::SAMPLE_C | O::SAMPLE_C_LZ) {
            let s = inst
                .src
                .get(3)
                .ok_or_else(|| self.fail(format!("{op} without a reference")))?;
            let v = self.fetch(s, tgsi_ir::opcode::OperandType::Float)?;
            return sp!(self, self.b.composite_extract(f32_, None, v, [0]));
        }
        let channel = match (sh.dim, sh.arrayed) {
            (Dim::DimCube, true) if matches!(op, O::TEX2 | O::TXL2 | O::TG4) => {
                // the reference is the second operand's .x (TXL2: .y,
                // beside the LOD; TG4: its component operand's, as the
                // machine reads it)
                let s = inst
                    .src
                    .get(1)
                    .ok_or_else(|| self.fail(format!("{op} without a reference")))?;
                let v = self.fetch(s, tgsi_ir::opcode::OperandType::Float)?;
                let at = u32::from(op == O::TXL2);
                return sp!(self, self.b.composite_extract(f32_, None, v, [at]));
            }
            (Dim::DimCube, true) => {
                return Err(self.fail(format!(
                    "{op} on a shadow cube array (its reference is another operand's)"
                )));
            }
            (Dim::Dim2D, true) | (Dim::DimCube, false) => 3,
            _ => 2,
        };
        if op == O::TXP {
            return Err(self.fail("TXP on a shadow target is not translated to SPIR-V yet"));
        }
        sp!(self, self.b.composite_extract(f32_, None, c4, [channel]))
    }

    /// A depth compare (`Dref`) sample: the result r as (r, r, r, 1), with
    /// the opcode's level of detail (implicit in fragment shaders, 0 for
    /// the `_LZ` forms and outside them; TXL's `.w`).
    fn sample_compare(
        &mut self,
        inst: &Instruction,
        sh: Shape,
        si: Word,
        (coord, c4): (Word, Word),
        reference: Word,
    ) -> Result<Word, Error> {
        use Opcode as O;
        let op = inst.opcode;
        let (f32_, f4) = (self.t.f32, self.t.f4);
        let implicit = self.shader.processor == Processor::Fragment
            && matches!(op, O::TEX | O::TEX2 | O::SAMPLE_C | O::TXB);
        let r = if implicit && op != O::TXB {
            sp!(
                self,
                self.b
                    .image_sample_dref_implicit_lod(f32_, None, si, coord, reference, None, [])
            )?
        } else {
            let lod = match op {
                // TXL's LOD is `.w` where the reference leaves it free (the
                // machine refuses it elsewhere), TXL2's the second operand's .x
                O::TXL if sh.coords < 3 => {
                    sp!(self, self.b.composite_extract(f32_, None, c4, [3]))?
                }
                O::TXL2 => {
                    let s = inst
                        .src
                        .get(1)
                        .ok_or_else(|| self.fail("TXL2 without a LOD"))?;
                    let v = self.fetch(s, tgsi_ir::opcode::OperandType::Float)?;
                    sp!(self, self.b.composite_extract(f32_, None, v, [0]))?
                }
                O::TXL | O::TXB | O::TXB2 => {
                    return Err(self.fail(format!(
                        "{op} on a shadow target is not translated to SPIR-V yet"
                    )));
                }
                _ => self.c_f32(0.0),
            };
            sp!(
                self,
                self.b.image_sample_dref_explicit_lod(
                    f32_,
                    None,
                    si,
                    coord,
                    reference,
                    ImageOperands::LOD,
                    [Operand::IdRef(lod)]
                )
            )?
        };
        let one = self.c_f32(1.0);
        sp!(self, self.b.composite_construct(f4, None, [r, r, r, one]))
    }

    /// TXF, TXF_LZ, SAMPLE_I, SAMPLE_I_MS: the texel at integer
    /// coordinates, at level `last` (its sample `last` for a multisampled
    /// texture).
    fn texel_fetch(
        &mut self,
        image: Image,
        c: Word,
        ncoord: u32,
        ms: bool,
        last: Word,
    ) -> Result<Word, Error> {
        let i32_ = self.t.i32;
        let coord = self.first_channels(c, ncoord, i32_)?;
        let img = sp!(self, self.b.load(image.ty, None, image.var, None, []))?;
        if image.target == TextureTarget::Buffer {
            // a buffer has no levels: element x, zeros past the end
            let (u32_, bool_) = (self.t.u32, self.t.bool);
            self.b.capability(Capability::ImageQuery);
            let texel = sp!(
                self,
                self.b.image_fetch(image.texel, None, img, coord, None, [])
            )?;
            let size = sp!(self, self.b.image_query_size(i32_, None, img))?;
            let (x, size) = (
                sp!(self, self.b.bitcast(u32_, None, coord))?,
                sp!(self, self.b.bitcast(u32_, None, size))?,
            );
            let inside = sp!(self, self.b.u_less_than(bool_, None, x, size))?;
            let zero = self.splat_bits(image.texel, 0);
            return sp!(self, self.b.select(image.texel, None, inside, texel, zero));
        }
        let operand = if ms {
            ImageOperands::SAMPLE
        } else {
            ImageOperands::LOD
        };
        let texel = sp!(
            self,
            self.b.image_fetch(
                image.texel,
                None,
                img,
                coord,
                Some(operand),
                [Operand::IdRef(last)]
            )
        )?;
        // Direct3D's bounds, as the machine: a texel (or level or sample)
        // outside the texture reads zeros (`OpImageFetch` leaves it open)
        let inside = self.fetch_inside(img, coord, ncoord, ms, last)?;
        let zero = self.splat_bits(image.texel, 0);
        sp!(self, self.b.select(image.texel, None, inside, texel, zero))
    }

    /// True when integer coordinates `coord` (`n` components) name a texel
    /// of level `level` (or sample `level` of a multisampled texture).
    fn fetch_inside(
        &mut self,
        img: Word,
        coord: Word,
        n: u32,
        ms: bool,
        level: Word,
    ) -> Result<Word, Error> {
        self.b.capability(Capability::ImageQuery);
        let (i32_, u32_, bool_) = (self.t.i32, self.t.u32, self.t.bool);
        let vec = |t: &mut Self, e: Word| if n == 1 { e } else { t.b.type_vector(e, n) };
        let ity = vec(self, i32_);
        let uty = vec(self, u32_);
        let bty = vec(self, bool_);
        let (size, level_ok) = if ms {
            let size = sp!(self, self.b.image_query_size(ity, None, img))?;
            let samples = sp!(self, self.b.image_query_samples(i32_, None, img))?;
            let ok = sp!(self, self.b.u_less_than(bool_, None, level, samples))?;
            (size, ok)
        } else {
            let levels = sp!(self, self.b.image_query_levels(i32_, None, img))?;
            let ok = sp!(self, self.b.u_less_than(bool_, None, level, levels))?;
            // the size of level 0 when the level is out of range (never used then)
            let zero = self.c_i32(0);
            let safe = sp!(self, self.b.select(i32_, None, ok, level, zero))?;
            (
                sp!(self, self.b.image_query_size_lod(ity, None, img, safe))?,
                ok,
            )
        };
        let c = sp!(self, self.b.bitcast(uty, None, coord))?;
        let s = sp!(self, self.b.bitcast(uty, None, size))?;
        let lt = sp!(self, self.b.u_less_than(bty, None, c, s))?;
        let all = if n == 1 {
            lt
        } else {
            sp!(self, self.b.all(bool_, None, lt))?
        };
        sp!(self, self.b.logical_and(bool_, None, all, level_ok))
    }
}
