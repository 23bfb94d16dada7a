//! Geometry and tessellation stage tests, with values worked out by hand.

use super::tests::{compile_err, prog};
use super::*;
use tgsi_ir::tess::Settings;
use tgsi_ir::tess::{Domain, OutputPrimitive, Partitioning};

/// The domain points of a quad with every factor 2 (integer), in the
/// tessellator's order: the outer ring clockwise from (0, 1), then the centre
/// (the pipeline's tessellator tests derive it).
const QUAD_GRID: [(f32, f32); 9] = [
    (0.0, 1.0),
    (0.0, 0.5),
    (0.0, 0.0),
    (0.5, 0.0),
    (1.0, 0.0),
    (1.0, 0.5),
    (1.0, 1.0),
    (0.5, 1.0),
    (0.5, 0.5),
];

fn quad_grid_points() -> Vec<[f32; 3]> {
    QUAD_GRID.iter().map(|&(u, v)| [u, v, 0.0]).collect()
}

fn f4(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

fn floats(w: &[u32; 4]) -> [f32; 4] {
    w.map(f32::from_bits)
}

/// Vertex k at (k, 10k, 0, 1).
fn vertices(n: usize) -> Vec<Vec<[u32; 4]>> {
    (0..n)
        .map(|k| vec![f4([k as f32, 10.0 * k as f32, 0.0, 1.0])])
        .collect()
}

fn run_gs(src: &str, verts: &[Vec<[u32; 4]>], indices: &[u32], ids: &[u32]) -> GeometryOutput {
    prog(src)
        .run_geometry(
            &mut Resources::default(),
            &GeometryInput {
                vertices: verts.into(),
                indices,
                primitive_ids: ids,
            },
            &Limits::default(),
        )
        .unwrap_or_else(|e| panic!("run_geometry failed: {e}"))
}

const AMPLIFY: &str = "GEOM
PROPERTY GS_INPUT_PRIMITIVE TRIANGLES
PROPERTY GS_OUTPUT_PRIMITIVE TRIANGLE_STRIP
PROPERTY GS_MAX_OUTPUT_VERTICES 6
DCL IN[][0], POSITION
DCL OUT[0], POSITION
IMM[0] UINT32 {0, 1, 0, 0}
IMM[1] FLT32 {100.0, 0.0, 0.0, 0.0}
MOV OUT[0], IN[0][0]
EMIT IMM[0].xxxx
MOV OUT[0], IN[1][0]
EMIT IMM[0].xxxx
MOV OUT[0], IN[2][0]
EMIT IMM[0].xxxx
ENDPRIM IMM[0].xxxx
ADD OUT[0], IN[0][0], IMM[1]
EMIT IMM[0].yyyy
ADD OUT[0], IN[1][0], IMM[1]
EMIT IMM[0].yyyy
ADD OUT[0], IN[2][0], IMM[1]
EMIT IMM[0].yyyy
END
";

#[test]
fn geometry_amplifies_a_triangle_into_two_streams() {
    // Two input triangles (vertices 0,1,2 and 3,4,5). Each invocation emits
    // its triangle to stream 0 and a copy moved by +100 in x to stream 1.
    let v = vertices(6);
    let out = run_gs(AMPLIFY, &v, &[0, 1, 2, 3, 4, 5], &[]);
    assert_eq!(out.outputs, 1);
    assert_eq!(out.primitive, tgsi_ir::enums::Primitive::TriangleStrip);
    let s0 = &out.streams[0];
    let s1 = &out.streams[1];
    assert_eq!((s0.vertices, s1.vertices), (6, 6));
    for (k, input) in v.iter().enumerate() {
        assert_eq!(out.vertex(0, k), &input[..]);
        let x = floats(&out.vertex(1, k)[0]);
        assert_eq!(x, [k as f32 + 100.0, 10.0 * k as f32, 0.0, 1.0]);
    }
    // one strip per primitive and stream, in primitive order
    for s in [s0, s1] {
        assert_eq!(s.strips.len(), 2);
        assert_eq!(
            (s.strips[0].first, s.strips[0].count, s.strips[0].primitive),
            (0, 3, 0)
        );
        assert_eq!(
            (s.strips[1].first, s.strips[1].count, s.strips[1].primitive),
            (3, 3, 1)
        );
        assert_eq!(s.strips[1].primitive_id, 1);
    }
    assert_eq!(out.primitive_list(1), vec![0, 1, 2, 3, 4, 5]);
    assert!(out.streams[2].strips.is_empty() && out.streams[3].vertices == 0);
    assert_eq!(out.stats.invocations, 2);
}

#[test]
fn emits_beyond_the_maximum_are_dropped() {
    // A loop emits 6 points numbered 0..5; GS_MAX_OUTPUT_VERTICES 4 keeps 0..3.
    let src = "GEOM
PROPERTY GS_INPUT_PRIMITIVE POINTS
PROPERTY GS_OUTPUT_PRIMITIVE POINTS
PROPERTY GS_MAX_OUTPUT_VERTICES 4
DCL IN[][0], POSITION
DCL OUT[0], POSITION
DCL TEMP[0..1]
IMM[0] UINT32 {0, 1, 6, 0}
MOV TEMP[0].x, IMM[0].xxxx
BGNLOOP
  USGE TEMP[1].x, TEMP[0].xxxx, IMM[0].zzzz
  UIF TEMP[1].xxxx
    BRK
  ENDIF
  MOV OUT[0], TEMP[0].xxxx
  EMIT IMM[0].xxxx
  UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy
ENDLOOP
END
";
    let out = run_gs(src, &vertices(1), &[0], &[]);
    let s = &out.streams[0];
    assert_eq!(s.vertices, 4);
    let xs: Vec<u32> = (0..4).map(|k| out.vertex(0, k)[0][0]).collect();
    assert_eq!(xs, vec![0, 1, 2, 3]);
    assert_eq!(s.strips.len(), 1);
    assert_eq!(out.primitive_list(0), vec![0, 1, 2, 3]);
}

#[test]
fn endprim_cuts_strips_and_strips_become_triangles() {
    // 2 vertices, ENDPRIM, then 5: strips of 2 (too short for a triangle)
    // and 5 (triangles 2,3,4 / 3,5,4 (odd: second and third swapped) /
    // 4,5,6). The end of the invocation closes the last strip.
    let src = "GEOM
PROPERTY GS_INPUT_PRIMITIVE POINTS
PROPERTY GS_OUTPUT_PRIMITIVE TRIANGLE_STRIP
PROPERTY GS_MAX_OUTPUT_VERTICES 16
DCL IN[][0], POSITION
DCL OUT[0], POSITION
IMM[0] UINT32 {0, 0, 0, 0}
EMIT IMM[0].xxxx
EMIT IMM[0].xxxx
ENDPRIM IMM[0].xxxx
EMIT IMM[0].xxxx
EMIT IMM[0].xxxx
EMIT IMM[0].xxxx
EMIT IMM[0].xxxx
EMIT IMM[0].xxxx
END
";
    let out = run_gs(src, &vertices(1), &[0], &[]);
    let counts: Vec<(u32, u32)> = out.streams[0]
        .strips
        .iter()
        .map(|s| (s.first, s.count))
        .collect();
    assert_eq!(counts, vec![(0, 2), (2, 5)]);
    assert_eq!(out.primitive_list(0), vec![2, 3, 4, 3, 5, 4, 4, 5, 6]);
}

#[test]
fn invocations_and_primitive_ids() {
    // GS_INVOCATIONS 3 over 7 points: 21 lanes (two batches). Each emits one
    // point (INVOCATIONID, PRIMID system value, PRIM_ID input, IN x).
    // Outputs come primitive by primitive, invocation by invocation.
    let src = "GEOM
PROPERTY GS_INPUT_PRIMITIVE POINTS
PROPERTY GS_OUTPUT_PRIMITIVE POINTS
PROPERTY GS_MAX_OUTPUT_VERTICES 1
PROPERTY GS_INVOCATIONS 3
DCL IN[][0], POSITION
DCL IN[][1], PRIM_ID
DCL SV[0], INVOCATIONID
DCL SV[1], PRIM_ID
DCL OUT[0], GENERIC[0]
IMM[0] UINT32 {0, 0, 0, 0}
MOV OUT[0].x, SV[0].xxxx
MOV OUT[0].y, SV[1].xxxx
MOV OUT[0].z, IN[0][1].xxxx
F2U OUT[0].w, IN[0][0].xxxx
EMIT IMM[0].xxxx
END
";
    let ids = [50, 51, 52, 53, 54, 55, 56];
    let out = run_gs(src, &vertices(7), &[6, 5, 4, 3, 2, 1, 0], &ids);
    let got: Vec<[u32; 4]> = (0..21).map(|k| out.vertex(0, k)[0]).collect();
    let want: Vec<[u32; 4]> = (0..21u32)
        .map(|k| [k % 3, 50 + k / 3, 50 + k / 3, 6 - k / 3])
        .collect();
    assert_eq!(got, want);
    let s = &out.streams[0].strips;
    assert_eq!(
        (s[20].invocation, s[20].primitive, s[20].primitive_id),
        (2, 6, 56)
    );
}

/// The error of running `p` over one point primitive naming vertex
/// `index` of a one-vertex input.
fn gs_error(p: &Program, index: u32, limits: &Limits) -> ExecError {
    let rows = vertices(1);
    let input = GeometryInput {
        vertices: (&rows).into(),
        indices: &[index],
        primitive_ids: &[],
    };
    p.run_geometry(&mut Resources::default(), &input, limits)
        .unwrap_err()
}

#[test]
fn geometry_errors_name_the_instruction() {
    let e = compile_err(
        "VERT\nDCL OUT[0], POSITION\nIMM[0] UINT32 {0, 0, 0, 0}\nEMIT IMM[0].xxxx\nEND\n",
    );
    assert!(
        e.message.contains("EMIT") && e.message.contains("GEOM"),
        "{e}"
    );
    let p = prog(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
         PROPERTY GS_MAX_OUTPUT_VERTICES 4\nDCL OUT[0], POSITION\nIMM[0] UINT32 {5, 0, 0, 0}\n\
         EMIT IMM[0].xxxx\nEND\n",
    );
    let e = gs_error(&p, 0, &Limits::default());
    assert_eq!(e.instruction, Some(0));
    assert!(e.message.contains("stream 5"), "{e}");
    // a loop that never ends stops at the budget, naming the instruction
    let p = prog(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
         PROPERTY GS_MAX_OUTPUT_VERTICES 4\nDCL OUT[0], POSITION\nIMM[0] UINT32 {0, 0, 0, 0}\n\
         BGNLOOP\nEMIT IMM[0].xxxx\nENDLOOP\nEND\n",
    );
    let limits = Limits {
        max_instructions: 1000,
        ..Limits::default()
    };
    let e = gs_error(&p, 0, &limits);
    assert!(
        e.message.contains("budget") && e.instruction.is_some(),
        "{e}"
    );
    // indices naming missing vertices are refused
    let e = gs_error(&p, 3, &limits);
    assert!(e.message.contains("vertex 3"), "{e}");
}

const TCS: &str = "TESS_CTRL
PROPERTY TCS_VERTICES_OUT 4
DCL IN[][0], POSITION
DCL SV[0], INVOCATIONID
DCL SV[1], PRIM_ID
DCL SV[2], VERTICESIN
DCL OUT[][0], POSITION
DCL OUT[][1], GENERIC[0]
DCL OUT[2], TESSOUTER
DCL OUT[3], TESSINNER
DCL OUT[4], PATCH[0]
DCL TEMP[0..2]
DCL ADDR[0]
IMM[0] FLT32 {2.0, 3.0, 4.0, 5.0}
IMM[1] FLT32 {6.0, 7.0, 0.0, 0.0}
IMM[2] UINT32 {0, 1, 3, 0}
UARL ADDR[0].x, SV[0].xxxx
ADD TEMP[0], IN[ADDR[0].x][0], IN[ADDR[0].x][0]
MOV OUT[ADDR[0].x][0], TEMP[0]
USEQ TEMP[1].x, SV[0].xxxx, IMM[2].xxxx
UIF TEMP[1].xxxx
  MOV OUT[2], IMM[0]
  MOV OUT[3], IMM[1]
  MOV OUT[4].x, SV[1].xxxx
  MOV OUT[4].y, SV[2].xxxx
ENDIF
BARRIER
UADD TEMP[2].x, SV[0].xxxx, IMM[2].yyyy
AND TEMP[2].x, TEMP[2].xxxx, IMM[2].zzzz
UARL ADDR[0].x, TEMP[2].xxxx
MOV TEMP[0], OUT[ADDR[0].x][0]
UARL ADDR[0].x, SV[0].xxxx
MOV OUT[ADDR[0].x][1], TEMP[0]
END
";

const TES: &str = "TESS_EVAL
PROPERTY TES_PRIM_MODE 7
PROPERTY TES_SPACING 2
PROPERTY TES_VERTEX_ORDER_CW 1
DCL IN[][0], GENERIC[0]
DCL IN[][1], POSITION
DCL IN[2], PATCH[0]
DCL IN[3], TESSOUTER
DCL SV[0], TESSCOORD
DCL SV[1], TESSINNER
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL OUT[2], GENERIC[1]
DCL OUT[3], GENERIC[2]
MOV OUT[0], SV[0]
MOV OUT[1], IN[3][0]
MOV OUT[2], IN[2]
ADD OUT[3].x, IN[3].wwww, SV[1].yyyy
MOV OUT[3].y, IN[1][1].xxxx
END
";

#[test]
fn tess_ctrl_factors_and_patch_constants_reach_the_domain_shader() {
    // One patch of 3 input control points (vertices 0, 1, 2 at (k, 10k, 0, 1)),
    // 4 output control points: OUT[cp][0] = 2 * IN[cp][0] (rows past the 3
    // inputs read 0); invocation 0 writes TESSOUTER (2, 3, 4, 5), TESSINNER
    // (6, 7), PATCH[0] = (PRIMID, VERTICESIN); after the barrier each
    // invocation copies control point (cp + 1) & 3's OUT[.][0] into its
    // OUT[cp][1].
    let tcs = prog(TCS);
    let tes = prog(TES);
    let v = vertices(3);
    let out = tcs
        .run_tess_ctrl(
            &mut Resources::default(),
            &PatchInput {
                vertices: (&v).into(),
                indices: &[0, 1, 2],
                control_points: 3,
                primitive_ids: &[9],
            },
            &Limits::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (out.outputs, out.vertices_out, out.patches.len()),
        (5, 4, 1)
    );
    let p = &out.patches[0];
    assert_eq!(p.outer, [2.0, 3.0, 4.0, 5.0]);
    assert_eq!(p.inner, [6.0, 7.0]);
    assert_eq!(p.patch[4][..2], [9, 3]);
    let doubled = |k: usize| {
        if k < 3 {
            f4([2.0 * k as f32, 20.0 * k as f32, 0.0, 2.0])
        } else {
            [0; 4]
        }
    };
    for cp in 0..4 {
        let regs = p.control_point(cp, out.outputs);
        assert_eq!(regs[0], doubled(cp), "cp {cp}");
        assert_eq!(regs[1], doubled((cp + 1) & 3), "cp {cp}");
    }

    // The domain shader: quad domain, integer partitioning, factor 2 on
    // every edge after the TCS's factors are replaced by 2 here; its IN[][0]
    // (GENERIC[0]) links to the TCS's OUT[][1], IN[][1] (POSITION) to OUT[][0],
    // IN[2] (PATCH[0]) and IN[3] (TESSOUTER) to the patch outputs.
    let inputs = p.tess_eval_inputs(&tcs, &tes);
    assert_eq!(inputs.control_points.len(), 4);
    assert_eq!(inputs.control_points[3][0], doubled(0));
    assert_eq!(inputs.control_points[1][1], doubled(1));
    assert_eq!(inputs.patch[2][..2], [9, 3]);
    let settings = tes.tessellator_settings().unwrap();
    assert_eq!(
        settings,
        Settings::new(
            Domain::Quad,
            Partitioning::Integer,
            OutputPrimitive::TriangleCw
        )
    );
    let points = quad_grid_points();
    let (verts, _) = tes
        .run_tess_eval(
            &mut Resources::default(),
            &inputs,
            &points,
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(verts.len(), 9);
    for (k, o) in verts.iter().enumerate() {
        let [u, v, w] = points[k];
        // TESSCOORD (u, v, w, 0), w = 0 on the quad domain
        assert_eq!(floats(&o[0]), [u, v, w, 0.0]);
        assert_eq!(o[1], doubled(0)); // IN[3][0]: OUT[3][1] = OUT[0][0]
        assert_eq!(o[2][..2], [9, 3]);
        // TESSOUTER.w (5) + TESSINNER.y (7); IN[1][1].x = 2 * vertex 1's x
        assert_eq!(floats(&o[3])[..2], [12.0, 2.0]);
    }
}

#[test]
fn tess_coords_of_a_tessellated_quad() {
    // Quad, integer factors 2: the tessellator's 3x3 grid in its order
    // (outer ring clockwise from (0, 1), then the centre); TESSCOORD is
    // (u, v, 0, 0).
    let tes = prog(
        "TESS_EVAL\nPROPERTY TES_PRIM_MODE 7\nDCL SV[0], TESSCOORD\nDCL OUT[0], POSITION\n\
         MOV OUT[0], SV[0]\nEND\n",
    );
    let s = tes.tessellator_settings().unwrap();
    assert_eq!(s.output(), OutputPrimitive::TriangleCcw);
    let points = quad_grid_points();
    let (verts, stats) = tes
        .run_tess_eval(
            &mut Resources::default(),
            &TessEvalPatch::default(),
            &points,
            &Limits::default(),
        )
        .unwrap();
    let got: Vec<[f32; 4]> = verts.iter().map(|o| floats(&o[0])).collect();
    let want: Vec<[f32; 4]> = QUAD_GRID.iter().map(|&(u, v)| [u, v, 0.0, 0.0]).collect();
    assert_eq!(got, want);
    assert_eq!(stats.invocations, 9);
}

#[test]
fn tess_ctrl_barrier_spans_two_batches() {
    // 20 output control points (batches of 16 and 4): each writes its id to
    // OUT[id][0].x; after the barrier it reads control point (id + 1) % 20,
    // so 15 reads 16 (the other batch) and 19 reads 0.
    let src = "TESS_CTRL
PROPERTY TCS_VERTICES_OUT 20
DCL SV[0], INVOCATIONID
DCL OUT[][0], GENERIC[0]
DCL OUT[][1], GENERIC[1]
DCL TEMP[0..1]
DCL ADDR[0]
IMM[0] UINT32 {1, 20, 0, 0}
UARL ADDR[0].x, SV[0].xxxx
MOV OUT[ADDR[0].x][0].x, SV[0].xxxx
BARRIER
UADD TEMP[0].x, SV[0].xxxx, IMM[0].xxxx
UMOD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy
UARL ADDR[0].x, TEMP[0].xxxx
MOV TEMP[1].x, OUT[ADDR[0].x][0].xxxx
UARL ADDR[0].x, SV[0].xxxx
MOV OUT[ADDR[0].x][1].x, TEMP[1].xxxx
END
";
    let v = vertices(2);
    let out = prog(src)
        .run_tess_ctrl(
            &mut Resources::default(),
            &PatchInput {
                vertices: (&v).into(),
                indices: &[0, 1, 1, 0],
                control_points: 2,
                primitive_ids: &[],
            },
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(out.patches.len(), 2);
    for p in &out.patches {
        for cp in 0..20u32 {
            let r = p.control_point(cp as usize, out.outputs);
            assert_eq!((r[0][0], r[1][0]), (cp, (cp + 1) % 20), "cp {cp}");
        }
    }
    assert_eq!(out.patches[1].primitive_id, 1);
}

#[test]
fn tess_ctrl_refuses_bad_patches() {
    let p = prog(TCS);
    let v = vertices(3);
    let run = |indices: &[u32], c: usize| {
        p.run_tess_ctrl(
            &mut Resources::default(),
            &PatchInput {
                vertices: (&v).into(),
                indices,
                control_points: c,
                primitive_ids: &[],
            },
            &Limits::default(),
        )
    };
    assert!(
        run(&[0, 1], 3)
            .unwrap_err()
            .message
            .contains("whole patches")
    );
    assert!(run(&[0; 33], 33).unwrap_err().message.contains("1 to 32"));
    assert!(run(&[0, 1, 7], 3).unwrap_err().message.contains("vertex 7"));
    let e = compile_err("TESS_CTRL\nPROPERTY TCS_VERTICES_OUT 40\nDCL OUT[][0], GENERIC[0]\nEND\n");
    assert!(e.message.contains("TCS_VERTICES_OUT 40"), "{e}");
}
