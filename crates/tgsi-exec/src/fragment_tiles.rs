//! The fragment stage of the drawing pipeline: [`FragmentSession`] shades
//! 4x4 tiles whose lanes carry a coverage mask (samples of the pixel the
//! primitive covers), as the pipeline's rasterizer hands them
//! over, and reports every surviving fragment's outputs to a sink.
//!
//! Rules (the lane layout, helpers, derivatives and per-sample shading are
//! `fragment.rs`'s):
//! * A quad with at least one covered lane runs all 4 lanes; uncovered
//!   lanes are helpers (they execute for derivatives, write nothing).
//! * Per-pixel shading (the default) runs once; a fragment keeps the
//!   samples it covers, less those a SAMPLEMASK output clears. Per-sample
//!   shading (SAMPLEID/SAMPLEPOS read or a SAMPLE input, several samples)
//!   runs once per sample, each pass covering only that sample.
//! * The caller fills [`FragmentScratch::frag`] (one primitive's inputs:
//!   planes, facing) before each tile; nothing is allocated per tile.
//! * [`FragmentSession::shade_quads`] shades up to 4 quads from anywhere
//!   (other tiles, other primitives: each names one of the scratch's
//!   [`INPUT_SETS`] input sets) in one batch, for shaders whose lanes do
//!   not see each other beyond their quad ([`FragmentTraits::pack_quads`]);
//!   every lane then computes what it computes in its own tile's batch.

use super::decode::Code;
use super::fragment::{FragEnv, InputSource, OutputMap, lane_offset};
use super::machine::{Batch, Env, Mask};
use super::run_to_end;
use super::texture::linear::LinearCopies;
use super::{ExecError, LANES, Limits, Program, Resources, Stats};
use tgsi_ir::enums::{Processor, SemanticName};
use tgsi_ir::opcode::{Category, OpFlags, Opcode};

pub use super::decode::FragInput;

/// Most colour targets a draw writes.
pub const MAX_TARGETS: usize = 8;

/// One tile for [`FragmentSession::shade_tile`]: the 4x4 pixels at
/// (`x0`, `y0`) (a multiple of 4) and the samples lane l covers
/// (`coverage[l]`, lane layout of [`lane_offset`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileCoverage {
    pub x0: u32,
    pub y0: u32,
    pub coverage: [u32; LANES],
}

/// How many input sets a [`FragmentScratch`] holds (one per quad of a batch).
pub const INPUT_SETS: usize = 4;

/// One 2x2 quad for [`FragmentSession::shade_quads`]: its top-left pixel
/// (`x`, `y`), the samples each of its pixels covers (`coverage[i]` for the
/// pixel at (x + (i & 1), y + (i >> 1))) and the input set
/// (`FragmentScratch::frags[inputs]`) its lanes read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuadCoverage {
    pub x: u32,
    pub y: u32,
    pub coverage: [u32; 4],
    pub inputs: usize,
}

impl QuadCoverage {
    /// Quad `q` (in a batch's lane order) of the 4x4 tile at (x0, y0).
    #[inline(always)]
    pub fn of_tile(x0: u32, y0: u32, q: usize, coverage: [u32; 4], inputs: usize) -> QuadCoverage {
        let (dx, dy) = lane_offset(4 * q);
        QuadCoverage {
            x: x0 + dx,
            y: y0 + dy,
            coverage,
            inputs,
        }
    }
}

/// What one shaded fragment hands the output merger.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FragmentOutput {
    pub x: u32,
    pub y: u32,
    /// The batch slot (0..4) of the fragment's quad.
    pub quad: usize,
    /// The samples still covered (after KILL/DEMOTE and SAMPLEMASK).
    pub coverage: u32,
    /// `COLOR[n]` for target n (raw words) where bit n of `written` is set.
    pub colors: [[u32; 4]; MAX_TARGETS],
    pub written: u32,
    /// The depth output (POSITION.z / SV_Depth), when the shader has one.
    pub depth: Option<f32>,
}

