//! `draw quad`: the fragment shader over the targets with the quad's
//! inputs. Without render state it is the fragment shader alone
//! ([`tgsi_exec::Program::draw`]); with a depth or stencil test, blending,
//! a viewport or a scissor rectangle in force, each fragment goes through
//! the output merger of a draw ([`tgsi_pipeline::draw_quad`]).

use super::{Runner, Stage, TestRun};
use tgsi_exec::Draw;
use tgsi_pipeline::RenderState;

/// Whether `state` changes what a quad leaves in its targets: a depth or
/// stencil test, blending or a write mask, a viewport or a scissor
/// rectangle (`cull` and `front` do not: the quad faces front).
pub(super) fn merges(state: &RenderState) -> bool {
    state.depth.enabled
        || state.stencil.enabled
        || state.viewport.is_some()
        || state.scissor.is_some()
        || state
            .blend
            .iter()
            .any(|b| b.enabled || b.write_mask & 0xF != 0xF)
}

impl Runner<'_> {
    pub(super) fn draw_quad(
        &mut self,
        run: &mut TestRun,
        size: Option<[u32; 2]>,
        line: usize,
    ) -> Result<(), String> {
        let shader = self.program(Stage::Fragment, line)?;
        let at = self.at(line);
        let frame = &mut run.frame;
        let [width, height] = frame.quad_size(size).map_err(|e| format!("{at}: {e}"))?;
        let draw = match &shader.d3d {
            Some(d) => d.quad(width, height),
            None => Draw::full_quad(width, height),
        };
        let merged = merges(&run.render_state);
        let mut targets = frame
            .take([width, height])
            .map_err(|e| format!("{at}: {e}"))?;
        if let Some(device) = &self.config.vulkan {
            if merged {
                frame.put_back(targets);
                self.not_runnable = Some("draw quad under render state".into());
                return Err(format!("{at}: draw quad under render state"));
            }
            let ran =
                super::super::vulkan::draw_quad(device, &shader, &draw, &mut targets, &mut run.res);
            frame.put_back(targets);
            return ran.map_err(|e| {
                let message = format!("{at}: draw quad on Vulkan failed: {}", e.text());
                if let super::super::vulkan::Refused::NotRunnable(why) = e {
                    self.not_runnable = Some(why);
                }
                message
            });
        }
        let limits = &self.config.limits;
        let (res, state, depth) = (&mut run.res, &run.render_state, run.depth.as_mut());
        let result = self.guarded("draw", line, || {
            shader.run_bound(res, |r| {
                if merged {
                    let fs = &shader.program;
                    tgsi_pipeline::draw_quad(fs, r, &draw, state, &mut targets, depth, limits)
                } else {
                    shader.program.draw(r, &draw, &mut targets, limits)
                }
            })
        });
        frame.put_back(targets);
        result.map(|_| ())
    }
}
