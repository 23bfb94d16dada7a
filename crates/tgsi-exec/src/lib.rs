//! The machine: runs a shader over many lanes at once (SoA, execution masks).
//!
//! [`Program::compile`] pre-decodes a shader once (`decode.rs`: operands
//! resolved to storage, modifiers from the opcode table, jump targets from the
//! block structure); [`Program::dispatch`] runs compute work groups,
//! [`Program::run_vertices`] runs vertex batches, [`Program::run_geometry`]
//! geometry shaders (`geometry.rs`: EMIT/ENDPRIM, streams, invocations),
//! [`Program::run_tess_ctrl`] and [`Program::run_tess_eval`] the
//! tessellation stages (`tess.rs`: patches, the shared patch store,
//! barriers) and [`Program::draw`] runs a
//! fragment shader over render targets (`fragment.rs`: tiles of 2x2 quads,
//! helper lanes, interpolation, KILL/DEMOTE, derivatives). A batch is
//! [`LANES`] invocations executed together (`machine.rs`: registers, masks,
//! control flow, memory, inter-lane ops; `alu.rs`: the opcode dispatch onto
//! the scalar semantics in `ops`; `sampling.rs`: texture, sampling and image
//! opcodes through [`crate::texture`]).
//!
//! Semantics chosen where the spec leaves room (see also `machine.rs`):
//! * Indirect reads out of range (of the file, or of the named ARRAY) give 0,
//!   indirect writes out of range are dropped; indices are per lane for
//!   sources **and** destinations. CONST reads out of range give 0.
//! * All sources are read before any destination channel is written, for
//!   64-bit ops too (Mesa writes the xy pair before reading for zw).
//! * 64-bit writemasks: unary, ternary and 32→64 conversions need both bits
//!   of a pair, binary ops and shifts process a pair when either bit is set
//!   and write both channels (Mesa's `tgsi_exec.c`); compares write x (from
//!   xy) and z (from zw), 64→32 conversions x (from xy) and y (from zw),
//!   where the mask enables them (tgsi.rst; Mesa packs them into the first
//!   enabled channels: `PairShape::word_channels`). The zw shift count of U64SHL/I64SHR/U64SHR is src1.y
//!   (the spec; Mesa reads src1.z), DLDEXP's zw exponent is src1.z
//!   (tgsi.rst). DFRACEXP reads only src.xy (Mesa).
//! * `_SAT` clamps 32-bit results as floats and 64-bit results as doubles;
//!   `_PRECISE` changes nothing (the machine never fuses).
//! * BUFFER and IMAGE operands may be indirect (`BUFFER[ADDR[0].x+1]`, what
//!   Direct3D SM5.1 resource ranges lower to): the lanes are grouped by
//!   resource and each group accesses its own; a lane whose resource is
//!   not bound reads 0 and writes nothing. SAMPLE_INFO/SAMPLE_POS with a
//!   TEMP resource describe the render target (the draw's samples; 1
//!   outside the fragment stage).
//! * LOAD/STORE/atomics take byte addresses per lane; every 32-bit word out of
//!   range reads 0 and is not written (D3D rules, per word); atomics on out of
//!   range addresses return 0. Lanes touch memory in lane order, so results
//!   are deterministic within a batch; atomics on buffers are real atomic
//!   read-modify-writes, so with several threads the final memory of
//!   commutative atomics is deterministic but the returned old values depend
//!   on the interleaving of groups.
//! * A work group of N invocations runs as ceil(N/16) batches; BARRIER makes
//!   every batch of the group run up to its barrier (or its end) before any
//!   continues. MEMBAR needs nothing: batches of a group run one at a time.
//! * SWITCH: a CASE matches with its operand read when the CASE is reached;
//!   DEFAULT may stand anywhere and takes the lanes that no CASE of the switch
//!   matches, so SWITCH reads every CASE operand of its block once up front
//!   (they are immediates or constants in real shaders; a temp changed between
//!   the SWITCH and its CASE would count for DEFAULT with its old value).
//! * The subgroup is the batch: SUBGROUP_SIZE = 16, VOTE/BALLOT/READ_* work
//!   over the batch's active lanes. CLOCK returns the batch's count of
//!   executed instructions (64-bit, low word in x), so runs are reproducible.
//! * Scalar system values (VERTEXID, SUBGROUP_SIZE, WORK_DIM, ...) are
//!   replicated to all four channels; vectors (THREAD_ID, BLOCK_ID, ...) have
//!   w = 0; SUBGROUP_*_MASK are 64-bit masks in xy.
//! * Texture and sampling opcodes and IMAGE accesses run in every stage
//!   (implicit LOD is LOD 0 outside the fragment stage); derivative,
//!   KILL/DEMOTE/READ_HELPER and INTERP_* opcodes only in FRAG shaders.
//!   FBFETCH and bindless opcodes are refused by `compile` with an error
//!   naming the opcode, EMIT/ENDPRIM outside GEOM shaders too.
//! * 2-D operands: `IN[v][a]` of GEOM, TESS_CTRL and TESS_EVAL shaders read
//!   the lane's vertex v (out of range: 0); every OUT operand of a
//!   TESS_CTRL shader addresses the patch store its lanes share (see
//!   `tess.rs`). Helper lanes never write
//!   buffers or images (STORE and atomics skip them).

#[allow(clippy::needless_range_loop)] // lane loops index several rows in lockstep
mod alu;
pub mod budget;
pub mod decode;
pub mod engine;
#[allow(clippy::needless_range_loop)]
pub mod fragment;
#[allow(clippy::needless_range_loop)]
pub mod fragment_tiles;
#[allow(clippy::needless_range_loop)]
pub mod geometry;
pub mod ground;
#[allow(clippy::needless_range_loop)]
pub mod machine;
pub mod math;

/// The rasterizer's tile kernels (AVX-512 where the CPU has it): one
/// sample per pixel's coverage of a 4x4 tile and its early depth test, the
/// early depth test with four samples per pixel; a batch's texels
/// scattered to their pixels;
/// and the output merge's 16-lane rows in a register ([`tiles::Row16`],
/// made with an [`tiles::Avx512`] proof, run in a [`tiles::Kernel`]).
pub mod tiles {
    pub use crate::math::simd::{
        Avx512, DepthCompare, DepthTile, Kernel, depth_tile, depth_tile_4x, prefetch,
        prefetch_lines, scatter_texels, tile_cover, tile_step, wide,
    };
    #[cfg(target_arch = "x86_64")]
    pub use crate::math::simd::{Row16, Texels16};
}
pub mod ops;
pub mod parallel;
#[allow(clippy::needless_range_loop)]
mod sampling;
pub use sampling::{inline_bilinear, samples_inline};
pub mod semantics;
pub mod stage_state;
#[allow(clippy::needless_range_loop)]
pub mod tess;
pub mod texture;
pub mod trace;
pub use crate::ground::words;

