//! The programmable stages between the vertex shader and the rasterizer,
//! and the draw that runs them all ([`draw_with`]):
//!
//! * [`tessellate_stream`]: the vertex stream's `patch list C` primitives →
//!   the TESS_CTRL (hull) shader per patch → the fixed-function tessellator
//!   per patch (a culled patch gives nothing) → the TESS_EVAL (domain)
//!   shader over the patch's domain points → a new [`VertexStream`] of the
//!   tessellator's points, lines or triangles, patch after patch, each
//!   primitive carrying the patch's PRIMID.
//! * [`geometry_stream`]: the stream's primitives (adjacency included) →
//!   the GEOM shader → the strips of stream 0 as points, lines or
//!   triangles (the other streams are not rasterized). An output primitive's
//!   PRIMID is what the shader wrote to a PRIM_ID output at its leading
//!   vertex, otherwise the input primitive's PRIMID.
//!
//! Each stage reads the previous one's outputs by semantic (name and index);
//! an input nothing writes reads 0. The last stage's outputs reach the
//! fragment shader through [`Linkage::by_semantics`]. Stages run one after
//! another, each over the whole draw in primitive order, so results do not
//! depend on the thread count (only the rasterizer uses threads).
//!
//! A [`Stage`] pairs a program with an optional [`StageInterface`]: how the
//! stage reads the draw's resources (a Direct3D shader binds its registers)
//! and what it tells the fixed-function stages beyond its TGSI (a Direct3D
//! hull shader's tessellator declarations, a Direct3D shader's cull
//! distances).

use super::draw::{Drawn, Targets, rasterize_after};
use super::input::{
    DrawCall, Primitive, PrimitiveKind, Primitives, VertexInput, VertexStream, shade_vertices,
};
use super::merge::DepthTarget;
use super::setup::{Linkage, OutputLayout};
use super::state::{RenderState, Topology};
use super::tessellator::{Settings, tessellate};
use tgsi_exec::budget::DrawBudget;
use tgsi_exec::texture::Texture;
use tgsi_exec::{
    ExecError, GeometryInput, Limits, PatchInput, Program, Resources, Stats, TessEvalPatch,
    VertexRows,
};
use tgsi_ir::enums::{PropertyName, SemanticName};
use tgsi_ir::tess::OutputPrimitive;

/// Most domain points (tessellation-evaluation invocations) one draw may
/// generate.
pub const MAX_DOMAIN_POINTS: u64 = 1 << 24;

/// What a stage needs beyond its TGSI program (implemented by the
/// Direct3D front end's shaders; TGSI shaders need none).
pub trait StageInterface {
    /// Runs `run` once with `res` arranged as the program reads it, and puts
    /// back what `run` wrote.
    fn with_resources(&self, res: &mut Resources, run: &mut dyn FnMut(&mut Resources));
    /// Where the program keeps what the rasterizer reads, when it is the
    /// last stage before the rasterizer.
    fn output_layout(&self, program: &Program) -> OutputLayout {
        OutputLayout::of(program)
    }
    /// The tessellator settings, when this (hull) shader declares them.
    fn tessellator_settings(&self) -> Option<Result<Settings, String>> {
        None
    }
    /// The source instruction an error of this stage's program came from,
    /// as its author wrote it (a Direct3D shader: the instruction the TGSI
    /// one the error names was lowered from), for the error's message;
    /// None when there is nothing to add.
    fn source_of(&self, _e: &ExecError) -> Option<String> {
        None
    }
}

/// One programmable stage of a draw.
#[derive(Clone, Copy)]
pub struct Stage<'a> {
    pub program: &'a Program,
    pub interface: Option<&'a dyn StageInterface>,
}

