//! Rasterizing a [`VertexStream`] into the targets, a chunk of input
//! primitives at a time ([`setup_chunk_for`]: their set-up primitives stay
//! in the caches and their buffers are reused): setup of the chunk's
//! primitives, then bands of tile rows (4x4 tiles) that the
//! `Limits::threads` threads take one at a time. Each primitive is binned
//! once to the bands its box reaches; a band walks its primitives in draw
//! order, so a pixel's fragments are merged in primitive order and the
//! targets get the same bits for any thread count (buffer and image writes
//! of fragment shaders follow the compute rules).
//!
//! Per tile: coverage ([`super::raster`]), then — when the fragment shader
//! allows it (see [`tgsi_exec::FragmentTraits`]) — the depth/stencil test
//! before shading (the same results as after it), the fragment shader over
//! the covered quads, the depth/stencil test of the survivors otherwise,
//! and blending ([`super::merge`]).

use super::blank::{BLOCK, Found};
use super::colors::{ColorRows, LateTest, for_each_lane, merge_batch, merge_sample};
use super::early_depth::{SampledTile, TileRows, early_test_each_sample, early_test_four_samples};
use super::input::VertexStream;
use super::merge::{DepthFormat, DepthStencilTest, DepthTarget};
use super::raster::{SamplePattern, TileEdges};
use super::setup::{
    ClipScratch, Linkage, OutputLayout, ProjectedVertex, RasterPrim, SUBPIXEL_BITS, Setup,
    raster_rect, viewport_of,
};
use super::state::{ClearOnLoad, RenderState};
use crate::reuse::Kept;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tgsi_exec::LANES;
use tgsi_exec::budget::{BudgetShare, DrawBudget};
use tgsi_exec::fragment::plane64;
use tgsi_exec::fragment_tiles::{INPUT_SETS, QuadCoverage};
use tgsi_exec::texture::Texture;
use tgsi_exec::texture::linear::LinearCopies;
use tgsi_exec::{
    ExecError, FragmentOutput, FragmentScratch, FragmentSession, InputSource, Limits, Program,
    Resources, ShadedBatch, Stats, TileCoverage,
};

/// Tile rows per band (the unit of work a thread takes) on `threads`
/// threads: on one, tall bands (a band's walk has costs of its own: each
/// primitive's edges and box per band, and a batch left partly filled at
/// its end); on several, short ones, so that the threads' last bands end
/// close together. Measured on the Intel Xeon with AVX-512 (`tgsi bench
/// mesh --scene NAME --reps 21`, builds run alternately, lowest medians):
/// at one thread, 16 rows against 4 took the small torus from 0.0073 to
/// 0.0071 s per frame, the dense one from 0.0190 to 0.0185 s, its 4×
/// MSAA from 0.0146 to 0.0143 s, the tiny triangles from 0.0848 to 0.0841
/// s; at two threads 16 rows made the tiny triangles slower (0.0486
/// against 0.0450 s) and 8 rows measured as 4 within noise. The pictures
/// do not depend on it; the batches do, as they do on the setup chunk's
/// size (see [`batching_threads`]).
fn band_tile_rows_for(threads: usize) -> u32 {
    if threads <= 1 { 16 } else { 4 }
}

/// One band: tile rows `rows`, the primitives whose boxes reach them (by
/// index, in draw order) and their pixels in every target.
struct Band<'a> {
    rows: std::ops::Range<u32>,
    prims: Vec<u32>,
    colors: Vec<ColorRows<'a>>,
    depth: Option<(&'a mut [u32], &'a mut [u8])>,
}

/// Per-draw constants every band reads.
struct Shared<'a> {
    stream: &'a VertexStream,
    linkage: &'a Linkage,
    prims: PrimList<'a>,
    pattern: SamplePattern,
    test: Option<DepthStencilTest>,
    state: &'a RenderState,
    width: u32,
    height: u32,
    samples: u32,
    /// Quads of several tiles and primitives share batches.
    pack: bool,
    /// Some colour target blends: a batch then never holds one quad
    /// position twice (its merge reads every old texel before writing).
    blends: bool,
    /// The channels the fragment shader reads of each input
    /// ([`tgsi_exec::decode::Code::input_reads`]).
    reads: &'a [u8],
    /// Batches are merged whole ([`merge_batch`]): depth/stencil tested
    /// before shading or not at all.
    whole_batches: bool,
    /// What each band clears its rows to before it shades them (the
    /// draw's first chunk only).
    clear: Option<&'a ClearOnLoad>,
    /// A debugger keeping a pixel's history ([`tgsi_exec::trace`]): the
    /// draw then tests and merges fragment by fragment, after shading, and
    /// reports each sample at that pixel.
    watch: Option<(&'a tgsi_exec::trace::Tracer, (u32, u32))>,
    /// The draw's instruction budget, which the bands' batches spend.
    budget: &'a DrawBudget,
}

/// Runs `fs` over the primitives of `stream` (laid out as `layout`, linked
/// to the fragment inputs by `linkage`) into `colors` (target n gets
/// `COLOR[n]`) and `depth`, under `state`. Its fragment batches spend
/// `limits.max_draw_instructions` whole ([`crate::stages::draw_with`]
/// counts the earlier stages in it too).
#[allow(clippy::too_many_arguments)]
pub fn rasterize(
    stream: &VertexStream,
    layout: &OutputLayout,
    linkage: &Linkage,
    fs: &Program,
    res: &mut Resources,
    state: &RenderState,
    colors: &mut [Texture],
    depth: Option<&mut DepthTarget>,
    limits: &Limits,
) -> Result<Stats, ExecError> {
    let targets = Targets { colors, depth };
    let drawn = Drawn { stream, layout };
    let budget = DrawBudget::new(limits.max_draw_instructions, 0);
    rasterize_after(drawn, linkage, fs, res, state, targets, limits, &budget)
}

