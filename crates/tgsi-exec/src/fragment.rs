//! The fragment stage: [`Draw`] (what the rasterizer hands over: target size,
//! varyings as plane equations, facing), input interpolation, the fragment
//! opcodes (KILL, KILL_IF, DEMOTE, READ_HELPER, DDX/DDY and their FINE forms,
//! INTERP_*), and the tile walk behind [`Program::shade`] and
//! `Program::draw`.
//!
//! Choices (see also `docs/mesa-differences.md`):
//! * A batch is a 4x4 tile of 4 quads (lane layout in [`super::LANES`]'s
//!   contract: lane l is in quad l/4 at ((l & 1), (l >> 1) & 1) inside it;
//!   quad q at ((q & 1) * 2, (q >> 1) * 2) in the tile). A quad with at
//!   least one pixel inside the target runs all 4 lanes; lanes outside the
//!   target are helper lanes (they execute, so derivatives stay correct at
//!   the target's right and bottom edges, but never write memory or colour).
//! * Varying channel c at window point (x, y) is
//!   `plane[c][0] + plane[c][1] * x + plane[c][2] * y`, evaluated in f64 by
//!   two fused multiply-adds ([`plane64`]) and rounded once to f32. LINEAR, PERSPECTIVE and COLOR (no flat-shading
//!   state) interpolate at the pixel centre (x + 0.5, y + 0.5); CENTROID is
//!   the centre too (fully covered pixels); SAMPLE: see below. CONSTANT reads `plane[c][0]` (a Draw describes a flat input by a
//!   plane without slopes; tgsi_exec also reads its `a0`). An input without
//!   an interpolation mode is PERSPECTIVE. A declared input no varying
//!   matches reads 0.
//! * POSITION = (x + 0.5, y + 0.5, z, w): z and w from a POSITION varying's
//!   planes if the Draw has one, else 0.5 and 1; FS_COORD_PIXEL_CENTER
//!   INTEGER drops the 0.5, FS_COORD_ORIGIN LOWER_LEFT flips y (height - y).
//!   FACE = (+1 front / -1 back, 0, 0, 1) as floats.
//! * INTERP_CENTROID evaluates at the centre, INTERP_SAMPLE at the sample's
//!   position; INTERP_OFFSET at centre + (src1.x, src1.y) per lane; CONSTANT
//!   inputs stay constant. The operand's swizzle and modifiers apply after.
//! * KILL removes the active lanes from the batch (they stop; a later
//!   derivative that reads a killed neighbour sees its last values); KILL_IF
//!   kills the active lanes where any of src.xyzw < 0 (NaN is not < 0).
//!   DEMOTE turns the active lanes into helpers; READ_HELPER and the
//!   HELPER_INVOCATION system value are ~0 for helper lanes, 0 otherwise
//!   (the system value is the state at the start of the invocation).
//! * DDX = TR - TL and DDY = BL - TL for all four lanes of a quad (coarse);
//!   DDX_FINE uses the lane's own row (TR - TL, BR - BL), DDY_FINE its own
//!   column (BL - TL, BR - TR). Lanes that are inactive in a branch still
//!   provide their (stale) register values to their quad.
//! * Samples: 1, 2, 4, 8 or 16 per pixel at the D3D standard positions, full
//!   coverage. A shader that reads SAMPLEID or SAMPLEPOS or has an input at
//!   the SAMPLE location runs once per sample (SAMPLE inputs at that sample,
//!   SAMPLEID = the sample, SAMPLEPOS its position in [0, 1], SAMPLEMASK
//!   input = its bit) and writes only that sample; any other runs once per
//!   pixel (SAMPLEMASK input = every sample) and writes every sample. A
//!   SAMPLEMASK output drops the samples whose bit is 0 (with one sample:
//!   bit 0 discards the pixel). INTERP_SAMPLE evaluates at the named sample's
//!   position (the centre for an index out of range). A POSITION (depth)
//!   output is accepted and ignored (no depth target). [`Program::shade`]
//!   reports sample 0.
//! * Outputs: `COLOR[n]` goes to target n (`COLOR[0]` to every target with
//!   FS_COLOR0_WRITES_ALL_CBUFS); a target no output names is left as it was.
//!   Under [`super::Numerics::Direct3D`], values for 16-bit float channels
//!   are converted toward zero and saturate at ±65504 (Direct3D's "Data
//!   conversion rules"); otherwise to nearest, overflowing to infinity.
//! * Inter-lane opcodes (VOTE_*, BALLOT, READ_*) see helper lanes as
//!   active lanes of the batch. FACE as a system value is also +-1.0.
//!   Cylindrical wrap and declaration usage masks are ignored.
//! * Tile rows are spread over `Limits::threads`; every pixel is shaded by
//!   exactly one batch whatever the thread count, so the targets get the same
//!   bits (buffer/image atomics between pixels follow the compute rules).

use super::budget::DrawBudget;
use super::decode::{Code, Inst, Modifier, SrcKind};
use super::machine::{Batch, Env, Mask, Reg, Row, ZERO_REG, mask_row};
use super::run_to_end;
pub use super::stage_state::{FragEnv, InputSource};
use super::texture::linear::LinearCopies;
use super::{ExecError, LANES, Limits, Program, Stats, fill_subgroup_values, ops};
use crate::math::simd;
use crate::texture::Texture;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use tgsi_ir::enums::{InterpLocation, InterpMode, Processor, SemanticName};
use tgsi_ir::opcode::Opcode;

/// One interpolated input the rasterizer provides.
#[derive(Clone, Debug, PartialEq)]
pub struct Varying {
    pub semantic: SemanticName,
    pub index: u32,
    /// Channel c at window point (x, y) = `plane[c][0] + plane[c][1] * x + plane[c][2] * y`.
    pub plane: [[f32; 3]; 4],
}