impl<'a> Stage<'a> {
    /// A stage that reads the resources as they are (a TGSI shader).
    pub fn new(program: &'a Program) -> Stage<'a> {
        Stage {
            program,
            interface: None,
        }
    }

    /// Runs `f` with the resources where this stage reads them; an error
    /// also names the source instruction it came from
    /// ([`StageInterface::source_of`]).
    pub fn run<T>(
        &self,
        res: &mut Resources,
        f: impl FnOnce(&mut Resources) -> Result<T, ExecError>,
    ) -> Result<T, ExecError> {
        let Some(i) = self.interface else {
            return f(res);
        };
        let mut f = Some(f);
        let mut out = None;
        i.with_resources(res, &mut |r| {
            if let Some(f) = f.take() {
                out = Some(f(r));
            }
        });
        let out = out.unwrap_or_else(|| {
            Err(ExecError::general(
                "the stage's resource binding did not run the stage",
            ))
        });
        out.map_err(|e| match i.source_of(&e) {
            Some(source) => ExecError {
                message: format!("{} (in {source})", e.message),
                ..e
            },
            None => e,
        })
    }

    /// The rasterizer's view of this stage's outputs.
    pub fn output_layout(&self) -> OutputLayout {
        match self.interface {
            Some(i) => i.output_layout(self.program),
            None => OutputLayout::of(self.program),
        }
    }
}

/// The shaders of a draw: a vertex and a fragment shader, optionally a
/// tessellation-control and a tessellation-evaluation shader (both or
/// neither) and a geometry shader.
#[derive(Clone, Copy)]
pub struct Shaders<'a> {
    pub vs: Stage<'a>,
    pub tcs: Option<Stage<'a>>,
    pub tes: Option<Stage<'a>>,
    pub gs: Option<Stage<'a>>,
    pub fs: Stage<'a>,
}

impl<'a> Shaders<'a> {
    /// A vertex and a fragment shader only.
    pub fn new(vs: Stage<'a>, fs: Stage<'a>) -> Shaders<'a> {
        Shaders {
            vs,
            tcs: None,
            tes: None,
            gs: None,
            fs,
        }
    }
}

/// Draws with every stage of `shaders`: vertex input and the vertex
/// shader, tessellation, the geometry shader, then [`crate::rasterize`] with the
/// fragment shader into `colors` and `depth`.
#[allow(clippy::too_many_arguments)]
pub fn draw_with(
    shaders: &Shaders<'_>,
    res: &mut Resources,
    input: &VertexInput,
    call: &DrawCall<'_>,
    state: &RenderState,
    colors: &mut [Texture],
    depth: Option<&mut DepthTarget>,
    limits: &Limits,
) -> Result<Stats, ExecError> {
    let tess = match (shaders.tcs, shaders.tes) {
        (Some(c), Some(e)) => Some((c, e)),
        (None, None) => None,
        (Some(_), None) => {
            return Err(ExecError::general(
                "a tessellation-control (hull) shader needs a tessellation-evaluation (domain) shader",
            ));
        }
        (None, Some(_)) => {
            return Err(ExecError::general(
                "a tessellation-evaluation (domain) shader needs a tessellation-control (hull) shader",
            ));
        }
    };
    if tess.is_some() && !matches!(call.topology, Topology::PatchList(_)) {
        return Err(ExecError::general(format!(
            "with tessellation shaders the topology must be a patch list, not `{}`",
            call.topology
        )));
    }
    let vs = shaders.vs;
    let keep_adjacency = shaders.gs.is_some() && tess.is_none();
    let (mut stream, mut stats) = vs.run(res, |r| {
        shade_vertices(
            vs.program,
            r,
            input,
            call,
            keep_adjacency,
            tess.is_some(),
            limits,
        )
    })?;
    // the stages before the fragments spend the draw's budget whole
    let budget = DrawBudget::new(limits.max_draw_instructions, 0);
    budget.spend(stats.batch_instructions)?;
    let mut layout = vs.output_layout();
    if let Some((tcs, tes)) = tess {
        let (s, st) = tessellate_stream(tcs, tes, res, &stream, &layout, limits)?;
        budget.spend(st.batch_instructions)?;
        stats.add(st);
        std::mem::replace(&mut stream, s).recycle();
        layout = tes.output_layout();
    }
    if let Some(gs) = shaders.gs {
        let (s, st) = geometry_stream(gs, res, &stream, &layout, limits)?;
        budget.spend(st.batch_instructions)?;
        stats.add(st);
        std::mem::replace(&mut stream, s).recycle();
        layout = gs.output_layout();
    }
    let fs = shaders.fs;
    let linkage = Linkage::by_semantics(&layout, fs.program);
    let st = fs.run(res, |r| {
        let drawn = Drawn {
            stream: &stream,
            layout: &layout,
        };
        let targets = Targets { colors, depth };
        rasterize_after(
            drawn, &linkage, fs.program, r, state, targets, limits, &budget,
        )
    })?;
    stream.recycle();
    stats.add(st);
    Ok(stats)
}