/// The primitives a draw's earlier stages made, and their layout.
pub(crate) struct Drawn<'a> {
    pub stream: &'a VertexStream,
    pub layout: &'a OutputLayout,
}

/// [`rasterize`] spending `budget`, the draw's (its earlier stages may
/// have spent some).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rasterize_after(
    drawn: Drawn<'_>,
    linkage: &Linkage,
    fs: &Program,
    res: &mut Resources,
    state: &RenderState,
    targets: Targets<'_>,
    limits: &Limits,
    budget: &DrawBudget,
) -> Result<Stats, ExecError> {
    let Drawn { stream, layout } = drawn;
    let threads = batching_threads(fs, limits);
    let batching = Batching {
        packing: limits.pack_quads,
        chunk: setup_chunk_for(threads),
        band_rows: band_tile_rows_for(threads),
        blank_test: limits.blank_test,
    };
    rasterize_with(
        stream, layout, linkage, fs, res, state, targets, limits, batching, budget,
    )
}

/// The thread count a draw's chunks and bands are cut for: the draw's, or
/// several whatever it is when a fragment batch may reach the instruction
/// budget. The budget counts a batch's instructions, both sides of a
/// branch its lanes split on, so whether a batch reaches it depends on the
/// lanes batched with it, and the batches on the chunks and bands (a batch
/// ends with its band). Cut the same way on any number of threads, the
/// batches are the same, and so is whether the draw stops. A program that
/// never jumps back visits at most its length per batch: below the budget,
/// its draws keep the cut measured fastest on one thread.
fn batching_threads(fs: &Program, limits: &Limits) -> usize {
    match fs.code().most_visited() {
        Some(most) if most <= limits.max_instructions => limits.threads,
        _ => limits.threads.max(2),
    }
}

/// The targets of a draw.
pub(crate) struct Targets<'a> {
    pub colors: &'a mut [Texture],
    pub depth: Option<&'a mut DepthTarget>,
}

/// How a draw's work is cut up (fixed for [`rasterize`]; tests vary it to
/// check that the bits do not depend on it).
#[derive(Clone, Copy)]
struct Batching {
    /// False keeps one tile per batch even where the shader allows packing quads.
    packing: bool,
    /// Input primitives set up at a time.
    chunk: usize,
    /// Tile rows per band.
    band_rows: u32,
    /// Whether setup leaves out blank triangles a block at a time
    /// ([`Limits::blank_test`]).
    blank_test: bool,
}

/// [`rasterize_after`] cut up as `batching` says.
#[allow(clippy::too_many_arguments)]
fn rasterize_with(
    stream: &VertexStream,
    layout: &OutputLayout,
    linkage: &Linkage,
    fs: &Program,
    res: &mut Resources,
    state: &RenderState,
    targets: Targets<'_>,
    limits: &Limits,
    batching: Batching,
    budget: &DrawBudget,
) -> Result<Stats, ExecError> {
    let Targets { colors, depth } = targets;
    let Batching {
        packing,
        chunk,
        band_rows,
        blank_test,
    } = batching;
    let chunk = chunk.max(1);
    let (width, height, samples) = target_size(colors, depth.as_deref())?;
    let cut = Bands {
        tile_rows: band_rows.max(1),
        height,
    };
    let viewport = viewport_of(state, width, height);
    let mut windows = PooledWindows(WINDOW_POOL.take());
    Setup::window_vertices(stream, layout, &viewport, limits.threads, &mut windows.0);
    let setup = Setup {
        stream,
        layout,
        state,
        viewport,
        rect: raster_rect(state, width, height),
        windows: &windows.0,
        sample_span: SamplePattern::new(samples).span(),
    };
    let test = depth
        .as_deref()
        .map(|d| DepthStencilTest::of_draw(d.format, state, &viewport));
    let traits = fs.fragment_traits(samples);
    let watch = fs
        .code()
        .tracer
        .as_deref()
        .and_then(|t| t.watched_pixel().map(|p| (t, p)));
    let direct3d = fs.is_direct3d();
    let target_count = colors.len();
    let (colors, mut depth) = (colors, depth);
    // Primitives go through setup and the bands a chunk at a time, in
    // draw order: the set-up primitives of a chunk stay in the caches and
    // their buffers are reused from chunk to chunk and draw to draw.
    let n = stream.primitives.len();
    let chunks = n.div_ceil(chunk).max(1);
    let mut pooled = PrimBuffers::take();
    let buffers = &mut pooled.0;
    let mut stats = Stats::default();
    // the sRGB textures' decoded copies, made once for all the chunks, as
    // large as the samples inside the draw's vertices allow
    let covered = if LinearCopies::wants_samples(res) {
        covered_samples(&windows.0, width, height) * u64::from(samples)
    } else {
        0
    };
    let linear = LinearCopies::for_draw(res, covered, limits);
    for k in 0..chunks {
        let range = k * chunk..((k + 1) * chunk).min(n);
        let prims = setup_chunk(&setup, range, limits.threads, cut, blank_test, buffers);
        let shared = Shared {
            stream,
            linkage,
            prims,
            pattern: SamplePattern::new(samples),
            test,
            state,
            width,
            height,
            samples,
            pack: packing && traits.pack_quads && watch.is_none(),
            blends: state.blend.iter().any(|b| b.enabled),
            reads: &fs.code().input_reads,
            whole_batches: (test.is_none() || traits.early_depth) && watch.is_none(),
            clear: (k == 0 && !state.clear.is_empty()).then_some(&state.clear),
            watch,
            budget,
        };
        let size = [width, height, samples];
        let bands = bands_of(
            prims,
            &mut *colors,
            depth.as_deref_mut(),
            size,
            cut,
            direct3d,
        )?;
        let progress = Progress {
            chunk: k as u64,
            chunks: chunks as u64,
        };
        stats.add(run_bands(
            fs,
            res,
            limits,
            &shared,
            bands,
            target_count,
            &linear,
            progress,
        )?);
    }
    Ok(stats)
}

