//! Golden images: `tgsi render` of the bundled examples (procedural, with a
//! constant, textured with filters, wraps, mips and an sRGB target, and the
//! torus scene: a mesh drawn through the pipeline), compared with the
//! PNGs committed in `tests/golden/` (at most 1/255 per channel apart, so a
//! last-bit change in a transcendental does not fail the test, while any
//! visible change does).
//!
//! After a deliberate change of the pictures, regenerate them with
//!
//! ```sh
//! TGSI_BLESS=1 cargo test --release --test golden_images
//! ```
//!
//! and look at the new files before committing them.

use std::path::{Path, PathBuf};
use std::process::Command;
use tgsi::image_io::{Rgba8Image, decode_png, load_png};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Renders with the real command line and the given engine and returns the PNG's pixels.
fn render(name: &str, args: &[&str], engine: &str) -> Rgba8Image {
    let out = std::env::temp_dir().join(format!(
        "tgsi-golden-{}-{name}-{engine}.png",
        std::process::id()
    ));
    let status = Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(root())
        .arg("render")
        .arg("--engine")
        .arg(engine)
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg("--threads")
        .arg("2")
        .output()
        .expect("running tgsi render");
    assert!(
        status.status.success(),
        "tgsi render {args:?} failed:\n{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let bytes = std::fs::read(&out).expect("reading the rendered PNG");
    let _ = std::fs::remove_file(&out);
    decode_png(&bytes).expect("decoding the rendered PNG")
}

/// The largest per-channel difference and where it is.
fn max_difference(a: &Rgba8Image, b: &Rgba8Image) -> (u8, usize) {
    a.pixels
        .iter()
        .zip(&b.pixels)
        .enumerate()
        .map(|(i, (x, y))| (x.abs_diff(*y), i / 4))
        .max()
        .unwrap_or((0, 0))
}

fn check(name: &str, args: &[&str]) {
    // both engines, bit for bit the same picture
    let got = render(name, args, "interp");
    let compiled = render(name, args, "jit");
    assert!(
        got.pixels == compiled.pixels,
        "{name}: the compiled engine's picture differs from the interpreter's"
    );
    let golden = root().join("tests/golden").join(format!("{name}.png"));
    if std::env::var_os("TGSI_BLESS").is_some_and(|v| v == "1") {
        tgsi::image_io::save_png(&golden, &got).expect("writing the golden image");
        return;
    }
    let want = load_png(&golden).unwrap_or_else(|e| {
        panic!("{e}\n(regenerate with TGSI_BLESS=1 cargo test --release --test golden_images)")
    });
    assert_eq!(
        (got.width, got.height),
        (want.width, want.height),
        "{name}: size differs from {}",
        golden.display()
    );
    let (diff, pixel) = max_difference(&got, &want);
    let (x, y) = (pixel as u32 % got.width, pixel as u32 / got.width);
    assert!(
        diff <= 1,
        "{name}: pixel ({x}, {y}) differs from {} by {diff}/255: got {:?}, want {:?}",
        golden.display(),
        got.pixel(x, y),
        want.pixel(x, y)
    );
}

#[test]
fn mandelbrot() {
    check(
        "mandelbrot",
        &["examples/mandelbrot.tgsi", "--size", "192x128"],
    );
}

#[test]
fn plasma_with_a_constant() {
    check(
        "plasma",
        &[
            "examples/plasma.tgsi",
            "--size",
            "128x128",
            "--const",
            "0=float:1.5",
        ],
    );
}

#[test]
fn swirl_bilinear_repeat() {
    check(
        "swirl",
        &[
            "examples/swirl.tgsi",
            "--size",
            "128x128",
            "--texture",
            "0=examples/textures/checker.png",
            "--sampler",
            "0=linear,repeat",
        ],
    );
}

#[test]
fn swirl_trilinear_srgb() {
    check(
        "swirl_srgb_mips",
        &[
            "examples/swirl.tgsi",
            "--size",
            "96x96",
            "--texture",
            "0=examples/textures/checker.png:srgb:mips",
            "--sampler",
            "0=trilinear,mirror",
            "--srgb",
        ],
    );
}

/// examples/scene/README.md: the torus mesh through a vertex and a fragment
/// shader, perspective, depth-tested, lit, textured (sRGB, trilinear), 4x MSAA.
#[test]
fn torus_scene() {
    check(
        "torus_scene",
        &[
            "examples/scene/torus_fs.tgsi",
            "--vertex",
            "examples/scene/torus_vs.tgsi",
            "--mesh",
            "examples/meshes/torus.obj",
            "--size",
            "512x384",
            "--depth",
            "d32f",
            "--cull",
            "back",
            "--front",
            "ccw",
            "--samples",
            "4",
            "--srgb",
            "--clear",
            "0.02,0.025,0.035,1",
            "--texture",
            "0=examples/textures/checker.png:srgb:mips",
            "--sampler",
            "0=trilinear,repeat",
        ]
        .into_iter()
        .chain(SCENE_CONSTANTS.iter().flat_map(|c| ["--const", *c]))
        .collect::<Vec<_>>(),
    );
}

/// examples/facets/README.md: every stage at once: the octahedron's faces as
/// patches (tess-control, the tessellator at factor 8, tess-eval pushing
/// the points onto a sphere), a geometry shader shrinking each triangle,
/// then the torus scene's fragment shader.
#[test]
fn facets_scene() {
    let mut args = vec![
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
        "512x384",
        "--depth",
        "d32f",
        "--cull",
        "back",
        "--front",
        "cw",
        "--samples",
        "4",
        "--srgb",
        "--clear",
        "0.02,0.025,0.035,1",
        "--texture",
        "0=examples/textures/checker.png:srgb:mips",
        "--sampler",
        "0=trilinear,repeat",
    ];
    args.extend(SCENE_CONSTANTS.iter().flat_map(|c| ["--const", c]));
    check("facets_scene", &args);
}

/// The camera, lights and materials of examples/scene (camera.py).
const SCENE_CONSTANTS: [&str; 4] = [
    "0=float:0.81721,0.149774,-0.556539,0,-0.331861,0.91178,-0.241922,0,0.471207,0.382394,0.79482,0,0,0,0,1",
    "1=float:1,0,0,0,0,0.873689,-0.486486,0.043684,0,0.486486,0.873689,-5.011795,0,0,0,1",
    "2=float:2.178158,0,0,0,0,2.904211,0,0,0,0,-1.111111,-1.111111,0,0,-1,0",
    "3=float:-0.428353,0.771035,0.471188,0,0,2.4,4.4,1,1,0.92,0.8,48,0.05,0.055,0.07,0,0.8,0.78,0.7,0,0.784465,-0.196116,-0.588348,0,0.12,0.2,0.4,0,0.35,0.45,0.7,3",
];

#[test]
fn bundled_texture_is_what_its_script_makes() {
    // examples/textures/make_checker.py: 8x8 cells; texel (x, y) in an odd
    // cell is (255 - 2x, 150 + y, 60 + 2x + y, 255), else (30 + x, 20 + y/2, 90 + 2y, 255).
    let img = load_png(Path::new(&root().join("examples/textures/checker.png"))).unwrap();
    assert_eq!((img.width, img.height), (64, 64));
    assert_eq!(img.pixel(0, 0), Some([30, 20, 90, 255]));
    assert_eq!(img.pixel(8, 0), Some([255 - 16, 150, 76, 255]));
    assert_eq!(img.pixel(9, 10), Some([39, 25, 110, 255]));
}