/// For each IN register of `next`, the output register of the previous
/// stage (laid out as `layout`) with the same semantic name and index.
fn link_inputs(layout: &OutputLayout, next: &Program) -> Vec<Option<usize>> {
    let mut map = Vec::new();
    for &(reg, name, index) in next.input_semantics() {
        let reg = reg as usize;
        if map.len() <= reg {
            map.resize(reg + 1, None);
        }
        map[reg] = layout
            .semantics
            .iter()
            .find(|s| s.1 == name && s.2 == index)
            .map(|s| s.0);
    }
    map
}

/// Every vertex of `stream` as the IN registers of `next`: vertex k's
/// register a at `k * map.len() + a`.
fn linked_vertices(stream: &VertexStream, map: &[Option<usize>]) -> Vec<[u32; 4]> {
    let count = vertex_count(stream);
    let mut words = Vec::with_capacity(count * map.len());
    for k in 0..count {
        let v = stream.vertex(k as u32);
        words.extend(
            map.iter()
                .map(|m| m.and_then(|r| v.get(r).copied()).unwrap_or([0; 4])),
        );
    }
    words
}

/// How many vertices `stream` holds (with no outputs: as many as its
/// indices name).
fn vertex_count(stream: &VertexStream) -> usize {
    match stream.outputs.len().checked_div(stream.stride) {
        Some(n) => n,
        None => stream
            .indices
            .iter()
            .map(|&i| i as usize + 1)
            .max()
            .unwrap_or(0),
    }
}

/// The vertex indices of every primitive of `stream` in order, with each
/// primitive's PRIMID; an error when a primitive is not a `kind`.
fn primitive_indices(
    stream: &VertexStream,
    fits: impl Fn(PrimitiveKind) -> bool,
    what: &str,
) -> Result<(Vec<u32>, Vec<u32>), ExecError> {
    let mut indices = Vec::with_capacity(stream.indices.len());
    let mut ids = Vec::with_capacity(stream.primitives.len());
    for p in stream.primitives.iter() {
        if !fits(p.kind) {
            return Err(ExecError::general(format!(
                "{what} cannot read {} primitives",
                kind_name(p.kind)
            )));
        }
        indices.extend_from_slice(stream.primitive_vertices(&p));
        ids.push(p.id);
    }
    Ok((indices, ids))
}

fn kind_name(kind: PrimitiveKind) -> String {
    match kind {
        PrimitiveKind::Point => "point".into(),
        PrimitiveKind::Line => "line".into(),
        PrimitiveKind::Triangle => "triangle".into(),
        PrimitiveKind::LineAdj => "line-with-adjacency".into(),
        PrimitiveKind::TriangleAdj => "triangle-with-adjacency".into(),
        PrimitiveKind::Patch(n) => format!("{n}-control-point patch"),
    }
}

