//! Fragment-stage tests: derivatives at quad and target edges, KILL/DEMOTE
//! and helper lanes, interpolation modes, system values, thread-count
//! independence. Expected values are worked out by hand from the rules in
//! `fragment.rs`.

use super::tests::prog;
use super::*;

fn f(v: [u32; 4]) -> [f32; 4] {
    v.map(f32::from_bits)
}

/// A buffer's bytes as little-endian floats.
fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn shade(p: &Program, draw: &Draw, targets: usize, threads: usize) -> Vec<Vec<[u32; 4]>> {
    let mut res = Resources::default();
    let limits = Limits {
        threads,
        ..Limits::default()
    };
    p.shade(&mut res, draw, targets, &limits)
        .unwrap_or_else(|e| panic!("draw failed: {e}"))
        .0
}

const DERIV: &str = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
    MUL TEMP[0].x, IN[0].xxxx, IN[0].yyyy\n\
    DDX OUT[0].x, TEMP[0].xxxx\nDDY OUT[0].y, TEMP[0].xxxx\n\
    DDX_FINE OUT[0].z, TEMP[0].xxxx\nDDY_FINE OUT[0].w, TEMP[0].xxxx\nEND\n";

#[test]
fn derivatives_coarse_and_fine_at_quad_and_target_edges() {
    // f = x * y at pixel centres. For the quad whose top-left pixel centre is
    // (x0, y0): coarse DDX = f(x0+1, y0) - f(x0, y0) = y0, coarse DDY = x0;
    // DDX_FINE uses the lane's row (y0 or y0 + 1), DDY_FINE its column.
    let p = prog(DERIV);
    // 3x3: the quads at x = 2 and y = 2 have helper lanes outside the target.
    let out = shade(&p, &Draw::full_quad(3, 3), 1, 1);
    let at = |x: usize, y: usize| f(out[0][y * 3 + x]);
    for y in 0..3 {
        for x in 0..3 {
            let (x0, y0) = ((x & !1) as f32 + 0.5, (y & !1) as f32 + 0.5);
            let (xl, yl) = (x as f32 + 0.5, y as f32 + 0.5);
            let want = [y0, x0, yl, xl];
            assert_eq!(at(x, y), want, "pixel ({x}, {y})");
        }
    }
    // Hand-picked: the bottom-right corner (2, 2) is the top-left of a quad
    // whose other three lanes are helpers: DDX = 2.5, DDY = 2.5.
    assert_eq!(at(2, 2), [2.5, 2.5, 2.5, 2.5]);
    // (2, 1) is the bottom-left of the quad at (2, 0): coarse DDX = y0 = 0.5,
    // fine DDX = its row's y = 1.5; DDY = x0 = 2.5 both ways.
    assert_eq!(at(2, 1), [0.5, 2.5, 1.5, 2.5]);
}

#[test]
fn kill_demote_and_helpers() {
    // TEMP[3].x = x * x first; then column x == 0: KILL; rows y >= 2:
    // KILL_IF (2 - pos.y); column x == 2: DEMOTE. Every remaining invocation
    // adds 1 to BUFFER[0] (helpers do not), and writes (DDX(x * x),
    // READ_HELPER as bits, HELPER_INVOCATION, 1).
    let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL SV[0], HELPER_INVOCATION\nDCL OUT[0], COLOR\n\
        DCL BUFFER[0]\nDCL TEMP[0..3]\n\
        IMM[0] FLT32 {0.5, 1.0, 2.5, 2.0}\nIMM[1] UINT32 {0, 1, 0, 0}\n\
        MUL TEMP[3].x, IN[0].xxxx, IN[0].xxxx\n\
        FSEQ TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\nUIF TEMP[0].xxxx\n KILL\nENDIF\n\
        ADD TEMP[1], IMM[0].wwww, -IN[0].yyyy\nKILL_IF TEMP[1]\n\
        FSEQ TEMP[0].x, IN[0].xxxx, IMM[0].zzzz\nUIF TEMP[0].xxxx\n DEMOTE\nENDIF\n\
        ATOMUADD TEMP[2].x, BUFFER[0], IMM[1].xxxx, IMM[1].yyyy\n\
        DDX OUT[0].x, TEMP[3].xxxx\n\
        READ_HELPER TEMP[3].y\nMOV OUT[0].y, TEMP[3].yyyy\nMOV OUT[0].z, SV[0].xxxx\n\
        MOV OUT[0].w, IMM[0].yyyy\nEND\n";
    let p = prog(src);
    let mut res = Resources {
        buffers: vec![vec![0; 4]],
        ..Resources::default()
    };
    let (out, _) = p
        .shade(&mut res, &Draw::full_quad(5, 4), 1, &Limits::default())
        .unwrap();
    // Survivors: x in {1, 3, 4}, y in {0, 1}: 6 pixels. Demoted (x == 2),
    // killed and outside (x == 5) lanes do not touch the buffer.
    assert_eq!(
        u32::from_le_bytes(res.buffers[0][..4].try_into().unwrap()),
        6
    );
    for y in 0..4 {
        for x in 0..5 {
            let v = out[0][y * 5 + x];
            let written = x != 0 && y < 2 && x != 2;
            if !written {
                assert_eq!(v, [0; 4], "pixel ({x}, {y}) must not be written");
                continue;
            }
            // DDX of x^2 over the quad's top row: (x0 + 1)^2 - x0^2 = 2 x0 + 1
            // with x0 = 0.5, 2.5, 4.5 (the killed, demoted and outside lanes
            // computed TEMP[3] before they stopped or became helpers).
            let ddx = match x {
                1 => 2.0,
                3 => 6.0,
                _ => 10.0,
            };
            let got = (f32::from_bits(v[0]), v[1], v[2], f32::from_bits(v[3]));
            assert_eq!(got, (ddx, 0, 0, 1.0), "pixel ({x}, {y})");
        }
    }
}

