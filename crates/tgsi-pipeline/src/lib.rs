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
//! * `colors.rs` owns a band's rows of a colour target (texel addressing
//!   and conversion) and the output merge of shaded fragments into them.
//! * `quad.rs` owns `draw quad` under render state (the quad's inputs,
//!   then the output merger of a draw).
//! * `resolve.rs` owns the multisample resolve (each pixel the average of
//!   its samples).
//! * `tessellator.rs` owns Direct3D 11's fixed-function tessellator.
//! * `stages.rs` owns the tessellation and geometry stages of a draw (the
//!   stream → hull → tessellator → domain → geometry → stream chain, the
//!   linking between stages by semantic) and [`draw_with`], the draw with
//!   every stage.

mod blank;
mod colors;
mod draw;
mod early_depth;
mod index_values;
pub mod input;
pub mod merge;
mod project;
mod quad;
pub mod raster;
pub mod resolve;
mod reuse;
pub mod setup;
pub mod stages;
pub mod state;
pub mod tessellator;

pub use draw::rasterize;
pub use input::{
    DrawCall, InputRate, Primitive, PrimitiveKind, Primitives, RESTART, ValueKind, VertexBuffer,
    VertexElement, VertexFormat, VertexInput, VertexStream, shade_vertices,
};
pub use merge::{DepthFormat, DepthTarget};
pub use quad::draw_quad;
pub use setup::{Linkage, OutputLayout};
pub use stages::{Shaders, Stage, StageInterface, draw_with, geometry_stream, tessellate_stream};
pub use state::{
    BasicTopology, BlendFactor, BlendOp, BlendState, ClearOnLoad, CompareFunc, CullMode,
    DepthState, FrontFace, Rect, RenderState, StencilFace, StencilOp, StencilState, Topology,
    Viewport,
};

use tgsi_exec::texture::Texture;
use tgsi_exec::{ExecError, Limits, Program, Resources, Stats};