/// The tessellation stages over every patch of `stream` (whose outputs are
/// laid out as `layout`): see the module docs. The tessellator settings
/// come from the hull shader's interface when it declares them, otherwise
/// from the TESS_EVAL shader's properties.
pub fn tessellate_stream(
    tcs: Stage<'_>,
    tes: Stage<'_>,
    res: &mut Resources,
    stream: &VertexStream,
    layout: &OutputLayout,
    limits: &Limits,
) -> Result<(VertexStream, Stats), ExecError> {
    let control_points = match stream.primitives.first().map(|p| p.kind) {
        Some(PrimitiveKind::Patch(c)) => c as usize,
        Some(k) => {
            return Err(ExecError::general(format!(
                "the tessellation stages read patches, not {} primitives",
                kind_name(k)
            )));
        }
        None => 0,
    };
    let settings = match tcs.interface.and_then(|i| i.tessellator_settings()) {
        Some(s) => s.map_err(ExecError::general)?,
        None => tes.program.tessellator_settings()?,
    };
    let mut stats = Stats::default();
    let mut out = VertexStream {
        stride: tes.program.output_count(),
        ..VertexStream::default()
    };
    if control_points == 0 {
        return Ok((out, stats));
    }
    let (indices, ids) = primitive_indices(
        stream,
        |k| k == PrimitiveKind::Patch(control_points as u32),
        "a patch list of one control-point count",
    )?;
    let map = link_inputs(layout, tcs.program);
    let words = linked_vertices(stream, &map);
    let count = vertex_count(stream);
    let patches = tcs.run(res, |r| {
        tcs.program.run_tess_ctrl(
            r,
            &PatchInput {
                vertices: VertexRows::Flat {
                    words: &words,
                    stride: map.len(),
                    count,
                },
                indices: &indices,
                control_points,
                primitive_ids: &ids,
            },
            limits,
        )
    })?;
    stats.add(patches.stats);
    let link = TessLink::new(tcs.program, tes.program);
    let mut vertices = 0u32;
    let (_, st) = tes.run(res, |r| {
        tes.program.tess_eval_session(r, limits, |session| {
            let mut patch = TessEvalPatch::default();
            let mut points = 0u64;
            for (p, po) in patches.patches.iter().enumerate() {
                let Some(t) = tessellate(&settings, &po.outer, &po.inner) else {
                    continue; // culled
                };
                points += t.points.len() as u64;
                if points > MAX_DOMAIN_POINTS {
                    return Err(ExecError::general(format!(
                        "the draw's patches generate more than {MAX_DOMAIN_POINTS} domain points"
                    )));
                }
                link.fill(po, patches.outputs, patches.vertices_out, &mut patch);
                let base = vertices;
                vertices += t.points.len() as u32;
                session
                    .run(&patch, &t.points, &mut out.outputs)
                    .map_err(|e| ExecError {
                        message: format!("patch {p}: {}", e.message),
                        ..e
                    })?;
                let kind = match t.primitive {
                    OutputPrimitive::Point => PrimitiveKind::Point,
                    OutputPrimitive::Line => PrimitiveKind::Line,
                    _ => PrimitiveKind::Triangle,
                };
                let instance = stream.primitives.get(p).map_or(0, |q| q.instance);
                for prim in t.indices.chunks_exact(kind.vertices()) {
                    out.primitives.push(Primitive {
                        kind,
                        first: out.indices.len() as u32,
                        id: po.primitive_id,
                        instance,
                    });
                    out.indices.extend(prim.iter().map(|i| base + i));
                }
            }
            Ok(())
        })
    })?;
    stats.add(st);
    Ok((out, stats))
}

/// Where each TESS_EVAL input comes from in a TESS_CTRL patch: by
/// semantic, a per-patch input (PATCH, TESSOUTER, TESSINNER, PRIM_ID) from
/// the per-patch outputs, any other from the per-control-point outputs.
struct TessLink {
    inputs: usize,
    /// (TES input, TCS output, per patch)
    pairs: Vec<(usize, usize, bool)>,
}

impl TessLink {
    fn new(tcs: &Program, tes: &Program) -> TessLink {
        let outs = tcs.output_semantics();
        let mut pairs = Vec::new();
        let mut inputs = 0;
        for &(i, name, index) in tes.input_semantics() {
            inputs = inputs.max(i as usize + 1);
            if let Some(o) = outs.iter().find(|o| o.1 == name && o.2 == index) {
                pairs.push((i as usize, o.0 as usize, name.is_patch()));
            }
        }
        TessLink { inputs, pairs }
    }

