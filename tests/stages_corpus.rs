//! Every GEOM, TESS_CTRL and TESS_EVAL shader of the bundled TGSI corpus
//! (`tests/fixtures/corpus`) runs through the stage APIs on synthetic inputs
//! without an error: geometry shaders on two primitives of their input
//! primitive, tessellation-control shaders on two 3-point patches,
//! tessellation-evaluation shaders on the points of their own tessellator
//! settings (factors 3). Legacy shaders the assembler refuses are skipped.

mod common;

use std::path::Path;

use tgsi::enums::{Primitive, Processor, PropertyName};
use tgsi::exec::{GeometryInput, Limits, PatchInput, Resources, TessEvalPatch};
use tgsi::pipeline::tessellator::tessellate;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/corpus");

fn vertices(n: usize) -> Vec<Vec<[u32; 4]>> {
    (0..n)
        .map(|k| {
            (0..32)
                .map(|a| [k as f32 + a as f32 / 4.0, 1.0, 0.5, 1.0].map(f32::to_bits))
                .collect()
        })
        .collect()
}

#[test]
fn corpus_geometry_and_tessellation_shaders_run() {
    let paths = common::files_under(Path::new(CORPUS), &["tgsi"]);
    assert!(!paths.is_empty(), "corpus missing at {CORPUS}");
    let limits = Limits {
        max_instructions: 200_000,
        ..Limits::default()
    };
    let mut ran = 0;
    let mut refused = 0;
    let mut failures = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        if !matches!(first, "GEOM" | "TESS_CTRL" | "TESS_EVAL") {
            continue;
        }
        let name = path.display().to_string();
        let shader = match tgsi::assemble(&text) {
            Ok((s, _)) => s,
            // legacy/ holds old syntax Mesa refuses (EMIT without a stream):
            // refused with an error, which is that folder's contract
            Err(_) if name.contains("/legacy/") => {
                refused += 1;
                continue;
            }
            Err(e) => {
                failures.push(format!("{name}: assemble: {}", e.render(&name, &text)));
                continue;
            }
        };
        let program = match tgsi::jit::compile(&shader, tgsi::exec::Numerics::Ieee) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: compile: {e}"));
                continue;
            }
        };
        let mut res = Resources {
            constants: vec![vec![0; 4 * 64]; 4],
            ..Resources::default()
        };
        let r = match shader.processor {
            Processor::Geometry => {
                let n = program
                    .property(PropertyName::GsInputPrimitive)
                    .and_then(Primitive::from_u32)
                    .map_or(1, |p| p.vertices_per_primitive()) as usize;
                let v = vertices(2 * n);
                let indices: Vec<u32> = (0..2 * n as u32).collect();
                program
                    .run_geometry(
                        &mut res,
                        &GeometryInput {
                            vertices: (&v).into(),
                            indices: &indices,
                            primitive_ids: &[],
                        },
                        &limits,
                    )
                    .map(|o| assert!(o.streams[0].vertices > 0, "{name}: nothing emitted"))
            }
            Processor::TessCtrl => {
                let v = vertices(6);
                program
                    .run_tess_ctrl(
                        &mut res,
                        &PatchInput {
                            vertices: (&v).into(),
                            indices: &[0, 1, 2, 3, 4, 5],
                            control_points: 3,
                            primitive_ids: &[],
                        },
                        &limits,
                    )
                    .map(|o| assert_eq!(o.patches.len(), 2))
            }
            _ => match program.tessellator_settings() {
                Err(e) => Err(e),
                Ok(s) => {
                    let t = tessellate(&s, &[3.0; 4], &[3.0; 2]).expect("not culled");
                    let patch = TessEvalPatch {
                        control_points: vertices(3),
                        ..TessEvalPatch::default()
                    };
                    program
                        .run_tess_eval(&mut res, &patch, &t.points, &limits)
                        .map(|(o, _)| assert_eq!(o.len(), t.points.len()))
                }
            },
        };
        match r {
            Ok(()) => ran += 1,
            Err(e) => failures.push(format!("{name}: run: {e}")),
        }
    }
    eprintln!(
        "ran {ran} corpus geometry/tessellation shaders ({refused} legacy ones refused by the assembler)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 6, "only {ran} shaders");
}
