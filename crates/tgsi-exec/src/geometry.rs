//! The geometry stage: [`Program::run_geometry`] runs a GEOM shader once per
//! input primitive and invocation (GS_INVOCATIONS), [`LANES`] invocations per
//! batch, and collects what EMIT and ENDPRIM record into per-stream vertex
//! lists cut into strips.
//!
//! Rules (Direct3D 11's where TGSI leaves room):
//! * Lane `k` of the run is invocation `k % GS_INVOCATIONS` of primitive
//!   `k / GS_INVOCATIONS`; outputs come in that order (primitive by
//!   primitive, invocation by invocation, each invocation's vertices in
//!   emission order).
//! * EMIT copies the invocation's OUT registers as one vertex of the stream
//!   its operand names (per lane, 0..=3; no operand: stream 0); once an
//!   invocation has emitted GS_MAX_OUTPUT_VERTICES vertices (all streams
//!   together; missing property: 1024) further EMITs are dropped.
//! * ENDPRIM ends the invocation's current strip on its stream; the end of
//!   the invocation ends every strip. Strips keep every vertex; turning them
//!   into primitives (and dropping incomplete ones) is
//!   [`GeometryOutput::primitive_list`].
//! * PRIMID: the system value and an input declared with the PRIM_ID
//!   semantic (read 1-D or 2-D) both hold the primitive's id.

use super::decode::Code;
use super::machine::{Batch, Env};
pub use super::stage_state::Emits;
use super::stage_state::Event;
use super::{
    ExecError, LANES, Limits, Program, Resources, Stats, VertexRows, fill_subgroup_values,
    lanes_mask,
};
use super::{check_group_indices, run_to_end};
use tgsi_ir::enums::{Primitive, Processor, PropertyName, SemanticName};
use tgsi_ir::opcode::Opcode;

/// Vertex streams of a geometry shader.
pub const STREAMS: usize = 4;
/// Most vertices one invocation may emit (Direct3D 11's limit).
pub const MAX_OUTPUT_VERTICES: u32 = 1024;
/// Most invocations per primitive (Direct3D 11's limit).
pub const MAX_INVOCATIONS: u32 = 32;
use super::MAX_STAGE_OUTPUT_BYTES as MAX_OUTPUT_BYTES;

impl Batch {
    /// EMIT / ENDPRIM for the active lanes, in lane order.
    pub(super) fn geometry_op(
        &mut self,
        code: &Code,
        inst: &super::decode::Inst,
        env: &Env,
    ) -> Result<(), ExecError> {
        let streams = self.fetch(&inst.src[0], 1, env)[0];
        for l in 0..LANES {
            if self.exec & (1 << l) == 0 {
                continue;
            }
            let stream = streams[l];
            if stream as usize >= STREAMS {
                return Err(ExecError {
                    instruction: Some(self.pc),
                    message: format!(
                        "instruction {} ({}): stream {stream} in lane {l}; a geometry shader has streams 0 to 3",
                        self.pc, inst.op
                    ),
                });
            }
            let first_word = if inst.op == Opcode::EMIT {
                if self.emits.count[l] >= self.emits.max_vertices {
                    continue; // beyond GS_MAX_OUTPUT_VERTICES: dropped
                }
                self.emits.count[l] += 1;
                let first = self.emits.words.len() as u32;
                for k in 0..code.output.len {
                    let reg = &self.regs[(code.output.base + k) as usize];
                    self.emits
                        .words
                        .push([reg[0][l], reg[1][l], reg[2][l], reg[3][l]]);
                }
                Some(first)
            } else {
                None
            };
            self.emits.events.push(Event {
                lane: l as u8,
                stream: stream as u8,
                first_word,
            });
        }
        Ok(())
    }
}

/// The primitives a geometry shader reads.
#[derive(Clone, Copy, Debug)]
pub struct GeometryInput<'a> {
    /// Vertex `k`'s inputs: register a of vertex k is `IN[.][a]` (missing
    /// attributes read 0), four raw words each.
    pub vertices: VertexRows<'a>,
    /// For each primitive, the indices (into `vertices`) of its vertices, as
    /// many as GS_INPUT_PRIMITIVE has (adjacency included).
    pub indices: &'a [u32],
    /// PRIMID of each primitive (missing entries: the primitive's position).
    pub primitive_ids: &'a [u32],
}

/// A run of vertices one invocation emitted to a stream without ENDPRIM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strip {
    /// First vertex (index into the stream's vertices).
    pub first: u32,
    pub count: u32,
    /// The input primitive (its position in the input) and its PRIMID.
    pub primitive: u32,
    pub primitive_id: u32,
    /// The invocation (INVOCATIONID) that emitted it.
    pub invocation: u32,
}

/// One stream's vertices and strips.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeometryStream {
    /// Vertices emitted.
    pub vertices: u32,
    /// Vertex i's OUT registers are `words[i * outputs .. (i + 1) * outputs]`.
    pub words: Vec<[u32; 4]>,
    pub strips: Vec<Strip>,
}