use decode::Code;
use machine::{Batch, Env, FULL, Mask, Reg, Stop, ZERO_REG};
use tgsi_ir::enums::{Processor, SemanticName};
use tgsi_ir::ir::Shader;
use words::AtomicWords;

pub use engine::{CompiledCode, CompiledFigures};
pub use fragment::{Draw, InputSource, Varying};
pub use fragment_tiles::{
    FragmentOutput, FragmentScratch, FragmentSession, FragmentTraits, MAX_TARGETS, ShadedBatch,
    TileCoverage,
};
pub use geometry::{GeometryInput, GeometryOutput, GeometryStream, Strip};
pub use tess::{PatchInput, PatchOutput, TessCtrlOutput, TessEvalPatch, TessEvalSession};

pub use crate::ground::LANES;

/// Pre-chosen kernels for the common arithmetic shapes (`fast.rs`).
#[allow(clippy::needless_range_loop)]
mod fast;

/// The numeric rules a program runs under, chosen once per program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Numerics {
    /// TGSI as Gallium runs it: IEEE-754 float32 (denormals kept), PK2H
    /// rounding to nearest even.
    #[default]
    Ieee,
    /// Direct3D 10/11 ("Floating-point rules", "Data conversion rules"):
    /// float32 denormals are flushed to sign-preserved zero on the inputs
    /// and outputs of float arithmetic, conversions and derivatives (MOV and
    /// the selects keep their bits; doubles keep denormals); PK2H
    /// (`f32tof16`) rounds toward zero and turns finite values beyond the
    /// half range into the largest finite half.
    Direct3D,
}

/// Most bytes of output one run of a vertex, tessellation-evaluation or
/// geometry stage may produce.
pub const MAX_STAGE_OUTPUT_BYTES: usize = 1 << 30;

/// An error when `rows` output registers (16 bytes each) would pass
/// [`MAX_STAGE_OUTPUT_BYTES`]; `stage` names the shader.
fn check_stage_output(rows: usize, stage: &str) -> Result<(), ExecError> {
    match rows.checked_mul(16) {
        Some(bytes) if bytes <= MAX_STAGE_OUTPUT_BYTES => Ok(()),
        _ => Err(ExecError::general(format!(
            "the {stage}'s output ({rows} registers of 16 bytes) exceeds {MAX_STAGE_OUTPUT_BYTES} bytes"
        ))),
    }
}

/// The most shared memory a work group may be given, each thread holding
/// its own copy (1 GiB).
pub const MAX_SHARED_MEMORY_BYTES: usize = 1 << 30;

/// Work groups a dispatch may have along each of its three dimensions.
pub const MAX_GROUPS_PER_DIMENSION: u32 = 65_535;

/// Bounds that keep hostile shaders finite.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Instructions one invocation batch may execute before it is stopped.
    pub max_instructions: u64,
    /// Instructions a whole compute dispatch may execute, summed over its
    /// batches (each counted as `max_instructions` counts), so that a
    /// dispatch ends in a bounded time whatever its size (one batch stops
    /// at it too when it is below `max_instructions`). It fails or not
    /// alike on any number of threads; when it also has a failing batch,
    /// which of the two errors is reported can depend on them.
    pub max_dispatch_instructions: u64,
    /// Instructions a whole draw may execute, summed over the batches of
    /// all its stages (each counted as `max_instructions` counts), so that
    /// a draw ends in a bounded time whatever its target's size. Checked
    /// after each stage before the fragments and, during those, as the
    /// batches are shaded (and within one batch when it is below
    /// `max_instructions`). A full-target draw fails or not alike on any
    /// number of threads; the pipeline's fragment batches are cut by bands
    /// and chunks whose sizes the thread count picks, so its count can
    /// differ by the partly filled batches at the bands' ends (`budget`
    /// module). When a draw also has a failing batch, which of the two
    /// errors is reported can depend on the threads.
    pub max_draw_instructions: u64,
    /// Bytes of shared (MEMORY SHARED) storage per work group.
    pub shared_memory_bytes: usize,
    /// Threads the work groups of a dispatch are spread over (1 = this thread).
    pub threads: usize,
    /// Most invocations one work group may have.
    pub max_group_invocations: u64,
    /// Told how far a long draw has come (pixel rows rasterized of all).
    pub progress: ProgressHook,
    /// Whether a draw's shading batches may hold quads of several tiles
    /// and primitives (where the fragment shader allows it); false keeps
    /// one tile per batch. The results are the same bits either way (as
    /// for `threads`); false is slower, for checking that.
    pub pack_quads: bool,
    /// Whether compiled code may sample an sRGB RGBA8 texture from a copy
    /// decoded once per draw ([`texture::linear::LinearCopies`]) rather
    /// than decoding each tap. The results are the same bits either way;
    /// false is for checking that.
    pub linear_copies: bool,
    /// Whether draw setup first tests the triangles of a triangle list
    /// sixteen at a time for those that set up nothing (culled, empty or
    /// between the pixel centres) and leaves them out; false sets every
    /// triangle up alone. The results are the same bits either way; false
    /// is for checking that.
    pub blank_test: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_instructions: 10_000_000,
            max_dispatch_instructions: 10_000_000_000,
            max_draw_instructions: 10_000_000_000,
            shared_memory_bytes: 32 * 1024,
            threads: 1,
            max_group_invocations: tgsi_ir::validate::MAX_BLOCK_INVOCATIONS,
            progress: ProgressHook::default(),
            pack_quads: true,
            linear_copies: true,
            blank_test: true,
        }
    }
}

/// A callback told `(done, total)` as a draw's rasterizer finishes bands of
/// pixel rows, from whichever thread finished them; none by default. It
/// only observes: the results are the same with or without it.
#[derive(Clone, Default)]
pub struct ProgressHook(Option<std::sync::Arc<dyn Fn(u64, u64) + Send + Sync>>);

