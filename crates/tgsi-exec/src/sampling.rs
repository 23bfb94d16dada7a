//! The machine side of textures and images: fetches a texture or sampling
//! instruction's register sources, resource indices (per lane when the
//! SVIEW/SAMP operand is indirect) and texel offset, hands them to
//! [`texture::execute`], and stores the result through the destination's
//! writemask; and LOAD/STORE/atomics/RESQ on `IMAGE[n]` through
//! [`texture::image_op`].
//!
//! * Every stage may sample: outside the fragment stage implicit-LOD
//!   opcodes use LOD 0 (the texture engine's rule), and explicit-LOD ones
//!   work as anywhere.
//! * An indirect resource index that is negative reaches the engine as
//!   `u32::MAX` (an unbound slot: reads give zeros).
//! * Image reads run in every active lane (helpers included); STORE and
//!   atomics skip helper lanes. A LOAD's result is permuted by the swizzle
//!   of its IMAGE operand, as for buffers.

use super::decode::{Code, IndexExpr, Inst, TexInst};
use super::machine::{Batch, Env, Reg, ZERO_REG};
use super::{ExecError, LANES};
use crate::texture::exec::InlineBilinear;
use crate::texture::{self, Format, TexOp};
use tgsi_ir::enums::{Processor, TextureTarget};
use tgsi_ir::opcode::Opcode;

/// Whether `inst` is a sampling instruction compiled code may take
/// itself, as far as the instruction alone tells (its bindings decide the
/// rest: [`inline_bilinear`]): a TEX, SAMPLE or TXL of one source or a
/// SAMPLE_L of two, of any stage, with a direct view and sampler, no
/// offset and no rasterizer operand. The one rule the compiled engine's
/// planner and the interpreter's plans both read.
pub fn samples_inline(code: &Code, inst: &Inst) -> bool {
    let Some(t) = code.tex.get(inst.aux as usize) else {
        return false;
    };
    let sources = match inst.op {
        Opcode::TEX | Opcode::SAMPLE | Opcode::TXL => 1,
        Opcode::SAMPLE_L => 2,
        _ => return false,
    };
    let direct = t.sview.addr.is_none() && t.sampler.addr.is_none();
    direct && t.num_srcs == sources && t.offset.is_none() && !t.rasterizer
}

/// Whether `inst` is a fragment TEX or SAMPLE that [`samples_inline`],
/// under an environment with a stamp: the instructions
/// [`texture::exec::run_planned`] may run.
fn plannable(code: &Code, inst: &Inst, env: &Env) -> bool {
    code.processor == Processor::Fragment
        && matches!(inst.op, Opcode::TEX | Opcode::SAMPLE)
        && inlinable(code, inst, env)
}

/// The plan of a [`plannable`] instruction under `env`'s bindings.
fn sample_plan(code: &Code, inst: &Inst, env: &Env) -> Option<texture::exec::PlannedSample> {
    let t = code.tex.get(inst.aux as usize)?;
    let op = tex_op(inst, t, true);
    let index = |e: &IndexExpr| e.offset.max(0) as u32;
    texture::exec::plan_sample(&env.textures, &op, index(&t.sview), index(&t.sampler))
}

/// Whether `inst` [`samples_inline`] under an environment with a stamp.
fn inlinable(code: &Code, inst: &Inst, env: &Env) -> bool {
    env.stamp != 0 && samples_inline(code, inst)
}

/// How compiled code may sample for `inst` under `env` itself
/// ([`InlineBilinear`]), when the instruction is one it may sample (a fragment
/// TEX or SAMPLE of one source, or a TXL or SAMPLE_L of any stage, or a TEX
/// or SAMPLE of another stage; a direct
/// view and sampler, no offset; the sampler's filters both LINEAR, or both
/// NEAREST) and the view is one the compiled code reads. None: the
/// instruction runs by the interpreter's handler.
pub fn inline_bilinear<'a>(code: &Code, inst: &Inst, env: &Env<'a>) -> Option<InlineBilinear<'a>> {
    if !inlinable(code, inst, env) {
        return None;
    }
    let t = code.tex.get(inst.aux as usize)?;
    let op = tex_op(inst, t, code.processor == Processor::Fragment);
    let index = |e: &IndexExpr| e.offset.max(0) as u32;
    let plan = texture::exec::plan_inline(&env.textures, &op, index(&t.sview), index(&t.sampler))?;
    texture::exec::inline_bilinear(&env.textures, &plan)
}