fn general(message: String) -> ExecError {
    ExecError {
        instruction: None,
        message,
    }
}

/// The width, height and sample count every target of a draw shares.
pub(crate) fn target_size(
    colors: &[Texture],
    depth: Option<&DepthTarget>,
) -> Result<(u32, u32, u32), ExecError> {
    let (width, height, samples) = match (colors.first(), depth) {
        (Some(t), _) => (t.width, t.height, t.samples.max(1)),
        (None, Some(d)) => (d.width, d.height, d.samples),
        (None, None) => {
            return Err(general(
                "a draw needs a render target or a depth target".into(),
            ));
        }
    };
    for (n, t) in colors.iter().enumerate() {
        if (t.width, t.height, t.samples.max(1)) != (width, height, samples) {
            return Err(general(format!(
                "render target {n} is {}x{} with {} samples; the draw's targets are {width}x{height} with {samples}",
                t.width, t.height, t.samples
            )));
        }
    }
    if let Some(d) = depth
        && (d.width, d.height, d.samples) != (width, height, samples)
    {
        return Err(general(format!(
            "the depth target is {}x{} with {} samples; the render targets are {width}x{height} with {samples}",
            d.width, d.height, d.samples
        )));
    }
    Ok((width, height, samples))
}

/// The bands `cut` makes, each with the primitives whose boxes reach it
/// (in draw order) and its rows of every target.
fn bands_of<'t>(
    prims: PrimList<'_>,
    colors: &'t mut [Texture],
    depth: Option<&'t mut DepthTarget>,
    [width, height, samples]: [u32; 3],
    cut: Bands,
    direct3d: bool,
) -> Result<Vec<Band<'t>>, ExecError> {
    let ranges: Vec<std::ops::Range<u32>> = (0..cut.count()).map(|k| cut.rows(k)).collect();
    let mut bands: Vec<Band<'_>> = ranges
        .iter()
        .map(|r| Band {
            rows: r.clone(),
            prims: Vec::new(),
            colors: Vec::new(),
            depth: None,
        })
        .collect();
    // each band's list: the setup threads' bins in order, renumbered
    for (k, band) in bands.iter_mut().enumerate() {
        let bins = prims
            .parts
            .iter()
            .map(|part| (part.prims.len(), part.bins.get(k)));
        let len = bins.clone().map(|(_, b)| b.map_or(0, Vec::len)).sum();
        band.prims.reserve_exact(len);
        let mut first = 0;
        for (count, bin) in bins {
            band.prims
                .extend(bin.into_iter().flatten().map(|&i| first + i));
            first += count as u32;
        }
    }
    let pixel_rows =
        |r: &std::ops::Range<u32>| ((r.end * 4).min(height) - (r.start * 4).min(height)) as usize;
    for t in colors.iter_mut() {
        let (format, bpt) = (t.format, t.format.bytes_per_texel());
        let pitch = width as usize * samples as usize * bpt;
        let Some(level) = t.levels.first_mut() else {
            return Err(general("a render target without storage".into()));
        };
        if level.len() < pitch * height as usize {
            return Err(general("a render target smaller than its size".into()));
        }
        let mut rest: &mut [u8] = &mut level[..pitch * height as usize];
        for (k, r) in ranges.iter().enumerate() {
            let (a, b) = std::mem::take(&mut rest).split_at_mut(pixel_rows(r) * pitch);
            bands[k]
                .colors
                .push(ColorRows::new(a, pitch, format, direct3d));
            rest = b;
        }
    }
    if let Some(d) = depth {
        let pitch = width as usize * samples as usize;
        let (mut zs, mut ss): (&mut [u32], &mut [u8]) = (&mut d.depth[..], &mut d.stencil[..]);
        for (k, r) in ranges.iter().enumerate() {
            let n = pixel_rows(r) * pitch;
            let (za, zb) = std::mem::take(&mut zs).split_at_mut(n);
            let (sa, sb) = std::mem::take(&mut ss).split_at_mut(n);
            bands[k].depth = Some((za, sa));
            zs = zb;
            ss = sb;
        }
    }
    Ok(bands)
}

