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

use super::colors::{ColorRows, TexelCodec, merge_batch, write_color};
use super::early_depth::{SampledTile, TileRows, early_test_each_sample, early_test_four_samples};
use super::input::VertexStream;
use super::merge::{BlendClass, DepthStencilTest, DepthTarget};
use super::raster::{SamplePattern, TileEdges};
use super::setup::{
    ClipScratch, Linkage, OutputLayout, ProjectedVertex, RasterPrim, Setup, raster_rect,
    viewport_of,
};
use super::state::RenderState;
use crate::reuse::Kept;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tgsi_exec::LANES;
use tgsi_exec::fragment::plane64;
use tgsi_exec::fragment_tiles::{INPUT_SETS, QuadCoverage};
use tgsi_exec::texture::Texture;
use tgsi_exec::{
    ExecError, FragmentOutput, FragmentScratch, FragmentSession, InputSource, Limits, Program,
    Resources, ShadedBatch, Stats, TileCoverage,
};

/// Tile rows per band (the unit of work a thread takes).
const BAND_TILE_ROWS: u32 = 4;

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
    /// A debugger keeping a pixel's history ([`tgsi_exec::trace`]): the
    /// draw then tests and merges fragment by fragment, after shading, and
    /// reports each sample at that pixel.
    watch: Option<(&'a tgsi_exec::trace::Tracer, (u32, u32))>,
}

/// Runs `fs` over the primitives of `stream` (laid out as `layout`, linked
/// to the fragment inputs by `linkage`) into `colors` (target n gets
/// `COLOR[n]`) and `depth`, under `state`.
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
    let batching = Batching {
        packing: limits.pack_quads,
        chunk: setup_chunk_for(limits.threads),
    };
    rasterize_with(
        stream, layout, linkage, fs, res, state, targets, limits, batching,
    )
}

/// The targets of a draw.
struct Targets<'a> {
    colors: &'a mut [Texture],
    depth: Option<&'a mut DepthTarget>,
}

/// How a draw's work is cut up (fixed for [`rasterize`]; tests vary it to
/// check that the bits do not depend on it).
#[derive(Clone, Copy)]
struct Batching {
    /// False keeps one tile per batch even where the shader allows packing quads.
    packing: bool,
    /// Input primitives set up at a time.
    chunk: usize,
}