/// What a draw covers: the target size, the varyings, the facing.
#[derive(Clone, Debug, PartialEq)]
pub struct Draw {
    pub width: u32,
    pub height: u32,
    pub varyings: Vec<Varying>,
    pub front_face: bool,
    /// Samples per pixel; only 1 is supported.
    pub samples: u32,
}

impl Draw {
    /// The inputs of shader_test.md's `draw quad`: `GENERIC[0]` = (x / W, y / H,
    /// 0, 1) at window point (x, y) (so ((px + 0.5) / W, (py + 0.5) / H) at a
    /// pixel centre), front facing, one sample.
    pub fn full_quad(width: u32, height: u32) -> Draw {
        let inv = |n: u32| 1.0 / n.max(1) as f32;
        Draw {
            width,
            height,
            varyings: vec![Varying {
                semantic: SemanticName::Generic,
                index: 0,
                plane: [
                    [0.0, inv(width), 0.0],
                    [0.0, 0.0, inv(height)],
                    [0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0],
                ],
            }],
            front_face: true,
            samples: 1,
        }
    }
}

/// A plane `p[0] + p[1] * x + p[2] * y` evaluated in f64 by two fused
/// multiply-adds, `p[1] * x + p[0]` first (each step rounded once; every
/// interpolation path, scalar or 16 lanes side by side, takes these steps).
#[inline]
pub fn plane64(p: &[f64; 3], x: f64, y: f64) -> f64 {
    p[2].mul_add(y, p[1].mul_add(x, p[0]))
}

/// Offset of sample `i` of a `samples`-sample pixel from the pixel centre
/// (D3D standard pattern); the centre for an index out of range.
pub fn sample_offset(samples: u32, i: u32) -> (f64, f64) {
    crate::texture::exec::sample_position(samples, i)
        .map_or((0.0, 0.0), |(x, y)| (x as f64 - 0.5, y as f64 - 0.5))
}

/// [`plane64`] at a quad's four points (the same bits, side by side).
#[inline(always)]
fn quad_plane(p: &[f64; 3], xs: &[f64; 4], ys: &[f64; 4]) -> [f64; 4] {
    std::array::from_fn(|i| plane64(p, xs[i], ys[i]))
}

/// [`plane64`] of a plane of f32 coefficients, rounded to f32.
fn plane_at(p: &[f32; 3], x: f64, y: f64) -> f32 {
    plane64(&p.map(f64::from), x, y) as f32
}

/// The one quiet NaN an interpolated input that is NaN reads as (and a
/// blend that gives NaN stores): which NaN an operation on two NaNs gives
/// depends on its operands' order, which the compiler may swap and which
/// the interpolation paths (lane by lane, quad by quad, 16 lanes side by
/// side) do not share.
pub const ONE_NAN: u32 = 0x7FC0_0000;

/// The bits of an interpolated value: its own, or [`ONE_NAN`].
#[inline(always)]
pub fn interpolated(v: f32) -> u32 {
    if v.is_nan() { ONE_NAN } else { v.to_bits() }
}

impl Program {
    /// The inputs `draw` gives this fragment program's pixels, for a
    /// [`crate::FragmentScratch`]'s `frag` before
    /// [`crate::FragmentSession::shade_tile`].
    pub fn draw_inputs(&self, draw: &Draw) -> FragEnv {
        FragEnv::new(&self.code, draw)
    }
}

impl FragEnv {
    fn new(code: &Code, draw: &Draw) -> FragEnv {
        let zw = draw
            .varyings
            .iter()
            .find(|v| v.semantic == SemanticName::Position)
            .map_or([[0.5, 0.0, 0.0], [1.0, 0.0, 0.0]], |v| {
                [v.plane[2], v.plane[3]]
            });
        let position = InputSource::Position { zw };
        let face = if draw.front_face { 1.0 } else { -1.0 };
        let len = code.input.len as usize;
        let mut inputs = vec![InputSource::Zero; len];
        for fi in &code.frag_inputs {
            let Some(slot) = inputs.get_mut(fi.index as usize) else {
                continue;
            };
            *slot = match fi.semantic {
                None => InputSource::Zero,
                Some((SemanticName::Position, _)) => position,
                Some((SemanticName::Face, _)) => InputSource::Face(face),
                Some((name, index)) => draw
                    .varyings
                    .iter()
                    .find(|v| v.semantic == name && v.index == index)
                    .map_or(InputSource::Zero, |v| InputSource::Plane {
                        plane: v.plane,
                        flat: fi.mode == InterpMode::Constant,
                    }),
            };
        }
        let per_sample = FragEnv::shades_per_sample(code, draw.samples);
        FragEnv {
            inputs,
            position,
            face,
            integer_center: code.pixel_center_integer,
            lower_left: code.origin_lower_left,
            height: draw.height,
            samples: draw.samples,
            per_sample,
            primitive_id: 0,
        }
    }

    /// The shader runs once per sample: it reads SAMPLEID or SAMPLEPOS or
    /// has an input at the SAMPLE location, and there are several samples.
    pub(super) fn shades_per_sample(code: &Code, samples: u32) -> bool {
        samples > 1
            && (code
                .frag_inputs
                .iter()
                .any(|f| f.location == InterpLocation::Sample)
                || code
                    .system_values
                    .iter()
                    .any(|v| matches!(v.name, SemanticName::SampleId | SemanticName::SamplePos)))
    }