/// Shades the bands, taken by the threads one at a time, and sums the
/// statistics; the first error by band wins, whatever thread met it.
#[allow(clippy::too_many_arguments)]
fn run_bands(
    fs: &Program,
    res: &mut Resources,
    limits: &Limits,
    shared: &Shared<'_>,
    bands: Vec<Band<'_>>,
    target_count: usize,
    linear: &LinearCopies,
    progress: Progress,
) -> Result<Stats, ExecError> {
    let (samples, height) = (shared.samples, shared.height);
    let pixel_rows =
        |r: &std::ops::Range<u32>| ((r.end * 4).min(height) - (r.start * 4).min(height)) as usize;
    let threads = limits.threads.clamp(1, bands.len().max(1));
    let next = AtomicUsize::new(0);
    let rows_done = AtomicUsize::new(0);
    let bands: Vec<Mutex<Band<'_>>> = bands.into_iter().map(Mutex::new).collect();
    let linear = Some(linear);
    let results = fs.fragment_session(res, limits, target_count, samples, linear, |session| {
        // One thread's share: bands in the order it takes them.
        let work = || {
            let mut scratch = session.scratch(height);
            let mut done = Vec::new();
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(band) = bands.get(k) else {
                    break;
                };
                let mut band = band.lock().unwrap_or_else(|e| e.into_inner());
                done.push((k, run_band(session, shared, &mut band, &mut scratch)));
                let rows = pixel_rows(&band.rows);
                let finished = rows_done.fetch_add(rows, Ordering::Relaxed) + rows;
                progress.report(limits, finished as u64, u64::from(height));
            }
            done
        };
        if threads <= 1 {
            work()
        } else {
            let shares = tgsi_exec::parallel::parts(threads, |_| tgsi_exec::parallel::caught(work));
            let mut all = Vec::new();
            for share in shares {
                match share {
                    Ok(done) => all.extend(done),
                    Err(e) => all.push((usize::MAX, Err(e))),
                }
            }
            all
        }
    })?;
    let mut result = results;
    result.sort_by_key(|(k, _)| *k);
    let result = result.into_iter().map(|(_, r)| r);
    let mut stats = Stats::default();
    for r in result {
        stats.add(r?);
    }
    Ok(stats)
}

/// Where a draw's progress is: chunk `chunk` of `chunks` (each reports
/// the pixel rows its bands finished).
#[derive(Clone, Copy)]
struct Progress {
    chunk: u64,
    chunks: u64,
}

impl Progress {
    /// Reports `rows` of `height` done in this chunk as the draw's share.
    fn report(self, limits: &Limits, rows: u64, height: u64) {
        limits
            .progress
            .report(self.chunk * height + rows, self.chunks * height);
    }
}

/// Input primitives set up together before their bands are shaded, on
/// `threads` threads. On one thread a chunk costs nothing but its loop, so
/// chunks are small enough for their set-up primitives (about 300 bytes
/// each) to stay in the core's cache until they are shaded; on several,
/// each chunk's setup and bands start the threads twice, so chunks are
/// large (measured on the torus scene of 65,536 triangles).
fn setup_chunk_for(threads: usize) -> usize {
    if threads <= 1 { 4096 } else { 32768 }
}

/// Primitives per thread below which setup runs on one thread.
const SETUP_PER_THREAD: usize = 2048;

/// The set-up primitives of a chunk, each setup thread's share apart,
/// kept from chunk to chunk and (through [`PRIM_POOL`]) from draw to draw,
/// so that their memory is written while in the caches rather than
/// freshly mapped.
#[derive(Default)]
struct PrimBuffers {
    parts: Vec<SetupShare>,
}

/// What one setup thread made of its run of input primitives.
#[derive(Default)]
struct SetupShare {
    prims: Vec<RasterPrim>,
    /// Per band, the primitives (numbers in `prims`) whose boxes reach it,
    /// binned while each primitive is in the cache.
    bins: Vec<Vec<u32>>,
}

/// How the tile rows of a target `height` pixels high are cut into bands
/// of `tile_rows` each (the last one shorter).
#[derive(Clone, Copy, Debug)]
struct Bands {
    tile_rows: u32,
    height: u32,
}

impl Bands {
    fn count(self) -> u32 {
        self.height.div_ceil(4).div_ceil(self.tile_rows)
    }

    /// Band `k`'s tile rows.
    fn rows(self, k: u32) -> std::ops::Range<u32> {
        let all = self.height.div_ceil(4);
        k * self.tile_rows..((k + 1) * self.tile_rows).min(all)
    }

    /// The bands a primitive's box reaches.
    fn reached(self, prim: &RasterPrim) -> std::ops::RangeInclusive<usize> {
        let band_of =
            |y: i64| (y.clamp(0, self.height as i64 - 1) as u32 / 4 / self.tile_rows) as usize;
        band_of(prim.bbox[1])..=band_of(prim.bbox[3])
    }
}

/// The set-up primitives of a chunk in draw order, numbered across the
/// setup threads' shares, which stay where the threads wrote them (copying
/// them into one list cost as much as a part of setup).
#[derive(Clone, Copy)]
struct PrimList<'a> {
    parts: &'a [SetupShare],
}

#[cfg(test)]
impl<'a> PrimList<'a> {
    fn iter(self) -> impl Iterator<Item = &'a RasterPrim> {
        self.parts.iter().flat_map(|part| &part.prims)
    }
}

impl std::ops::Index<usize> for PrimList<'_> {
    type Output = RasterPrim;

    /// Primitive `p` in draw order.
    fn index(&self, mut p: usize) -> &RasterPrim {
        let (last, first) = self
            .parts
            .split_last()
            .map_or((&[][..], &[][..]), |(l, f)| (l.prims.as_slice(), f));
        for part in first {
            if p < part.prims.len() {
                return &part.prims[p];
            }
            p -= part.prims.len();
        }
        &last[p]
    }
}

/// The buffers of finished draws (one set per draw running at once, a few
/// kept at most).
static PRIM_POOL: Kept<PrimBuffers> = Kept::new(4);

impl PrimBuffers {
    /// A set from the pool (a new one when it is empty), going back to the
    /// pool when dropped, whatever way the draw ends.
    fn take() -> PooledPrims {
        PooledPrims(PRIM_POOL.take())
    }
}

/// The vertices' window positions of the last draws ([`Setup::windows`]).
static WINDOW_POOL: Kept<Vec<ProjectedVertex>> = Kept::new(2);

/// A window-position list lent by [`WINDOW_POOL`], given back when dropped.
struct PooledWindows(Vec<ProjectedVertex>);

impl Drop for PooledWindows {
    fn drop(&mut self) {
        WINDOW_POOL.give(std::mem::take(&mut self.0));
    }
}

