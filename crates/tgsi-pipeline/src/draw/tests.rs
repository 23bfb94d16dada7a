//! The draw's tests: batching, boxes, bins and clears on load.

use super::*;
use crate::merge::DepthFormat;
use crate::state::{BasicTopology, Topology};
use crate::tests::{blended_depth_state, program, shade};
use crate::{DrawCall, VertexInput, shade_vertices};
use tgsi_exec::texture::Format;
use tgsi_ir::enums::TextureTarget;

/// The bands of a target 48 pixels high, four tile rows each.
const BANDS_48: Bands = Bands {
    tile_rows: 4,
    height: 48,
};

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
        let run = |packing: bool, chunk: usize, band_rows: u32, blank_test: bool| {
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
                Batching {
                    packing,
                    chunk,
                    band_rows,
                    blank_test,
                },
                &DrawBudget::new(u64::MAX, 0),
            )
            .unwrap();
            (colors.remove(0).levels.remove(0), depth.depth, stats)
        };
        let chunk = setup_chunk_for(1);
        let (tiles, packed) = (run(false, chunk, 4, true), run(true, chunk, 4, true));
        // primitives set up 7 at a time (each chunk's last batch
        // partly filled), bands of one tile row and of 16, every triangle
        // set up alone (no block test of blank triangles): the same bits
        for (chunk, band_rows, blank_test) in [
            (7, 4, true),
            (chunk, 1, true),
            (7, 16, true),
            (chunk, 4, false),
        ] {
            let cut = run(true, chunk, band_rows, blank_test);
            let what = format!(
                "chunks of {chunk}, bands of {band_rows} tile rows, block test {blank_test}"
            );
            assert!(cut.0 == packed.0, "colours differ: {what}");
            assert!(cut.1 == packed.1, "depths differ: {what}");
            assert_eq!(cut.2.invocations, packed.2.invocations, "{what}");
        }
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
    let (stream, _) = shade_vertices(&vs, &mut res, &input, &call, false, false, &limits).unwrap();
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
    let (stream, _) = shade_vertices(&vs, &mut res, &input, &call, false, false, &limits).unwrap();
    let layout = OutputLayout::of(&vs);
    let mut state = RenderState::default();
    state.cull = crate::state::CullMode::Back;
    let setup = setup_64x48(&stream, &layout, &state, SamplePattern::new(1).span());
    let all = 0..stream.primitives.len();
    let set_up = |threads: usize| {
        let mut buffers = PrimBuffers::default();
        let list = setup_chunk(&setup, all.clone(), threads, BANDS_48, true, &mut buffers);
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
    // (with and without the block test of blank triangles)
    for (threads, blank_test) in [(1, true), (3, true), (1, false), (3, false)] {
        let mut buffers = PrimBuffers::default();
        let list = setup_chunk(
            &table,
            all.clone(),
            threads,
            BANDS_48,
            blank_test,
            &mut buffers,
        );
        assert_eq!(list.parts.len(), threads);
        // numbered across the threads' shares in draw order
        let numbered = (0..one.len()).all(|p| list[p] == one[p]);
        assert!(numbered, "the window table changes the primitives");
        // binned on the threads as one thread bins them all
        let mut binned = 0;
        for k in 0..BANDS_48.count() as usize {
            let mut bin = Vec::new();
            let mut first = 0;
            for part in list.parts {
                bin.extend(part.bins[k].iter().map(|&i| first + i as usize));
                first += part.prims.len();
            }
            let reach = |p: &usize| BANDS_48.reached(&one[*p]).contains(&k);
            let all: Vec<usize> = (0..one.len()).filter(reach).collect();
            assert!(bin == all, "band {k}");
            binned += bin.len();
        }
        assert!(binned >= one.len(), "{binned} binned");
    }
}

