//! Fragment-stage tests: derivatives at quad and target edges, KILL/DEMOTE
//! and helper lanes, interpolation modes, system values, thread-count
//! independence. Expected values are worked out by hand from the rules in
//! `fragment.rs`.

use super::*;

fn prog(src: &str) -> Program {
    let (s, _) = crate::text::parse(src).unwrap_or_else(|e| panic!("parse failed: {e}\n{src}"));
    Program::compile(&s).unwrap_or_else(|e| panic!("compile failed: {e}"))
}

fn f(v: [u32; 4]) -> [f32; 4] {
    v.map(f32::from_bits)
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
    for t in 0..2 {
        assert_eq!(out[t][0], [0; 4]);
        assert_eq!(f(out[t][1]), [1.5, 0.5, 0.5, 1.0]);
        assert_eq!(out[t][2], [0; 4]);
        assert_eq!(f(out[t][3]), [3.5, 0.5, 0.5, 1.0]);
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
    d.samples = 4;
    let e = p.shade(&mut res, &d, 1, &Limits::default()).unwrap_err();
    assert!(e.message.contains("4 samples"), "{}", e.message);
    let cs = prog("COMP\nEND\n");
    let e = cs
        .shade(&mut res, &Draw::full_quad(4, 4), 1, &Limits::default())
        .unwrap_err();
    assert!(e.message.contains("fragment shader"), "{}", e.message);
    let (s, _) = crate::text::parse("COMP\nDCL TEMP[0]\nDDX TEMP[0], TEMP[0]\nEND\n").unwrap();
    let e = Program::compile(&s)
        .err()
        .expect("DDX in COMP must be refused");
    assert!(e.message.contains("fragment stage"), "{}", e.message);
}
