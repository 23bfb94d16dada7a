//! `tgsi render` and `tgsi test` on bad input: a clear message naming the
//! file or option, exit status 2, never a panic.

use std::process::Command;

fn tgsi(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("running tgsi");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
        err.contains("runs fragment shaders (FRAG); this is a COMP shader"),
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