/// [`rasterize`] cut up as `batching` says.
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
) -> Result<Stats, ExecError> {
    let Targets { colors, depth } = targets;
    let Batching { packing, chunk } = batching;
    let chunk = chunk.max(1);
    let (width, height, samples) = target_size(colors, depth.as_deref())?;
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
    let (lo, hi) = (
        viewport.min_depth.min(viewport.max_depth),
        viewport.min_depth.max(viewport.max_depth),
    );
    let test = depth.as_deref().map(|d| DepthStencilTest {
        format: d.format,
        depth: state.depth,
        stencil: state.stencil,
        min_depth: lo,
        max_depth: hi,
    });
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
    for k in 0..chunks {
        let range = k * chunk..((k + 1) * chunk).min(n);
        let prims = setup_chunk(&setup, range, limits.threads, height, buffers);
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
            watch,
        };
        let size = [width, height, samples];
        let bands = bands_of(prims, &mut *colors, depth.as_deref_mut(), size, direct3d)?;
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
fn target_size(
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

/// Bands of BAND_TILE_ROWS tile rows, each with the primitives whose boxes
/// reach it (in draw order) and its rows of every target.
fn bands_of<'t>(
    prims: PrimList<'_>,
    colors: &'t mut [Texture],
    depth: Option<&'t mut DepthTarget>,
    [width, height, samples]: [u32; 3],
    direct3d: bool,
) -> Result<Vec<Band<'t>>, ExecError> {
    let tile_rows = height.div_ceil(4);
    let ranges: Vec<std::ops::Range<u32>> = (0..band_count(height))
        .map(|k| k * BAND_TILE_ROWS..((k + 1) * BAND_TILE_ROWS).min(tile_rows))
        .collect();
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
            bands[k].colors.push(ColorRows {
                bytes: a,
                pitch,
                bpt,
                class: BlendClass::of(format),
                texels: TexelCodec::of(format, direct3d),
            });
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
    progress: Progress,
) -> Result<Stats, ExecError> {
    let (samples, height) = (shared.samples, shared.height);
    let pixel_rows =
        |r: &std::ops::Range<u32>| ((r.end * 4).min(height) - (r.start * 4).min(height)) as usize;
    let threads = limits.threads.clamp(1, bands.len().max(1));
    let next = AtomicUsize::new(0);
    let rows_done = AtomicUsize::new(0);
    let bands: Vec<Mutex<Band<'_>>> = bands.into_iter().map(Mutex::new).collect();
    let results = fs.fragment_session(res, limits, target_count, samples, |session| {
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

/// The bands of a target `height` pixels high.
fn band_count(height: u32) -> u32 {
    height.div_ceil(4).div_ceil(BAND_TILE_ROWS)
}

/// The bands a primitive's box reaches in a target `height` pixels high.
fn bands_reached(prim: &RasterPrim, height: u32) -> std::ops::RangeInclusive<usize> {
    let band_of = |y: i64| (y.clamp(0, height as i64 - 1) as u32 / 4 / BAND_TILE_ROWS) as usize;
    band_of(prim.bbox[1])..=band_of(prim.bbox[3])
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
    height: u32,
    buffers: &'b mut PrimBuffers,
) -> PrimList<'b> {
    let n = range.len();
    let threads = threads.clamp(1, n.div_ceil(SETUP_PER_THREAD).max(1));
    let bands = band_count(height) as usize;
    let run = |part: std::ops::Range<usize>, out: &mut SetupShare| {
        // The lists are worked on from this thread's stack: the threads'
        // shares sit side by side in `parts`, and a list's length written
        // there at every push would bounce the cache line that holds both
        // shares' headers between the cores (tiny triangles at two threads
        // ran a third slower when the two headers met on one line).
        let SetupShare { mut prims, mut bins } = std::mem::take(out);
        prims.clear();
        bins.resize_with(bands, Vec::new);
        bins.iter_mut().for_each(Vec::clear);
        let mut scratch = ClipScratch::default();
        for i in part {
            let before = prims.len();
            setup.primitive(i, &mut scratch, &mut prims);
            for (p, prim) in prims.iter().enumerate().skip(before) {
                for bin in &mut bins[bands_reached(prim, height)] {
                    bin.push(p as u32);
                }
            }
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
        let (dx, dy) = tgsi_exec::fragment::lane_offset(4 * q);
        let n = self.len;
        self.quads[n] = QuadCoverage {
            x: x0 + dx,
            y: y0 + dy,
            coverage,
            inputs,
        };
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

    /// Shades the waiting quads (the free places of the batch cover
    /// nothing) and empties the queue.
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
    /// its fragments in slot order.
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
            let watched = sh.watch.filter(|(_, p)| *p == (x, y)).map(|(t, _)| t);
            for s in 0..samples {
                if out.coverage & (1 << s) == 0 {
                    continue;
                }
                let mut event = watched.map(|_| tgsi_exec::trace::MergeEvent {
                    draw: 0,
                    primitive: prim.id,
                    sample: s as u32,
                    depth_test: None,
                    colors: Vec::new(),
                });
                if !early && let (Some(test), Some((zs, ss))) = (&sh.test, band.depth.as_mut()) {
                    let d = out.depth.unwrap_or_else(|| sample_depth(sh, prim, x, y, s));
                    let stored = test.format.dequantize(zs[base + s]);
                    let passed = test.test(d, prim.front, &mut zs[base + s], &mut ss[base + s]);
                    if let Some(e) = event.as_mut() {
                        e.depth_test = Some((passed, d, stored));
                    }
                    if !passed {
                        if let (Some(t), Some(e)) = (watched, event) {
                            t.record_merge(e);
                        }
                        continue;
                    }
                }
                let row = y - y_lo as u32;
                for (n, t) in band.colors.iter_mut().enumerate() {
                    if out.written & (1 << n) != 0 {
                        let before = event.as_ref().map(|_| t.load(x, row, s, samples));
                        write_color(t, sh.state, n, x, row, s, samples, out.colors[n]);
                        if let (Some(e), Some(b)) = (event.as_mut(), before) {
                            e.colors.push((n as u32, b, t.load(x, row, s, samples)));
                        }
                    }
                }
                if let (Some(t), Some(e)) = (watched, event) {
                    t.record_merge(e);
                }
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
        Ok(())
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

/// Shades and merges every primitive's tiles inside one band. With
/// [`tgsi_exec::FragmentTraits::pack_quads`], the covered quads of
/// consecutive tiles and primitives fill batches of 4 in draw order;
/// otherwise each tile is one batch.
fn run_band(
    session: &FragmentSession<'_>,
    sh: &Shared<'_>,
    band: &mut Band<'_>,
    scratch: &mut FragmentScratch,
) -> Result<Stats, ExecError> {
    let traits = session.traits();
    let y_lo = band.rows.start as i64 * 4;
    let y_hi = (band.rows.end as i64 * 4).min(sh.height as i64) - 1;
    let samples = sh.samples as usize;
    let mut walk = Walk {
        session,
        scratch,
        stats: Stats::default(),
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
                        for q in 0..4 {
                            let bits = u32::from(mask >> (4 * q)) & 0xF;
                            if pack && bits == 0 {
                                continue;
                            }
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
    Ok(walk.stats)
}

/// True when some lane's coverage is not zero (an OR over the lanes,
/// which vectorizes, where `all` stops at the first).
#[inline(always)]
fn any_lane<const N: usize>(coverage: &[u32; N]) -> bool {
    coverage.iter().fold(0, |a, c| a | c) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::DepthFormat;
    use crate::state::{BasicTopology, Topology};
    use crate::tests::{blended_depth_state, program, shade};
    use crate::{DrawCall, VertexInput, shade_vertices};
    use tgsi_exec::texture::Format;
    use tgsi_ir::enums::TextureTarget;

    /// Many small overlapping triangles of both facings, blended, depth
    /// tested (early and late), some drawn twice in a row (the second
    /// nearer, blending over the first), with a shader reading a perspective input,
    /// FACE, PRIMID, POSITION and derivatives: packing quads of several
    /// tiles and primitives into batches gives the bits of one tile per
    /// batch, and fewer batches; setting primitives up a few at a time
    /// gives the same bits.
    #[test]
    fn packed_quads_give_the_bits_of_tile_batches() {
        let vs = program(
            "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
             0: MOV OUT[0], IN[0]\n1: MOV OUT[1], IN[1]\n2: END\n",
        );
        let fs_text = |extra: &str| {
            format!(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL SV[0], FACE\nDCL SV[1], PRIM_ID\n\
                 DCL SV[2], POSITION\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
                 IMM[0] FLT32 {{0.01, 0.25, 0.003, 0.5}}\nIMM[1] FLT32 {{20.0, 0.0, 0.0, 0.0}}\n\
                 0: DDX TEMP[0].x, IN[0].xxxx\n1: DDY TEMP[0].y, IN[0].yyyy\n\
                 2: U2F TEMP[1].x, SV[1].xxxx\n3: MUL TEMP[1].x, TEMP[1].xxxx, IMM[0].xxxx\n\
                 4: MAD TEMP[0].z, SV[0].xxxx, IMM[0].yyyy, TEMP[1].xxxx\n\
                 5: MUL TEMP[0].w, SV[2].xxxx, IMM[0].zzzz\n6: ADD TEMP[0], TEMP[0], IN[0]\n\
                 {extra}7: MOV OUT[0], TEMP[0]\n8: END\n"
            )
        };
        let fs_early = program(&fs_text(""));
        // Pixels above y = 20 killed: late depth.
        let fs_late = program(&fs_text(
            "ADD TEMP[1].y, SV[2].yyyy, -IMM[1].xxxx\nKILL_IF TEMP[1].yyyy\n",
        ));
        assert!(fs_early.fragment_traits(1).pack_quads && fs_early.fragment_traits(1).early_depth);
        assert!(fs_late.fragment_traits(1).pack_quads && !fs_late.fragment_traits(1).early_depth);
        let f = |v: f32| v.to_bits();
        let mut rows = Vec::new();
        for k in 0..160 {
            let t = k as f32 * 0.61;
            let (cx, cy) = (0.8 * (t * 1.3).sin(), 0.8 * (t * 0.7).cos());
            let r = 0.02 + 0.03 * ((k * 7) % 5) as f32;
            let w = 1.0 + 0.25 * (k % 4) as f32;
            let z = 0.1 + 0.8 * ((k * 13) % 11) as f32 / 11.0;
            let flip = if k % 3 == 0 { -1.0 } else { 1.0 };
            // every fourth triangle drawn again just after, nearer and in
            // another colour: its quads wait in the same batches as the
            // first's, and blend over what the first left
            let copies: &[(f32, f32)] = if k % 4 == 0 {
                &[(1.0, 0.3), (0.5, 0.7)]
            } else {
                &[(1.0, 0.3)]
            };
            for &(near, blue) in copies {
                for (dx, dy) in [(0.0, r), (r * flip, -r), (-r * flip, -r * 0.5)] {
                    rows.push(vec![
                        [f((cx + dx) * w), f((cy + dy) * w), f(z * near * w), f(w)],
                        [f(cx.abs()), f(dy.abs() * 4.0), f(blue), f(0.6)],
                    ]);
                }
            }
        }
        let input = VertexInput::from_rows(&rows);
        let call = DrawCall::vertices(
            Topology::Basic(BasicTopology::TriangleList),
            rows.len() as u32,
        );
        let state = blended_depth_state();
        let limits = Limits::default();
        let (stream, _) = shade(&vs, &input, &call);
        let layout = OutputLayout::of(&vs);
        for fs in [&fs_early, &fs_late] {
            let linkage = Linkage::by_semantics(&layout, fs);
            let run = |packing: bool, chunk: usize| {
                let mut colors = vec![
                    Texture::new(
                        TextureTarget::Tex2D,
                        Format::Rgba8Unorm,
                        [53, 41, 1],
                        1,
                        1,
                        1,
                    )
                    .unwrap(),
                ];
                let mut depth = DepthTarget::new(DepthFormat::D24S8, 53, 41, 1).unwrap();
                let targets = Targets {
                    colors: &mut colors,
                    depth: Some(&mut depth),
                };
                let stats = rasterize_with(
                    &stream,
                    &layout,
                    &linkage,
                    fs,
                    &mut Resources::default(),
                    &state,
                    targets,
                    &limits,
                    Batching { packing, chunk },
                )
                .unwrap();
                (colors.remove(0).levels.remove(0), depth.depth, stats)
            };
            let chunk = setup_chunk_for(1);
            let (tiles, packed) = (run(false, chunk), run(true, chunk));
            // primitives set up 7 at a time (each chunk's last batch
            // partly filled): the same bits
            let chunked = run(true, 7);
            assert!(chunked.0 == packed.0, "colours differ by chunks");
            assert!(chunked.1 == packed.1, "depths differ by chunks");
            assert_eq!(chunked.2.invocations, packed.2.invocations);
            assert!(
                tiles.0.iter().any(|b| *b != 0),
                "nothing was drawn: {:?}",
                tiles.2
            );
            assert!(tiles.0 == packed.0, "colours differ");
            assert!(tiles.1 == packed.1, "depths differ");
            assert_eq!(tiles.2.invocations, packed.2.invocations);
            assert!(
                packed.2.batch_instructions < tiles.2.batch_instructions,
                "{} batch instructions packed, {} by tiles",
                packed.2.batch_instructions,
                tiles.2.batch_instructions
            );
        }
    }

    /// A primitive's box holds every pixel with a covered sample and no
    /// more than the pixels with a sample inside the triangle's extent:
    /// small random triangles of both facings, one and four samples.
    #[test]
    fn boxes_hold_the_covered_pixels_and_no_more() {
        use crate::raster::triangle_covers;
        use crate::setup::Shape;
        let vs = program("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n");
        let f = |v: f32| v.to_bits();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f32 / (1u64 << 53) as f32
        };
        let mut rows = Vec::new();
        for k in 0..3000 {
            // a pixel or a few across on a 64 x 48 target
            let size = if k % 3 == 0 { 0.03 } else { 0.12 };
            let (cx, cy) = (next() * 1.8 - 0.9, next() * 1.8 - 0.9);
            for _ in 0..3 {
                let (x, y) = (cx + size * next(), cy + size * next());
                rows.push(vec![[f(x), f(y), f(0.5), f(1.0)]]);
            }
        }
        let input = VertexInput::from_rows(&rows);
        let call = DrawCall::vertices(
            Topology::Basic(BasicTopology::TriangleList),
            rows.len() as u32,
        );
        let mut res = Resources::default();
        let limits = Limits::default();
        let (stream, _) =
            shade_vertices(&vs, &mut res, &input, &call, false, false, &limits).unwrap();
        let layout = OutputLayout::of(&vs);
        let state = RenderState::default();
        // every input triangle set up with boxes for sample offsets `span`
        let set_up = |span: [[i64; 2]; 2]| {
            let setup = setup_64x48(&stream, &layout, &state, span);
            let (mut prims, mut scratch) = (Vec::new(), ClipScratch::default());
            for i in 0..stream.primitives.len() {
                setup.primitive(i, &mut scratch, &mut prims);
            }
            prims
        };
        let mut boxes = 0;
        for samples in [1, 4] {
            let pattern = SamplePattern::new(samples);
            let span = pattern.span();
            for prim in &set_up(span) {
                let Shape::Triangle { v, top_left } = prim.shape else {
                    continue;
                };
                boxes += 1;
                let b = prim.bbox;
                let ext = |a: usize| {
                    let c = v.map(|p| p[a]);
                    (c.into_iter().min().unwrap(), c.into_iter().max().unwrap())
                };
                let ((x0, x1), (y0, y1)) = (ext(0), ext(1));
                // no more: the box's first and last pixels have a sample
                // inside the extent (or the target's edge cut the box)
                assert!(b[0] == 0 || b[0] * 256 + span[0][1] >= x0, "{v:?} {b:?}");
                assert!(b[1] == 0 || b[1] * 256 + span[1][1] >= y0, "{v:?} {b:?}");
                assert!(b[2] == 63 || b[2] * 256 + span[0][0] <= x1, "{v:?} {b:?}");
                assert!(b[3] == 47 || b[3] * 256 + span[1][0] <= y1, "{v:?} {b:?}");
                // every covered sample's pixel inside it
                for py in (b[1] - 2).max(0)..(b[3] + 3).min(48) {
                    for px in (b[0] - 2).max(0)..(b[2] + 3).min(64) {
                        let covered = pattern.offsets.iter().any(|o| {
                            triangle_covers(&v, &top_left, [px * 256 + o[0], py * 256 + o[1]])
                        });
                        let inside = px >= b[0] && px <= b[2] && py >= b[1] && py <= b[3];
                        assert!(!covered || inside, "{v:?} {b:?} pixel ({px}, {py})");
                    }
                }
            }
        }
        assert!(boxes > 2000, "{boxes}");
        // one sample: the triangles dropped before binning (a box of at
        // most four pixels, no centre covered) cover nothing; the covered
        // centres of each input triangle are those of a setup that keeps
        // them (a span one unit wide turns the drop off)
        let covered = |span: [[i64; 2]; 2]| {
            let prims = set_up(span);
            let mut centres = Vec::new();
            for prim in &prims {
                let Shape::Triangle { v, top_left } = prim.shape else {
                    continue;
                };
                for py in 0..48 {
                    for px in 0..64 {
                        if triangle_covers(&v, &top_left, [px * 256 + 128, py * 256 + 128]) {
                            centres.push((prim.id, px, py));
                        }
                    }
                }
            }
            (prims.len(), centres)
        };
        let (kept, dropping) = covered([[128, 128], [128, 128]]);
        let (all, keeping) = covered([[127, 128], [127, 128]]);
        assert!(kept + 500 < all, "{kept} of {all} primitives kept");
        assert_eq!(dropping, keeping);
        assert!(dropping.len() > 1000, "{}", dropping.len());
    }

    /// The setup of a draw's vertices into a 64x48 target (each primitive's
    /// vertices projected as it is set up), boxes for sample offsets `span`.
    fn setup_64x48<'a>(
        stream: &'a VertexStream,
        layout: &'a OutputLayout,
        state: &'a RenderState,
        span: [[i64; 2]; 2],
    ) -> Setup<'a> {
        Setup {
            stream,
            layout,
            state,
            viewport: viewport_of(state, 64, 48),
            rect: raster_rect(state, 64, 48),
            windows: &[],
            sample_span: span,
        }
    }

    /// Setup on several threads gives the primitives of one thread, in order.
    #[test]
    fn setup_on_threads_keeps_the_order() {
        let vs = program("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n");
        let f = |v: f32| v.to_bits();
        let mut rows = Vec::new();
        for k in 0..3 * SETUP_PER_THREAD + 17 {
            let t = k as f32 * 0.37;
            // some cross z = 0 (clipped into several pieces), some are culled
            let z = if k % 5 == 0 { -0.5 } else { 0.5 };
            for (x, y) in [(t.sin(), t.cos()), (-t.cos(), 0.3 * t.sin()), (0.5, -0.5)] {
                rows.push(vec![[f(x), f(y), f(z + 0.2 * x), f(1.0)]]);
            }
        }
        let input = VertexInput::from_rows(&rows);
        let call = DrawCall::vertices(
            Topology::Basic(BasicTopology::TriangleList),
            rows.len() as u32,
        );
        let limits = Limits::default();
        let mut res = Resources::default();
        let (stream, _) =
            shade_vertices(&vs, &mut res, &input, &call, false, false, &limits).unwrap();
        let layout = OutputLayout::of(&vs);
        let mut state = RenderState::default();
        state.cull = crate::state::CullMode::Back;
        let setup = setup_64x48(&stream, &layout, &state, SamplePattern::new(1).span());
        let all = 0..stream.primitives.len();
        let set_up = |threads: usize| {
            let mut buffers = PrimBuffers::default();
            let list = setup_chunk(&setup, all.clone(), threads, 48, &mut buffers);
            list.iter().copied().collect::<Vec<RasterPrim>>()
        };
        let one = set_up(1);
        assert!(one.len() > 1000, "{}", one.len());
        assert!(one.len() != rows.len() / 3, "nothing clipped or culled");
        for threads in [2, 3, 8] {
            assert!(set_up(threads) == one, "{threads} threads differ");
        }
        // each vertex projected once: the same primitives
        let mut windows = Vec::new();
        Setup::window_vertices(&stream, &layout, &setup.viewport, 1, &mut windows);
        assert_eq!(windows.len(), rows.len());
        let mut on_threads = Vec::new();
        Setup::window_vertices(&stream, &layout, &setup.viewport, 3, &mut on_threads);
        assert!(on_threads == windows, "projection on threads differs");
        assert!(windows.iter().any(|p| p.inside) && windows.iter().any(|p| !p.inside));
        let table = Setup {
            windows: &windows,
            ..setup
        };
        for threads in [1, 3] {
            let mut buffers = PrimBuffers::default();
            let list = setup_chunk(&table, all.clone(), threads, 48, &mut buffers);
            assert_eq!(list.parts.len(), threads);
            // numbered across the threads' shares in draw order
            let numbered = (0..one.len()).all(|p| list[p] == one[p]);
            assert!(numbered, "the window table changes the primitives");
            // binned on the threads as one thread bins them all
            let mut binned = 0;
            for k in 0..band_count(48) as usize {
                let mut bin = Vec::new();
                let mut first = 0;
                for part in list.parts {
                    bin.extend(part.bins[k].iter().map(|&i| first + i as usize));
                    first += part.prims.len();
                }
                let reach = |p: &usize| bands_reached(&one[*p], 48).contains(&k);
                let all: Vec<usize> = (0..one.len()).filter(reach).collect();
                assert!(bin == all, "band {k}");
                binned += bin.len();
            }
            assert!(binned >= one.len(), "{binned} binned");
        }
    }
}
