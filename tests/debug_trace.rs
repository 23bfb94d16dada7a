//! `tgsi debug --json` end to end: every stage and both sources, the step
//! rules of the trace contract (docs/debugging.md), register and memory
//! names, 64-bit views, statuses and errors.

mod common;
use common::temp_file;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `tgsi debug ARGS --json` from the repository root: the JSON lines,
/// or the exit status and stderr.
fn debug(args: &[&str]) -> Result<Vec<Value>, (i32, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(root())
        .arg("debug")
        .args(args)
        .arg("--json")
        .output()
        .expect("tgsi runs");
    if !out.status.success() {
        return Err((
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let text = String::from_utf8(out.stdout).expect("utf-8");
    Ok(text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect())
}

fn steps(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["kind"] == "step").collect()
}

fn pcs(lines: &[Value]) -> Vec<u64> {
    steps(lines)
        .iter()
        .map(|s| s["pc"].as_u64().unwrap())
        .collect()
}

/// The writes of a step as (reg or mem, u32) pairs.
fn writes(step: &Value) -> Vec<(String, String)> {
    step["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            let name = w["reg"].as_str().or(w["mem"].as_str()).unwrap().to_string();
            (name, w["u32"].as_str().unwrap_or("").to_string())
        })
        .collect()
}

fn end(lines: &[Value]) -> &Value {
    let e = lines.last().unwrap();
    assert_eq!(e["kind"], "end");
    assert_eq!(e["steps"].as_u64().unwrap() as usize, steps(lines).len());
    e
}

#[test]
fn tgsi_flow_follows_the_chosen_thread_as_a_scalar_program() {
    let lines = debug(&[
        "tests/debug/flow.tgsi",
        "--thread",
        "0,0,0",
        "--buffer-size",
        "0=16",
    ])
    .unwrap();
    let start = &lines[0];
    assert_eq!(start["kind"], "start");
    assert_eq!(start["source"], "tgsi");
    assert_eq!(start["stage"], "COMP");
    assert_eq!(start["invocation"]["thread"], serde_json::json!([0, 0, 0]));
    assert_eq!(start["invocation"]["group"], serde_json::json!([0, 0, 0]));
    // IF taken: ELSE and ENDIF are steps, the else body is not; the loop
    // runs three times (CONT in the second, BRK in the third: ENDLOOP
    // after CONT, none after BRK); CASE 0 falls through CASE 1 to a BRK
    // (ENDSWITCH skipped); the subroutine returns to the STORE.
    let expected = [
        0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 12, 13, 14, 16, 17, 8, 9, 10, 11, 17, 8, 9, 10, 12, 13, 14,
        15, 18, 19, 20, 21, 22, 26, 30, 31, 27, 28,
    ];
    assert_eq!(pcs(&lines), expected);
    let s = steps(&lines);
    assert_eq!(s[0]["line"], 12);
    assert_eq!(s[0]["text"], "USLT TEMP[0].x, SV[0].xxxx, IMM[0].zzzz");
    assert_eq!(s[2]["text"], "MOV TEMP[1].x, IMM[0].yyyy");
    assert_eq!(
        writes(s[2]),
        [("TEMP[1].x".to_string(), "0x00000001".to_string())]
    );
    assert_eq!(s[0]["step"], 0);
    assert_eq!(s[36]["step"], 36);
    assert_eq!(end(&lines)["status"], "ok");
    // the STORE writes the word the thread stored
    let store = s.iter().find(|x| x["pc"] == 27).unwrap();
    assert_eq!(
        writes(store),
        [("BUFFER[0]".to_string(), "0x00000005".to_string())]
    );
    assert_eq!(store["writes"][0]["offset"], 0);
}

#[test]
fn other_lanes_never_change_the_steps() {
    // thread 5 takes the other side of every branch its batch mates take
    let lines = debug(&[
        "tests/debug/flow.tgsi",
        "--thread",
        "5,0,0",
        "--buffer-size",
        "0=16",
    ])
    .unwrap();
    let expected = [
        0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 16, 17, 8, 9, 10, 11, 17, 8, 9, 10, 12, 13, 14,
        15, 18, 23, 24, 25, 26, 30, 31, 27, 28,
    ];
    assert_eq!(pcs(&lines), expected);
    // a condition that is false for the thread: the IF is a step, with no write
    let s = steps(&lines);
    assert_eq!(s[1]["text"], "UIF TEMP[0].xxxx");
    assert!(s[1]["writes"].as_array().unwrap().is_empty());
}

#[test]
fn d3d_compute_is_stepped_in_sm5_terms() {
    let lines = debug(&[
        "tests/debug/cs.asm",
        "--thread",
        "2,0,0",
        "--buffer-size",
        "0=16",
    ])
    .unwrap();
    assert_eq!(lines[0]["source"], "d3d");
    assert_eq!(lines[0]["stage"], "COMP");
    let s = steps(&lines);
    // one step per Direct3D instruction, numbered without declarations
    assert_eq!(s[0]["pc"], 0);
    assert_eq!(s[0]["line"], 9);
    assert_eq!(s[0]["text"], "mov r0.x, vThreadID.x");
    assert_eq!(
        writes(s[0]),
        [("r0.x".to_string(), "0x00000002".to_string())]
    );
    // an indexable temp through a relative index, named by its element
    assert_eq!(
        writes(s[1]),
        [("x1[2].x".to_string(), "0x00000007".to_string())]
    );
    // shared memory as g0, at the byte offset in g0
    assert_eq!(writes(s[3]), [("g0".to_string(), "0x00000002".to_string())]);
    assert_eq!(s[3]["writes"][0]["offset"], 8);
    // the loop runs twice for thread 2, then breakc_nz leaves it
    let loop_pcs: Vec<u64> = pcs(&lines)[6..17].to_vec();
    assert_eq!(loop_pcs, [6, 7, 8, 9, 10, 7, 8, 9, 10, 7, 8]);
    // a 64-bit result: u64 and f64 on the first channel of the pair
    let dadd = s
        .iter()
        .find(|x| x["text"].as_str().unwrap().starts_with("dadd"))
        .unwrap();
    let first = &dadd["writes"][0];
    assert_eq!(first["reg"], "r1.z");
    assert_eq!(first["u64"], "0x0000000000000000");
    assert_eq!(first["f64"], 0.0);
    assert!(dadd["writes"][1].get("u64").is_none());
    // the UAV as u0; no TGSI name anywhere
    let store = s
        .iter()
        .find(|x| x["text"].as_str().unwrap().starts_with("store_raw u0"))
        .unwrap();
    assert_eq!(
        writes(store),
        [("u0".to_string(), "0x00000007".to_string())]
    );
    for l in &lines {
        let text = l.to_string();
        assert!(
            !text.contains("TEMP[") && !text.contains("BUFFER["),
            "{text}"
        );
    }
    assert_eq!(s.last().unwrap()["text"], "ret");
}

#[test]
fn vertex_runs_name_indirect_destinations_and_pairs() {
    let lines = debug(&[
        "tests/debug/vs.tgsi",
        "--vertex",
        "0",
        "--input",
        "0=float:1,2,0,0",
    ])
    .unwrap();
    assert_eq!(lines[0]["stage"], "VERT");
    assert_eq!(
        lines[0]["invocation"],
        serde_json::json!({"vertex": 0, "instance": 0})
    );
    let s = steps(&lines);
    assert_eq!(
        writes(s[1]),
        [("ADDR[0].x".to_string(), "0x00000001".to_string())]
    );
    // TEMP[ADDR[0].x+1] with ADDR[0].x = 1 is TEMP[2]
    assert_eq!(
        writes(s[2]),
        [("TEMP[2].x".to_string(), "0x3f800000".to_string())]
    );
    assert_eq!(s[3]["writes"][0]["u64"], "0x0000000000000000");
    let out: Vec<_> = writes(s[4]).into_iter().map(|w| w.0).collect();
    assert_eq!(out, ["OUT[0].x", "OUT[0].y", "OUT[0].z", "OUT[0].w"]);
    assert_eq!(s[4]["writes"][1]["f32"], 4.0);
}

#[test]
fn a_discarded_pixel_ends_killed() {
    let lines = debug(&["tests/debug/ps.asm", "--pixel", "0,0", "--size", "4x4"]).unwrap();
    assert_eq!(lines[0]["stage"], "FRAG");
    assert_eq!(
        lines[0]["invocation"],
        serde_json::json!({"pixel": [0, 0], "sample": 0, "primitive": 0})
    );
    assert_eq!(pcs(&lines), [0, 1, 2]);
    assert_eq!(end(&lines)["status"], "killed");
    let kept = debug(&["tests/debug/ps.asm", "--pixel", "3,1", "--size", "4x4"]).unwrap();
    assert_eq!(pcs(&kept), [0, 1, 2, 3, 4, 5]);
    assert_eq!(end(&kept)["status"], "ok");
    let o: Vec<_> = writes(steps(&kept)[3]).into_iter().map(|w| w.0).collect();
    assert_eq!(o, ["o0.x", "o0.y"]);
}

#[test]
fn budget_and_selector_errors() {
    let lines = debug(&[
        "tests/debug/spin.tgsi",
        "--thread",
        "0,0,0",
        "--budget",
        "500",
    ])
    .unwrap();
    assert_eq!(end(&lines)["status"], "budget");
    assert_eq!(steps(&lines).len(), 500);
    let (code, err) = debug(&["tests/debug/spin.tgsi", "--thread", "1,0,0"]).unwrap_err();
    assert_ne!(code, 0);
    assert!(err.contains("no thread (1, 0, 0)"), "{err}");
    let (_, err) = debug(&[
        "tests/debug/flow.tgsi",
        "--thread",
        "0,0,0",
        "--group",
        "1,0,0",
    ])
    .unwrap_err();
    assert!(err.contains("work group (1, 0, 0)"), "{err}");
    let (_, err) = debug(&["tests/debug/ps.asm", "--pixel", "9,9", "--size", "4x4"]).unwrap_err();
    assert!(
        err.contains("--pixel `9,9`: outside the 4x4 target"),
        "{err}"
    );
    // a pixel every fragment of which failed the depth test is not said
    // to be uncovered
    let (_, err) = debug(&[
        "tests/shader/draw/depth.shader_test",
        "--test",
        "1",
        "--pixel",
        "0,0",
    ])
    .unwrap_err();
    assert!(
        err.contains("no fragment was shaded at pixel (0, 0) sample 0")
            && err.contains("failed an early depth or stencil test"),
        "{err}"
    );
    // --primitive follows a draw's stage, not a compute thread; --vertex
    // is a number or a vertex shader file
    let (_, err) = debug(&["tests/debug/flow.tgsi", "--primitive", "0"]).unwrap_err();
    assert!(
        err.contains(
            "this is a COMP shader; the selector follows a geometry or tess-control invocation"
        ),
        "{err}"
    );
    let (_, err) =
        debug(&["tests/debug/flow.tgsi", "--thread", "0,0,0", "--test", "1"]).unwrap_err();
    assert!(
        err.contains(
            "--test 1: picks a command of a .shader_test file; tests/debug/flow.tgsi is a shader"
        ),
        "{err}"
    );
    let (_, err) = debug(&["tests/debug/ps.asm", "--vertex", "abc"]).unwrap_err();
    assert!(
        err.contains("--vertex `abc`: neither a vertex number nor a vertex shader file"),
        "{err}"
    );
    let (_, err) = debug(&["tests/debug/ps.asm", "--pixel", "0,0", "--sample", "1"]).unwrap_err();
    assert!(
        err.contains("--sample 1: the target has 1 sample(s)"),
        "{err}"
    );
    let (_, err) = debug(&["tests/debug/ps.asm"]).unwrap_err();
    assert!(
        err.contains("--thread X,Y,Z, --vertex N, --pixel X,Y or --primitive P"),
        "{err}"
    );
}

#[test]
fn shader_test_commands_and_images() {
    // test 1 of frag_kill: pixel (3, 0) survives its KILL_IF and stores a texel
    let lines = debug(&[
        "tests/shader/frag_kill.shader_test",
        "--test",
        "1",
        "--pixel",
        "3,0",
    ])
    .unwrap();
    assert_eq!(lines[0]["file"], "tests/shader/frag_kill.shader_test");
    let s = steps(&lines);
    assert_eq!(s[0]["line"], 20, "lines count in the .shader_test file");
    let store = s
        .iter()
        .find(|x| x["text"].as_str().unwrap().starts_with("STORE"))
        .unwrap();
    let w = &store["writes"][0];
    assert_eq!(w["mem"], "IMAGE[0]");
    assert_eq!(w["coord"], serde_json::json!([3, 0, 0, 0]));
    assert_eq!(
        w["u32s"],
        serde_json::json!(["0x00000001", "0x00000002", "0x00000003", "0x00000004"])
    );
    let killed = debug(&[
        "tests/shader/frag_kill.shader_test",
        "--test",
        "1",
        "--pixel",
        "0,0",
    ])
    .unwrap();
    assert_eq!(end(&killed)["status"], "killed");
    let (_, err) = debug(&[
        "tests/shader/frag_kill.shader_test",
        "--test",
        "99",
        "--pixel",
        "0,0",
    ])
    .unwrap_err();
    assert!(err.contains("dispatch or draw command"), "{err}");
    let (_, err) = debug(&[
        "tests/shader/frag_kill.shader_test",
        "--test",
        "0",
        "--pixel",
        "0,0",
    ])
    .unwrap_err();
    assert!(
        err.contains("--test 0: commands are counted from 1"),
        "{err}"
    );
}

#[test]
fn every_stage_of_a_tessellated_draw() {
    let base = [
        "examples/scene/torus_fs.tgsi",
        "--vertex",
        "examples/facets/sphere_vs.tgsi",
        "--tess-ctrl",
        "examples/facets/sphere_tcs.tgsi",
        "--tess-eval",
        "examples/facets/sphere_tes.tgsi",
        "--geometry",
        "examples/facets/shrink_gs.tgsi",
        "--mesh",
        "examples/meshes/octahedron.obj",
        "--size",
        "64x48",
        "--depth",
        "d32f",
        "--const",
        "0=float:0.81721,0.149774,-0.556539,0,-0.331861,0.91178,-0.241922,0,0.471207,0.382394,0.79482,0,0,0,0,1",
        "--const",
        "1=float:1,0,0,0,0,0.873689,-0.486486,0.043684,0,0.486486,0.873689,-5.011795,0,0,0,1",
        "--const",
        "2=float:2.178158,0,0,0,0,2.904211,0,0,0,0,-1.111111,-1.111111,0,0,-1,0",
    ];
    let with = |more: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(more);
        debug(&a)
    };
    let cases: [(&[&str], &str); 5] = [
        (&["--vertex", "2"], "VERT"),
        (&["--primitive", "1", "--stage", "tess-ctrl"], "TESS_CTRL"),
        (&["--primitive", "1", "--domain", "0,0,1"], "TESS_EVAL"),
        (&["--primitive", "1"], "GEOM"),
        (&["--pixel", "32,24"], "FRAG"),
    ];
    for (sel, stage) in cases {
        let lines = with(sel).unwrap_or_else(|e| panic!("{sel:?}: {e:?}"));
        assert_eq!(lines[0]["stage"], stage, "{sel:?}");
        assert!(steps(&lines).len() >= 2, "{sel:?}");
        assert_eq!(end(&lines)["status"], "ok", "{sel:?}");
    }
    // the tess-control shader writes its control point's outputs as OUT[v][a]
    let tcs = with(&["--primitive", "1", "--stage", "tess-ctrl"]).unwrap();
    let names: Vec<String> = steps(&tcs)
        .iter()
        .flat_map(|s| writes(s))
        .map(|w| w.0)
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("OUT[0][2].")),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n.starts_with("OUT[0].")), "{names:?}");
    // a triangle's domain point: w is 1 - u - v; echoed when left out, and
    // a w that is not the point's names nothing
    let point = with(&["--primitive", "1", "--domain", "0.25,0.25"]).unwrap();
    assert_eq!(
        point[0]["invocation"]["domain"],
        serde_json::json!([0.25, 0.25, 0.5])
    );
    let same = with(&["--primitive", "1", "--domain", "0.25,0.25,0.5"]).unwrap();
    assert_eq!(steps(&same), steps(&point));
    let (code, err) = with(&["--primitive", "1", "--domain", "0.25,0.25,0.6"]).unwrap_err();
    assert_eq!(code, 2);
    assert!(
        err.contains("patch 1 has no domain point (0.25, 0.25, 0.6)"),
        "{err}"
    );
}

