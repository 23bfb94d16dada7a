//! Rasterizing a [`VertexStream`] into the targets: setup of every
//! primitive, then rows of 4x4 tiles spread over `Limits::threads`. Each
//! thread owns a band of tile rows of every target and walks all
//! primitives in draw order, so a pixel's fragments are merged in
//! primitive order and the targets get the same bits for any thread count
//! (buffer and image writes of fragment shaders follow the compute rules).
//!
//! Per tile: coverage ([`super::raster`]), then — when the fragment shader
//! allows it (see [`crate::exec::FragmentTraits`]) — the depth/stencil test
//! before shading (the same results as after it), the fragment shader over
//! the covered quads, the depth/stencil test of the survivors otherwise,
//! and blending ([`super::merge`]).

use super::input::VertexStream;
use super::merge::{BlendClass, DepthStencilTest, DepthTarget, blend};
use super::raster::SamplePattern;
use super::setup::{
    ClipScratch, Linkage, OutputLayout, RasterPrim, Setup, raster_rect, viewport_of,
};
use super::state::RenderState;
use crate::exec::fragment::plane64;
use crate::exec::{
    ExecError, FragmentOutput, FragmentSession, Limits, Program, Resources, Stats, TileCoverage,
};
use crate::texture::Texture;

/// The rows of one colour target a thread writes.
struct ColorRows<'a> {
    bytes: &'a mut [u8],
    pitch: usize,
    bpt: usize,
    format: crate::texture::Format,
    class: BlendClass,
    /// Converted under Direct3D's rules (narrower floats toward zero,
    /// saturating: [`crate::texture::Format::encode_direct3d_into`]).
    direct3d: bool,
}

/// What one thread owns: tile rows `rows` and their pixels in every target.
struct Band<'a> {
    rows: std::ops::Range<u32>,
    colors: Vec<ColorRows<'a>>,
    depth: Option<(&'a mut [u32], &'a mut [u8])>,
}

/// Per-draw constants every band reads.
struct Shared<'a> {
    stream: &'a VertexStream,
    linkage: &'a Linkage,
    prims: &'a [RasterPrim],
    pattern: SamplePattern,
    test: Option<DepthStencilTest>,
    state: &'a RenderState,
    width: u32,
    height: u32,
    samples: u32,
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
    mut depth: Option<&mut DepthTarget>,
    limits: &Limits,
) -> Result<Stats, ExecError> {
    let general = |m: String| ExecError {
        instruction: None,
        message: m,
    };
    let (width, height, samples) = match (colors.first(), depth.as_deref()) {
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
    if let Some(d) = depth.as_deref()
        && (d.width, d.height, d.samples) != (width, height, samples)
    {
        return Err(general(format!(
            "the depth target is {}x{} with {} samples; the render targets are {width}x{height} with {samples}",
            d.width, d.height, d.samples
        )));
    }
    let viewport = viewport_of(state, width, height);
    let setup = Setup {
        stream,
        layout,
        state,
        viewport,
        rect: raster_rect(state, width, height),
    };
    let mut prims = Vec::new();
    let mut scratch = ClipScratch::default();
    for i in 0..stream.primitives.len() {
        setup.primitive(i, &mut scratch, &mut prims);
    }
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
    let shared = Shared {
        stream,
        linkage,
        prims: &prims,
        pattern: SamplePattern::new(samples),
        test,
        state,
        width,
        height,
        samples,
    };
    // Bands of tile rows, one per thread.
    let tile_rows = height.div_ceil(4);
    let threads = (limits.threads.max(1) as u32).min(tile_rows.max(1));
    let chunk = tile_rows.div_ceil(threads).max(1);
    let ranges: Vec<std::ops::Range<u32>> = (0..threads)
        .map(|t| (t * chunk).min(tile_rows)..((t + 1) * chunk).min(tile_rows))
        .collect();
    let direct3d = fs.is_direct3d();
    let target_count = colors.len();
    let mut bands: Vec<Band<'_>> = ranges
        .iter()
        .map(|r| Band {
            rows: r.clone(),
            colors: Vec::new(),
            depth: None,
        })
        .collect();
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
                format,
                class: BlendClass::of(format),
                direct3d,
            });
            rest = b;
        }
    }
    if let Some(d) = depth.as_mut() {
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
    let result = fs.fragment_session(res, limits, target_count, samples, |session| {
        let run = |band: &mut Band<'_>| run_band(session, &shared, band);
        if bands.len() <= 1 {
            bands.iter_mut().map(run).collect::<Vec<_>>()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = bands
                    .iter_mut()
                    .map(|b| {
                        let run = &run;
                        s.spawn(move || run(b))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(ExecError {
                                instruction: None,
                                message: "a worker thread panicked".into(),
                            })
                        })
                    })
                    .collect()
            })
        }
    })?;
    let mut stats = Stats::default();
    for r in result {
        let s = r?;
        stats.batch_instructions += s.batch_instructions;
        stats.lane_instructions += s.lane_instructions;
        stats.invocations += s.invocations;
    }
    Ok(stats)
}