impl Batch {
    pub(super) fn lane_indices(&self, e: &IndexExpr) -> [u32; super::LANES] {
        let mut out = [e.offset.max(0) as u32; super::LANES];
        if let Some(a) = e.addr {
            let row = &self.regs[a.reg as usize][(a.chan & 3) as usize];
            for (o, v) in out.iter_mut().zip(row) {
                let i = e.offset as i64 + *v as i32 as i64;
                *o = u32::try_from(i).unwrap_or(u32::MAX);
            }
        }
        out
    }

    fn resource_error(&self, inst: &Inst, msg: String) -> ExecError {
        ExecError {
            instruction: Some(self.pc),
            message: format!("instruction {} ({}): {msg}", self.pc, inst.op),
        }
    }

    /// Every texture and sampling opcode.
    pub(super) fn texture_op(
        &mut self,
        code: &Code,
        inst: &Inst,
        env: &Env,
    ) -> Result<(), ExecError> {
        let Some(t) = code.tex.get(inst.aux as usize) else {
            return Err(self.resource_error(inst, "texture details missing".into()));
        };
        if self.planned(code, inst, env) {
            let c0 = self.fetch(&inst.src[0], 0xF, env);
            let mut out = ZERO_REG;
            // the plan read where it is kept (a copy on the stack, stored a
            // field at a time, would stall the loads that read it)
            let plan = self.tex_plans[inst.aux as usize].1.as_ref();
            if let Some(plan) = plan
                && texture::exec::run_planned(&env.textures, plan, &c0, self.exec, &mut out)
            {
                self.store32(inst, out, inst.dst[0].mask);
                return Ok(());
            }
        }
        let n = t.num_srcs as usize;
        // the sources the opcode has (one, most often: no rows to zero)
        let (one, many);
        let srcs: &[Reg] = if n == 1 {
            one = [self.fetch(&inst.src[0], 0xF, env)];
            &one
        } else {
            let mut all = [ZERO_REG; 5];
            for (k, s) in all.iter_mut().enumerate().take(n) {
                *s = self.fetch(&inst.src[k], 0xF, env);
            }
            many = all;
            &many[..n]
        };
        if t.rasterizer {
            self.rasterizer_info(inst, srcs, env);
            return Ok(());
        }
        let sview = self.lane_indices(&t.sview);
        let sampler = self.lane_indices(&t.sampler);
        let fetched;
        let offsets: &Reg = match &t.offset {
            Some(o) => {
                fetched = self.fetch(o, 0x7, env);
                &fetched
            }
            None => &ZERO_REG,
        };
        let op = tex_op(inst, t, code.processor == Processor::Fragment);
        let mut out = ZERO_REG;
        let inputs = texture::TexInputs {
            srcs,
            sview: &sview,
            sampler: &sampler,
            offsets,
            active: self.exec,
        };
        texture::execute(&env.textures, &op, &inputs, &mut out)
            .map_err(|e| self.resource_error(inst, e))?;
        self.store32(inst, out, inst.dst[0].mask);
        Ok(())
    }