/// One shaded batch as the output merger sees it whole
/// ([`FragmentSession::shade_quads_rows`]): which lanes left fragments, the
/// samples each still covers, where they are and their output rows.
pub struct ShadedBatch<'b> {
    /// Lanes that left a fragment (covered, alive, not helpers, some sample
    /// still covered), in lane order.
    pub writes: Mask,
    /// Per lane: the samples still covered (after KILL/DEMOTE and SAMPLEMASK).
    pub coverage: [u32; LANES],
    /// Per lane: the pixel (x row, y row).
    pub pixel: &'b [[u32; LANES]; 2],
    regs: &'b [[[u32; LANES]; 4]],
    outs: &'b OutputMap,
    depth_reg: Option<u32>,
}

impl ShadedBatch<'_> {
    /// The four channel rows of `COLOR[n]` for target n, when the shader writes it.
    #[inline]
    pub fn color(&self, n: usize) -> Option<&[[u32; LANES]; 4]> {
        let r = (*self.outs.colors.get(n)?)?;
        self.regs.get(r as usize)
    }

    /// Lane l's depth output (POSITION.z / SV_Depth), when the shader has one.
    #[inline]
    pub fn depth(&self, l: usize) -> Option<f32> {
        self.depth_reg
            .map(|r| f32::from_bits(self.regs[r as usize][2][l]))
    }

    /// Lane l as a [`FragmentOutput`] (its quad is its batch slot).
    pub fn fragment(&self, l: usize) -> FragmentOutput {
        let mut out = FragmentOutput {
            x: self.pixel[0][l],
            y: self.pixel[1][l],
            quad: l / 4,
            coverage: self.coverage[l],
            colors: [[0; 4]; MAX_TARGETS],
            written: 0,
            depth: self.depth(l),
        };
        for n in 0..self.outs.colors.len() {
            if let Some(v) = self.color(n) {
                out.colors[n] = [v[0][l], v[1][l], v[2][l], v[3][l]];
                out.written |= 1 << n;
            }
        }
        out
    }
}

/// What the pipeline needs to know of a fragment shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentTraits {
    /// Depth and stencil may be tested before shading: no KILL/DEMOTE, no
    /// depth or sample-mask output, no memory writes.
    pub early_depth: bool,
    pub writes_depth: bool,
    /// Runs once per sample with `samples` > 1.
    pub per_sample: bool,
    /// Quads of different tiles and primitives may share a batch
    /// ([`FragmentSession::shade_quads`]): no inter-lane opcodes (VOTE_*,
    /// BALLOT, READ_*), no INTERP_* (they read the batch's one input set),
    /// no subgroup lane values and no memory writes, so a lane's results do
    /// not depend on the other quads of its batch.
    pub pack_quads: bool,
}

/// Per-thread scratch of a session: the batch and the input sets.
pub struct FragmentScratch {
    batch: Batch,
    shared: Vec<u32>,
    /// The inputs of the primitive being shaded, by IN register (fill
    /// before [`FragmentSession::shade_tile`]).
    pub frag: FragEnv,
    /// Input sets 1.. of [`FragmentSession::shade_quads`] (set 0 is `frag`).
    pub more: [FragEnv; INPUT_SETS - 1],
}

impl FragmentScratch {
    /// Input set `k` (0 is `frag`; out of range: the last).
    pub fn set_mut(&mut self, k: usize) -> &mut FragEnv {
        match k {
            0 => &mut self.frag,
            k => &mut self.more[(k - 1).min(INPUT_SETS - 2)],
        }
    }
}

/// A fragment shader bound to its resources for one draw (see the module docs).
pub struct FragmentSession<'a> {
    program: &'a Program,
    env: Env<'a>,
    outs: OutputMap,
    depth_reg: Option<u32>,
    samples: u32,
    traits: FragmentTraits,
}

impl Program {
    /// Declared fragment inputs (IN registers with semantic and mode).
    pub fn fragment_inputs(&self) -> &[FragInput] {
        &self.code.frag_inputs
    }

