//! Shader resources, UAVs, samplers, constant buffers and shared memory:
//! their TGSI files, numbers and bindings.

use super::*;

impl Builder<'_> {
    /// Constant buffers, textures, samplers, UAVs, shared memory.
    pub(super) fn resources(&mut self) -> Result<()> {
        let p = self.p;
        let directs = self.direct_registers();
        let [t_buffer_base, counter_base, combined_base] = self.slot_bases(&directs)?;
        let mut shared_offset = 0u32;
        for (i, inst) in p.instructions.iter().enumerate() {
            let kind = match inst.opcode {
                D::DclConstantBuffer => ResKind::Cb,
                D::DclResource | D::DclResourceRaw | D::DclResourceStructured => ResKind::Texture,
                D::DclSampler => ResKind::Sampler,
                D::DclUavTyped | D::DclUavRaw | D::DclUavStructured => ResKind::Uav,
                D::DclTgsmRaw | D::DclTgsmStructured => ResKind::Tgsm,
                _ => continue,
            };
            if kind == ResKind::Tgsm {
                self.shared_memory(i, inst, &mut shared_offset)?;
            } else {
                self.bound_resource(i, inst, kind, t_buffer_base, &directs)?;
            }
        }
        if shared_offset > 0 {
            let mut d = Declaration::new(File::Memory, 0, 0);
            d.mem_type = MemType::Shared;
            self.lay.decls.push(d);
        }
        self.hidden_slots(counter_base, combined_base)?;
        if self.lay.interfaces.slots > 0 {
            let cb = self.lay.interfaces.cb;
            let slots = self.lay.interfaces.slots;
            self.binding(D3dSlot::Interfaces { slots }, File::Const, cb);
            let mut d = Declaration::new(File::Const, 0, 2 * slots - 1);
            d.dimension = Some(cb);
            self.lay.decls.push(d);
        }
        Ok(())
    }

    /// Where each kind of slot starts: UAV buffers first, read-only buffers
    /// and UAV counters after them, combined texture+samplers after the
    /// textures and samplers ([t buffers, counters, combined]); the
    /// interfaces' constant buffer after the declared ones.
    fn slot_bases(
        &mut self,
        directs: &HashMap<(RegisterFile, u32), BTreeSet<u32>>,
    ) -> Result<[u32; 3]> {
        let p = self.p;
        let mut max_uav_buffer = 0u32;
        let mut max_t = 0u32;
        let mut max_s = 0u32;
        let mut max_cb = 0u32;
        for (i, inst) in p.instructions.iter().enumerate() {
            if !matches!(
                inst.opcode,
                D::DclUavRaw
                    | D::DclUavStructured
                    | D::DclResource
                    | D::DclResourceRaw
                    | D::DclResourceStructured
                    | D::DclSampler
                    | D::DclConstantBuffer
            ) {
                continue;
            }
            let (id, lo, hi, space) = self.range_of(i, inst)?;
            let last = hi.unwrap_or(lo).min(255).max(lo);
            let last = inst
                .operands
                .first()
                .and_then(|op| directs.get(&(op.file, id)))
                .and_then(|d| d.last())
                .map_or(last, |&d| last.max(d.min(255)));
            let top = self.space_index(i, last, space)? + 1;
            match inst.opcode {
                D::DclUavRaw | D::DclUavStructured => max_uav_buffer = max_uav_buffer.max(top),
                D::DclResource | D::DclResourceRaw | D::DclResourceStructured => {
                    max_t = max_t.max(top)
                }
                D::DclSampler => max_s = max_s.max(top),
                _ => max_cb = max_cb.max(top),
            }
        }
        let t_buffer_base = max_uav_buffer.max(64);
        let counter_base = (t_buffer_base + max_t.max(128)).max(192);
        let combined_base = max_t.max(max_s).max(128);
        self.lay.interfaces.cb = max_cb.max(14);
        Ok([t_buffer_base, counter_base, combined_base])
    }

    /// `dcl_tgsm_*`: one MEMORY range per declaration, 16-byte aligned
    /// after the previous ones (`offset`).
    fn shared_memory(&mut self, i: usize, inst: &D3dInst, offset: &mut u32) -> Result<()> {
        let shared_offset = *offset;
        let op = inst.operands.first();
        let Some(g) = op.and_then(|o| o.indices.first()).and_then(imm_index) else {
            return Err(self.fail(i, "shared memory declaration without a register"));
        };
        let size = match inst.payload {
            Payload::Count(bytes) => bytes as u64,
            Payload::TgsmStructured { stride, count } => stride as u64 * count as u64,
            _ => 0,
        };
        let stride = match inst.payload {
            Payload::TgsmStructured { stride, .. } => stride,
            _ => 0,
        };
        if shared_offset as u64 + size > 1 << 20 {
            return Err(self.fail(i, "more than 1 MiB of shared memory"));
        }
        let m = ResMap {
            file: File::Memory,
            base: 0,
            first: g,
            dimension: if stride > 0 {
                ResourceDimension::StructuredBuffer
            } else {
                ResourceDimension::RawBuffer
            },
            target: TextureTarget::Buffer,
            stride,
            byte_offset: shared_offset,
            byte_size: size as u32,
            comparison: false,
            return_type: ReturnType::Uint,
        };
        self.lay.res.insert((ResKind::Tgsm, g), m);
        let b = self.binding(D3dSlot::SharedMemory { register: g }, File::Memory, 0);
        b.byte_offset = shared_offset;
        b.byte_size = size as u32;
        b.stride = stride;
        *offset += (size as u32).div_ceil(16) * 16;
        Ok(())
    }

    /// One resource, sampler or constant buffer declaration: its map and
    /// the binding and declaration of each register it names.
    fn bound_resource(
        &mut self,
        i: usize,
        inst: &D3dInst,
        kind: ResKind,
        t_buffer_base: u32,
        directs: &HashMap<(RegisterFile, u32), BTreeSet<u32>>,
    ) -> Result<()> {
        let (id, lo, hi, space) = self.range_of(i, inst)?;
        let base = self.space_index(i, lo, space)?;
        let dimension = match inst.opcode {
            D::DclResourceRaw | D::DclUavRaw => ResourceDimension::RawBuffer,
            D::DclResourceStructured | D::DclUavStructured => ResourceDimension::StructuredBuffer,
            _ => inst.controls.resource_dimension.0,
        };
        let stride = match inst.payload {
            Payload::Structured { stride, .. } => stride,
            _ => 0,
        };
        let return_type = match &inst.payload {
            Payload::ReturnTypes { types, .. } => return_type_of(types[0]),
            _ => ReturnType::Uint,
        };
        let typed = !matches!(
            dimension,
            ResourceDimension::RawBuffer | ResourceDimension::StructuredBuffer
        );
        let (file, base) = match kind {
            ResKind::Cb => (File::Const, base),
            ResKind::Sampler => (File::Sampler, base),
            ResKind::Texture if typed => (File::SamplerView, base),
            ResKind::Texture => (File::Buffer, t_buffer_base + base),
            ResKind::Uav if typed => (File::Image, base),
            _ => (File::Buffer, base),
        };
        let comparison =
            kind == ResKind::Sampler && inst.controls.sampler_mode.0 == SamplerMode::Comparison;
        let target = target_of(dimension);
        self.lay.res.insert(
            (kind, id),
            ResMap {
                file,
                base,
                first: lo,
                dimension,
                target,
                stride,
                byte_offset: 0,
                byte_size: 0,
                comparison,
                return_type,
            },
        );
        // Declarations: each register of a bounded range, the first of
        // an unbounded one (indirect accesses need only one), and every
        // register an instruction names directly (in an unbounded range,
        // or beyond a bounded one: D3D leaves that undefined, the
        // lowering gives it the register's own slot).
        let mut registers: BTreeSet<u32> = match hi {
            Some(h) => (lo..=h.min(lo.saturating_add(255))).collect(),
            None => BTreeSet::from([lo]),
        };
        if let Some(d) = inst
            .operands
            .first()
            .and_then(|op| directs.get(&(op.file, id)))
        {
            registers.extend(d.iter().copied());
        }
        for register in registers {
            let index = self.space_index(i, register, space)?;
            let index = if file == File::Buffer && kind == ResKind::Texture {
                t_buffer_base + index
            } else {
                index
            };
            if index > 32767 {
                return Err(self.fail(i, "register index beyond the TGSI range"));
            }
            let slot = match kind {
                ResKind::Cb => D3dSlot::ConstantBuffer { register, space },
                ResKind::Texture => D3dSlot::Texture { register, space },
                ResKind::Sampler => D3dSlot::Sampler { register, space },
                _ => D3dSlot::Uav { register, space },
            };
            let b = self.binding(slot, file, index);
            b.stride = stride;
            let decl =
                self.resource_declaration(i, inst, kind, index, target, return_type, typed)?;
            self.lay.decls.push(decl);
        }
        Ok(())
    }

    /// The TGSI declaration of register `index` of a resource.
    #[allow(clippy::too_many_arguments)]
    fn resource_declaration(
        &self,
        i: usize,
        inst: &D3dInst,
        kind: ResKind,
        index: u32,
        target: TextureTarget,
        return_type: ReturnType,
        typed: bool,
    ) -> Result<Declaration> {
        Ok(match kind {
            ResKind::Cb => {
                let size = match (&inst.payload, inst.operands.first()) {
                    (Payload::ConstantBuffer(Some(r)), _) => r.size,
                    (_, Some(op)) => op.indices.get(1).and_then(imm_index).unwrap_or(1),
                    _ => 1,
                };
                if size > 4096 {
                    return Err(self.fail(
                        i,
                        format!("constant buffer of {size} vectors: at most 4096"),
                    ));
                }
                let mut d = Declaration::new(File::Const, 0, size.max(1) - 1);
                d.dimension = Some(index);
                d
            }
            ResKind::Sampler => Declaration::new(File::Sampler, index, index),
            ResKind::Texture if typed => {
                let mut d = Declaration::new(File::SamplerView, index, index);
                d.sampler_view = Some(SamplerViewDecl {
                    target,
                    return_types: [return_type; 4],
                });
                d
            }
            ResKind::Uav if typed => {
                let mut d = Declaration::new(File::Image, index, index);
                d.image = Some(ImageDecl {
                    target,
                    format: PipeFormat::NONE,
                    raw: false,
                    writable: true,
                });
                d
            }
            _ => Declaration::new(File::Buffer, index, index),
        })
    }

    /// Hidden UAV counters and combined texture+sampler slots.
    fn hidden_slots(&mut self, counter_base: u32, combined_base: u32) -> Result<()> {
        let p = self.p;
        for (i, inst) in p.instructions.iter().enumerate() {
            match inst.opcode {
                D::ImmAtomicAlloc | D::ImmAtomicConsume => {
                    let Some(u) = inst.operands.get(1) else {
                        continue;
                    };
                    let Some(id) = u.indices.first().and_then(imm_index) else {
                        return Err(self.fail(i, "UAV counter of an indirectly indexed UAV"));
                    };
                    if self.lay.counters.contains_key(&id) {
                        continue;
                    }
                    let m = self
                        .lay
                        .res
                        .get(&(ResKind::Uav, id))
                        .copied()
                        .ok_or_else(|| self.fail(i, format!("u{id} is not declared")))?;
                    let index = counter_base + m.base;
                    self.lay.counters.insert(id, index);
                    let space = 0;
                    self.binding(
                        D3dSlot::UavCounter {
                            register: m.first,
                            space,
                        },
                        File::Buffer,
                        index,
                    );
                    self.lay
                        .decls
                        .push(Declaration::new(File::Buffer, index, index));
                }
                D::Gather4C | D::Gather4PoC | D::Gather4CS | D::Gather4PoCS | D::SampleCClampS => {
                    let res = inst
                        .operands
                        .iter()
                        .rfind(|o| o.file == RegisterFile::Resource);
                    let smp = inst
                        .operands
                        .iter()
                        .rfind(|o| o.file == RegisterFile::Sampler);
                    let (Some(t), Some(s)) = (res, smp) else {
                        continue;
                    };
                    let key = match self.combined_key(t, s) {
                        Some(k) => k,
                        None => {
                            return Err(self.fail(
                                i,
                                "gather with comparison through an indirectly indexed texture or sampler: TG4 needs one fixed SAMP slot",
                            ));
                        }
                    };
                    if self.lay.combined.contains_key(&key) {
                        continue;
                    }
                    let index = combined_base + self.lay.combined.len() as u32;
                    self.lay.combined.insert(key, index);
                    self.binding(
                        D3dSlot::TextureWithSampler {
                            texture: key.1,
                            sampler: key.3,
                        },
                        File::Sampler,
                        index,
                    );
                    self.lay
                        .decls
                        .push(Declaration::new(File::Sampler, index, index));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// (t range, t register, s range, s register) of direct operands.
    pub(super) fn combined_key(&self, t: &Operand, s: &Operand) -> Option<(u32, u32, u32, u32)> {
        let ix = |o: &Operand| -> Option<(u32, u32)> {
            let v: Vec<Option<u32>> = o.indices.iter().map(imm_index).collect();
            if self.lay.sm51 {
                Some((v.first().copied()??, v.get(1).copied()??))
            } else {
                let r = v.first().copied()??;
                Some((r, r))
            }
        };
        let (ta, tb) = ix(t)?;
        let (sa, sb) = ix(s)?;
        Some((ta, tb, sa, sb))
    }
}
