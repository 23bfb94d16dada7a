//! The drawing pipeline (Direct3D 11's rules, `shader_test.md` "Drawing"):
//! vertex input → vertex shader → primitive assembly → [geometry and
//! tessellation stages] → clipping, perspective division and viewport →
//! rasterization → fragment shader → depth/stencil → blending.
//!
//! * `state.rs` owns the render state and its name tables (topologies,
//!   compare functions, stencil ops, blend factors and ops, culling).
//! * `input.rs` owns vertex buffers and elements, index data, the vertex
//!   shader run and primitive assembly, producing a [`VertexStream`]:
//!   shaded vertices plus primitives over them. Stages between the vertex
//!   shader and the rasterizer (geometry, tessellation) take a
//!   `VertexStream` and its [`OutputLayout`] and return new ones; points,
//!   lines and triangles are what [`rasterize`] accepts.
//! * `setup.rs` owns cull distances, clipping, projection, snapping,
//!   facing and culling, and the interpolation planes (plus the
//!   [`Linkage`] of vertex outputs to fragment inputs).
//! * `raster.rs` owns coverage (edge functions, points, lines, samples).
//! * `merge.rs` owns the depth/stencil target, the tests and blending.
//! * `draw.rs` owns the tile walk over threads and the per-fragment merge.

mod draw;
pub mod input;
pub mod merge;
pub mod raster;
pub mod setup;
pub mod state;

pub use draw::rasterize;
pub use input::{
    DrawCall, InputRate, Primitive, PrimitiveKind, ValueKind, VertexBuffer, VertexElement,
    VertexFormat, VertexInput, VertexStream, shade_vertices,
};
pub use merge::{DepthFormat, DepthTarget};
pub use setup::{Linkage, OutputLayout};
pub use state::{
    BasicTopology, BlendFactor, BlendOp, BlendState, CompareFunc, CullMode, DepthState, FrontFace,
    Rect, RenderState, StencilFace, StencilOp, StencilState, Topology, Viewport,
};

use crate::exec::{ExecError, Limits, Program, Resources, Stats};
use crate::texture::Texture;

/// Draws with a vertex and a fragment shader that read the same
/// resources: [`shade_vertices`] then [`rasterize`], the fragment inputs
/// linked to the vertex outputs by semantic.
#[allow(clippy::too_many_arguments)]
pub fn draw(
    vs: &Program,
    fs: &Program,
    res: &mut Resources,
    input: &VertexInput,
    call: &DrawCall<'_>,
    state: &RenderState,
    colors: &mut [Texture],
    depth: Option<&mut DepthTarget>,
    limits: &Limits,
) -> Result<Stats, ExecError> {
    let (stream, mut stats) = shade_vertices(vs, res, input, call, false, false, limits)?;
    let layout = OutputLayout::of(vs);
    let linkage = Linkage::by_semantics(&layout, fs);
    let s = rasterize(
        &stream, &layout, &linkage, fs, res, state, colors, depth, limits,
    )?;
    stats.batch_instructions += s.batch_instructions;
    stats.lane_instructions += s.lane_instructions;
    stats.invocations += s.invocations;
    Ok(stats)
}
