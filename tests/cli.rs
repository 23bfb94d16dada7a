//! The `tgsi` command end to end: `render` and `test` on bad input (a clear
//! message naming the file or option, exit status 2, never a panic), and
//! `run` with given system values and several threads.

mod common;
use common::run_tgsi as tgsi_out;
use common::temp_file;

/// Runs `tgsi ARGS` → (exit status, stderr).
fn tgsi(args: &[&str]) -> (i32, String) {
    let (code, _, err) = tgsi_out(args);
    (code, err)
}

#[test]
fn render_rejects_bad_input_clearly() {
    let out = std::env::temp_dir().join(format!("tgsi-render-cli-{}.png", std::process::id()));
    let out = out.to_str().unwrap();
    let swirl = "examples/swirl.tgsi";
    let cases: [(&[&str], &str); 6] = [
        (
            &["--texture", "0=missing.png"],
            "--texture 0: missing.png: cannot read",
        ),
        (
            &["--texture", "0=README.md"],
            "README.md: not a readable PNG file",
        ),
        (
            &["--sampler", "0=linear,sideways"],
            "unknown item `sideways`",
        ),
        (
            &["--size", "0x5"],
            "--size `0x5`: the width must be 1 to 16384",
        ),
        (
            &["--const", "0=float:x"],
            "--const `0=float:x`: `x` is not a float",
        ),
        (
            &["--texture", "9999=examples/textures/checker.png"],
            "index 9999 is too large",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["render", swirl, "-o", out];
        args.extend_from_slice(extra);
        let (code, err) = tgsi(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: expected `{want}` in:\n{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, err) = tgsi(&["render", "examples/collatz.tgsi", "-o", out]);
    assert_eq!(code, 2);
    assert!(
        err.contains("runs fragment (pixel) shaders; this is a COMP shader"),
        "{err}"
    );
    assert!(!std::path::Path::new(out).exists());
}

#[test]
fn render_takes_textures_from_a_data_file() {
    let dir = std::env::temp_dir().join(format!("tgsi-render-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data.txt");
    // 2x2 float texture, default sampler (nearest): pixel (x, y) of a 2x2
    // target samples texel (x, y); 0.5 -> 127.5 -> 128 and 2.0 clamps to 255.
    std::fs::write(
        &data,
        "[texture 0]\ntarget 2d\nformat rgba32f\nsize (2, 2)\n\
         1 0 0 1  0 1 0 1\n0 0 1 1  0.5 2 0 0\n",
    )
    .unwrap();
    let shader = dir.join("tex.tgsi");
    std::fs::write(
        &shader,
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
         DCL SVIEW[0], 2D, FLOAT\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n",
    )
    .unwrap();
    let out = dir.join("out.png");
    let (code, err) = tgsi(&[
        "render",
        shader.to_str().unwrap(),
        "--data",
        data.to_str().unwrap(),
        "--size",
        "2x2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let img = tgsi::image_io::load_png(&out).unwrap();
    assert_eq!(
        img.pixels,
        vec![
            255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 128, 255, 0, 0
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn temp_shader(name: &str, text: &str) -> String {
    temp_file(name, text)
}

#[test]
fn given_system_values_replace_the_computed_ones() {
    let vs = temp_shader(
        "sv.tgsi",
        "VERT\nDCL SV[0], INSTANCEID\nDCL SV[1], VERTEXID\nDCL OUT[0], GENERIC[0]\n\
         0: MOV OUT[0].x, SV[0].xxxx\n1: MOV OUT[0].y, SV[1].xxxx\n2: END\n",
    );
    // INSTANCEID given as 7 for every vertex; VERTEXID still counts 0, 1.
    let (code, out, err) = tgsi_out(&[
        "run",
        &vs,
        "--vertices",
        "2",
        "--sv",
        "INSTANCEID=uint:7",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let text = v.to_string();
    assert!(text.contains('7'), "{text}");
    let (code, _, err) = tgsi_out(&["run", &vs, "--sv", "NOPE=uint:1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`NOPE` is not a TGSI semantic name"), "{err}");
    let (code, _, err) = tgsi_out(&["run", &vs, "--sv", "INSTANCEID=uint:1,2,3,4,5"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 4"), "{err}");
}

#[test]
fn block_id_given_and_threads_agree() {
    // out[tid] = BLOCK_ID.x * 100 + THREAD_ID.x over 4 groups of 4.
    let cs = temp_shader(
        "cs.tgsi",
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
         PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n\
         DCL BUFFER[0]\nDCL TEMP[0..1]\nIMM[0] UINT32 {100, 4, 4, 0}\n\
         0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].xxxx, SV[0].xxxx\n\
         1: UMAD TEMP[1].x, SV[1].xxxx, IMM[0].zzzz, SV[0].xxxx\n\
         2: UMUL TEMP[1].x, TEMP[1].xxxx, IMM[0].yyyy\n\
         3: STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[0].xxxx\n4: END\n",
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &cs, "--groups", "4,1,1", "--buffer-size", "0=64"];
        args.extend_from_slice(extra);
        let (code, out, err) = tgsi_out(&args);
        assert_eq!(code, 0, "{err}");
        out
    };
    let one = run(&["--threads", "1"]);
    assert_eq!(one, run(&["--threads", "2"]));
    // Group g, thread t stores g*100 + t at word 4g + t: group 2, thread 3 puts
    // 203 = 0xcb into word 11.
    assert!(one.contains("0x000000cb"), "{one}");
    // Every group claims BLOCK_ID 0 now: all write 0..3 into words 0..3, so no
    // word holds 100 + t or more.
    let given = run(&["--sv", "BLOCK_ID=uint:0,0,0"]);
    assert!(given.contains("0x00000003"), "{given}");
    assert!(!given.contains("0x00000064"), "{given}");
    assert!(!given.contains("0x000000cb"), "{given}");
}

const D3D_BLOB: &str = "tests/fixtures/d3d/dxdecompiler/Internal/DynamicIndexing.o";
const D3D_LISTING: &str = "tests/fixtures/d3d/dxdecompiler/Internal/DynamicIndexing.asm";

#[test]
fn direct3d_blobs_list_check_and_summarise() {
    let want =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(D3D_LISTING))
            .unwrap();
    let (code, listing, err) = tgsi_out(&["dis", D3D_BLOB]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(listing, want, "tgsi dis prints fxc's listing");

    assert_eq!(tgsi(&["check", D3D_BLOB, D3D_LISTING]), (0, String::new()));

    let (code, json, _) = tgsi_out(&["info", "--json", D3D_BLOB]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).expect("info --json is JSON");
    assert_eq!(v["checksum"]["status"], "valid");
    let tags: Vec<&str> = v["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tag"].as_str().unwrap())
        .collect();
    assert_eq!(tags, ["RDEF", "ISGN", "OSGN", "SHEX", "STAT"]);
}

#[test]
fn direct3d_assembly_assembles_formats_and_reports_errors() {
    let dir = std::env::temp_dir().join(format!("tgsi-d3d-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("x.dxbc");
    let out = out.to_str().unwrap();
    assert_eq!(tgsi(&["asm", D3D_LISTING, "-o", out]), (0, String::new()));
    // The container it wrote is valid, and lists the same program.
    assert_eq!(tgsi(&["check", out]), (0, String::new()));
    let (_, listing, _) = tgsi_out(&["dis", out]);
    assert!(listing.contains(
        "ld_structured_indexable(structured_buffer, stride=160)(mixed,mixed,mixed,mixed) r0.xyzw, cb1[0].x, l(80), t1.xyzw\n"
    ));
    // fxc's own listing is already canonical.
    assert_eq!(tgsi(&["fmt", "--check", D3D_LISTING]), (0, String::new()));

    // What the dmovc page calls invalid is refused with the place named.
    let bad = dir.join("bad.asm");
    std::fs::write(
        &bad,
        "ps_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
         dcl_temps 1\ndmovc r0.xyz, r0.xxxx, r0.xyzw, r0.xyzw\nret\n",
    )
    .unwrap();
    let (code, err) = tgsi(&["asm", bad.to_str().unwrap(), "-o", out]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.asm:4:"), "{err}");
    assert!(err.contains("dmovc"), "{err}");

    // A damaged blob: the byte offset of the damage, exit 1.
    let mut blob =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(D3D_BLOB)).unwrap();
    blob.truncate(300);
    let damaged = dir.join("damaged.dxbc");
    std::fs::write(&damaged, &blob).unwrap();
    let (code, err) = tgsi(&["dis", damaged.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("byte offset 24 (0x18)"), "{err}");
    // --from forces the format: the listing read as TGSI text is an error.
    let (code, _) = tgsi(&["check", "--from", "tgsi", D3D_LISTING]);
    assert_eq!(code, 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_takes_direct3d_assembly_and_containers() {
    // --const 0 is cb0, --buffer 0 is the raw UAV u0; the outputs print as u#.
    let cs = temp_shader(
        "d3d-cs.asm",
        "cs_5_0\ndcl_constantbuffer cb0[1], immediateIndexed\ndcl_uav_raw u0\n\
         dcl_input vThreadID.x\ndcl_temps 1\ndcl_thread_group 2, 1, 1\n\
         ishl r0.x, vThreadID.x, l(2)\nld_raw r0.y, r0.x, u0.xxxx\n\
         imad r0.y, r0.y, cb0[0].x, cb0[0].y\nstore_raw u0.x, r0.x, r0.y\nret\n",
    );
    let args = |shader: &str| {
        tgsi_out(&[
            "run",
            shader,
            "--const",
            "0=uint:3,1",
            "--buffer",
            "0=uint:5,6",
            "--json",
        ])
    };
    let (code, out, err) = args(&cs);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // 5 * 3 + 1 = 16, 6 * 3 + 1 = 19
    assert_eq!(
        v["buffers"][0]["words"],
        serde_json::json!([16, 19]),
        "{out}"
    );
    assert_eq!(v["buffers"][0]["name"], "u0", "{out}");
    // The same program as a DXBC container.
    let blob = cs.replace(".asm", ".dxbc");
    let (code, err) = tgsi(&["asm", &cs, "-o", &blob]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = args(&blob);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[\n        16,\n        19\n      ]"), "{out}");
    // A vertex shader: outputs by o# register.
    let vs = temp_shader(
        "d3d-vs.asm",
        "vs_4_0\ndcl_input v2.xy\ndcl_output o1.xyzw\nadd o1.xyzw, v2.xyxy, l(1.0, 2.0, 3.0, 4.0)\nret\n",
    );
    let (code, out, err) = tgsi_out(&["run", &vs, "--input", "2=float:1,2,0,0"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("vertex 0 o1"), "{out}");
    assert!(out.contains("0x40c00000"), "{out}"); // 2 + 4 = 6.0
    // an input register past the register file, or not four values: errors
    // (the first one allocated a row of that many registers)
    let (code, _, err) = tgsi_out(&["run", &vs, "--input", "99999999999=float:1,2,3,4"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("IN[99999999999] is past the machine's 4096 input registers"),
        "{err}"
    );
    let (code, _, err) = tgsi_out(&["run", &vs, "--input", "2=float:1,2,3,4,5"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("expected four 32-bit values, found 5"),
        "{err}"
    );
    // Errors of the assembler are reported against the file.
    let bad = temp_shader(
        "d3d-bad.asm",
        "cs_5_0\ndcl_thread_group 1, 1, 1\nmov r0.x, l(1)\nret\n",
    );
    let (code, _, err) = tgsi_out(&["run", &bad]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("dcl_temps"), "{err}");
}

#[test]
fn render_takes_a_direct3d_pixel_shader() {
    let dir = std::env::temp_dir().join(format!("tgsi-render-d3d-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The first TEXCOORD input gets (u, v, 0, 1); cb0 comes from --const 0.
    let shader = dir.join("ps.asm");
    std::fs::write(
        &shader,
        "ps_4_0\ndcl_constantbuffer cb0[1], immediateIndexed\ndcl_input_ps linear v1.xy\n\
         dcl_output o0.xyzw\nmov o0.xy, v1.xyxx\nmov o0.zw, cb0[0].xxxy\nret\n",
    )
    .unwrap();
    let out = dir.join("out.png");
    let (code, err) = tgsi(&[
        "render",
        shader.to_str().unwrap(),
        "--const",
        "0=float:0.5,1",
        "--size",
        "2x1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let img = tgsi::image_io::load_png(&out).unwrap();
    // u = 0.25, 0.75 -> 64, 191; v = 0.5 -> 128; 0.5 -> 128; alpha 1 -> 255
    assert_eq!(img.pixels, vec![64, 128, 128, 255, 191, 128, 128, 255]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tgsi bench d3d` runs the corpus Direct3D reduction beside its TGSI twin
/// and refuses to time them unless their outputs are identical.
#[test]
fn bench_d3d_checks_the_twins_agree() {
    let (code, out, err) = tgsi_out(&[
        "bench",
        "d3d",
        "--invocations",
        "512",
        "--reps",
        "1",
        "--threads",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("outputs are identical"), "{out}");
    assert!(out.contains("Direct3D runs at"), "{out}");
    let (code, err) = tgsi(&["bench", "d3d", "--invocations", "100"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("multiple of 128"), "{err}");
}

/// `tgsi bench compute --vulkan` runs the same dispatch on the Vulkan
/// device, checks its buffers equal the machine's, and times it beside the
/// machine; other workloads are refused. Without a device it says so.
#[test]
fn bench_compute_on_the_vulkan_device_checks_the_buffers() {
    let (code, out, err) = tgsi_out(&[
        "bench",
        "compute",
        "--vulkan",
        "--invocations",
        "256",
        "--reps",
        "1",
        "--threads",
        "1",
        "--iters",
        "8",
    ]);
    if err.contains("--vulkan: ") {
        eprintln!("\n*** SKIPPED: no Vulkan device ({err}) ***\n");
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bit-identical to the machine's"), "{out}");
    assert!(out.contains("tgsi 1T is"), "{out}");
    let (code, err) = tgsi(&["bench", "alu", "--vulkan", "--reps", "1"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--vulkan runs the compute and frag workloads"),
        "{err}"
    );
}

/// `--device` picks the Vulkan device by number or name; a device that is
/// not there is an error naming the ones that are.
#[test]
fn the_vulkan_device_is_chosen_with_device() {
    let args = [
        "test",
        "--engine",
        "vulkan",
        "--device",
        "no-such-device",
        "tests/shader/double.shader_test",
    ];
    let (code, err) = tgsi(&args);
    assert_ne!(code, 0);
    assert!(
        err.contains("no Vulkan device \"no-such-device\" (devices: [")
            || err.contains("no Vulkan loader"),
        "{err}"
    );
}

/// Runs `tgsi ARGS -o PNG` on the machine and with `--engine vulkan`
/// into `name`'s folder: the two pictures' paths and the device run's
/// stderr, or None (saying so) when there is no Vulkan device.
fn render_on_both(
    name: &str,
    args: &[&str],
) -> Option<(std::path::PathBuf, std::path::PathBuf, String)> {
    let dir = std::env::temp_dir().join(format!("tgsi-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (machine, device) = (dir.join("m.png"), dir.join("v.png"));
    let (code, err) = tgsi(&[args, &["-o", machine.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    let vk = [
        &["--engine", "vulkan"][..],
        args,
        &["-o", device.to_str().unwrap()],
    ]
    .concat();
    let (code, err) = tgsi(&vk);
    if err.contains("Vulkan: no") {
        eprintln!("\n*** SKIPPED: no Vulkan device ({err}) ***\n");
        std::fs::remove_dir_all(&dir).unwrap();
        return None;
    }
    assert_eq!(code, 0, "{err}");
    Some((machine, device, err))
}

/// `tgsi render --engine vulkan` draws the fragment shader on the device:
/// the Mandelbrot example's PNG is the machine's, byte for byte.
#[test]
fn render_on_the_vulkan_device_gives_the_machines_picture() {
    let args = ["render", "examples/mandelbrot.tgsi", "--size", "48x32"];
    let Some((machine, device, err)) = render_on_both("render-vk", &args) else {
        return;
    };
    assert!(err.contains("drawn on the Vulkan device"), "{err}");
    assert_eq!(
        std::fs::read(&machine).unwrap(),
        std::fs::read(&device).unwrap()
    );
    std::fs::remove_dir_all(machine.parent().unwrap()).unwrap();
}

/// `tgsi run --engine vulkan` of a vertex shader prints what the machine
/// prints: every vertex's outputs, word for word.
#[test]
fn run_of_a_vertex_shader_on_the_vulkan_device_prints_the_machines_outputs() {
    let base = [
        "run",
        "examples/facets/sphere_vs.tgsi",
        "--vertices",
        "3",
        "--input",
        "0=float:0.5,-0.25,1,1",
    ];
    let (code, machine, err) = tgsi_out(&base);
    assert_eq!(code, 0, "{err}");
    let (code, device, err) = tgsi_out(&[&["--engine", "vulkan"][..], &base[..]].concat());
    if err.contains("Vulkan: no") {
        eprintln!("\n*** SKIPPED: no Vulkan device ({err}) ***\n");
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert!(machine.contains("vertex 2 OUT[0]"), "{machine}");
    assert_eq!(machine, device);
}

/// `tgsi render --engine vulkan` of a mesh draws the torus scene through
/// the vertex and fragment shaders on the device, with its depth test and
/// culling: the picture is the machine's but for the device's sRGB
/// decoding and powers (most bytes equal, the rest close).
#[test]
fn render_of_a_mesh_on_the_vulkan_device_draws_the_machines_picture() {
    let scene = [
        "render",
        "examples/scene/torus_fs.tgsi",
        "--vertex",
        "examples/scene/torus_vs.tgsi",
        "--mesh",
        "examples/meshes/torus.obj",
        "--size",
        "64x48",
        "--depth",
        "d32f",
        "--cull",
        "back",
        "--front",
        "ccw",
        "--texture",
        "0=examples/textures/checker.png:mips",
        "--sampler",
        "0=nearest,repeat",
        "--const",
        "0=float:0.81721,0.149774,-0.556539,0,-0.331861,0.91178,-0.241922,0,0.471207,0.382394,0.79482,0,0,0,0,1",
        "--const",
        "1=float:1,0,0,0,0,0.873689,-0.486486,0.043684,0,0.486486,0.873689,-5.011795,0,0,0,1",
        "--const",
        "2=float:2.178158,0,0,0,0,2.904211,0,0,0,0,-1.111111,-1.111111,0,0,-1,0",
        "--const",
        "3=float:-0.428353,0.771035,0.471188,0,0,2.4,4.4,1,1,0.92,0.8,48,0.05,0.055,0.07,0,0.8,0.78,0.7,0,0.784465,-0.196116,-0.588348,0,0.12,0.2,0.4,0,0.35,0.45,0.7,3",
        "--quiet",
    ];
    let Some((machine, device, _)) = render_on_both("render-vkm", &scene) else {
        return;
    };
    let (a, b) = (
        tgsi::image_io::load_png(&machine).unwrap(),
        tgsi::image_io::load_png(&device).unwrap(),
    );
    assert_eq!(a.pixels.len(), b.pixels.len());
    let far = a
        .pixels
        .iter()
        .zip(&b.pixels)
        .filter(|(x, y)| x.abs_diff(**y) > 8)
        .count();
    // the torus covers about half the target: a wrong draw differs widely
    assert!(
        far * 50 < a.pixels.len(),
        "{far} of {} bytes differ by more than 8",
        a.pixels.len()
    );
    let background = &a.pixels[..4];
    let covered = a.pixels.chunks(4).filter(|p| *p != background).count();
    assert!(covered * 5 > a.pixels.len() / 4, "the torus is missing");
    std::fs::remove_dir_all(machine.parent().unwrap()).unwrap();
}

/// `tgsi render`'s stage options check the stage of each file and come in
/// pairs where the pipeline needs them.
#[test]
fn render_stage_options_check_their_shaders() {
    let base = [
        "render",
        "examples/scene/torus_fs.tgsi",
        "--vertex",
        "examples/facets/sphere_vs.tgsi",
        "--mesh",
        "examples/meshes/octahedron.obj",
        "-o",
        "/dev/null",
    ];
    let mut wrong = base.to_vec();
    wrong.extend(["--geometry", "examples/facets/sphere_tes.tgsi"]);
    let (code, err) = tgsi(&wrong);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--geometry takes geometry shaders; this is a TESS_EVAL shader"),
        "{err}"
    );
    let mut half = base.to_vec();
    half.extend(["--tess-ctrl", "examples/facets/sphere_tcs.tgsi"]);
    let (code, err) = tgsi(&half);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--tess-eval"), "{err}");
}

/// fxc's listings are told apart from TGSI: a feature-level-9 listing (its
/// Direct3D 9 program first) assembles its SM4 program with a note, an
/// effect listing is named as such.
#[test]
fn fxc_listings_of_every_kind_are_recognised() {
    let dir = std::env::temp_dir().join(format!("tgsi-listings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("l9.dxbc");
    let out = out.to_str().unwrap();
    for (listing, line) in [
        ("Level9_Test_PS_9_3.asm", ":88:5:"),
        ("Level9_Test_VS_9_3.asm", ":"),
    ] {
        let path = format!("tests/fixtures/d3d/dxdecompiler/Internal/{listing}");
        let (code, err) = tgsi(&["asm", &path, "-o", out]);
        assert_eq!(code, 0, "{listing}: {err}");
        assert!(
            err.contains(&format!("note: {path}{line}"))
                && err.contains("the level-9 (Direct3D 9) program is not rebuilt"),
            "{listing}: {err}"
        );
        let blob = std::fs::read(out).unwrap();
        assert_eq!(&blob[..4], b"DXBC");
        let (code, err) = tgsi(&["check", &path]);
        assert_eq!(code, 0, "{listing}: {err}");
    }
    let effect = "tests/fixtures/d3d/dxdecompiler/Internal/General/AdvancedHLSL_FX.asm";
    let (code, err) = tgsi(&["asm", effect, "-o", out]);
    assert_eq!(code, 1);
    assert!(err.contains("this is an fxc effect listing"), "{err}");
    assert!(err.contains("AdvancedHLSL_FX.asm:6:1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bytes that are no format get an error naming the format the file's name
/// promises, what is wrong, and the byte offset, from every verb.
#[test]
fn binary_input_that_is_not_what_it_claims() {
    let write = |name: &str, bytes: &[u8]| temp_file(name, bytes);
    let random = write("random.dxbc", &[0x5d, 0x17, 0xc3, 0x28, 0xff, 0x00, 0x9a]);
    let empty = write("empty.dxbc", b"");
    let short = write("short.cso", b"DX");
    let binary = write("noise.tgsi", &[b'F', b'R', 0xc3, 0x28, 0xff]);
    let empty_text = write("empty.tgsi", b"");
    let cases: [(&[&str], &str, &str); 7] = [
        (
            &["check"],
            &random,
            "random.dxbc: byte 0: not a DXBC container: the first 4 bytes are 5d 17 c3 28 (\"]\\x17\\xc3(\"), expected `DXBC`",
        ),
        (&["dis"], &random, "not a DXBC container"),
        (&["run"], &random, "not a DXBC container"),
        (
            &["check"],
            &empty,
            "empty.dxbc: byte 0: empty file: expected a DXBC container",
        ),
        (
            &["check"],
            &short,
            "short.cso: byte 0: not a DXBC container: the file is 2 bytes long",
        ),
        (
            &["check"],
            &binary,
            "noise.tgsi: byte 2: the file is neither UTF-8 text",
        ),
        (
            &["fmt"],
            &empty_text,
            "empty.tgsi: byte 0: empty file: expected a TGSI shader",
        ),
    ];
    for (verb, file, want) in cases {
        let mut args = verb.to_vec();
        args.push(file);
        let (code, err) = tgsi(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(err.contains(want), "{args:?}: expected `{want}` in:\n{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn translate_layout_names_bindings_and_specialization_constants() {
    let fs = temp_shader(
        "layout_fs.tgsi",
        "FRAG\nPROPERTY FS_COORD_ORIGIN LOWER_LEFT\nDCL IN[0], POSITION, LINEAR\n\
         DCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\n\
         0: TEX OUT[0], IN[0], SAMP[0], 2D\n1: END\n",
    );
    let (code, out, err) = tgsi_out(&["translate", &fs, "--layout"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("SVIEW[0], sampled image"), "{out}");
    assert!(out.contains("SAMP[0], sampler"), "{out}");
    assert!(
        out.contains("specialization constant 0: uint: the render target's height"),
        "{out}"
    );
    std::fs::remove_file(&fs).unwrap();
}

/// `tgsi bench mesh --peer` runs ours and the peer in rounds, one after the
/// other (the peer at 1 and 2 threads in each), and reports each side's
/// median of its rounds' medians and the cores the peer kept busy; the peer
/// here is a script that logs its thread count, prints a fixed time and
/// processor time per thread count and gives back some picture.
#[cfg(unix)]
#[test]
fn bench_mesh_runs_the_peer_in_rounds_between_ours() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("tgsi-fake-peer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("threads.log");
    let script = dir.join("peer.sh");
    let picture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/textures/checker.png");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$LP_NUM_THREADS\" >> '{}'\nprev=''\nfor a in \"$@\"; do\n  \
             if [ \"$prev\" = --out ]; then cp '{}' \"$a\"; fi\n  prev=\"$a\"\ndone\n\
             cpu=0.0150; [ \"$LP_NUM_THREADS\" = 2 ] && cpu=0.0225\n\
             echo \"llvmpipe: median 0.0125 s per frame, best 0.0125, median cpu $cpu s per frame\"\n",
            log.display(),
            picture.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .args(["bench", "mesh", "--scene", "torus 64x32", "--size", "64"])
        .args(["--reps", "2", "--threads", "1", "--peer"])
        .env("TGSI_PEER_MESH", &script)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        runs.split_whitespace().collect::<Vec<_>>(),
        ["1", "2", "1", "2", "1", "2"]
    );
    assert!(text.contains("median of 3 rounds) = "), "{text}");
    for (threads, busy) in [(1, "1.20"), (2, "1.80")] {
        let line = format!(
            "llvmpipe, {threads} thread(s): median 0.01250 s per frame = 80.0 frames/s, 0.328 M triangles/s (median of 3 rounds, {busy} cores busy)"
        );
        assert!(text.contains(&line), "{text}");
    }
    // a picture of another size: reported, not a failure
    assert!(text.contains("image vs llvmpipe: sizes differ"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dispatch_is_bounded_as_a_whole() {
    // an endless loop over 4,096 groups stops at its first batch's budget;
    // a dispatch too large for one instruction per batch, or with more
    // groups than a dimension allows, does not start
    let endless = temp_shader(
        "endless.tgsi",
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nDCL TEMP[0]\nIMM[0] FLT32 {1.0, 0.0, 0.0, 0.0}\nBGNLOOP\nADD TEMP[0], TEMP[0], IMM[0]\nENDLOOP\nEND\n",
    );
    let (code, err) = tgsi(&["run", &endless, "--groups", "64,64,1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("work group 0: instruction budget of 10000000 exhausted"),
        "{err}"
    );
    let (code, err) = tgsi(&["run", &endless, "--groups", "65535,65535,65535"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than its budget of 10000000000"), "{err}");
    let (code, err) = tgsi(&["run", &endless, "--groups", "65536,1,1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("65536 work groups along x: at most 65535"),
        "{err}"
    );
    let (code, err) = tgsi(&["run", &endless, "--groups", "4294967296,1,1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("4294967296 is larger than 4294967295"),
        "{err}"
    );
    // two instructions per batch, eight batches: 16 in all
    let straight = temp_shader(
        "straight.tgsi",
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nDCL TEMP[0]\nMOV TEMP[0], TEMP[0]\nEND\n",
    );
    for threads in ["1", "2"] {
        let run = |budget| {
            tgsi(&[
                "run",
                &straight,
                "--groups",
                "2,1,1",
                "--threads",
                threads,
                "--dispatch-budget",
                budget,
            ])
        };
        assert_eq!(run("16").0, 0);
        let (code, err) = run("15");
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("the dispatch ran more than its budget of 15 instructions"),
            "{err}"
        );
    }
}

/// `tgsi render --draw-budget`: a draw stops once its batches, summed,
/// pass the budget, on one thread and on two, and names it.
#[test]
fn a_render_stops_at_its_draw_budget() {
    let dir = std::env::temp_dir().join(format!("tgsi-draw-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.png");
    let out = out.to_str().unwrap();
    for threads in ["1", "2"] {
        let render = |budget: &str| {
            tgsi(&[
                "render",
                "examples/mandelbrot.tgsi",
                "--size",
                "48x32",
                "-q",
                "--threads",
                threads,
                "--draw-budget",
                budget,
                "-o",
                out,
            ])
        };
        let (code, err) = render("1000");
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("the draw ran more than its budget of 1000 instructions"),
            "{err}"
        );
        assert_eq!(render("10000000000").0, 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_prints_the_validators_warnings_of_tgsi_text() {
    // valid TGSI that the machine will not run: a warning, exit status 0
    let big = temp_shader("big-temps.tgsi", "COMP\nDCL TEMP[0..65535]\nEND\n");
    let (code, err) = tgsi(&["check", &big]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: TEMP[0..65535] needs 65536 entries") && err.contains(":2:1"),
        "{err}"
    );
    let (code, err) = tgsi(&["run", &big]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 4096"), "{err}");
}

#[test]
fn token_files_and_text_are_told_apart_whatever_the_verb() {
    let text = std::fs::read_to_string("examples/collatz.tgsi").unwrap();
    let source = temp_shader("collatz-text.tgsi", &text);
    let tokens = temp_shader("collatz.tok", "");
    let (code, _, err) = tgsi_out(&["asm", &source, "-o", &tokens]);
    assert_eq!(code, 0, "{err}");
    // run takes the token file as it takes the text
    let run = |file: &str| tgsi_out(&["run", file, "--groups", "2,1,1", "--buffer-size", "0=128"]);
    let (from_text, from_tokens) = (run(&source), run(&tokens));
    assert_eq!(from_tokens.0, 0, "{}", from_tokens.2);
    assert_eq!(from_tokens.1, from_text.1);
    assert!(from_text.1.contains("0x00000007"), "{}", from_text.1);
    // check decodes tokens (it read them as text and found no header)
    let (code, err) = tgsi(&["check", &tokens]);
    assert_eq!((code, err.as_str()), (0, ""));
    // dis of text and fmt of tokens name the other verb
    let (code, err) = tgsi(&["dis", &source]);
    assert_eq!(code, 1);
    assert!(err.contains("this is TGSI text (try `tgsi fmt`)"), "{err}");
    let (code, err) = tgsi(&["fmt", &tokens]);
    assert_eq!(code, 1);
    assert!(err.contains("try `tgsi dis`"), "{err}");
}

#[test]
fn lower_and_translate_refuse_what_check_refuses_where_check_does() {
    let file = |name: &str, bytes: &[u8]| temp_file(name, bytes);
    // a thread group past cs_5_0's limits: check's error, line and column
    let big = file(
        "big-group.asm",
        b"cs_5_0\ndcl_thread_group 4294967295, 1, 1\nret\n",
    );
    for verb in ["check", "lower", "translate"] {
        let (code, err) = tgsi(&[verb, &big]);
        assert_eq!(code, 1, "{verb}: {err}");
        assert!(
            err.contains("exceeds the cs_5_0 limits") && err.contains("big-group.asm:2:1"),
            "{verb}: {err}"
        );
    }
    // tokens that do not decode: one `error:` line with the byte offset
    let odd = file("odd.tok", &[2, 0, 0, 0, 5, 0, 0]);
    let (code, err) = tgsi(&["translate", &odd, "-o", &file("odd.spv", b"")]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: ")
            && err.contains("odd.tok: word 1:")
            && err.contains("byte offset 4"),
        "{err}"
    );
    // a program length past its chunk: the byte offset in the file
    let mut blob =
        std::fs::read("tests/fixtures/d3d/dxdecompiler/HlslCrossCompiler/vs4/mov.o").unwrap();
    blob[244] = 16;
    let long = file("long.o", &blob);
    for verb in ["check", "lower", "translate"] {
        let (code, err) = tgsi(&[verb, &long]);
        assert_eq!(code, 1, "{verb}: {err}");
        assert!(
            err.contains("byte offset 244 (0xf4): program length token says 16 dword(s)"),
            "{verb}: {err}"
        );
    }
    // an effect's shader signed wrongly: its own checksum is checked
    let mut effect =
        std::fs::read("tests/fixtures/d3d/dxdecompiler/Internal/Effects/BasicEffect_5_0_FX.o")
            .unwrap();
    effect[211] ^= 0x40;
    let (code, err) = tgsi(&["check", &file("effect.o", &effect)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "byte offset 211 (0xd3): checksum mismatch of the container nested at byte offset 207"
        ),
        "{err}"
    );
    // an unsigned blob (all-zero checksum) is accepted, with a warning
    let mut unsigned =
        std::fs::read("tests/fixtures/d3d/dxdecompiler/HlslCrossCompiler/vs4/mov.o").unwrap();
    unsigned[4..20].fill(0);
    let (code, err) = tgsi(&["check", &file("unsigned.o", &unsigned)]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning") && err.contains("all zero"), "{err}");
}

#[test]
fn a_direct3d_programs_run_error_names_its_direct3d_instruction() {
    let simple = "tests/fixtures/d3d/dxdecompiler-history/47d56b6475/SlimShader.VirtualMachine.Tests/CS/Simple.o";
    let (code, err) = tgsi(&["run", simple]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("IMAGE[0] is not bound (in Direct3D instruction 8: `store_uav_typed u0.xyzw"),
        "{err}"
    );
}

#[test]
fn an_empty_value_between_commas_is_refused() {
    let cs = temp_shader("const.tgsi", "COMP\nDCL CONST[0]\nEND\n");
    for spec in ["0=float:1,,0.5", "0=float:", "0=uint:1,"] {
        let (code, err) = tgsi(&["run", &cs, "--const", spec]);
        assert_eq!(code, 2, "{spec}: {err}");
        assert!(err.contains("(one is empty)"), "{spec}: {err}");
    }
    assert_eq!(tgsi(&["run", &cs, "--const", "0=float:1, 2,0.5"]).0, 0);
}

#[test]
fn a_raw_effect_is_a_container_of_programs_to_every_verb() {
    let effect = "tests/fixtures/d3d/dxdecompiler/Internal/Effects/BasicEffect_5_0_FX.o";
    let (code, err) = tgsi(&["translate", effect]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the blob holds 4 programs: pick one with --entry N"),
        "{err}"
    );
    let (code, out, err) = tgsi_out(&["translate", effect, "--entry", "0", "--to", "spirv-asm"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("OpEntryPoint"), "{out}");
    for verb in ["run", "debug"] {
        let (code, err) =
            tgsi(&[verb, effect, "--vertex", "0"][..if verb == "run" { 2 } else { 4 }]);
        assert_ne!(code, 0, "{verb}: {err}");
        assert!(
            err.contains("the container holds 4 programs; one is needed"),
            "{verb}: {err}"
        );
    }
}

/// A reader that stops reading (`tgsi run ... | head`) ends the output
/// quietly: exit status 0, no panic.
#[test]
fn run_output_into_a_closed_pipe_ends_quietly() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "examples/collatz.tgsi", "--buffer-size", "0=1048576"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tgsi runs");
    // 262,144 lines, more than a pipe holds: the writes meet the closed end
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("tgsi ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// A thread count of 0 is refused, naming the option and the value.
#[test]
fn zero_threads_are_refused() {
    for args in [
        &["run", "examples/collatz.tgsi", "--threads", "0"][..],
        &["test", "examples/", "--threads", "0"][..],
        &["bench", "compute", "--threads", "1,0"][..],
    ] {
        let (code, err) = tgsi(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("--threads") && err.contains("at least 1, found `0`"),
            "{args:?}: {err}"
        );
    }
}

/// A run error in TGSI text names the line and column of the instruction;
/// a bad `--buffer-size` quotes what was given; a data file's section that
/// does not belong there names its line.
#[test]
fn run_errors_point_into_what_the_user_gave() {
    let looping = temp_shader(
        "loop.tgsi",
        "COMP\nDCL TEMP[0]\nBGNLOOP\n  UADD TEMP[0].x, TEMP[0].xxxx, TEMP[0].xxxx\nENDLOOP\nEND\n",
    );
    let (code, err) = tgsi(&["run", &looping, "--budget", "1000"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("loop.tgsi:5:1: work group 0: instruction budget of 1000 exhausted at instruction 2 (ENDLOOP)"),
        "{err}"
    );
    for (spec, says) in [
        ("0=-1", "--buffer-size `0=-1`: `-1` is not a size in bytes"),
        ("x=4", "--buffer-size `x=4`: `x` is not an index"),
    ] {
        let (code, err) = tgsi(&["run", &looping, "--buffer-size", spec]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(says), "{err}");
    }
    // so does what the engine refuses to compile
    let deep = temp_shader(
        "deep.tgsi",
        &format!(
            "COMP\nDCL TEMP[0]\n{}{}END\n",
            "UIF TEMP[0].xxxx\n".repeat(65),
            "ENDIF\n".repeat(65)
        ),
    );
    let (code, err) = tgsi(&["run", &deep]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("deep.tgsi:67:1: instruction 64 (UIF): blocks nested 65 deep"),
        "{err}"
    );
    // what the SPIR-V translation refuses names the line
    let tcs = temp_shader(
        "tcs_indirect.tgsi",
        "TESS_CTRL\nPROPERTY TCS_VERTICES_OUT 3\nDCL OUT[0..1], GENERIC[0]\nDCL TEMP[0]\nDCL ADDR[0]\n\
         IMM[0] UINT32 {1, 0, 0, 0}\n  UARL ADDR[0].x, IMM[0].xxxx\n  MOV OUT[ADDR[0].x], TEMP[0]\n  END\n",
    );
    let spv = temp_file("tcs_indirect.spv", "");
    let (code, err) = tgsi(&["translate", &tcs, "-o", &spv]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "tcs_indirect.tgsi:8: instruction 1: a TESS_CTRL output with an indirect register index"
        ),
        "{err}"
    );
    // a whole dispatch's budget below the batch budget stops a batch too
    let (code, err) = tgsi(&[
        "run",
        &looping,
        "--budget",
        "18446744073709551615",
        "--dispatch-budget",
        "1000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("loop.tgsi:5:1: work group 0: the dispatch's instruction budget of 1000 ran out within one batch, at instruction 2 (ENDLOOP)"),
        "{err}"
    );
    // each buffer may hold 1 GiB, and all of them together too
    let (code, err) = tgsi(&[
        "run",
        &looping,
        "--buffer-size",
        "0=536870912",
        "--buffer-size",
        "1=536870913",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--buffer-size `1=536870913`: the buffers would hold 1073741825 bytes in all; at most 1 GiB"),
        "{err}"
    );
    let data = temp_file(
        "wrong.data",
        "[constant 0]\nfloat 1\n[test]\ndispatch 1 1 1\n",
    );
    let (code, err) = tgsi(&["run", &looping, "--data", &data]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("wrong.data:3:1: only [constant N], [buffer N] and [vertex data] sections"),
        "{err}"
    );
}

/// A draw's run error names the shader file, line and column of the
/// instruction where it stopped: a fragment shader drawn alone, and a
/// vertex shader among a mesh draw's stages.
#[test]
fn draw_errors_point_into_the_shader_that_stopped() {
    let fragment = temp_shader(
        "loop_fs.tgsi",
        "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\nBGNLOOP\n  ADD TEMP[0].x, TEMP[0].xxxx, TEMP[0].xxxx\nENDLOOP\nMOV OUT[0], TEMP[0]\nEND\n",
    );
    let png = temp_file("loop.png", "");
    let (code, err) = tgsi(&[
        "render", &fragment, "--size", "8x8", "--budget", "1000", "-o", &png,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("loop_fs.tgsi:6:1: pixels (0, 0) .. (3, 3): instruction budget of 1000 exhausted at instruction 2 (ENDLOOP)"),
        "{err}"
    );
    let (code, err) = tgsi(&[
        "render",
        &fragment,
        "--size",
        "8x8",
        "--budget",
        "18446744073709551615",
        "--draw-budget",
        "100000",
        "-o",
        &png,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the draw's instruction budget of 100000 ran out within one batch"),
        "{err}"
    );
    let vertex = temp_shader(
        "loop_vs.tgsi",
        "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nBGNLOOP\nENDLOOP\nMOV OUT[0], IN[0]\nEND\n",
    );
    let (code, err) = tgsi(&[
        "render",
        "examples/scene/torus_fs.tgsi",
        "--vertex",
        &vertex,
        "--mesh",
        "examples/meshes/octahedron.obj",
        "--size",
        "16x16",
        "--budget",
        "1000",
        "-o",
        &png,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("exhausted at instruction 1 (ENDLOOP) (in ")
            && err.contains("loop_vs.tgsi:5:1)"),
        "{err}"
    );
}

/// A verb refuses to write its output over a file it reads, and an
/// engine variable that names no engine is refused, not ignored.
#[test]
fn inputs_are_never_overwritten_and_the_engine_variable_is_checked() {
    let shader = temp_shader("keep.tgsi", "COMP\nEND\n");
    let before = std::fs::read(&shader).unwrap();
    for args in [
        vec!["asm", shader.as_str(), "-o", shader.as_str()],
        vec!["translate", shader.as_str(), "-o", shader.as_str()],
        vec!["fmt", shader.as_str(), "-o", shader.as_str()],
    ] {
        let (code, err) = tgsi(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("that is the input"), "{args:?}: {err}");
        assert_eq!(std::fs::read(&shader).unwrap(), before, "{args:?}");
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .env("TGSI_ENGINE", "bogus")
        .args(["run", &shader])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("TGSI_ENGINE=`bogus`: expected auto, jit, interp or vulkan"),
        "{err}"
    );
}

/// The fuzzer prints its findings' case numbers in hex; `--show` and
/// `--seed` take them back in either form, and refuse anything else.
#[test]
fn fuzz_case_numbers_are_taken_in_hex_or_decimal() {
    let (code, hex, err) = tgsi_out(&["fuzz", "--show", "0x2a"]);
    assert_eq!(code, 0, "{err}");
    assert!(hex.contains("END"), "{hex}");
    let (_, decimal, _) = tgsi_out(&["fuzz", "--show", "42"]);
    assert_eq!(hex, decimal);
    let (_, other, _) = tgsi_out(&["fuzz", "--show", "43"]);
    assert_ne!(hex, other);
    let (code, text) = tgsi(&["fuzz", "--show", "0xg"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("expected a case number (42 or 0x2a), found `0xg`"),
        "{text}"
    );
}