/// Shades and merges every primitive's tiles inside one band.
fn run_band(
    session: &FragmentSession<'_>,
    sh: &Shared<'_>,
    band: &mut Band<'_>,
) -> Result<Stats, ExecError> {
    let traits = session.traits();
    let mut scratch = session.scratch(sh.height);
    let mut stats = Stats::default();
    let y_lo = band.rows.start as i64 * 4;
    let y_hi = (band.rows.end as i64 * 4).min(sh.height as i64) - 1;
    let early = traits.early_depth && sh.test.is_some();
    let samples = sh.samples as usize;
    let row_pitch = sh.width as usize * samples;
    for prim in sh.prims {
        let [bx0, by0, bx1, by1] = prim.bbox;
        let (ya, yb) = (by0.max(y_lo), by1.min(y_hi));
        if ya > yb {
            continue;
        }
        let position = prim.fill_inputs(sh.stream, sh.linkage, &mut scratch.frag.inputs);
        scratch.frag.position = position;
        scratch.frag.face = if prim.front { 1.0 } else { -1.0 };
        scratch.frag.primitive_id = prim.id;
        let sample_depth = |x: u32, y: u32, s: usize| {
            let (px, py) = sh.pattern.position(x, y, s);
            plane64(&prim.depth, px, py) as f32
        };
        for ty in (ya / 4)..=(yb / 4) {
            for tx in (bx0 / 4)..=(bx1 / 4) {
                let (x0, y0) = ((tx * 4) as u32, (ty * 4) as u32);
                let mut coverage = prim.tile_coverage(x0, y0, &sh.pattern);
                if coverage.iter().all(|c| *c == 0) {
                    continue;
                }
                if early && let (Some(test), Some((zs, ss))) = (&sh.test, band.depth.as_mut()) {
                    for (l, cov) in coverage.iter_mut().enumerate() {
                        if *cov == 0 {
                            continue;
                        }
                        let (dx, dy) = crate::exec::fragment::lane_offset(l);
                        let (x, y) = (x0 + dx, y0 + dy);
                        let base = (y as i64 - y_lo) as usize * row_pitch + x as usize * samples;
                        for s in 0..samples {
                            if *cov & (1 << s) != 0
                                && !test.test(
                                    sample_depth(x, y, s),
                                    prim.front,
                                    &mut zs[base + s],
                                    &mut ss[base + s],
                                )
                            {
                                *cov &= !(1 << s);
                            }
                        }
                    }
                    if coverage.iter().all(|c| *c == 0) {
                        continue;
                    }
                }
                let tile = TileCoverage { x0, y0, coverage };
                let mut sink = |out: &FragmentOutput| {
                    let (x, y) = (out.x, out.y);
                    let base = (y as i64 - y_lo) as usize * row_pitch + x as usize * samples;
                    for s in 0..samples {
                        if out.coverage & (1 << s) == 0 {
                            continue;
                        }
                        if !early
                            && let (Some(test), Some((zs, ss))) = (&sh.test, band.depth.as_mut())
                        {
                            let d = out.depth.unwrap_or_else(|| sample_depth(x, y, s));
                            if !test.test(d, prim.front, &mut zs[base + s], &mut ss[base + s]) {
                                continue;
                            }
                        }
                        for (n, t) in band.colors.iter_mut().enumerate() {
                            if out.written & (1 << n) != 0 {
                                write_color(
                                    t,
                                    sh.state,
                                    n,
                                    x,
                                    y - y_lo as u32,
                                    s,
                                    samples,
                                    out.colors[n],
                                );
                            }
                        }
                    }
                };
                let st = session.shade_tile(&mut scratch, &tile, &mut sink)?;
                stats.batch_instructions += st.batch_instructions;
                stats.lane_instructions += st.lane_instructions;
                stats.invocations += st.invocations;
            }
        }
    }
    Ok(stats)
}

/// Blends (or writes) one sample of target `n`.
#[allow(clippy::too_many_arguments)]
fn write_color(
    t: &mut ColorRows<'_>,
    state: &RenderState,
    n: usize,
    x: u32,
    row: u32,
    s: usize,
    samples: usize,
    src: [u32; 4],
) {
    let o = row as usize * t.pitch + (x as usize * samples + s) * t.bpt;
    let Some(dst) = t.bytes.get_mut(o..o + t.bpt) else {
        return;
    };
    let bs = &state.blend[n];
    let blends = bs.enabled && t.class != BlendClass::Integer;
    // The destination is read only when blending or keeping channels.
    let v = if blends || bs.write_mask & 0xF != 0xF {
        let old = t.format.decode(dst);
        let mut v = if blends {
            let f = |w: [u32; 4]| w.map(f32::from_bits);
            let k = state.blend_factor;
            blend(bs, t.class, f(src), f(old), k).map(f32::to_bits)
        } else {
            src
        };
        for (c, w) in v.iter_mut().enumerate() {
            if bs.write_mask & (1 << c) == 0 {
                *w = old[c];
            }
        }
        v
    } else {
        src
    };
    if t.direct3d {
        t.format.encode_direct3d_into(v, dst);
    } else {
        t.format.encode_into(v, dst);
    }
}
