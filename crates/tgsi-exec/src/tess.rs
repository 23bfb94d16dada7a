//! The tessellation stages: [`Program::run_tess_ctrl`] runs a TESS_CTRL
//! (hull) shader per patch, [`Program::run_tess_eval`] runs a TESS_EVAL
//! (domain) shader over a patch's domain points, and
//! [`PatchOutput::tess_eval_inputs`] links the two by semantic.
//!
//! Rules:
//! * TESS_CTRL: one invocation per output control point (TCS_VERTICES_OUT,
//!   1..=32), INVOCATIONID = its index, as the lanes of one patch (two
//!   batches past 16). `IN[cp][a]` reads the patch's input control points
//!   (VERTICESIN of them; rows past them read 0), PRIMID is the patch's id.
//!   Every OUT access goes to the patch's store, which the invocations
//!   share: 2-D `OUT[cp][a]` the per-control-point outputs, 1-D `OUT[a]` the
//!   per-patch ones (PATCH, TESSOUTER, TESSINNER). Writes land in lane order
//!   (of two lanes writing one entry in one instruction, the higher wins);
//!   a read sees every write made before it in the patch's execution order.
//!   BARRIER runs every batch of the patch up to its barrier before any goes
//!   on, so after it each invocation sees the others' outputs.
//! * The tessellation factors are the TESSOUTER (x, y, z, w = outer 0..3)
//!   and TESSINNER (x, y = inner 0, 1) outputs as floats.
//! * TESS_EVAL: one invocation per domain point of one patch; TESSCOORD is
//!   (u, v, w, 0), `IN[cp][a]` the control points, 1-D `IN[a]` the patch
//!   values; TESSOUTER / TESSINNER / PRIMID / VERTICESIN system values hold
//!   the factors, the id and the control-point count.

use super::decode::{MAX_PATCH_VERTICES, PATCH_ENTRIES_PER_REG};
use super::machine::{Batch, Env, Stop};
use super::{
    ExecError, LANES, Limits, Program, Resources, Stats, VertexOutputs, VertexRows,
    fill_subgroup_values, lanes_mask,
};
use super::{check_group_indices, run_to_end};
use tgsi_ir::enums::{Primitive, Processor, PropertyName, SemanticName};
use tgsi_ir::tess::{Domain, OutputPrimitive, Partitioning, Settings};

/// The patches a TESS_CTRL shader reads.
#[derive(Clone, Copy, Debug)]
pub struct PatchInput<'a> {
    /// Vertex `k`'s inputs: register a of vertex k is `IN[.][a]` (missing
    /// attributes read 0), four raw words each.
    pub vertices: VertexRows<'a>,
    /// For each patch, the indices (into `vertices`) of its
    /// `control_points` input control points.
    pub indices: &'a [u32],
    /// Input control points per patch (1..=32).
    pub control_points: usize,
    /// PRIMID of each patch (missing entries: the patch's position).
    pub primitive_ids: &'a [u32],
}

/// One patch's TESS_CTRL results.
#[derive(Clone, Debug, PartialEq)]
pub struct PatchOutput {
    /// `OUT[cp][k]` is `control_points[cp * outputs + k]`.
    pub control_points: Vec<[u32; 4]>,
    /// `OUT[k]` (the per-patch outputs) is `patch[k]`.
    pub patch: Vec<[u32; 4]>,
    /// TESSOUTER x..w and TESSINNER x, y as floats (0 when not written).
    pub outer: [f32; 4],
    pub inner: [f32; 2],
    pub primitive_id: u32,
}

/// What a TESS_CTRL run produced.
#[derive(Clone, Debug)]
pub struct TessCtrlOutput {
    /// OUT registers per control point (and per patch).
    pub outputs: usize,
    /// Output control points per patch (TCS_VERTICES_OUT).
    pub vertices_out: usize,
    pub patches: Vec<PatchOutput>,
    pub stats: Stats,
}

impl PatchOutput {
    /// `OUT[cp][..]` of control point `cp`.
    pub fn control_point(&self, cp: usize, outputs: usize) -> &[[u32; 4]] {
        self.control_points
            .get(cp * outputs..(cp + 1) * outputs)
            .unwrap_or(&[])
    }