    /// The value of `src` at window point (x, y) (pixel centres at +0.5).
    pub fn eval(&self, src: &InputSource, x: f64, y: f64) -> [u32; 4] {
        match src {
            InputSource::Zero => [0; 4],
            InputSource::Plane { plane, flat: true } => plane.map(|p| p[0].to_bits()),
            InputSource::Plane { plane, flat: false } => {
                plane.map(|p| interpolated(plane_at(&p, x, y)))
            }
            InputSource::Position { zw } => {
                let (px, py) = self.window_xy(x, y);
                [
                    px.to_bits(),
                    py.to_bits(),
                    interpolated(plane_at(&zw[0], x, y)),
                    interpolated(plane_at(&zw[1], x, y)),
                ]
            }
            InputSource::Face(f) => [f.to_bits(), 0, 0, 1.0f32.to_bits()],
            InputSource::Flat(words) => *words,
            InputSource::Linear(plane) => plane.map(|p| interpolated(plane64(&p, x, y) as f32)),
            InputSource::Perspective { plane, inv_w } => {
                let w = 1.0 / plane64(inv_w, x, y);
                plane.map(|p| interpolated((plane64(&p, x, y) * w) as f32))
            }
            InputSource::Window { z, inv_w, clip_w } => {
                let (px, py) = self.window_xy(x, y);
                let q = plane64(inv_w, x, y);
                let w = if *clip_w { 1.0 / q } else { q };
                [
                    px.to_bits(),
                    py.to_bits(),
                    interpolated(plane64(z, x, y) as f32),
                    interpolated(w as f32),
                ]
            }
        }
    }

    /// [`Self::eval`] at the 4 points of a quad (the interpolating kinds
    /// matched once).
    pub fn eval_quad(&self, src: &InputSource, points: &[(f64, f64); 4]) -> [[u32; 4]; 4] {
        match src {
            InputSource::Perspective { plane, inv_w } => points.map(|(x, y)| {
                let w = 1.0 / plane64(inv_w, x, y);
                plane.map(|p| interpolated((plane64(&p, x, y) * w) as f32))
            }),
            InputSource::Linear(plane) => {
                points.map(|(x, y)| plane.map(|p| interpolated(plane64(&p, x, y) as f32)))
            }
            _ => points.map(|(x, y)| self.eval(src, x, y)),
        }
    }

    /// The x, y of POSITION at window point (x, y) under the shader's
    /// FS_COORD_* properties.
    fn window_xy(&self, x: f64, y: f64) -> (f32, f32) {
        let yy = if self.lower_left {
            self.height as f64 - y
        } else {
            y
        };
        let c = if self.integer_center { 0.5 } else { 0.0 };
        ((x - c) as f32, (yy - c) as f32)
    }
}

/// Lane l's pixel offset inside its 4x4 tile.
pub fn lane_offset(l: usize) -> (u32, u32) {
    let q = l / 4;
    (
        ((q & 1) * 2 + (l & 1)) as u32,
        ((q >> 1) * 2 + ((l >> 1) & 1)) as u32,
    )
}

impl Batch {
    /// KILL / KILL_IF: removes lanes from the batch.
    pub(super) fn kill(&mut self, inst: &Inst, env: &Env) {
        let killed = if inst.op == Opcode::KILL {
            self.exec
        } else {
            let v = self.fetch(&inst.src[0], 0xF, env);
            let mut m: Mask = 0;
            for l in 0..LANES {
                if (0..4).any(|c| f32::from_bits(v[c][l]) < 0.0) {
                    m |= 1 << l;
                }
            }
            m & self.exec
        };
        self.alive &= !killed;
        self.update_exec();
    }

    /// DEMOTE, READ_HELPER, derivatives and INTERP_*.
    pub(super) fn fragment_op(&mut self, inst: &Inst, env: &Env) -> Result<(), ExecError> {
        let mask = inst.dst[0].mask;
        match inst.op {
            Opcode::DEMOTE => self.helper |= self.exec,
            Opcode::READ_HELPER => {
                let row = mask_row(self.helper);
                self.store32(inst, [row; 4], mask);
            }
            Opcode::DDX | Opcode::DDY | Opcode::DDX_FINE | Opcode::DDY_FINE => {
                let a = self.fetch(&inst.src[0], mask, env);
                // (minuend, subtrahend) lane inside the quad for each quad position.
                let pairs: [(usize, usize); 4] = match inst.op {
                    Opcode::DDX => [(1, 0); 4],
                    Opcode::DDY => [(2, 0); 4],
                    Opcode::DDX_FINE => [(1, 0), (1, 0), (3, 2), (3, 2)],
                    _ => [(2, 0), (3, 1), (2, 0), (3, 1)],
                };
                let mut out = ZERO_REG;
                for c in 0..4 {
                    if mask & (1 << c) == 0 {
                        continue;
                    }
                    for l in 0..LANES {
                        let base = l & !3;
                        let (p, m) = pairs[l & 3];
                        let d = f32::from_bits(a[c][base + p]) - f32::from_bits(a[c][base + m]);
                        out[c][l] = d.to_bits();
                    }
                }
                self.store32(inst, out, mask);
            }
            _ => self.interp(inst, env)?,
        }
        Ok(())
    }

