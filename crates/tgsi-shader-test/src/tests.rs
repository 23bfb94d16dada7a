//! Unit tests of the runner: parsing every directive, comparisons, counting
//! and the printed report. Shaders here are either invalid on purpose or not
//! needed, so the tests do not depend on the machine.

use super::*;

fn parse(text: &str) -> TestFile {
    match parse_file("t.shader_test", text) {
        Ok(f) => f,
        Err(e) => panic!("parse failed: {e}"),
    }
}

fn parse_err(text: &str) -> ParseError {
    match parse_file("t.shader_test", text) {
        Ok(_) => panic!("expected a parse error"),
        Err(e) => e,
    }
}

fn commands(text: &str) -> Vec<Command> {
    let f = parse(&format!("[test]\n{text}\n"));
    match &f.sections[0].1 {
        Section::Test(t) => t.commands.iter().map(|(_, c)| c.clone()).collect(),
        other => panic!("not a test: {other:?}"),
    }
}

fn run_text(text: &str) -> (FileReport, String) {
    let config = RunConfig::default();
    let report = run_source("t.shader_test", text, &config);
    let mut out = Vec::new();
    write_report(&report, &config, &mut out).unwrap();
    (report, String::from_utf8(out).unwrap())
}

#[test]
fn sections_comments_and_shader_bodies() {
    let f = parse(
        "% leading comment\n# another\n\n[require]\nshader model >= 5.0\ndoubles\nint64\nwave ops\n\
         [compute shader]\nCOMP\n# not a comment inside TGSI\nEND\n\n# trailing comment\n\
         [pixel shader d3d-asm fail]\nps_5_0\n[vertex shader dxbc-tpf-hex]\n43425844\n[geometry shader]\nGEOM\n",
    );
    let kinds: Vec<&Section> = f.sections.iter().map(|(_, s)| s).collect();
    match kinds[0] {
        Section::Require(r) => {
            assert_eq!(r.len(), 4);
            assert_eq!(r[0].1, Requirement::ShaderModel(Compare::GreaterEqual, 50));
            assert_eq!(r[1].1, Requirement::Doubles);
            assert_eq!(r[2].1, Requirement::Int64);
            assert_eq!(r[3].1, Requirement::Unknown("wave ops".into()));
        }
        other => panic!("{other:?}"),
    }
    match kinds[1] {
        Section::Shader(s) => {
            assert_eq!(
                (s.stage, s.language, s.fail, s.line),
                (Stage::Compute, ShaderLanguage::Tgsi, false, 9)
            );
            // Inside a body every line belongs to the shader; only trailing comments are dropped.
            assert_eq!(s.body, "COMP\n# not a comment inside TGSI\nEND\n");
            assert_eq!(&f.source[s.body_offset..s.body_offset + 4], "COMP");
        }
        other => panic!("{other:?}"),
    }
    match kinds[2] {
        Section::Shader(s) => assert_eq!(
            (s.stage, s.language, s.fail),
            (Stage::Fragment, ShaderLanguage::D3dAsm, true)
        ),
        other => panic!("{other:?}"),
    }
    match kinds[3] {
        Section::Shader(s) => assert_eq!(
            (s.stage, s.language),
            (Stage::Vertex, ShaderLanguage::DxbcTpfHex)
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(kinds[4], Section::Shader(s) if s.stage == Stage::Geometry));
}

#[test]
fn resources_sections() {
    let f = parse(
        "[constant 1]\nfloat 1.0 2.0\nuint 0x10 3\n[buffer 2]\nsize 16\nint -1\ndouble 1.5\n[buffer 0]\nuint64 5\nhex ff\n",
    );
    assert_eq!(
        f.sections[0].1,
        Section::Constant {
            index: 1,
            words: vec![0x3f80_0000, 0x4000_0000, 16, 3]
        }
    );
    assert_eq!(
        f.sections[1].1,
        Section::Buffer {
            index: 2,
            size: Some(16),
            words: vec![u32::MAX, 0, 0x3ff8_0000]
        }
    );
    assert_eq!(
        f.sections[2].1,
        Section::Buffer {
            index: 0,
            size: None,
            words: vec![5, 0, 0xff]
        }
    );
    assert!(
        parse_err("[buffer 0]\nsize 4\nuint 1 2\n")
            .message
            .contains("exceed")
    );
    assert!(
        parse_err("[buffer 0]\nuint 1\nsize 4\n")
            .message
            .contains("first line")
    );
    assert_eq!(parse_err("[buffer 0]\nuint 1\nfloat x\n").line, 3);
    assert!(
        parse_err("[constant 0]\nquad 1\n")
            .message
            .contains("unknown value type")
    );
}

#[test]
fn textures_images_samplers() {
    let f = parse(
        "[texture 0]\ntarget 2d\nformat rgba32f\nsize (2, 2)\nlevels 2\n\
         1 0 0 1  0 1 0 1\n0 0 1 1  1 1 1 1\nlevel 1\nfloat 0.5 0.5 0.5 1\n\
         [image 1]\ntarget buffer\nformat r32ui\nsize (4)\nuint 1 2 3 4\n\
         [sampler 0]\nfilter linear nearest none\naddress wrap mirror_once\nborder (1, 0, 0, 1)\n\
         compare less_equal\nlod_bias 0.5\nmin_lod 1\nmax_lod 4\nnormalized_coords false\n",
    );
    match &f.sections[0].1 {
        Section::Texture(t) => {
            assert!(!t.image);
            assert_eq!(
                (t.target, t.format, t.size, t.levels),
                (TextureTarget::D2, TextureFormat::Rgba32Float, [2, 2, 1], 2)
            );
            assert_eq!(t.data[0].words.len(), 16);
            assert_eq!(
                t.data[1].words,
                vec![0x3f00_0000, 0x3f00_0000, 0x3f00_0000, 0x3f80_0000]
            );
        }
        other => panic!("{other:?}"),
    }
    match &f.sections[1].1 {
        Section::Texture(t) => assert!(t.image && t.data[0].words == vec![1, 2, 3, 4]),
        other => panic!("{other:?}"),
    }
    match &f.sections[2].1 {
        Section::Sampler(s) => {
            assert_eq!(
                (s.min_filter, s.mag_filter, s.mip_filter),
                (Filter::Linear, Filter::Nearest, Filter::None)
            );
            assert_eq!(
                s.address,
                [
                    AddressMode::Wrap,
                    AddressMode::MirrorOnce,
                    AddressMode::Clamp
                ]
            );
            assert_eq!(s.border, [1.0, 0.0, 0.0, 1.0]);
            assert_eq!(s.compare, Some(CompareFunc::LessEqual));
            assert_eq!(
                (s.lod_bias, s.min_lod, s.max_lod, s.normalized_coords),
                (0.5, 1.0, 4.0, false)
            );
        }
        other => panic!("{other:?}"),
    }
    let defaults = SamplerSection::new(3);
    assert_eq!(
        (defaults.max_lod, defaults.address[0], defaults.compare),
        (1000.0, AddressMode::Clamp, None)
    );
    // Syntax is validated now even though textures are not run yet.
    assert!(
        parse_err("[texture 0]\ntarget 4d\n")
            .message
            .contains("unknown target")
    );
    assert!(
        parse_err("[texture 0]\ntarget 2d\nformat bgra\n")
            .message
            .contains("unknown format")
    );
    assert!(
        parse_err("[texture 0]\ntarget 2d\nformat r32f\n")
            .message
            .contains("missing `size`")
    );
    assert!(
        parse_err("[texture 0]\ntarget 2d\nformat r32f\nsize (2, 2)\n1 2 3 4 5\n")
            .message
            .contains("4 components")
    );
    assert!(
        parse_err("[texture 0]\ntarget 1d\nformat r32f\nsize (2, 2)\n")
            .message
            .contains("must be 1")
    );
    assert!(
        parse_err("[texture 0]\ntarget 2d\nformat r32f\nsize (2, 2)\nlevels 3\n")
            .message
            .contains("levels")
    );
    assert!(
        parse_err("[sampler 0]\nfilter linear\n")
            .message
            .contains("expected")
    );
    assert!(
        parse_err("[sampler 0]\naddress repeat\n")
            .message
            .contains("unknown address mode")
    );
    assert!(
        parse_err("[sampler 0]\nanisotropy 4\n")
            .message
            .contains("unknown sampler setting")
    );
}

#[test]
fn vertex_data() {
    let f =
        parse("[vertex data]\nIN[0] IN[2]:uint\n1 2 3 4  5 6 7 0xffffffff\n-1 0 0 1  0 0 0 0\n");
    match &f.sections[0].1 {
        Section::VertexData(v) => {
            assert_eq!(
                v.attributes,
                vec![
                    (Attribute::Input(0), ValueType::Float),
                    (Attribute::Input(2), ValueType::Uint)
                ]
            );
            assert_eq!(v.rows.len(), 2);
            assert_eq!(
                v.rows[0][0],
                [0x3f80_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000]
            );
            assert_eq!(v.rows[0][1], [5, 6, 7, u32::MAX]);
            assert_eq!(v.rows[1][0][0], 0xbf80_0000);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        parse_err("[vertex data]\nIN[0]\n1 2 3\n")
            .message
            .contains("expected 4 values")
    );
    assert!(
        parse_err("[vertex data]\nPOSITION+\n")
            .message
            .contains("IN[n]")
    );
    assert!(
        parse_err("[vertex data]\nIN[0] IN[0]\n")
            .message
            .contains("twice")
    );
}

#[test]
fn every_command() {
    let c = commands(
        "uniform 2 float4 1 2 3 4\nuniform 0 uint 7\ndispatch 4 1 2\ndraw quad\ndraw quad 8 4\nrun vertices 3\n\
         probe (1, 2) rgba (1.0, 0.5, 0, 1)\nprobe rect (0, 0, 4, 4) rgba (0, 0, 0, 0) ulp 2\nprobe all rgba (1, 1, 1, 1)\n\
         probe buffer 1 double 8 (1.5, -0.0) ulp 3\nprobe image 0 (1, 2) rgba (1, 2, 3, 4)\n\
         probe vertex 2 OUT[1] int (-1, 0, 1, 2)\nprobe vertex 0 OUT[0] float (1, 2, 3, 4) ulp 1\nexpect error undeclared register",
    );
    assert_eq!(
        c[0],
        Command::Uniform {
            slot: 2,
            words: vec![0x3f80_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000]
        }
    );
    assert_eq!(
        c[1],
        Command::Uniform {
            slot: 0,
            words: vec![7]
        }
    );
    assert_eq!(c[2], Command::Dispatch([4, 1, 2]));
    assert_eq!(c[3], Command::DrawQuad { size: None });
    assert_eq!(c[4], Command::DrawQuad { size: Some([8, 4]) });
    assert_eq!(c[5], Command::RunVertices(3));
    let f = |vals: &[f32], ulp| Expected {
        value_type: ValueType::Float,
        values: vals.iter().map(|v| v.to_bits() as u64).collect(),
        ulp,
    };
    assert_eq!(
        c[6],
        Command::ProbePixel {
            target: 0,
            x: 1,
            y: 2,
            expected: f(&[1.0, 0.5, 0.0, 1.0], None)
        }
    );
    assert_eq!(
        c[7],
        Command::ProbeRect {
            target: 0,
            rect: Some([0, 0, 4, 4]),
            expected: f(&[0.0; 4], Some(2))
        }
    );
    assert_eq!(
        c[8],
        Command::ProbeRect {
            target: 0,
            rect: None,
            expected: f(&[1.0; 4], None)
        }
    );
    assert_eq!(
        c[9],
        Command::ProbeBuffer {
            index: 1,
            offset: 8,
            expected: Expected {
                value_type: ValueType::Double,
                values: vec![1.5f64.to_bits(), (-0.0f64).to_bits()],
                ulp: Some(3)
            }
        }
    );
    assert_eq!(
        c[10],
        Command::ProbeImage {
            index: 0,
            coords: vec![1, 2],
            expected: f(&[1.0, 2.0, 3.0, 4.0], None),
            values_text: "1, 2, 3, 4".to_string()
        }
    );
    assert_eq!(
        c[11],
        Command::ProbeVertex {
            vertex: 2,
            output: 1,
            expected: Expected {
                value_type: ValueType::Int,
                values: vec![u32::MAX as u64, 0, 1, 2],
                ulp: None
            }
        }
    );
    assert_eq!(
        c[12],
        Command::ProbeVertex {
            vertex: 0,
            output: 0,
            expected: f(&[1.0, 2.0, 3.0, 4.0], Some(1))
        }
    );
    assert_eq!(c[13], Command::ExpectError("undeclared register".into()));
    assert!(
        c[3].needs_rendering()
            && c[6].needs_rendering()
            && c[10].needs_rendering()
            && !c[9].needs_rendering()
    );
}

#[test]
fn command_errors_name_their_line() {
    let cases = [
        ("dispatch 1 1", "group count Z"),
        ("dispatch 1 1 1 1", "unexpected `1`"),
        ("draw triangle", "unknown topology"),
        ("draw triangle list", "vertex count"),
        ("draw patch list 0 3", "1 to 32 control points"),
        ("clear rt 0 (1, 2, 3)", "4 colour values"),
        ("clear stencil", "clear rt N"),
        ("depth lesser", "a depth function"),
        ("stencil less 1 2", "READ_MASK"),
        ("blend 0 one zero plus", "a blend operation"),
        ("cull sideways", "a cull mode"),
        ("viewport (0, 0, 4)", "the viewport takes"),
        ("viewport (0, 0, nan, 4)", "must be finite"),
        ("viewport (0, 0, 4, -5)", "must not be negative"),
        ("viewport (0, 0, 4, 4, 0, 2)", "depths must be from 0 to 1"),
        ("scissor (0, inf, 4, 4)", "must be finite"),
        ("probe rt 9 (0, 0) rgba (0, 0, 0, 0)", "out of range"),
        ("probe rt 1 buffer 0 uint 0 (1)", "after `probe rt N`"),
        (
            "probe (0, 0) rgbaui (1.5, 0, 0, 0)",
            "not a 32-bit unsigned",
        ),
        ("probe depth (0, 0) 1.0", "expected `(`"),
        ("run vertices", "vertex count"),
        ("probe buffer 0 uint 0 1 2", "expected `(`"),
        ("probe buffer 0 uint 0 (1, 2", "missing `)`"),
        ("probe buffer 0 uint 0 (1) ulp 2", "`ulp` applies to float"),
        ("probe buffer 0 float 0 (1) ulps 2", "expected `ulp`"),
        ("probe vertex 0 OUT[0] float (1, 2, 3)", "expected 4"),
        ("probe vertex 0 OUT0 float (1, 2, 3, 4)", "OUT[k]"),
        (
            "probe (1) rgba (1, 1, 1, 1)",
            "a pixel or a rectangle takes 2 to 4",
        ),
        (
            "probe (1, 2, 3) rgba (1, 1, 1, 1)",
            "a pixel (X, Y) or a rectangle (X, Y, W, H)",
        ),
        ("probe (1, 1) rgbx (1, 1, 1)", "expected `rgba`"),
        ("probe all rgba (1, 1, 1)", "takes 4 colour value(s)"),
        ("probe sphere", "unknown probe"),
        ("uniform 0 float4 1 2 3", "multiple of 4"),
        ("uniform 0", "value type"),
        ("uniform 0 float4", "expected values after the value type"),
        ("expect errors", "expect error TEXT"),
        ("frobnicate", "unknown command"),
    ];
    for (cmd, want) in cases {
        let e = parse_err(&format!("# c\n[test]\n{cmd}\n"));
        assert_eq!(e.line, 3, "{cmd}");
        assert!(e.message.contains(want), "{cmd}: {}", e.message);
    }
    // the column of the word that stopped the line, else of its first word
    for (cmd, column) in [
        ("frobnicate", 1),
        ("  probe (1, 1) rgbx (1, 1, 1)", 16),
        ("dispatch 1 1 1 1", 16),
        ("cull sideways", 6),
        ("clear rt 0 (1, 2, 3)", 1),
    ] {
        let e = parse_err(&format!("# c\n[test]\n{cmd}\n"));
        assert_eq!((e.line, e.column), (3, column), "{cmd}: {e}");
    }
    assert!(parse_err("[tests]\n").message.contains("unknown section"));
    assert!(
        parse_err("[compute shader fial]\n")
            .message
            .contains("unexpected `fial`")
    );
    assert!(
        parse_err("[tesselation shader]\n")
            .message
            .contains("unknown shader stage")
    );
    assert_eq!(parse_err("hello\n[test]\n").line, 1);
}

#[test]
fn probes_compare_declared_buffers() {
    // No shader is needed to probe a buffer's declared contents.
    let text = "[buffer 0]\nuint 1 2 3 4\nfloat 1.0 -0.0 nan 0x3f800001\n[test]\nprobe buffer 0 uint 0 (1, 2, 3, 4)\n\
                probe buffer 0 float 16 (1.0, 0.0, -nan, 1.0) ulp 1\nprobe buffer 0 uint64 0 (0x200000001)\n\
                [test]\nprobe buffer 0 uint 4 (2, 5)\nprobe buffer 0 float 28 (1.0)\nprobe buffer 0 uint 28 (0, 0)\n";
    let (report, out) = run_text(text);
    assert_eq!(
        report.summary(),
        Summary {
            passed: 1,
            failed: 1,
            skipped: 0
        }
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "t.shader_test:9: probe failed: expected (2, 5) got (2, 3)"
    );
    assert_eq!(
        lines[1],
        "t.shader_test:10: probe failed: expected (1.0) got (1.0000001)"
    );
    assert!(
        lines[2].starts_with("t.shader_test:11: probe failed:")
            && lines[2].contains("outside BUFFER[0]"),
        "{out}"
    );
    assert_eq!(lines.len(), 3);
}

#[test]
fn buffer_size_pads_with_zeros() {
    let (report, _) =
        run_text("[buffer 3]\nsize 12\nuint 9\n[test]\nprobe buffer 3 uint 0 (9, 0, 0)\n");
    assert_eq!(report.summary().passed, 1);
}

#[test]
fn unassemblable_shaders_fail_with_the_reason() {
    let text = "[compute shader]\nCOMP\nNOT_AN_OPCODE TEMP[0]\nEND\n[test]\ndispatch 1 1 1\nprobe buffer 0 uint 0 (1)\n";
    let (report, out) = run_text(text);
    assert_eq!(
        report.summary(),
        Summary {
            passed: 0,
            failed: 1,
            skipped: 0
        }
    );
    assert!(
        out.starts_with("t.shader_test:6: the compute shader (line 1) does not assemble:"),
        "{out}"
    );
    assert!(out.contains("error"), "{out}");
    // Unused, it is still one failed test.
    let (report, out) = run_text("[vertex shader]\nVERT\nBOGUS\n");
    assert_eq!(report.summary().failed, 1);
    assert!(
        out.starts_with("t.shader_test:1: the vertex shader does not assemble"),
        "{out}"
    );
}

#[test]
fn fail_sections_and_expect_error() {
    // A fail section on its own is one test that passes when the shader is rejected.
    let (report, _) = run_text("[compute shader fail]\nCOMP\nBOGUS\n");
    assert_eq!(
        report.summary(),
        Summary {
            passed: 1,
            failed: 0,
            skipped: 0
        }
    );
    // With `expect error`, the [test] is the one test; the text must appear in the diagnostics.
    let (report, _) = run_text("[compute shader fail]\nCOMP\nBOGUS\n[test]\nexpect error error\n");
    assert_eq!(
        report.summary(),
        Summary {
            passed: 1,
            failed: 0,
            skipped: 0
        }
    );
    let (report, out) =
        run_text("[compute shader fail]\nCOMP\nBOGUS\n[test]\nexpect error zzqq-not-there\n");
    assert_eq!(
        report.summary(),
        Summary {
            passed: 0,
            failed: 1,
            skipped: 0
        }
    );
    assert!(
        out.starts_with("t.shader_test:5: expected an error containing \"zzqq-not-there\""),
        "{out}"
    );
    // `expect error` also accepts a normal section that is rejected.
    let (report, _) = run_text("[compute shader]\nCOMP\nBOGUS\n[test]\nexpect error error\n");
    assert_eq!(
        report.summary(),
        Summary {
            passed: 1,
            failed: 0,
            skipped: 0
        }
    );
    // Nothing to check.
    let (report, _) = run_text("[test]\nexpect error x\n");
    assert_eq!(report.summary().failed, 1);
    // Several fail sections, each its own test.
    let (report, _) = run_text("[compute shader fail]\nCOMP\nX\n[vertex shader fail]\nVERT\nY\n");
    assert_eq!(report.summary().passed, 2);
}

#[test]
fn skipped_tests() {
    let cases = [
        "[require]\nwave ops\n[test]\nprobe buffer 0 uint 0 (1)\n",
        "[require]\nshader model >= 6.0\n[test]\n",
    ];
    for text in cases {
        let (report, out) = run_text(text);
        let s = report.summary();
        assert_eq!(s.failed, 0, "{text}\n{out}");
        assert!(s.skipped == 1 && s.passed <= 1, "{text}\n{out}");
        assert!(
            matches!(report.results.last().unwrap().outcome, Outcome::Skipped(_)),
            "{text}"
        );
    }
    // Known requirements are met.
    let (report, _) =
        run_text("[require]\nshader model >= 5.1\nshader model < 6.0\ndoubles\nint64\n[test]\n");
    assert_eq!(report.summary().passed, 1);
    // A later [require] replaces the earlier one.
    let (report, _) = run_text("[require]\nwave ops\n[test]\n[require]\ndoubles\n[test]\n");
    assert_eq!(
        report.summary(),
        Summary {
            passed: 1,
            failed: 0,
            skipped: 1
        }
    );
}

#[test]
fn missing_stage_and_vertex_probe_without_run() {
    let (report, out) = run_text("[test]\ndispatch 1 1 1\n");
    assert_eq!(report.summary().failed, 1);
    assert!(out.contains("no [compute shader]"), "{out}");
    let (report, out) = run_text("[test]\nprobe vertex 0 OUT[0] float (0, 0, 0, 0)\n");
    assert_eq!(report.summary().failed, 1);
    assert!(out.contains("no `run vertices`"), "{out}");
}

#[test]
fn summary_line_and_paths() {
    assert_eq!(
        Summary {
            passed: 3,
            failed: 1,
            skipped: 0
        }
        .to_string(),
        "3 passed, 1 failed"
    );
    assert_eq!(
        Summary {
            passed: 0,
            failed: 0,
            skipped: 2
        }
        .to_string(),
        "0 passed, 0 failed, 2 skipped"
    );
    assert!(
        !Summary {
            passed: 3,
            failed: 1,
            skipped: 0
        }
        .success()
    );

    let dir = std::env::temp_dir().join(format!("tgsi-shader-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a.shader_test"),
        "[buffer 0]\nuint 1\n[test]\nprobe buffer 0 uint 0 (1)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.shader_test"),
        "[test]\nprobe buffer 0 uint 0 (1)\n",
    )
    .unwrap();
    std::fs::write(dir.join("c.shader_test"), "[test]\nbogus\n").unwrap();
    std::fs::write(dir.join("ignored.txt"), "junk").unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub").join("d.shader_test"), "[test]\n").unwrap();
    let mut out = Vec::new();
    let missing = dir.join("missing.shader_test");
    let summary = run_paths(
        &[dir.clone(), missing.clone()],
        &RunConfig::default(),
        &mut out,
    );
    let text = String::from_utf8(out).unwrap();
    assert_eq!(
        summary,
        Summary {
            passed: 2,
            failed: 3,
            skipped: 0
        },
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].ends_with(
            "b.shader_test:2: probe failed: bytes 0..4 are outside BUFFER[0], which holds 0 bytes"
        ),
        "{text}"
    );
    assert!(
        lines[1].contains(
            "c.shader_test:2:1: unknown command `bogus` (expected uniform, dispatch, draw"
        )
    );
    assert!(
        lines[2].contains("missing.shader_test: cannot read"),
        "{text}"
    );
    assert_eq!(*lines.last().unwrap(), "2 passed, 3 failed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn uniforms_persist_and_state_is_per_test() {
    // `uniform` writes land in constant buffer 0; they are not observable without a
    // shader, so check the parse and that running them does not disturb buffers.
    let (report, _) = run_text(
        "[buffer 0]\nuint 5\n[test]\nuniform 1 uint4 1 2 3 4\nprobe buffer 0 uint 0 (5)\n",
    );
    assert_eq!(report.summary().passed, 1);
}

#[test]
fn later_shader_sections_replace_earlier_ones() {
    // The first compute shader does not assemble; the second replaces it, so the
    // first is one failed test, and `expect error` looks at the second.
    let text = "[compute shader]\nCOMP\nBOGUS\n[compute shader]\nCOMP\nEND\n[test]\nexpect error anything\n";
    let (report, out) = run_text(text);
    assert_eq!(
        report.summary(),
        Summary {
            passed: 0,
            failed: 2,
            skipped: 0
        }
    );
    assert!(
        out.contains("t.shader_test:1: the compute shader does not assemble"),
        "{out}"
    );
    assert!(
        out.contains("t.shader_test:8: expected the compute shader (line 4) to be rejected"),
        "{out}"
    );
    // A shader of another stage does not replace it.
    let text =
        "[compute shader]\nCOMP\nBOGUS\n[vertex shader]\nVERT\nEND\n[test]\ndispatch 1 1 1\n";
    let (report, out) = run_text(text);
    assert_eq!(
        report.summary(),
        Summary {
            passed: 0,
            failed: 1,
            skipped: 0
        }
    );
    assert!(
        out.contains("t.shader_test:8: the compute shader (line 1) does not assemble"),
        "{out}"
    );
}

#[test]
fn expect_error_text_forms() {
    assert_eq!(
        commands("expect error \"not declared\"")[0],
        Command::ExpectError("not declared".into())
    );
    assert_eq!(
        commands("expect error")[0],
        Command::ExpectError(String::new())
    );
    // Matching ignores case; the rendered diagnostics (with `error:`) count.
    let (report, _) = run_text("[compute shader fail]\nCOMP\nBOGUS\n[test]\nexpect error ERROR\n");
    assert_eq!(report.summary().passed, 1);
    // A stage header that does not match the shader's processor is an error.
    let (report, out) = run_text("[vertex shader]\nCOMP\nEND\n");
    assert_eq!(report.summary().failed, 1);
    assert!(out.contains("holds a COMP shader"), "{out}");
}

#[test]
fn geometry_and_tessellation_sections_take_part_in_draws() {
    let text = "[fragment shader]\nFRAG\nDCL OUT[0], COLOR\nDCL IMM_NONE_\n";
    // An unassemblable fragment shader fails.
    let (report, _) = run_text(text);
    assert_eq!(report.summary().failed, 1);
    // `run vertices` runs the vertex shader alone beside a geometry shader.
    let text = "[geometry shader]\nGEOM\nEND\n[vertex shader]\nVERT\nEND\n[test]\nrun vertices 1\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().passed, 1, "{out}");
    // A draw runs the geometry shader (this one lacks GS_INPUT_PRIMITIVE).
    let text = format!(
        "[geometry shader]\nGEOM\nEND\n[vertex shader]\nVERT\nEND\n{RED}[test]\ndraw triangle list 3\n"
    );
    let (report, out) = run_text(&text);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(out.contains("GS_INPUT_PRIMITIVE"), "{out}");
    // A hull shader without a domain shader cannot draw.
    let text = format!(
        "[tess control shader]\nTESS_CTRL\nPROPERTY TCS_VERTICES_OUT 1\nEND\n[vertex shader]\nVERT\nEND\n{RED}[test]\ndraw patch list 1 1\n"
    );
    let (_, out) = run_text(&text);
    assert!(out.contains("needs a tessellation-evaluation"), "{out}");
}

#[test]
fn a_draw_reads_only_the_vertex_rows_there_are() {
    let vs = "[vertex shader]\nVERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[0], IN[0]\nEND\n";
    let data = "[vertex data]\nIN[0]\n-1 -1 0 1\n1 -1 0 1\n-1 1 0 1\n";
    let (report, out) = run_text(&format!("{vs}{RED}{data}[test]\ndraw triangle list 3\n"));
    assert_eq!(report.summary().passed, 1, "{out}");
    let (report, out) = run_text(&format!("{vs}{RED}{data}[test]\ndraw triangle list 6\n"));
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(
        out.contains("draw of 6 vertices but [vertex data] has only 3 row(s)"),
        "{out}"
    );
    // without vertex data the vertex shader makes its positions itself
    let no_inputs = "[vertex shader]\nVERT\nDCL OUT[0], POSITION\nIMM[0] FLT32 {0.0, 0.0, 0.0, 1.0}\nMOV OUT[0], IMM[0]\nEND\n";
    let (report, out) = run_text(&format!("{no_inputs}{RED}[test]\ndraw point list 6\n"));
    assert_eq!(report.summary().passed, 1, "{out}");
}

const RED: &str = "[fragment shader]\nFRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {1.0, 0.0, 0.0, 1.0}\nMOV OUT[0], IMM[0]\nEND\n";

#[test]
fn draw_quad_and_pixel_probes() {
    let text = format!(
        "{RED}[test]\ndraw quad\nprobe all rgba (1.0, 0.0, 0.0, 1.0)\nprobe (63, 63) rgba (1, 0, 0, 1)\n\
         probe rect (10, 20, 5, 5) rgba (1, 0, 0, 1)\n"
    );
    let (report, out) = run_text(&text);
    assert_eq!(report.summary().passed, 1, "{out}");
    // A failing probe: the contract's message, one line.
    let text = format!("{RED}[test]\ndraw quad 2 2\nprobe (1, 1) rgba (0.0, 0.0, 0.0, 1.0)\n");
    let (report, out) = run_text(&text);
    assert_eq!(report.summary().failed, 1);
    assert_eq!(
        out.trim_end(),
        "t.shader_test:9: probe failed: expected (0.0, 0.0, 0.0, 1.0) got (1.0, 0.0, 0.0, 1.0)",
    );
    // Outside the target, and before any draw.
    let text = format!("{RED}[test]\ndraw quad 4 4\nprobe rect (2, 2, 3, 1) rgba (1, 0, 0, 1)\n");
    let (_, out) = run_text(&text);
    assert!(out.contains("not inside the 4x4 render target"), "{out}");
    let (_, out) = run_text(&format!("{RED}[test]\nprobe (0, 0) rgba (1, 0, 0, 1)\n"));
    assert!(out.contains("no `draw quad` before this probe"), "{out}");
    // `draw quad` without a fragment shader.
    let (_, out) = run_text("[test]\ndraw quad\n");
    assert!(out.contains("no [fragment shader]"), "{out}");
}

#[test]
fn textures_reach_the_shader_and_images_can_be_probed() {
    // A 2x1 target over a 2x1 texture (default sampler: nearest): pixel x
    // has u = (x + 0.5) / 2 and samples texel x.
    let text = "[fragment shader]\nFRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
                DCL SVIEW[0], 2D, FLOAT\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n\
                [texture 0]\ntarget 2d\nformat rgba32f\nsize (2, 1)\n1 2 3 4  5 6 7 8\n\
                [test]\ndraw quad 2 1\nprobe (0, 0) rgba (1, 2, 3, 4)\nprobe (1, 0) rgba (5, 6, 7, 8)\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().passed, 1, "{out}");
    // An integer image compares integers, including ones a float cannot hold.
    let text = "[compute shader]\nCOMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32G32B32A32_UINT, WR\n\
                IMM[0] UINT32 {1, 0, 0, 0}\nIMM[1] UINT32 {4294967295, 16777217, 3, 0}\n\
                STORE IMAGE[0].xyzw, IMM[0], IMM[1], 2D, PIPE_FORMAT_R32G32B32A32_UINT\nEND\n\
                [image 0]\ntarget 2d\nformat rgba32ui\nsize (2, 1)\n\
                [test]\ndispatch 1 1 1\nprobe image 0 (1, 0) rgba (4294967295, 16777217, 3, 0)\n\
                probe image 0 (0) rgba (0, 0, 0, 0)\n\
                [test]\nprobe image 0 (1, 0) rgba (0, 0, 0, 0)\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().passed, 2, "{out}");
    let text2 = text.replace(
        "rgba (4294967295, 16777217, 3, 0)",
        "rgba (4294967295, 16777216, 3, 0)",
    );
    let (report, out) = run_text(&text2);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(
        out.contains("expected (4294967295, 16777216, 3, 0) got (4294967295, 16777217, 3, 0)"),
        "{out}"
    );
    // Missing image, texel outside it.
    let (_, out) = run_text("[test]\nprobe image 3 (0, 0) rgba (0, 0, 0, 0)\n");
    assert!(out.contains("no [image 3]"), "{out}");
    let text3 = text.replace("probe image 0 (0) rgba", "probe image 0 (2, 0) rgba");
    let (_, out) = run_text(&text3);
    assert!(out.contains("outside IMAGE[0]"), "{out}");
}

