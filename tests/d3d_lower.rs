//! Every SM4/SM5 program of the Direct3D corpus (`tests/fixtures/d3d`:
//! vertex, pixel, geometry, hull, domain and compute shaders, SM4 and SM5,
//! library functions and the shaders effects embed) lowers to TGSI that the
//! validator accepts without errors, and whose printed text (with the
//! `; <d3d instruction>` comments) assembles back to the same shader. The
//! vertex, compute and pixel programs then run on the machine with zeroed
//! inputs and zero-filled resources.

mod common;

use tgsi::d3d::decode_program;
use tgsi::d3d::enums::ProgramType;
use tgsi::d3d::lower::{D3dSlot, Lowered, container_programs, lower};
use tgsi::enums::{File, Processor, TextureTarget};
use tgsi::exec::{Draw, Limits, Resources};
use tgsi::texture::{Format, Sampler, Texture};

/// Programs whose D3D code loops forever when every constant is 0 (so the
/// machine stops them at its instruction budget), with the loop.
const NEVER_ENDING: &[(&str, &str)] = &[
    (
        "AdvancedHLSL_VS.o",
        "`loop; lt r3.x, cb0[0].x, r1.x; if_nz r3.x; break; endif; add r1, r1, cb0[0]; endloop` never breaks with cb0 = 0",
    ),
    (
        "AdvancedHLSL_FX.o",
        "the same vertex shader, embedded in the effect",
    ),
];

struct Lowered1 {
    name: String,
    program_type: ProgramType,
    lowered: Lowered,
}