#[test]
fn binary_input_counts_lines_of_the_disassembly() {
    let dir = std::env::temp_dir().join(format!("tgsi-debug-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // TGSI tokens
    let tokens = dir.join("flow.bin");
    let asm = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(root())
        .args(["asm", "tests/debug/flow.tgsi", "-o"])
        .arg(&tokens)
        .status()
        .unwrap();
    assert!(asm.success());
    let tok = tokens.to_str().unwrap();
    let lines = debug(&[tok, "--thread", "0,0,0", "--buffer-size", "0=16"]).unwrap();
    let dis = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .args(["dis", tok])
        .output()
        .unwrap();
    let listing = String::from_utf8(dis.stdout).unwrap();
    let listing: Vec<&str> = listing.lines().collect();
    for s in steps(&lines) {
        let line = listing[s["line"].as_u64().unwrap() as usize - 1];
        let (number, text) = line.trim_start().split_once(':').unwrap();
        assert_eq!(number, s["pc"].to_string(), "{line}");
        assert_eq!(text.trim(), s["text"].as_str().unwrap(), "{line}");
    }
    // DXBC: the line of `tgsi dis`'s listing
    let dxbc = dir.join("cs.dxbc");
    let asm = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(root())
        .args(["asm", "tests/debug/cs.asm", "-o"])
        .arg(&dxbc)
        .status()
        .unwrap();
    assert!(asm.success());
    let blob = dxbc.to_str().unwrap();
    let lines = debug(&[blob, "--thread", "1,0,0", "--buffer-size", "0=16"]).unwrap();
    let dis = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .args(["dis", blob])
        .output()
        .unwrap();
    let listing = String::from_utf8(dis.stdout).unwrap();
    let listing: Vec<&str> = listing.lines().collect();
    for s in steps(&lines) {
        let line = listing[s["line"].as_u64().unwrap() as usize - 1];
        assert_eq!(line.trim(), s["text"].as_str().unwrap());
    }
    assert_eq!(steps(&lines)[0]["text"], "mov r0.x, vThreadID.x");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn d3d_draw_stages_in_shader_tests() {
    let file = "tests/shader/draw/stages_d3d.shader_test";
    let hull = debug(&[
        file,
        "--test",
        "1",
        "--primitive",
        "0",
        "--stage",
        "tess-ctrl",
    ])
    .unwrap();
    assert_eq!(hull[0]["stage"], "TESS_CTRL");
    assert_eq!(hull[0]["source"], "d3d");
    let mov = steps(&hull)
        .into_iter()
        .find(|s| s["text"] == "mov o0.x, cb0[0].x")
        .unwrap();
    assert_eq!(
        writes(mov),
        [("o0.x".to_string(), "0x40400000".to_string())]
    );
    let domain = debug(&[file, "--test", "1", "--primitive", "0", "--domain", "1,0"]).unwrap();
    assert_eq!(domain[0]["stage"], "TESS_EVAL");
    assert_eq!(
        domain[0]["invocation"]["domain"],
        serde_json::json!([1.0, 0.0, 0.0])
    );
    let s = steps(&domain);
    assert_eq!(s[0]["line"], 76);
    // this point is the 7th to count itself, in point order
    assert_eq!(writes(s[0]), [("u1".to_string(), "0x00000007".to_string())]);
    assert_eq!(
        writes(s[2])[0],
        ("r0.x".to_string(), "0x00010000".to_string())
    );
    let (_, err) = debug(&[
        file,
        "--test",
        "1",
        "--primitive",
        "0",
        "--domain",
        "0.25,0.5",
    ])
    .unwrap_err();
    assert!(err.contains("no domain point (0.25, 0.5"), "{err}");
    let gs = "tests/shader/draw/geometry_d3d.shader_test";
    let geometry = debug(&[gs, "--test", "1", "--primitive", "0"]).unwrap();
    assert_eq!(geometry[0]["stage"], "GEOM");
    let s = steps(&geometry);
    assert_eq!(s[0]["text"], "mov o0.xyzw, v[0][0].xyzw");
    assert_eq!(s[2]["text"], "emit_stream m0");
    let pixel = debug(&[gs, "--test", "1", "--pixel", "1,1"]).unwrap();
    assert_eq!(pixel[0]["stage"], "FRAG");
    assert_eq!(steps(&pixel)[0]["line"], 60);
}

/// The merged samples of a pixel history.
fn merged_samples(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["kind"] == "sample").collect()
}

/// Whether each merged sample passed its depth/stencil test.
fn depth_results(samples: &[&Value]) -> Vec<bool> {
    samples
        .iter()
        .map(|s| s["depth_test"]["passed"].as_bool().unwrap())
        .collect()
}

#[test]
fn pixel_history_lists_every_fragment_in_draw_order() {
    // draws 1-3 of depth.shader_test at pixel 1 (depth 0.4375, cleared to
    // 0.4375): `never` and `less` fail, `equal` passes and writes
    let lines = debug(&[
        "tests/shader/draw/depth.shader_test",
        "--test",
        "3",
        "--pixel",
        "1,0",
        "--history",
    ])
    .unwrap();
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "fragment", "sample", "fragment", "sample", "fragment", "sample"
        ]
    );
    let samples = merged_samples(&lines);
    assert_eq!(depth_results(&samples), [false, false, true]);
    let draws: Vec<u64> = samples
        .iter()
        .map(|s| s["draw"].as_u64().unwrap())
        .collect();
    assert_eq!(draws, [1, 2, 3]);
    assert_eq!(samples[2]["depth_test"]["depth"], 0.4375);
    assert!(samples[0]["targets"].as_array().unwrap().is_empty());
    assert_eq!(samples[2]["targets"][0]["after"][0], "0x3f800000");
    assert_eq!(lines[4]["status"], "ok");
    // a fragment the shader discards is listed, with no sample merged
    let killed = debug(&[
        "tests/shader/frag_kill.shader_test",
        "--test",
        "1",
        "--pixel",
        "0,0",
        "--history",
    ])
    .unwrap();
    assert_eq!(killed.len(), 1);
    assert_eq!(killed[0]["status"], "killed");
    // draw quads under render state merge as draws do: blended over the
    // clear, then written, then failing the depth test against 0.5
    let quads = debug(&[
        "tests/shader/draw/quad_state.shader_test",
        "--test",
        "3",
        "--pixel",
        "1,1",
        "--history",
    ])
    .unwrap();
    let samples = merged_samples(&quads);
    assert_eq!(depth_results(&samples), [true, true, false]);
    assert_eq!(samples[0]["targets"][0]["after"][0], "0x3f400000");
    assert!(samples[2]["targets"].as_array().unwrap().is_empty());
}