    /// Fills `patch` (reusing its buffers) with the TES inputs of `po`.
    fn fill(
        &self,
        po: &tgsi_exec::PatchOutput,
        outputs: usize,
        vertices_out: usize,
        patch: &mut TessEvalPatch,
    ) {
        patch.control_points.resize_with(vertices_out, Vec::new);
        for row in &mut patch.control_points {
            row.clear();
            row.resize(self.inputs, [0; 4]);
        }
        patch.patch.clear();
        patch.patch.resize(self.inputs, [0; 4]);
        for &(i, k, per_patch) in &self.pairs {
            if per_patch {
                patch.patch[i] = po.patch.get(k).copied().unwrap_or([0; 4]);
            } else {
                for (cp, row) in patch.control_points.iter_mut().enumerate() {
                    row[i] = po
                        .control_points
                        .get(cp * outputs + k)
                        .copied()
                        .unwrap_or([0; 4]);
                }
            }
        }
        patch.outer = po.outer;
        patch.inner = po.inner;
        patch.primitive_id = po.primitive_id;
    }
}

/// The geometry shader over every primitive of `stream` (whose outputs
/// are laid out as `layout`): see the module docs.
pub fn geometry_stream(
    gs: Stage<'_>,
    res: &mut Resources,
    stream: &VertexStream,
    layout: &OutputLayout,
    limits: &Limits,
) -> Result<(VertexStream, Stats), ExecError> {
    let per_primitive = gs
        .program
        .property(PropertyName::GsInputPrimitive)
        .and_then(tgsi_ir::enums::Primitive::from_u32)
        .map(|p| p.vertices_per_primitive() as usize)
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            ExecError::general("the geometry shader has no usable GS_INPUT_PRIMITIVE")
        })?;
    let (indices, ids) = primitive_indices(
        stream,
        |k| !matches!(k, PrimitiveKind::Patch(_)) && k.vertices() == per_primitive,
        &format!("a geometry shader whose input primitive has {per_primitive} vertices"),
    )?;
    let map = link_inputs(layout, gs.program);
    let words = linked_vertices(stream, &map);
    let count = vertex_count(stream);
    let mut out = gs.run(res, |r| {
        gs.program.run_geometry(
            r,
            &GeometryInput {
                vertices: VertexRows::Flat {
                    words: &words,
                    stride: map.len(),
                    count,
                },
                indices: &indices,
                primitive_ids: &ids,
            },
            limits,
        )
    })?;
    let kind = match out.vertices_per_primitive() {
        1 => PrimitiveKind::Point,
        2 => PrimitiveKind::Line,
        _ => PrimitiveKind::Triangle,
    };
    let primid_output = gs
        .program
        .output_semantics()
        .iter()
        .find(|o| o.1 == SemanticName::PrimId)
        .map(|o| o.0 as usize);
    let stride = out.outputs;
    let mut result = VertexStream {
        outputs: std::mem::take(&mut out.streams[0].words),
        stride,
        indices: Vec::new(),
        primitives: Primitives::default(),
    };
    let strips = std::mem::take(&mut out.streams[0].strips);
    let per = kind.vertices();
    for s in &strips {
        let start = result.indices.len();
        out.strip_primitives(s, &mut result.indices);
        let instance = stream
            .primitives
            .get(s.primitive as usize)
            .map_or(0, |p| p.instance);
        for first in (start..result.indices.len()).step_by(per) {
            let leading = result.indices[first] as usize;
            let id = primid_output
                .and_then(|r| result.outputs.get(leading * stride + r))
                .map_or(s.primitive_id, |v| v[0]);
            result.primitives.push(Primitive {
                kind,
                first: first as u32,
                id,
                instance,
            });
        }
    }
    Ok((result, out.stats))
}

#[cfg(test)]
mod tests;