/// A draw that clears its targets on load gives the bits of the same
/// clears made before it: one and four samples, an sRGB target that
/// is cleared and an RGBA16F one that is not, depth and stencil, the
/// triangles blended over the clear and depth tested against it, set
/// up five at a time (only the first chunk's bands may clear), on one
/// and three threads; and a draw of no triangle clears it all.
#[test]
fn a_clear_on_load_gives_the_bits_of_a_clear_before_the_draw() {
    let vs = program(
        "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
         0: MOV OUT[0], IN[0]\n1: MOV OUT[1], IN[1]\n2: END\n",
    );
    let fs = program(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
         0: MOV OUT[0], IN[0]\n1: MOV OUT[1], IN[0].wzyx\n2: END\n",
    );
    let f = |v: f32| v.to_bits();
    let mut rows = Vec::new();
    for k in 0..30 {
        let t = k as f32 * 0.83;
        let (cx, cy, z) = (0.7 * t.sin(), 0.7 * (t * 1.7).cos(), 0.05 + 0.03 * k as f32);
        for (dx, dy) in [(0.0, 0.3), (0.3, -0.25), (-0.3, -0.2)] {
            rows.push(vec![
                [f(cx + dx), f(cy + dy), f(z), f(1.0)],
                [f(0.2 + 0.02 * k as f32), f(dx.abs()), f(0.9), f(0.5)],
            ]);
        }
    }
    let layout = OutputLayout::of(&vs);
    let linkage = Linkage::by_semantics(&layout, &fs);
    let mut clear = ClearOnLoad::default();
    clear.colors[0] = Some([0.1, 0.6, 0.3, 1.0]);
    clear.depth = Some(0.75);
    clear.stencil = Some(7);
    let (w, h) = (37, 29);
    for (triangles, samples, threads) in [(30, 1, 1), (30, 1, 3), (30, 4, 3), (0, 4, 1)] {
        let input = VertexInput::from_rows(&rows[..3 * triangles]);
        let call = DrawCall::vertices(
            Topology::Basic(BasicTopology::TriangleList),
            3 * triangles as u32,
        );
        let (stream, _) = shade(&vs, &input, &call);
        // targets filled with bytes the clear must replace
        let fresh = || {
            let colors: Vec<Texture> = [Format::Rgba8Srgb, Format::Rgba16Float]
                .into_iter()
                .map(|format| {
                    let target = match samples {
                        1 => TextureTarget::Tex2D,
                        _ => TextureTarget::Msaa2D,
                    };
                    let mut t = Texture::new(target, format, [w, h, 1], 1, 1, samples).unwrap();
                    t.levels[0].fill(0x5A);
                    t
                })
                .collect();
            let mut depth = DepthTarget::new(DepthFormat::D24S8, w, h, samples).unwrap();
            depth.depth.fill(0x00A5_5A5A);
            depth.stencil.fill(0x3C);
            (colors, depth)
        };
        let draw = |state: &RenderState,
                    chunk: usize,
                    colors: &mut Vec<Texture>,
                    depth: &mut DepthTarget| {
            let limits = Limits {
                threads,
                ..Limits::default()
            };
            let targets = Targets {
                colors,
                depth: Some(depth),
            };
            let batching = Batching {
                packing: true,
                chunk,
                band_rows: 3,
                blank_test: true,
            };
            rasterize_with(
                &stream,
                &layout,
                &linkage,
                &fs,
                &mut Resources::default(),
                state,
                targets,
                &limits,
                batching,
                &DrawBudget::new(u64::MAX, 0),
            )
            .unwrap()
        };
        // the clears first, then the draw
        let (mut before, mut before_depth) = fresh();
        let t = &mut before[0];
        let mut texel = vec![0u8; t.format.bytes_per_texel()];
        t.format
            .encode_into(clear.colors[0].unwrap().map(f32::to_bits), &mut texel);
        crate::merge::fill_by_doubling(&mut t.levels[0], &texel);
        before_depth.clear_on(0.75, Some(7), 1);
        let state = blended_depth_state();
        draw(&state, setup_chunk_for(1), &mut before, &mut before_depth);
        // the clears on load
        let (mut on_load, mut on_load_depth) = fresh();
        let state = RenderState {
            clear,
            ..blended_depth_state()
        };
        draw(&state, 5, &mut on_load, &mut on_load_depth);
        let what = format!("{triangles} triangles, {samples} samples, {threads} threads");
        for (k, (a, b)) in before.iter().zip(&on_load).enumerate() {
            assert!(a.levels[0] == b.levels[0], "target {k} differs: {what}");
        }
        assert!(
            before_depth.depth == on_load_depth.depth,
            "depths differ: {what}"
        );
        assert!(
            before_depth.stencil == on_load_depth.stencil,
            "stencils differ: {what}"
        );
        // the triangles did draw over the clear, the unnamed target kept its bytes
        let texel = &on_load[0].levels[0][..4];
        assert_eq!(
            on_load[0].levels[0].chunks(4).any(|t| t != texel),
            triangles > 0,
            "{what}"
        );
        assert!(on_load[1].levels[0].contains(&0x5A), "{what}");
    }
}