impl ProgressHook {
    /// A hook calling `report(done, total)`.
    pub fn new(report: impl Fn(u64, u64) + Send + Sync + 'static) -> ProgressHook {
        ProgressHook(Some(std::sync::Arc::new(report)))
    }
    /// Tells the callback, if there is one.
    pub fn report(&self, done: u64, total: u64) {
        if let Some(report) = &self.0 {
            report(done, total);
        }
    }
}

impl std::fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "ProgressHook(set)"
        } else {
            "ProgressHook(none)"
        })
    }
}

/// Everything a shader reads or writes besides its registers.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    /// `CONST[n]`: 32-bit words of constant buffer n (4 words per vec4 slot).
    pub constants: Vec<Vec<u32>>,
    /// `BUFFER[n]`: raw bytes.
    pub buffers: Vec<Vec<u8>>,
    /// The resource behind `SVIEW[n]` (and `SAMP[n]` of the legacy TEX opcodes).
    pub textures: Vec<Option<crate::texture::Texture>>,
    /// The view of texture n (missing: the whole resource).
    pub views: Vec<crate::texture::View>,
    /// `SAMP[n]` state (missing: the default sampler).
    pub samplers: Vec<crate::texture::Sampler>,
    /// `IMAGE[n]`: read and written by the run.
    pub images: Vec<Option<crate::texture::Texture>>,
    /// System values given by the caller: each replaces, in every lane, what the
    /// stage would compute for that semantic (e.g. INSTANCEID of a vertex run,
    /// BLOCK_ID of a compute run). Four raw words; later entries win.
    pub system_values: Vec<(SemanticName, [u32; 4])>,
}

/// An execution error, naming the instruction where it happened.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExecError {
    /// Index of the instruction, when one is to blame.
    pub instruction: Option<usize>,
    pub message: String,
}

impl ExecError {
    pub fn general(message: impl Into<String>) -> ExecError {
        ExecError {
            instruction: None,
            message: message.into(),
        }
    }
}

/// What a run executed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions executed, counted once per batch (what the budget counts).
    pub batch_instructions: u64,
    /// Instructions times the live lanes of the batch that executed them.
    pub lane_instructions: u64,
    /// Invocations (lanes) run.
    pub invocations: u64,
}

impl Stats {
    /// Adds what another run executed.
    pub fn add(&mut self, o: Stats) {
        self.batch_instructions += o.batch_instructions;
        self.lane_instructions += o.lane_instructions;
        self.invocations += o.invocations;
    }
    fn account(&mut self, b: &Batch) {
        self.batch_instructions += b.executed;
        self.lane_instructions += b.executed * b.alive.count_ones() as u64;
        self.invocations += b.alive.count_ones() as u64;
    }
}

/// A shader prepared for execution.
pub struct Program {
    code: Code,
    /// Why the compiled engine was asked for but the interpreter runs.
    fallback: Option<String>,
}

fn lanes_mask(n: usize) -> Mask {
    if n >= LANES {
        FULL
    } else {
        ((1u32 << n) - 1) as Mask
    }
}

impl Program {
    /// Pre-decodes a (validated) shader for the interpreter. The compiled
    /// engine (the `jit` crate's `compile`) starts from here and attaches
    /// its code with [`Program::attach_compiled`].
    pub fn compile(shader: &Shader) -> Result<Program, ExecError> {
        Program::compile_with(shader, Numerics::Ieee)
    }

    /// [`Program::compile`] under the given numeric rules.
    pub fn compile_with(shader: &Shader, numerics: Numerics) -> Result<Program, ExecError> {
        Ok(Program {
            code: Code::compile(shader, numerics)?,
            fallback: None,
        })
    }

    /// The pre-decoded program, which an engine above the machine compiles
    /// ([`Program::attach_compiled`]).
    pub fn code(&self) -> &Code {
        &self.code
    }

    /// Lets `compiled` (this program's code as an engine compiled it) run
    /// every batch from now on, in place of the interpreter.
    pub fn attach_compiled(&mut self, compiled: std::sync::Arc<dyn CompiledCode>) {
        self.code.compiled = Some(compiled);
        self.fallback = None;
    }

    /// Lets `tracer` follow one invocation of every run from now on
    /// ([`trace`]): the batch holding it runs in the interpreter with a
    /// recorder; every other batch runs as before.
    pub fn set_tracer(&mut self, tracer: std::sync::Arc<trace::Tracer>) {
        self.code.tracer = Some(tracer);
    }

    /// Records why an engine was asked for and could not compile the
    /// program: the interpreter runs it.
    pub fn set_fallback_reason(&mut self, why: String) {
        self.fallback = Some(why);
    }

    /// The compiled code's figures (`None` when the interpreter runs it).
    pub fn compiled(&self) -> Option<CompiledFigures> {
        self.code.compiled.as_ref().map(|c| c.figures())
    }

    /// True when compiled code runs this program, false when the interpreter does.
    pub fn is_compiled(&self) -> bool {
        self.code.compiled.is_some()
    }

    /// Why a compiled engine was asked for and the interpreter runs the
    /// program instead (the opcode or construct and why).
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// The shader stage.
    pub fn processor(&self) -> Processor {
        self.code.processor
    }

    /// Builds the environment of a run from `res` (buffers are lent to the
    /// run as shared words, in place when the host allows it, else copied
    /// and written back afterwards) and runs `f` in it.
    fn with_env<R>(
        &self,
        res: &mut Resources,
        limits: &Limits,
        frag: Option<&fragment::FragEnv>,
        f: impl FnOnce(&Env) -> R,
    ) -> R {
        self.with_env_linear(res, limits, frag, None, f)
    }

