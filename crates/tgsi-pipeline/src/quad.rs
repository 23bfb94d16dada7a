//! `draw quad` under render state: the fragment shader over every pixel of
//! the targets that the viewport and the scissor rectangle leave, with the
//! inputs of a [`Draw`] (shader_test.md's full-target quad), and each
//! fragment through the output merger of a draw: the depth/stencil test
//! (late: after the shader, with its depth output when it has one) and
//! blending, into targets of any format.
//!
//! The quad is front-facing and lies at clip depth 0.5: its depth is
//! MIN_DEPTH + 0.5 × (MAX_DEPTH − MIN_DEPTH) of the viewport (0.5 by
//! default), which is also the z of its POSITION input. One thread, one
//! sample per pixel: the runner's path for what the plain quad (the
//! fragment shader alone, [`tgsi_exec::Program::draw`]) does not do. Each
//! sample merges as a draw's late-tested fragments do
//! (`colors::merge_sample`, pixel history included).

use super::colors::{ColorRows, LateTest, merge_sample};
use super::draw::target_size;
use super::merge::{DepthStencilTest, DepthTarget};
use super::setup::{raster_rect, viewport_of};
use super::state::RenderState;
use tgsi_exec::budget::DrawBudget;
use tgsi_exec::fragment::lane_offset;
use tgsi_exec::texture::Texture;
use tgsi_exec::{
    Draw, ExecError, FragmentOutput, Limits, Program, Resources, Stats, TileCoverage, Varying,
};
use tgsi_ir::enums::SemanticName;

