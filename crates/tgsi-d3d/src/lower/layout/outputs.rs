//! Outputs: signature elements to TGSI outputs, and the hull shader's
//! control-point and patch-constant outputs.

use super::*;

impl Builder<'_> {
    /// What an output declaration becomes.
    pub(super) fn output_target(&mut self, d: &IoDecl, clip: &mut u32) -> Result<Target> {
        use SystemValue as S;
        if self.lay.processor == Processor::Fragment {
            return Ok(Target::Out(SemanticName::Color, d.reg));
        }
        Ok(match d.sv {
            S::Position => Target::Out(SemanticName::Position, 0),
            S::ClipDistance => {
                *clip += 1;
                Target::Out(SemanticName::ClipDist, *clip - 1)
            }
            S::CullDistance => {
                *clip += 1;
                Target::Out(SemanticName::ClipDist, *clip - 1)
            }
            S::RenderTargetArrayIndex => Target::Out(SemanticName::Layer, 0),
            S::ViewportArrayIndex => Target::Out(SemanticName::ViewportIndex, 0),
            S::PrimitiveId => Target::Out(SemanticName::PrimId, 0),
            _ => Target::Out(SemanticName::Generic, d.reg),
        })
    }

    pub(super) fn declare_output(
        &mut self,
        index: u32,
        mask: u8,
        name: SemanticName,
        sem_index: u32,
        stream: u32,
    ) {
        let mut d = Declaration::new(File::Output, index, index);
        d.usage_mask = WriteMask::from_bits_truncate(mask);
        d.semantic = Some(Semantic {
            name,
            index: sem_index,
            streams: [stream as u8; 4],
        });
        self.lay.decls.push(d);
    }

    pub(super) fn outputs(&mut self, decls: &[IoDecl]) -> Result<()> {
        let (regs, special): (Vec<&IoDecl>, Vec<&IoDecl>) =
            decls.iter().partition(|d| d.file == RegisterFile::Output);
        let max_reg = regs.iter().map(|d| d.reg + 1).max().unwrap_or(0);
        self.next_out = max_reg;
        let by_reg = self.output_pieces(&regs)?;
        let shadows = self.output_shadows(&by_reg);
        self.declare_output_pieces(&by_reg, &shadows);
        // oDepth, oMask, oStencilRef: a temporary copied to its component.
        for d in special {
            self.special_output(d)?;
        }
        Ok(())
    }

    /// The pieces of each `(stream, o#)`: its components by TGSI target.
    fn output_pieces(&mut self, regs: &[&IoDecl]) -> Result<BTreeMap<(u32, u32), Vec<Piece>>> {
        let geometry = self.lay.processor == Processor::Geometry;
        let mut clip = 0u32;
        // (stream, reg) → pieces
        let mut by_reg: BTreeMap<(u32, u32), Vec<Piece>> = BTreeMap::new();
        for d in regs {
            let t = self.output_target(d, &mut clip)?;
            let stream = if geometry { d.stream } else { 0 };
            let pieces = by_reg.entry((stream, d.reg)).or_default();
            match pieces.iter_mut().find(|p| p.1 == t) {
                Some(p) => p.0 |= d.mask,
                None => pieces.push((d.mask, t, d.at)),
            }
        }
        Ok(by_reg)
    }

    /// The registers written through a temporary (several pieces, a scalar
    /// semantic moved from another component, several streams, or an index
    /// range touching one of those) and their temporaries.
    fn output_shadows(&mut self, by_reg: &BTreeMap<(u32, u32), Vec<Piece>>) -> HashMap<u32, u32> {
        let multistream = self.lay.gs_multistream;
        let mut shadows: HashMap<u32, u32> = HashMap::new();
        // Which registers need a temporary.
        let mut shadowed: BTreeSet<u32> = BTreeSet::new();
        for ((_, r), pieces) in by_reg {
            let moved = pieces.iter().any(|p| scalar_semantic(p.1) && p.0 != 1);
            if multistream || pieces.len() > 1 || moved {
                shadowed.insert(*r);
            }
        }
        // Index ranges touching a shadowed register shadow all of theirs.
        let out_ranges: Vec<IndexRange> = self
            .lay
            .ranges
            .iter()
            .filter(|r| r.file == RegisterFile::Output)
            .copied()
            .collect();
        let mut array_of: HashMap<u32, (u32, u32)> = HashMap::new();
        for range in &out_ranges {
            let members = range.first..range.first + range.count;
            if members.clone().any(|m| shadowed.contains(&m)) {
                let a = self.lay.new_array(range.count);
                for (k, m) in members.enumerate() {
                    shadowed.insert(m);
                    array_of.insert(m, (a.first + k as u32, a.id));
                }
            }
        }
        for r in &shadowed {
            let (temp, array) = match array_of.get(r) {
                Some(v) => *v,
                None => (self.lay.persistent_temp(), 0),
            };
            shadows.insert(*r, temp);
            self.lay.outputs.insert(
                (RegisterFile::Output, *r),
                RegMap::Temp { index: temp, array },
            );
        }
        shadows
    }

    /// Declares every piece as a TGSI output, with the copy from its
    /// temporary where the register has one.
    fn declare_output_pieces(
        &mut self,
        by_reg: &BTreeMap<(u32, u32), Vec<Piece>>,
        shadows: &HashMap<u32, u32>,
    ) {
        let mut used_index: BTreeSet<u32> = BTreeSet::new();
        for ((stream, r), pieces) in by_reg {
            for (n, (mask, t, at)) in pieces.iter().enumerate() {
                let Target::Out(name, sem_index) = *t else {
                    continue;
                };
                let keep = n == 0 && *stream == 0 && !used_index.contains(r);
                let index = if keep {
                    *r
                } else {
                    self.next_out += 1;
                    self.next_out - 1
                };
                used_index.insert(index);
                let sem_index = if name == SemanticName::Generic {
                    index
                } else {
                    sem_index
                };
                let scalar = scalar_semantic(*t);
                let out_mask = if scalar { 1 } else { *mask };
                self.declare_output(index, out_mask, name, sem_index, *stream);
                self.note_io(
                    false,
                    false,
                    RegisterFile::Output,
                    *r,
                    *mask,
                    File::Output,
                    index,
                    Some((name, sem_index)),
                    *stream,
                );
                if scalar && let Some(last) = self.lay.io_out.last_mut() {
                    last.component = 0;
                }
                match shadows.get(r) {
                    None => {
                        self.lay.outputs.insert(
                            (RegisterFile::Output, *r),
                            RegMap::Direct(File::Output, index),
                        );
                    }
                    Some(temp) => {
                        // TGSI keeps LAYER, VIEWPORT_INDEX and PRIM_ID in .x
                        let from = if scalar {
                            scalar_src(reg(File::Temp, *temp as i32), first_component(*mask))
                        } else {
                            src(reg(File::Temp, *temp as i32), [0, 1, 2, 3])
                        };
                        let inst = Instruction::new(
                            Opcode::MOV,
                            vec![dst(reg(File::Output, index as i32), out_mask)],
                            vec![from],
                        );
                        self.lay.flush.entry(*stream).or_default().push((*at, inst));
                    }
                }
            }
        }
    }

    /// oDepth (and its conservative forms), oMask, oStencilRef: a
    /// temporary copied to the component TGSI keeps them in.
    fn special_output(&mut self, d: &IoDecl) -> Result<()> {
        use RegisterFile as R;
        let (name, comp, layout) = match d.file {
            R::OutputDepth => (SemanticName::Position, 2, None),
            R::OutputDepthGreaterEqual => (SemanticName::Position, 2, Some(2)),
            R::OutputDepthLessEqual => (SemanticName::Position, 2, Some(3)),
            R::OutputCoverageMask => (SemanticName::SampleMask, 0, None),
            R::OutputStencilRef => (SemanticName::Stencil, 1, None),
            other => {
                return Err(self.fail(
                    d.at,
                    format!("output register {} has no TGSI form", other.name()),
                ));
            }
        };
        if self.lay.outputs.contains_key(&(d.file, 0)) {
            return Ok(());
        }
        if let Some(l) = layout {
            self.lay.depth_layout = Some(l);
            self.prop(PropertyName::FsDepthLayout, l);
        }
        let index = self.next_out;
        self.next_out += 1;
        self.declare_output(index, 1 << comp, name, 0, 0);
        self.note_io(
            false,
            false,
            d.file,
            0,
            1,
            File::Output,
            index,
            Some((name, 0)),
            0,
        );
        if let Some(last) = self.lay.io_out.last_mut() {
            last.component = comp;
        }
        let temp = self.lay.persistent_temp();
        self.lay.outputs.insert(
            (d.file, 0),
            RegMap::Temp {
                index: temp,
                array: 0,
            },
        );
        let inst = Instruction::new(
            Opcode::MOV,
            vec![dst(reg(File::Output, index as i32), 1 << comp)],
            vec![scalar_src(reg(File::Temp, temp as i32), 0)],
        );
        self.lay.flush.entry(0).or_default().push((d.at, inst));
        Ok(())
    }

    /// Hull shaders: control-point outputs are per-vertex `OUT[][n]`;
    /// patch constants go to one TEMP array copied to TESSOUTER,
    /// TESSINNER and PATCH outputs at the end.
    pub(super) fn hull_outputs(&mut self, decls: &[IoDecl]) -> Result<()> {
        let inv = self.sv(SemanticName::InvocationId);
        self.lay.invocation_sv = Some(inv);
        let (patch, cp): (Vec<&IoDecl>, Vec<&IoDecl>) = decls.iter().partition(|d| d.patch);
        let mut cp_regs: BTreeMap<u32, (u8, Option<(SemanticName, u32)>)> = BTreeMap::new();
        for d in &cp {
            let sem = if d.sv == SystemValue::Position {
                (SemanticName::Position, 0)
            } else {
                (SemanticName::Generic, d.reg)
            };
            let e = cp_regs.entry(d.reg).or_insert((0, Some(sem)));
            e.0 |= d.mask;
        }
        // Without a control-point phase the inputs pass through.
        let has_cp_phase = self
            .p
            .instructions
            .iter()
            .any(|i| i.opcode == D::HsControlPointPhase);
        if !has_cp_phase {
            let mut regs: BTreeMap<u32, u8> = BTreeMap::new();
            for e in &self.sigs.inputs {
                if e.register != NO_REGISTER {
                    *regs.entry(e.register).or_default() |= e.mask;
                }
            }
            for ((f, r), m) in &self.lay.inputs {
                if *f == RegisterFile::InputControlPoint && matches!(m, RegMap::PerVertex(..)) {
                    regs.entry(*r).or_insert(0xF);
                }
            }
            for (r, mask) in regs {
                cp_regs
                    .entry(r)
                    .or_insert((mask, Some((SemanticName::Generic, r))));
                if !self
                    .lay
                    .inputs
                    .contains_key(&(RegisterFile::InputControlPoint, r))
                {
                    let mut d = Declaration::new(File::Input, r, r);
                    d.usage_mask = WriteMask::from_bits_truncate(mask);
                    d.semantic = Some(Semantic {
                        name: SemanticName::Generic,
                        index: r,
                        streams: [0; 4],
                    });
                    self.lay.decls.push(d);
                    self.lay.inputs.insert(
                        (RegisterFile::InputControlPoint, r),
                        RegMap::PerVertex(File::Input, r),
                    );
                }
                // OUT[inv][r] = IN[inv][r]
                let invocation = tgsi_ir::ir::IndirectAddr {
                    file: File::SystemValue,
                    index: inv as i32,
                    component: tgsi_ir::ir::Component::X,
                    array_id: 0,
                };
                let mut to = reg(File::Output, r as i32);
                to.dimension = Some(tgsi_ir::ir::Index {
                    offset: 0,
                    indirect: Some(invocation),
                });
                let mut from = reg(File::Input, r as i32);
                from.dimension = to.dimension;
                self.lay.prologue.push((
                    0,
                    Instruction::new(
                        Opcode::MOV,
                        vec![dst(to, mask)],
                        vec![src(from, [0, 1, 2, 3])],
                    ),
                ));
            }
        }
        let max_cp = cp_regs.keys().map(|r| r + 1).max().unwrap_or(0);
        for (r, (mask, sem)) in &cp_regs {
            let mut d = Declaration::new(File::Output, *r, *r);
            d.usage_mask = WriteMask::from_bits_truncate(*mask);
            d.semantic = sem.map(|(name, index)| Semantic {
                name,
                index,
                streams: [0; 4],
            });
            self.lay.decls.push(d);
            self.lay.outputs.insert(
                (RegisterFile::Output, *r),
                RegMap::PerVertex(File::Output, *r),
            );
            self.note_io(
                false,
                false,
                RegisterFile::Output,
                *r,
                *mask,
                File::Output,
                *r,
                *sem,
                0,
            );
        }
        self.next_out = max_cp;
        let len = patch.iter().map(|d| d.reg + 1).max().unwrap_or(0).max(
            self.lay
                .ranges
                .iter()
                .filter(|r| r.patch || r.file == RegisterFile::InputPatchConstant)
                .map(|r| r.first + r.count)
                .max()
                .unwrap_or(0),
        );
        if len == 0 {
            return Ok(());
        }
        let a = self.lay.new_array(len);
        self.lay.patch = Some(a);
        self.patch_constant_io(&patch, a, false);
        Ok(())
    }
}