/// What a geometry run produced.
#[derive(Clone, Debug)]
pub struct GeometryOutput {
    /// OUT registers per vertex.
    pub outputs: usize,
    /// GS_OUTPUT_PRIMITIVE (points, line strips or triangle strips).
    pub primitive: Primitive,
    pub streams: [GeometryStream; STREAMS],
    pub stats: Stats,
}

impl GeometryOutput {
    /// The OUT registers of vertex `i` of `stream`.
    pub fn vertex(&self, stream: usize, i: usize) -> &[[u32; 4]] {
        let w = &self.streams[stream].words;
        w.get(i * self.outputs..(i + 1) * self.outputs)
            .unwrap_or(&[])
    }

    /// Vertices per primitive of [`GeometryOutput::primitive_list`]: 1 for
    /// points, 2 for lines, 3 for triangles.
    pub fn vertices_per_primitive(&self) -> usize {
        match self.primitive {
            Primitive::Points => 1,
            Primitive::Lines | Primitive::LineStrip | Primitive::LineLoop => 2,
            _ => 3,
        }
    }

    /// The primitives of a stream's strips as a flat index list (vertex
    /// indices of the stream), strip by strip: points one by one; a line
    /// strip's segments (i, i+1); a triangle strip's triangles (i, i+1, i+2)
    /// for even i and (i, i+2, i+1) for odd i, so that every triangle keeps
    /// the winding and starts with its leading vertex. Strips too short for
    /// one primitive give nothing.
    pub fn primitive_list(&self, stream: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for s in &self.streams[stream].strips {
            self.strip_primitives(s, &mut out);
        }
        out
    }

    /// Appends the primitives of one strip to `out` as
    /// [`GeometryOutput::primitive_list`] makes them.
    pub fn strip_primitives(&self, s: &Strip, out: &mut Vec<u32>) {
        let f = s.first;
        match self.vertices_per_primitive() {
            1 => out.extend(f..f + s.count),
            2 => {
                for i in 1..s.count {
                    out.extend([f + i - 1, f + i]);
                }
            }
            _ => {
                for i in 2..s.count {
                    let k = f + i - 2;
                    if (i - 2) % 2 == 0 {
                        out.extend([k, k + 1, k + 2]);
                    } else {
                        out.extend([k, k + 2, k + 1]);
                    }
                }
            }
        }
    }
}

impl Program {
    /// Runs a geometry shader on the primitives of `input` (see the module
    /// docs for the rules).
    pub fn run_geometry(
        &self,
        res: &mut Resources,
        input: &GeometryInput,
        limits: &Limits,
    ) -> Result<GeometryOutput, ExecError> {
        let code = &self.code;
        self.expect_processor(Processor::Geometry, "run_geometry needs a geometry shader")?;
        let prop = |p: PropertyName| code.properties.iter().find(|(n, _)| *n == p).map(|x| x.1);
        let input_primitive = prop(PropertyName::GsInputPrimitive)
            .and_then(Primitive::from_u32)
            .filter(|p| p.vertices_per_primitive() > 0)
            .ok_or_else(|| {
                ExecError::general("the geometry shader has no usable GS_INPUT_PRIMITIVE")
            })?;
        let per_primitive = input_primitive.vertices_per_primitive() as usize;
        let primitive = prop(PropertyName::GsOutputPrimitive)
            .and_then(Primitive::from_u32)
            .unwrap_or(Primitive::TriangleStrip);
        let max_vertices = prop(PropertyName::GsMaxOutputVertices).unwrap_or(MAX_OUTPUT_VERTICES);
        if max_vertices > MAX_OUTPUT_VERTICES {
            return Err(ExecError::general(format!(
                "GS_MAX_OUTPUT_VERTICES {max_vertices}: an invocation emits at most {MAX_OUTPUT_VERTICES} vertices"
            )));
        }
        let invocations = prop(PropertyName::GsInvocations).unwrap_or(1).max(1);
        if invocations > MAX_INVOCATIONS {
            return Err(ExecError::general(format!(
                "GS_INVOCATIONS {invocations}: at most {MAX_INVOCATIONS} invocations per primitive"
            )));
        }
        check_group_indices(
            input.indices,
            input.vertices.len(),
            per_primitive,
            "primitive",
            || format!("{input_primitive} primitives of {per_primitive} vertices"),
        )?;
        let outputs = code.output.len as usize;
        let batch_worst = LANES * max_vertices as usize * outputs * 16;
        if batch_worst > MAX_OUTPUT_BYTES {
            return Err(ExecError::general(format!(
                "GS_MAX_OUTPUT_VERTICES {max_vertices} of {outputs} outputs: a batch could emit {batch_worst} bytes; the limit is {MAX_OUTPUT_BYTES}"
            )));
        }
        let primitives = input.indices.len() / per_primitive;
        self.with_env(res, limits, None, |env| {
            self.geometry_in(
                env,
                input,
                primitives,
                per_primitive,
                invocations,
                max_vertices,
            )
            .map(|(streams, stats)| GeometryOutput {
                outputs,
                primitive,
                streams,
                stats,
            })
        })
    }

