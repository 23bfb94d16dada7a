use super::*;
use crate::{BasicTopology, VertexInput};
use tgsi_exec::texture::Format;
use tgsi_ir::enums::TextureTarget;

use crate::tests::program;

const PASS_VS: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[3]\n\
     0: MOV OUT[0], IN[0]\n1: MOV OUT[1], IN[1]\n2: END\n";

const COLOR_FS: &str = "FRAG\nDCL IN[0], GENERIC[3], PERSPECTIVE\nDCL OUT[0], COLOR\n\
     0: MOV OUT[0], IN[0]\n1: END\n";

fn f(v: f32) -> u32 {
    v.to_bits()
}

fn rows(v: &[([f32; 4], [f32; 4])]) -> Vec<Vec<[u32; 4]>> {
    v.iter().map(|(p, c)| vec![p.map(f), c.map(f)]).collect()
}

fn stream_of(vs: &Program, rows: &[Vec<[u32; 4]>], topology: Topology, adj: bool) -> VertexStream {
    let call = DrawCall::vertices(topology, rows.len() as u32);
    let patches = matches!(topology, Topology::PatchList(_));
    shade_vertices(
        vs,
        &mut Resources::default(),
        &VertexInput::from_rows(rows),
        &call,
        adj,
        patches,
        &Limits::default(),
    )
    .unwrap()
    .0
}

/// Emits the input triangle, ENDPRIM, then the triangle moved by +10 in x
/// to stream 0, and one vertex to stream 1 (not rasterized). The colour
/// input (GENERIC[3]) is read by semantic into IN[][1] and passed on.
const AMPLIFY_GS: &str = "GEOM
PROPERTY GS_INPUT_PRIMITIVE TRIANGLES
PROPERTY GS_OUTPUT_PRIMITIVE TRIANGLE_STRIP
PROPERTY GS_MAX_OUTPUT_VERTICES 7
DCL IN[][0], GENERIC[3]
DCL IN[][1], POSITION
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[3]
DCL TEMP[0]
IMM[0] UINT32 {0, 1, 0, 0}
IMM[1] FLT32 {10.0, 0.0, 0.0, 0.0}
MOV OUT[0], IN[0][1]
MOV OUT[1], IN[0][0]
EMIT IMM[0].xxxx
MOV OUT[0], IN[1][1]
EMIT IMM[0].xxxx
MOV OUT[0], IN[2][1]
EMIT IMM[0].xxxx
ENDPRIM IMM[0].xxxx
ADD OUT[0], IN[0][1], IMM[1]
EMIT IMM[0].xxxx
EMIT IMM[0].yyyy
ADD OUT[0], IN[1][1], IMM[1]
EMIT IMM[0].xxxx
ADD OUT[0], IN[2][1], IMM[1]
EMIT IMM[0].xxxx
END
";

#[test]
fn geometry_stage_amplifies_and_links_by_semantic() {
    let vs = program(PASS_VS);
    let gs = program(AMPLIFY_GS);
    let tri = rows(&[
        ([0.0, 0.0, 0.0, 1.0], [0.25, 0.5, 0.75, 1.0]),
        ([1.0, 0.0, 0.0, 1.0], [0.0; 4]),
        ([0.0, 1.0, 0.0, 1.0], [0.0; 4]),
    ]);
    let mut input = tri.clone();
    input.extend(tri.iter().cloned());
    let stream = stream_of(
        &vs,
        &input,
        Topology::Basic(BasicTopology::TriangleList),
        true,
    );
    let layout = OutputLayout::of(&vs);
    let (out, stats) = geometry_stream(
        Stage::new(&gs),
        &mut Resources::default(),
        &stream,
        &layout,
        &Limits::default(),
    )
    .unwrap();
    assert!(stats.invocations >= 2);
    // 2 input triangles × 2 output triangles; stream 1's vertex is not there
    assert_eq!(out.primitives.len(), 4);
    assert_eq!(out.outputs.len(), 2 * 6 * 2);
    let ids: Vec<u32> = out.primitives.iter().map(|p| p.id).collect();
    assert_eq!(ids, [0, 0, 1, 1]);
    // second triangle's first vertex: (10, 0, 0, 1) with the colour
    let v = out.vertex(out.primitive_vertices(&out.primitives.get(1).unwrap())[0]);
    assert_eq!(v[0], [10.0, 0.0, 0.0, 1.0].map(f));
    assert_eq!(v[1], [0.25, 0.5, 0.75, 1.0].map(f));
}