/// The contract's example, run end to end on the machine.
const DOUBLING: &str = "[compute shader]\nCOMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..1]\nIMM[0] UINT32 {4, 0, 0, 0}\n\
  0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n  1: LOAD TEMP[1].x, BUFFER[0], TEMP[0].xxxx\n\
  2: UADD TEMP[1].x, TEMP[1].xxxx, TEMP[1].xxxx\n  3: STORE BUFFER[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n  4: END\n\n\
[buffer 0]\nuint 1 2 3 4\n\n";

#[test]
fn dispatch_end_to_end() {
    let text = format!("{DOUBLING}[test]\ndispatch 1 1 1\nprobe buffer 0 uint 0 (2, 4, 6, 8)\n");
    let (report, out) = run_text(&text);
    assert_eq!(
        report.summary(),
        Summary {
            passed: 1,
            failed: 0,
            skipped: 0
        },
        "{out}"
    );
    // Each test starts from the declared contents; within a test, dispatches accumulate.
    let text = format!(
        "{DOUBLING}[test]\ndispatch 1 1 1\ndispatch 1 1 1\nprobe buffer 0 uint 0 (4, 8, 12, 16)\n\
         [test]\ndispatch 1 1 1\nprobe buffer 0 uint 0 (2, 4, 6, 9)\nprobe buffer 0 uint 12 (8)\n"
    );
    let (report, out) = run_text(&text);
    assert_eq!(
        report.summary(),
        Summary {
            passed: 1,
            failed: 1,
            skipped: 0
        },
        "{out}"
    );
    assert_eq!(
        out.trim_end(),
        "t.shader_test:25: probe failed: expected (2, 4, 6, 9) got (2, 4, 6, 8)"
    );
}