/// Runs `fs` on the quad `draw` into `colors` (and `depth`) under `state`;
/// the targets are `draw.width` × `draw.height` with one sample.
#[allow(clippy::too_many_arguments)]
pub fn draw_quad(
    fs: &Program,
    res: &mut Resources,
    draw: &Draw,
    state: &RenderState,
    colors: &mut [Texture],
    mut depth: Option<&mut DepthTarget>,
    limits: &Limits,
) -> Result<Stats, ExecError> {
    let (width, height) = (draw.width, draw.height);
    let (w, h, s) = target_size(colors, depth.as_deref())?;
    if (w, h, s) != (width, height, 1) {
        return Err(ExecError::general(format!(
            "the quad's targets are {w}x{h} with {s} samples; the quad is {width}x{height} with 1"
        )));
    }
    let viewport = viewport_of(state, width, height);
    let at_depth = (f64::from(viewport.min_depth)
        + 0.5 * (f64::from(viewport.max_depth) - f64::from(viewport.min_depth)))
        as f32;
    let mut quad = draw.clone();
    quad.varyings
        .retain(|v| v.semantic != SemanticName::Position);
    quad.varyings.push(Varying {
        semantic: SemanticName::Position,
        index: 0,
        plane: [[0.0; 3], [0.0; 3], [at_depth, 0.0, 0.0], [1.0, 0.0, 0.0]],
    });
    let test = depth
        .as_deref()
        .map(|d| DepthStencilTest::of_draw(d.format, state, &viewport));
    let direct3d = fs.is_direct3d();
    let target_count = colors.len();
    let mut rows = Vec::with_capacity(target_count);
    for t in colors.iter_mut() {
        let (format, pitch) = (t.format, width as usize * t.format.bytes_per_texel());
        let bytes = t
            .levels
            .first_mut()
            .and_then(|l| l.get_mut(..pitch * height as usize))
            .ok_or_else(|| ExecError::general("a render target smaller than its size"))?;
        rows.push(ColorRows::new(bytes, pitch, format, direct3d));
    }
    let [x0, y0, x1, y1] = raster_rect(state, width, height);
    let inside = |x: u32, y: u32| {
        let (x, y) = (i64::from(x), i64::from(y));
        x0 <= x && x < x1 && y0 <= y && y < y1
    };
    let watch = fs
        .code()
        .tracer
        .as_deref()
        .and_then(|t| t.watched_pixel().map(|p| (t, p)));
    let mut sink = |out: &FragmentOutput| {
        if out.coverage & 1 == 0 {
            return;
        }
        let late = match (&test, depth.as_deref_mut()) {
            (Some(test), Some(d)) => {
                let cell = (out.y * width + out.x) as usize;
                let (Some(z), Some(s)) = (d.depth.get_mut(cell), d.stencil.get_mut(cell)) else {
                    return;
                };
                Some(LateTest {
                    test,
                    depth: out.depth.unwrap_or(at_depth),
                    front: true,
                    stored_depth: z,
                    stored_stencil: s,
                })
            }
            _ => None,
        };
        let watched = watch
            .filter(|(_, p)| *p == (out.x, out.y))
            .map(|(t, _)| (t, 0));
        let at = (out.x, out.y, 0, 1);
        merge_sample(out, at, late, &mut rows, state, watched);
    };
    fs.fragment_session(res, limits, target_count, 1, None, |session| {
        let mut scratch = session.scratch(height);
        scratch.frag = fs.draw_inputs(&quad);
        let mut stats = Stats::default();
        let budget = DrawBudget::new(limits.max_draw_instructions, 0);
        let mut share = budget.share();
        for ty in 0..height.div_ceil(4) {
            for tx in 0..width.div_ceil(4) {
                let (tx0, ty0) = (tx * 4, ty * 4);
                let coverage = std::array::from_fn(|l| {
                    let (dx, dy) = lane_offset(l);
                    let (x, y) = (tx0 + dx, ty0 + dy);
                    u32::from(x < width && y < height && inside(x, y))
                });
                if coverage.iter().all(|c| *c == 0) {
                    continue;
                }
                let tile = TileCoverage {
                    x0: tx0,
                    y0: ty0,
                    coverage,
                };
                let st = session.shade_tile(&mut scratch, &tile, &mut sink)?;
                share.spend(st.batch_instructions)?;
                stats.add(st);
            }
        }
        share.settle()?;
        Ok(stats)
    })?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{CompareFunc, DepthState};
    use crate::tests::program;
    use crate::{DepthFormat, Rect};
    use tgsi_exec::texture::Format;
    use tgsi_ir::enums::TextureTarget;

    fn target(width: u32, height: u32) -> Texture {
        let size = [width, height, 1];
        Texture::new(TextureTarget::Tex2D, Format::Rgba32Float, size, 1, 1, 1).unwrap()
    }

    /// A quad draw spends the draw budget: it passes on its own count of
    /// instructions and fails on one fewer.
    #[test]
    fn a_quad_spends_the_draw_budget() {
        let fs = program(
            "FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {0.25, 0.5, 0.75, 1.0}\n\
             0: MOV OUT[0], IMM[0]\n1: END\n",
        );
        let draw = Draw::full_quad(10, 9);
        let run = |budget: u64| {
            let limits = Limits {
                max_draw_instructions: budget,
                ..Limits::default()
            };
            let mut colors = vec![target(10, 9)];
            let state = RenderState::default();
            let mut res = Resources::default();
            draw_quad(&fs, &mut res, &draw, &state, &mut colors, None, &limits)
        };
        // 3 x 3 tiles of two instructions
        let n = run(u64::MAX).unwrap().batch_instructions;
        assert_eq!(n, 18);
        assert!(run(n).is_ok());
        let e = run(n - 1).unwrap_err();
        assert!(e.message.contains("budget of 17 instructions"), "{e:?}");
    }

    /// The depth test takes the shader's depth output, not the quad's depth,
    /// and writes it; the scissor rectangle bounds the shaded pixels.
    #[test]
    fn a_depth_output_is_tested_and_written_inside_the_scissor() {
        let fs = program(
            "FRAG\nDCL OUT[0], COLOR\nDCL OUT[1], POSITION\nIMM[0] FLT32 {0.25, 0.5, 0.75, 1.0}\n\
             0: MOV OUT[0], IMM[0]\n1: MOV OUT[1].z, IMM[0].xxxx\n2: END\n",
        );
        let state = RenderState {
            depth: DepthState {
                enabled: true,
                func: CompareFunc::Less,
                write: true,
            },
            scissor: Some(Rect {
                x: 1,
                y: 2,
                width: 3,
                height: 2,
            }),
            ..RenderState::default()
        };
        let mut colors = vec![target(6, 5)];
        let mut depth = DepthTarget::new(DepthFormat::D32Float, 6, 5, 1).unwrap();
        // 0.25 passes against 0.3 where the quad's own 0.5 would not
        depth.clear(0.3, None);
        let draw = Draw::full_quad(6, 5);
        let limits = Limits::default();
        let mut res = Resources::default();
        let run = draw_quad(
            &fs,
            &mut res,
            &draw,
            &state,
            &mut colors,
            Some(&mut depth),
            &limits,
        );
        run.unwrap();
        for y in 0..5 {
            for x in 0..6 {
                let inside = (1..4).contains(&x) && (2..4).contains(&y);
                let want = if inside {
                    [0.25, 0.5, 0.75, 1.0]
                } else {
                    [0.0; 4]
                };
                let got = colors[0].texel(0, x, y, 0, 0).map(f32::from_bits);
                assert_eq!(got, want, "pixel ({x}, {y})");
                let d = depth.depth_at(x, y, 0).unwrap();
                assert_eq!(d, if inside { 0.25 } else { 0.3 }, "depth at ({x}, {y})");
            }
        }
        // a target of another size is refused
        let mut small = vec![target(2, 2)];
        let err = draw_quad(&fs, &mut res, &draw, &state, &mut small, None, &limits).unwrap_err();
        assert!(err.message.contains("2x2"), "{}", err.message);
    }
}
