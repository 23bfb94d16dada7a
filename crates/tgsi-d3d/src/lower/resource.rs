//! Resource instructions: sampling (with `_aoffimmi` texel offsets and the
//! resource swizzle, which TGSI's SVIEW operand applies the same way),
//! texel loads, size and sample queries, gathers (comparison gathers
//! through TG4 on a combined texture+sampler slot, programmable offsets
//! sign-extended from 6 bits), raw/structured/typed buffer and shared
//! memory loads, stores and atomics (structured address = index × stride +
//! offset), the hidden UAV counters, pull-model interpolation, and the
//! tiled-resource `_s` forms (every resource is fully mapped: the status is
//! ~0) with their LOD clamps.

use super::ctx::{Ctx, Result};
use super::emit::{XYZW, dst, reg, scalar_src, select, src};
use super::layout::{RegMap, ResKind, ResMap, imm_index};
use crate::enums::{InfoReturnType, RegisterFile, ResourceDimension};
use crate::ir::{ExtendedOpcode, Instruction as D3dInst, Operand};
use crate::opcode::{Opcode as D, OperandKind};
use tgsi_ir::enums::{File, ImmType, TextureTarget};
use tgsi_ir::ir::{Index, Instruction, MemoryInfo, Register, SrcOperand, TexOffset};
use tgsi_ir::opcode::Opcode as T;

/// What a sampling instruction adds to its coordinates.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extra {
    None,
    Compare,
    Lod,
    Bias,
    Grad,
}