#[test]
fn uniforms_reach_constant_buffer_zero_and_persist() {
    let shader = "[compute shader]\nCOMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                  PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL CONST[0][0..1]\nDCL BUFFER[0]\nIMM[0] UINT32 {0, 16, 0, 0}\n\
                  STORE BUFFER[0].xyzw, IMM[0].xxxx, CONST[0][0]\nSTORE BUFFER[0].xyzw, IMM[0].yyyy, CONST[0][1]\nEND\n\
                  [buffer 0]\nsize 32\n[constant 0]\nuint 1 2 3 4\n";
    let text = format!(
        "{shader}[test]\nuniform 1 float4 1.0 2.0 3.0 4.0\ndispatch 1 1 1\nprobe buffer 0 uint 0 (1, 2, 3, 4)\n\
         probe buffer 0 float 16 (1.0, 2.0, 3.0, 4.0)\n[test]\ndispatch 1 1 1\nprobe buffer 0 float 16 (1.0, 2.0, 3.0, 4.0)\n"
    );
    let (report, out) = run_text(&text);
    assert_eq!(
        report.summary(),
        Summary {
            passed: 2,
            failed: 0,
            skipped: 0
        },
        "{out}"
    );
}

#[test]
fn a_texture_the_machine_refuses_fails_the_tests_below_it() {
    // The parser accepts 2 levels for an 8-texel buffer; a buffer resource has one.
    let text = format!(
        "{RED}[texture 1]\ntarget buffer\nformat r32f\nsize (8)\nlevels 2\n[test]\ndraw quad 2 2\n"
    );
    let (report, out) = run_text(&text);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(out.starts_with("t.shader_test:7: [texture 1]: "), "{out}");
    assert!(out.contains("one level"), "{out}");
}

