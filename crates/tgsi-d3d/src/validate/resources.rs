//! The operands that name a declared object rather than a value: resources
//! (`t#`), UAVs (`u#`), shared memory (`g#`) and the rasterizer, samplers
//! (`s#`), constant buffers (`cb#`), labels, streams and interfaces.
//!
//! For each: the register file the opcode takes there, a declaration of the
//! right kind (typed, raw or structured; the sampler mode the instruction
//! needs), the slot and its SM5.1 range, and the resource dimensions each
//! resource instruction accepts according to its reference page; the
//! `_indexable` token must repeat the declaration.

use super::decls::{ResourceDecl, ResourceKind, stage_has_file};
use super::instructions::{Ctx, kind_words};
use super::{Site, operand_text, stage_name};
use crate::enums::{OperandModifier, RegisterFile, ResourceDimension, SamplerMode};
use crate::ir::{ExtendedOpcode, Operand};
use crate::opcode::{OpFlags, Opcode, OpcodeInfo, OperandSpec};

impl Ctx<'_, '_, '_> {
    /// `cb#[i]` (SM5.1: `CB#[slot][i]`).
    pub(super) fn constant_buffer(&mut self, site: Site, op: &Operand, text: &str) {
        let sm51 = self.version.is_sm51();
        let (slot, offset) = if sm51 {
            (op.indices.first(), op.indices.get(2))
        } else {
            (op.indices.first(), op.indices.get(1))
        };
        let (Some(slot), Some(offset)) = (slot, offset) else {
            self.error(
                site,
                format!("`{text}` needs a buffer and a vector index (`cb#[i]`)"),
                "missing index",
            );
            return;
        };
        if slot.relative().is_some() {
            return;
        }
        let n = slot.immediate() as u32;
        let Some(decl) = self.decls.constant_buffers.get(&n).copied() else {
            self.error(
                site,
                format!(
                    "`{text}` reads constant buffer {n}, which no `dcl_constantbuffer` declares"
                ),
                "undeclared constant buffer",
            );
            return;
        };
        if offset.relative().is_some() && !decl.dynamic {
            self.error(
                site,
                format!(
                    "`{text}` is indexed relatively, but `cb{n}` is declared `immediateIndexed`"
                ),
                "expected `dynamicIndexed`",
            );
            self.report.also(Site::Inst(decl.inst), "declared here");
        }
        if let Some(size) = decl.size
            && offset.immediate() >= size as u64
        {
            self.error(
                site,
                format!("`{text}` is out of range: `cb{n}` has {size} vectors"),
                "index out of range",
            );
            self.report.also(Site::Inst(decl.inst), "declared here");
        }
    }

    /// The resource (`t#`, `u#`, `g#`, `rasterizer`) or memory operand.
    pub(super) fn resource_operand(
        &mut self,
        i: usize,
        k: usize,
        op: &Operand,
        spec: OperandSpec,
        info: &OpcodeInfo,
    ) {
        let site = Site::Operand(i, k);
        if !self.resource_file(site, op, spec, info) {
            return;
        }
        if !stage_has_file(self.stage, op.file) {
            self.error(
                site,
                format!(
                    "a {} has no `{}` register",
                    stage_name(self.stage),
                    op.file.name()
                ),
                "not in this stage",
            );
            return;
        }
        if op.modifier != OperandModifier::None {
            self.error(
                site,
                format!("`{}` cannot carry a source modifier", operand_text(op)),
                "modifier on a resource",
            );
        }
        if op.file == RegisterFile::Rasterizer {
            return;
        }
        let Some(n) = self.resource_slot(site, op) else {
            return;
        };
        let table = match op.file {
            RegisterFile::Resource => &self.decls.resources,
            RegisterFile::UnorderedAccessView => &self.decls.uavs,
            _ => &self.decls.tgsm,
        };
        let Some(decl) = table.get(&n).copied() else {
            self.error(
                site,
                format!("`{}{n}` is used but not declared", op.file.name()),
                "undeclared resource",
            );
            return;
        };
        self.resource_range(site, op, n, decl);
        if !self.resource_kind(site, op, n, decl, info) {
            return;
        }
        self.resource_dimension(site, op, n, decl, info);
        self.indexable_tokens(i, op, n, decl);
    }

    /// The operand's register file is one the opcode takes there (SRV, UAV,
    /// shared memory, rasterizer); false after reporting it if not.
    fn resource_file(
        &mut self,
        site: Site,
        op: &Operand,
        spec: OperandSpec,
        info: &OpcodeInfo,
    ) -> bool {
        let f = info.flags;
        let allowed: Vec<(RegisterFile, bool)> = vec![
            (RegisterFile::Resource, f.contains(OpFlags::RES_SRV)),
            (
                RegisterFile::UnorderedAccessView,
                f.contains(OpFlags::RES_UAV),
            ),
            (
                RegisterFile::ThreadGroupSharedMemory,
                f.contains(OpFlags::RES_TGSM),
            ),
            (
                RegisterFile::Rasterizer,
                f.contains(OpFlags::RES_RASTERIZER),
            ),
        ];
        if allowed.iter().any(|&(file, ok)| ok && file == op.file) {
            return true;
        }
        let names: Vec<String> = allowed
            .iter()
            .filter(|(_, ok)| *ok)
            .map(|(file, _)| format!("`{}`", file.name()))
            .collect();
        self.error(
            site,
            format!(
                "`{}` takes {} here ({}), found `{}`",
                info.name,
                kind_words(spec.kind),
                names.join(", "),
                operand_text(op)
            ),
            format!("expected {}", names.join(" or ")),
        );
        false
    }

    /// The slot a resource operand names (SM5.1: the declaration's symbol
    /// id); `None` when there is none to look up: a missing index (reported),
    /// or a relative one (reported before shader model 5.1).
    fn resource_slot(&mut self, site: Site, op: &Operand) -> Option<u32> {
        let Some(index) = op.indices.first() else {
            self.error(
                site,
                format!("`{}` needs a register index", operand_text(op)),
                "missing index",
            );
            return None;
        };
        let sm51 = self.version.is_sm51();
        // SM5.1: the first index is the declaration's symbol id, the second
        // the register inside its range (which may be relative)
        if index.relative().is_some()
            || (!sm51 && op.indices.iter().any(|x| x.relative().is_some()))
        {
            if !sm51 {
                // "Relative addressing of srcResource is not permitted." (resinfo (sm4 - asm))
                self.error(
                    site,
                    format!(
                        "`{}`: resources cannot be indexed relatively before shader model 5.1",
                        operand_text(op)
                    ),
                    "relative resource index",
                );
            }
            return None;
        }
        Some(index.immediate() as u32)
    }

    /// SM5.1: an immediate register index lies inside the declared range.
    fn resource_range(&mut self, site: Site, op: &Operand, n: u32, decl: ResourceDecl) {
        if let (Some((lower, upper)), Some(at)) = (decl.range, op.indices.get(1))
            && at.relative().is_none()
            && !(lower..=upper).contains(&at.immediate())
        {
            self.error(
                site,
                format!(
                    "`{}` lies outside the declared range {}{n}[{lower}:{}]",
                    operand_text(op),
                    op.file.name().to_uppercase(),
                    if upper == u32::MAX as u64 {
                        "*".to_string()
                    } else {
                        upper.to_string()
                    }
                ),
                "register outside the range",
            );
            self.report.also(Site::Inst(decl.inst), "declared here");
        }
    }

    /// The resource is declared typed, raw or structured as the opcode
    /// needs; false after reporting it if not.
    fn resource_kind(
        &mut self,
        site: Site,
        op: &Operand,
        n: u32,
        decl: ResourceDecl,
        info: &OpcodeInfo,
    ) -> bool {
        let f = info.flags;
        let kind_ok = match decl.kind {
            ResourceKind::Typed(_) => f.contains(OpFlags::RES_TYPED),
            ResourceKind::Raw => f.contains(OpFlags::RES_RAW),
            ResourceKind::Structured(_) => f.contains(OpFlags::RES_STRUCTURED),
        };
        if kind_ok {
            return true;
        }
        let mut kinds = Vec::new();
        for (flag, word) in [
            (OpFlags::RES_TYPED, "typed"),
            (OpFlags::RES_RAW, "raw"),
            (OpFlags::RES_STRUCTURED, "structured"),
        ] {
            if f.contains(flag) {
                kinds.push(word);
            }
        }
        self.error(
            site,
            format!(
                "`{}` works on {} resources, but `{}{n}` is declared as {}",
                info.name,
                kinds.join(" or "),
                op.file.name(),
                decl.kind.describe()
            ),
            "wrong kind of resource",
        );
        self.report.also(Site::Inst(decl.inst), "declared here");
        false
    }

    /// A typed resource has a dimension the instruction's reference page
    /// accepts ([`dimension_rule`]).
    fn resource_dimension(
        &mut self,
        site: Site,
        op: &Operand,
        n: u32,
        decl: ResourceDecl,
        info: &OpcodeInfo,
    ) {
        if let ResourceKind::Typed(dim) = decl.kind
            && let Some((ok, what, page)) = dimension_rule(info.opcode, op.file, dim)
            && !ok
        {
            self.error(
                site,
                format!(
                    "`{}` needs {what}, but `{}{n}` is a {} ({page})",
                    info.name,
                    op.file.name(),
                    dim.name()
                ),
                "wrong resource dimension",
            );
            self.report.also(Site::Inst(decl.inst), "declared here");
        }
    }

    /// The `_indexable(dim[, stride])` token repeats the declaration.
    fn indexable_tokens(&mut self, i: usize, op: &Operand, n: u32, decl: ResourceDecl) {
        for ext in &self.program.instructions[i].extended {
            if let ExtendedOpcode::ResourceDim { dimension, stride } = ext {
                let (want, want_stride) = match decl.kind {
                    ResourceKind::Typed(d) => (d, 0),
                    ResourceKind::Raw => (ResourceDimension::RawBuffer, 0),
                    ResourceKind::Structured(s) => (ResourceDimension::StructuredBuffer, s),
                };
                if *dimension != want || *stride as u32 != want_stride {
                    self.error(
                        Site::Inst(i),
                        format!(
                            "`_indexable({}{})` does not match `{}{n}`, declared as {}",
                            dimension.name(),
                            if *stride != 0 {
                                format!(", stride={stride}")
                            } else {
                                String::new()
                            },
                            op.file.name(),
                            decl.kind.describe()
                        ),
                        "resource dimension differs from the declaration",
                    );
                    self.report.also(Site::Inst(decl.inst), "declared here");
                }
            }
        }
    }

    pub(super) fn sampler_operand(&mut self, site: Site, op: &Operand, info: &OpcodeInfo) {
        if op.file != RegisterFile::Sampler {
            self.error(
                site,
                format!(
                    "`{}` takes a sampler `s#` here, found `{}`",
                    info.name,
                    operand_text(op)
                ),
                "expected `s#`",
            );
            return;
        }
        let Some(index) = op.indices.first() else {
            return;
        };
        if index.relative().is_some() {
            if !self.version.is_sm51() {
                self.error(
                    site,
                    format!(
                        "`{}`: samplers cannot be indexed relatively before shader model 5.1",
                        operand_text(op)
                    ),
                    "relative sampler index",
                );
            }
            return;
        }
        let n = index.immediate() as u32;
        let Some(mode) = self.decls.samplers.get(&n).copied() else {
            self.error(
                site,
                format!("`s{n}` is used but no `dcl_sampler` declares it"),
                "undeclared sampler",
            );
            return;
        };
        // "The mode restricts the sample instructions that can be used" (dcl_sampler (sm4 - asm)):
        // comparison samplers serve SampleCmp*, default ones the rest, mono ones SampleLevel.
        let comparison_op = info.flags.contains(OpFlags::COMPARISON_SAMPLER);
        let problem = match mode {
            SamplerMode::Comparison if !comparison_op => Some(
                "is declared `mode_comparison`, which serves only the comparison ops (`sample_c`, `sample_c_lz`, `gather4_c` …)",
            ),
            SamplerMode::Default | SamplerMode::Mono if comparison_op => {
                Some("is not declared `mode_comparison`, which this comparison op needs")
            }
            SamplerMode::Mono if info.opcode != Opcode::SampleL => {
                Some("is declared `mode_mono`, which serves only `sample_l`")
            }
            _ => None,
        };
        if let Some(problem) = problem {
            self.error(
                site,
                format!("`{}`: sampler `s{n}` {problem}", info.name),
                "wrong sampler mode",
            );
        }
    }

    pub(super) fn label_operand(&mut self, site: Site, op: &Operand, opcode: Opcode) {
        let ok = match opcode {
            Opcode::Label => matches!(op.file, RegisterFile::Label | RegisterFile::FunctionBody),
            _ => op.file == RegisterFile::Label,
        };
        if !ok {
            self.error(
                site,
                format!(
                    "`{}` takes a label `l#`, found `{}`",
                    opcode.name(),
                    operand_text(op)
                ),
                "expected a label",
            );
            return;
        }
        if op.file == RegisterFile::FunctionBody
            && let Some(index) = op.indices.first()
            && !self
                .decls
                .function_bodies
                .contains_key(&(index.immediate() as u32))
        {
            self.error(
                site,
                format!(
                    "`label fb{}` defines a function body that no `dcl_function_body` declares",
                    index.immediate()
                ),
                "undeclared function body",
            );
        }
    }

    pub(super) fn stream_operand(&mut self, site: Site, op: &Operand) {
        if op.file != RegisterFile::Stream {
            self.error(
                site,
                format!("expected a stream `m#`, found `{}`", operand_text(op)),
                "expected `m#`",
            );
            return;
        }
        let Some(index) = op.indices.first() else {
            return;
        };
        let m = index.immediate() as u32;
        if !self.decls.streams.contains(&m) {
            self.error(
                site,
                format!("stream `m{m}` is used but no `dcl_stream` declares it"),
                "undeclared stream",
            );
        }
    }

    pub(super) fn interface_operand(&mut self, site: Site, op: &Operand) {
        if op.file != RegisterFile::Interface {
            self.error(
                site,
                format!(
                    "`fcall` takes an interface `fp#`, found `{}`",
                    operand_text(op)
                ),
                "expected `fp#`",
            );
            return;
        }
        let Some(index) = op.indices.first() else {
            return;
        };
        let n = index.immediate() as u32;
        match self.decls.interfaces.get(&n) {
            None => self.error(
                site,
                format!("interface `fp{n}` is used but no `dcl_interface` declares it"),
                "undeclared interface",
            ),
            Some(&size) => {
                if let Some(at) = op.indices.get(1)
                    && at.relative().is_none()
                    && size != 0
                    && at.immediate() >= size as u64
                {
                    self.error(
                        site,
                        format!(
                            "`{}` is out of range: `fp{n}` has {size} instances",
                            operand_text(op)
                        ),
                        "index out of range",
                    );
                }
            }
        }
    }
}