#[test]
fn demoted_and_outside_lanes_read_as_helpers() {
    // Writes READ_HELPER and HELPER_INVOCATION of the right-hand neighbour
    // (via DDX of the flag, as floats 1/0) so helper lanes become visible.
    let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL SV[0], HELPER_INVOCATION\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
        IMM[0] FLT32 {1.5, 1.0, 0.0, 0.0}\n\
        FSEQ TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\nUIF TEMP[0].xxxx\n DEMOTE\nENDIF\n\
        READ_HELPER TEMP[0].x\nAND TEMP[1].x, TEMP[0].xxxx, IMM[0].yyyy\n\
        AND TEMP[1].y, SV[0].xxxx, IMM[0].yyyy\n\
        DDX_FINE OUT[0].xy, TEMP[1].xyyy\nMOV OUT[0].zw, IMM[0].yyyy\nEND\n";
    let p = prog(src);
    // Width 3: pixel 1 demotes itself (TR of quad 0), pixel 3 is outside.
    let out = shade(&p, &Draw::full_quad(3, 2), 1, 1);
    // Quad 0: TR is demoted: READ_HELPER diff = 1 - 0; SV (start state) 0 - 0.
    assert_eq!(f(out[0][0]), [1.0, 0.0, 1.0, 1.0]);
    // Pixel 1 is demoted: not written.
    assert_eq!(out[0][1], [0; 4]);
    // Quad 1 (x = 2): TR is outside the target: helper from the start.
    assert_eq!(f(out[0][2]), [1.0, 1.0, 1.0, 1.0]);
    assert_eq!(f(out[0][5]), [1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn interpolation_modes_and_interp_opcodes() {
    // GENERIC[1].x = 1 + 2x + 3y. Pixel (px, py) centre = (px + .5, py + .5).
    let src = "FRAG\nDCL IN[0], GENERIC[1], CONSTANT\nDCL IN[1], GENERIC[1], LINEAR\n\
        DCL IN[2], GENERIC[1], PERSPECTIVE, CENTROID\nDCL IN[3], GENERIC[7], LINEAR\n\
        DCL OUT[0], COLOR[0]\nDCL OUT[1], COLOR[1]\nDCL TEMP[0]\n\
        IMM[0] FLT32 {0.25, -0.5, 0.0, 0.0}\nIMM[1] INT32 {3, 0, 0, 0}\n\
        MOV OUT[0].x, IN[0].xxxx\nMOV OUT[0].y, IN[1].xxxx\nMOV OUT[0].z, IN[2].xxxx\nMOV OUT[0].w, IN[3].xxxx\n\
        INTERP_OFFSET TEMP[0].x, IN[1].xxxx, IMM[0].xyyy\n\
        INTERP_SAMPLE TEMP[0].y, IN[1].xxxx, IMM[1].xxxx\n\
        INTERP_CENTROID TEMP[0].z, -IN[1].xxxx\n\
        INTERP_OFFSET TEMP[0].w, IN[0].xxxx, IMM[0].xyyy\n\
        MOV OUT[1], TEMP[0]\nEND\n";
    let p = prog(src);
    let mut draw = Draw::full_quad(4, 4);
    draw.varyings.push(Varying {
        semantic: SemanticName::Generic,
        index: 1,
        plane: [[1.0, 2.0, 3.0], [0.0; 3], [0.0; 3], [0.0; 3]],
    });
    let out = shade(&p, &draw, 2, 1);
    for py in 0..4 {
        for px in 0..4 {
            let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
            let lin = 1.0 + 2.0 * x + 3.0 * y;
            let i = py * 4 + px;
            // CONSTANT reads plane[0]; GENERIC[7] has no varying: 0.
            assert_eq!(f(out[0][i]), [1.0, lin, lin, 0.0], "COLOR[0] ({px}, {py})");
            let off = 1.0 + 2.0 * (x + 0.25) + 3.0 * (y - 0.5);
            assert_eq!(f(out[1][i]), [off, lin, -lin, 1.0], "COLOR[1] ({px}, {py})");
        }
    }
}

#[test]
fn position_face_and_coordinate_conventions() {
    let src = |props: &str, decl: &str| {
        format!(
            "FRAG\n{props}DCL IN[0], POSITION, LINEAR\n{decl}DCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
             MOV OUT[0], IN[0]\nMOV OUT[1], IN[1]\nEND\n"
        )
    };
    let mut draw = Draw::full_quad(4, 6);
    draw.front_face = false;
    let p = prog(&src("", "DCL IN[1], FACE, CONSTANT\n"));
    let out = shade(&p, &draw, 2, 1);
    // pixel (3, 5)
    assert_eq!(f(out[0][5 * 4 + 3]), [3.5, 5.5, 0.5, 1.0]);
    assert_eq!(f(out[1][5 * 4 + 3]), [-1.0, 0.0, 0.0, 1.0]);
    let p = prog(&src(
        "PROPERTY FS_COORD_ORIGIN LOWER_LEFT\nPROPERTY FS_COORD_PIXEL_CENTER INTEGER\n",
        "DCL IN[1], GENERIC[0], LINEAR\n",
    ));
    let out = shade(&p, &draw, 2, 1);
    // Row 5 of 6 from the top is row 0 from the bottom; integer centres.
    assert_eq!(f(out[0][5 * 4 + 3]), [3.0, 0.0, 0.5, 1.0]);
    assert_eq!(f(out[0][2]), [2.0, 5.0, 0.5, 1.0]);
    // GENERIC[0] of draw quad: ((x + .5) / 4, (y + .5) / 6, 0, 1), upper-left origin.
    assert_eq!(
        f(out[1][5 * 4 + 3]),
        [3.5 / 4.0, (5.5f64 / 6.0) as f32, 0.0, 1.0]
    );
    // A POSITION varying overrides z and w.
    draw.varyings.push(Varying {
        semantic: SemanticName::Position,
        index: 0,
        plane: [[0.0; 3], [0.0; 3], [0.25, 0.0, 0.0], [2.0, 0.0, 0.0]],
    });
    let out = shade(&p, &draw, 1, 1);
    assert_eq!(f(out[0][0]), [0.0, 5.0, 0.25, 2.0]);
}

#[test]
fn sample_mask_output_and_color0_to_all_targets() {
    // Discard pixels with even x via SAMPLEMASK bit 0; COLOR[0] fills 2 targets.
    let src = "FRAG\nPROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1\nDCL IN[0], POSITION, LINEAR\n\
        DCL OUT[0], COLOR\nDCL OUT[1], SAMPLEMASK\nDCL TEMP[0]\n\
        F2U TEMP[0].x, IN[0].xxxx\nMOV OUT[1].x, TEMP[0].xxxx\nMOV OUT[0], IN[0]\nEND\n";
    let p = prog(src);
    let out = shade(&p, &Draw::full_quad(4, 1), 2, 1);
    for t in &out {
        assert_eq!(t[0], [0; 4]);
        assert_eq!(f(t[1]), [1.5, 0.5, 0.5, 1.0]);
        assert_eq!(t[2], [0; 4]);
        assert_eq!(f(t[3]), [3.5, 0.5, 0.5, 1.0]);
    }
}

#[test]
fn any_thread_count_gives_the_same_pixels() {
    let p = prog(DERIV);
    let draw = Draw::full_quad(13, 11);
    let one = shade(&p, &draw, 1, 1);
    for threads in [2, 3, 4, 7] {
        assert_eq!(shade(&p, &draw, 1, threads), one, "threads {threads}");
    }
}

#[test]
fn fragment_errors() {
    let p = prog(DERIV);
    let mut res = Resources::default();
    let mut d = Draw::full_quad(4, 4);
    d.samples = 3;
    let e = p.shade(&mut res, &d, 1, &Limits::default()).unwrap_err();
    assert!(e.message.contains("3 samples"), "{}", e.message);
    let cs = prog("COMP\nEND\n");
    let e = cs
        .shade(&mut res, &Draw::full_quad(4, 4), 1, &Limits::default())
        .unwrap_err();
    assert!(e.message.contains("fragment shader"), "{}", e.message);
    let (s, _) = tgsi_text::parse("COMP\nDCL TEMP[0]\nDDX TEMP[0], TEMP[0]\nEND\n").unwrap();
    let e = Program::compile(&s)
        .err()
        .expect("DDX in COMP must be refused");
    assert!(e.message.contains("fragment stage"), "{}", e.message);
}

// ---- textures and images through the machine ------------------------------

use crate::texture::{Format, Texture};
use tgsi_ir::enums::TextureTarget;

/// A 2x2 rgba32f texture whose texel (x, y) is (x, y, 10 + x + 2y, 1).
fn texture_2x2() -> Texture {
    let mut t = Texture::new(
        TextureTarget::Tex2D,
        Format::Rgba32Float,
        [2, 2, 1],
        1,
        1,
        1,
    )
    .unwrap();
    for y in 0..2u32 {
        for x in 0..2u32 {
            let v = [x as f32, y as f32, (10 + x + 2 * y) as f32, 1.0].map(f32::to_bits);
            t.set_texel(0, x, y, 0, 0, v).unwrap();
        }
    }
    t
}

#[test]
fn sample_and_tex_in_a_draw_into_rgba32f_and_rgba8_targets() {
    // Nearest sampling, 4x4 target: pixel (px, py) has u = (px + .5) / 4, so
    // it reads texel (px / 2, py / 2). COLOR[0] = SAMPLE, COLOR[1] = TEX * 0.25.
    let src = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
        DCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0]\nIMM[0] FLT32 {0.25, 0.0, 0.0, 0.0}\n\
        SAMPLE OUT[0], IN[0], SVIEW[0], SAMP[0]\n\
        TEX TEMP[0], IN[0], SAMP[0], 2D\nMUL OUT[1], TEMP[0], IMM[0].xxxx\nEND\n";
    let p = prog(src);
    let mut res = Resources {
        textures: vec![Some(texture_2x2())],
        ..Resources::default()
    };
    let mk = |f| Texture::new(TextureTarget::Tex2D, f, [4, 4, 1], 1, 1, 1).unwrap();
    let mut targets = vec![mk(Format::Rgba32Float), mk(Format::Rgba8Unorm)];
    p.draw(
        &mut res,
        &Draw::full_quad(4, 4),
        &mut targets,
        &Limits::default(),
    )
    .unwrap();
    for py in 0..4u32 {
        for px in 0..4u32 {
            let (tx, ty) = (px / 2, py / 2);
            let want = [tx as f32, ty as f32, (10 + tx + 2 * ty) as f32, 1.0];
            assert_eq!(f(targets[0].texel(0, px, py, 0, 0)), want, "({px}, {py})");
            // rgba8: 0.25 * (x, y, 10+.., 1) -> saturated, * 255, rounded:
            // 0 -> 0, 0.25 -> 63.75 -> 64, >= 1 -> 255.
            let b = |v: f32| (v * 0.25 * 255.0).clamp(0.0, 255.0).round() as u8;
            let o = ((py * 4 + px) * 4) as usize;
            let bytes = &targets[1].levels[0][o..o + 4];
            assert_eq!(
                bytes,
                [b(want[0]), b(want[1]), 255, b(1.0)],
                "rgba8 ({px}, {py})"
            );
        }
    }
    // Same bytes with threads.
    let mut again = vec![mk(Format::Rgba32Float), mk(Format::Rgba8Unorm)];
    let limits = Limits {
        threads: 3,
        ..Limits::default()
    };
    let rows = std::sync::Mutex::new(Vec::new());
    p.draw_with_progress(
        &mut res,
        &Draw::full_quad(4, 4),
        &mut again,
        &limits,
        &|d, t| rows.lock().unwrap().push((d, t)),
    )
    .unwrap();
    assert_eq!(again, targets);
    let mut rows = rows.into_inner().unwrap();
    rows.sort();
    assert_eq!(rows, vec![(4, 4)], "one tile row of a 4-row target");
}

#[test]
fn derivative_lod_picks_the_mip_level_in_a_draw() {
    // 8x8 texture with 4 levels, level k filled with k; a 4x4 target with
    // GENERIC[0] * 2 as coordinates: one pixel step = 2/4 of the texture =
    // 4 texels of level 0, so LOD = log2(4) = 2 with nearest mip filtering.
    let src = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\n\
        DCL TEMP[0]\nIMM[0] FLT32 {2.0, 0.0, 0.0, 0.0}\n\
        MUL TEMP[0], IN[0], IMM[0].xxxx\nSAMPLE OUT[0], TEMP[0], SVIEW[0], SAMP[0]\nEND\n";
    let p = prog(src);
    let mut t = Texture::new(TextureTarget::Tex2D, Format::R32Float, [8, 8, 1], 1, 4, 1).unwrap();
    for k in 0..4u32 {
        let n = 8 >> k;
        for y in 0..n {
            for x in 0..n {
                t.set_texel(k, x, y, 0, 0, [(k as f32).to_bits(), 0, 0, 0])
                    .unwrap();
            }
        }
    }
    let sampler = crate::texture::Sampler {
        mip: crate::texture::MipFilter::Nearest,
        wrap: [crate::texture::Wrap::Repeat; 3],
        ..crate::texture::Sampler::default()
    };
    let mut res = Resources {
        textures: vec![Some(t)],
        samplers: vec![sampler],
        ..Resources::default()
    };
    let (out, _) = p
        .shade(&mut res, &Draw::full_quad(4, 4), 1, &Limits::default())
        .unwrap();
    for v in &out[0] {
        assert_eq!(f32::from_bits(v[0]), 2.0);
    }
}

#[test]
fn compute_and_vertex_shaders_fetch_texels_and_sample_with_explicit_lod() {
    // Compute: TXF at (tid % 2, tid / 2) level 0 -> BUFFER[0] word tid = texel.z.
    let cs = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SAMP[0]\nDCL BUFFER[0]\nDCL TEMP[0..2]\nIMM[0] UINT32 {1, 4, 0, 0}\n\
        AND TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\nUSHR TEMP[0].y, SV[0].xxxx, IMM[0].xxxx\n\
        MOV TEMP[0].zw, IMM[0].zzzz\nTXF TEMP[1], TEMP[0], SAMP[0], 2D\n\
        UMUL TEMP[2].x, SV[0].xxxx, IMM[0].yyyy\nSTORE BUFFER[0].x, TEMP[2].xxxx, TEMP[1].zzzz\nEND\n";
    let p = prog(cs);
    let mut res = Resources {
        buffers: vec![vec![0; 16]],
        textures: vec![Some(texture_2x2())],
        ..Resources::default()
    };
    p.dispatch(&mut res, [1, 1, 1], &Limits::default()).unwrap();
    let got = floats(&res.buffers[0]);
    assert_eq!(got, vec![10.0, 11.0, 12.0, 13.0]);
    // Vertex: SAMPLE_L at IN[0].xy, LOD 0 -> OUT[0].
    let vs = "VERT\nDCL IN[0]\nDCL OUT[0], GENERIC[0]\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\n\
        IMM[0] FLT32 {0.0, 0.0, 0.0, 0.0}\nSAMPLE_L OUT[0], IN[0], SVIEW[0], SAMP[0], IMM[0].xxxx\nEND\n";
    let p = prog(vs);
    let inputs: Vec<Vec<[u32; 4]>> = [[0.25f32, 0.25], [0.75, 0.25], [0.25, 0.75]]
        .iter()
        .map(|c| vec![[c[0].to_bits(), c[1].to_bits(), 0, 0]])
        .collect();
    let out = p
        .run_vertices(&mut res, &inputs, 3, &Limits::default())
        .unwrap();
    assert_eq!(f(out[0][0]), [0.0, 0.0, 10.0, 1.0]);
    assert_eq!(f(out[1][0]), [1.0, 0.0, 11.0, 1.0]);
    assert_eq!(f(out[2][0]), [0.0, 1.0, 12.0, 1.0]);
}

#[test]
fn image_store_load_and_atomics_round_trip() {
    // 16 invocations: STORE tid * 3 at (tid % 4, tid / 4) of a 4x4 r32ui image,
    // LOAD it back (same lane) into BUFFER[0], then ATOMUADD 1 at (0, 0).
    let cs = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\nDCL BUFFER[0]\nDCL TEMP[0..4]\n\
        IMM[0] UINT32 {3, 2, 4, 1}\nIMM[1] UINT32 {0, 0, 0, 0}\n\
        AND TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\nUSHR TEMP[0].y, SV[0].xxxx, IMM[0].yyyy\n\
        UMUL TEMP[1].x, SV[0].xxxx, IMM[0].xxxx\n\
        STORE IMAGE[0].x, TEMP[0].xyyy, TEMP[1].xxxx\n\
        LOAD TEMP[2], IMAGE[0], TEMP[0].xyyy\n\
        UMUL TEMP[3].x, SV[0].xxxx, IMM[0].zzzz\nSTORE BUFFER[0].x, TEMP[3].xxxx, TEMP[2].xxxx\n\
        ATOMUADD TEMP[4].x, IMAGE[0], IMM[1].xxxx, IMM[0].wwww\nEND\n";
    let p = prog(cs);
    let img = Texture::new(TextureTarget::Tex2D, Format::R32Uint, [4, 4, 1], 1, 1, 1).unwrap();
    let mut res = Resources {
        buffers: vec![vec![0; 64]],
        images: vec![Some(img)],
        ..Resources::default()
    };
    p.dispatch(&mut res, [1, 1, 1], &Limits::default()).unwrap();
    let img = res.images[0].as_ref().unwrap();
    for t in 0..16u32 {
        let want = if t == 0 { 16 } else { t * 3 };
        assert_eq!(img.texel(0, t % 4, t / 4, 0, 0)[0], want, "texel {t}");
        let w = u32::from_le_bytes(res.buffers[0][t as usize * 4..][..4].try_into().unwrap());
        assert_eq!(w, t * 3, "loaded {t}");
    }
    // An unbound image is an error naming it.
    let mut empty = Resources {
        buffers: vec![vec![0; 64]],
        ..Resources::default()
    };
    let e = p
        .dispatch(&mut empty, [1, 1, 1], &Limits::default())
        .unwrap_err();
    assert!(e.message.contains("IMAGE[0] is not bound"), "{}", e.message);
}

#[test]
fn helper_lanes_do_not_store_to_images() {
    // A 3x1 draw: quad 1 has pixel 2 inside, 3 outside (helper). Each pixel
    // stores 7 at image texel (x, 0) of a 4x1 image: texel 3 stays 0.
    let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\nDCL TEMP[0]\n\
        IMM[0] UINT32 {7, 0, 0, 0}\nF2U TEMP[0], IN[0]\nMOV TEMP[0].y, IMM[0].yyyy\n\
        STORE IMAGE[0].x, TEMP[0].xyyy, IMM[0].xxxx\nEND\n";
    let p = prog(src);
    let img = Texture::new(TextureTarget::Tex2D, Format::R32Uint, [4, 1, 1], 1, 1, 1).unwrap();
    let mut res = Resources {
        images: vec![Some(img)],
        ..Resources::default()
    };
    let mut draw = Draw::full_quad(3, 1);
    draw.width = 3;
    p.shade(&mut res, &draw, 0, &Limits::default()).unwrap();
    let img = res.images[0].as_ref().unwrap();
    let got: Vec<u32> = (0..4).map(|x| img.texel(0, x, 0, 0, 0)[0]).collect();
    assert_eq!(got, vec![7, 7, 7, 0]);
}

#[test]
fn indirect_sampler_views_are_per_lane() {
    // SAMPLE_I from SVIEW[ADDR[0].x] with ADDR = tid & 1 (and -1 for tid 3:
    // an unbound slot reads zeros): 1x1 textures holding 5 and 9.
    let cs = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SVIEW[0..1], 2D, FLOAT\nDCL BUFFER[0]\nDCL ADDR[0]\nDCL TEMP[0..2]\n\
        IMM[0] UINT32 {1, 4, 0, 3}\nIMM[1] INT32 {-1, 0, 0, 0}\n\
        AND TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\nUSEQ TEMP[0].y, SV[0].xxxx, IMM[0].wwww\n\
        UCMP TEMP[0].x, TEMP[0].yyyy, IMM[1].xxxx, TEMP[0].xxxx\nUARL ADDR[0].x, TEMP[0].xxxx\n\
        SAMPLE_I TEMP[1], IMM[0].zzzz, SVIEW[ADDR[0].x]\n\
        UMUL TEMP[2].x, SV[0].xxxx, IMM[0].yyyy\nSTORE BUFFER[0].x, TEMP[2].xxxx, TEMP[1].xxxx\nEND\n";
    let p = prog(cs);
    let one = |v: f32| {
        let mut t =
            Texture::new(TextureTarget::Tex2D, Format::R32Float, [1, 1, 1], 1, 1, 1).unwrap();
        t.set_texel(0, 0, 0, 0, 0, [v.to_bits(), 0, 0, 0]).unwrap();
        Some(t)
    };
    let mut res = Resources {
        buffers: vec![vec![0; 16]],
        textures: vec![one(5.0), one(9.0)],
        ..Resources::default()
    };
    p.dispatch(&mut res, [1, 1, 1], &Limits::default()).unwrap();
    let got = floats(&res.buffers[0]);
    assert_eq!(got, vec![5.0, 9.0, 5.0, 0.0]);
}

#[test]
fn interp_offset_on_position_and_resource_swizzle() {
    // INTERP_OFFSET of POSITION moves x/y by the offset; SAMPLE's SVIEW
    // swizzle .zyxw permutes the result.
    let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL IN[1], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
        DCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nIMM[0] FLT32 {0.25, -0.125, 0.0, 0.0}\n\
        INTERP_OFFSET OUT[0], IN[0], IMM[0].xyyy\nSAMPLE OUT[1], IN[1], SVIEW[0].zyxw, SAMP[0]\nEND\n";
    let p = prog(src);
    let mut res = Resources {
        textures: vec![Some(texture_2x2())],
        ..Resources::default()
    };
    let (out, _) = p
        .shade(&mut res, &Draw::full_quad(2, 2), 2, &Limits::default())
        .unwrap();
    // pixel (1, 0): position (1.75, 0.375, 0.5, 1); texel (1, 0) = (1, 0, 11, 1) -> zyxw.
    assert_eq!(f(out[0][1]), [1.75, 0.375, 0.5, 1.0]);
    assert_eq!(f(out[1][1]), [11.0, 0.0, 1.0, 1.0]);
}

#[test]
fn multisampled_draws_at_pixel_and_sample_frequency() {
    let mut draw = Draw::full_quad(2, 1);
    draw.samples = 4;
    draw.varyings.push(Varying {
        semantic: SemanticName::Generic,
        index: 1,
        plane: [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3], [0.0; 3]],
    });
    // D3D 4-sample pattern (1/16 px from the centre): (-2,-6), (6,-2), (-6,2), (2,6):
    // positions in the pixel (0.375, 0.125), (0.875, 0.375), (0.125, 0.625), (0.625, 0.875).
    let pos = [
        (0.375f32, 0.125f32),
        (0.875, 0.375),
        (0.125, 0.625),
        (0.625, 0.875),
    ];
    // Draws `src` into a fresh 2x1 rgba32f target of 4 samples.
    let draw_msaa = |src: &str| {
        let target = Texture::new(
            TextureTarget::Msaa2D,
            Format::Rgba32Float,
            [2, 1, 1],
            1,
            1,
            4,
        )
        .unwrap();
        let mut targets = vec![target];
        prog(src)
            .draw(
                &mut Resources::default(),
                &draw,
                &mut targets,
                &Limits::default(),
            )
            .unwrap();
        targets.remove(0)
    };
    // Every sample of both pixels against `want(pixel, sample)`.
    let check = |t: &Texture, want: &dyn Fn(u32, u32) -> [f32; 4]| {
        for x in 0..2u32 {
            for s in 0..4u32 {
                assert_eq!(
                    f(t.texel(0, x, 0, 0, s)),
                    want(x, s),
                    "pixel {x} sample {s}"
                );
            }
        }
    };
    // Pixel frequency: one run, SAMPLEMASK output 0b0101 keeps samples 0 and 2;
    // INTERP_SAMPLE 1 evaluates GENERIC[1].x = x at sample 1.
    let src = "FRAG\nDCL IN[0], GENERIC[1], LINEAR\nDCL OUT[0], COLOR\nDCL OUT[1], SAMPLEMASK\n\
        IMM[0] UINT32 {5, 1, 0, 0}\nIMM[1] FLT32 {1.0, 0.0, 0.0, 0.0}\n\
        MOV OUT[1].x, IMM[0].xxxx\nINTERP_SAMPLE OUT[0].x, IN[0].xxxx, IMM[0].yyyy\n\
        MOV OUT[0].yzw, IMM[1].xxxx\nEND\n";
    check(&draw_msaa(src), &|x, s| {
        if s % 2 == 0 {
            [x as f32 + pos[1].0, 1.0, 1.0, 1.0]
        } else {
            [0.0; 4]
        }
    });
    // Sample frequency (SAMPLEID is read): one run per sample; a SAMPLE-located
    // input is evaluated at the sample, SAMPLEPOS is its position.
    let src = "FRAG\nDCL IN[0], GENERIC[1], LINEAR, SAMPLE\nDCL SV[0], SAMPLEID\nDCL SV[1], SAMPLEPOS\n\
        DCL OUT[0], COLOR\nU2F OUT[0].x, SV[0].xxxx\nMOV OUT[0].yz, SV[1].xxyx\nMOV OUT[0].w, IN[0].xxxx\nEND\n";
    check(&draw_msaa(src), &|x, s| {
        let (sx, sy) = pos[s as usize];
        [s as f32, sx, sy, x as f32 + sx]
    });
}

#[test]
fn interp_with_an_indirect_input_index() {
    // IN[1..2] = GENERIC[1..2]; lane parity picks IN[1 + (x & 1)] through ADDR.
    // GENERIC[1].x = 10 + x, GENERIC[2].x = 20 + x; INTERP_OFFSET by (0.5, 0).
    let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL IN[1..2], GENERIC[1], LINEAR\nDCL OUT[0], COLOR\n\
        DCL ADDR[0]\nDCL TEMP[0]\nIMM[0] UINT32 {1, 0, 0, 0}\nIMM[1] FLT32 {0.5, 0.0, 0.0, 0.0}\n\
        F2U TEMP[0].x, IN[0].xxxx\nAND TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\nUARL ADDR[0].x, TEMP[0].xxxx\n\
        INTERP_OFFSET OUT[0].x, IN[ADDR[0].x+1].xxxx, IMM[1].xyyy\nEND\n";
    let p = prog(src);
    let mut draw = Draw::full_quad(4, 1);
    for (k, a) in [(1, 10.0), (2, 20.0)] {
        draw.varyings.push(Varying {
            semantic: SemanticName::Generic,
            index: k,
            plane: [[a, 1.0, 0.0], [0.0; 3], [0.0; 3], [0.0; 3]],
        });
    }
    let out = shade(&p, &draw, 1, 1);
    let got: Vec<f32> = out[0].iter().map(|v| f32::from_bits(v[0])).collect();
    // x = px + 0.5 + 0.5: even pixels read GENERIC[1], odd GENERIC[2].
    assert_eq!(got, vec![11.0, 22.0, 13.0, 24.0]);
}

/// `eval_quad` gives `eval`'s bits at each point for every kind of input.
#[test]
fn eval_quad_matches_eval() {
    let frag = super::fragment::FragEnv {
        inputs: Vec::new(),
        position: InputSource::Zero,
        face: -1.0,
        integer_center: false,
        lower_left: true,
        height: 37,
        samples: 4,
        per_sample: false,
        primitive_id: 3,
    };
    let plane = [
        [0.3, 1e-3, -2e-3],
        [-1.5, 0.25, 0.125],
        [1e9, -3.0, 7.0],
        [0.0, 0.0, 1e-30],
    ];
    let sources = [
        InputSource::Zero,
        InputSource::Flat([1, 2, 3, 4]),
        InputSource::Face(-1.0),
        InputSource::Linear(plane),
        InputSource::Perspective {
            plane,
            inv_w: [0.5, 1e-3, 2e-3],
        },
        // 1/w crossing zero: infinities and NaNs
        InputSource::Perspective {
            plane,
            inv_w: [-1.0, 0.5, 0.0],
        },
        InputSource::Window {
            z: [0.5, 0.01, 0.0],
            inv_w: [0.5, 1e-3, 2e-3],
            clip_w: true,
        },
    ];
    let points = [(0.5, 0.5), (1.5, 0.5), (2.0, 1.5), (1.875, 2.125)];
    for src in &sources {
        let want = points.map(|(x, y)| frag.eval(src, x, y));
        assert_eq!(frag.eval_quad(src, &points), want, "{src:?}");
    }
}

/// The channels of each input instructions read: the written components of
/// per-component opcodes through their swizzles, a dot product's channels,
/// a scalar's x, every channel of other opcodes' swizzles; every channel of
/// every input once one is read through an address register.
#[test]
fn input_reads_follow_the_opcodes_channels() {
    let src = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n\
        DCL IN[2], GENERIC[2], PERSPECTIVE\nDCL IN[3], GENERIC[3], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
        0: MUL TEMP[0].xy, IN[0].zwxx, IN[0]\n\
        1: DP3 TEMP[0].z, IN[1], IN[1]\n\
        2: RCP TEMP[0].w, IN[2].wzyx\n\
        3: MOV OUT[0], TEMP[0]\n\
        4: END\n";
    let p = prog(src);
    // IN[0]: x, y of the second source, z, w of the first
    assert_eq!(p.code().input_reads, vec![0b1111, 0b0111, 0b1000, 0]);
    let indirect = "FRAG\nDCL IN[0..1], GENERIC[0], PERSPECTIVE\nDCL IN[2], GENERIC[2], PERSPECTIVE\n\
        DCL OUT[0], COLOR\nDCL ADDR[0]\nDCL TEMP[0]\nIMM[0] FLT32 {1.0, 0.0, 0.0, 0.0}\n\
        0: ARL ADDR[0].x, IMM[0].xxxx\n\
        1: MOV TEMP[0].x, IN[ADDR[0].x].yyyy\n\
        2: MOV OUT[0], TEMP[0]\n\
        3: END\n";
    assert_eq!(prog(indirect).code().input_reads, vec![0xF; 3]);
}

/// A fragment TEX or SAMPLE with a direct view and sampler is planned once
/// per draw and then reads the first level directly where it may: the
/// same bits as the same lookup through an address register (never
/// planned), for magnified and minified quads, one level or mipmaps,
/// bilinear or trilinear, a swizzled sRGB view.
#[test]
fn planned_lookups_give_the_general_paths_bits() {
    use crate::texture::{Filter, MipFilter, Sampler, Swizzle, View, Wrap};
    // COLOR[0]: the planned lookup, COLOR[1]: through ADDR[0].x = 0; the
    // coordinates scale with the pixel (quads magnify at the top left,
    // minify towards the bottom right)
    let src = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
        DCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL ADDR[0]\nDCL TEMP[0..1]\n\
        IMM[0] FLT32 {24.0, 0.25, 0.0, 0.0}\n\
        MUL TEMP[0], IN[0], IN[0]\nMAD TEMP[0], TEMP[0], IMM[0].xxxx, IN[0].yxxx\n\
        ARL ADDR[0].x, IMM[0].zzzz\n\
        {op} OUT[0], TEMP[0], {direct}\n{op} OUT[1], TEMP[0], {indirect}\nEND\n";
    let mut t = Texture::new(
        TextureTarget::Tex2D,
        Format::Rgba8Srgb,
        [16, 16, 1],
        1,
        5,
        1,
    )
    .unwrap();
    for k in 0..5u32 {
        let n = 16 >> k;
        for y in 0..n {
            for x in 0..n {
                let v = ((x * 37 + y * 91 + k * 53) & 0xFF) as u8;
                let o = ((y * n + x) * 4) as usize;
                t.levels[k as usize][o..o + 4].copy_from_slice(&[
                    v,
                    v ^ 0x5A,
                    255 - v,
                    (x * 16) as u8,
                ]);
            }
        }
    }
    let view = View {
        swizzle: [Swizzle::B, Swizzle::R, Swizzle::One, Swizzle::A],
        ..View::default()
    };
    for (op, direct, indirect) in [
        ("TEX", "SAMP[0], 2D", "SAMP[ADDR[0].x], 2D"),
        (
            "SAMPLE",
            "SVIEW[0].zxwy, SAMP[0]",
            "SVIEW[ADDR[0].x].zxwy, SAMP[ADDR[0].x]",
        ),
    ] {
        let p = prog(
            &src.replace("{op}", op)
                .replace("{direct}", direct)
                .replace("{indirect}", indirect),
        );
        for (mip, wrap) in [
            (MipFilter::Linear, Wrap::Repeat),
            (MipFilter::None, Wrap::Clamp),
            (MipFilter::Nearest, Wrap::MirrorRepeat),
        ] {
            let mut res = Resources {
                textures: vec![Some(t.clone())],
                views: vec![view],
                samplers: vec![Sampler {
                    min: Filter::Linear,
                    mag: Filter::Linear,
                    mip,
                    wrap: [wrap; 3],
                    ..Sampler::default()
                }],
                ..Resources::default()
            };
            let (out, _) = p
                .shade(&mut res, &Draw::full_quad(48, 40), 2, &Limits::default())
                .unwrap();
            assert!(
                out[0].iter().any(|v| v[0] != 0),
                "{op} {mip:?}: nothing read"
            );
            for (i, (a, b)) in out[0].iter().zip(&out[1]).enumerate() {
                assert_eq!(a, b, "{op} {mip:?} {wrap:?}: pixel {i}");
            }
        }
    }
}

/// A batch whose four quads read one primitive's inputs (its planes over
/// the 16 lanes side by side) gets the bits of the same inputs worked out
/// quad by quad (four input sets of equal content): perspective inputs
/// sharing 1/w planes or not, 1/w crossing zero, linear, flat and FACE
/// inputs, quads anywhere on a large target.
#[test]
fn one_primitive_batches_give_the_bits_of_quad_by_quad_inputs() {
    use super::fragment::FragEnv;
    let p = prog(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n\
         DCL IN[2], GENERIC[2], LINEAR\nDCL IN[3], GENERIC[3], CONSTANT\n\
         DCL IN[4], GENERIC[4], PERSPECTIVE\nDCL IN[5], FACE, CONSTANT\nDCL OUT[0], COLOR\n\
         DCL TEMP[0]\n0: ADD TEMP[0], IN[0], IN[1]\n1: ADD TEMP[0], TEMP[0], IN[2]\n\
         2: ADD TEMP[0], TEMP[0], IN[3]\n3: ADD TEMP[0].xy, TEMP[0], IN[4]\n\
         4: ADD TEMP[0], TEMP[0], IN[5]\n5: MOV OUT[0], TEMP[0]\n6: END\n",
    );
    let code = p.code();
    let mut rng = tgsi_ir::rng::Rng(0x0e_91a4_77c3);
    for round in 0..400 {
        let origins: [[u32; 2]; 4] = std::array::from_fn(|_| {
            [
                (rng.next() % 16000) as u32 & !1,
                (rng.next() % 16000) as u32 & !1,
            ]
        });
        // planes of every scale; every other round, near zero at the first
        // quad (large terms that cancel: their order shows in the bits)
        let plane = |rng: &mut tgsi_ir::rng::Rng| -> [[f64; 3]; 4] {
            std::array::from_fn(|_| {
                let [a, b, c]: [f64; 3] = std::array::from_fn(|_| {
                    rng.uniform(-1e3, 1e3) * 2f64.powf(rng.uniform(-30.0, 10.0))
                });
                let [x, y] = origins[0].map(|v| v as f64 + 0.5);
                let a = if round % 2 == 0 {
                    a
                } else {
                    a * 1e-9 - (b * x + c * y)
                };
                [a, b, c]
            })
        };
        let inv_w = [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1e-3, 1e-3),
            rng.uniform(-1e-3, 1e-3),
        ];
        // the last perspective input has 1/w planes of its own
        let other_w = if round % 2 == 0 {
            inv_w
        } else {
            [0.5, 1e-4, -2e-4]
        };
        let frag = FragEnv {
            inputs: vec![
                InputSource::Perspective {
                    plane: plane(&mut rng),
                    inv_w,
                },
                InputSource::Perspective {
                    plane: plane(&mut rng),
                    inv_w,
                },
                InputSource::Linear(plane(&mut rng)),
                InputSource::Flat([1, 2, 3, rng.next() as u32]),
                InputSource::Perspective {
                    plane: plane(&mut rng),
                    inv_w: other_w,
                },
                InputSource::Face(-1.0),
            ],
            position: InputSource::Zero,
            face: -1.0,
            integer_center: false,
            lower_left: false,
            height: 1 << 14,
            samples: 1,
            per_sample: false,
            primitive_id: 0,
        };
        let copies: [FragEnv; 4] = std::array::from_fn(|_| frag.clone());
        let fill = |frags: &[&FragEnv; 4]| {
            let mut b = Batch::new(code);
            b.pixel = [
                std::array::from_fn(|l| origins[l / 4][0] + (l & 1) as u32),
                std::array::from_fn(|l| origins[l / 4][1] + (l >> 1 & 1) as u32),
            ];
            p.fill_fragment_values(&mut b, frags, None, None, &[]);
            (0..6)
                .map(|i| b.regs[(code.input.base + i) as usize])
                .collect::<Vec<_>>()
        };
        let one = fill(&[&frag, &frag, &frag, &frag]);
        let quads = fill(&[&copies[0], &copies[1], &copies[2], &copies[3]]);
        for (i, (a, b)) in one.iter().zip(&quads).enumerate() {
            for c in 0..4 {
                let lane = (0..16).find(|&l| a[c][l] != b[c][l]);
                assert!(
                    lane.is_none(),
                    "round {round}: IN[{i}].{c} lane {lane:?} at {origins:?}"
                );
            }
        }
    }
}