    /// Declared outputs with a semantic: (OUT register index, semantic, index).
    pub fn outputs(&self) -> Vec<(u32, SemanticName, u32)> {
        let base = self.code.output.base;
        self.code
            .frag_outputs
            .iter()
            .map(|o| (o.reg - base, o.semantic, o.index))
            .collect()
    }

    /// Number of OUT registers.
    pub fn output_count(&self) -> usize {
        self.code.output.len as usize
    }

    /// `NUM_CLIPDIST_ENABLED` and `NUM_CULLDIST_ENABLED`, when declared.
    pub fn distance_counts(&self) -> (Option<u32>, Option<u32>) {
        (self.code.clip_distances, self.code.cull_distances)
    }

    /// The program runs under Direct3D's numeric rules (a lowered Direct3D shader).
    pub fn is_direct3d(&self) -> bool {
        self.code.numerics == super::Numerics::Direct3D
    }

    /// What the pipeline needs to know of this fragment shader at `samples`
    /// samples per pixel.
    pub fn fragment_traits(&self, samples: u32) -> FragmentTraits {
        let code = &self.code;
        let writes_depth = depth_output(code).is_some();
        let discards = code.insts.iter().any(|i| {
            matches!(i.op, Opcode::KILL | Opcode::KILL_IF | Opcode::DEMOTE)
                || i.op.flags().contains(OpFlags::STORE)
                || matches!(i.op.info().category, Category::Atomic)
        });
        let mask_out = code
            .frag_outputs
            .iter()
            .any(|o| o.semantic == SemanticName::SampleMask);
        let sees_other_lanes = code.insts.iter().any(|i| {
            i.op.flags().contains(OpFlags::STORE)
                || matches!(
                    i.op.info().category,
                    Category::Atomic | Category::InterLane | Category::Interpolation
                )
        }) || code.system_values.iter().any(|v| {
            matches!(
                v.name,
                SemanticName::SubgroupInvocation
                    | SemanticName::SubgroupEqMask
                    | SemanticName::SubgroupGeMask
                    | SemanticName::SubgroupGtMask
                    | SemanticName::SubgroupLeMask
                    | SemanticName::SubgroupLtMask
            )
        });
        FragmentTraits {
            early_depth: !discards && !writes_depth && !mask_out,
            writes_depth,
            per_sample: FragEnv::shades_per_sample(code, samples),
            pack_quads: !sees_other_lanes,
        }
    }

    /// Binds a fragment shader to `res` for one draw into `targets` colour
    /// targets of `samples` samples and runs `f` with the session; buffers
    /// and images written by the shader are written back afterwards.
    /// Compiled code may sample `linear`'s copies of `res`'s sRGB textures:
    /// copies made for this draw (or for sessions of the same draw), while
    /// its textures stay as they are.
    pub fn fragment_session<R>(
        &self,
        res: &mut Resources,
        limits: &Limits,
        targets: usize,
        samples: u32,
        linear: Option<&LinearCopies>,
        f: impl FnOnce(&FragmentSession<'_>) -> R,
    ) -> Result<R, ExecError> {
        self.expect_processor(Processor::Fragment, "a draw needs a fragment shader")?;
        if crate::texture::exec::sample_position(samples, 0).is_none() {
            return Err(ExecError::general(format!(
                "draws with {samples} samples per pixel are not supported (1, 2, 4, 8 or 16)"
            )));
        }
        if targets > MAX_TARGETS {
            return Err(ExecError::general(format!(
                "{targets} render targets; at most {MAX_TARGETS}"
            )));
        }
        let outs = OutputMap::new(&self.code, targets);
        let traits = self.fragment_traits(samples);
        Ok(self.with_env_linear(res, limits, None, linear, |env| {
            let session = FragmentSession {
                program: self,
                env: *env,
                outs,
                depth_reg: depth_output(&self.code),
                samples,
                traits,
            };
            f(&session)
        }))
    }
}

/// Calls `sink` with each fragment of `b`, in lane order.
fn each_fragment(b: &ShadedBatch<'_>, sink: &mut dyn FnMut(&FragmentOutput)) {
    let mut w = b.writes;
    while w != 0 {
        let l = w.trailing_zeros() as usize;
        w &= w - 1;
        sink(&b.fragment(l));
    }
}

/// The register of a fragment shader's depth output (POSITION, read in z).
fn depth_output(code: &Code) -> Option<u32> {
    if code.processor != Processor::Fragment {
        return None;
    }
    code.frag_outputs
        .iter()
        .find(|o| o.semantic == SemanticName::Position)
        .map(|o| o.reg)
}

impl FragmentSession<'_> {
    pub fn traits(&self) -> FragmentTraits {
        self.traits
    }