/// The resource dimensions an opcode accepts, from its reference page:
/// (accepted?, what it needs, the page).
fn dimension_rule(
    opcode: Opcode,
    file: RegisterFile,
    dim: ResourceDimension,
) -> Option<(bool, &'static str, &'static str)> {
    use Opcode as O;
    use ResourceDimension as D;
    let buffer = dim == D::Buffer;
    let ms = dim.is_multisampled();
    Some(match opcode {
        // "The source data may come from any Resource Type, other than Buffers" (sample_b);
        // multisampled textures are read with ldms
        O::Sample
        | O::SampleB
        | O::SampleC
        | O::SampleCLz
        | O::SampleL
        | O::SampleD
        | O::Lod
        | O::SampleLS
        | O::SampleCLzS
        | O::SampleClampS
        | O::SampleBClampS
        | O::SampleDClampS
        | O::SampleCClampS => (
            !buffer && !ms,
            "a texture that is neither a buffer nor multisampled",
            "sample (sm4 - asm)",
        ),
        // gather4 (sm4.1 - asm): Texture2D, Texture2DArray, TextureCube, TextureCubeArray
        O::Gather4 | O::Gather4C | O::Gather4S | O::Gather4CS => (
            matches!(
                dim,
                D::Texture2D | D::Texture2DArray | D::TextureCube | D::TextureCubeArray
            ),
            "a 2D or cube texture (or array)",
            "gather4 (sm4.1 - asm)",
        ),
        // gather4_po (sm5 - asm): Texture2D and Texture2DArray only
        O::Gather4Po | O::Gather4PoC | O::Gather4PoS | O::Gather4PoCS => (
            matches!(dim, D::Texture2D | D::Texture2DArray),
            "a 2D texture (or array)",
            "gather4_po (sm5 - asm)",
        ),
        // ldms (sm4.1 - asm): multisampled textures
        O::LdMs | O::LdMsS => (ms, "a multisampled texture", "ldms (sm4.1 - asm)"),
        // ld (sm4 - asm): not TextureCube, not multisampled (use ldms)
        O::Ld | O::LdS => (
            !ms && !matches!(dim, D::TextureCube | D::TextureCubeArray),
            "a buffer or a non-cube, non-multisampled texture",
            "ld (sm4 - asm)",
        ),
        // resinfo (sm4 - asm): "srcResource must be a t# or u# register that is not a Buffer"
        O::Resinfo => (!buffer, "a texture (not a buffer)", "resinfo (sm4 - asm)"),
        // bufinfo (sm5 - asm): buffers only
        O::BufInfo => (buffer, "a buffer", "bufinfo (sm5 - asm)"),
        // samplepos / sampleinfo (sm4.1 - asm): a multisampled texture (or the rasterizer)
        O::SamplePos | O::SampleInfo if file == RegisterFile::Resource => {
            (ms, "a multisampled texture", "samplepos (sm4.1 - asm)")
        }
        _ => return None,
    })
}