/// What an unknown or unmet `[require]` line is in force over is skipped,
/// never judged: a `fail` section that assembles does not fail and one that
/// is rejected does not pass; a shader that does not assemble fails no test.
#[test]
fn requirements_skip_the_shader_sections_below_them() {
    let cases = [
        ("[require]\nwave ops\n[compute shader fail]\nCOMP\nEND\n", 1),
        (
            "[require]\nwave ops\n[compute shader fail]\nCOMP\nBOGUS\n",
            1,
        ),
        (
            "[require]\nshader model >= 6.0\n[compute shader]\nCOMP\nBOGUS\n[test]\ndispatch 1 1 1\n",
            1,
        ),
    ];
    for (text, skipped) in cases {
        let (report, out) = run_text(text);
        let s = report.summary();
        assert_eq!(
            (s.passed, s.failed, s.skipped),
            (0, 0, skipped),
            "{text}\n{out}"
        );
    }
    // a requirement met again below: judged as usual
    let (report, out) =
        run_text("[require]\nwave ops\n[require]\ndoubles\n[compute shader fail]\nCOMP\nBOGUS\n");
    assert_eq!(report.summary().passed, 1, "{out}");
}

/// A `fail` section holding another stage's shader is rejected, as the
/// same shader in a plain section is.
#[test]
fn a_fail_section_of_the_wrong_stage_is_rejected() {
    for text in [
        "[vertex shader fail]\nFRAG\nDCL OUT[0], COLOR\nMOV OUT[0], IMM[0]\nEND\n",
        "[vertex shader fail]\nFRAG\nEND\n",
        "[vertex shader d3d-asm fail]\nps_5_0\nret\n",
    ] {
        let (report, out) = run_text(text);
        assert_eq!(report.summary().passed, 1, "{text}\n{out}");
    }
    // the right stage still assembles, so the fail section fails
    let (report, out) = run_text("[vertex shader d3d-asm fail]\nvs_5_0\nret\n");
    assert_eq!(report.summary().failed, 1, "{out}");
}