    /// The plan of a fragment TEX or SAMPLE of one source, a direct view
    /// and sampler and no offset under `env`'s bindings, made at its first
    /// run under them (an environment's stamp is unique to its bindings,
    /// which do not change while it lives).
    fn planned(&mut self, code: &Code, inst: &Inst, env: &Env) -> bool {
        if !plannable(code, inst, env) {
            return false;
        }
        let aux = inst.aux as usize;
        if self.tex_plans.len() <= aux {
            self.tex_plans.resize(aux + 1, (0, None));
        }
        if self.tex_plans[aux].0 == env.stamp {
            return self.tex_plans[aux].1.is_some();
        }
        let plan = sample_plan(code, inst, env);
        self.tex_plans[aux] = (env.stamp, plan);
        plan.is_some()
    }

    /// SAMPLE_INFO / SAMPLE_POS of the render target: the draw's samples per
    /// pixel (1 outside the fragment stage). SAMPLE_INFO gives (count, 0, 0,
    /// 0) as integers, SAMPLE_POS the position of sample `srcs[1].x` in [0, 1]
    /// from the pixel corner, as the sampler-view forms do.
    fn rasterizer_info(&mut self, inst: &Inst, srcs: &[Reg], env: &Env) {
        let count = env.frag.map_or(1, |f| f.samples);
        let mut out = ZERO_REG;
        for l in (0..LANES).filter(|&l| self.exec >> l & 1 == 1) {
            let v = if inst.op == Opcode::SAMPLE_INFO {
                [count, 0, 0, 0]
            } else {
                let idx = srcs.get(1).map_or(0, |s| s[0][l]);
                let (x, y) = texture::exec::sample_position(count, idx).unwrap_or((0.0, 0.0));
                [x.to_bits(), y.to_bits(), 0, 0]
            };
            for (c, w) in v.into_iter().enumerate() {
                out[c][l] = w;
            }
        }
        self.store32(inst, out, inst.dst[0].mask);
    }

    /// LOAD, STORE, atomics and RESQ on `IMAGE[index]`.
    pub(super) fn image_op(
        &mut self,
        inst: &Inst,
        env: &Env,
        index: u32,
        target: TextureTarget,
        format: Option<Format>,
    ) -> Result<(), ExecError> {
        let Some(img) = env.images.get(index as usize).and_then(|i| i.as_ref()) else {
            return Err(self.resource_error(inst, format!("IMAGE[{index}] is not bound")));
        };
        let format = format.unwrap_or(img.layout.format);
        let mut srcs: Vec<Reg> = Vec::with_capacity(3);
        let (active, dst_mask) = match inst.op {
            Opcode::LOAD => {
                srcs.push(self.fetch(&inst.src[1], 0xF, env));
                (self.exec, inst.dst[0].mask)
            }
            Opcode::STORE => {
                srcs.push(self.fetch(&inst.src[0], 0xF, env));
                srcs.push(self.fetch(&inst.src[1], 0xF, env));
                (self.exec & !self.helper, inst.dst[0].mask)
            }
            Opcode::RESQ => (self.exec, inst.dst[0].mask),
            op => {
                let last = if op == Opcode::ATOMCAS { 3 } else { 2 };
                for k in 1..=last {
                    srcs.push(self.fetch(&inst.src[k], 0xF, env));
                }
                (self.exec & !self.helper, inst.dst[0].mask)
            }
        };
        let mut out = ZERO_REG;
        texture::image_op(
            img, inst.op, target, format, &srcs, dst_mask, active, &mut out,
        )
        .map_err(|e| self.resource_error(inst, e))?;
        match inst.op {
            Opcode::STORE => {}
            Opcode::LOAD => {
                let swz = inst.src[0].swz;
                let v = [0, 1, 2, 3].map(|c| out[(swz[c] & 3) as usize]);
                self.store32(inst, v, 0xF);
            }
            _ => self.store(&inst.dst[0], &out, 0xF),
        }
        Ok(())
    }
}

/// The texture engine's view of texture instruction `inst` (details `t`).
fn tex_op(inst: &Inst, t: &TexInst, fragment: bool) -> TexOp {
    TexOp {
        opcode: inst.op,
        target: t.target,
        resource_swizzle: t.resource_swizzle,
        gather_component: t.gather_component,
        return_type: t.return_type,
        fragment,
    }
}