    /// [`Self::with_env`] whose compiled code may sample `linear`'s copies
    /// of the sRGB RGBA8 textures.
    fn with_env_linear<R>(
        &self,
        res: &mut Resources,
        limits: &Limits,
        frag: Option<&fragment::FragEnv>,
        linear: Option<&crate::texture::linear::LinearCopies>,
        f: impl FnOnce(&Env) -> R,
    ) -> R {
        let buffers: Vec<AtomicWords> = res
            .buffers
            .iter_mut()
            .map(|b| AtomicWords::share(b))
            .collect();
        let images: Vec<Option<crate::texture::SharedImage>> = res
            .images
            .iter()
            .map(|i| i.as_ref().map(crate::texture::SharedImage::from_texture))
            .collect();
        // one batch past the whole dispatch's or draw's budget puts the
        // whole past it: a batch stops there too, whatever --budget allows
        let (whole, what) = match self.code.processor {
            Processor::Compute => (limits.max_dispatch_instructions, "dispatch"),
            _ => (limits.max_draw_instructions, "draw"),
        };
        let env = Env {
            stamp: Env::next_stamp(),
            consts: &res.constants,
            buffers: &buffers,
            max_instructions: limits.max_instructions.min(whole),
            whole_budget: (whole < limits.max_instructions).then_some(what),
            frag,
            textures: crate::texture::Bindings {
                textures: &res.textures,
                views: &res.views,
                samplers: &res.samplers,
                images: &[],
                linear,
            },
            images: &images,
            system_values: &res.system_values,
            grids: &self.code.grids,
        };
        let r = f(&env);
        buffers.into_iter().for_each(AtomicWords::finish);
        for (t, si) in res.images.iter_mut().zip(&images) {
            if let (Some(t), Some(si)) = (t, si) {
                si.write_back(t);
            }
        }
        r
    }

    /// The compute block size (CS_FIXED_BLOCK_* properties, 1 when absent).
    pub fn block_size(&self) -> [u32; 3] {
        self.code.block_size
    }

    /// Runs a compute shader over `groups` work groups (block size from its properties).
    pub fn dispatch(
        &self,
        res: &mut Resources,
        groups: [u32; 3],
        limits: &Limits,
    ) -> Result<(), ExecError> {
        self.dispatch_stats(res, groups, limits).map(|_| ())
    }

    /// [`Program::dispatch`], also returning what was executed.
    pub fn dispatch_stats(
        &self,
        res: &mut Resources,
        groups: [u32; 3],
        limits: &Limits,
    ) -> Result<Stats, ExecError> {
        let code = &self.code;
        self.expect_processor(Processor::Compute, "dispatch needs a compute shader")?;
        let [bw, bh, bd] = code.block_size;
        // saturating: three 32-bit sizes can overflow 64 bits
        let per_group = (bw as u64)
            .saturating_mul(bh as u64)
            .saturating_mul(bd as u64);
        if per_group > limits.max_group_invocations {
            return Err(ExecError::general(format!(
                "a work group of {bw}x{bh}x{bd} = {per_group} invocations exceeds the limit of {}",
                limits.max_group_invocations
            )));
        }
        let batches = per_group.div_ceil(LANES as u64) as usize;
        let states_needed = if code.has_barrier { batches } else { 1 };
        let state_bytes = states_needed as u64
            * code.num_regs as u64
            * std::mem::size_of::<machine::Reg>() as u64;
        if state_bytes > 1 << 30 {
            return Err(ExecError::general(format!(
                "a work group needs {state_bytes} bytes of registers (barrier with {batches} batches); the limit is 1 GiB"
            )));
        }
        if let Some(axis) = groups.iter().position(|&n| n > MAX_GROUPS_PER_DIMENSION) {
            return Err(ExecError::general(format!(
                "{} work groups along {}: at most {MAX_GROUPS_PER_DIMENSION} per dimension (as in Direct3D 11 and OpenGL)",
                groups[axis],
                ["x", "y", "z"][axis]
            )));
        }
        let total = groups[0] as u64 * groups[1] as u64 * groups[2] as u64;
        // every batch runs at least one instruction (its END)
        let all_batches = total * batches as u64;
        if all_batches > limits.max_dispatch_instructions {
            return Err(ExecError::general(format!(
                "a dispatch of {total} work groups of {per_group} invocations runs {all_batches} batches of 16 invocations, each at least one instruction: more than its budget of {} instructions",
                limits.max_dispatch_instructions
            )));
        }
        self.with_env(res, limits, None, |env| {
            self.dispatch_in(env, groups, total, states_needed, per_group, limits)
        })
    }

    /// The error of a dispatch whose instructions, summed over its batches,
    /// passed [`Limits::max_dispatch_instructions`].
    fn dispatch_budget_error(limits: &Limits) -> ExecError {
        ExecError::general(format!(
            "the dispatch ran more than its budget of {} instructions (summed over its batches; --dispatch-budget)",
            limits.max_dispatch_instructions
        ))
    }

    fn dispatch_in(
        &self,
        env: &Env,
        groups: [u32; 3],
        total: u64,
        states_needed: usize,
        per_group: u64,
        limits: &Limits,
    ) -> Result<Stats, ExecError> {
        let code = &self.code;
        let threads = (limits.threads.max(1) as u64).min(total.max(1)) as usize;
        let shared_words = limits.shared_memory_bytes / 4;
        if code.uses_shared && limits.shared_memory_bytes > MAX_SHARED_MEMORY_BYTES {
            return Err(ExecError::general(format!(
                "shared memory of {} bytes per work group (Limits::shared_memory_bytes) exceeds {MAX_SHARED_MEMORY_BYTES} bytes",
                limits.shared_memory_bytes
            )));
        }
        // Work groups are handed out in chunks, in increasing order, to
        // whichever thread is free (a slow core does not hold the others
        // up). Every chunk below a failing group is run to its end, so the
        // lowest failing group is the one reported, whatever the threads.
        // (at most 1,024 groups a chunk: the budget is summed chunk by chunk)
        let chunk = (total / (threads as u64 * 32)).clamp(1, 1024);
        let next = std::sync::atomic::AtomicU64::new(0);
        let failed = std::sync::atomic::AtomicU64::new(u64::MAX);
        // the instructions run so far, summed over the threads
        let spent = std::sync::atomic::AtomicU64::new(0);
        let run_chunks = || -> Result<Stats, (u64, ExecError)> {
            use std::sync::atomic::Ordering::Relaxed;
            let mut states: Vec<Batch> = (0..states_needed)
                .map(|_| {
                    let mut b = Batch::new(code);
                    self.fill_dispatch_values(&mut b, groups, env.system_values);
                    b
                })
                .collect();
            let mut shared = vec![0u32; if code.uses_shared { shared_words } else { 0 }];
            let mut stats = Stats::default();
            loop {
                let start = next.fetch_add(chunk, Relaxed);
                if start >= total || start > failed.load(Relaxed) {
                    return Ok(stats);
                }
                let before = stats.batch_instructions;
                let end = (start + chunk).min(total);
                for g in start..end {
                    let id = [
                        (g % groups[0] as u64) as u32,
                        ((g / groups[0] as u64) % groups[1] as u64) as u32,
                        (g / (groups[0] as u64 * groups[1] as u64)) as u32,
                    ];
                    let ran =
                        self.run_group(env, id, &mut states, &mut shared, per_group, &mut stats);
                    if let Err(e) = ran {
                        failed.fetch_min(g, Relaxed);
                        return Err(in_group(g, e));
                    }
                }
                // The chunk's instructions join the sum of all threads (the
                // last chunk to join sees the whole); past the budget the
                // dispatch fails. That does not depend on the threads,
                // since no group's count does; the error names no group,
                // since where the sum runs out does.
                let ran = stats.batch_instructions - before;
                if spent.fetch_add(ran, Relaxed) + ran > limits.max_dispatch_instructions {
                    failed.fetch_min(end - 1, Relaxed);
                    return Err((end - 1, Self::dispatch_budget_error(limits)));
                }
            }
        };
        let result = if threads <= 1 || total == 0 {
            run_chunks()
        } else {
            let results = parallel::parts(threads, |_| {
                parallel::caught(run_chunks).unwrap_or_else(|e| Err((0, e)))
            });
            let mut stats = Stats::default();
            let mut first_err: Option<(u64, ExecError)> = None;
            for r in results {
                match r {
                    Ok(s) => stats.add(s),
                    Err((g, e)) => {
                        if first_err.as_ref().is_none_or(|(fg, _)| g < *fg) {
                            first_err = Some((g, e));
                        }
                    }
                }
            }
            match first_err {
                Some(e) => Err(e),
                None => Ok(stats),
            }
        };
        result.map_err(|(_, e)| e)
    }