/// Depth and stencil probes report in the contract's form.
#[test]
fn depth_and_stencil_probes_print_expected_and_got_in_parentheses() {
    let text = "[depth target]\nformat d24s8\nsize (4, 4)\n[test]\n\
                probe depth (0, 0) (0.5)\nprobe stencil (0, 0) 3\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(
        out.contains("t.shader_test:5: probe failed: expected (0.5) got (1.0)"),
        "{out}"
    );
    assert!(
        out.contains("t.shader_test:6: probe failed: expected (3) got (0)"),
        "{out}"
    );
}

/// An RGBA8 image's texel passes within 1/255, as a target's pixel does;
/// with `ulp 0` only its decoded value passes.
#[test]
fn unorm_image_texels_compare_within_one_step() {
    let text = "[compute shader]\nCOMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL IMAGE[0], 2D, PIPE_FORMAT_R8G8B8A8_UNORM, WR\n\
                IMM[0] UINT32 {0, 0, 0, 0}\nIMM[1] FLT32 {0.5, 0.2, 1.0, 0.0}\n\
                STORE IMAGE[0].xyzw, IMM[0], IMM[1], 2D, PIPE_FORMAT_R8G8B8A8_UNORM\nEND\n\
                [image 0]\ntarget 2d\nformat rgba8\nsize (1, 1)\n\
                [test]\ndispatch 1 1 1\nprobe image 0 (0, 0) rgba (0.5, 0.2, 1.0, 0.0)\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().passed, 1, "{out}");
    let off = text.replace("rgba (0.5, 0.2", "rgba (0.51, 0.2");
    let (report, out) = run_text(&off);
    assert_eq!(report.summary().failed, 1, "{out}");
    // `ulp 0` asks for the decoded value exactly: 128/255, not 0.5
    let exact = text.replace("1.0, 0.0)\n", "1.0, 0.0) ulp 0\n");
    let (report, out) = run_text(&exact);
    assert_eq!(report.summary().failed, 1, "{out}");
    let decoded = exact.replace("rgba (0.5, 0.2", "rgba (0.5019608, 0.2");
    let (report, out) = run_text(&decoded);
    assert_eq!(report.summary().passed, 1, "{out}");
}