    fn interp(&mut self, inst: &Inst, env: &Env) -> Result<(), ExecError> {
        let frag = env.frag.ok_or_else(|| ExecError {
            instruction: Some(self.pc),
            message: format!(
                "instruction {} ({}): interpolation outside of a draw",
                self.pc, inst.op
            ),
        })?;
        let mask = inst.dst[0].mask;
        let (ox, oy): (Row, Row) = match inst.op {
            Opcode::INTERP_OFFSET => {
                let o = self.fetch(&inst.src[1], 0b11, env);
                (o[0], o[1])
            }
            Opcode::INTERP_SAMPLE => {
                let i = self.fetch(&inst.src[1], 1, env)[0];
                let (mut x, mut y) = ([0; LANES], [0; LANES]);
                for l in 0..LANES {
                    let (dx, dy) = sample_offset(frag.samples, i[l]);
                    x[l] = (dx as f32).to_bits();
                    y[l] = (dy as f32).to_bits();
                }
                (x, y)
            }
            // The centroid of a fully covered pixel is its centre.
            _ => ([0; LANES], [0; LANES]),
        };
        let input = |i: i64| {
            usize::try_from(i)
                .ok()
                .and_then(|i| frag.inputs.get(i))
                .copied()
                .unwrap_or(InputSource::Zero)
        };
        let s = &inst.src[0];
        let mut out = ZERO_REG;
        for l in 0..LANES {
            // An indirect IN operand names its input per lane (out of range: 0).
            let src = match s.kind {
                SrcKind::RegIndirect {
                    len, offset, addr, ..
                } => {
                    let i = offset as i64
                        + self.regs[addr.reg as usize][(addr.chan & 3) as usize][l] as i32 as i64;
                    if i >= 0 && i < len as i64 {
                        input(i)
                    } else {
                        InputSource::Zero
                    }
                }
                _ => input(inst.aux as i64),
            };
            let x = self.pixel[0][l] as f64 + 0.5 + f32::from_bits(ox[l]) as f64;
            let y = self.pixel[1][l] as f64 + 0.5 + f32::from_bits(oy[l]) as f64;
            let v = frag.eval(&src, x, y);
            for c in 0..4 {
                let mut w = v[(s.swz[c] & 3) as usize];
                if let Modifier::Apply { ty, abs, neg } = s.modifier {
                    w = ops::modify(w, ty, abs, neg);
                }
                out[c][l] = w;
            }
        }
        self.store32(inst, out, mask);
        Ok(())
    }
}

/// Shades one range of tile rows into a per-thread part.
type RowRunner<'a, T> = dyn Fn(Range<u32>, &mut T) -> Result<Stats, ExecError> + Sync + 'a;

/// Raw output words per target and pixel (see [`Program::shade`]).
pub type ColorWords = Vec<Vec<[u32; 4]>>;

/// Which output registers feed the targets.
pub(super) struct OutputMap {
    /// Per target n: the COLOR register written to it.
    pub colors: Vec<Option<u32>>,
    pub sample_mask: Option<u32>,
}

impl OutputMap {
    pub(super) fn new(code: &Code, targets: usize) -> OutputMap {
        let color = |n: u32| {
            code.frag_outputs
                .iter()
                .find(|o| o.semantic == SemanticName::Color && o.index == n)
                .map(|o| o.reg)
        };
        let colors = (0..targets as u32)
            .map(|n| {
                if code.color0_writes_all {
                    color(0)
                } else {
                    color(n)
                }
            })
            .collect();
        let sample_mask = code
            .frag_outputs
            .iter()
            .find(|o| o.semantic == SemanticName::SampleMask)
            .map(|o| o.reg);
        OutputMap {
            colors,
            sample_mask,
        }
    }
}

/// Splits `rows` tile rows into at most `threads` contiguous ranges.
fn row_chunks(rows: u32, threads: usize) -> Vec<Range<u32>> {
    let threads = (threads.max(1) as u32).min(rows.max(1));
    let chunk = rows.div_ceil(threads).max(1);
    (0..threads)
        .map(|t| (t * chunk).min(rows)..((t + 1) * chunk).min(rows))
        .collect()
}

impl Program {
    fn check_draw(&self, draw: &Draw) -> Result<(), ExecError> {
        self.expect_processor(Processor::Fragment, "draw needs a fragment shader")?;
        if crate::texture::exec::sample_position(draw.samples, 0).is_none() {
            return Err(ExecError::general(format!(
                "draws with {} samples per pixel are not supported (1, 2, 4, 8 or 16)",
                draw.samples
            )));
        }
        if draw.width == 0 || draw.height == 0 {
            return Err(ExecError::general(format!(
                "a draw of {}x{} pixels covers nothing",
                draw.width, draw.height
            )));
        }
        Ok(())
    }

    /// Shades the tile rows `tiles`, calling `sink(x, y, target, value)`
    /// for every colour a surviving pixel writes and `row_done` after each
    /// tile row; its batches spend `budget`.
    #[allow(clippy::too_many_arguments)]
    fn shade_tiles(
        &self,
        env: &Env,
        draw: &Draw,
        outs: &OutputMap,
        tiles: Range<u32>,
        b: &mut Batch,
        sink: &mut dyn FnMut(u32, u32, u32, usize, [u32; 4]),
        row_done: &dyn Fn(),
        budget: &DrawBudget,
    ) -> Result<Stats, ExecError> {
        let code = &self.code;
        let mut share = budget.share();
        let frag = env
            .frag
            .ok_or_else(|| ExecError::general("a draw without inputs"))?;
        let mut stats = Stats::default();
        let mut shared: Vec<u32> = Vec::new();
        let tiles_x = draw.width.div_ceil(4);
        for ty in tiles {
            for tx in 0..tiles_x {
                let (x0, y0) = (tx * 4, ty * 4);
                let mut inside: Mask = 0;
                for l in 0..LANES {
                    let (dx, dy) = lane_offset(l);
                    if x0 + dx < draw.width && y0 + dy < draw.height {
                        inside |= 1 << l;
                    }
                }
                let mut alive: Mask = 0;
                for q in 0..4 {
                    if inside & (0xF << (4 * q)) != 0 {
                        alive |= 0xF << (4 * q);
                    }
                }
                let passes = if frag.per_sample { frag.samples } else { 1 };
                for pass in 0..passes {
                    b.reset(code, alive);
                    b.helper = alive & !inside;
                    for l in 0..LANES {
                        let (dx, dy) = lane_offset(l);
                        b.pixel[0][l] = x0 + dx;
                        b.pixel[1][l] = y0 + dy;
                    }
                    let sample = frag.per_sample.then_some(pass);
                    self.fill_fragment_values(b, &[frag; 4], sample, None, env.system_values);
                    let every = u32::MAX >> (32 - frag.samples.clamp(1, 32));
                    let (pixel, samples) = (b.pixel, sample.map_or(every, |s| 1 << s));
                    code.trace_batch(b, |l| crate::trace::Identity::Fragment {
                        x: pixel[0][l],
                        y: pixel[1][l],
                        samples,
                        primitive: frag.primitive_id,
                    });
                    run_to_end(b, code, env, &mut shared, "fragment", || {
                        format!("pixels ({x0}, {y0}) .. ({}, {})", x0 + 3, y0 + 3)
                    })?;
                    stats.account(b);
                    share.spend(b.executed)?;
                    let writes = b.alive & !b.helper;
                    let samples = match sample {
                        Some(s) => s..s + 1,
                        None => 0..frag.samples,
                    };
                    for l in 0..LANES {
                        if writes & (1 << l) == 0 {
                            continue;
                        }
                        let mask = outs
                            .sample_mask
                            .map_or(u32::MAX, |r| b.regs[r as usize][0][l]);
                        for t in samples.clone() {
                            if t >= 32 || mask & (1 << t) == 0 {
                                continue;
                            }
                            for (n, reg) in outs.colors.iter().enumerate() {
                                if let Some(r) = reg {
                                    let v = &b.regs[*r as usize];
                                    sink(
                                        b.pixel[0][l],
                                        b.pixel[1][l],
                                        t,
                                        n,
                                        [v[0][l], v[1][l], v[2][l], v[3][l]],
                                    );
                                }
                            }
                        }
                    }
                }
            }
            row_done();
        }
        share.settle()?;
        Ok(stats)
    }