    fn run_group(
        &self,
        env: &Env,
        id: [u32; 3],
        states: &mut [Batch],
        shared: &mut [u32],
        per_group: u64,
        stats: &mut Stats,
    ) -> Result<(), ExecError> {
        let code = &self.code;
        shared.fill(0);
        let batches = per_group.div_ceil(LANES as u64) as usize;
        let start = |b: &mut Batch, k: usize| {
            let n = (per_group - (k * LANES) as u64).min(LANES as u64) as usize;
            b.reset(code, lanes_mask(n));
            self.fill_batch_values(b, k, id, env.system_values);
            code.trace_batch(b, |l| trace::Identity::Thread {
                group: id,
                thread: local_id(code.block_size, k * LANES + l),
            });
        };
        if !code.has_barrier {
            let b = &mut states[0];
            for k in 0..batches {
                start(b, k);
                b.run(code, env, shared)?;
                stats.account(b);
            }
            return Ok(());
        }
        for (k, b) in states.iter_mut().enumerate().take(batches) {
            start(b, k);
        }
        loop {
            let mut all_ended = true;
            for b in states.iter_mut().take(batches) {
                if !b.ended && b.run(code, env, shared)? == Stop::Barrier {
                    all_ended = false;
                }
            }
            if all_ended {
                break;
            }
        }
        for b in states.iter().take(batches) {
            stats.account(b);
        }
        Ok(())
    }

    /// The compute system values that stay the same for a whole dispatch
    /// (block and grid size, work dimension, subgroup values and the ones
    /// the caller gives), set once per batch state: system-value registers
    /// are read-only and `Batch::reset` leaves them alone.
    fn fill_dispatch_values(
        &self,
        b: &mut Batch,
        grid: [u32; 3],
        given: &[(SemanticName, [u32; 4])],
    ) {
        let code = &self.code;
        for sv in &code.system_values {
            let name = sv.name;
            match name {
                SemanticName::BlockSize => {
                    b.set_system_value(code, name, |c, _| vec3(code.block_size, c))
                }
                SemanticName::GridSize => b.set_system_value(code, name, |c, _| vec3(grid, c)),
                SemanticName::WorkDim => b.set_system_value(code, name, |_, _| 3),
                _ => {}
            }
        }
        fill_subgroup_values(code, b, given);
    }

    /// The thread and block ids of batch `k` of work group `id` (unless the
    /// caller gives them).
    fn fill_batch_values(
        &self,
        b: &mut Batch,
        k: usize,
        id: [u32; 3],
        given: &[(SemanticName, [u32; 4])],
    ) {
        let code = &self.code;
        let [bw, bh, _] = code.block_size;
        // The batch's first lane by division, the others by counting on
        // (the ids of lanes k*16 .. k*16+15 in an x-fastest block).
        let (bw, bh) = (bw.max(1) as u64, bh.max(1) as u64);
        let first = (k * LANES) as u64;
        let mut at = [first % bw, (first / bw) % bh, first / (bw * bh)];
        let mut locals = [[0u32; 3]; LANES];
        for l in &mut locals {
            *l = at.map(|v| v as u32);
            at[0] += 1;
            if at[0] == bw {
                at[0] = 0;
                at[1] += 1;
                if at[1] == bh {
                    at[1] = 0;
                    at[2] += 1;
                }
            }
        }
        for sv in &code.system_values {
            let name = sv.name;
            if given.iter().any(|g| g.0 == name) {
                continue;
            }
            match name {
                SemanticName::ThreadId => b.set_system_value(code, name, |c, l| vec3(locals[l], c)),
                SemanticName::BlockId => b.set_system_value(code, name, |c, _| vec3(id, c)),
                _ => {}
            }
        }
    }

    /// Runs a vertex shader on `count` vertices. `inputs[v][i]` is input `IN[i]` of
    /// vertex v as four raw words. Returns `outputs[v][k]` = `OUT[k]` of vertex v.
    pub fn run_vertices(
        &self,
        res: &mut Resources,
        inputs: &[Vec<[u32; 4]>],
        count: usize,
        limits: &Limits,
    ) -> Result<Vec<Vec<[u32; 4]>>, ExecError> {
        self.run_vertices_stats(res, inputs, count, limits)
            .map(|(o, _)| o)
    }

    /// [`Program::run_vertices`], also returning what was executed.
    pub fn run_vertices_stats(
        &self,
        res: &mut Resources,
        inputs: &[Vec<[u32; 4]>],
        count: usize,
        limits: &Limits,
    ) -> Result<(VertexOutputs, Stats), ExecError> {
        self.expect_processor(Processor::Vertex, "run_vertices needs a vertex shader")?;
        self.with_env(res, limits, None, |env| {
            self.vertices_in(env, inputs, count)
        })
    }