    /// Scratch for one thread, its inputs all [`InputSource::Zero`] and
    /// its target `height` pixels tall (for FS_COORD_ORIGIN LOWER_LEFT).
    pub fn scratch(&self, height: u32) -> FragmentScratch {
        let code = &self.program.code;
        let frag = FragEnv {
            inputs: vec![InputSource::Zero; code.input.len as usize],
            position: InputSource::Zero,
            face: 1.0,
            integer_center: code.pixel_center_integer,
            lower_left: code.origin_lower_left,
            height,
            samples: self.samples,
            per_sample: self.traits.per_sample,
            primitive_id: 0,
        };
        FragmentScratch {
            batch: Batch::new(code),
            shared: Vec::new(),
            more: std::array::from_fn(|_| frag.clone()),
            frag,
        }
    }

    /// Shades the covered quads of one tile with the inputs in
    /// `scratch.frag`, calling `sink` for every fragment that survives.
    pub fn shade_tile(
        &self,
        scratch: &mut FragmentScratch,
        tile: &TileCoverage,
        sink: &mut dyn FnMut(&FragmentOutput),
    ) -> Result<Stats, ExecError> {
        let quads = std::array::from_fn(|q| {
            let coverage = std::array::from_fn(|i| tile.coverage[4 * q + i]);
            QuadCoverage::of_tile(tile.x0, tile.y0, q, coverage, 0)
        });
        let area = || [tile.x0, tile.y0, tile.x0 + 3, tile.y0 + 3];
        self.shade(scratch, &quads, &area, &mut |b| each_fragment(b, sink))
    }

    /// Shades `quads` (slots without coverage stay empty) in one batch,
    /// quad q's lanes with input set `quads[q].inputs`, calling `sink` for
    /// every fragment that survives, in slot order. Only for shaders with
    /// [`FragmentTraits::pack_quads`] when the quads come from different
    /// tiles (see the module docs).
    pub fn shade_quads(
        &self,
        scratch: &mut FragmentScratch,
        quads: &[QuadCoverage; 4],
        sink: &mut dyn FnMut(&FragmentOutput),
    ) -> Result<Stats, ExecError> {
        self.shade_quads_rows(scratch, quads, &mut |b| each_fragment(b, sink))
    }