    /// Inputs and system values of a fresh fragment batch; quad q's lanes
    /// read `frags[q]` (the same draw's input sets: sample count and shading
    /// rate agree). `sample`: the sample of a per-sample pass; `coverage`:
    /// the samples each lane covers (None: every sample), which place
    /// CENTROID inputs and fill the SAMPLEMASK input.
    pub(super) fn fill_fragment_values(
        &self,
        b: &mut Batch,
        frags: &[&FragEnv; 4],
        sample: Option<u32>,
        coverage: Option<&[u32; LANES]>,
        given: &[(SemanticName, [u32; 4])],
    ) {
        let code = &self.code;
        let frag = frags[0];
        // One sample per pixel (or none moved): every input at the centre.
        let centroid_moves = frag.samples > 1
            && coverage.is_some()
            && code
                .frag_inputs
                .iter()
                .any(|fi| fi.location == InterpLocation::Centroid);
        let at_centres = sample.is_none() && !centroid_moves;
        if at_centres && frags.iter().all(|f| std::ptr::eq(*f, frag)) {
            // one primitive's inputs in every quad: its planes over the 16
            // lanes side by side
            fill_one_primitive(code, b, frag);
        } else {
            let centre = std::array::from_fn(|q| quad_centres(b, q));
            if at_centres {
                fill_at_centres(code, b, frags, &centre);
            } else {
                fill_at_samples(code, b, frags, &centre, sample, coverage);
            }
        }
        fragment_system_values(code, b, frags, sample, coverage);
        fill_subgroup_values(code, b, given);
    }

    /// Runs the shader over `parts.len()` ranges of tile rows on as many
    /// threads; `run(range, part)` shades one range. The first error by row wins.
    fn parallel_rows<T: Send>(
        &self,
        ranges: &[Range<u32>],
        parts: Vec<T>,
        run: &RowRunner<'_, T>,
    ) -> Result<(Stats, Vec<T>), ExecError> {
        let results: Vec<(Result<Stats, ExecError>, T)> = if parts.len() <= 1 {
            parts
                .into_iter()
                .zip(ranges)
                .map(|(mut p, r)| (run(r.clone(), &mut p), p))
                .collect()
        } else {
            let shares: Vec<(T, &Range<u32>)> = parts.into_iter().zip(ranges).collect();
            crate::parallel::each(shares, |(mut p, r)| {
                crate::parallel::caught(|| (run(r.clone(), &mut p), p))
            })
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?
        };
        let mut stats = Stats::default();
        let mut out = Vec::with_capacity(results.len());
        for (r, p) in results {
            stats.add(r?);
            out.push(p);
        }
        Ok((stats, out))
    }

    /// Runs the fragment shader over every pixel of a `draw.width` x
    /// `draw.height` target and returns the raw words each COLOR output
    /// wrote: `colors[n][y * width + x]` for targets n < `targets`
    /// (untouched pixels are 0).
    pub fn shade(
        &self,
        res: &mut super::Resources,
        draw: &Draw,
        targets: usize,
        limits: &Limits,
    ) -> Result<(ColorWords, Stats), ExecError> {
        self.check_draw(draw)?;
        let bytes = (draw.width as u64 * draw.height as u64)
            .saturating_mul(targets as u64)
            .saturating_mul(16);
        if bytes > 1 << 31 {
            return Err(ExecError::general(format!(
                "shade would need {bytes} bytes of output words; the limit is 2 GiB"
            )));
        }
        let code = &self.code;
        let outs = OutputMap::new(code, targets);
        let frag = FragEnv::new(code, draw);
        let w = draw.width as usize;
        let tile_rows = draw.height.div_ceil(4);
        let ranges = row_chunks(tile_rows, limits.threads);
        let parts: Vec<Vec<Vec<[u32; 4]>>> = ranges
            .iter()
            .map(|r| {
                let rows = ((r.end * 4).min(draw.height) - (r.start * 4).min(draw.height)) as usize;
                vec![vec![[0u32; 4]; rows * w]; targets]
            })
            .collect();
        let budget = DrawBudget::new(limits.max_draw_instructions, 0);
        let area = u64::from(draw.width) * u64::from(draw.height);
        let linear = LinearCopies::for_draw(res, area, limits);
        let result = self.with_env_linear(res, limits, Some(&frag), Some(&linear), |env| {
            let run = |r: Range<u32>, part: &mut Vec<Vec<[u32; 4]>>| {
                let y0 = r.start * 4;
                let mut b = Batch::new(code);
                let mut sink = |x: u32, y: u32, s: u32, n: usize, v: [u32; 4]| {
                    if s != 0 {
                        return;
                    }
                    if let Some(p) = part
                        .get_mut(n)
                        .and_then(|t| t.get_mut((y - y0) as usize * w + x as usize))
                    {
                        *p = v;
                    }
                };
                self.shade_tiles(env, draw, &outs, r, &mut b, &mut sink, &|| {}, &budget)
            };
            self.parallel_rows(&ranges, parts, &run)
        });
        let (stats, parts) = result?;
        let mut colors: Vec<Vec<[u32; 4]>> =
            vec![Vec::with_capacity(w * draw.height as usize); targets];
        for part in parts {
            for (n, t) in part.into_iter().enumerate() {
                colors[n].extend(t);
            }
        }
        Ok((colors, stats))
    }