#[test]
fn commands_from_standard_input() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(root())
        .args([
            "debug",
            "tests/debug/ps.asm",
            "--pixel",
            "3,1",
            "--size",
            "4x4",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"quad\n:break 8\ncontinue\nprint r0\nend\noutputs\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // the 2x2 quad of pixel (3, 1): the followed lane and its covered neighbours
    assert!(
        text.contains("(2, 0) covered\n(3, 0) covered\n(2, 1) covered\n(3, 1) followed"),
        "{text}"
    );
    // (`:break`, as on the terminal's command line, is `break`)
    assert!(text.contains("breakpoint at line 8"), "{text}");
    // stopped before `mov o0.xy` (line 8), after the three steps before it
    assert!(
        text.contains("step 2  line 7  pc 2: discard_nz r0.y"),
        "{text}"
    );
    // u = (3 + 0.5) / 4 = 0.875: r0.x = 0.375
    assert!(text.contains("r0.x = 0x3ec00000 0.375"), "{text}");
    assert!(text.contains("end: ok"), "{text}");
    assert!(text.contains("o0.w = 0x3f800000 1.0"), "{text}");
}

const ONE_THREAD: &str = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL TEMP[0]\nIMM[0] FLT32 {1, 2, 3, 4}\n  0: MOV TEMP[0], IMM[0]\n  1: END\n";

/// `--test N` counts every dispatch and draw command of the file, those of
/// a skipped test too, and says when the N-th did not run.
#[test]
fn test_numbers_count_the_commands_of_skipped_tests() {
    let text = format!(
        "[compute shader]\n{ONE_THREAD}\n[require]\nfrobnicate\n[test]\ndispatch 1 1 1\n\
         [require]\n[test]\ndispatch 1 1 1\n"
    );
    let file = temp_file("skipped.shader_test", &text);
    let (_, err) = debug(&[&file, "--test", "1", "--thread", "0,0,0"]).unwrap_err();
    assert!(
        err.contains(":14: --test 1: the command did not run: its test is skipped"),
        "{err}"
    );
    let second = debug(&[&file, "--test", "2", "--thread", "0,0,0"]).unwrap();
    assert_eq!(end(&second)["status"], "ok");
    let (_, err) = debug(&[&file, "--test", "3", "--thread", "0,0,0"]).unwrap_err();
    assert!(
        err.contains("the file has 2 dispatch or draw command(s)"),
        "{err}"
    );
}

/// A one-component Direct3D output is named without a component.
#[test]
fn a_depth_output_is_named_o_depth() {
    let text = "[pixel shader d3d-asm]\nps_5_0\ndcl_output o0.xyzw\ndcl_output oDepth\n\
                mov o0.xyzw, l(1.0, 1.0, 1.0, 1.0)\nmov oDepth, l(0.25)\nret\n\
                [test]\ndraw quad 2 2\n";
    let file = temp_file("odepth.shader_test", text);
    let lines = debug(&[&file, "--test", "1", "--pixel", "0,0"]).unwrap();
    let names: Vec<String> = steps(&lines)
        .iter()
        .flat_map(|s| writes(s))
        .map(|w| w.0)
        .collect();
    assert!(names.contains(&"oDepth".to_string()), "{names:?}");
    assert!(names.contains(&"o0.w".to_string()), "{names:?}");
}

#[test]
fn a_pixel_follows_the_last_primitive_that_covered_it() {
    // three triangles over the same pixels, no depth test: the third one's
    // fragment, wherever the first two shared a batch with it or not
    for pixel in ["0,0", "1,0", "2,0", "1,1", "0,2"] {
        let lines = debug(&[
            "tests/debug/overlap.shader_test",
            "--test",
            "1",
            "--pixel",
            pixel,
        ])
        .unwrap();
        assert_eq!(lines[0]["invocation"]["primitive"], 2, "pixel {pixel}");
        assert_eq!(writes(steps(&lines)[0])[0].1, "0x40400000", "pixel {pixel}");
    }
}

#[test]
fn image_writes_name_the_texel_as_x_y_z_layer() {
    // one address, (1, 2, 3, 9), read by a 1D array, a 2D array, a 3D and
    // a 2D image
    let lines = debug(&[
        "tests/debug/image_coords.shader_test",
        "--test",
        "1",
        "--thread",
        "0,0,0",
    ])
    .unwrap();
    let coords: Vec<&Value> = steps(&lines)
        .iter()
        .filter_map(|s| s["writes"].as_array().and_then(|w| w.first()))
        .map(|w| &w["coord"])
        .collect();
    assert_eq!(
        coords,
        [
            &serde_json::json!([1, 0, 0, 2]),
            &serde_json::json!([1, 2, 0, 3]),
            &serde_json::json!([1, 2, 3, 0]),
            &serde_json::json!([1, 2, 0, 0]),
        ]
    );
}

#[test]
fn a_store_at_an_address_not_a_multiple_of_four_lists_both_words() {
    // 0x0a0b0c0d stored at byte 5 over 9 at byte 4: its bytes reach the
    // words at 4 and 8
    let lines = debug(&[
        "tests/debug/unaligned_store.tgsi",
        "--thread",
        "0,0,0",
        "--buffer-size",
        "0=16",
    ])
    .unwrap();
    let s = steps(&lines);
    assert_eq!(
        writes(s[0]),
        [("BUFFER[0]".to_string(), "0x00000009".to_string())]
    );
    assert_eq!(
        writes(s[1]),
        [
            ("BUFFER[0]".to_string(), "0x0b0c0d09".to_string()),
            ("BUFFER[0]".to_string(), "0x0000000a".to_string())
        ]
    );
    let offsets: Vec<u64> = s[1]["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["offset"].as_u64().unwrap())
        .collect();
    assert_eq!(offsets, [4, 8]);
}

#[test]
fn direct3d_double_moves_give_their_64_bit_values() {
    // dmov and dmovc lower to 32-bit moves; their writes still pair
    let lines = debug(&["tests/debug/doubles.asm", "--thread", "0,0,0"]).unwrap();
    let doubles = |step: &Value| -> Vec<(String, f64)> {
        step["writes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w.get("u64").is_some())
            .map(|w| {
                (
                    w["reg"].as_str().unwrap().to_string(),
                    w["f64"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let s = steps(&lines);
    let pair = |a: &str, x: f64, b: &str, y: f64| vec![(a.to_string(), x), (b.to_string(), y)];
    assert_eq!(doubles(s[0]), pair("r1.x", 1.0, "r1.z", -2.0), "dmov");
    assert_eq!(doubles(s[1]), pair("r0.x", 1.5, "r0.z", 4.0), "dmovc");
    assert_eq!(doubles(s[2]), vec![("r1.z".to_string(), 2.0)], "dadd");
    assert!(
        s[0]["writes"][1].get("u64").is_none(),
        "only on the first of a pair"
    );
}

#[test]
fn a_direct3d_error_names_the_instruction_and_slot_as_written() {
    // nothing bound to u0, then nothing to u1: each error names the
    // Direct3D instruction (its pc among the instructions, its text) and
    // the slot, never the TGSI they were lowered to
    let lines = debug(&["tests/debug/unbound_uav.asm", "--thread", "1,0,0"]).unwrap();
    assert_eq!(end(&lines)["status"], "error");
    assert_eq!(
        end(&lines)["message"],
        "instruction 1 (`store_raw u0.x, r0.x, vThreadID.x`): u0 is not bound"
    );
    let lines = debug(&[
        "tests/debug/unbound_uav.asm",
        "--thread",
        "1,0,0",
        "--buffer-size",
        "0=8",
    ])
    .unwrap();
    let message = end(&lines)["message"].as_str().unwrap().to_string();
    assert!(
        message.starts_with("instruction 2 (`store_uav_typed u1.xyzw,")
            && message.ends_with("u1 is not bound"),
        "{message}"
    );
}

/// A Direct3D instruction is one step, however many TGSI instructions it
/// lowers to: a conditional call is not stepped again when its subroutine
/// returns into its lowering, and a hull shader's phases are one step per
/// instance, with none for the scheduling the lowering adds around them
/// (an invocation that runs no fork phase shows none).
#[test]
fn calls_and_hull_phases_are_one_step_each() {
    let called = debug(&["tests/debug/calls.asm", "--thread", "1,0,0"]).unwrap();
    let texts: Vec<&str> = steps(&called)
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "mov r0.x, l(1)",
            "call l0",
            "iadd r0.x, r0.x, l(1)",
            "ret",
            "callc_nz vThreadID.x, l1",
            "mov r1.x, l(9)",
            "retc_nz r1.x",
            "mov r1.y, l(5)",
            "ret",
        ]
    );
    let hull = |invocation: &str| {
        let lines = debug(&[
            "tests/debug/fork_phases.shader_test",
            "--test",
            "1",
            "--primitive",
            "0",
            "--stage",
            "tess-ctrl",
            "--invocation",
            invocation,
        ])
        .unwrap();
        let texts: Vec<String> = steps(&lines)
            .iter()
            .map(|s| s["text"].as_str().unwrap().to_string())
            .collect();
        texts
    };
    let first = hull("0");
    let phases: Vec<&str> = first
        .iter()
        .map(String::as_str)
        .filter(|t| t.starts_with("hs_"))
        .collect();
    assert_eq!(
        phases,
        [
            "hs_control_point_phase",
            "hs_fork_phase",
            "hs_fork_phase",
            "hs_fork_phase",
            "hs_fork_phase"
        ]
    );
    assert_eq!(first.len(), 19, "{first:?}");
    assert_eq!(first.last().map(String::as_str), Some("ret"));
    let second = hull("1");
    assert_eq!(
        second,
        [
            "hs_control_point_phase",
            "mov r0.x, vOutputControlPointID",
            "mov o0.xyzw, v[r0.x + 0][0].xyzw",
            "ret"
        ]
    );
}