    /// The inputs of TESS_EVAL shader `tes` from this patch of TESS_CTRL
    /// shader `tcs`, linked by semantic: a per-vertex input takes the
    /// per-control-point output of the same semantic, a patch input
    /// (PATCH, TESSOUTER, TESSINNER, PRIM_ID) the per-patch output; inputs
    /// without a match read 0.
    pub fn tess_eval_inputs(&self, tcs: &Program, tes: &Program) -> TessEvalPatch {
        let outputs = tcs.code.output.len as usize;
        let vertices = self.control_points.len() / outputs.max(1);
        let tcs_out = tcs.output_semantics();
        let find = |name: SemanticName, index: u32| {
            tcs_out
                .iter()
                .find(|o| o.1 == name && o.2 == index)
                .map(|o| o.0 as usize)
        };
        let inputs = tes.code.input.len as usize;
        let mut control_points = vec![vec![[0u32; 4]; inputs]; vertices];
        let mut patch = vec![[0u32; 4]; inputs];
        for &(i, name, index) in &tes.code.input_semantics {
            let Some(k) = find(name, index) else { continue };
            let i = i as usize;
            if name.is_patch() {
                if let (Some(dst), Some(v)) = (patch.get_mut(i), self.patch.get(k)) {
                    *dst = *v;
                }
            } else {
                for (cp, row) in control_points.iter_mut().enumerate() {
                    if let (Some(dst), Some(v)) =
                        (row.get_mut(i), self.control_points.get(cp * outputs + k))
                    {
                        *dst = *v;
                    }
                }
            }
        }
        TessEvalPatch {
            control_points,
            patch,
            outer: self.outer,
            inner: self.inner,
            primitive_id: self.primitive_id,
        }
    }
}

/// What a TESS_EVAL shader reads for one patch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TessEvalPatch {
    /// `IN[cp][a]` is `control_points[cp][a]` (at most 32 control points).
    pub control_points: Vec<Vec<[u32; 4]>>,
    /// 1-D `IN[a]` (patch constants, TESSOUTER, TESSINNER) is `patch[a]`.
    pub patch: Vec<[u32; 4]>,
    /// For the TESSOUTER / TESSINNER system values.
    pub outer: [f32; 4],
    pub inner: [f32; 2],
    pub primitive_id: u32,
}

impl Program {
    /// The OUT registers declared with a semantic: (OUT index, name, index).
    pub fn output_semantics(&self) -> Vec<(u32, SemanticName, u32)> {
        self.code
            .frag_outputs
            .iter()
            .map(|o| (o.reg - self.code.output.base, o.semantic, o.index))
            .collect()
    }

    /// The IN registers declared with a semantic: (IN index, name, index).
    pub fn input_semantics(&self) -> &[(u32, SemanticName, u32)] {
        &self.code.input_semantics
    }

    /// A property's value (the last one when repeated).
    pub fn property(&self, name: PropertyName) -> Option<u32> {
        self.code
            .properties
            .iter()
            .find(|(n, _)| *n == name)
            .map(|p| p.1)
    }

