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