#[cfg(unix)]
#[test]
fn a_directory_linked_into_itself_is_read_once() {
    let dir = std::env::temp_dir().join(format!("tgsi-expand-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("a.shader_test"), "").unwrap();
    std::fs::write(dir.join("sub/b.shader_test"), "").unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("sub/up")).unwrap();
    let files = crate::expand_path(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let names: Vec<_> = files
        .iter()
        .map(|f| f.strip_prefix(&dir).unwrap())
        .collect();
    assert_eq!(
        names,
        [Path::new("a.shader_test"), Path::new("sub/b.shader_test")]
    );
}

/// `tests/shader/d3d/runner.shader_test`'s compute container, five lines.
const CS_HEX: &str = "43425844 50431d73 f2af3bf1 7bf166dc 7f83e9b9 00000001 000000fc 00000003
0000002c 0000003c 0000004c 4e475349 00000008 00000000 00000008 4e47534f
00000008 00000000 00000008 58454853 000000a8 00050050 0000002a 0100086a
04000059 00208e46 00000000 00000001 0300009d 0011e000 00000001 0200005f
00024000 02000068 00000001 0400009b 00000002 00000002 00000001 06000029
00100012 00000000 0002400a 00004001 00000002 0a000023 00100022 00000000
0002400a 0020800a 00000000 00000000 0020801a 00000000 00000000 070000a6
0011e012 00000001 0010000a 00000000 0010001a 00000000 0100003e
";

#[test]
fn hex_section_errors_name_the_line_and_column_of_the_word() {
    let section = |hex: &str| {
        format!("# a comment\n[compute shader dxbc-tpf-hex]\n{hex}\n[test]\ndispatch 1 1 1\n")
    };
    let (_, out) = run_text(&section(&CS_HEX.replace("0400009b", "0400009g")));
    assert!(
        out.contains("t.shader_test:7:28: `0400009g` is not a 32-bit word of 8 hex digits"),
        "{out}"
    );
    // an unsigned container (zero checksum) whose word 35 is no opcode
    let unsigned = CS_HEX
        .replace(
            "50431d73 f2af3bf1 7bf166dc 7f83e9b9",
            "00000000 00000000 00000000 00000000",
        )
        .replace("0400009b", "040001ff");
    let (_, out) = run_text(&section(&unsigned));
    assert!(
        out.contains("byte offset 140 (0x8c) at t.shader_test:7:28: unknown opcode"),
        "{out}"
    );
}

#[test]
fn a_direct3d_shaders_run_error_names_its_direct3d_instruction() {
    let text = "[compute shader d3d-asm]\ncs_5_0\ndcl_thread_group 1, 1, 1\nloop\nendloop\nret\n[test]\ndispatch 1 1 1\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(
        out.contains("exhausted at instruction")
            && out.contains("(in Direct3D instruction 2: `endloop`)"),
        "{out}"
    );
}

/// A draw's error names the Direct3D instruction of the stage that
/// failed: the pixel shader's here, after a vertex shader that ran.
#[test]
fn a_direct3d_draws_error_names_its_stages_direct3d_instruction() {
    let text = "[vertex shader d3d-asm]\nvs_5_0\ndcl_input v0.xyzw\n\
        dcl_output_siv o0.xyzw, position\nmov o0.xyzw, v0.xyzw\nret\n\
        [pixel shader d3d-asm]\nps_5_0\ndcl_output o0.xyzw\ndcl_temps 1\n\
        mov r0.x, l(0)\nloop\niadd r0.x, r0.x, l(1)\nendloop\nmov o0.xyzw, r0.xxxx\nret\n\
        [vertex data]\nTEXCOORD0\n-1 -1 0 1\n3 -1 0 1\n-1 3 0 1\n\
        [test]\ndraw triangle list 3\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(
        out.contains("exhausted at instruction")
            && out.contains("(in Direct3D instruction 4: `iadd r0.x, r0.x, l(1)`)"),
        "{out}"
    );
}