/// A [`PrimBuffers`] set lent by [`PRIM_POOL`], given back when dropped.
struct PooledPrims(PrimBuffers);

impl Drop for PooledPrims {
    fn drop(&mut self) {
        PRIM_POOL.give(std::mem::take(&mut self.0));
    }
}

/// Sets up the input primitives `range` of the stream, in order:
/// contiguous runs of them on up to `threads` threads, each into its share
/// of `buffers`, binned into the bands of a target `height` pixels high.
fn setup_chunk<'b>(
    setup: &Setup<'_>,
    range: std::ops::Range<usize>,
    threads: usize,
    cut: Bands,
    blank_test: bool,
    buffers: &'b mut PrimBuffers,
) -> PrimList<'b> {
    let n = range.len();
    let threads = threads.clamp(1, n.div_ceil(SETUP_PER_THREAD).max(1));
    let bands = cut.count() as usize;
    let run = |part: std::ops::Range<usize>, out: &mut SetupShare| {
        // The lists are worked on from this thread's stack: the threads'
        // shares sit side by side in `parts`, and a list's length written
        // there at every push would bounce the cache line that holds both
        // shares' headers between the cores (tiny triangles at two threads
        // ran a third slower when the two headers met on one line).
        let SetupShare {
            mut prims,
            mut bins,
        } = std::mem::take(out);
        prims.clear();
        bins.resize_with(bands, Vec::new);
        bins.iter_mut().for_each(Vec::clear);
        let mut scratch = ClipScratch::default();
        // a block of triangles at a time, those that certainly set up
        // nothing left out without a branch each
        for first in part.clone().step_by(BLOCK) {
            let count = (part.end - first).min(BLOCK);
            let found = if blank_test {
                setup.blank_triangles(first, count)
            } else {
                Found::default()
            };
            let block = u16::MAX >> (BLOCK - count);
            for_each_lane(!found.blank & block, |l| {
                let before = prims.len();
                let shown = found.shown >> l & 1 != 0;
                setup.primitive_shown(first + l, shown, &mut scratch, &mut prims);
                for (p, prim) in prims.iter().enumerate().skip(before) {
                    for bin in &mut bins[cut.reached(prim)] {
                        bin.push(p as u32);
                    }
                }
            });
        }
        *out = SetupShare { prims, bins };
    };
    let parts = &mut buffers.parts;
    if parts.len() < threads {
        parts.resize_with(threads, SetupShare::default);
    }
    let parts = &mut parts[..threads];
    if let [one] = parts {
        run(range, one);
    } else {
        let per = n.div_ceil(threads);
        let shares = parts.iter_mut().enumerate().map(|(t, out)| {
            let part = range.start + (t * per).min(n)..range.start + ((t + 1) * per).min(n);
            (part, out)
        });
        tgsi_exec::parallel::each(shares.collect(), |(part, out)| run(part, out));
    }
    PrimList { parts }
}

/// Bit q set for each quad q of a tile's 16-lane mask with a lane set.
#[inline(always)]
fn covered_quads(mask: u16) -> u32 {
    (0..4).fold(0, |quads, q| {
        quads | u32::from(mask >> (4 * q) & 0xF != 0) << q
    })
}

/// Quads waiting for a batch (in draw order) and which primitive each
/// input set holds.
struct Pending {
    quads: [QuadCoverage; 4],
    /// The primitive (index in `Shared::prims`) of each quad.
    prims: [usize; 4],
    len: usize,
    /// The primitive whose inputs each input set holds.
    sets: [Option<usize>; INPUT_SETS],
}

impl Pending {
    fn new() -> Pending {
        Pending {
            quads: [QuadCoverage::default(); 4],
            prims: [0; 4],
            len: 0,
            sets: [None; INPUT_SETS],
        }
    }

    /// Queues quad `q` of the tile at (x0, y0), covering `coverage`, of
    /// primitive `p` whose inputs are in set `inputs`.
    #[inline(always)]
    fn push(&mut self, x0: u32, y0: u32, q: usize, coverage: [u32; 4], inputs: usize, p: usize) {
        let n = self.len;
        self.quads[n] = QuadCoverage::of_tile(x0, y0, q, coverage, inputs);
        self.prims[n] = p;
        self.len += 1;
    }

    /// Whether quad `q` of the tile at (x0, y0) is waiting already (of an
    /// earlier primitive).
    #[inline]
    fn holds(&self, x0: u32, y0: u32, q: usize) -> bool {
        let (dx, dy) = tgsi_exec::fragment::lane_offset(4 * q);
        let (x, y) = (x0 + dx, y0 + dy);
        self.quads[..self.len].iter().any(|w| (w.x, w.y) == (x, y))
    }

    /// The input set holding primitive `p`'s inputs, filling one no waiting
    /// quad reads when none does (with at most 3 quads waiting, one is
    /// free). Without packing, set 0 (what [`FragmentSession::shade_tile`] reads).
    fn set_for(
        &mut self,
        p: usize,
        pack: bool,
        sh: &Shared<'_>,
        scratch: &mut FragmentScratch,
    ) -> usize {
        let k = if pack {
            if let Some(k) = self.sets.iter().position(|s| *s == Some(p)) {
                return k;
            }
            let busy = |k: usize| self.quads[..self.len].iter().any(|q| q.inputs == k);
            (0..INPUT_SETS).find(|&k| !busy(k)).unwrap_or(0)
        } else if self.sets[0] == Some(p) {
            return 0;
        } else {
            0
        };
        let prim = &sh.prims[p];
        let env = scratch.set_mut(k);
        prim.fill_inputs(sh.stream, sh.linkage, sh.reads, &mut env.inputs);
        // field by field where the set holds a position already (a whole
        // new value was built aside and copied in pieces its stores held up)
        match &mut env.position {
            InputSource::Window { z, inv_w, clip_w } => {
                *z = prim.depth;
                *inv_w = prim.inv_w;
                *clip_w = sh.linkage.clip_w;
            }
            other => *other = prim.position(sh.linkage),
        }
        env.face = if prim.front { 1.0 } else { -1.0 };
        env.primitive_id = prim.id;
        self.sets[k] = Some(p);
        k
    }
}