    fn vertices_in(
        &self,
        env: &Env,
        inputs: &[Vec<[u32; 4]>],
        count: usize,
    ) -> Result<(VertexOutputs, Stats), ExecError> {
        let code = &self.code;
        // every vertex holds at least one row, even with no outputs
        check_stage_output(
            count.saturating_mul((code.output.len as usize).max(1)),
            "vertex shader",
        )?;
        let mut outputs = Vec::with_capacity(count);
        let ids = |v: usize| [v as u32, 0];
        let stats =
            self.vertex_batches(env, inputs.into(), 0..count, ids, "vertices", |b, n| {
                for l in 0..n {
                    outputs.push(
                        (0..code.output.len as usize)
                            .map(|k| {
                                let reg = &b.regs[code.output.base as usize + k];
                                [reg[0][l], reg[1][l], reg[2][l], reg[3][l]]
                            })
                            .collect(),
                    );
                }
            })?;
        Ok((outputs, stats))
    }

    /// Runs this vertex shader over `count` invocations in batches of
    /// [`LANES`]: invocation v reads `IN[i]` = `inputs.get(v, i)` and has
    /// (VERTEXID, INSTANCEID) = `ids(v)` (BASEVERTEX, BASEINSTANCE and
    /// DRAWID 0); `output(batch, n)` takes each batch's results, its first
    /// `n` lanes the invocations in order. Errors name the invocations as `what a..b`.
    /// Runs invocations `range` (their inputs from `inputs[0..]`, `ids(0..)`:
    /// the range's own) in batches; errors name the absolute invocations.
    fn vertex_batches(
        &self,
        env: &Env,
        inputs: VertexRows<'_>,
        range: std::ops::Range<usize>,
        ids: impl Fn(usize) -> [u32; 2],
        what: &str,
        mut output: impl FnMut(&Batch, usize),
    ) -> Result<Stats, ExecError> {
        let code = &self.code;
        let mut b = Batch::new(code);
        let mut shared: Vec<u32> = Vec::new();
        let mut stats = Stats::default();
        let count = range.len();
        for first in (0..count).step_by(LANES) {
            let n = (count - first).min(LANES);
            // (a later batch's inputs on their way to the cache)
            let ahead = (first + 2 * LANES).min(count);
            inputs.fetch_ahead(ahead..(ahead + LANES).min(count));
            b.reset(code, lanes_mask(n));
            for i in 0..code.input.len as usize {
                let reg = &mut b.regs[code.input.base as usize + i];
                // (a partial batch's other lanes keep what they held)
                if n == LANES
                    && let Some(rows) = inputs.batch_rows(first, i)
                {
                    *reg = rows;
                    continue;
                }
                let mut lanes = if n == LANES {
                    [[0; 4]; LANES]
                } else {
                    lanes_of(reg)
                };
                for (l, lane) in lanes.iter_mut().enumerate().take(n) {
                    *lane = inputs.get(first + l, i);
                }
                *reg = reg_of(&lanes);
            }
            for sv in &code.system_values {
                let name = sv.name;
                match name {
                    SemanticName::VertexId | SemanticName::VertexIdNoBase => {
                        b.set_system_value(code, name, |_, l| ids(first + l)[0])
                    }
                    SemanticName::InstanceId => {
                        b.set_system_value(code, name, |_, l| ids(first + l)[1])
                    }
                    SemanticName::BaseVertex
                    | SemanticName::BaseInstance
                    | SemanticName::DrawId => b.set_system_reg(code, name, &ZERO_REG),
                    _ => {}
                }
            }
            fill_subgroup_values(code, &mut b, env.system_values);
            code.trace_batch(&mut b, |l| {
                let [vertex, instance] = ids(first + l);
                trace::Identity::Vertex { vertex, instance }
            });
            run_to_end(&mut b, code, env, &mut shared, "vertex", || {
                let at = range.start + first;
                format!("{what} {at}..{}", at + n)
            })?;
            stats.account(&b);
            output(&b, n);
        }
        Ok(stats)
    }
}

/// A register's lanes side by side: lane l's four channels.
#[inline(always)]
fn lanes_of(reg: &Reg) -> [[u32; 4]; LANES] {
    math::simd::rows_to_lanes(reg)
}

/// The register whose lane l holds `lanes[l]` ([`lanes_of`] undone).
#[inline(always)]
fn reg_of(lanes: &[[u32; 4]; LANES]) -> Reg {
    math::simd::lanes_to_rows(lanes)
}

impl Program {
    /// Runs a vertex shader once per entry of `ids` = (VERTEXID,
    /// INSTANCEID), in batches of [`LANES`]. `inputs[v * stride + i]` is
    /// `IN[i]` of invocation v (missing registers read 0). Returns the
    /// outputs flat: `OUT[k]` of invocation v at `v * output_count() + k`,
    /// written into `outputs` (whatever it held is replaced: a caller may
    /// hand in the buffer of an earlier draw to reuse its memory).
    pub fn run_vertex_invocations(
        &self,
        res: &mut Resources,
        inputs: &[[u32; 4]],
        stride: usize,
        ids: &[[u32; 2]],
        limits: &Limits,
        outputs: Vec<[u32; 4]>,
    ) -> Result<(Vec<[u32; 4]>, Stats), ExecError> {
        let rows = VertexRows::Flat {
            words: inputs,
            stride,
            count: ids.len(),
        };
        self.run_vertex_rows(res, rows, ids, limits, outputs)
    }