#[test]
fn a_texture_level_past_the_resources_levels_is_refused_where_it_is_named() {
    let text = "[texture 0]\ntarget 2d\nformat rgba32f\nsize (4, 4)\nlevels 3\nlevel 4294967295\n1 2 3 4\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(
        out.contains("t.shader_test:6:1: level 4294967295: the resource has 3 level(s)"),
        "{out}"
    );
}

#[test]
fn a_file_without_sections_fails() {
    for text in ["", "# only a comment\n\n"] {
        let (report, out) = run_text(text);
        assert_eq!(report.summary().failed, 1, "{out}");
        assert!(
            out.contains("t.shader_test:1: the file holds no section"),
            "{out}"
        );
    }
}

#[test]
fn too_many_texel_values_are_refused_at_the_line_that_overflows() {
    let text = "[texture 0]\ntarget 2d\nformat r32f\nsize (2, 1)\nfloat 1\nfloat 2\nfloat 3\n";
    let (report, out) = run_text(text);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert!(
        out.contains("t.shader_test:7:1: level 0 holds 2 components but 3 values were given"),
        "{out}"
    );
}

#[test]
fn a_file_that_is_not_utf8_names_the_byte_and_line() {
    let path = std::env::temp_dir().join(format!("tgsi-latin1-{}.shader_test", std::process::id()));
    std::fs::write(&path, b"[test]\n# caf\xe9\n").unwrap();
    let mut out = Vec::new();
    let summary = run_paths(std::slice::from_ref(&path), &RunConfig::default(), &mut out);
    std::fs::remove_file(&path).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(summary.failed, 1, "{text}");
    assert!(
        text.contains(":2: byte 12: the file is not valid UTF-8 text"),
        "{text}"
    );
}