#[test]
fn geometry_stage_refuses_primitives_it_cannot_read() {
    let vs = program(PASS_VS);
    let gs = program(AMPLIFY_GS);
    let pts = rows(&[([0.0, 0.0, 0.0, 1.0], [0.0; 4])]);
    let stream = stream_of(&vs, &pts, Topology::Basic(BasicTopology::PointList), true);
    let e = geometry_stream(
        Stage::new(&gs),
        &mut Resources::default(),
        &stream,
        &OutputLayout::of(&vs),
        &Limits::default(),
    )
    .unwrap_err();
    assert!(e.message.contains("point"), "{}", e.message);
}

/// One output control point; the factors come from the first input
/// control point's GENERIC[3] (outer = x, inner = y); PATCH[0] = its
/// POSITION.
const FACTOR_TCS: &str = "TESS_CTRL
PROPERTY TCS_VERTICES_OUT 1
DCL IN[][0], POSITION
DCL IN[][1], GENERIC[3]
DCL OUT[0], TESSOUTER
DCL OUT[1], TESSINNER
DCL OUT[2], PATCH[0]
DCL OUT[][3], GENERIC[9]
MOV OUT[0], IN[0][1].xxxx
MOV OUT[1], IN[0][1].yyyy
MOV OUT[2], IN[0][0]
MOV OUT[0][3], IN[0][1]
END
";

/// Quad domain, integer: POSITION = (u, v, 0, 1) + PATCH[0] and GENERIC[3]
/// = the control point's GENERIC[9].
const QUAD_TES: &str = "TESS_EVAL
PROPERTY TES_PRIM_MODE 7
PROPERTY TES_SPACING 2
DCL IN[0], PATCH[0]
DCL IN[][1], GENERIC[9]
DCL SV[0], TESSCOORD
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[3]
DCL TEMP[0]
IMM[0] FLT32 {0.0, 0.0, 0.0, 1.0}
MOV TEMP[0], SV[0]
MOV TEMP[0].zw, IMM[0]
ADD OUT[0], TEMP[0], IN[0]
MOV OUT[1], IN[0][1]
END
";