    /// [`Self::shade_quads`] handing over each shaded batch whole (once per
    /// pass; per-sample shading makes several passes).
    #[inline(always)]
    pub fn shade_quads_rows(
        &self,
        scratch: &mut FragmentScratch,
        quads: &[QuadCoverage; 4],
        sink: &mut impl FnMut(&ShadedBatch<'_>),
    ) -> Result<Stats, ExecError> {
        // the pixels an error names, worked out only for the error
        let area = || {
            let mut area = [u32::MAX, u32::MAX, 0, 0];
            for q in quads.iter().filter(|q| q.coverage.iter().any(|c| *c != 0)) {
                area = [
                    area[0].min(q.x),
                    area[1].min(q.y),
                    area[2].max(q.x + 1),
                    area[3].max(q.y + 1),
                ];
            }
            area
        };
        self.shade(scratch, quads, &area, sink)
    }

    /// The batch behind [`Self::shade_tile`] and [`Self::shade_quads`];
    /// `area()` (x0, y0, x1, y1) names the pixels in errors. Inlined into
    /// its callers, as [`Self::shade_quads_rows`] is into the tile walk: a
    /// whole tile's constant quads fold into the batch, and no copy of the
    /// quads or the environment goes between frames (`docs/drawing-speed.md`,
    /// "Calls around a batch").
    #[inline(always)]
    fn shade(
        &self,
        scratch: &mut FragmentScratch,
        quads: &[QuadCoverage; 4],
        area: &dyn Fn() -> [u32; 4],
        sink: &mut impl FnMut(&ShadedBatch<'_>),
    ) -> Result<Stats, ExecError> {
        let program = self.program;
        let code = &program.code;
        let FragmentScratch {
            batch: b,
            shared,
            frag,
            more,
        } = scratch;
        let set = |k: usize| -> &FragEnv {
            match k {
                0 => frag,
                k => &more[(k - 1).min(INPUT_SETS - 2)],
            }
        };
        let frags: [&FragEnv; 4] = std::array::from_fn(|q| set(quads[q].inputs));
        // quad by quad, as the quads were written (one wide read across
        // quads would wait for their stores to reach the cache)
        let mut coverage = [0u32; LANES];
        for (lanes, quad) in coverage.chunks_exact_mut(4).zip(quads) {
            lanes.copy_from_slice(&quad.coverage);
        }
        let env = Env {
            frag: Some(frags[0]),
            ..self.env
        };
        let frag = frags[0];
        let mut stats = Stats::default();
        let passes = if frag.per_sample { self.samples } else { 1 };
        for pass in 0..passes {
            let sample = frag.per_sample.then_some(pass);
            let want = match sample {
                Some(s) => 1u32 << s,
                None => u32::MAX,
            };
            // (from the quads, written long before, not from the copy just
            // made: no branch per lane)
            let mut covered: Mask = 0;
            for (q, quad) in quads.iter().enumerate() {
                for (i, c) in quad.coverage.iter().enumerate() {
                    covered |= Mask::from(c & want != 0) << (4 * q + i);
                }
            }
            let mut alive: Mask = 0;
            for q in 0..4 {
                if covered & (0xF << (4 * q)) != 0 {
                    alive |= 0xF << (4 * q);
                }
            }
            if alive == 0 {
                continue;
            }
            b.reset(code, alive);
            b.helper = alive & !covered;
            // a quad's four lanes to a store
            for (q, quad) in quads.iter().enumerate() {
                let (x, y) = (quad.x, quad.y);
                b.pixel[0][4 * q..4 * q + 4].copy_from_slice(&[x, x + 1, x, x + 1]);
                b.pixel[1][4 * q..4 * q + 4].copy_from_slice(&[y, y, y + 1, y + 1]);
            }
            program.fill_fragment_values(b, &frags, sample, Some(&coverage), env.system_values);
            // (the pixels from the quads: a copy of the batch's rows would
            // wait for their words' stores)
            code.trace_batch(b, |l| crate::trace::Identity::Fragment {
                x: quads[l / 4].x + (l & 1) as u32,
                y: quads[l / 4].y + (l >> 1 & 1) as u32,
                samples: coverage[l] & want,
                primitive: frags[l / 4].primitive_id,
            });
            run_to_end(b, code, &env, shared, "fragment", || {
                let [x0, y0, x1, y1] = area();
                format!("pixels ({x0}, {y0}) .. ({x1}, {y1})")
            })?;
            stats.account(b);
            // each written lane's samples (no branch per lane: the loop
            // keeps its values in registers)
            let alive = b.alive & !b.helper;
            let mask = match self.outs.sample_mask {
                Some(r) => b.regs[r as usize][0],
                None => [u32::MAX; LANES],
            };
            let mut written = [0u32; LANES];
            let mut writes: Mask = 0;
            for l in 0..LANES {
                let lane = 0u32.wrapping_sub(alive as u32 >> l & 1);
                written[l] = coverage[l] & want & mask[l] & lane;
                writes |= Mask::from(written[l] != 0) << l;
            }
            if writes != 0 {
                sink(&ShadedBatch {
                    writes,
                    coverage: written,
                    pixel: &b.pixel,
                    regs: &b.regs,
                    outs: &self.outs,
                    depth_reg: self.depth_reg,
                });
            }
        }
        Ok(stats)
    }
}