impl Ctx<'_> {
    /// Resource instructions; false when `inst` is not one.
    pub fn resource(&mut self, inst: &D3dInst) -> Result<bool> {
        let sat = inst.controls.saturate;
        match inst.opcode {
            D::Sample => self.sample(inst, T::SAMPLE, Extra::None, sat)?,
            D::SampleC => self.sample(inst, T::SAMPLE_C, Extra::Compare, sat)?,
            D::SampleCLz => self.sample(inst, T::SAMPLE_C_LZ, Extra::Compare, sat)?,
            D::SampleL => self.sample(inst, T::SAMPLE_L, Extra::Lod, sat)?,
            D::SampleB => self.sample(inst, T::SAMPLE_B, Extra::Bias, sat)?,
            D::SampleD => self.sample(inst, T::SAMPLE_D, Extra::Grad, sat)?,
            D::Lod => self.sample(inst, T::LOD, Extra::None, sat)?,
            D::Gather4 => self.gather(inst, false, false, sat)?,
            D::Gather4C => self.gather(inst, true, false, sat)?,
            D::Gather4Po => self.gather(inst, false, true, sat)?,
            D::Gather4PoC => self.gather(inst, true, true, sat)?,
            D::Ld => self.load_texel(inst, false, sat)?,
            D::LdMs => self.load_texel(inst, true, sat)?,
            D::Resinfo => self.resinfo(inst, sat)?,
            D::SampleInfo => self.sample_info(inst, sat)?,
            D::SamplePos => self.sample_pos(inst, sat)?,
            D::BufInfo => self.bufinfo(inst)?,
            D::LdUavTyped => self.load_typed(inst, sat)?,
            D::StoreUavTyped => self.store_typed(inst)?,
            D::LdRaw => self.load_memory(inst, false, sat)?,
            D::LdStructured => self.load_memory(inst, true, sat)?,
            D::StoreRaw => self.store_memory(inst, false)?,
            D::StoreStructured => self.store_memory(inst, true)?,
            D::AtomicAnd => self.atomic(inst, T::ATOMAND, false)?,
            D::AtomicOr => self.atomic(inst, T::ATOMOR, false)?,
            D::AtomicXor => self.atomic(inst, T::ATOMXOR, false)?,
            D::AtomicCmpStore => self.atomic(inst, T::ATOMCAS, false)?,
            D::AtomicIadd => self.atomic(inst, T::ATOMUADD, false)?,
            D::AtomicImax => self.atomic(inst, T::ATOMIMAX, false)?,
            D::AtomicImin => self.atomic(inst, T::ATOMIMIN, false)?,
            D::AtomicUmax => self.atomic(inst, T::ATOMUMAX, false)?,
            D::AtomicUmin => self.atomic(inst, T::ATOMUMIN, false)?,
            D::ImmAtomicIadd => self.atomic(inst, T::ATOMUADD, true)?,
            D::ImmAtomicAnd => self.atomic(inst, T::ATOMAND, true)?,
            D::ImmAtomicOr => self.atomic(inst, T::ATOMOR, true)?,
            D::ImmAtomicXor => self.atomic(inst, T::ATOMXOR, true)?,
            D::ImmAtomicExch => self.atomic(inst, T::ATOMXCHG, true)?,
            D::ImmAtomicCmpExch => self.atomic(inst, T::ATOMCAS, true)?,
            D::ImmAtomicImax => self.atomic(inst, T::ATOMIMAX, true)?,
            D::ImmAtomicImin => self.atomic(inst, T::ATOMIMIN, true)?,
            D::ImmAtomicUmax => self.atomic(inst, T::ATOMUMAX, true)?,
            D::ImmAtomicUmin => self.atomic(inst, T::ATOMUMIN, true)?,
            D::ImmAtomicAlloc => self.counter(inst, false)?,
            D::ImmAtomicConsume => self.counter(inst, true)?,
            D::EvalCentroid => self.eval(inst, T::INTERP_CENTROID, sat)?,
            D::EvalSampleIndex => self.eval(inst, T::INTERP_SAMPLE, sat)?,
            D::EvalSnapped => self.eval(inst, T::INTERP_OFFSET, sat)?,
            D::CheckAccessFullyMapped => {
                if let Some(d) = self.write(self.operand(inst, 0)?)? {
                    let s = self.source(inst, 1, T::USEQ, 0)?;
                    let all = self.em.imm_u(u32::MAX);
                    self.em.op(T::USEQ, vec![d], vec![s, all]);
                }
            }
            D::Gather4S
            | D::Gather4CS
            | D::Gather4PoS
            | D::Gather4PoCS
            | D::LdS
            | D::LdMsS
            | D::LdUavTypedS
            | D::LdRawS
            | D::LdStructuredS
            | D::SampleLS
            | D::SampleCLzS => self.with_feedback(inst)?,
            D::SampleClampS => self.clamped(inst, Extra::None)?,
            D::SampleBClampS => self.clamped(inst, Extra::Bias)?,
            D::SampleCClampS => self.clamped(inst, Extra::Compare)?,
            D::SampleDClampS => self.clamped(inst, Extra::Grad)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The map and TGSI register of a `t#`/`s#`/`u#`/`g#` operand.
    fn slot(&mut self, op: &Operand, kind: ResKind) -> Result<(ResMap, Register)> {
        let id = op
            .indices
            .first()
            .and_then(imm_index)
            .ok_or_else(|| self.fail("a resource range id that is not an immediate"))?;
        let kind = match (kind, op.file) {
            (ResKind::Texture, RegisterFile::UnorderedAccessView) => ResKind::Uav,
            (ResKind::Texture, RegisterFile::ThreadGroupSharedMemory) => ResKind::Tgsm,
            (ResKind::Uav, RegisterFile::ThreadGroupSharedMemory) => ResKind::Tgsm,
            (k, _) => k,
        };
        let m = *self
            .lay
            .res
            .get(&(kind, id))
            .ok_or_else(|| self.fail(format!("{}{id} is not declared", op.file.name())))?;
        if kind == ResKind::Tgsm {
            return Ok((m, reg(File::Memory, 0)));
        }
        let index = if self.lay.sm51 {
            let ix = op
                .indices
                .get(1)
                .cloned()
                .ok_or_else(|| self.fail("an SM5.1 resource operand without a register"))?;
            let k = ix.immediate() as i64;
            let off = m.base as i64 + k - m.first as i64;
            let off =
                i32::try_from(off).map_err(|_| self.fail("resource register out of range"))?;
            match ix.relative() {
                None => Index::direct(off),
                Some(rel) => {
                    let v =
                        self.read_as(rel, OperandKind::Int, tgsi_ir::opcode::OperandType::Int)?;
                    let addr = self.em.load_addr(select(&v, 0), 0);
                    Index {
                        offset: off,
                        indirect: Some(addr),
                    }
                }
            }
        } else {
            Index::direct(m.base as i32)
        };
        Ok((
            m,
            Register {
                file: m.file,
                index,
                dimension: None,
            },
        ))
    }

    /// The resource operand of `inst` (the last `t#`/`u#`/`g#`/rasterizer).
    fn resource_operand<'i>(&self, inst: &'i D3dInst) -> Result<(usize, &'i Operand)> {
        inst.opcode
            .info()
            .operands
            .iter()
            .position(|o| o.kind == OperandKind::Resource || o.kind == OperandKind::Memory)
            .and_then(|n| inst.operands.get(n).map(|o| (n, o)))
            .ok_or_else(|| self.fail("no resource operand"))
    }

    fn sampler_operand<'i>(&self, inst: &'i D3dInst) -> Result<(usize, &'i Operand)> {
        inst.opcode
            .info()
            .operands
            .iter()
            .position(|o| o.kind == OperandKind::Sampler)
            .and_then(|n| inst.operands.get(n).map(|o| (n, o)))
            .ok_or_else(|| self.fail("no sampler operand"))
    }

    /// The `_aoffimmi` offsets of `inst` as a TGSI texel offset.
    fn immediate_offsets(&mut self, inst: &D3dInst) -> Option<TexOffset> {
        let offsets = inst.extended.iter().find_map(|e| match e {
            ExtendedOpcode::SampleControls { offsets } => Some(*offsets),
            _ => None,
        })?;
        let words = [
            offsets[0] as i32 as u32,
            offsets[1] as i32 as u32,
            offsets[2] as i32 as u32,
            0,
        ];
        let k = self.em.imms.vector(ImmType::Int32, words);
        Some(TexOffset {
            file: File::Immediate,
            index: k as i32,
            swizzle: [
                tgsi_ir::ir::Component::X,
                tgsi_ir::ir::Component::Y,
                tgsi_ir::ir::Component::Z,
            ],
        })
    }

    /// A texture (`SVIEW`) operand with its swizzle.
    fn sview(&mut self, op: &Operand) -> Result<(ResMap, SrcOperand)> {
        let (m, r) = self.slot(op, ResKind::Texture)?;
        if m.file != File::SamplerView {
            return Err(self.fail(format!(
                "{} is not a typed texture (declared as a {} buffer)",
                op.file.name(),
                m.dimension.name()
            )));
        }
        Ok((m, src(r, super::ctx::swizzle_of(op.components))))
    }

    fn sampler(&mut self, op: &Operand) -> Result<SrcOperand> {
        let (_, r) = self.slot(op, ResKind::Sampler)?;
        let c = match op.components {
            crate::ir::Components::Select(c) => c & 3,
            crate::ir::Components::Swizzle(s) => s[0] & 3,
            _ => 0,
        };
        Ok(src(r, [c; 4]))
    }

    /// sample, sample_c/_c_lz/_l/_b/_d and lod: the same operands in TGSI's
    /// order; the SVIEW swizzle permutes the result as D3D's resource
    /// swizzle does.
    fn sample(&mut self, inst: &D3dInst, t: T, extra: Extra, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let srcs = self.sample_sources(inst, 1, t, extra)?;
        let mut i = Instruction::new(t, vec![d], srcs);
        i.saturate = sat;
        if let Some(off) = self.immediate_offsets(inst) {
            self.attach_offset(&mut i, off);
        }
        self.em.push(i);
        Ok(())
    }

    fn attach_offset(&self, i: &mut Instruction, off: TexOffset) {
        if let Some(tex) = i.texture.as_mut() {
            tex.offsets.push(off);
        }
    }

    /// coord, SVIEW, SAMP and the extra operands of a SAMPLE-family op
    /// whose coordinate is operand `coord_at`.
    fn sample_sources(
        &mut self,
        inst: &D3dInst,
        coord_at: usize,
        t: T,
        extra: Extra,
    ) -> Result<Vec<SrcOperand>> {
        let coord = self.source(inst, coord_at, t, 0)?;
        let (rn, rop) = self.resource_operand(inst)?;
        let (_, view) = self.sview(rop)?;
        let (sn, sop) = self.sampler_operand(inst)?;
        let samp = self.sampler(sop)?;
        let _ = rn;
        let mut srcs = vec![coord, view, samp];
        match extra {
            Extra::None => {}
            Extra::Compare | Extra::Lod | Extra::Bias => {
                let v = self.source(inst, sn + 1, t, 3)?;
                srcs.push(select(&v, 0));
            }
            Extra::Grad => {
                srcs.push(self.source(inst, sn + 1, t, 3)?);
                srcs.push(self.source(inst, sn + 2, t, 4)?);
            }
        }
        Ok(srcs)
    }

    /// gather4 family: GATHER4 (channel from the sampler's select), or TG4
    /// on a combined slot with a shadow target for the comparisons;
    /// programmable offsets are the low 6 bits, sign-extended.
    fn gather(
        &mut self,
        inst: &D3dInst,
        compare: bool,
        programmable: bool,
        sat: bool,
    ) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let coord = self.source(inst, 1, T::GATHER4, 0)?;
        let offset = if programmable {
            let off = self.source(inst, 2, T::IBFE, 0)?;
            let t = self.em.scratch();
            let zero = self.em.imm_u(0);
            let six = self.em.imm_u(6);
            self.em.op(T::IBFE, vec![dst(t, 0x3)], vec![off, zero, six]);
            let zero = self.em.imm_u(0);
            self.em.mov(dst(t, 0x4), zero, false);
            Some(TexOffset {
                file: File::Temp,
                index: t.index.offset,
                swizzle: [
                    tgsi_ir::ir::Component::X,
                    tgsi_ir::ir::Component::Y,
                    tgsi_ir::ir::Component::Z,
                ],
            })
        } else {
            self.immediate_offsets(inst)
        };
        let (_, rop) = self.resource_operand(inst)?;
        let (sn, sop) = self.sampler_operand(inst)?;
        if !compare {
            let (_, view) = self.sview(rop)?;
            let samp = self.sampler(sop)?;
            let mut i = Instruction::new(T::GATHER4, vec![d], vec![coord, view, samp]);
            i.saturate = sat;
            if let Some(off) = offset {
                self.attach_offset(&mut i, off);
            }
            self.em.push(i);
            return Ok(());
        }
        // TG4 with a shadow target: the reference joins the coordinates.
        let reference = self.source(inst, sn + 1, T::MOV, 0)?;
        let (m, view) = self.sview(rop)?;
        // ref_at 4: TG4's src1.x (shadow cube arrays use all of the coordinates)
        let (target, ref_at) = match m.target {
            TextureTarget::Tex2D => (TextureTarget::Shadow2D, 2),
            TextureTarget::Array2D => (TextureTarget::Shadow2DArray, 3),
            TextureTarget::Cube => (TextureTarget::ShadowCube, 3),
            TextureTarget::CubeArray => (TextureTarget::ShadowCubeArray, 4),
            other => {
                return Err(self.fail(format!(
                    "a comparison gather on a {} texture has no TGSI form (TG4 gathers from 2D, 2D array, cube and cube array textures)",
                    other.name()
                )));
            }
        };
        let key = self.combined_key(rop, sop)?;
        let slot = *self
            .lay
            .combined
            .get(&key)
            .ok_or_else(|| self.fail("no combined texture and sampler slot"))?;
        let c = self.em.scratch();
        self.em.mov(dst(c, 0xF), coord, false);
        let component = if ref_at == 4 {
            select(&reference, 0)
        } else {
            self.em
                .mov(dst(c, 1 << ref_at), select(&reference, 0), false);
            self.em.imm_u(0)
        };
        let r = self.em.scratch();
        let mut i = Instruction::new(
            T::TG4,
            vec![dst(r, 0xF)],
            vec![
                src(c, XYZW),
                component,
                src(reg(File::Sampler, slot as i32), XYZW),
            ],
        );
        if let Some(tex) = i.texture.as_mut() {
            tex.target = target;
        }
        if let Some(off) = offset {
            self.attach_offset(&mut i, off);
        }
        self.em.push(i);
        let swz = [0, 1, 2, 3].map(|k| view.swizzle.get(k) as u8);
        self.em.mov(d, src(r, swz), sat);
        Ok(())
    }

    fn combined_key(&self, t: &Operand, s: &Operand) -> Result<(u32, u32, u32, u32)> {
        let ix = |o: &Operand| -> Option<(u32, u32)> {
            let v: Vec<Option<u32>> = o.indices.iter().map(imm_index).collect();
            if self.lay.sm51 {
                Some((v.first().copied()??, v.get(1).copied()??))
            } else {
                let r = v.first().copied()??;
                Some((r, r))
            }
        };
        match (ix(t), ix(s)) {
            (Some((a, b)), Some((c, d))) => Ok((a, b, c, d)),
            _ => Err(self.fail("a comparison gather through an indirect slot")),
        }
    }

    /// ld/ldms: SAMPLE_I/SAMPLE_I_MS (out of range gives 0, offsets are
    /// added in texel space).
    fn load_texel(&mut self, inst: &D3dInst, ms: bool, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let t = if ms { T::SAMPLE_I_MS } else { T::SAMPLE_I };
        let addr = self.source(inst, 1, t, 0)?;
        let (_, rop) = self.resource_operand(inst)?;
        let (_, view) = self.sview(rop)?;
        let mut srcs = vec![addr, view];
        if ms {
            let s = self.source(inst, 3, t, 2)?;
            srcs.push(select(&s, 0));
        }
        let mut i = Instruction::new(t, vec![d], srcs);
        i.saturate = sat;
        if let Some(off) = self.immediate_offsets(inst) {
            self.attach_offset(&mut i, off);
        }
        self.em.push(i);
        Ok(())
    }

    /// Components of resinfo's result that are sizes (not the array size
    /// or the mip count): the ones `_rcpFloat` inverts.
    fn size_components(d: ResourceDimension) -> u8 {
        use ResourceDimension as R;
        match d {
            R::Texture1D | R::Texture1DArray | R::Buffer => 0x1,
            R::Texture3D => 0x7,
            _ => 0x3,
        }
    }

    /// resinfo: SVIEWINFO (textures) or RESQ (UAVs: one mip, sizes 0 for
    /// any other mip), then float / `_rcpFloat` / `_uint` and the
    /// resource swizzle.
    fn resinfo(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let mip = self.source(inst, 1, T::SVIEWINFO, 0)?;
        let rop = self.operand(inst, 2)?;
        let swz = super::ctx::swizzle_of(rop.components);
        let info = self.em.scratch();
        let dimension;
        if rop.file == RegisterFile::UnorderedAccessView {
            let (m, r) = self.slot(rop, ResKind::Uav)?;
            if m.file != File::Image {
                return Err(self.fail("resinfo on a UAV that is not a typed texture"));
            }
            dimension = m.dimension;
            let mut i = Instruction::new(T::RESQ, vec![dst(info, 0xF)], vec![src(r, XYZW)]);
            i.memory = Some(MemoryInfo {
                target: m.target,
                ..MemoryInfo::default()
            });
            self.em.push(i);
            let one = self.em.imm_u(1);
            self.em.mov(dst(info, 0x8), one, false);
            let level0 = self.em.scratch();
            let zero = self.em.imm_u(0);
            self.em
                .op(T::USEQ, vec![dst(level0, 1)], vec![select(&mip, 0), zero]);
            self.em.op(
                T::AND,
                vec![dst(info, 0x7)],
                vec![src(info, XYZW), scalar_src(level0, 0)],
            );
        } else {
            let (m, view) = self.sview(rop)?;
            dimension = m.dimension;
            let mut view = view;
            view.swizzle = super::emit::swizzle(XYZW);
            self.em.op(
                T::SVIEWINFO,
                vec![dst(info, 0xF)],
                vec![select(&mip, 0), view],
            );
        }
        match inst.controls.info_return.0 {
            InfoReturnType::Uint => self.em.mov(d, src(info, swz), sat),
            kind => {
                let f = self.em.scratch();
                self.em.op(T::U2F, vec![dst(f, 0xF)], vec![src(info, XYZW)]);
                if kind == InfoReturnType::RcpFloat {
                    let sizes = Self::size_components(dimension);
                    for c in 0..3u8 {
                        if sizes & (1 << c) != 0 {
                            self.em
                                .op(T::RCP, vec![dst(f, 1 << c)], vec![scalar_src(f, c)]);
                        }
                    }
                }
                self.em.mov(d, src(f, swz), sat);
            }
        }
        Ok(())
    }

    /// The resource of sampleinfo/samplepos: a texture, or for the
    /// rasterizer a TEMP register (tgsi.rst: a TEMP source names the
    /// render target).
    fn info_source(&mut self, op: &Operand) -> Result<SrcOperand> {
        if op.file == RegisterFile::Rasterizer {
            let t = self.em.scratch();
            return Ok(src(t, XYZW));
        }
        let (_, mut view) = self.sview(op)?;
        view.swizzle = super::emit::swizzle(XYZW);
        Ok(view)
    }

    /// sampleinfo: the sample count (x; 0 in y, z, w) as float or `_uint`.
    fn sample_info(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let rop = self.operand(inst, 1)?;
        let swz = super::ctx::swizzle_of(rop.components);
        let res = self.info_source(rop)?;
        let n = self.em.scratch();
        let zero = self.em.imm_u(0);
        self.em
            .op(T::SAMPLE_INFO, vec![dst(n, 0xF)], vec![res, zero]);
        if inst.controls.info_return.0 == InfoReturnType::Uint {
            self.em.mov(d, src(n, swz), sat);
        } else {
            self.em.op(T::U2F, vec![dst(n, 0xF)], vec![src(n, XYZW)]);
            self.em.mov(d, src(n, swz), sat);
        }
        Ok(())
    }

    /// samplepos: TGSI gives [0, 1] from the pixel corner, D3D ±0.5 from the
    /// centre; an index out of range gives 0 (D3D), TGSI the corner.
    fn sample_pos(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let rop = self.operand(inst, 1)?;
        let swz = super::ctx::swizzle_of(rop.components);
        let res = self.info_source(rop)?;
        let idx = self.source(inst, 2, T::USLT, 0)?;
        let idx = select(&idx, 0);
        let pos = self.em.scratch();
        let count = self.em.scratch();
        let zero = self.em.imm_u(0);
        self.em
            .op(T::SAMPLE_POS, vec![dst(pos, 0xF)], vec![res, idx]);
        self.em
            .op(T::SAMPLE_INFO, vec![dst(count, 0x1)], vec![res, zero]);
        let valid = self.em.scratch();
        self.em.op(
            T::USLT,
            vec![dst(valid, 0x1)],
            vec![idx, scalar_src(count, 0)],
        );
        let half = self.em.imm_f(-0.5);
        self.em
            .op(T::ADD, vec![dst(pos, 0x3)], vec![src(pos, XYZW), half]);
        let zero = self.em.imm_u(0);
        self.em.mov(dst(pos, 0xC), zero, false);
        self.em.op(
            T::AND,
            vec![dst(pos, 0xF)],
            vec![src(pos, XYZW), scalar_src(valid, 0)],
        );
        self.em.mov(d, src(pos, swz), sat);
        Ok(())
    }

    /// bufinfo: element count (typed), byte count (raw) or structure count
    /// (structured) in every component.
    fn bufinfo(&mut self, inst: &D3dInst) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let rop = self.operand(inst, 1)?;
        let kind = if rop.file == RegisterFile::UnorderedAccessView {
            ResKind::Uav
        } else {
            ResKind::Texture
        };
        let (m, r) = self.slot(rop, kind)?;
        let t = self.em.scratch();
        match m.file {
            File::SamplerView => {
                let zero = self.em.imm_u(0);
                self.em
                    .op(T::SVIEWINFO, vec![dst(t, 0xF)], vec![zero, src(r, XYZW)]);
            }
            File::Image | File::Buffer => {
                let mut i = Instruction::new(T::RESQ, vec![dst(t, 0xF)], vec![src(r, XYZW)]);
                if m.file == File::Image {
                    i.memory = Some(MemoryInfo {
                        target: m.target,
                        ..MemoryInfo::default()
                    });
                }
                self.em.push(i);
                if m.dimension == ResourceDimension::StructuredBuffer {
                    let stride = self.em.imm_u(m.stride.max(1));
                    self.em
                        .op(T::UDIV, vec![dst(t, 1)], vec![scalar_src(t, 0), stride]);
                }
            }
            f => return Err(self.fail(format!("bufinfo on a {f} resource"))),
        }
        self.em.mov(d, scalar_src(t, 0), false);
        Ok(())
    }

    /// The memory token of an IMAGE access.
    fn image_token(m: &ResMap) -> MemoryInfo {
        MemoryInfo {
            target: m.target,
            ..MemoryInfo::default()
        }
    }

    /// ld_uav_typed: LOAD from the IMAGE (its swizzle permutes the result).
    fn load_typed(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let addr = self.source(inst, 1, T::LOAD, 1)?;
        let rop = self.operand(inst, 2)?;
        let (m, r) = self.slot(rop, ResKind::Uav)?;
        let swz = super::ctx::swizzle_of(rop.components);
        let mut i = Instruction::new(T::LOAD, vec![d], vec![src(r, swz), addr]);
        i.saturate = sat;
        if m.file == File::Image {
            i.memory = Some(Self::image_token(&m));
        }
        self.em.push(i);
        Ok(())
    }

    /// store_uav_typed: STORE to the IMAGE.
    fn store_typed(&mut self, inst: &D3dInst) -> Result<()> {
        let uop = self.operand(inst, 0)?;
        let (m, r) = self.slot(uop, ResKind::Uav)?;
        let addr = self.source(inst, 1, T::STORE, 0)?;
        let value = self.source(inst, 2, T::STORE, 1)?;
        let mask = super::ctx::mask_of(uop.components);
        let mut i = Instruction::new(T::STORE, vec![dst(r, mask)], vec![addr, value]);
        if m.file == File::Image {
            i.memory = Some(Self::image_token(&m));
        }
        self.em.push(i);
        Ok(())
    }

    /// `index × stride + offset`, a structured element's byte address: an
    /// immediate when both are literals; else in a scratch register, a
    /// shift when the stride is a power of two and the offset a literal 0
    /// (the same word: a wrapping product by 2^k is a shift by k). The
    /// shift of a system value (a thread or group ID: the same all through
    /// an invocation; not in hull shaders, whose phases change theirs) goes
    /// to a whole-program temporary of its own instead, so that its repeats
    /// are dropped wherever an earlier one has run (see the `tidy` module).
    fn structured_address(
        &mut self,
        index: SrcOperand,
        stride: u32,
        offset: SrcOperand,
    ) -> SrcOperand {
        let offset_word = self.em.word_of(&offset);
        if let (Some(i), Some(o)) = (self.em.word_of(&index), offset_word) {
            return self.em.imm_u(i.wrapping_mul(stride).wrapping_add(o));
        }
        if stride.is_power_of_two() && offset_word == Some(0) {
            let shift = stride.trailing_zeros();
            let a = match self.invariant_key(&index) {
                Some((sv, c)) => *self
                    .invariant_addresses
                    .entry((sv, c, shift))
                    .or_insert_with(|| reg(File::Temp, self.lay.persistent_temp() as i32)),
                None => self.em.scratch(),
            };
            let k = self.em.imm_u(shift);
            self.em.op(T::SHL, vec![dst(a, 1)], vec![index, k]);
            return scalar_src(a, 0);
        }
        let a = self.em.scratch();
        let stride = self.em.imm_u(stride);
        self.em
            .op(T::UMAD, vec![dst(a, 1)], vec![index, stride, offset]);
        scalar_src(a, 0)
    }

    /// The system value and component `op` reads, when it reads one
    /// directly and without modifiers, outside hull shaders.
    fn invariant_key(&self, op: &SrcOperand) -> Option<(i32, u8)> {
        let r = &op.reg;
        let plain = r.file == File::SystemValue
            && r.index.indirect.is_none()
            && r.dimension.is_none()
            && !op.negate
            && !op.absolute;
        let hull = self.lay.processor == tgsi_ir::enums::Processor::TessCtrl;
        (plain && !hull).then(|| (r.index.offset, op.swizzle.0[0] as u8))
    }

    /// The byte address of a raw (offset) or structured (index × stride +
    /// offset) access, plus the region offset of shared memory.
    fn byte_address(
        &mut self,
        inst: &D3dInst,
        at: usize,
        structured: bool,
        m: &ResMap,
        t: T,
    ) -> Result<SrcOperand> {
        let first = self.source(inst, at, t, 1)?;
        let mut addr = select(&first, 0);
        if structured {
            let offset = self.source(inst, at + 1, t, 1)?;
            addr = self.structured_address(addr, m.stride, select(&offset, 0));
        }
        if m.file == File::Memory && m.byte_offset != 0 {
            let a = self.em.scratch();
            let base = self.em.imm_u(m.byte_offset);
            self.em.op(T::UADD, vec![dst(a, 1)], vec![addr, base]);
            addr = scalar_src(a, 0);
        }
        Ok(addr)
    }

    /// ld_raw / ld_structured: LOAD with the resource swizzle picking the
    /// dwords (component c reads the dword at address + 4 × swizzle[c]).
    fn load_memory(&mut self, inst: &D3dInst, structured: bool, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let (rn, rop) = self.resource_operand(inst)?;
        let (m, r) = self.slot(rop, ResKind::Texture)?;
        if !matches!(m.file, File::Buffer | File::Memory) {
            return Err(self.fail("a raw or structured load from a typed resource"));
        }
        let _ = rn;
        let addr = self.byte_address(inst, 1, structured, &m, T::LOAD)?;
        let swz = super::ctx::swizzle_of(rop.components);
        let mut i = Instruction::new(T::LOAD, vec![d], vec![src(r, swz), addr]);
        i.saturate = sat;
        self.em.push(i);
        Ok(())
    }

    /// store_raw / store_structured: component k of the value goes to
    /// address + 4k for each written component.
    fn store_memory(&mut self, inst: &D3dInst, structured: bool) -> Result<()> {
        let uop = self.operand(inst, 0)?;
        let (m, r) = self.slot(uop, ResKind::Uav)?;
        if !matches!(m.file, File::Buffer | File::Memory) {
            return Err(self.fail("a raw or structured store to a typed resource"));
        }
        let addr = self.byte_address(inst, 1, structured, &m, T::STORE)?;
        let value_at = if structured { 3 } else { 2 };
        let value = self.source(inst, value_at, T::STORE, 1)?;
        let mask = super::ctx::mask_of(uop.components);
        self.em.op(T::STORE, vec![dst(r, mask)], vec![addr, value]);
        Ok(())
    }

    /// atomic_* (result discarded) and imm_atomic_* (old value to dst).
    fn atomic(&mut self, inst: &D3dInst, t: T, returns: bool) -> Result<()> {
        let base = if returns { 1 } else { 0 };
        let uop = self.operand(inst, base)?;
        let (m, r) = self.slot(uop, ResKind::Uav)?;
        let structured = m.dimension == ResourceDimension::StructuredBuffer;
        let addr = if m.file == File::Image {
            self.source(inst, base + 1, t, 1)?
        } else {
            // raw: .x byte offset; structured: .x index, .y byte offset
            let a = self.source(inst, base + 1, t, 1)?;
            let mut addr = select(&a, 0);
            if structured {
                addr = self.structured_address(addr, m.stride, select(&a, 1));
            }
            if m.file == File::Memory && m.byte_offset != 0 {
                let s = self.em.scratch();
                let off = self.em.imm_u(m.byte_offset);
                self.em.op(T::UADD, vec![dst(s, 1)], vec![addr, off]);
                addr = scalar_src(s, 0);
            }
            addr
        };
        let mut srcs = vec![src(r, XYZW), addr];
        let first_value = base + 2;
        let v = self.source(inst, first_value, t, 2)?;
        srcs.push(select(&v, 0));
        if t == T::ATOMCAS {
            let v2 = self.source(inst, first_value + 1, t, 3)?;
            srcs.push(select(&v2, 0));
        }
        let d = if returns {
            self.write(self.operand(inst, 0)?)?
        } else {
            None
        };
        let d = match d {
            Some(d) => d,
            None => dst(self.em.scratch(), 1),
        };
        let mut i = Instruction::new(t, vec![d], srcs);
        if m.file == File::Image {
            i.memory = Some(Self::image_token(&m));
        }
        self.em.push(i);
        Ok(())
    }

    /// imm_atomic_alloc / _consume: an atomic add of +1 / -1 on the UAV's
    /// hidden counter (a 4-byte BUFFER); alloc returns the count before the
    /// increment, consume the count after the decrement.
    fn counter(&mut self, inst: &D3dInst, consume: bool) -> Result<()> {
        let uop = self.operand(inst, 1)?;
        let id = uop
            .indices
            .first()
            .and_then(imm_index)
            .ok_or_else(|| self.fail("a UAV counter through an indirect slot"))?;
        let buffer = *self
            .lay
            .counters
            .get(&id)
            .ok_or_else(|| self.fail(format!("u{id} has no counter")))?;
        let old = self.em.scratch();
        let zero = self.em.imm_u(0);
        let delta = self.em.imm_u(if consume { u32::MAX } else { 1 });
        self.em.op(
            T::ATOMUADD,
            vec![dst(old, 1)],
            vec![src(reg(File::Buffer, buffer as i32), XYZW), zero, delta],
        );
        if let Some(d) = self.write(self.operand(inst, 0)?)? {
            if consume {
                let minus_one = self.em.imm_u(u32::MAX);
                self.em
                    .op(T::UADD, vec![d], vec![scalar_src(old, 0), minus_one]);
            } else {
                self.em.mov(d, scalar_src(old, 0), false);
            }
        }
        Ok(())
    }

    /// eval_centroid / eval_sample_index / eval_snapped on an input
    /// register; eval_snapped's offsets are signed 4-bit 1/16 pixels.
    fn eval(&mut self, inst: &D3dInst, t: T, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let vop = self.operand(inst, 1)?;
        let r = vop
            .indices
            .last()
            .and_then(imm_index)
            .ok_or_else(|| self.fail("interpolation of an indirectly indexed input"))?;
        match self.lay.inputs.get(&(RegisterFile::Input, r)) {
            Some(RegMap::Direct(File::Input, _)) => {}
            _ => {
                return Err(self.fail(format!(
                    "v{r} is not a plain interpolated input (it is converted or shared), so it cannot be re-interpolated"
                )));
            }
        }
        let input = self.source(inst, 1, t, 0)?;
        let mut srcs = vec![input];
        match t {
            T::INTERP_SAMPLE => {
                let s = self.source(inst, 2, T::UADD, 0)?;
                srcs.push(select(&s, 0));
            }
            T::INTERP_OFFSET => {
                let off = self.source(inst, 2, T::IBFE, 0)?;
                let o = self.em.scratch();
                let zero = self.em.imm_u(0);
                let four = self.em.imm_u(4);
                self.em
                    .op(T::IBFE, vec![dst(o, 0x3)], vec![off, zero, four]);
                self.em.op(T::I2F, vec![dst(o, 0x3)], vec![src(o, XYZW)]);
                let sixteenth = self.em.imm_f(1.0 / 16.0);
                self.em
                    .op(T::MUL, vec![dst(o, 0x3)], vec![src(o, XYZW), sixteenth]);
                srcs.push(src(o, XYZW));
            }
            _ => {}
        }
        self.em.op_sat(t, sat, vec![d], srcs);
        Ok(())
    }

    /// Writes "fully mapped" (~0) to a `_s` op's status destination.
    fn status(&mut self, op: &Operand) -> Result<()> {
        if let Some(d) = self.write(op)? {
            let all = self.em.imm_u(u32::MAX);
            self.em.mov(d, all, false);
        }
        Ok(())
    }

    /// The `_s` forms without a LOD clamp: the plain instruction, then the
    /// status.
    fn with_feedback(&mut self, inst: &D3dInst) -> Result<()> {
        let plain = match inst.opcode {
            D::Gather4S => D::Gather4,
            D::Gather4CS => D::Gather4C,
            D::Gather4PoS => D::Gather4Po,
            D::Gather4PoCS => D::Gather4PoC,
            D::LdS => D::Ld,
            D::LdMsS => D::LdMs,
            D::LdUavTypedS => D::LdUavTyped,
            D::LdRawS => D::LdRaw,
            D::LdStructuredS => D::LdStructured,
            D::SampleLS => D::SampleL,
            D::SampleCLzS => D::SampleCLz,
            other => return Err(self.fail(format!("{} has no plain form", other.name()))),
        };
        if inst.operands.len() < 3 {
            return Err(self.fail("a feedback instruction without its operands"));
        }
        let mut p = inst.clone();
        p.opcode = plain;
        let status = p.operands.remove(1);
        p.trailing.clear();
        self.resource(&p)?;
        self.status(&status)
    }

    /// The `_cl` forms: the LOD the plain instruction would use, and where
    /// it is below the clamp, the result of sampling at the clamp instead.
    fn clamped(&mut self, inst: &D3dInst, extra: Extra) -> Result<()> {
        let sat = inst.controls.saturate;
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return self.status(self.operand(inst, 1)?);
        };
        // operands: dst, status, coord, t, s, [extra...], clamp
        if inst.operands.len() < 6 {
            return Err(self.fail("a clamped sample without its operands"));
        }
        let last = inst.operands.len() - 1;
        let clamp = self.source(inst, last, T::MAX, 1)?;
        let clamp = select(&clamp, 0);
        let coord = self.source(inst, 2, T::SAMPLE, 0)?;
        let rop = self.operand(inst, 3)?;
        let sop = self.operand(inst, 4)?;
        let (m, view) = self.sview(rop)?;
        let samp = self.sampler(sop)?;
        let offset = self.immediate_offsets(inst);
        let plain_op = match extra {
            Extra::None => T::SAMPLE,
            Extra::Bias => T::SAMPLE_B,
            Extra::Compare => T::SAMPLE_C,
            Extra::Grad => T::SAMPLE_D,
            Extra::Lod => T::SAMPLE_L,
        };
        let mut plain_srcs = vec![coord, view, samp];
        let mut extras = Vec::new();
        match extra {
            Extra::Bias | Extra::Compare => {
                let v = self.source(inst, 5, plain_op, 3)?;
                extras.push(select(&v, 0));
            }
            Extra::Grad => {
                extras.push(self.source(inst, 5, plain_op, 3)?);
                extras.push(self.source(inst, 6, plain_op, 4)?);
            }
            _ => {}
        }
        plain_srcs.extend(extras.iter().copied());
        // The LOD the plain instruction uses.
        let lod = self.em.scratch();
        if extra == Extra::Grad {
            self.gradient_lod(lod, &m, &coord, &view, &extras[0], &extras[1])?;
        } else {
            self.em
                .op(T::LOD, vec![dst(lod, 0x3)], vec![coord, view, samp]);
            // y: lambda + sampler bias (unclamped); sample_b adds its bias
            if extra == Extra::Bias {
                self.em
                    .op(T::ADD, vec![dst(lod, 0x2)], vec![src(lod, XYZW), extras[0]]);
            }
            self.em.mov(dst(lod, 0x1), scalar_src(lod, 1), false);
        }
        let below = self.em.scratch();
        self.em.op(
            T::FSLT,
            vec![dst(below, 1)],
            vec![scalar_src(lod, 0), clamp],
        );
        let a = self.em.scratch();
        let mut i = Instruction::new(plain_op, vec![dst(a, 0xF)], plain_srcs);
        if let Some(off) = offset {
            self.attach_offset(&mut i, off);
        }
        self.em.push(i);
        // Sampling at the clamp.
        let b = self.em.scratch();
        if extra == Extra::Compare {
            self.compare_at_lod(b, inst, &m, coord, extras[0], clamp, offset)?;
        } else {
            let mut i = Instruction::new(
                T::SAMPLE_L,
                vec![dst(b, 0xF)],
                vec![coord, view, samp, clamp],
            );
            if let Some(off) = offset {
                self.attach_offset(&mut i, off);
            }
            self.em.push(i);
        }
        self.em.op_sat(
            T::UCMP,
            sat,
            vec![d],
            vec![scalar_src(below, 0), src(b, XYZW), src(a, XYZW)],
        );
        self.status(self.operand(inst, 1)?)
    }

    /// The isotropic LOD of explicit gradients, as the texture engine
    /// computes it: log2 of the longer of the two gradients in texels of
    /// the view's first level (cubes: the gradients of the direction scaled
    /// by size / (2 |major axis|), an approximation of the engine's face
    /// coordinates).
    fn gradient_lod(
        &mut self,
        lod: Register,
        m: &ResMap,
        coord: &SrcOperand,
        view: &SrcOperand,
        ddx: &SrcOperand,
        ddy: &SrcOperand,
    ) -> Result<()> {
        let size = self.em.scratch();
        let zero = self.em.imm_u(0);
        let mut v = *view;
        v.swizzle = super::emit::swizzle(XYZW);
        self.em
            .op(T::SVIEWINFO, vec![dst(size, 0xF)], vec![zero, v]);
        self.em
            .op(T::U2F, vec![dst(size, 0xF)], vec![src(size, XYZW)]);
        let (axes, cube) = match m.target {
            TextureTarget::Tex1D | TextureTarget::Array1D => (0x1u8, false),
            TextureTarget::Tex2D | TextureTarget::Array2D => (0x3, false),
            TextureTarget::Tex3D => (0x7, false),
            TextureTarget::Cube | TextureTarget::CubeArray => (0x7, true),
            other => return Err(self.fail(format!("sample_d_cl_s on a {} texture", other.name()))),
        };
        let scale = self.em.scratch();
        if cube {
            // size.x / (2 |major axis|) on every axis
            let ma = self.em.scratch();
            let mut abs = *coord;
            abs.absolute = true;
            abs.negate = false;
            self.em.op(
                T::MAX,
                vec![dst(ma, 1)],
                vec![select(&abs, 0), select(&abs, 1)],
            );
            self.em.op(
                T::MAX,
                vec![dst(ma, 1)],
                vec![scalar_src(ma, 0), select(&abs, 2)],
            );
            let two = self.em.imm_f(2.0);
            self.em
                .op(T::MUL, vec![dst(ma, 1)], vec![scalar_src(ma, 0), two]);
            self.em.op(
                T::DIV,
                vec![dst(scale, 0x7)],
                vec![scalar_src(size, 0), scalar_src(ma, 0)],
            );
        } else {
            self.em.mov(dst(scale, 0x7), src(size, XYZW), false);
        }
        let zero_f = self.em.imm_f(0.0);
        self.em.mov(dst(scale, 0xF & !axes), zero_f, false);
        let gx = self.em.scratch();
        let gy = self.em.scratch();
        self.em
            .op(T::MUL, vec![dst(gx, 0xF)], vec![*ddx, src(scale, XYZW)]);
        self.em
            .op(T::MUL, vec![dst(gy, 0xF)], vec![*ddy, src(scale, XYZW)]);
        self.em
            .op(T::DP3, vec![dst(gx, 1)], vec![src(gx, XYZW), src(gx, XYZW)]);
        self.em
            .op(T::DP3, vec![dst(gy, 1)], vec![src(gy, XYZW), src(gy, XYZW)]);
        self.em.op(
            T::MAX,
            vec![dst(gx, 1)],
            vec![scalar_src(gx, 0), scalar_src(gy, 0)],
        );
        // log2(sqrt(r²)) = log2(r²) / 2
        self.em
            .op(T::LG2, vec![dst(lod, 1)], vec![scalar_src(gx, 0)]);
        let half = self.em.imm_f(0.5);
        self.em
            .op(T::MUL, vec![dst(lod, 1)], vec![scalar_src(lod, 0), half]);
        Ok(())
    }

    /// A comparison sample at an explicit LOD: TXL (reference in .z, LOD in
    /// .w) or TXL2 (reference in .w, LOD in src1.x) with a shadow target on
    /// the combined texture+sampler slot.
    #[allow(clippy::too_many_arguments)]
    fn compare_at_lod(
        &mut self,
        out: Register,
        inst: &D3dInst,
        m: &ResMap,
        coord: SrcOperand,
        reference: SrcOperand,
        lod: SrcOperand,
        offset: Option<TexOffset>,
    ) -> Result<()> {
        let rop = self.operand(inst, 3)?;
        let sop = self.operand(inst, 4)?;
        let key = self.combined_key(rop, sop)?;
        let slot = *self
            .lay
            .combined
            .get(&key)
            .ok_or_else(|| self.fail("no combined texture and sampler slot"))?;
        // ref_at 4: TXL2's src1.y (shadow cube arrays)
        let (target, ref_at, two) = match m.target {
            TextureTarget::Tex1D => (TextureTarget::Shadow1D, 2, false),
            TextureTarget::Array1D => (TextureTarget::Shadow1DArray, 2, false),
            TextureTarget::Tex2D => (TextureTarget::Shadow2D, 2, false),
            TextureTarget::Array2D => (TextureTarget::Shadow2DArray, 3, true),
            TextureTarget::Cube => (TextureTarget::ShadowCube, 3, true),
            TextureTarget::CubeArray => (TextureTarget::ShadowCubeArray, 4, true),
            other => {
                return Err(self.fail(format!(
                    "a clamped comparison sample on a {} texture has no TGSI form",
                    other.name()
                )));
            }
        };
        let c = self.em.scratch();
        self.em.mov(dst(c, 0xF), coord, false);
        let samp = src(reg(File::Sampler, slot as i32), XYZW);
        let mut i = if two {
            let l = self.em.scratch();
            self.em.mov(dst(l, 0x1), lod, false);
            if ref_at == 4 {
                self.em.mov(dst(l, 0x2), reference, false);
            } else {
                self.em.mov(dst(c, 1 << ref_at), reference, false);
            }
            Instruction::new(
                T::TXL2,
                vec![dst(out, 0xF)],
                vec![src(c, XYZW), src(l, XYZW), samp],
            )
        } else {
            self.em.mov(dst(c, 1 << ref_at), reference, false);
            self.em.mov(dst(c, 0x8), lod, false);
            Instruction::new(T::TXL, vec![dst(out, 0xF)], vec![src(c, XYZW), samp])
        };
        if let Some(tex) = i.texture.as_mut() {
            tex.target = target;
            if let Some(off) = offset {
                tex.offsets.push(off);
            }
        }
        self.em.push(i);
        Ok(())
    }
}