#[test]
fn a_directory_without_tests_fails() {
    let dir = std::env::temp_dir().join(format!("tgsi-no-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a test").unwrap();
    let mut out = Vec::new();
    let summary = run_paths(std::slice::from_ref(&dir), &RunConfig::default(), &mut out);
    std::fs::remove_dir_all(&dir).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!((summary.passed, summary.failed), (0, 1), "{text}");
    assert!(
        text.contains("the directory holds no .shader_test file"),
        "{text}"
    );
}

#[test]
fn a_test_of_many_failing_probes_prints_the_first_hundred() {
    let probes = "probe buffer 0 uint 0 (1)\n".repeat(150);
    let text = format!(
        "[buffer 0]\nsize 4\n[compute shader]\nCOMP\nEND\n[test]\ndispatch 1 1 1\n{probes}"
    );
    let (report, out) = run_text(&text);
    assert_eq!(report.summary().failed, 1, "{out}");
    assert_eq!(
        out.matches("probe failed").count(),
        MAX_MESSAGES_PER_TEST,
        "{out}"
    );
    assert!(
        out.contains("(50 more failure message(s) of this test not shown)"),
        "{out}"
    );
}

/// A buffer's `size` may reach 1 GiB (one resource's limit); the data
/// given in a section is limited to 2^28 bytes.
#[test]
fn a_buffer_size_reaches_one_gib() {
    parse("[buffer 0]\nsize 1073741824\n");
    let e = parse_err("[buffer 0]\nsize 1073741828\n");
    assert!(
        e.to_string()
            .contains("a buffer of 1073741828 bytes is more than the runner's limit"),
        "{e}"
    );
}