    /// The tessellator settings a TESS_EVAL shader's properties give. The
    /// domain is TES_PRIM_MODE: TRIANGLES tri, QUADS quad, LINES isoline.
    /// TES_SPACING EQUAL (2, also when missing), FRACTIONAL_ODD (0) and
    /// FRACTIONAL_EVEN (1) are the integer, fractional_odd and
    /// fractional_even partitionings. TES_POINT_MODE gives points;
    /// otherwise isolines give lines and the other domains triangles,
    /// clockwise when TES_VERTEX_ORDER_CW is set.
    pub fn tessellator_settings(&self) -> Result<Settings, ExecError> {
        self.expect_processor(
            Processor::TessEval,
            "tessellator settings come from a tessellation-evaluation shader",
        )?;
        let mode = self.property(PropertyName::TesPrimMode);
        let domain = match mode.and_then(Primitive::from_u32) {
            Some(Primitive::Triangles) => Domain::Triangle,
            Some(Primitive::Quads) => Domain::Quad,
            Some(Primitive::Lines) => Domain::Isoline,
            _ => {
                return Err(ExecError::general(format!(
                    "TES_PRIM_MODE {}: the domain must be TRIANGLES (4), QUADS (7) or LINES (1)",
                    mode.map_or("missing".into(), |m| m.to_string())
                )));
            }
        };
        let partitioning = match self.property(PropertyName::TesSpacing).unwrap_or(2) {
            0 => Partitioning::FractionalOdd,
            1 => Partitioning::FractionalEven,
            2 => Partitioning::Integer,
            s => {
                return Err(ExecError::general(format!(
                    "TES_SPACING {s}: 0 (FRACTIONAL_ODD), 1 (FRACTIONAL_EVEN) or 2 (EQUAL)"
                )));
            }
        };
        let output = if self.property(PropertyName::TesPointMode).unwrap_or(0) != 0 {
            OutputPrimitive::Point
        } else if domain == Domain::Isoline {
            OutputPrimitive::Line
        } else if self.property(PropertyName::TesVertexOrderCw).unwrap_or(0) != 0 {
            OutputPrimitive::TriangleCw
        } else {
            OutputPrimitive::TriangleCcw
        };
        Ok(Settings::new(domain, partitioning, output))
    }

    /// Runs a TESS_CTRL shader on every patch of `input` (rules in the
    /// module docs).
    pub fn run_tess_ctrl(
        &self,
        res: &mut Resources,
        input: &PatchInput,
        limits: &Limits,
    ) -> Result<TessCtrlOutput, ExecError> {
        self.expect_processor(
            Processor::TessCtrl,
            "run_tess_ctrl needs a tessellation-control shader",
        )?;
        let c = input.control_points;
        if !(1..=MAX_PATCH_VERTICES as usize).contains(&c) {
            return Err(ExecError::general(format!(
                "{c} control points per patch: a patch has 1 to {MAX_PATCH_VERTICES}"
            )));
        }
        check_group_indices(input.indices, input.vertices.len(), c, "patch", || {
            format!("patches of {c} control points")
        })?;
        self.with_env(res, limits, None, |env| self.tess_ctrl_in(env, input))
    }