/// Per-band state of the walk.
struct Walk<'s, 'b> {
    session: &'s FragmentSession<'s>,
    scratch: &'s mut FragmentScratch,
    stats: Stats,
    /// The band's count of the draw's budget.
    share: BudgetShare<'s>,
    early: bool,
    y_lo: i64,
    row_pitch: usize,
    band: &'s mut Band<'b>,
}

impl Walk<'_, '_> {
    /// Queues quad `q` of the tile at (x0, y0), covering `cov`, of
    /// primitive `p` reading input set `inputs`, and shades the waiting
    /// quads when they fill a batch. With blending, the waiting quads are
    /// shaded first when one of them is at this quad's position: a batch's
    /// merge reads the old texels of all its quads before writing any, so
    /// a second fragment of one pixel in it would blend over the wrong
    /// colour.
    #[inline(always)]
    fn queue(
        &mut self,
        sh: &Shared<'_>,
        pending: &mut Pending,
        [x0, y0]: [u32; 2],
        q: usize,
        cov: [u32; 4],
        (inputs, p): (usize, usize),
    ) -> Result<(), ExecError> {
        if sh.blends && pending.holds(x0, y0, q) {
            self.flush(sh, pending)?;
        }
        pending.push(x0, y0, q, cov, inputs, p);
        if pending.len == 4 {
            self.flush(sh, pending)?;
        }
        Ok(())
    }

    /// Shades the tile at (x0, y0), every lane covered, of primitive `p`
    /// reading input set `inputs`, as one batch: the batch that queuing
    /// its four quads in an empty queue makes.
    fn shade_whole_tile(
        &mut self,
        sh: &Shared<'_>,
        [x0, y0]: [u32; 2],
        (inputs, p): (usize, usize),
    ) -> Result<(), ExecError> {
        let quads = std::array::from_fn(|q| QuadCoverage::of_tile(x0, y0, q, [1; 4], inputs));
        self.shade(sh, &quads, &[p; 4], sh.pack)
    }

    /// Shades the waiting quads (the free places of the batch cover
    /// nothing) and empties the queue.
    #[inline(always)]
    fn flush(&mut self, sh: &Shared<'_>, pending: &mut Pending) -> Result<(), ExecError> {
        if pending.len == 0 {
            return Ok(());
        }
        for q in pending.len..4 {
            pending.quads[q] = QuadCoverage::default();
        }
        self.shade(sh, &pending.quads, &pending.prims, sh.pack)?;
        pending.len = 0;
        Ok(())
    }

    /// Shades `quads` (primitive `prims[q]` each) in one batch and merges
    /// its fragments in slot order. Inlined, with [`Self::flush`], where the
    /// walk calls them (`docs/drawing-speed.md`, "Calls around a batch").
    #[inline(always)]
    fn shade(
        &mut self,
        sh: &Shared<'_>,
        quads: &[QuadCoverage; 4],
        prims: &[usize; 4],
        packed: bool,
    ) -> Result<(), ExecError> {
        let samples = sh.samples as usize;
        let (early, y_lo, row_pitch) = (self.early, self.y_lo, self.row_pitch);
        let band = &mut *self.band;
        let mut sink = |out: &FragmentOutput| {
            let prim = &sh.prims[prims[out.quad]];
            let (x, y) = (out.x, out.y);
            let base = (y as i64 - y_lo) as usize * row_pitch + x as usize * samples;
            let watched = sh
                .watch
                .filter(|(_, p)| *p == (x, y))
                .map(|(t, _)| (t, prim.id));
            let row = y - y_lo as u32;
            for s in 0..samples {
                if out.coverage & (1 << s) == 0 {
                    continue;
                }
                let late = match (early, &sh.test, band.depth.as_mut()) {
                    (false, Some(test), Some((zs, ss))) => Some(LateTest {
                        test,
                        depth: out.depth.unwrap_or_else(|| sample_depth(sh, prim, x, y, s)),
                        front: prim.front,
                        stored_depth: &mut zs[base + s],
                        stored_stencil: &mut ss[base + s],
                    }),
                    _ => None,
                };
                let at = (x, row, s, samples);
                merge_sample(out, at, late, &mut band.colors, sh.state, watched);
            }
        };
        let st = if packed && sh.whole_batches {
            let colors = &mut self.band.colors;
            let mut merge = |b: &ShadedBatch<'_>| merge_batch(colors, sh.state, y_lo, samples, b);
            self.session
                .shade_quads_rows(self.scratch, quads, &mut merge)?
        } else if packed {
            self.session.shade_quads(self.scratch, quads, &mut sink)?
        } else {
            let tile = TileCoverage {
                x0: quads[0].x,
                y0: quads[0].y,
                coverage: std::array::from_fn(|l| quads[l / 4].coverage[l & 3]),
            };
            self.session.shade_tile(self.scratch, &tile, &mut sink)?
        };
        self.stats.add(st);
        self.share.spend(st.batch_instructions)
    }
}

