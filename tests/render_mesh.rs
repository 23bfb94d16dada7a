//! `tgsi render --vertex --mesh` end to end: the mesh's attributes reach
//! TGSI and Direct3D vertex shaders alike, the depth test, MSAA resolve,
//! and clear errors (file, line and column) for bad input.

use std::process::Command;
use tgsi::image_io::{Rgba8Image, load_png};

const DATA: &str = "tests/data/render_mesh";

/// Runs `tgsi render ARGS -o OUT` → (exit status, stderr, the picture).
fn render(name: &str, args: &[&str]) -> (i32, String, Option<Rgba8Image>) {
    let out = std::env::temp_dir().join(format!(
        "tgsi-render-mesh-{}-{name}.png",
        std::process::id()
    ));
    let run = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("render")
        .args(args)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("running tgsi");
    let img = load_png(&out).ok();
    let _ = std::fs::remove_file(&out);
    (
        run.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&run.stderr).into_owned(),
        img,
    )
}

fn data(file: &str) -> String {
    format!("{DATA}/{file}")
}

fn picture(name: &str, args: &[&str]) -> Rgba8Image {
    let (code, err, img) = render(name, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    img.expect("a PNG")
}

/// The square's texture coordinates as colours: pixel (x, y) of a 16x16
/// target gets (u, v) = ((x + 0.5) / 16, (y + 0.5) / 16), so red is
/// round(255 (x + 0.5) / 16) and green the same of y, through a TGSI and a
/// Direct3D (SM4 assembly) pair of shaders alike.
#[test]
fn texture_coordinates_reach_tgsi_and_direct3d_shaders() {
    let tgsi = picture(
        "uv-tgsi",
        &[
            &data("uv_fs.tgsi"),
            "--vertex",
            &data("pass_vs.tgsi"),
            "--mesh",
            &data("square.obj"),
            "--size",
            "16x16",
        ],
    );
    let d3d = picture(
        "uv-d3d",
        &[
            &data("uv_ps.asm"),
            "--vertex",
            &data("pass_vs.asm"),
            "--mesh",
            &data("square.obj"),
            "--size",
            "16x16",
        ],
    );
    let unorm = |k: u32| ((k as f64 + 0.5) / 16.0 * 255.0).round() as u8;
    for y in 0..16 {
        for x in 0..16 {
            let want = [unorm(x), unorm(y), 0, 255];
            assert_eq!(tgsi.pixel(x, y), Some(want), "TGSI at ({x}, {y})");
            assert_eq!(d3d.pixel(x, y), Some(want), "Direct3D at ({x}, {y})");
        }
    }
}

/// two_squares.obj: the near left half (normal = red) is drawn first, the
/// far full square (blue) second.
#[test]
fn the_depth_test_keeps_the_nearer_square() {
    let (fs, vs, mesh) = (
        data("color_fs.tgsi"),
        data("normal_vs.tgsi"),
        data("two_squares.obj"),
    );
    let run = |name: &str, extra: &[&str]| {
        let mut args = vec![
            fs.as_str(),
            "--vertex",
            &vs,
            "--mesh",
            &mesh,
            "--size",
            "8x8",
        ];
        args.extend_from_slice(extra);
        picture(name, &args)
    };
    let red = Some([255, 0, 0, 255]);
    let blue = Some([0, 0, 255, 255]);
    for format in ["d32f", "d24s8", "d16"] {
        let img = run(format, &["--depth", format]);
        assert_eq!(img.pixel(1, 4), red, "{format}: left half");
        assert_eq!(img.pixel(6, 4), blue, "{format}: right half");
    }
    let img = run("nodepth", &[]);
    assert_eq!(img.pixel(1, 4), blue, "no depth test: the later square");
}

/// A triangle's slanted edge: with 4 samples some edge pixels are a mix of
/// the triangle and the clear colour; with 1 sample every pixel is one or
/// the other.
#[test]
fn multisampling_blends_edges_when_resolved() {
    let dir = std::env::temp_dir().join(format!("tgsi-render-msaa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("tri.obj");
    std::fs::write(
        &obj,
        "v -1 1 0\nv 1 1 0\nv -1 -1 0\nvn 1 1 1\nf 1//1 2//1 3//1\n",
    )
    .unwrap();
    let obj = obj.to_str().unwrap();
    let draw = |samples: &str| {
        picture(
            &format!("msaa{samples}"),
            &[
                &data("color_fs.tgsi"),
                "--vertex",
                &data("normal_vs.tgsi"),
                "--mesh",
                obj,
                "--size",
                "16x16",
                "--samples",
                samples,
            ],
        )
    };
    let mixed = |img: &Rgba8Image| {
        img.pixels
            .chunks_exact(4)
            .filter(|p| p[0] != 0 && p[0] != 255)
            .count()
    };
    assert_eq!(mixed(&draw("1")), 0);
    assert!(mixed(&draw("4")) >= 8, "no blended edge pixels");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_gets_a_clear_message() {
    let dir = std::env::temp_dir().join(format!("tgsi-render-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.obj");
    std::fs::write(&bad, "v 0 0 0\nv 1 0 0\nf 1 2 7\n").unwrap();
    let bad = bad.to_str().unwrap();
    let fs = data("uv_fs.tgsi");
    let vs = data("pass_vs.tgsi");
    let square = data("square.obj");
    let color_vs = data("color_vs.asm");
    let ps = data("uv_ps.asm");
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![&fs, "--vertex", &vs, "--mesh", bad],
            format!("{bad}:3:7: position index 7"),
        ),
        (
            vec![&fs, "--vertex", &vs, "--mesh", "missing.obj"],
            "reading missing.obj".into(),
        ),
        (
            vec![&fs, "--vertex", &fs, "--mesh", &square],
            "--vertex takes vertex shaders; this is a FRAG shader".into(),
        ),
        (
            vec![&ps, "--vertex", &color_vs, "--mesh", &square],
            "reads COLOR0, which a mesh does not give".into(),
        ),
        (vec![&fs, "--vertex", &vs], "--mesh".into()),
        (
            vec![&fs, "--vertex", &vs, "--mesh", &square, "--samples", "3"],
            "1, 2, 4, 8 or 16".into(),
        ),
        (
            vec![&fs, "--vertex", &vs, "--mesh", &square, "--depth", "d32"],
            "expected one of d32f, d24s8, d16".into(),
        ),
    ];
    for (args, want) in cases {
        let (code, err, _) = render("bad", &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(&want),
            "{args:?}: expected `{want}` in:\n{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
