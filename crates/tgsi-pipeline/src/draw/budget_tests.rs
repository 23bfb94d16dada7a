//! A draw's instruction budget, summed over its stages and threads.

use crate::state::{BasicTopology, RenderState, Topology};
use crate::tests::program;
use crate::{DrawCall, VertexInput, draw};
use tgsi_exec::texture::{Format, Texture};
use tgsi_exec::{ExecError, Limits, Resources, Stats};
use tgsi_ir::enums::TextureTarget;

/// A draw over a 96x64 target whose fragments loop a number of times
/// that grows across it, with a draw budget and a thread count.
fn looping_draw(budget: u64, threads: usize) -> Result<Stats, ExecError> {
    let vs = program(
        "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
         0: MOV OUT[0], IN[0]\n1: MOV OUT[1], IN[1]\n2: END\n",
    );
    let fs = program(
        "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
         IMM[0] FLT32 {0.0, 1.0, 40.0, 0.0}\n\
         0: MOV TEMP[0], IMM[0].xxxx\n1: MUL TEMP[1].x, IN[0].xxxx, IMM[0].zzzz\n\
         2: BGNLOOP\n3: SGE TEMP[1].y, TEMP[0].xxxx, TEMP[1].xxxx\n4: IF TEMP[1].yyyy\n\
         5: BRK\n6: ENDIF\n7: ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\n8: ENDLOOP\n\
         9: MOV OUT[0], TEMP[0]\n10: END\n",
    );
    let f = |v: f32| v.to_bits();
    // two triangles over the whole target, the loop count 0 to 40 from left to right
    let corner = |x: f32, y: f32| vec![[f(x), f(y), f(0.5), f(1.0)], [f((x + 1.0) / 2.0); 4]];
    let rows = [
        (-1.0, -1.0),
        (1.0, -1.0),
        (1.0, 1.0),
        (-1.0, -1.0),
        (1.0, 1.0),
        (-1.0, 1.0),
    ]
    .map(|(x, y)| corner(x, y));
    let input = VertexInput::from_rows(&rows);
    let call = DrawCall::vertices(Topology::Basic(BasicTopology::TriangleList), 6);
    let mut colors = vec![
        Texture::new(
            TextureTarget::Tex2D,
            Format::Rgba32Float,
            [96, 64, 1],
            1,
            1,
            1,
        )
        .unwrap(),
    ];
    let limits = Limits {
        threads,
        max_draw_instructions: budget,
        ..Limits::default()
    };
    let state = RenderState::default();
    let mut res = Resources::default();
    draw(
        &vs,
        &fs,
        &mut res,
        &input,
        &call,
        &state,
        &mut colors,
        None,
        &limits,
    )
}

/// A draw passes on exactly its own count of instructions and fails on
/// one fewer, on one thread and on three (the vertex stage's three
/// counted: without them the fragments alone would pass on one fewer).
#[test]
fn a_draw_runs_out_of_its_budget_exactly() {
    for threads in [1, 3] {
        let n = looping_draw(u64::MAX, threads).unwrap().batch_instructions;
        assert!(n > 3 * 96 * 64 / 16, "the loop ran: {n}");
        let ok = looping_draw(n, threads).unwrap();
        assert_eq!(ok.batch_instructions, n, "{threads} threads");
        let e = looping_draw(n - 1, threads).unwrap_err();
        assert!(
            e.message
                .contains(&format!("budget of {} instructions", n - 1)),
            "{e:?}"
        );
    }
}