    fn geometry_in(
        &self,
        env: &Env,
        input: &GeometryInput,
        primitives: usize,
        per_primitive: usize,
        invocations: u32,
        max_vertices: u32,
    ) -> Result<([GeometryStream; STREAMS], Stats), ExecError> {
        let code = &self.code;
        let inv = invocations as usize;
        let total = primitives * inv;
        let outputs = code.output.len as usize;
        let stride = code.input.len as usize;
        let primid_inputs: Vec<u32> = code
            .input_semantics
            .iter()
            .filter(|s| s.1 == SemanticName::PrimId)
            .map(|s| s.0)
            .collect();
        let mut b = Batch::new(code);
        b.emits.max_vertices = max_vertices;
        let mut shared: Vec<u32> = Vec::new();
        let mut streams: [GeometryStream; STREAMS] = Default::default();
        let mut stats = Stats::default();
        let mut output_words = 0usize;
        for first in (0..total).step_by(LANES) {
            let n = (total - first).min(LANES);
            b.reset(code, lanes_mask(n));
            let lane_primitive = |l: usize| (first + l) / inv;
            let primitive_id = |p: usize| input.primitive_ids.get(p).copied().unwrap_or(p as u32);
            // the vertex inputs, lane by lane (lanes past the end read 0)
            for row in 0..code.vertex_rows as usize {
                for a in 0..stride {
                    let reg = &mut b.regs[code.vertex_in.base as usize + row * stride + a];
                    for l in 0..LANES {
                        let v = if l < n && row < per_primitive {
                            let k = input.indices[lane_primitive(l) * per_primitive + row];
                            input.vertices.get(k as usize, a)
                        } else {
                            [0; 4]
                        };
                        for c in 0..4 {
                            reg[c][l] = v[c];
                        }
                    }
                }
            }
            for &a in &primid_inputs {
                let rows =
                    (0..code.vertex_rows).map(|r| code.vertex_in.base + r * stride as u32 + a);
                for r in std::iter::once(code.input.base + a).chain(rows) {
                    let reg = &mut b.regs[r as usize];
                    for l in 0..n {
                        let id = primitive_id(lane_primitive(l));
                        for row in reg.iter_mut() {
                            row[l] = id;
                        }
                    }
                }
            }
            for sv in &code.system_values {
                let name = sv.name;
                match name {
                    SemanticName::InvocationId => {
                        b.set_system_value(code, name, |_, l| ((first + l) % inv) as u32)
                    }
                    SemanticName::PrimId => b.set_system_value(code, name, |_, l| {
                        if l < n {
                            primitive_id(lane_primitive(l))
                        } else {
                            0
                        }
                    }),
                    _ => {}
                }
            }
            fill_subgroup_values(code, &mut b, env.system_values);
            code.trace_batch(&mut b, |l| crate::trace::Identity::Primitive {
                primitive: primitive_id(lane_primitive(l)),
                invocation: ((first + l) % inv) as u32,
            });
            run_to_end(&mut b, code, env, &mut shared, "geometry", || {
                format!("geometry invocations {first}..{}", first + n)
            })?;
            stats.account(&b);
            // each lane's emissions, in lane (= output) order
            for l in 0..n {
                let p = lane_primitive(l);
                let mut open: [Option<usize>; STREAMS] = [None; STREAMS];
                for e in b.emits.events.iter().filter(|e| e.lane as usize == l) {
                    let st = e.stream as usize;
                    let s = &mut streams[st];
                    let Some(w) = e.first_word else {
                        open[st] = None;
                        continue;
                    };
                    let w = w as usize;
                    s.words.extend_from_slice(&b.emits.words[w..w + outputs]);
                    match open[st] {
                        Some(k) => s.strips[k].count += 1,
                        None => {
                            s.strips.push(Strip {
                                first: s.vertices,
                                count: 1,
                                primitive: p as u32,
                                primitive_id: primitive_id(p),
                                invocation: ((first + l) % inv) as u32,
                            });
                            open[st] = Some(s.strips.len() - 1);
                        }
                    }
                    s.vertices += 1;
                }
            }
            output_words += b.emits.words.len();
            super::check_stage_output(output_words, "geometry shader")?;
        }
        Ok((streams, stats))
    }

    /// The primitive GS_OUTPUT_PRIMITIVE names (`None` outside GEOM shaders
    /// or without the property).
    pub fn geometry_output_primitive(&self) -> Option<Primitive> {
        (self.code.processor == Processor::Geometry)
            .then(|| self.property(PropertyName::GsOutputPrimitive))
            .flatten()
            .and_then(Primitive::from_u32)
    }
}
