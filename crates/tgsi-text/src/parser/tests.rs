//! The assembler's tests: every construct, the corpus, and its errors.

use super::*;

fn ok(src: &str) -> Shader {
    match parse(src) {
        Ok((s, _)) => s,
        Err(d) => panic!("{}", d.render("test.tgsi", src)),
    }
}

fn err(src: &str) -> String {
    match parse(src) {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(d) => d.render("test.tgsi", src),
    }
}

fn first_inst(s: &Shader) -> &Instruction {
    s.instructions().next().unwrap()
}

fn first_decl(s: &Shader) -> &Declaration {
    s.declarations().next().unwrap()
}

fn corpus_files(sub: &str) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/corpus")
        .join(sub);
    let mut out = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "tgsi") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_accepted_and_generated_corpus_file_parses() {
    let mut files = corpus_files("accepted");
    files.extend(corpus_files("mesa-generated"));
    assert!(
        files.len() >= 300,
        "corpus not found: {} files",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        if let Err(d) = parse(&src) {
            failures.push(d.render(&f.display().to_string(), &src));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn every_legacy_corpus_file_parses_or_has_located_errors() {
    let files = corpus_files("legacy");
    assert!(files.len() >= 90, "legacy corpus not found");
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        if let Err(d) = parse(&src) {
            assert!(!d.0.is_empty());
            for diag in &d.0 {
                assert!(diag.primary.is_some(), "{}: {}", f.display(), diag.message);
            }
        }
    }
}

#[test]
fn header_and_processors() {
    assert_eq!(ok("FRAG\nEND\n").processor, Processor::Fragment);
    assert_eq!(ok("tess_ctrl END").processor, Processor::TessCtrl);
    assert_eq!(ok("FRAG1.1\nEND\n").processor, Processor::Fragment);
    assert!(err("DCL IN[0]\nEND\n").contains("missing header"));
    assert!(err("FRAGG\nEND\n").contains("did you mean `FRAG`"));
}

#[test]
fn instruction_numbers_and_labels() {
    let s = ok(
        "FRAG\n  0: UIF TEMP[0].xxxx :2\n  1:   KILL\n  2: ENDIF\n  3: BGNLOOP :0\n 4: ENDLOOP :0\n 5: END\n",
    );
    let insts: Vec<&Instruction> = s.instructions().collect();
    assert_eq!(insts.len(), 6);
    assert_eq!(insts[0].label, Some(2));
    assert_eq!(insts[3].label, Some(0));
    assert_eq!(insts[2].label, None);
    assert!(err("FRAG\nENDIF :3\n").contains("cannot take a label"));
}

#[test]
fn operands_modifiers_and_swizzles() {
    let s = ok("FRAG\nMAD_SAT TEMP[1].xy, TEMP[0].xyxy, CONST[0][ADDR[0].x+1].wzyx, -|IMM[0].x|\n");
    let i = first_inst(&s);
    assert!(i.saturate && !i.precise);
    assert_eq!(i.dst[0].write_mask, WriteMask::X | WriteMask::Y);
    let c = &i.src[1];
    assert_eq!(c.reg.dimension, Some(Index::direct(0)));
    let ind = c.reg.index.indirect.unwrap();
    assert_eq!(
        (ind.file, ind.index, ind.component, c.reg.index.offset),
        (File::Address, 0, Component::X, 1)
    );
    assert_eq!(
        c.swizzle.0,
        [Component::W, Component::Z, Component::Y, Component::X]
    );
    let m = &i.src[2];
    assert!(m.negate && m.absolute);
    assert_eq!(m.swizzle, Swizzle::replicate(Component::X));
}

#[test]
fn indirect_with_array_id_and_negative_offset() {
    let s = ok("FRAG\nMOV TEMP[ADDR[0].y -2](3), TEMP[ADDR[0].x + 3]\n");
    assert_eq!(first_inst(&s).src[0].reg.index.offset, 3);
    let d = &first_inst(&s).dst[0];
    assert_eq!(d.reg.index.offset, -2);
    let ind = d.reg.index.indirect.unwrap();
    assert_eq!((ind.component, ind.array_id), (Component::Y, 3));
}

#[test]
fn precise_suffixes() {
    let s = ok(
        "FRAG\nMUL_SAT_PRECISE TEMP[0], TEMP[1], TEMP[2]\nADD_PRECISE TEMP[0], TEMP[1], TEMP[2]\n",
    );
    let insts: Vec<&Instruction> = s.instructions().collect();
    assert!(insts[0].saturate && insts[0].precise);
    assert!(!insts[1].saturate && insts[1].precise);
    assert!(err("FRAG\nADD_PRECISE_SAT TEMP[0], TEMP[1], TEMP[2]\n").contains("unknown opcode"));
}

#[test]
fn texture_and_sample_tokens() {
    let s = ok(
        "FRAG\nTXF TEMP[5], TEMP[6], SAMP[0], 2D_ARRAY, IMM[3].xyz\nSAMPLE TEMP[4], TEMP[1], SVIEW[0], SAMP[0], IMM[3].xyz\n",
    );
    let insts: Vec<&Instruction> = s.instructions().collect();
    let t = insts[0].texture.as_ref().unwrap();
    assert_eq!(t.target, TextureTarget::Array2D);
    assert_eq!(t.offsets.len(), 1);
    assert_eq!(t.return_type, 5);
    let t = insts[1].texture.as_ref().unwrap();
    assert_eq!(t.target, TextureTarget::Unknown);
    assert_eq!(
        t.offsets[0].swizzle,
        [Component::X, Component::Y, Component::Z]
    );
    assert!(err("FRAG\nTEX TEMP[0], IN[0], SAMP[0], 2DD\n").contains("did you mean `2D`"));
}

#[test]
fn memory_tokens() {
    let s = ok(
        "COMP\nSTORE IMAGE[0].xyzw, TEMP[1].xyyy, TEMP[2], 2D, PIPE_FORMAT_R32_UINT, COHERENT\nATOMFADD TEMP[0], BUFFER[0], TEMP[1], TEMP[2]\nBARRIER\n",
    );
    let insts: Vec<&Instruction> = s.instructions().collect();
    let m = insts[0].memory.unwrap();
    assert_eq!(m.target, TextureTarget::Tex2D);
    assert_eq!(
        m.format,
        PipeFormat::from_name("PIPE_FORMAT_R32_UINT").unwrap()
    );
    assert_eq!(m.qualifier, MemQualifier::COHERENT);
    assert!(insts[1].memory.is_none());
    assert!(insts[2].memory.is_some());
}

#[test]
fn vertex_inputs_keep_their_attributes() {
    let s = ok("VERT\nDCL IN[0], POSITION\n");
    assert_eq!(
        first_decl(&s).semantic.unwrap().name,
        SemanticName::Position
    );
}

#[test]
fn declarations_basic() {
    let s = ok(
        "FRAG\nDCL IN[0].xy, GENERIC[3], PERSPECTIVE, CENTROID\nDCL TEMP[0..7], ARRAY(2), LOCAL\nDCL CONST[1][0..15]\nDCL IN[1], POSITION, CENTROID\nDCL OUT[0], COLOR, INVARIANT\n",
    );
    let d: Vec<&Declaration> = s.declarations().collect();
    assert_eq!(d[0].usage_mask, WriteMask::X | WriteMask::Y);
    assert_eq!(d[0].semantic.unwrap().index, 3);
    assert_eq!(d[0].interp.unwrap().location, InterpLocation::Centroid);
    assert_eq!(
        (d[1].first, d[1].last, d[1].array_id, d[1].local),
        (0, 7, Some(2), true)
    );
    assert_eq!((d[2].dimension, d[2].first, d[2].last), (Some(1), 0, 15));
    assert_eq!(
        d[3].interp, None,
        "LOCATION without INTERP emits no interp token"
    );
    assert!(d[4].invariant);
}

#[test]
fn geometry_and_tessellation_brackets() {
    let s = ok(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nDCL IN[][0], POSITION\nDCL IN[3][1]\nDCL IN[]\nDCL OUT[0], POSITION, STREAM(1, 0, 2, 3)\n",
    );
    let d: Vec<&Declaration> = s.declarations().collect();
    assert_eq!((d[0].first, d[0].last, d[0].dimension), (0, 0, None));
    assert_eq!((d[1].first, d[1].dimension), (1, None));
    assert_eq!((d[2].first, d[2].last), (0, 2));
    assert_eq!(d[3].semantic.unwrap().streams, [1, 0, 2, 3]);
    let s = ok("TESS_CTRL\nDCL OUT[][5], GENERIC[0]\nDCL IN[]\n");
    let d: Vec<&Declaration> = s.declarations().collect();
    assert_eq!((d[0].first, d[0].dimension), (5, None));
    assert_eq!(d[1].last, 31);
    assert!(err("FRAG\nDCL IN[]\n").contains("implied array size"));
}

#[test]
fn resource_declarations() {
    let s = ok(
        "COMP\nDCL SVIEW[0], 2D, FLOAT\nDCL SVIEW[1], 3D, UINT, SINT\nDCL SVIEW[2], 2D, FLOAT, UINT, SINT, UNORM\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\nDCL BUFFER[0], ATOMIC\nDCL MEMORY[0], SHARED\nDCL HWATOMIC[0][1..3], ARRAY(1)\nDCL SVIEW[3]\n",
    );
    let d: Vec<&Declaration> = s.declarations().collect();
    assert_eq!(
        d[0].sampler_view.unwrap().return_types,
        [ReturnType::Float; 4]
    );
    assert_eq!(
        d[1].sampler_view.unwrap().return_types,
        [ReturnType::Uint; 4]
    );
    assert_eq!(
        d[2].sampler_view.unwrap().return_types,
        [
            ReturnType::Float,
            ReturnType::Uint,
            ReturnType::Sint,
            ReturnType::Unorm
        ]
    );
    let img = d[3].image.unwrap();
    assert!(img.writable && !img.raw && img.target == TextureTarget::Tex2D);
    assert!(d[4].atomic);
    assert_eq!(d[5].mem_type, MemType::Shared);
    assert_eq!(
        (d[6].dimension, d[6].first, d[6].last, d[6].array_id),
        (Some(0), 1, 3, Some(1))
    );
    assert_eq!(d[7].sampler_view.unwrap().target, TextureTarget::Buffer);
}

#[test]
fn immediates_of_every_type() {
    let s = ok(
        "FRAG\nIMM[0] FLT32 { 0.5, 1.0, 0x00000000, -2.5e1}\nIMM[1] UINT32 {7, 0, 4294967295, 1}\nIMM[2] FLT64 {1.5, -0.25}\nIMM INT64 {-1, 0x10}\nIMM[4] UINT64 {18446744073709551615, 0}\nIMM[5] INT32 {-2147483648, 0, 1, -1}\n",
    );
    let imms: Vec<&Immediate> = s.immediates().collect();
    assert_eq!(
        imms[0].words,
        [0x3f00_0000, 0x3f80_0000, 0, (-25.0f32).to_bits()]
    );
    assert_eq!(imms[1].words, [7, 0, u32::MAX, 1]);
    let b = 1.5f64.to_bits();
    assert_eq!(imms[2].words[..2], [b as u32, (b >> 32) as u32]);
    assert_eq!(imms[3].words, [u32::MAX, u32::MAX, 0x10, 0]);
    assert_eq!(imms[4].words, [u32::MAX, u32::MAX, 0, 0]);
    assert_eq!(imms[5].words, [0x8000_0000, 0, 1, u32::MAX]);
    assert!(err("FRAG\nIMM[1] FLT32 {0, 0, 0, 0}\n").contains("out of order"));
    assert!(err("FRAG\nIMM INT64 {010, 0}\n").contains("octal"));
    assert!(err("FRAG\nIMM FLT32 {0, 0, 0}\n").contains("take 4 values"));
    // a bad immediate keeps its number: only it is reported
    let one_bad = err(
        "FRAG\nIMM[0] FLT32 {1, x, 0, 0}\nIMM[1] FLT32 {0, 0, 0, 0}\nIMM[7] FLT32 {0, 0, 0, 0}\nIMM[3] FLT32 {0, 0, 0, 0}\n",
    );
    assert_eq!(one_bad.matches("error").count(), 2, "{one_bad}");
    assert!(one_bad.contains("`x` is not a decimal number"), "{one_bad}");
    assert!(
        one_bad.contains("index 7 is out of order: expected `IMM[2]`"),
        "{one_bad}"
    );
}

#[test]
fn properties() {
    let s = ok(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE 5\nPROPERTY NEXT_SHADER FRAG\nPROPERTY FS_COORD_ORIGIN LOWER_LEFT\nPROPERTY GS_MAX_OUTPUT_VERTICES 6\n",
    );
    let p: Vec<&Property> = s.properties().collect();
    assert_eq!(p[0].value, Primitive::Triangles as u32);
    assert_eq!(p[1].value, 5);
    assert_eq!(p[2].value, 4);
    assert_eq!(p[3].value, 1);
    assert_eq!(p[4].value, 6);
    assert!(err("FRAG\nPROPERTY FS_COORD_ORIGINN 1\n").contains("did you mean"));
}

#[test]
fn free_form_statements_like_mesa() {
    let s = ok("FRAG DCL TEMP[0] MOV TEMP[0],\n  TEMP[0] END");
    assert_eq!(s.statements.len(), 3);
    let s = ok(
        "FRAG\nMOV\n TEMP[0], TEMP[0]\nIMM FLT32 {1,\n 2, 3,\n 4}\nTEX TEMP[0], TEMP[0], SAMP[0],\n 2D\nEND\n",
    );
    assert_eq!(s.statements.len(), 4);
}

#[test]
fn friendly_extensions() {
    let s = ok("FRAG ; a comment\r\nMOV TEMP[0], TEMP[1].y ; another\r\nEND\r\n");
    assert_eq!(
        first_inst(&s).src[0].swizzle,
        Swizzle::replicate(Component::Y)
    );
    assert!(err("FRAG\rEND\n").contains("carriage return"));
}

#[test]
fn every_error_is_reported_and_spans_are_kept() {
    let src =
        "FRAG\nMOV TEMP[0], FOO[0]\nMOVV TEMP[0], TEMP[1]\nADD TEMP[0].yx, TEMP[0], TEMP[1]\nEND\n";
    let Err(d) = parse(src) else { panic!() };
    assert_eq!(d.0.len(), 3);
    assert!(d.0.iter().all(|d| d.primary.is_some()));
    let (_, map) = parse("FRAG\nMOV TEMP[0].x, -TEMP[1]\n").unwrap();
    assert_eq!(map.statements.len(), 1);
    assert_eq!(map.operands[0], [Span::new(9, 18), Span::new(20, 28)]);
}

#[test]
fn overflow_is_an_error() {
    assert!(err("FRAG\nMOV TEMP[99999999999999999999], TEMP[0]\n").contains("out of range"));
    assert!(err("FRAG\nMOV TEMP[40000], TEMP[0]\n").contains("out of range"));
    assert!(err("FRAG\nIMM UINT32 {4294967296, 0, 0, 0}\n").contains("32 bits"));
}

#[test]
fn legacy_constructs_are_named() {
    assert!(err("FRAG\nSUB TEMP[0], TEMP[1], TEMP[2]\n").contains("`ADD`"));
    assert!(err("FRAG\nDCL RES[0], 2D, FLOAT\n").contains("SVIEW"));
    assert!(err("COMP\n#define x TEMP[0]\n").contains("preprocessor"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Arbitrary text never panics and every error has a span.
    #[test]
    fn arbitrary_text_never_panics(src in "\\PC{0,200}") {
        if let Err(d) = parse(&src) {
            proptest::prop_assert!(d.0.iter().all(|d| d.primary.is_some()));
            let _ = d.render("p.tgsi", &src);
        }
    }

    /// Shuffled TGSI words (the likely garbage) never panic either.
    #[test]
    fn tgsi_word_soup_never_panics(words in proptest::collection::vec(proptest::sample::select(vec![
        "FRAG", "GEOM", "DCL", "IMM", "PROPERTY", "MOV", "TEX", "STORE", "UIF", "ENDIF", "TEMP", "IN", "SVIEW",
        "IMAGE", "[", "]", "(", ")", "{", "}", ",", ":", ".", "..", "|", "-", "+", "0", "1", "99999999999",
        "0x3f800000", "1.5e-3", "2D", "xyzw", "x", "FLT32", "INT64", "010", "ADDR", "ARRAY", "\n", "\r", ";", "#",
        "GS_INPUT_PRIMITIVE", "TRIANGLES", "PIPE_FORMAT_R32_UINT", "COHERENT", "STREAM", "é",
    ]), 0..60)) {
        for src in [words.join(" "), words.concat()] {
            if let Err(d) = parse(&src) {
                proptest::prop_assert!(d.0.iter().all(|d| d.primary.is_some()));
                let _ = d.render("p.tgsi", &src);
            }
        }
    }
}

#[test]
fn never_panics_on_garbage() {
    let inputs = [
        "",
        "\0",
        "FRAG",
        "FRAG\n[[[[[[",
        "FRAG\nMOV",
        "FRAG\nIMM[",
        "FRAG\nDCL",
        "FRAG\nDCL SVIEW[0], 2D,",
        "FRAG\nMOV TEMP[ADDR[",
        "FRAG\nIMM FLT64 {0x",
        "\u{feff}FRAG",
        "FRAG\n-|",
        "FRAG\nTEX TEMP[0], IN[0], SAMP[0], 2D, IN[0], IN[0], IN[0], IN[0], IN[0]",
    ];
    for i in inputs {
        let _ = parse(i);
    }
    let long = "FRAG\n".to_string() + &"x\n".repeat(100_000);
    let Err(d) = parse(&long) else { panic!() };
    assert_eq!(d.0.len(), MAX_ERRORS + 1);
    assert!(d.0.iter().all(|d| d.primary.is_some()));
}
