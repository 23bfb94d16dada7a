//! `draw` and `draw indexed` through the whole pipeline (or a Vulkan
//! device), and the depth target they test against and `probe depth` /
//! `probe stencil` read.

use super::*;

impl Runner<'_> {
    /// The test's depth target, cleared (None without a `[depth target]`).
    pub(super) fn depth_target(&self) -> Result<Option<DepthTarget>, String> {
        let Some((line, format, [w, h])) = &self.depth_section else {
            return Ok(None);
        };
        let f = DepthFormat::from_name(format).ok_or_else(|| {
            format!(
                "{}: unknown depth format `{format}` (expected d32f, d24s8 or d16)",
                self.at(*line)
            )
        })?;
        let samples = self
            .render_targets
            .iter()
            .flatten()
            .map(|t| t.samples)
            .max()
            .unwrap_or(1);
        DepthTarget::new(f, *w, *h, samples)
            .map(Some)
            .map_err(|e| format!("{}: {e}", self.at(*line)))
    }

    /// `probe depth (X, Y) (d) [ulp U]` / `probe stencil (X, Y) S`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn probe_depth(
        &self,
        depth: Option<&DepthTarget>,
        stencil: bool,
        x: u32,
        y: u32,
        value: u64,
        ulp: u64,
        line: usize,
    ) -> Result<(), String> {
        let at = self.at(line);
        let Some(t) = depth else {
            return Err(format!(
                "{at}: probe failed: there is no [depth target] above this test"
            ));
        };
        let outside = || {
            format!(
                "{at}: probe failed: pixel ({x}, {y}) is outside the {}x{} depth target",
                t.width, t.height
            )
        };
        if stencil {
            let got = t.stencil_at(x, y, 0).ok_or_else(outside)?;
            if u64::from(got) != value || !t.format.has_stencil() && value != 0 {
                return Err(format!(
                    "{at}: probe failed: expected ({value}) got ({got}) (stencil)"
                ));
            }
            return Ok(());
        }
        let got = t.depth_at(x, y, 0).ok_or_else(outside)?;
        let expected = f32::from_bits(value as u32);
        let ok = match t.format.step() {
            Some(step) if ulp == 0 => (got as f64 - expected as f64).abs() <= step + 1e-9,
            _ => values_match(ValueType::Float, value, u64::from(got.to_bits()), ulp),
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{at}: probe failed: expected ({expected:?}) got ({got:?}) (depth)"
            ))
        }
    }

    /// `draw [indexed] TOPOLOGY N [instances K]`: the vertex shader, the
    /// tessellation and geometry shaders when the file declares them, then
    /// the rasterizer with the fragment shader into the frame's targets.
    pub(super) fn draw(
        &mut self,
        res: &mut Resources,
        frame: &mut Frame,
        depth: Option<&mut DepthTarget>,
        state: &tgsi_pipeline::RenderState,
        (indexed, topology, count, instances): (bool, &str, u32, u32),
        line: usize,
    ) -> Result<(), String> {
        use tgsi_pipeline::{self as pl, DrawCall, Topology};
        let at = self.at(line);
        let vs = self.program(Stage::Vertex, line)?;
        let fs = self.program(Stage::Fragment, line)?;
        let mut optional = |stage: Stage| -> Result<Option<Rc<Runnable>>, String> {
            if self.slots.contains_key(&stage) {
                self.program(stage, line).map(Some)
            } else {
                Ok(None)
            }
        };
        let tcs = optional(Stage::TessControl)?;
        let tes = optional(Stage::TessEval)?;
        let gs = optional(Stage::Geometry)?;
        let words: Vec<&str> = topology.split_whitespace().collect();
        let (topology, _) = Topology::parse_words(&words).map_err(|e| format!("{at}: {e}"))?;
        // Direct3D: the draw's patch size must be the hull shader's input
        // control-point count
        if let (Topology::PatchList(c), Some(t)) = (
            topology,
            tcs.as_ref()
                .and_then(|h| h.d3d.as_ref())
                .and_then(|d| d.lowered.tessellator.as_ref()),
        ) && t.input_control_points != 0
            && t.input_control_points != c
        {
            return Err(format!(
                "{at}: the hull shader reads patches of {} control points; the draw gives `patch list {c}`",
                t.input_control_points
            ));
        }
        let indices = if indexed {
            Some(self.index_data.clone().ok_or_else(|| {
                format!("{at}: draw indexed, but there is no [index data] above this test")
            })?)
        } else {
            None
        };
        if !indexed {
            self.has_rows(count as usize, &format!("draw of {count} vertices"), line)?;
        }
        let rows = self.all_vertex_inputs(&vs, line)?;
        let input = pl::VertexInput::from_rows(&rows);
        let size = frame
            .draw_size(depth.as_ref().map(|d| [d.width, d.height]))
            .map_err(|e| format!("{at}: {e}"))?;
        let mut targets = frame.take(size).map_err(|e| format!("{at}: {e}"))?;
        let call = DrawCall {
            topology,
            count,
            instances,
            indices: indices.as_deref(),
        };
        if let Some(device) = &self.config.vulkan {
            let inputs = crate::vulkan::DrawInputs {
                rows: &rows,
                topology: call.topology,
                count,
                instances,
                indices: call.indices,
                state,
            };
            let stages = (&*vs, gs.as_deref(), &*fs);
            let ran = crate::vulkan::draw(
                device,
                stages,
                (tcs.as_deref(), tes.as_deref()),
                &inputs,
                &mut targets,
                depth,
                res,
            );
            frame.put_back(targets);
            return ran.map_err(|e| {
                let message = format!("{at}: draw on Vulkan failed: {}", e.text());
                if let crate::vulkan::Refused::NotRunnable(why) = e {
                    self.not_runnable = Some(why);
                }
                message
            });
        }
        fn stage(r: &Rc<Runnable>) -> tgsi_pipeline::Stage<'_> {
            tgsi_pipeline::Stage {
                program: &r.program,
                interface: r
                    .d3d
                    .as_ref()
                    .map(|d| d as &dyn tgsi_pipeline::StageInterface),
            }
        }
        let shaders = pl::Shaders {
            vs: stage(&vs),
            tcs: tcs.as_ref().map(stage),
            tes: tes.as_ref().map(stage),
            gs: gs.as_ref().map(stage),
            fs: stage(&fs),
        };
        let limits = &self.config.limits;
        let result = self.guarded("draw", line, || {
            pl::draw_with(
                &shaders,
                res,
                &input,
                &call,
                state,
                &mut targets,
                depth,
                limits,
            )
        });
        frame.put_back(targets);
        result.map(|_| ())
    }

    /// The IN registers of every `[vertex data]` row for this vertex shader.
    pub(super) fn all_vertex_inputs(
        &self,
        shader: &Runnable,
        line: usize,
    ) -> Result<Vec<Vec<[u32; 4]>>, String> {
        let count = self.vertex_data.as_ref().map_or(0, |d| d.rows.len());
        self.vertex_inputs(shader, count, line)
    }
}