#[test]
fn tessellation_stage_runs_each_patch_and_culls() {
    let vs = program(PASS_VS);
    let tcs = program(FACTOR_TCS);
    let tes = program(QUAD_TES);
    // patch 0: factors 2 (3×3 points, 8 triangles); patch 1: outer 0,
    // culled; patch 2: factors 1 (the quad: 4 points, 2 triangles).
    let input = rows(&[
        ([0.0; 4], [2.0, 2.0, 0.0, 0.0]),
        ([1.0, 1.0, 1.0, 1.0], [0.0, 2.0, 0.0, 0.0]),
        ([5.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]),
    ]);
    let stream = stream_of(&vs, &input, Topology::PatchList(1), false);
    let (out, _) = tessellate_stream(
        Stage::new(&tcs),
        Stage::new(&tes),
        &mut Resources::default(),
        &stream,
        &OutputLayout::of(&vs),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(out.outputs.len(), (9 + 4) * 2);
    assert_eq!(out.primitives.len(), 8 + 2);
    assert!(out.primitives.iter().take(8).all(|p| p.id == 0));
    assert!(out.primitives.iter().skip(8).all(|p| p.id == 2));
    // the last patch's points lie at (5 + u, v)
    for p in out.primitives.iter().skip(8) {
        for &v in out.primitive_vertices(&p) {
            assert!(v >= 9, "patch 2 uses its own vertices");
            let x = f32::from_bits(out.vertex(v)[0][0]);
            assert!((5.0..=6.0).contains(&x), "{x}");
            assert_eq!(out.vertex(v)[1], [1.0, 1.0, 0.0, 0.0].map(f));
        }
    }
}

#[test]
fn mismatched_stage_sets_are_errors() {
    let vs = program(PASS_VS);
    let fs = program(COLOR_FS);
    let tcs = program(FACTOR_TCS);
    let tes = program(QUAD_TES);
    let mut target = vec![
        Texture::new(
            TextureTarget::Tex2D,
            Format::Rgba32Float,
            [4, 4, 1],
            1,
            1,
            1,
        )
        .unwrap(),
    ];
    let input = VertexInput::from_rows(&rows(&[([0.0; 4], [1.0; 4])]));
    let mut run = |shaders: Shaders<'_>, topology| {
        let call = DrawCall::vertices(topology, 1);
        draw_with(
            &shaders,
            &mut Resources::default(),
            &input,
            &call,
            &RenderState::default(),
            &mut target,
            None,
            &Limits::default(),
        )
        .unwrap_err()
        .message
    };
    let mut s = Shaders::new(Stage::new(&vs), Stage::new(&fs));
    s.tcs = Some(Stage::new(&tcs));
    assert!(run(s, Topology::PatchList(1)).contains("domain"));
    s.tes = Some(Stage::new(&tes));
    assert!(run(s, Topology::Basic(BasicTopology::PointList)).contains("patch list"));
}

/// Tessellated patches through a geometry shader into the targets: the
/// same bits for any thread count.
#[test]
fn tessellation_and_geometry_give_the_same_bits_for_any_thread_count() {
    let vs = program(PASS_VS);
    let fs = program(COLOR_FS);
    let tcs = program(FACTOR_TCS);
    let tes = program(
        &QUAD_TES
            .replace("PROPERTY TES_SPACING 2", "PROPERTY TES_SPACING 0")
            .replace(
                "ADD OUT[0], TEMP[0], IN[0]",
                "MAD OUT[0], TEMP[0], IMM[1], IN[0]",
            )
            .replace(
                "IMM[0] FLT32 {0.0, 0.0, 0.0, 1.0}",
                "IMM[0] FLT32 {0.0, 0.0, 0.0, 1.0}\nIMM[1] FLT32 {1.5, 1.5, 1.0, 1.0}",
            ),
    );
    let gs = program(AMPLIFY_GS);
    let input = rows(&[
        ([-1.0, -1.0, 0.25, 0.0], [3.3, 5.7, 0.0, 0.0]),
        ([-0.6, -0.9, 0.5, 0.0], [7.1, 2.2, 0.0, 0.0]),
    ]);
    let call = DrawCall::vertices(Topology::PatchList(1), 2);
    let mut shaders = Shaders::new(Stage::new(&vs), Stage::new(&fs));
    shaders.tcs = Some(Stage::new(&tcs));
    shaders.tes = Some(Stage::new(&tes));
    shaders.gs = Some(Stage::new(&gs));
    let run = |threads: usize| {
        let mut colors = vec![
            Texture::new(
                TextureTarget::Tex2D,
                Format::Rgba8Unorm,
                [41, 37, 1],
                1,
                1,
                1,
            )
            .unwrap(),
        ];
        let mut state = RenderState::default();
        state.blend[0] = crate::BlendState {
            enabled: true,
            src: crate::BlendFactor::One,
            dst: crate::BlendFactor::One,
            ..Default::default()
        };
        draw_with(
            &shaders,
            &mut Resources::default(),
            &VertexInput::from_rows(&input),
            &call,
            &state,
            &mut colors,
            None,
            &Limits {
                threads,
                ..Limits::default()
            },
        )
        .unwrap();
        colors.remove(0).levels.remove(0)
    };
    let one = run(1);
    assert!(one.iter().any(|b| *b != 0), "nothing was drawn");
    for threads in [2, 3, 5] {
        assert!(run(threads) == one, "{threads} threads differ");
    }
}
