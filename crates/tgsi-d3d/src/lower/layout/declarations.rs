//! The declarations that set properties and shapes rather than registers:
//! thread groups, primitives, tessellator settings, control points, global
//! flags, streams, indexable temps and index ranges.

use super::*;

impl Builder<'_> {
    /// Global flags, thread groups, geometry and tessellation settings,
    /// index ranges, immediate constant buffers, class linkage.
    pub(super) fn misc_declarations(&mut self) -> Result<()> {
        let p = self.p;
        let mut tess = Tessellator {
            domain: None,
            partitioning: None,
            output_primitive: None,
            max_tessfactor: None,
            input_control_points: 0,
            output_control_points: 0,
        };
        let mut hull_phase_patch = false;
        let mut streams = BTreeSet::new();
        for (i, inst) in p.instructions.iter().enumerate() {
            let c = &inst.controls;
            match inst.opcode {
                D::HsForkPhase | D::HsJoinPhase => hull_phase_patch = true,
                D::HsControlPointPhase => hull_phase_patch = false,
                D::DclGlobalFlags
                    if c.global_flags
                        .contains(GlobalFlags::FORCE_EARLY_DEPTH_STENCIL)
                        && self.lay.processor == Processor::Fragment =>
                {
                    self.prop(PropertyName::FsEarlyDepthStencil, 1);
                }
                D::DclThreadGroup
                | D::DclGsInputPrimitive
                | D::DclGsOutputPrimitiveTopology
                | D::DclMaxOutputVertexCount
                | D::DclGsInstanceCount
                | D::DclStream => self.compute_and_geometry(i, inst, &mut streams)?,
                D::DclInputControlPointCount
                | D::DclOutputControlPointCount
                | D::DclTessDomain
                | D::DclTessPartitioning
                | D::DclTessOutputPrimitive
                | D::DclHsMaxTessFactor => self.tessellation(inst, &mut tess),
                D::DclIndexRange | D::CustomData | D::DclFunctionTable | D::DclInterface => {
                    self.program_wide(i, inst, hull_phase_patch)?
                }
                _ => {}
            }
        }
        self.lay.gs_multistream = streams.len() > 1;
        if self.lay.program_type == ProgramType::Hull {
            self.lay.tessellator = Some(tess);
        }
        Ok(())
    }

    /// The thread group and the geometry shader's primitives, vertex count,
    /// instances and streams.
    fn compute_and_geometry(
        &mut self,
        i: usize,
        inst: &D3dInst,
        streams: &mut BTreeSet<u32>,
    ) -> Result<()> {
        let c = &inst.controls;
        match inst.opcode {
            D::DclThreadGroup => {
                if let Payload::ThreadGroup(g) = inst.payload {
                    if g.contains(&0) {
                        return Err(self.fail(i, "a thread group size of 0"));
                    }
                    self.lay.thread_group = g;
                    self.prop(PropertyName::CsFixedBlockWidth, g[0]);
                    self.prop(PropertyName::CsFixedBlockHeight, g[1]);
                    self.prop(PropertyName::CsFixedBlockDepth, g[2]);
                }
            }
            D::DclGsInputPrimitive => {
                let prim = match c.input_primitive.0 {
                    InputPrimitive::Point => Primitive::Points,
                    InputPrimitive::Line => Primitive::Lines,
                    InputPrimitive::Triangle => Primitive::Triangles,
                    InputPrimitive::LineAdj => Primitive::LinesAdjacency,
                    InputPrimitive::TriangleAdj => Primitive::TrianglesAdjacency,
                    other => {
                        return Err(self.fail(
                            i,
                            format!(
                                "geometry-shader input primitive {} has no TGSI form",
                                other.name()
                            ),
                        ));
                    }
                };
                self.prop(PropertyName::GsInputPrimitive, prim as u32);
            }
            D::DclGsOutputPrimitiveTopology => {
                let prim = match c.output_topology.0 {
                    PrimitiveTopology::PointList => Primitive::Points,
                    PrimitiveTopology::LineList | PrimitiveTopology::LineStrip => {
                        Primitive::LineStrip
                    }
                    PrimitiveTopology::TriangleList | PrimitiveTopology::TriangleStrip => {
                        Primitive::TriangleStrip
                    }
                    other => {
                        return Err(self.fail(
                            i,
                            format!(
                                "geometry-shader output topology {} has no TGSI form",
                                other.name()
                            ),
                        ));
                    }
                };
                self.prop(PropertyName::GsOutputPrimitive, prim as u32);
            }
            D::DclMaxOutputVertexCount => {
                if let Payload::Count(n) = inst.payload {
                    self.prop(PropertyName::GsMaxOutputVertices, n);
                }
            }
            D::DclGsInstanceCount => {
                if let Payload::Count(n) = inst.payload {
                    self.prop(PropertyName::GsInvocations, n.max(1));
                }
            }
            D::DclStream => {
                if let Some(s) = inst
                    .operands
                    .first()
                    .and_then(|o| o.indices.first())
                    .and_then(imm_index)
                {
                    streams.insert(s);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Control points and tessellator settings (kept for the hull shader's
    /// runner; the domain becomes TES_PRIM_MODE).
    fn tessellation(&mut self, inst: &D3dInst, tess: &mut Tessellator) {
        let c = &inst.controls;
        match inst.opcode {
            D::DclInputControlPointCount => {
                tess.input_control_points = c.control_point_count as u32;
            }
            D::DclOutputControlPointCount => {
                let n = c.control_point_count as u32;
                tess.output_control_points = n;
                self.lay.output_control_points = n;
                if n > 0 && self.lay.processor == Processor::TessCtrl {
                    self.prop(PropertyName::TcsVerticesOut, n);
                }
            }
            D::DclTessDomain => {
                tess.domain = Some(c.tess_domain.0);
                if self.lay.processor == Processor::TessEval {
                    use crate::enums::TessellatorDomain as T;
                    let prim = match c.tess_domain.0 {
                        T::Isoline => Some(Primitive::Lines),
                        T::Triangle => Some(Primitive::Triangles),
                        T::Quad => Some(Primitive::Quads),
                        T::Undefined => None,
                    };
                    if let Some(prim) = prim {
                        self.prop(PropertyName::TesPrimMode, prim as u32);
                    }
                }
            }
            D::DclTessPartitioning => tess.partitioning = Some(c.tess_partitioning.0),
            D::DclTessOutputPrimitive => tess.output_primitive = Some(c.tess_output_primitive.0),
            D::DclHsMaxTessFactor => {
                if let Payload::Float(bits) = inst.payload {
                    tess.max_tessfactor = Some(f32::from_bits(bits));
                }
            }
            _ => {}
        }
    }

    /// Index ranges, the immediate constant buffer, function tables and
    /// interfaces.
    fn program_wide(&mut self, i: usize, inst: &D3dInst, hull_phase_patch: bool) -> Result<()> {
        match inst.opcode {
            D::DclIndexRange => {
                let (Some(op), Payload::Count(n)) = (inst.operands.first(), &inst.payload) else {
                    return Ok(());
                };
                let Some(first) = op.indices.last().and_then(imm_index) else {
                    return Err(self.fail(i, "index range without a register number"));
                };
                if *n == 0 || *n > 4096 {
                    return Err(self.fail(i, format!("index range of {n} registers")));
                }
                self.lay.ranges.push(IndexRange {
                    file: op.file,
                    first,
                    count: *n,
                    patch: hull_phase_patch && op.file == RegisterFile::Output,
                });
            }
            D::CustomData => {
                if let Payload::CustomData(CustomData::ImmediateConstantBuffer(words)) =
                    &inst.payload
                {
                    if !self.lay.icb.is_empty() {
                        return Err(self.fail(i, "a second immediate constant buffer"));
                    }
                    if words.len() % 4 != 0 || words.len() / 4 > 4096 {
                        return Err(self.fail(
                        i,
                        format!("immediate constant buffer of {} words: expected a multiple of 4, at most 4096 vectors", words.len()),
                    ));
                    }
                    self.lay.icb = words.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
                }
            }
            D::DclFunctionTable => {
                if let Payload::FunctionTable { index, bodies } = &inst.payload {
                    self.lay.interfaces.tables.insert(*index, bodies.clone());
                }
            }
            D::DclInterface => {
                if let Payload::Interface {
                    index,
                    array_size,
                    tables,
                    ..
                } = &inst.payload
                {
                    let size = (*array_size as u32).max(1);
                    let end = index
                        .checked_add(size)
                        .filter(|e| *e <= 4096)
                        .ok_or_else(|| self.fail(i, "interface slots beyond 4096"))?;
                    self.lay.interfaces.slots = self.lay.interfaces.slots.max(end);
                    self.lay
                        .interfaces
                        .interfaces
                        .insert(*index, (tables.clone(), size));
                }
            }
            _ => {}
        }
        Ok(())
    }
}
