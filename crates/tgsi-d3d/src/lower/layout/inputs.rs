//! Inputs: signature elements and system values to TGSI inputs and system
//! values, per-vertex and patch-constant inputs, and the moves that
//! assemble a Direct3D register from several TGSI ones.

use super::*;

impl Builder<'_> {
    /// Inputs, outputs and the other special registers.
    pub(super) fn io(&mut self) -> Result<()> {
        let p = self.p;
        let processor = self.lay.processor;
        let hull = processor == Processor::TessCtrl;
        let mut inputs: Vec<IoDecl> = Vec::new();
        let mut outputs: Vec<IoDecl> = Vec::new();
        let mut patch_phase = false;
        let mut stream = 0u32;
        for (i, inst) in p.instructions.iter().enumerate() {
            match inst.opcode {
                D::HsForkPhase | D::HsJoinPhase => patch_phase = true,
                D::HsControlPointPhase => patch_phase = false,
                D::DclStream => {
                    stream = inst
                        .operands
                        .first()
                        .and_then(|o| o.indices.first())
                        .and_then(imm_index)
                        .unwrap_or(0)
                }
                _ => {}
            }
            let is_in = matches!(
                inst.opcode,
                D::DclInput
                    | D::DclInputSgv
                    | D::DclInputSiv
                    | D::DclInputPs
                    | D::DclInputPsSgv
                    | D::DclInputPsSiv
            );
            let is_out = matches!(
                inst.opcode,
                D::DclOutput | D::DclOutputSgv | D::DclOutputSiv
            );
            if !is_in && !is_out {
                continue;
            }
            let Some(op) = inst.operands.first() else {
                continue;
            };
            let sv = match inst.payload {
                Payload::Name(sv) => sv,
                _ => SystemValue::Undefined,
            };
            let decl = IoDecl {
                at: i,
                file: op.file,
                reg: op.indices.last().and_then(imm_index).unwrap_or(0),
                mask: declared_mask(op),
                sv,
                interp: inst.controls.interpolation.0,
                patch: patch_phase,
                stream,
            };
            if is_in {
                match op.file {
                    RegisterFile::Input
                    | RegisterFile::InputControlPoint
                    | RegisterFile::InputPatchConstant => inputs.push(decl),
                    RegisterFile::OutputControlPoint => {}
                    f => self.special_input(i, f)?,
                }
            } else {
                outputs.push(decl);
            }
        }
        self.inputs(&inputs)?;
        if hull {
            self.hull_outputs(&outputs)?;
        } else {
            self.outputs(&outputs)?;
        }
        Ok(())
    }

    pub(super) fn special_input(&mut self, i: usize, f: RegisterFile) -> Result<()> {
        use RegisterFile as R;
        let special = match f {
            R::InputPrimitiveId => Special::Sv(self.sv(SemanticName::PrimId)),
            R::InputCoverageMask => Special::Sv(self.sv(SemanticName::SampleMask)),
            R::InputGsInstanceId | R::OutputControlPointId => {
                Special::Sv(self.sv(SemanticName::InvocationId))
            }
            R::InputThreadGroupId => Special::Sv(self.sv(SemanticName::BlockId)),
            R::InputThreadIdInGroup => Special::Sv(self.sv(SemanticName::ThreadId)),
            R::InputDomainPoint => Special::Sv(self.sv(SemanticName::TessCoord)),
            R::InputForkInstanceId | R::InputJoinInstanceId => Special::PhaseInstance,
            R::CycleCounter => Special::Clock,
            R::InputThreadId | R::InputThreadIdInGroupFlattened => {
                if self.lay.specials.contains_key(&f) {
                    return Ok(());
                }
                let block = self.sv(SemanticName::BlockId);
                let thread = self.sv(SemanticName::ThreadId);
                let t = self.lay.persistent_temp();
                let [sx, sy, sz] = self.lay.thread_group;
                let svr = |k: u32| reg(File::SystemValue, k as i32);
                let temp = reg(File::Temp, t as i32);
                if f == R::InputThreadId {
                    // vThreadID = vThreadGroupID * group size + vThreadIDInGroup
                    let (k, _) = (self.lay.imms.vector(ImmType::Uint32, [sx, sy, sz, 0]), 0);
                    let size = src(reg(File::Immediate, k as i32), [0, 1, 2, 3]);
                    self.lay.prologue.push((
                        i,
                        Instruction::new(
                            Opcode::UMAD,
                            vec![dst(temp, 0x7)],
                            vec![
                                src(svr(block), [0, 1, 2, 3]),
                                size,
                                src(svr(thread), [0, 1, 2, 3]),
                            ],
                        ),
                    ));
                } else {
                    // z * (sx * sy) + y * sx + x
                    let (kx, cx) = self.lay.imms.scalar(ImmType::Uint32, sx);
                    let (kxy, cxy) = self.lay.imms.scalar(ImmType::Uint32, sx.wrapping_mul(sy));
                    let _ = sz;
                    self.lay.prologue.push((
                        i,
                        Instruction::new(
                            Opcode::UMAD,
                            vec![dst(temp, 1)],
                            vec![
                                scalar_src(svr(thread), 1),
                                scalar_src(reg(File::Immediate, kx as i32), cx),
                                scalar_src(svr(thread), 0),
                            ],
                        ),
                    ));
                    self.lay.prologue.push((
                        i,
                        Instruction::new(
                            Opcode::UMAD,
                            vec![dst(temp, 1)],
                            vec![
                                scalar_src(svr(thread), 2),
                                scalar_src(reg(File::Immediate, kxy as i32), cxy),
                                scalar_src(temp, 0),
                            ],
                        ),
                    ));
                }
                Special::Temp(t)
            }
            R::InnerCoverage => {
                // Without conservative rasterization, "the pixel is fully
                // covered" is "every sample is covered":
                // (SAMPLEMASK == (1 << samples) - 1) & 1, the sample count
                // from SAMPLE_INFO of the render target (a TEMP operand).
                let mask = self.sv(SemanticName::SampleMask);
                let t = self.lay.persistent_temp();
                let temp = reg(File::Temp, t as i32);
                let imm = |lay: &mut Layout, v: u32| {
                    let (k, c) = lay.imms.scalar(ImmType::Uint32, v);
                    scalar_src(reg(File::Immediate, k as i32), c)
                };
                let (zero, one, all) = (
                    imm(&mut self.lay, 0),
                    imm(&mut self.lay, 1),
                    imm(&mut self.lay, u32::MAX),
                );
                let x = || scalar_src(temp, 0);
                for (op, srcs) in [
                    (Opcode::SAMPLE_INFO, vec![src(temp, [0, 1, 2, 3]), zero]),
                    (Opcode::SHL, vec![one, x()]),
                    (Opcode::UADD, vec![x(), all]),
                    (
                        Opcode::USEQ,
                        vec![scalar_src(reg(File::SystemValue, mask as i32), 0), x()],
                    ),
                    (Opcode::AND, vec![x(), one]),
                ] {
                    self.lay
                        .prologue
                        .push((i, Instruction::new(op, vec![dst(temp, 1)], srcs)));
                }
                Special::Temp(t)
            }
            other => {
                return Err(self.fail(
                    i,
                    format!("input register {} has no TGSI form", other.name()),
                ));
            }
        };
        self.lay.specials.insert(f, special);
        Ok(())
    }

    /// What an input declaration becomes.
    pub(super) fn input_target(&mut self, d: &IoDecl) -> Result<Target> {
        use SystemValue as S;
        let processor = self.lay.processor;
        let generic = |r: u32| Some((SemanticName::Generic, r));
        Ok(match processor {
            Processor::Vertex => match d.sv {
                S::VertexId => Target::Sv(SemanticName::VertexId),
                S::InstanceId => Target::Sv(SemanticName::InstanceId),
                _ => Target::In(None, None),
            },
            Processor::Fragment => {
                let interp = interp_of(d.interp);
                match d.sv {
                    S::Undefined => Target::In(
                        generic(d.reg),
                        interp.or_else(|| interp_of(Interpolation::Linear)),
                    ),
                    S::Position => Target::In(
                        Some((SemanticName::Position, 0)),
                        interp.or_else(|| interp_of(Interpolation::LinearNoPerspective)),
                    ),
                    S::IsFrontFace => Target::Face,
                    S::SampleIndex => Target::Sv(SemanticName::SampleId),
                    S::PrimitiveId => Target::Sv(SemanticName::PrimId),
                    S::ClipDistance => {
                        self.clip_in += 1;
                        Target::In(Some((SemanticName::ClipDist, self.clip_in - 1)), interp)
                    }
                    S::CullDistance => {
                        self.clip_in += 1;
                        Target::In(Some((SemanticName::ClipDist, self.clip_in - 1)), interp)
                    }
                    S::RenderTargetArrayIndex => {
                        Target::In(Some((SemanticName::Layer, 0)), constant_interp())
                    }
                    S::ViewportArrayIndex => {
                        Target::In(Some((SemanticName::ViewportIndex, 0)), constant_interp())
                    }
                    other => {
                        return Err(self.fail(
                            d.at,
                            format!("pixel-shader input {} has no TGSI semantic", other.name()),
                        ));
                    }
                }
            }
            _ => match d.sv {
                S::Position => Target::In(Some((SemanticName::Position, 0)), None),
                S::ClipDistance => {
                    self.clip_in += 1;
                    Target::In(Some((SemanticName::ClipDist, self.clip_in - 1)), None)
                }
                S::CullDistance => {
                    self.clip_in += 1;
                    Target::In(Some((SemanticName::ClipDist, self.clip_in - 1)), None)
                }
                S::PrimitiveId => Target::Sv(SemanticName::PrimId),
                _ => Target::In(generic(d.reg), None),
            },
        })
    }

    pub(super) fn inputs(&mut self, decls: &[IoDecl]) -> Result<()> {
        let processor = self.lay.processor;
        // Patch constants of a domain shader: one TEMP array filled from
        // TESSOUTER/TESSINNER/PATCH inputs.
        let (patch, plain): (Vec<&IoDecl>, Vec<&IoDecl>) = decls
            .iter()
            .partition(|d| d.file == RegisterFile::InputPatchConstant);
        // Per-vertex registers of GS/HS/DS and plain registers.
        let mut by_reg: BTreeMap<(RegisterFile, u32), Vec<(IoDecl, Target)>> = BTreeMap::new();
        for d in plain {
            let t = self.input_target(d)?;
            let file = if d.file == RegisterFile::InputControlPoint {
                RegisterFile::Input
            } else {
                d.file
            };
            by_reg
                .entry((file, d.reg))
                .or_default()
                .push((d.clone(), t));
        }
        let max_reg = by_reg.keys().map(|k| k.1 + 1).max().unwrap_or(0);
        self.next_in = max_reg;
        let per_vertex = matches!(
            processor,
            Processor::Geometry | Processor::TessCtrl | Processor::TessEval
        );
        let mut shadowed: Vec<(RegisterFile, u32)> = Vec::new();
        for ((file, r), pieces) in &by_reg {
            let mut merged: Vec<(u8, Target, usize)> = Vec::new();
            for (d, t) in pieces {
                match merged.iter_mut().find(|m| m.1 == *t) {
                    Some(m) => m.0 |= d.mask,
                    None => merged.push((d.mask, *t, d.at)),
                }
            }
            if per_vertex && *file != RegisterFile::InputPatchConstant {
                // One semantic per register: the first declaration's.
                let mask = merged.iter().fold(0, |a, m| a | m.0);
                let sem = match merged[0].1 {
                    Target::In(s, _) => s,
                    _ => Some((SemanticName::Generic, *r)),
                };
                let mut d = Declaration::new(File::Input, *r, *r);
                d.usage_mask = WriteMask::from_bits_truncate(mask);
                d.semantic = sem.map(|(name, index)| Semantic {
                    name,
                    index,
                    streams: [0; 4],
                });
                self.lay.decls.push(d);
                // v[n][r] (control-point phase) and vicp[n][r] name the same data
                for f in [RegisterFile::Input, RegisterFile::InputControlPoint] {
                    self.lay
                        .inputs
                        .insert((f, *r), RegMap::PerVertex(File::Input, *r));
                }
                self.note_io(true, false, *file, *r, mask, File::Input, *r, sem, 0);
                continue;
            }
            let direct = merged.len() == 1
                && !matches!(merged[0].1, Target::Face)
                && !(scalar_semantic(merged[0].1) && merged[0].0 != 1);
            if direct {
                let (mask, t, _) = merged[0];
                let m = self.declare_input(*r, mask, t, true);
                self.lay.inputs.insert((*file, *r), m);
            } else {
                let temp = self.lay.persistent_temp();
                for (n, (mask, t, at)) in merged.into_iter().enumerate() {
                    let m = self.declare_input(*r, mask, t, n == 0);
                    self.fill(at, temp, mask, m, t);
                }
                self.lay.inputs.insert(
                    (*file, *r),
                    RegMap::Temp {
                        index: temp,
                        array: 0,
                    },
                );
                shadowed.push((*file, *r));
            }
        }
        // Index ranges over shadowed inputs become arrays.
        let ranges: Vec<IndexRange> = self
            .lay
            .ranges
            .iter()
            .filter(|r| r.file == RegisterFile::Input)
            .copied()
            .collect();
        for range in ranges {
            let members: Vec<u32> = (range.first..range.first + range.count).collect();
            if !members
                .iter()
                .any(|m| shadowed.contains(&(RegisterFile::Input, *m)))
            {
                continue;
            }
            let a = self.lay.new_array(range.count);
            for (k, m) in members.iter().enumerate() {
                let t = a.first + k as u32;
                match self.lay.inputs.get(&(RegisterFile::Input, *m)).copied() {
                    Some(RegMap::Temp { index, .. }) => {
                        self.lay.prologue.push((
                            0,
                            Instruction::new(
                                Opcode::MOV,
                                vec![dst(reg(File::Temp, t as i32), 0xF)],
                                vec![src(reg(File::Temp, index as i32), [0, 1, 2, 3])],
                            ),
                        ));
                    }
                    Some(RegMap::Direct(f, k)) => {
                        self.lay.prologue.push((
                            0,
                            Instruction::new(
                                Opcode::MOV,
                                vec![dst(reg(File::Temp, t as i32), 0xF)],
                                vec![src(reg(f, k as i32), [0, 1, 2, 3])],
                            ),
                        ));
                    }
                    _ => {}
                }
                self.lay.inputs.insert(
                    (RegisterFile::Input, *m),
                    RegMap::Temp {
                        index: t,
                        array: a.id,
                    },
                );
            }
        }
        if !patch.is_empty() || processor == Processor::TessEval {
            self.domain_patch_inputs(&patch)?;
        }
        Ok(())
    }

    /// Declares the TGSI register of one input piece; `first` pieces keep
    /// the D3D register number.
    pub(super) fn declare_input(&mut self, r: u32, mask: u8, t: Target, first: bool) -> RegMap {
        match t {
            Target::Sv(name) => {
                let k = self.sv(name);
                self.note_io(
                    true,
                    false,
                    RegisterFile::Input,
                    r,
                    mask,
                    File::SystemValue,
                    k,
                    Some((name, 0)),
                    0,
                );
                RegMap::Direct(File::SystemValue, k)
            }
            Target::In(sem, interp) => {
                let index = if first && !self.generic_used_in.contains(&r) {
                    r
                } else {
                    self.next_in += 1;
                    self.next_in - 1
                };
                self.generic_used_in.insert(index);
                let sem = match sem {
                    Some((SemanticName::Generic, _)) => Some((SemanticName::Generic, index)),
                    s => s,
                };
                let scalar = scalar_semantic(t);
                let mut d = Declaration::new(File::Input, index, index);
                d.usage_mask = WriteMask::from_bits_truncate(if scalar { 1 } else { mask });
                if self.lay.processor != Processor::Vertex {
                    d.semantic = sem.map(|(name, index)| Semantic {
                        name,
                        index,
                        streams: [0; 4],
                    });
                    d.interp = interp;
                }
                self.lay.decls.push(d);
                self.note_io(
                    true,
                    false,
                    RegisterFile::Input,
                    r,
                    mask,
                    File::Input,
                    index,
                    sem,
                    0,
                );
                if scalar && let Some(last) = self.lay.io_in.last_mut() {
                    last.component = 0;
                }
                RegMap::Direct(File::Input, index)
            }
            Target::Face => {
                let index = self.next_in;
                self.next_in += 1;
                let mut d = Declaration::new(File::Input, index, index);
                d.usage_mask = WriteMask::X;
                d.semantic = Some(Semantic {
                    name: SemanticName::Face,
                    index: 0,
                    streams: [0; 4],
                });
                d.interp = constant_interp();
                self.lay.decls.push(d);
                self.note_io(
                    true,
                    false,
                    RegisterFile::Input,
                    r,
                    mask,
                    File::Input,
                    index,
                    Some((SemanticName::Face, 0)),
                    0,
                );
                RegMap::Direct(File::Input, index)
            }
            Target::Out(..) => RegMap::Direct(File::Input, r),
        }
    }

    /// Prologue copy of one input piece into its temporary.
    pub(super) fn fill(&mut self, at: usize, temp: u32, mask: u8, from: RegMap, t: Target) {
        let RegMap::Direct(file, k) = from else {
            return;
        };
        let to = dst(reg(File::Temp, temp as i32), mask);
        let inst = if t == Target::Face {
            // D3D's is_front_face is ~0 (front) or 0; TGSI FACE is +1.0 / -1.0.
            let (zi, zc) = self.lay.imms.scalar(ImmType::Flt32, 0);
            Instruction::new(
                Opcode::FSLT,
                vec![to],
                vec![
                    scalar_src(reg(File::Immediate, zi as i32), zc),
                    scalar_src(reg(file, k as i32), 0),
                ],
            )
        } else if scalar_semantic(t) {
            // TGSI keeps the value in .x
            Instruction::new(
                Opcode::MOV,
                vec![to],
                vec![scalar_src(reg(file, k as i32), 0)],
            )
        } else {
            Instruction::new(
                Opcode::MOV,
                vec![to],
                vec![src(reg(file, k as i32), [0, 1, 2, 3])],
            )
        };
        self.lay.prologue.push((at, inst));
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn note_io(
        &mut self,
        input: bool,
        patch: bool,
        d3d_file: RegisterFile,
        r: u32,
        mask: u8,
        file: File,
        index: u32,
        semantic: Option<(SemanticName, u32)>,
        stream: u32,
    ) {
        for c in 0..4u8 {
            if mask & (1 << c) == 0 {
                continue;
            }
            let signature = self.signature_name(input, patch, r, c);
            let e = IoComponent {
                d3d_file,
                d3d_register: r,
                d3d_component: c,
                file,
                index,
                component: c,
                semantic,
                stream,
                signature,
            };
            if input {
                self.lay.io_in.push(e);
            } else {
                self.lay.io_out.push(e);
            }
        }
    }

    /// Domain shaders: vpc# → a TEMP array filled from the patch inputs.
    pub(super) fn domain_patch_inputs(&mut self, decls: &[&IoDecl]) -> Result<()> {
        let len = decls.iter().map(|d| d.reg + 1).max().unwrap_or(0).max(
            self.lay
                .ranges
                .iter()
                .filter(|r| r.file == RegisterFile::InputPatchConstant)
                .map(|r| r.first + r.count)
                .max()
                .unwrap_or(0),
        );
        if len == 0 {
            return Ok(());
        }
        let a = self.lay.new_array(len);
        self.lay.patch = Some(a);
        self.patch_constant_io(decls, a, true);
        Ok(())
    }

    /// The patch constants of a domain shader's inputs (`input`) or of a
    /// hull shader's outputs: `vpc#` / `o#` live in the TEMP array `a`; the
    /// tess factors become components of one TESSOUTER / TESSINNER
    /// register, the others PATCH[#] registers. Inputs are copied into the
    /// array in the prologue, outputs out of it when the patch-constant
    /// phases end.
    pub(super) fn patch_constant_io(&mut self, decls: &[&IoDecl], a: TempArray, input: bool) {
        let (file, d3d_file) = if input {
            (File::Input, RegisterFile::InputPatchConstant)
        } else {
            (File::Output, RegisterFile::Output)
        };
        let mut factors: [Option<u32>; 2] = [None, None];
        let mut plain: HashMap<u32, u32> = HashMap::new();
        for d in decls {
            let temp = reg(File::Temp, (a.first + d.reg) as i32);
            let factor = tess_factor(d.sv);
            let (name, index) = match factor {
                Some((true, _)) => (SemanticName::TessOuter, 0),
                Some((false, _)) => (SemanticName::TessInner, 0),
                None => (SemanticName::Patch, d.reg),
            };
            let known = match factor {
                Some((is_outer, _)) => factors[usize::from(!is_outer)],
                None => plain.get(&d.reg).copied(),
            };
            let k = match known {
                Some(k) => k,
                None => {
                    let next = if input {
                        &mut self.next_in
                    } else {
                        &mut self.next_out
                    };
                    let k = *next;
                    *next += 1;
                    match factor {
                        Some((is_outer, _)) => factors[usize::from(!is_outer)] = Some(k),
                        None => {
                            plain.insert(d.reg, k);
                        }
                    }
                    let mut decl = Declaration::new(file, k, k);
                    decl.semantic = Some(Semantic {
                        name,
                        index,
                        streams: [0; 4],
                    });
                    self.lay.decls.push(decl);
                    k
                }
            };
            let r = reg(file, k as i32);
            let Some((_, comp)) = factor else {
                let mov = if input {
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(temp, d.mask)],
                        vec![src(r, [0, 1, 2, 3])],
                    )
                } else {
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(r, d.mask)],
                        vec![src(temp, [0, 1, 2, 3])],
                    )
                };
                self.patch_move(d.at, input, mov);
                self.note_io(
                    input,
                    true,
                    d3d_file,
                    d.reg,
                    d.mask,
                    file,
                    k,
                    Some((name, index)),
                    0,
                );
                continue;
            };
            for c in (0..4u8).filter(|c| d.mask & (1 << c) != 0) {
                let mov = if input {
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(temp, 1 << c)],
                        vec![scalar_src(r, comp)],
                    )
                } else {
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(r, 1 << comp)],
                        vec![scalar_src(temp, c)],
                    )
                };
                self.patch_move(d.at, input, mov);
                let signature = self.signature_name(input, true, d.reg, c);
                let e = IoComponent {
                    d3d_file,
                    d3d_register: d.reg,
                    d3d_component: c,
                    file,
                    index: k,
                    component: comp,
                    semantic: Some((name, 0)),
                    stream: 0,
                    signature,
                };
                if input {
                    self.lay.io_in.push(e);
                } else {
                    self.lay.io_out.push(e);
                }
            }
        }
    }

    /// A patch-constant copy: into the array in the prologue (inputs), out
    /// of it after the patch-constant phases (outputs).
    pub(super) fn patch_move(&mut self, at: usize, input: bool, mov: Instruction) {
        if input {
            self.lay.prologue.push((at, mov));
        } else {
            self.lay.patch_flush.push((at, mov));
        }
    }
}