    /// Runs the fragment shader on every pixel of `targets` (all
    /// `draw.width` x `draw.height`, one sample) and writes `COLOR[n]` to
    /// `targets[n]` in its format. See the module docs for the rules.
    pub fn draw(
        &self,
        res: &mut super::Resources,
        draw: &Draw,
        targets: &mut [Texture],
        limits: &Limits,
    ) -> Result<Stats, ExecError> {
        self.draw_with_progress(res, draw, targets, limits, &|_, _| {})
    }

    /// [`Program::draw`], calling `progress(rows_done, rows_total)` (pixel
    /// rows) after every finished row of tiles, from the worker threads.
    pub fn draw_with_progress(
        &self,
        res: &mut super::Resources,
        draw: &Draw,
        targets: &mut [Texture],
        limits: &Limits,
        progress: &(dyn Fn(u32, u32) + Sync),
    ) -> Result<Stats, ExecError> {
        self.check_draw(draw)?;
        let code = &self.code;
        let (w, h) = (draw.width as usize, draw.height);
        for (n, t) in targets.iter().enumerate() {
            let need = w * h as usize * draw.samples as usize * t.format.bytes_per_texel();
            if t.width != draw.width
                || t.height != draw.height
                || t.samples != draw.samples
                || t.levels.first().is_none_or(|l| l.len() < need)
            {
                return Err(ExecError::general(format!(
                    "target {n} is {}x{} with {} samples; the draw needs {}x{} with {}",
                    t.width, t.height, t.samples, draw.width, draw.height, draw.samples
                )));
            }
        }
        let outs = OutputMap::new(code, targets.len());
        let frag = FragEnv::new(code, draw);
        let ranges = row_chunks(h.div_ceil(4), limits.threads);
        let mut parts: Vec<Vec<TargetRows>> = ranges.iter().map(|_| Vec::new()).collect();
        for t in targets.iter_mut() {
            let (format, bpt) = (t.format, t.format.bytes_per_texel());
            // Direct3D converts to narrower float formats toward zero.
            let direct3d = code.numerics == super::Numerics::Direct3D;
            let samples = draw.samples as usize;
            let pitch = w * samples * bpt;
            let Some(level) = t.levels.first_mut() else {
                continue;
            };
            let mut rest: &mut [u8] = &mut level[..h as usize * pitch];
            for (k, r) in ranges.iter().enumerate() {
                let rows = ((r.end * 4).min(h) - (r.start * 4).min(h)) as usize;
                let (a, b) = std::mem::take(&mut rest).split_at_mut(rows * pitch);
                parts[k].push(TargetRows {
                    bytes: a,
                    y0: r.start * 4,
                    pitch,
                    bpt,
                    samples,
                    format,
                    direct3d,
                });
                rest = b;
            }
        }
        let done = AtomicU32::new(0);
        let watch = code.tracer.as_ref().and_then(|t| t.watched_pixel());
        let budget = DrawBudget::new(limits.max_draw_instructions, 0);
        let area = u64::from(draw.width) * u64::from(draw.height) * u64::from(draw.samples);
        let linear = LinearCopies::for_draw(res, area, limits);
        let (stats, _) = self.with_env_linear(res, limits, Some(&frag), Some(&linear), |env| {
            let run = |r: Range<u32>, part: &mut Vec<TargetRows>| {
                let mut b = Batch::new(code);
                let mut sink = |x: u32, y: u32, s: u32, n: usize, v: [u32; 4]| {
                    if let Some(t) = part.get_mut(n) {
                        let o = (y - t.y0) as usize * t.pitch
                            + (x as usize * t.samples + s as usize) * t.bpt;
                        if let Some(dst) = t.bytes.get_mut(o..o + t.bpt) {
                            let before =
                                watch.filter(|p| *p == (x, y)).map(|_| t.format.decode(dst));
                            if t.direct3d {
                                t.format.encode_direct3d_into(v, dst);
                            } else {
                                t.format.encode_into(v, dst);
                            }
                            if let (Some(tracer), Some(before)) = (&code.tracer, before) {
                                tracer.record_merge(crate::trace::MergeEvent {
                                    draw: 0,
                                    primitive: frag.primitive_id,
                                    sample: s,
                                    depth_test: None,
                                    colors: vec![(n as u32, before, t.format.decode(dst))],
                                });
                            }
                        }
                    }
                };
                let row_done = || {
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    progress(d.saturating_mul(4).min(h), h);
                };
                self.shade_tiles(env, draw, &outs, r, &mut b, &mut sink, &row_done, &budget)
            };
            self.parallel_rows(&ranges, parts, &run)
        })?;
        Ok(stats)
    }
}