    /// [`Self::run_vertex_invocations`] with invocation v's input
    /// registers row v of `inputs`.
    pub fn run_vertex_rows(
        &self,
        res: &mut Resources,
        inputs: VertexRows<'_>,
        ids: &[[u32; 2]],
        limits: &Limits,
        mut outputs: Vec<[u32; 4]>,
    ) -> Result<(Vec<[u32; 4]>, Stats), ExecError> {
        let code = &self.code;
        self.expect_processor(Processor::Vertex, "a draw needs a vertex shader")?;
        let outs = code.output.len as usize;
        let chunks = self.vertex_chunks(ids.len(), limits.threads);
        // Every invocation writes all its outputs, so the buffer is only
        // sized (what it held is overwritten), then cut into the ranges'
        // shares.
        let total = ids.len() * outs;
        check_stage_output(total, "vertex shader")?;
        outputs.truncate(total);
        outputs.resize(total, [0; 4]);
        let stats = self.with_env(res, limits, None, |env| {
            // one range of invocations: its outputs into `into`, in order
            let run = |range: std::ops::Range<usize>, into: &mut [[u32; 4]]| {
                let rows = inputs.part(range.clone());
                let id = |v: usize| ids.get(range.start + v).copied().unwrap_or([0; 2]);
                let mut rest = into;
                self.vertex_batches(
                    env,
                    rows,
                    range.clone(),
                    id,
                    "vertex invocations",
                    |b, n| {
                        // the batch's invocations' slots, `outs` each
                        let take = (n * outs).min(rest.len());
                        let (mine, tail) = std::mem::take(&mut rest).split_at_mut(take);
                        rest = tail;
                        // (the next batch's slots on their way to the cache)
                        tiles::prefetch_lines(&rest[..rest.len().min(LANES * outs)]);
                        for k in 0..outs {
                            let reg = &b.regs[code.output.base as usize + k];
                            // a whole batch written in place, else lane by lane
                            if n == LANES
                                && let Some(from_k) = mine.get_mut(k..)
                                && math::simd::rows_to_strided(reg, from_k, outs)
                            {
                                continue;
                            }
                            let lanes = lanes_of(reg);
                            for (slots, lane) in mine.chunks_exact_mut(outs).zip(&lanes) {
                                slots[k] = *lane;
                            }
                        }
                    },
                )
            };
            if chunks.len() <= 1 {
                return run(0..ids.len(), &mut outputs);
            }
            // ranges on threads: the first error by range wins
            let mut shares = Vec::with_capacity(chunks.len());
            let mut rest = &mut outputs[..];
            for r in &chunks {
                let (share, tail) = std::mem::take(&mut rest).split_at_mut(r.len() * outs);
                shares.push((r.clone(), share));
                rest = tail;
            }
            let parts = parallel::each(shares, |(r, share)| run(r, share));
            let mut stats = Stats::default();
            for part in parts {
                stats.add(part?);
            }
            Ok(stats)
        })?;
        Ok((outputs, stats))
    }

    /// The ranges of `count` vertex invocations run on threads: one range
    /// unless there are at least `VERTICES_PER_THREAD` per thread and the
    /// shader writes no memory (whose order the threads would change);
    /// ranges start at multiples of [`LANES`], so the batches are those of
    /// one thread.
    fn vertex_chunks(&self, count: usize, threads: usize) -> Vec<std::ops::Range<usize>> {
        const VERTICES_PER_THREAD: usize = 4096;
        let writes = self.code.insts.iter().any(|i| {
            i.op.flags().contains(tgsi_ir::opcode::OpFlags::STORE)
                || matches!(i.op.info().category, tgsi_ir::opcode::Category::Atomic)
        });
        let threads = threads.clamp(1, (count / VERTICES_PER_THREAD).max(1));
        if writes || threads == 1 {
            return std::iter::once(0..count).collect();
        }
        let per = count.div_ceil(threads).next_multiple_of(LANES);
        (0..threads)
            .map(|t| (t * per).min(count)..((t + 1) * per).min(count))
            .filter(|r| !r.is_empty())
            .collect()
    }
}

/// `outputs[v][k]` = `OUT[k]` of vertex v, four raw words.
pub type VertexOutputs = Vec<Vec<[u32; 4]>>;

/// The input registers of a stage's vertices (control points), four raw
/// words per register: one `Vec` per vertex, or one flat slice (what the
/// draw pipeline passes, with no allocation per vertex). Registers past a
/// vertex's row, and vertices past the end, read 0.
#[derive(Clone, Copy, Debug)]
pub enum VertexRows<'a> {
    /// `rows[k][a]` is register a of vertex k.
    Nested(&'a [Vec<[u32; 4]>]),
    /// Register a of vertex k is `words[k * stride + a]`, for `count` vertices.
    Flat {
        words: &'a [[u32; 4]],
        stride: usize,
        count: usize,
    },
    /// The same as bytes: register a of vertex k is the four
    /// little-endian words at byte `16 * (k * stride + a)` (a vertex
    /// buffer that holds the registers as they are).
    Bytes {
        bytes: &'a [u8],
        stride: usize,
        count: usize,
    },
}

impl<'a> VertexRows<'a> {
    /// How many vertices there are.
    pub fn len(&self) -> usize {
        match self {
            VertexRows::Nested(rows) => rows.len(),
            VertexRows::Flat { count, .. } | VertexRows::Bytes { count, .. } => *count,
        }
    }

    /// Vertices `range` of these (as many of them as there are).
    pub fn part(&self, range: std::ops::Range<usize>) -> VertexRows<'a> {
        match *self {
            VertexRows::Nested(rows) => VertexRows::Nested(rows.get(range).unwrap_or(&[])),
            VertexRows::Flat { words, stride, .. } => VertexRows::Flat {
                words: words.get(range.start * stride..).unwrap_or(&[]),
                stride,
                count: range.len(),
            },
            VertexRows::Bytes { bytes, stride, .. } => VertexRows::Bytes {
                bytes: bytes.get(range.start * stride * 16..).unwrap_or(&[]),
                stride,
                count: range.len(),
            },
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Asks for the registers of vertices `range` (a hint, see
    /// [`tiles::prefetch_lines`]).
    pub fn fetch_ahead(&self, range: std::ops::Range<usize>) {
        match *self {
            VertexRows::Nested(_) => {}
            VertexRows::Flat { words, stride, .. } => {
                if let Some(part) = words.get(range.start * stride..range.end * stride) {
                    tiles::prefetch_lines(part);
                }
            }
            VertexRows::Bytes { bytes, stride, .. } => {
                if let Some(part) = bytes.get(range.start * stride * 16..range.end * stride * 16) {
                    tiles::prefetch_lines(part);
                }
            }
        }
    }

    /// Register `a` of the [`LANES`] vertices from `first` on as a
    /// register's rows, when they all have it and lie side by side in a
    /// buffer (read in place, [`math::simd::strided_to_rows`]); None
    /// otherwise.
    #[inline]
    fn batch_rows(&self, first: usize, a: usize) -> Option<Reg> {
        let VertexRows::Bytes {
            bytes,
            stride,
            count,
        } = *self
        else {
            return None;
        };
        if first.checked_add(LANES)? > count || a >= stride {
            return None;
        }
        let from = 16 * (first * stride + a);
        math::simd::strided_to_rows(bytes.get(from..)?, 16 * stride)
    }

    /// Register `a` of vertex `k` (0 when missing).
    pub fn get(&self, k: usize, a: usize) -> [u32; 4] {
        match self {
            VertexRows::Nested(rows) => rows.get(k).and_then(|r| r.get(a)).copied(),
            VertexRows::Flat {
                words,
                stride,
                count,
            } => (k < *count && a < *stride)
                .then(|| words.get(k * stride + a).copied())
                .flatten(),
            VertexRows::Bytes {
                bytes,
                stride,
                count,
            } => (k < *count && a < *stride)
                .then(|| bytes.get(16 * (k * stride + a)..)?.first_chunk::<16>())
                .flatten()
                .map(|w| {
                    std::array::from_fn(|c| {
                        u32::from_le_bytes([w[4 * c], w[4 * c + 1], w[4 * c + 2], w[4 * c + 3]])
                    })
                }),
        }
        .unwrap_or([0; 4])
    }
}

impl<'a> From<&'a [Vec<[u32; 4]>]> for VertexRows<'a> {
    fn from(rows: &'a [Vec<[u32; 4]>]) -> Self {
        VertexRows::Nested(rows)
    }
}

impl<'a> From<&'a Vec<Vec<[u32; 4]>>> for VertexRows<'a> {
    fn from(rows: &'a Vec<Vec<[u32; 4]>>) -> Self {
        VertexRows::Nested(rows)
    }
}

