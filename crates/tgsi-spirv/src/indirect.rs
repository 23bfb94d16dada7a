//! Instructions whose resource operand (`SVIEW`, `SAMP`, `IMAGE`,
//! `BUFFER`) has an indirect index: Vulkan binds each resource at its own
//! binding, so the instruction becomes a switch over the declared
//! resources of that file, each case the instruction with that resource
//! named directly (a second indirect operand switched the same way inside
//! it). An index naming no declared resource reads zeros and writes
//! nothing (the machine reads zeros from an unbound texture and stops
//! with an error on an unbound buffer or image).

use super::Error;
use super::module::Translator;
use rspirv::dr::Operand;
use rspirv::spirv::{SelectionControl, Word};
use tgsi_ir::enums::File;
use tgsi_ir::ir::{Index, Instruction, Register};

/// Where an instruction's first indirect resource operand is.
#[derive(Clone, Copy)]
enum Slot {
    Src(usize),
    Dst(usize),
}

fn is_resource(file: File) -> bool {
    matches!(
        file,
        File::SamplerView | File::Sampler | File::Image | File::Buffer
    )
}

impl Translator<'_> {
    /// Translates `inst` when one of its resource operands has an indirect
    /// index.
    pub(crate) fn indirect_resource(&mut self, inst: &Instruction) -> Result<Option<()>, Error> {
        let indirect = |r: &Register| is_resource(r.file) && r.index.indirect.is_some();
        let slot = inst
            .src
            .iter()
            .position(|s| indirect(&s.reg))
            .map(Slot::Src)
            .or_else(|| {
                inst.dst
                    .iter()
                    .position(|d| indirect(&d.reg))
                    .map(Slot::Dst)
            });
        let Some(slot) = slot else {
            return Ok(None);
        };
        let reg = match slot {
            Slot::Src(k) => inst.src[k].reg,
            Slot::Dst(k) => inst.dst[k].reg,
        };
        // the declared resources of the file: the cases
        let mut candidates: Vec<u32> = Vec::new();
        for d in self.shader.declarations().filter(|d| d.file == reg.file) {
            for n in d.first..=d.last {
                if !candidates.contains(&n) {
                    candidates.push(n);
                }
            }
        }
        let (index, _) = self.index_of(&reg)?;
        let (merge, default) = (self.b.id(), self.b.id());
        let cases: Vec<(u32, Word)> = candidates.iter().map(|&n| (n, self.b.id())).collect();
        sp!(self, self.b.selection_merge(merge, SelectionControl::NONE))?;
        let targets: Vec<(Operand, Word)> = cases
            .iter()
            .map(|&(n, label)| (Operand::LiteralBit32(n), label))
            .collect();
        sp!(self, self.b.switch(index, default, targets))?;
        for &(n, label) in &cases {
            sp!(self, self.b.begin_block(Some(label)))?;
            let mut direct = inst.clone();
            let named = match slot {
                Slot::Src(k) => &mut direct.src[k].reg,
                Slot::Dst(k) => &mut direct.dst[k].reg,
            };
            named.index = Index::direct(n as i32);
            self.instruction(&direct)?;
            sp!(self, self.b.branch(merge))?;
        }
        // no declared resource: zeros in the register destinations
        sp!(self, self.b.begin_block(Some(default)))?;
        let zeros = self.splat_bits(self.t.u4, 0);
        for d in inst.dst.iter().filter(|d| !is_resource(d.reg.file)) {
            self.store(d, zeros, 0xF)?;
        }
        sp!(self, self.b.branch(merge))?;
        sp!(self, self.b.begin_block(Some(merge)))?;
        Ok(Some(()))
    }
}