    fn tess_ctrl_in(&self, env: &Env, input: &PatchInput) -> Result<TessCtrlOutput, ExecError> {
        let code = &self.code;
        let c = input.control_points;
        let patches = input.indices.len() / c;
        let vertices_out = code.patch_rows as usize;
        let outputs = code.output.len as usize;
        let stride = code.input.len as usize;
        let batches = vertices_out.div_ceil(LANES);
        let mut states: Vec<Batch> = (0..batches).map(|_| Batch::new(code)).collect();
        let mut shared: Vec<u32> = Vec::new();
        let mut stats = Stats::default();
        let mut out = Vec::with_capacity(patches);
        let factor_regs = |name: SemanticName| {
            code.frag_outputs
                .iter()
                .find(|o| o.semantic == name)
                .map(|o| (o.reg - code.output.base) as usize)
        };
        let (outer_at, inner_at) = (
            factor_regs(SemanticName::TessOuter),
            factor_regs(SemanticName::TessInner),
        );
        for p in 0..patches {
            let id = input.primitive_ids.get(p).copied().unwrap_or(p as u32);
            for (k, b) in states.iter_mut().enumerate() {
                let n = (vertices_out - k * LANES).min(LANES);
                b.reset(code, lanes_mask(n));
                for row in 0..code.vertex_rows as usize {
                    for a in 0..stride {
                        let v = if row < c {
                            let at = input.indices[p * c + row] as usize;
                            input.vertices.get(at, a)
                        } else {
                            [0; 4]
                        };
                        b.regs[code.vertex_in.base as usize + row * stride + a] =
                            v.map(|x| [x; LANES]);
                    }
                }
                for sv in &code.system_values {
                    let name = sv.name;
                    match name {
                        SemanticName::InvocationId => {
                            b.set_system_value(code, name, |_, l| (k * LANES + l) as u32)
                        }
                        SemanticName::PrimId => b.set_system_value(code, name, |_, _| id),
                        SemanticName::VerticesIn => b.set_system_value(code, name, |_, _| c as u32),
                        _ => {}
                    }
                }
                fill_subgroup_values(code, b, env.system_values);
                code.trace_batch(b, |l| crate::trace::Identity::Primitive {
                    primitive: id,
                    invocation: (k * LANES + l) as u32,
                });
            }
            // run the batches to their barriers in turn; the patch store
            // follows the batch that runs
            let mut last: Option<usize> = None;
            loop {
                let mut all_ended = true;
                for k in 0..batches {
                    if states[k].ended {
                        continue;
                    }
                    if let Some(j) = last.filter(|&j| j != k) {
                        copy_patch_store(&mut states, j, k, code.patch);
                    }
                    last = Some(k);
                    let stop = states[k]
                        .run(code, env, &mut shared)
                        .map_err(|e| ExecError {
                            message: format!("patch {p}: {}", e.message),
                            ..e
                        })?;
                    if stop == Stop::Barrier {
                        all_ended = false;
                    }
                }
                if all_ended {
                    break;
                }
            }
            for b in &states {
                stats.account(b);
            }
            let store = &states[last.unwrap_or(0)];
            let entry = |e: usize| -> [u32; 4] {
                let r = &store.regs[code.patch.base as usize + e / PATCH_ENTRIES_PER_REG as usize];
                let k = e % PATCH_ENTRIES_PER_REG as usize;
                [r[0][k], r[1][k], r[2][k], r[3][k]]
            };
            let patch: Vec<[u32; 4]> = (0..outputs).map(entry).collect();
            let control_points: Vec<[u32; 4]> =
                (outputs..outputs * (1 + vertices_out)).map(entry).collect();
            let floats = |at: Option<usize>| at.map_or([0.0; 4], |k| patch[k].map(f32::from_bits));
            let (o, i) = (floats(outer_at), floats(inner_at));
            out.push(PatchOutput {
                control_points,
                patch,
                outer: o,
                inner: [i[0], i[1]],
                primitive_id: id,
            });
        }
        Ok(TessCtrlOutput {
            outputs,
            vertices_out,
            patches: out,
            stats,
        })
    }

    /// Runs a TESS_EVAL shader on the domain points `points` ((u, v, w)
    /// each, as the pipeline's tessellator gives them) of
    /// one patch. Returns `outputs[k][r]` = `OUT[r]` of point k.
    pub fn run_tess_eval(
        &self,
        res: &mut Resources,
        patch: &TessEvalPatch,
        points: &[[f32; 3]],
        limits: &Limits,
    ) -> Result<(VertexOutputs, Stats), ExecError> {
        let outputs = self.code.output.len as usize;
        let (flat, stats) = self.tess_eval_session(res, limits, |s| {
            let mut flat = Vec::new();
            s.run(patch, points, &mut flat)?;
            Ok(flat)
        })?;
        let rows = if outputs == 0 {
            vec![Vec::new(); points.len()]
        } else {
            flat.chunks(outputs).map(<[_]>::to_vec).collect()
        };
        Ok((rows, stats))
    }

    /// Runs `f` with a [`TessEvalSession`] of this TESS_EVAL shader: many
    /// patches in one environment (buffers and images are copied in once
    /// and written back once). Returns `f`'s result and what ran.
    pub fn tess_eval_session<R>(
        &self,
        res: &mut Resources,
        limits: &Limits,
        f: impl FnOnce(&mut TessEvalSession<'_>) -> Result<R, ExecError>,
    ) -> Result<(R, Stats), ExecError> {
        let code = &self.code;
        self.expect_processor(
            Processor::TessEval,
            "run_tess_eval needs a tessellation-evaluation shader",
        )?;
        self.with_env(res, limits, None, |env| {
            let mut session = TessEvalSession {
                program: self,
                env,
                batch: Batch::new(code),
                shared: Vec::new(),
                stats: Stats::default(),
            };
            let r = f(&mut session)?;
            Ok((r, session.stats))
        })
    }
}

/// A TESS_EVAL shader ready to run patch after patch
/// ([`Program::tess_eval_session`]).
pub struct TessEvalSession<'a> {
    program: &'a Program,
    env: &'a Env<'a>,
    batch: Batch,
    shared: Vec<u32>,
    stats: Stats,
}