/// Draws with a vertex and a fragment shader that read the same
/// resources: [`shade_vertices`] then [`rasterize`], the fragment inputs
/// linked to the vertex outputs by semantic. [`draw_with`] adds the
/// tessellation and geometry stages.
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
    let shaders = Shaders::new(Stage::new(vs), Stage::new(fs));
    draw_with(&shaders, res, input, call, state, colors, depth, limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi_exec::texture::Format;
    use tgsi_ir::enums::TextureTarget;

    /// Assembles and compiles a test shader.
    pub(crate) fn program(text: &str) -> Program {
        let (shader, _) = tgsi_text::assemble(text).unwrap_or_else(|e| panic!("{e}"));
        Program::compile(&shader).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Source-alpha blending into target 0 and a written LessEqual depth test.
    pub(crate) fn blended_depth_state() -> RenderState {
        let mut state = RenderState::default();
        state.blend[0] = BlendState {
            enabled: true,
            src: BlendFactor::SrcAlpha,
            dst: BlendFactor::InvSrcAlpha,
            ..BlendState::default()
        };
        state.depth = DepthState {
            enabled: true,
            func: CompareFunc::LessEqual,
            write: true,
        };
        state
    }

    /// Runs the vertex stage of `call` with no resources and default limits.
    pub(crate) fn shade(
        vs: &Program,
        input: &VertexInput,
        call: &DrawCall<'_>,
    ) -> (VertexStream, Stats) {
        shade_vertices(
            vs,
            &mut Resources::default(),
            input,
            call,
            false,
            false,
            &Limits::default(),
        )
        .unwrap()
    }

    /// Overlapping triangles with blending and depth over many tiles: the
    /// targets get the same bits whatever the thread count.
    #[test]
    fn any_thread_count_gives_the_same_bits() {
        let vs = program(
            "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
             0: MOV OUT[0], IN[0]\n1: MOV OUT[1], IN[1]\n2: END\n",
        );
        let fs = program(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
             0: MOV OUT[0], IN[0]\n1: END\n",
        );
        let f = |v: f32| v.to_bits();
        let mut rows = Vec::new();
        for k in 0..12 {
            let t = k as f32 * 0.37;
            for (x, y) in [
                (t.sin(), t.cos()),
                (-t.cos(), 0.3 * t.sin()),
                (0.5 * t.cos(), -t.sin()),
            ] {
                let w = 1.0 + 0.5 * (k % 3) as f32;
                rows.push(vec![
                    [f(x * w), f(y * w), f(0.1 * k as f32 * w / 1.5), f(w)],
                    [f(x.abs()), f(y.abs()), f(0.25), f(0.5)],
                ]);
            }
        }
        let input = VertexInput::from_rows(&rows);
        let call = DrawCall::vertices(
            Topology::Basic(BasicTopology::TriangleList),
            rows.len() as u32,
        );
        let state = blended_depth_state();
        let run = |threads: usize| {
            let mut colors = vec![
                Texture::new(
                    TextureTarget::Tex2D,
                    Format::Rgba8Unorm,
                    [37, 29, 1],
                    1,
                    1,
                    1,
                )
                .unwrap(),
            ];
            let mut depth = DepthTarget::new(DepthFormat::D24S8, 37, 29, 1).unwrap();
            let limits = Limits {
                threads,
                ..Limits::default()
            };
            let mut res = Resources::default();
            draw(
                &vs,
                &fs,
                &mut res,
                &input,
                &call,
                &state,
                &mut colors,
                Some(&mut depth),
                &limits,
            )
            .unwrap();
            (colors.remove(0).levels.remove(0), depth.depth)
        };
        let one = run(1);
        assert!(one.0.iter().any(|b| *b != 0), "nothing was drawn");
        for threads in [2, 3, 8] {
            assert!(run(threads) == one, "{threads} threads differ");
        }
    }

    /// A flat colour drawn with 4 samples per pixel into targets of several
    /// formats: every covered sample holds the colour as the format
    /// converts it, every other one the clear (zeros), and some of each;
    /// the same samples in every format (RGBA8 targets write each pixel's
    /// samples side by side, the others sample by sample).
    #[test]
    fn multisampled_targets_get_the_colour_in_each_covered_sample() {
        let vs = program("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n");
        let fs = program(
            "FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {0.25, 0.5, 0.75, 1.0}\n\
             0: MOV OUT[0], IMM[0]\n1: END\n",
        );
        let f = |v: f32| v.to_bits();
        let rows: Vec<Vec<[u32; 4]>> = [(-0.9, -0.8), (0.85, -0.3), (-0.2, 0.9)]
            .iter()
            .map(|&(x, y)| vec![[f(x), f(y), f(0.5), f(1.0)]])
            .collect();
        let input = VertexInput::from_rows(&rows);
        let call = DrawCall::vertices(Topology::Basic(BasicTopology::TriangleList), 3);
        let colour = [0.25f32, 0.5, 0.75, 1.0].map(f32::to_bits);
        let mut first_samples: Option<Vec<bool>> = None;
        for format in [
            Format::Rgba8Unorm,
            Format::Rgba8Srgb,
            Format::Rgba16Float,
            Format::Rgba32Float,
            Format::R32Float,
        ] {
            let mut colors =
                vec![Texture::new(TextureTarget::Msaa2D, format, [23, 19, 1], 1, 1, 4).unwrap()];
            let mut res = Resources::default();
            let state = RenderState::default();
            draw(
                &vs,
                &fs,
                &mut res,
                &input,
                &call,
                &state,
                &mut colors,
                None,
                &Limits::default(),
            )
            .unwrap();
            let bpt = format.bytes_per_texel();
            let mut want = vec![0u8; bpt];
            format.encode_into(colour, &mut want);
            let (mut covered, mut clear) = (0, 0);
            let mut samples = Vec::new();
            for texel in colors[0].levels[0].chunks_exact(bpt) {
                if texel.iter().all(|b| *b == 0) {
                    clear += 1;
                } else {
                    assert_eq!(texel, &want[..], "{format:?}");
                    covered += 1;
                }
                samples.push(texel.iter().any(|b| *b != 0));
            }
            match &first_samples {
                None => first_samples = Some(samples),
                Some(first) => assert!(*first == samples, "{format:?}: other samples covered"),
            }
            assert!(
                covered > 100 && clear > 100,
                "{format:?}: {covered} / {clear}"
            );
        }
    }

    #[test]
    fn a_patch_list_without_tessellation_is_an_error() {
        let vs = program("VERT\nDCL OUT[0], POSITION\n0: END\n");
        let call = DrawCall::vertices(Topology::PatchList(3), 3);
        let e = shade_vertices(
            &vs,
            &mut Resources::default(),
            &VertexInput::default(),
            &call,
            false,
            false,
            &Limits::default(),
        )
        .unwrap_err();
        assert!(e.message.contains("tessellation"), "{}", e.message);
    }
}