/// The rows of one target a thread writes.
struct TargetRows<'a> {
    bytes: &'a mut [u8],
    /// First pixel row in `bytes`.
    y0: u32,
    pitch: usize,
    bpt: usize,
    samples: usize,
    format: crate::texture::Format,
    /// Converted under Direct3D's rules ([`super::Numerics::Direct3D`]).
    direct3d: bool,
}

/// Every input at each lane's point (the sample's position for SAMPLE
/// inputs of a per-sample pass, the first covered sample for CENTROID
/// inputs of a partly covered pixel, else the centre).
fn fill_at_samples(
    code: &Code,
    b: &mut Batch,
    frags: &[&FragEnv; 4],
    centre: &[([f64; 4], [f64; 4]); 4],
    sample: Option<u32>,
    coverage: Option<&[u32; LANES]>,
) {
    let frag = frags[0];
    let (sx, sy) = sample_offset(frag.samples, sample.unwrap_or(0));
    let all = u32::MAX >> (32 - frag.samples.clamp(1, 32));
    for (q, frag) in frags.iter().enumerate() {
        // 1/w at the quad's pixel centres, for the last perspective 1/w
        // plane seen there
        let mut w_cache: Option<([u64; 3], [f64; 4])> = None;
        for fi in &code.frag_inputs {
            let (reg, reads) = input_slot(code, fi.index);
            let at_sample = sample.is_some() && fi.location == InterpLocation::Sample;
            let (ox, oy) = if at_sample { (sx, sy) } else { (0.0, 0.0) };
            let centroid = fi.location == InterpLocation::Centroid && sample.is_none();
            let Some(src) = frag.inputs.get(fi.index as usize) else {
                continue;
            };
            let (mut xs, mut ys) = centre[q];
            let mut at_centre = !at_sample;
            if at_sample {
                for i in 0..4 {
                    (xs[i], ys[i]) = (xs[i] + ox, ys[i] + oy);
                }
            }
            // The centroid of a partly covered pixel: its first covered sample.
            if let (true, Some(cov)) = (centroid, coverage) {
                for i in 0..4 {
                    let c = cov[4 * q + i] & all;
                    if c != 0 && c != all {
                        let (ox, oy) = sample_offset(frag.samples, c.trailing_zeros());
                        (xs[i], ys[i]) = (xs[i] + ox, ys[i] + oy);
                        at_centre = false;
                    }
                }
            }
            let rows = &mut b.regs[reg];
            match src {
                // 1/w at the pixel centres of the same plane: computed once
                InputSource::Perspective { plane, inv_w } => {
                    let key = inv_w.map(f64::to_bits);
                    let w = match &w_cache {
                        // (word by word: one compare of the arrays
                        // reads across the words' stores)
                        Some((k, w))
                            if at_centre && k[0] == key[0] && k[1] == key[1] && k[2] == key[2] =>
                        {
                            *w
                        }
                        _ => {
                            let w = quad_plane(inv_w, &xs, &ys).map(|v| 1.0 / v);
                            if at_centre {
                                w_cache = Some((key, w));
                            }
                            w
                        }
                    };
                    perspective_quad(rows, q, plane, &w, (&xs, &ys), reads);
                }
                _ => other_quad(rows, q, frag, src, (&xs, &ys)),
            }
        }
    }
}

/// Quad `q`'s lanes of a perspective input's read channels (`reads`; the
/// others keep their words) at points `(xs, ys)` whose 1/w is `w`.
#[inline(always)]
fn perspective_quad(
    rows: &mut Reg,
    q: usize,
    plane: &[[f64; 3]; 4],
    w: &[f64; 4],
    (xs, ys): (&[f64; 4], &[f64; 4]),
    reads: u8,
) {
    for (c, (row, p)) in rows.iter_mut().zip(plane).enumerate() {
        if reads & (1 << c) == 0 {
            continue;
        }
        let v = quad_plane(p, xs, ys);
        let lanes: &mut [u32; 4] = (&mut row[4 * q..4 * q + 4])
            .try_into()
            .expect("a quad is 4 lanes");
        for i in 0..4 {
            lanes[i] = interpolated((v[i] * w[i]) as f32);
        }
    }
}

/// Quad `q`'s lanes of an input of any other source at points `(xs, ys)`.
fn other_quad(
    rows: &mut Reg,
    q: usize,
    frag: &FragEnv,
    src: &InputSource,
    (xs, ys): (&[f64; 4], &[f64; 4]),
) {
    let points = std::array::from_fn(|i| (xs[i], ys[i]));
    for (i, v) in frag.eval_quad(src, &points).iter().enumerate() {
        for c in 0..4 {
            rows[c][4 * q + i] = v[c];
        }
    }
}

/// Fragment input `index`'s register and the channels the program reads of
/// it (all four when the reads are unknown).
fn input_slot(code: &Code, index: u32) -> (usize, u8) {
    let reads = code.input_reads.get(index as usize).copied();
    ((code.input.base + index) as usize, reads.unwrap_or(0xF))
}

/// The pixel centres of quad `q`'s lanes, from its first lane's pixel (the
/// lane layout of `LANES`; exact in f64, so the same values as each lane's
/// own pixel).
fn quad_centres(b: &Batch, q: usize) -> ([f64; 4], [f64; 4]) {
    let x = b.pixel[0][4 * q] as f64 + 0.5;
    let y = b.pixel[1][4 * q] as f64 + 0.5;
    ([x, x + 1.0, x, x + 1.0], [y, y, y + 1.0, y + 1.0])
}