impl Walk<'_, '_> {
    /// The lanes of the tile at (x0, y0) that one sample per pixel of
    /// triangle `prim` (edges `e`) covers and, before shading, the early
    /// depth/stencil test passes (its writes done); None when no lane does.
    fn one_sample_tile(
        &mut self,
        sh: &Shared<'_>,
        prim: &RasterPrim,
        e: &TileEdges,
        depth_tile: Option<&tgsi_exec::tiles::DepthTile>,
        x0: u32,
        y0: u32,
    ) -> Option<u16> {
        let mut mask = e.cover_one(prim, x0, y0, &sh.pattern);
        if mask == 0 {
            return None;
        }
        if self.early
            && let (Some(test), Some((zs, ss))) = (&sh.test, self.band.depth.as_mut())
        {
            let rows = TileRows::of(x0, y0, self.y_lo, self.row_pitch);
            let kernel = depth_tile.and_then(|tile| {
                tgsi_exec::tiles::depth_tile(tile, [x0, y0], mask, zs, rows.first, rows.pitch)
            });
            mask = match kernel {
                Some(passed) => passed,
                None => {
                    let mut coverage = std::array::from_fn(|l| u32::from(mask >> l & 1));
                    early_test_one_sample(test, sh, prim, rows, &mut coverage, zs, ss);
                    (0..LANES).fold(0, |m, l| m | u16::from(coverage[l] != 0) << l)
                }
            };
        }
        (mask != 0).then_some(mask)
    }

    /// The early depth test of `prim`'s tiles by the tile kernel, when it
    /// takes this draw's test.
    fn depth_tile_of(
        &self,
        sh: &Shared<'_>,
        prim: &RasterPrim,
    ) -> Option<tgsi_exec::tiles::DepthTile> {
        let test = sh.test.as_ref().filter(|_| self.early)?;
        let compare = test.tile_compare()?;
        let (ox, oy) = sh.pattern.position(0, 0, 0);
        Some(tgsi_exec::tiles::DepthTile {
            plane: prim.depth,
            offset: [ox, oy],
            range: [test.min_depth, test.max_depth],
            compare,
            write: test.depth.write,
        })
    }
}

/// The depth of sample `s` of pixel (x, y) on `prim`'s depth plane.
fn sample_depth(sh: &Shared<'_>, prim: &RasterPrim, x: u32, y: u32, s: usize) -> f32 {
    let (px, py) = sh.pattern.position(x, y, s);
    plane64(&prim.depth, px, py) as f32
}

/// The depth/stencil test before shading of one tile's covered pixels,
/// one sample per pixel: the depths of the 16 pixel centres on the
/// primitive's plane ([`sample_depth`]), then the test of
/// each covered pixel, which clears the coverage of those that fail.
fn early_test_one_sample(
    test: &DepthStencilTest,
    sh: &Shared<'_>,
    prim: &RasterPrim,
    rows: TileRows,
    coverage: &mut [u32; 16],
    zs: &mut [u32],
    ss: &mut [u8],
) {
    let mut depth = [0f32; 16];
    for (l, d) in depth.iter_mut().enumerate() {
        let (dx, dy) = tgsi_exec::fragment::lane_offset(l);
        *d = sample_depth(sh, prim, rows.x0 + dx, rows.y0 + dy, 0);
    }
    let cells = std::array::from_fn(|l| {
        let (dx, dy) = tgsi_exec::fragment::lane_offset(l);
        rows.first + dy as usize * rows.pitch + dx as usize
    });
    if test.test_tile_depth(&depth, coverage, zs, &cells) {
        return;
    }
    for (l, cov) in coverage.iter_mut().enumerate() {
        if *cov == 0 {
            continue;
        }
        let (dx, dy) = tgsi_exec::fragment::lane_offset(l);
        let i = rows.first + dy as usize * rows.pitch + dx as usize;
        if !test.test(depth[l], prim.front, &mut zs[i], &mut ss[i]) {
            *cov = 0;
        }
    }
}

/// Writes a draw's clear values over a band's rows of its targets.
fn clear_band(clear: &ClearOnLoad, band: &mut Band<'_>, depth_format: Option<DepthFormat>) {
    for (rows, color) in band.colors.iter_mut().zip(&clear.colors) {
        if let Some(color) = color {
            rows.clear(*color);
        }
    }
    if let (Some((depths, stencils)), Some(format)) = (band.depth.as_mut(), depth_format) {
        if let Some(d) = clear.depth {
            crate::merge::fill_by_doubling(depths, &[format.quantize(d)]);
        }
        if let Some(s) = clear.stencil {
            crate::merge::fill_by_doubling(stencils, &[s]);
        }
    }
}