/// The samples a draw can cover: the box of its projected vertices in whole
/// pixels, inside the target; the whole target when a vertex is outside
/// the view volume; none without vertices.
#[test]
fn covered_samples_bound_the_vertices_box() {
    let at = |x: f64, y: f64, inside: bool| ProjectedVertex {
        window: ([(x * 256.0) as i64, (y * 256.0) as i64], 0.5),
        w: 1.0,
        inside,
    };
    // x 2.5 .. 10.25 (pixels 2 to 10), y 3 .. 7.5 (pixels 3 to 7)
    let box_of = [at(2.5, 3.0, true), at(10.25, 7.5, true), at(4.0, 5.0, true)];
    assert_eq!(covered_samples(&box_of, 64, 48), 9 * 5);
    // clamped to the target
    let past = [at(-20.0, -3.0, true), at(100.0, 2.0, true)];
    assert_eq!(covered_samples(&past, 64, 48), 64 * 3);
    let outside = [at(2.5, 3.0, true), at(4.0, 5.0, false)];
    assert_eq!(covered_samples(&outside, 64, 48), 64 * 48);
    assert_eq!(covered_samples(&[], 64, 48), 0);
}

/// Two triangles over a 42 x 26 target, the fragment shader writing each
/// pixel's own centre (POSITION.xy / 64) in red and green: every pixel
/// holds its own coordinates, whole tiles (shaded as one batch without
/// the queue) and the partial tiles at the diagonal and the borders
/// alike, blended (alpha 1) or not, packed or tile by tile.
#[test]
fn every_pixel_of_whole_tiles_gets_its_own_fragment() {
    let vs = program("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n");
    let fs = program(
        "FRAG\nDCL SV[0], POSITION\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
         IMM[0] FLT32 {0.015625, 0.0, 1.0, 0.0}\n\
         0: MUL TEMP[0].xy, SV[0].xyyy, IMM[0].xxxx\n\
         1: MOV TEMP[0].zw, IMM[0].yyyz\n2: MOV OUT[0], TEMP[0]\n3: END\n",
    );
    let f = |v: f32| v.to_bits();
    let corner = |x: f32, y: f32| vec![[f(x), f(y), f(0.5), f(1.0)]];
    let rows = vec![
        corner(-1.0, -1.0),
        corner(1.0, -1.0),
        corner(1.0, 1.0),
        corner(-1.0, -1.0),
        corner(1.0, 1.0),
        corner(-1.0, 1.0),
    ];
    let input = VertexInput::from_rows(&rows);
    let call = DrawCall::vertices(Topology::Basic(BasicTopology::TriangleList), 6);
    let (stream, _) = shade(&vs, &input, &call);
    let layout = OutputLayout::of(&vs);
    let linkage = Linkage::by_semantics(&layout, &fs);
    let (width, height) = (42u32, 26u32);
    let unorm8 = |pixel: u32| ((f64::from(pixel) + 0.5) / 64.0 * 255.0).round() as u8;
    for blended in [false, true] {
        let mut state = RenderState::default();
        if blended {
            state.blend[0] = blended_depth_state().blend[0];
        }
        for packing in [false, true] {
            let mut colors = vec![
                Texture::new(
                    TextureTarget::Tex2D,
                    Format::Rgba8Unorm,
                    [width, height, 1],
                    1,
                    1,
                    1,
                )
                .unwrap(),
            ];
            let targets = Targets {
                colors: &mut colors,
                depth: None,
            };
            let batching = Batching {
                packing,
                chunk: setup_chunk_for(1),
                band_rows: 4,
                blank_test: true,
            };
            let stats = rasterize_with(
                &stream,
                &layout,
                &linkage,
                &fs,
                &mut Resources::default(),
                &state,
                targets,
                &Limits::default(),
                batching,
                &DrawBudget::new(u64::MAX, 0),
            )
            .unwrap();
            // (with the helper lanes of the quads at the diagonal)
            assert!(stats.invocations >= u64::from(width * height));
            let texels = &colors[0].levels[0];
            for y in 0..height {
                for x in 0..width {
                    let at = 4 * (y * width + x) as usize;
                    let want = [unorm8(x), unorm8(y), 0, 255];
                    assert_eq!(
                        texels[at..at + 4],
                        want,
                        "pixel ({x}, {y}), blended {blended}, packing {packing}"
                    );
                }
            }
        }
    }
}