fn lower_corpus() -> (Vec<Lowered1>, Vec<String>) {
    let files = common::corpus_files(common::BLOBS);
    assert!(files.len() > 200, "corpus missing: {} blobs", files.len());
    let mut done = Vec::new();
    let mut failures = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let rel = common::relative(f);
        let programs = container_programs(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for (k, p) in programs.iter().enumerate() {
            let name = format!("{rel} program {k}");
            let program = decode_program(&p.payload).unwrap_or_else(|e| panic!("{name}: {e}"));
            match lower(&program, &p.signatures) {
                Ok(lowered) => {
                    let diags = tgsi::validate::validate(&lowered.shader, None);
                    if diags.has_errors() {
                        let text = lowered.to_text(&program);
                        failures.push(format!(
                            "{name}: validation:\n{}\n{}",
                            diags.render(&name, ""),
                            text
                        ));
                        continue;
                    }
                    let text = lowered.to_text(&program);
                    match tgsi::assemble(&text) {
                        Ok((shader, _)) => {
                            if shader != lowered.shader {
                                failures.push(format!(
                                    "{name}: the printed text reads back differently"
                                ));
                                continue;
                            }
                        }
                        Err(d) => {
                            failures.push(format!(
                                "{name}: re-assembly: {}\n{text}",
                                d.render(&name, &text)
                            ));
                            continue;
                        }
                    }
                    if lowered.origins.len() != lowered.shader.instructions().count() {
                        failures.push(format!("{name}: origin map length"));
                        continue;
                    }
                    done.push(Lowered1 {
                        name,
                        program_type: program.version.program_type,
                        lowered,
                    });
                }
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    (done, failures)
}

#[test]
fn every_corpus_program_lowers_validates_and_reassembles() {
    let (done, failures) = lower_corpus();
    let mut by_type = std::collections::BTreeMap::new();
    for d in &done {
        *by_type.entry(format!("{:?}", d.program_type)).or_insert(0) += 1;
    }
    eprintln!("lowered {} programs ({by_type:?})", done.len());
    if !failures.is_empty() {
        let summary: Vec<String> = failures
            .iter()
            .map(|f| f.lines().take(3).collect::<Vec<_>>().join(" | "))
            .collect();
        panic!(
            "{} programs failed:\n{}\n\nfirst in full:\n{}",
            failures.len(),
            summary.join("\n"),
            failures[0]
        );
    }
    assert!(done.len() >= 402, "only {} programs lowered", done.len());
}

/// Resources for a run: zeroed constant buffers, buffers and images of a
/// few kilobytes, 4x4 zero textures of each declared target, and samplers
/// with a compare function for comparison samplers.
fn resources(l: &Lowered) -> Resources {
    let mut res = Resources::default();
    let grow = |v: usize, n: &mut usize| *n = (*n).max(v + 1);
    let (mut consts, mut buffers, mut images, mut textures, mut samplers) = (0, 0, 0, 0, 0);
    for b in &l.bindings {
        let i = b.index as usize;
        match b.file {
            File::Const => grow(i, &mut consts),
            File::Buffer => grow(i, &mut buffers),
            File::Image => grow(i, &mut images),
            File::SamplerView => grow(i, &mut textures),
            File::Sampler => {
                grow(i, &mut samplers);
                grow(i, &mut textures);
            }
            _ => {}
        }
    }
    res.constants = vec![vec![0; 4 * 4096]; consts];
    res.buffers = vec![vec![0; 4096]; buffers];
    res.samplers = vec![Sampler::default(); samplers];
    res.textures = vec![None; textures];
    res.images = vec![None; images];
    for d in l.shader.declarations() {
        let i = d.first as usize;
        if let Some(v) = &d.sampler_view {
            res.textures[i] = Some(texture_for(v.target));
        }
        if let Some(img) = &d.image {
            res.images[i] = Some(texture_with(img.target, Format::R32Uint));
        }
    }
    for b in &l.bindings {
        if let (D3dSlot::TextureWithSampler { texture, .. }, File::Sampler) = (b.slot, b.file) {
            let target = l
                .shader
                .declarations()
                .find(|d| d.file == File::SamplerView && d.first == texture)
                .and_then(|d| d.sampler_view)
                .map_or(TextureTarget::Tex2D, |v| v.target);
            res.textures[b.index as usize] = Some(texture_for(target));
        }
    }
    for s in &mut res.samplers {
        s.compare = Some(tgsi::texture::CompareFunc::Less);
    }
    res
}

fn texture_for(target: TextureTarget) -> Texture {
    texture_with(target, Format::Rgba32Float)
}

fn texture_with(target: TextureTarget, format: Format) -> Texture {
    let (size, layers) = match target {
        TextureTarget::Buffer => ([64, 1, 1], 1),
        TextureTarget::Tex1D => ([4, 1, 1], 1),
        TextureTarget::Array1D => ([4, 1, 1], 2),
        TextureTarget::Tex3D => ([4, 4, 4], 1),
        TextureTarget::Cube | TextureTarget::ShadowCube => ([4, 4, 1], 6),
        TextureTarget::CubeArray | TextureTarget::ShadowCubeArray => ([4, 4, 1], 12),
        TextureTarget::Array2D | TextureTarget::Msaa2DArray => ([4, 4, 1], 2),
        _ => ([4, 4, 1], 1),
    };
    let samples = match target {
        TextureTarget::Msaa2D | TextureTarget::Msaa2DArray => 4,
        _ => 1,
    };
    Texture::new(target, format, size, layers, 1, samples).expect("a small texture")
}

#[test]
fn vertex_compute_and_pixel_programs_run_on_zeroed_inputs() {
    let (done, _) = lower_corpus();
    let limits = Limits {
        max_instructions: 200_000,
        ..Limits::default()
    };
    let (mut vs, mut cs, mut ps) = (0, 0, 0);
    let mut failures = Vec::new();
    for d in &done {
        let processor = d.lowered.shader.processor;
        if !matches!(
            processor,
            Processor::Vertex | Processor::Compute | Processor::Fragment
        ) {
            continue;
        }
        let program = match tgsi::jit::compile(&d.lowered.shader, tgsi::exec::Numerics::Direct3D) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: compile: {}", d.name, e.message));
                continue;
            }
        };
        let mut res = resources(&d.lowered);
        let r = match processor {
            Processor::Vertex => {
                vs += 1;
                program.run_vertices(&mut res, &[], 4, &limits).map(|_| ())
            }
            Processor::Compute => {
                cs += 1;
                program.dispatch(&mut res, [1, 1, 1], &limits)
            }
            _ => {
                ps += 1;
                program
                    .shade(&mut res, &Draw::full_quad(4, 4), 8, &limits)
                    .map(|_| ())
            }
        };
        match r {
            Err(e) if e.message.contains("instruction budget") => {
                if !NEVER_ENDING.iter().any(|(n, _)| d.name.contains(n)) {
                    failures.push(format!("{}: run: {}", d.name, e.message));
                }
            }
            Err(e) => failures.push(format!("{}: run: {}", d.name, e.message)),
            Ok(()) => {}
        }
    }
    eprintln!("ran {vs} vertex, {cs} compute, {ps} pixel programs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(vs > 50 && cs > 10 && ps > 100, "vs {vs} cs {cs} ps {ps}");
}

use common::run_tgsi as tgsi;

#[test]
fn tgsi_lower_prints_text_that_tgsi_check_accepts() {
    let dir = std::env::temp_dir().join(format!("tgsi-lower-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("ps.tgsi");
    let out = out.to_str().unwrap();
    // a blob
    let blob = "tests/fixtures/d3d/dxdecompiler/HlslCrossCompiler/apps/Subroutines_PS.o";
    let (code, _, err) = tgsi(&["lower", blob, "-o", out]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(out).unwrap();
    assert!(text.starts_with("FRAG\n"), "{text}");
    assert!(text.contains("; fcall fp0[0][0]\n"), "{text}");
    let (code, _, err) = tgsi(&["check", out]);
    assert_eq!(code, 0, "{err}");
    // the fxc listing beside it lowers to the same text
    let listing = blob.replace(".o", ".asm");
    let (code, from_text, err) = tgsi(&["lower", &listing]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(from_text, text);
    // a library: one program after another, each after a `; program` line
    let lib = "tests/fixtures/d3d/dxdecompiler/Internal/Misc/LibraryTest_5_0.o";
    let (code, all, err) = tgsi(&["lower", lib]);
    assert_eq!(code, 0, "{err}");
    assert!(all.matches("; program ").count() > 1, "{all}");
    let many = dir.join("lib.tgsi");
    let (code, _, err) = tgsi(&["lower", lib, "-o", many.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let first = dir.join("lib.0.tgsi");
    let (code, _, err) = tgsi(&["check", first.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tgsi_lower_reports_an_invalid_program_where_check_does() {
    let dir = std::env::temp_dir().join(format!("tgsi-lower-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("beyond_temps.asm");
    std::fs::write(&path, "ps_5_0\ndcl_temps 1\nmov r3.x, l(0)\nret\n").unwrap();
    let (code, _, err) = tgsi(&["lower", path.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("beyond_temps.asm:3:5"), "{err}");
    assert!(err.contains("`dcl_temps 1` declares r0 to r0"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SV_InnerCoverage lowers to "every sample of the pixel is covered": 1
/// under `draw quad` (full coverage), read through SAMPLE_INFO of the
/// render target.
#[test]
fn inner_coverage_is_full_sample_coverage() {
    let blob = "tests/fixtures/d3d/dxdecompiler/Internal/RasterOrderViews.o";
    let (code, out, err) = tgsi(&["lower", blob]);
    assert_eq!(code, 0, "{err}");
    let at = out
        .find("; dcl_input vInnerCoverage")
        .expect("the declaration's lines");
    let lines: Vec<&str> = out[at..].lines().skip(1).take(5).collect();
    for (line, op) in lines
        .iter()
        .zip(["SAMPLE_INFO", "SHL", "UADD", "USEQ", "AND"])
    {
        assert!(line.contains(op), "{line} should be {op}");
    }
}

/// Damaged programs (a declaration or an instruction removed, the program
/// cut short, operands dropped) give a result or a `LowerError`, never a
/// panic. (Every program with every instruction damaged was checked once;
/// the test keeps a sample.)
#[test]
fn damaged_programs_never_panic() {
    let files = common::corpus_files(common::BLOBS);
    let mut tried = 0usize;
    for f in files.iter().step_by(7) {
        let bytes = std::fs::read(f).unwrap();
        let Ok(programs) = container_programs(&bytes) else {
            continue;
        };
        for p in programs.iter().take(2) {
            let Ok(program) = decode_program(&p.payload) else {
                continue;
            };
            let n = program.instructions.len();
            for k in (0..n).step_by(3) {
                let mut without = program.clone();
                without.instructions.remove(k);
                let _ = lower(&without, &p.signatures);
                let mut cut = program.clone();
                cut.instructions.truncate(k);
                let _ = lower(&cut, &p.signatures);
                let mut fewer = program.clone();
                fewer.instructions[k].operands.pop();
                let _ = lower(&fewer, &p.signatures);
                tried += 3;
            }
        }
    }
    assert!(tried > 1000, "only {tried} damaged programs");
}

/// Synthetic vertices: `n` vertices of 32 attributes, vertex k attribute a
/// = (k + a/4, 1, -k, 1).
fn synthetic_vertices(n: usize) -> Vec<Vec<[u32; 4]>> {
    (0..n)
        .map(|k| {
            (0..32)
                .map(|a| [k as f32 + a as f32 / 4.0, 1.0, -(k as f32), 1.0].map(f32::to_bits))
                .collect()
        })
        .collect()
}

#[test]
fn geometry_hull_and_domain_programs_run_on_synthetic_inputs() {
    use tgsi::exec::{GeometryInput, Numerics, PatchInput, TessEvalPatch};
    use tgsi::pipeline::tessellator::tessellate;
    let (done, _) = lower_corpus();
    let limits = Limits {
        max_instructions: 200_000,
        ..Limits::default()
    };
    let (mut gs, mut hs, mut ds) = (0, 0, 0);
    let mut failures = Vec::new();
    for d in &done {
        let processor = d.lowered.shader.processor;
        if !matches!(
            processor,
            Processor::Geometry | Processor::TessCtrl | Processor::TessEval
        ) {
            continue;
        }
        let program = match tgsi::jit::compile(&d.lowered.shader, Numerics::Direct3D) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: compile: {}", d.name, e.message));
                continue;
            }
        };
        let mut res = resources(&d.lowered);
        let r = match processor {
            Processor::Geometry => {
                gs += 1;
                // two primitives of the declared input primitive
                let n = program
                    .property(tgsi::enums::PropertyName::GsInputPrimitive)
                    .and_then(tgsi::enums::Primitive::from_u32)
                    .map_or(1, |p| p.vertices_per_primitive()) as usize;
                let vertices = synthetic_vertices(2 * n);
                let indices: Vec<u32> = (0..2 * n as u32).collect();
                program
                    .run_geometry(
                        &mut res,
                        &GeometryInput {
                            vertices: (&vertices).into(),
                            indices: &indices,
                            primitive_ids: &[7, 8],
                        },
                        &limits,
                    )
                    .map(|_| ())
            }
            Processor::TessCtrl => {
                hs += 1;
                let tess = d.lowered.tessellator.expect("hull settings");
                if let Err(e) = tess.settings() {
                    failures.push(format!("{}: settings: {e}", d.name));
                }
                let c = tess.input_control_points.clamp(1, 32) as usize;
                let vertices = synthetic_vertices(2 * c);
                let indices: Vec<u32> = (0..2 * c as u32).collect();
                program
                    .run_tess_ctrl(
                        &mut res,
                        &PatchInput {
                            vertices: (&vertices).into(),
                            indices: &indices,
                            control_points: c,
                            primitive_ids: &[],
                        },
                        &limits,
                    )
                    .map(|_| ())
            }
            _ => {
                ds += 1;
                let settings = match program.tessellator_settings() {
                    Ok(s) => s,
                    Err(e) => {
                        failures.push(format!("{}: settings: {}", d.name, e.message));
                        continue;
                    }
                };
                let t = tessellate(&settings, &[3.0; 4], &[3.0; 2]).expect("not culled");
                let patch = TessEvalPatch {
                    control_points: synthetic_vertices(16),
                    patch: synthetic_vertices(1).remove(0),
                    outer: [3.0; 4],
                    inner: [3.0; 2],
                    primitive_id: 0,
                };
                program
                    .run_tess_eval(&mut res, &patch, &t.points, &limits)
                    .map(|_| ())
            }
        };
        match r {
            Err(e) if e.message.contains("instruction budget") => {}
            Err(e) => failures.push(format!("{}: run: {}", d.name, e.message)),
            Ok(()) => {}
        }
    }
    eprintln!("ran {gs} geometry, {hs} hull, {ds} domain programs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(gs >= 5 && hs >= 5 && ds >= 5, "{gs} {hs} {ds}");
}