impl TessEvalSession<'_> {
    /// Runs the shader on the domain points `points` of `patch`, appending
    /// every point's OUT registers to `out` (`output_count()` entries per
    /// point, in point order).
    pub fn run(
        &mut self,
        patch: &TessEvalPatch,
        points: &[[f32; 3]],
        out: &mut Vec<[u32; 4]>,
    ) -> Result<(), ExecError> {
        let code = &self.program.code;
        if patch.control_points.len() > MAX_PATCH_VERTICES as usize {
            return Err(ExecError::general(format!(
                "{} control points: a patch has at most {MAX_PATCH_VERTICES}",
                patch.control_points.len()
            )));
        }
        let stride = code.input.len as usize;
        let b = &mut self.batch;
        // the control points, the same for every lane and every batch (a
        // reset leaves them)
        for row in 0..code.vertex_rows as usize {
            for a in 0..stride {
                let v = patch
                    .control_points
                    .get(row)
                    .and_then(|cp| cp.get(a))
                    .copied()
                    .unwrap_or([0; 4]);
                b.regs[code.vertex_in.base as usize + row * stride + a] = v.map(|x| [x; LANES]);
            }
        }
        let outer = patch.outer.map(f32::to_bits);
        let inner = [patch.inner[0].to_bits(), patch.inner[1].to_bits(), 0, 0];
        let outputs = code.output.len as usize;
        super::check_stage_output(
            out.len() + points.len() * outputs,
            "tessellation-evaluation shader",
        )?;
        out.reserve(points.len() * outputs);
        for first in (0..points.len()).step_by(LANES) {
            let n = (points.len() - first).min(LANES);
            b.reset(code, lanes_mask(n));
            for a in 0..stride {
                let v = patch.patch.get(a).copied().unwrap_or([0; 4]);
                b.regs[code.input.base as usize + a] = v.map(|x| [x; LANES]);
            }
            let coord = |c: usize, l: usize| -> u32 {
                match points.get(first + l) {
                    Some(p) if c < 3 => p[c].to_bits(),
                    _ => 0,
                }
            };
            for sv in &code.system_values {
                let name = sv.name;
                match name {
                    SemanticName::TessCoord => b.set_system_value(code, name, coord),
                    SemanticName::TessOuter => b.set_system_value(code, name, |c, _| outer[c]),
                    SemanticName::TessInner => b.set_system_value(code, name, |c, _| inner[c]),
                    SemanticName::PrimId => {
                        b.set_system_value(code, name, |_, _| patch.primitive_id)
                    }
                    SemanticName::VerticesIn => {
                        b.set_system_value(code, name, |_, _| patch.control_points.len() as u32)
                    }
                    _ => {}
                }
            }
            fill_subgroup_values(code, b, self.env.system_values);
            code.trace_batch(b, |l| crate::trace::Identity::Domain {
                primitive: patch.primitive_id,
                coord: points.get(first + l).copied().unwrap_or([f32::NAN; 3]),
            });
            run_to_end(
                b,
                code,
                self.env,
                &mut self.shared,
                "tessellation-evaluation",
                || format!("domain points {first}..{}", first + n),
            )?;
            self.stats.account(b);
            for l in 0..n {
                for k in 0..outputs {
                    let reg = &b.regs[code.output.base as usize + k];
                    out.push([reg[0][l], reg[1][l], reg[2][l], reg[3][l]]);
                }
            }
        }
        Ok(())
    }
}

/// Copies the patch store of batch `from` into batch `to`.
fn copy_patch_store(states: &mut [Batch], from: usize, to: usize, range: super::decode::FileRange) {
    let r = range.base as usize..(range.base + range.len) as usize;
    let (src, dst) = if from < to {
        let (a, b) = states.split_at_mut(to);
        (&a[from], &mut b[0])
    } else {
        let (a, b) = states.split_at_mut(from);
        (&b[0], &mut a[to])
    };
    dst.regs[r.clone()].copy_from_slice(&src.regs[r]);
}