/// The local id (x, y, z) of invocation `i` of a work group of `block`
/// (x fastest).
fn local_id(block: [u32; 3], i: usize) -> [u32; 3] {
    let (bw, bh) = (block[0].max(1) as usize, block[1].max(1) as usize);
    [
        (i % bw) as u32,
        ((i / bw) % bh) as u32,
        (i / (bw * bh)) as u32,
    ]
}

/// Runs batch `b` of a shader that may not wait at a BARRIER (every stage
/// but compute) to its end. A run error is prefixed with `what()` (the
/// invocations of the batch, e.g. "vertices 0..16"); a BARRIER is an error
/// naming `stage`.
#[inline(always)]
fn run_to_end(
    b: &mut Batch,
    code: &Code,
    env: &Env,
    shared: &mut [u32],
    stage: &str,
    what: impl FnOnce() -> String,
) -> Result<(), ExecError> {
    let stop = b.run(code, env, shared).map_err(|e| ExecError {
        message: format!("{}: {}", what(), e.message),
        ..e
    })?;
    if stop == Stop::Barrier {
        return Err(ExecError::general(format!("BARRIER in a {stage} shader")));
    }
    Ok(())
}

/// Checks that `indices` make whole groups of `per` vertices (`whole()`
/// names the groups, e.g. "patches of 3 control points") and name only
/// vertices below `vertices` (an `item` is one group, in errors).
fn check_group_indices(
    indices: &[u32],
    vertices: usize,
    per: usize,
    item: &str,
    whole: impl FnOnce() -> String,
) -> Result<(), ExecError> {
    if !indices.len().is_multiple_of(per) {
        return Err(ExecError::general(format!(
            "{} indices do not make whole {}",
            indices.len(),
            whole()
        )));
    }
    if let Some((k, &i)) = indices
        .iter()
        .enumerate()
        .find(|(_, i)| **i as usize >= vertices)
    {
        return Err(ExecError::general(format!(
            "{item} {} names vertex {i}; there are {vertices} vertices",
            k / per
        )));
    }
    Ok(())
}

impl Program {
    /// An error unless this is a `processor` shader: "`needs`, this is a
    /// (kind) shader".
    fn expect_processor(&self, processor: Processor, needs: &str) -> Result<(), ExecError> {
        if self.code.processor != processor {
            return Err(ExecError::general(format!(
                "{needs}, this is a {} shader",
                self.code.processor
            )));
        }
        Ok(())
    }
}

/// Subgroup system values (the batch is the subgroup), then the values the
/// caller gave, which replace whatever the stage computed.
/// Component `c` of a 3-vector system value (w is 0).
fn vec3(v: [u32; 3], c: usize) -> u32 {
    if c < 3 { v[c] } else { 0 }
}

/// The subgroup system values and those the caller gives (`given`): for
/// most programs none, decided where it is called.
#[inline(always)]
fn fill_subgroup_values(code: &Code, b: &mut Batch, given: &[(SemanticName, [u32; 4])]) {
    if !code.system_values.is_empty() || !given.is_empty() {
        fill_subgroup_values_of(code, b, given);
    }
}

/// [`fill_subgroup_values`] of a program that has some, out of line.
#[inline(never)]
fn fill_subgroup_values_of(code: &Code, b: &mut Batch, given: &[(SemanticName, [u32; 4])]) {
    let lo = |m: u32, c: usize| if c == 0 { m & 0xFFFF } else { 0 };
    for sv in &code.system_values {
        let f: fn(usize, usize) -> u32 = match sv.name {
            SemanticName::SubgroupSize => |_, _| LANES as u32,
            SemanticName::SubgroupInvocation => |_, l| l as u32,
            _ => continue,
        };
        b.set_system_value(code, sv.name, f);
    }
    for sv in &code.system_values {
        let mask: fn(usize) -> u32 = match sv.name {
            SemanticName::SubgroupEqMask => |l| 1 << l,
            SemanticName::SubgroupGeMask => |l| 0xFFFF << l,
            SemanticName::SubgroupGtMask => |l| 0xFFFF << (l + 1),
            SemanticName::SubgroupLeMask => |l| (2u32 << l) - 1,
            SemanticName::SubgroupLtMask => |l| (1u32 << l) - 1,
            _ => continue,
        };
        b.set_system_value(code, sv.name, move |c, l| lo(mask(l), c));
    }
    for &(name, words) in given {
        b.set_system_value(code, name, move |c, _| words[c]);
    }
}

#[cfg(test)]
mod fragment_tests;
#[cfg(test)]
mod stage_tests;
#[cfg(test)]
mod tests;

/// A batch's error, naming its work group `g` (out of the dispatch loop:
/// errors are rare).
#[cold]
#[inline(never)]
fn in_group(g: u64, e: ExecError) -> (u64, ExecError) {
    let message = format!("work group {g}: {}", e.message);
    (g, ExecError { message, ..e })
}