/// [`fill_at_centres`] of a batch whose four quads read one primitive's
/// inputs (`frag`): its perspective inputs over the 16 lanes side by side
/// ([`simd::perspective_inputs`], eight at a time: the operations of
/// [`perspective_quad`] lane by lane, so the same bits), the others quad
/// by quad.
fn fill_one_primitive(code: &Code, b: &mut Batch, frag: &FragEnv) {
    const SIDE_BY_SIDE: usize = 8;
    let mut wide = [simd::PerspectiveInput::EMPTY; SIDE_BY_SIDE];
    let mut n = 0;
    let mut others = false;
    for fi in &code.frag_inputs {
        let (reg, reads) = input_slot(code, fi.index);
        match frag.inputs.get(fi.index as usize) {
            None => {}
            Some(InputSource::Perspective { plane, inv_w }) => {
                wide[n] = simd::PerspectiveInput {
                    reg,
                    reads,
                    planes: plane,
                    inv_w,
                };
                n += 1;
                if n == SIDE_BY_SIDE {
                    simd::perspective_inputs(&b.pixel, &wide, &mut b.regs);
                    n = 0;
                }
            }
            Some(_) => others = true,
        }
    }
    if n > 0 {
        simd::perspective_inputs(&b.pixel, &wide[..n], &mut b.regs);
    }
    // the other inputs quad by quad, in a pass of their own: the quads'
    // centres, loop-invariant, would otherwise be made before the loop for
    // every batch, also for one with perspective inputs only
    if others {
        let centres: [_; 4] = std::array::from_fn(|q| quad_centres(b, q));
        for fi in &code.frag_inputs {
            let (reg, _) = input_slot(code, fi.index);
            match frag.inputs.get(fi.index as usize) {
                None | Some(InputSource::Perspective { .. }) => {}
                Some(src) => {
                    for (q, (xs, ys)) in centres.iter().enumerate() {
                        other_quad(&mut b.regs[reg], q, frag, src, (xs, ys));
                    }
                }
            }
        }
    }
}

/// Every input at the pixel centres: [`fill_at_samples`] without sample
/// offsets or centroid moves (the same bits), its per-input decisions
/// taken once per batch.
fn fill_at_centres(
    code: &Code,
    b: &mut Batch,
    frags: &[&FragEnv; 4],
    centre: &[([f64; 4], [f64; 4]); 4],
) {
    // each quad's 1/w at its centres, for the last 1/w plane seen there
    let mut w_cache: [Option<([u64; 3], [f64; 4])>; 4] = [None; 4];
    for fi in &code.frag_inputs {
        let (reg, reads) = input_slot(code, fi.index);
        let rows = &mut b.regs[reg];
        for (q, frag) in frags.iter().enumerate() {
            let Some(src) = frag.inputs.get(fi.index as usize) else {
                continue;
            };
            let (xs, ys) = &centre[q];
            match src {
                InputSource::Perspective { plane, inv_w } => {
                    let key = inv_w.map(f64::to_bits);
                    let w = match &w_cache[q] {
                        Some((k, w)) if k[0] == key[0] && k[1] == key[1] && k[2] == key[2] => *w,
                        _ => {
                            let w = quad_plane(inv_w, xs, ys).map(|v| 1.0 / v);
                            w_cache[q] = Some((key, w));
                            w
                        }
                    };
                    perspective_quad(rows, q, plane, &w, (xs, ys), reads);
                }
                _ => other_quad(rows, q, frag, src, (xs, ys)),
            }
        }
    }
}

/// The system values of a fresh fragment batch (POSITION, FACE, SAMPLEID,
/// PRIMID, SAMPLEPOS, SAMPLEMASK, HELPER_INVOCATION) for quads reading
/// `frags`, in pass `sample` over `coverage` (see
/// [`Program::fill_fragment_values`]).
fn fragment_system_values(
    code: &Code,
    b: &mut Batch,
    frags: &[&FragEnv; 4],
    sample: Option<u32>,
    coverage: Option<&[u32; LANES]>,
) {
    if code.system_values.is_empty() {
        return;
    }
    let frag = frags[0];
    let s = sample.unwrap_or(0);
    let (sx, sy) = sample_offset(frag.samples, s);
    let all = u32::MAX >> (32 - frag.samples.clamp(1, 32));
    let pixel = b.pixel;
    let helper = b.helper;
    for sv in &code.system_values {
        let name = sv.name;
        match name {
            SemanticName::Position => {
                let mut r = ZERO_REG;
                for l in 0..LANES {
                    let x = pixel[0][l] as f64 + 0.5;
                    let y = pixel[1][l] as f64 + 0.5;
                    let frag = frags[l / 4];
                    let v = frag.eval(&frag.position, x, y);
                    for c in 0..4 {
                        r[c][l] = v[c];
                    }
                }
                b.set_system_reg(code, name, &r);
            }
            SemanticName::Face => {
                let v = frags.map(|f| f.eval(&InputSource::Face(f.face), 0.0, 0.0));
                b.set_system_value(code, name, |c, l| v[l / 4][c]);
            }
            SemanticName::SampleId => b.set_system_value(code, name, |_, _| s),
            SemanticName::PrimId => {
                let id = frags.map(|f| f.primitive_id);
                b.set_system_value(code, name, |_, l| id[l / 4])
            }
            SemanticName::SamplePos => {
                let p = [(sx + 0.5) as f32, (sy + 0.5) as f32];
                b.set_system_value(code, name, |c, _| if c < 2 { p[c].to_bits() } else { 0 });
            }
            SemanticName::SampleMask => {
                let m = match sample {
                    Some(s) => 1u32 << s.min(31),
                    None => all,
                };
                b.set_system_value(code, name, |c, l| {
                    let lane = coverage.map_or(m, |cov| cov[l] & m);
                    if c == 0 { lane } else { 0 }
                });
            }
            SemanticName::HelperInvocation => b.set_system_value(code, name, |_, l| {
                0u32.wrapping_sub(((helper >> l) & 1) as u32)
            }),
            _ => {}
        }
    }
}