/// Shades and merges every primitive's tiles inside one band (its rows
/// cleared first when the draw clears on load). With
/// [`tgsi_exec::FragmentTraits::pack_quads`], the covered quads of
/// consecutive tiles and primitives fill batches of 4 in draw order;
/// otherwise each tile is one batch.
fn run_band(
    session: &FragmentSession<'_>,
    sh: &Shared<'_>,
    band: &mut Band<'_>,
    scratch: &mut FragmentScratch,
) -> Result<Stats, ExecError> {
    // a band taken after the budget ran out stops at once
    sh.budget.check()?;
    if let Some(clear) = sh.clear {
        clear_band(clear, band, sh.test.map(|t| t.format));
    }
    let traits = session.traits();
    let y_lo = band.rows.start as i64 * 4;
    let y_hi = (band.rows.end as i64 * 4).min(sh.height as i64) - 1;
    let samples = sh.samples as usize;
    let mut walk = Walk {
        session,
        scratch,
        stats: Stats::default(),
        share: sh.budget.share(),
        early: traits.early_depth && sh.test.is_some() && sh.watch.is_none(),
        y_lo,
        row_pitch: sh.width as usize * samples,
        band,
    };
    let pack = sh.pack;
    let mut pending = Pending::new();
    let band_prims = std::mem::take(&mut walk.band.prims);
    for &p in &band_prims {
        let p = p as usize;
        let prim = &sh.prims[p];
        let [bx0, by0, bx1, by1] = prim.bbox;
        let (ya, yb) = (by0.max(y_lo), by1.min(y_hi));
        if ya > yb {
            continue;
        }
        let edges = prim.tile_edges();
        let depth_tile = walk.depth_tile_of(sh, prim);
        for ty in (ya / 4)..=(yb / 4) {
            if let (Some(e), 1) = (&edges, samples) {
                // one sample per pixel: the row's tiles that no edge
                // rejects, then their lane masks
                let (first, last) = (bx0 / 4, bx1 / 4);
                let mut tx = first;
                while tx <= last {
                    let count = ((last - tx + 1) as usize).min(64);
                    // (a row of one or two tiles: each tested as it comes)
                    let mut candidates = if count <= 2 {
                        (1 << count) - 1
                    } else {
                        e.row_candidates(tx * 4, ty * 4, count, &sh.pattern)
                    };
                    while candidates != 0 {
                        let i = candidates.trailing_zeros() as i64;
                        candidates &= candidates - 1;
                        let (x0, y0) = (((tx + i) * 4) as u32, (ty * 4) as u32);
                        let Some(mask) =
                            walk.one_sample_tile(sh, prim, e, depth_tile.as_ref(), x0, y0)
                        else {
                            continue;
                        };
                        let inputs = pending.set_for(p, pack, sh, walk.scratch);
                        if mask == u16::MAX && pending.len == 0 {
                            // a whole tile with nothing waiting is the
                            // batch the queue would make of it
                            walk.shade_whole_tile(sh, [x0, y0], (inputs, p))?;
                            continue;
                        }
                        // the quads to queue, visited by their bits (a
                        // branch per quad on its coverage went either way)
                        let mut quads = if pack { covered_quads(mask) } else { 0xF };
                        while quads != 0 {
                            let q = quads.trailing_zeros() as usize;
                            quads &= quads - 1;
                            let bits = u32::from(mask >> (4 * q)) & 0xF;
                            let cov: [u32; 4] = std::array::from_fn(|i| bits >> i & 1);
                            walk.queue(sh, &mut pending, [x0, y0], q, cov, (inputs, p))?;
                        }
                    }
                    tx += count as i64;
                }
                continue;
            }
            for tx in (bx0 / 4)..=(bx1 / 4) {
                let (x0, y0) = ((tx * 4) as u32, (ty * 4) as u32);
                let mut coverage = match &edges {
                    Some(e) => e.coverage(prim, x0, y0, &sh.pattern),
                    None => prim.tile_coverage(x0, y0, &sh.pattern),
                };
                if !any_lane(&coverage) {
                    continue;
                }
                if walk.early
                    && let (Some(test), Some((zs, ss))) = (&sh.test, walk.band.depth.as_mut())
                {
                    let rows = TileRows::of(x0, y0, y_lo, walk.row_pitch);
                    if samples == 1 {
                        early_test_one_sample(test, sh, prim, rows, &mut coverage, zs, ss);
                    } else {
                        let tile = SampledTile {
                            rows: &rows,
                            pattern: &sh.pattern,
                            samples,
                        };
                        let kernel = |d| early_test_four_samples(d, &tile, &mut coverage, zs);
                        if !depth_tile.as_ref().is_some_and(kernel) {
                            let face = (&prim.depth, prim.front);
                            early_test_each_sample(test, &tile, face, &mut coverage, zs, ss);
                        }
                    }
                    if !any_lane(&coverage) {
                        continue;
                    }
                }
                let inputs = pending.set_for(p, pack, sh, walk.scratch);
                for q in 0..4 {
                    let cov: [u32; 4] = std::array::from_fn(|i| coverage[4 * q + i]);
                    if pack && !any_lane(&cov) {
                        continue;
                    }
                    walk.queue(sh, &mut pending, [x0, y0], q, cov, (inputs, p))?;
                }
            }
        }
    }
    walk.flush(sh, &mut pending)?;
    walk.share.settle()?;
    Ok(walk.stats)
}

/// The pixels of a `width` x `height` target inside the box of the
/// draw's projected vertices, when all are inside the view volume (every
/// pixel otherwise): at least as many as the draw can cover.
fn covered_samples(vertices: &[ProjectedVertex], width: u32, height: u32) -> u64 {
    let all = u64::from(width) * u64::from(height);
    let mut lo = [i64::MAX; 2];
    let mut hi = [i64::MIN; 2];
    for v in vertices {
        if !v.inside {
            return all;
        }
        for axis in 0..2 {
            lo[axis] = lo[axis].min(v.window.0[axis]);
            hi[axis] = hi[axis].max(v.window.0[axis]);
        }
    }
    // whole pixels from the subpixel positions, inside the target
    let side = |axis: usize, size: u32| {
        let first = (lo[axis] >> SUBPIXEL_BITS).clamp(0, i64::from(size));
        let last = ((hi[axis] >> SUBPIXEL_BITS) + 1).clamp(0, i64::from(size));
        (last - first).max(0) as u64
    };
    side(0, width) * side(1, height)
}

/// True when some lane's coverage is not zero (an OR over the lanes,
/// which vectorizes, where `all` stops at the first).
#[inline(always)]
fn any_lane<const N: usize>(coverage: &[u32; N]) -> bool {
    coverage.iter().fold(0, |a, c| a | c) != 0
}

#[cfg(test)]
mod budget_tests;
#[cfg(test)]
mod tests;
