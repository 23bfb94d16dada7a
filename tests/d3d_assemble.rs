//! The SM4/SM5 assembler against the fxc corpus in `tests/fixtures/d3d`.
//!
//! For every non-effect listing with its blob beside it (`.o`, or `.dxbc` in
//! `mesa-d3d1x`):
//!
//! * every program block (a version line at column 0 to the line before
//!   `// Approximately N instruction slots used`; one per function in a
//!   library) assembles to exactly the words of the corresponding SHDR/SHEX
//!   chunk (chunks in file order, `LIBF` containers recursed);
//! * every program chunk decodes, prints (with exact floats), and parses
//!   back to the same IR.
//!
//! fxc prints floats with `%f`, so a listing may round a constant (1/3 as
//! `0.333333`) to text that reads back to other bits; a program whose
//! assembled words differ from the chunk only where both print the same
//! listing is counted apart and listed, not failed. Every other failure is
//! listed per file with the first differing dword and both instructions
//! printed, then the test fails.

use std::fmt::Write as _;
use std::path::Path;

use tgsi::d3d::blob::le_words;
use tgsi::d3d::print::{PrintOptions, print_instruction, print_program_with};
use tgsi::d3d::source_map::SourceMap;
use tgsi::d3d::{Program, decode_program, encode_program, parse_program, program_chunks};

mod common;

/// The program blocks of a listing, each as its text (comments and `#line`
/// lines included: the assembler must skip them itself).
fn program_blocks(text: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if common::is_version_line(line) {
            blocks.push(String::new());
            open = true;
        } else if line.starts_with("// Approximately") {
            open = false;
        }
        if open && let Some(b) = blocks.last_mut() {
            b.push_str(line);
            b.push('\n');
        }
    }
    blocks
}

/// The instruction holding dword `at` of a payload, printed (or a note).
fn instruction_at(words: &[u32], at: usize, options: &PrintOptions) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let map = SourceMap::from_payload(&bytes, 0);
    let Some(k) = map
        .instructions
        .iter()
        .position(|i| i.span.start <= at * 4 && at * 4 < i.span.end)
    else {
        return if at < 2 {
            "<version/length token>".into()
        } else {
            "<no instruction>".into()
        };
    };
    let span = map.instructions[k].span;
    let one = [words[0], (span.end - span.start) as u32 / 4 + 2];
    let mut single: Vec<u8> = one.iter().flat_map(|w| w.to_le_bytes()).collect();
    single.extend_from_slice(&bytes[span.start..span.end]);
    match decode_program(&single) {
        Ok(p) => format!(
            "#{k}: {}",
            print_instruction(&p.instructions[0], p.version, options)
        ),
        Err(e) => format!("#{k}: <does not decode: {e}>"),
    }
}

/// The first difference between the assembled and the expected words.
fn first_difference(got: &[u32], want: &[u32], options: &PrintOptions) -> String {
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    format!(
        "dword {at}: got {:08x?}, expected {:08x?}\n      assembled: {}\n      expected:  {}",
        got.get(at),
        want.get(at),
        instruction_at(got, at, options),
        instruction_at(want, at, options)
    )
}

#[derive(Default)]
struct Tally {
    files: usize,
    effects_skipped: usize,
    files_clean: usize,
    blocks: usize,
    assembled_identical: usize,
    chunks: usize,
    round_trips: usize,
    round_trips_fxc: usize,
    /// programs whose listing rounds a float so that it reads back to other bits
    assembled_lossy: Vec<String>,
}

fn check_file(asm: &Path, tally: &mut Tally) -> Vec<String> {
    let mut problems = Vec::new();
    let text = match std::fs::read_to_string(asm) {
        Ok(t) => t,
        Err(e) => return vec![format!("read: {e}")],
    };
    let Some(blob_path) = [asm.with_extension("o"), asm.with_extension("dxbc")]
        .into_iter()
        .find(|p| p.exists())
    else {
        return vec!["no blob beside the listing".into()];
    };
    let blob = match std::fs::read(&blob_path) {
        Ok(b) => b,
        Err(e) => return vec![format!("read blob: {e}")],
    };
    let chunks = match program_chunks(&blob) {
        Ok(chunks) => chunks,
        Err(e) => return vec![e.to_string()],
    };
    let blocks = program_blocks(&text);
    tally.blocks += blocks.len();
    tally.chunks += chunks.len();
    if chunks.len() != blocks.len() {
        problems.push(format!(
            "{} program chunks, {} listing blocks",
            chunks.len(),
            blocks.len()
        ));
    }
    for (n, (chunk, block)) in chunks.iter().zip(&blocks).enumerate() {
        let options = PrintOptions::for_creator(&chunk.creator);
        let want = le_words(&chunk.payload);
        // the listing block assembles to the chunk's words
        match parse_program(block) {
            Ok((program, _)) => match encode_program(&program) {
                Ok(got) if got == want => tally.assembled_identical += 1,
                Ok(got) => {
                    let difference =
                        format!("program {n}: {}", first_difference(&got, &want, &options));
                    // a float whose `%f` text fxc rounded: the listing holds
                    // the same text for both programs, so no assembler can
                    // tell them apart
                    let same_text = decode_program(&chunk.payload).is_ok_and(|d| {
                        print_program_with(&d, &options) == print_program_with(&program, &options)
                    });
                    if same_text {
                        tally
                            .assembled_lossy
                            .push(format!("{}: {difference}", common::relative(asm)));
                    } else {
                        problems.push(difference);
                    }
                }
                Err(e) => problems.push(format!("program {n}: encode: {e}")),
            },
            Err(d) => {
                let rendered = d.render(&format!("program {n}"), block);
                let first: String = rendered
                    .lines()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join("\n      ");
                problems.push(format!(
                    "program {n}: {} errors, first:\n      {first}",
                    d.0.len()
                ));
            }
        }
        // decode → print → parse gives back the decoded IR
        let decoded: Program = match decode_program(&chunk.payload) {
            Ok(p) => p,
            Err(e) => {
                problems.push(format!("program {n}: decode: {e}"));
                continue;
            }
        };
        // fxc's spelling loses the bits of some floats; count those apart
        let fxc_text = print_program_with(&decoded, &options);
        if parse_program(&fxc_text).is_ok_and(|(p, _)| p == decoded) {
            tally.round_trips_fxc += 1;
        }
        let printed = print_program_with(
            &decoded,
            &PrintOptions {
                exact_floats: true,
                ..options
            },
        );
        match parse_program(&printed) {
            Ok((p, _)) if p == decoded => tally.round_trips += 1,
            Ok((p, _)) => {
                let k = p
                    .instructions
                    .iter()
                    .zip(&decoded.instructions)
                    .position(|(a, b)| a != b)
                    .unwrap_or(p.instructions.len().min(decoded.instructions.len()));
                let line = printed.lines().nth(k + 1).unwrap_or("<end>");
                problems.push(format!(
                    "program {n}: print→parse differs at instruction {k}: `{line}`\n      parsed:  {:?}\n      decoded: {:?}",
                    p.instructions.get(k),
                    decoded.instructions.get(k)
                ));
            }
            Err(d) => {
                let rendered = d.render("printed", &printed);
                let first: String = rendered
                    .lines()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join("\n      ");
                problems.push(format!(
                    "program {n}: printed listing does not parse:\n      {first}"
                ));
            }
        }
    }
    problems
}

#[test]
fn corpus_listings_assemble_to_their_program_chunks() {
    let dir = common::corpus_root();
    let files = common::corpus_files(common::LISTINGS);
    assert!(!files.is_empty(), "no listings under {}", dir.display());
    let mut tally = Tally::default();
    let mut report = String::new();
    for asm in &files {
        let text = std::fs::read_to_string(asm).unwrap_or_default();
        if text.contains("// FX Version: fx_") {
            tally.effects_skipped += 1;
            continue;
        }
        tally.files += 1;
        let problems = check_file(asm, &mut tally);
        if problems.is_empty() {
            tally.files_clean += 1;
        } else {
            let rel = asm.strip_prefix(&dir).unwrap_or(asm);
            let _ = writeln!(report, "  {}:", rel.display());
            for p in problems {
                let _ = writeln!(report, "    {p}");
            }
        }
    }
    let summary = format!(
        "{} listings ({} effects skipped), {} without problems; {} program blocks: {} assemble to identical words, {} differ only in floats fxc's listing rounded; {} program chunks: {} print→parse round trips ({} with fxc's lossy float spelling)",
        tally.files,
        tally.effects_skipped,
        tally.files_clean,
        tally.blocks,
        tally.assembled_identical,
        tally.assembled_lossy.len(),
        tally.chunks,
        tally.round_trips,
        tally.round_trips_fxc
    );
    let lossy = tally.assembled_lossy.join("\n  ");
    if tally.files_clean != tally.files {
        panic!(
            "{} listings with problems:\n{report}rounded floats:\n  {lossy}\n{summary}",
            tally.files - tally.files_clean
        );
    }
    println!("rounded floats (the listing's text cannot hold their bits):\n  {lossy}\n{summary}");
}

#[derive(Default)]
struct ContainerTally {
    listings: usize,
    signature_chunks: usize,
    signatures_identical: usize,
    program_tags: usize,
    sfi0_agree: usize,
    with_sfi0: usize,
    derived: usize,
    derived_identical: usize,
    header_form: usize,
}

/// Checks the container assembled from a whole one-program listing against
/// the original blob: signature chunks (where the listing has their
/// tables), the program chunk's tag, and the SFI0 feature mask.
fn check_container(text: &str, blob: &[u8], tally: &mut ContainerTally) -> Vec<String> {
    use tgsi::d3d::container::{Container, tags};
    use tgsi::d3d::sfi0::Sfi0;
    use tgsi::d3d::signature::SignatureKind;
    let mut problems = Vec::new();
    let original = match Container::parse(blob) {
        Ok(c) => c,
        Err(e) => return vec![format!("original: {e}")],
    };
    let assembled = match tgsi::d3d::assemble_listing(text) {
        Ok(a) => a,
        Err(d) => {
            let rendered = d.render("listing", text);
            return vec![format!(
                "does not assemble:\n      {}",
                rendered
                    .lines()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join("\n      ")
            )];
        }
    };
    tally.listings += 1;
    if let Err(e) = tgsi::d3d::container::verify_checksum(&assembled.container) {
        problems.push(format!("assembled checksum: {e}"));
    }
    for (sig, listed) in assembled.signatures.iter().zip(&assembled.from_tables) {
        if !listed {
            // derived from the declarations: semantics are guesses, so only count
            tally.derived += 1;
            if original
                .chunks
                .iter()
                .any(|c| c.tag == sig.kind.tag() && c.data == sig.to_bytes())
            {
                tally.derived_identical += 1;
            }
            continue;
        }
        tally.signature_chunks += 1;
        let role = sig.kind.role();
        let theirs = original
            .chunks
            .iter()
            .find(|c| SignatureKind::from_tag(c.tag).is_some_and(|k| k.role() == role));
        match theirs {
            Some(c) if c.tag == sig.kind.tag() && c.data == sig.to_bytes() => {
                tally.signatures_identical += 1
            }
            Some(c) => problems.push(format!(
                "{} chunk differs from the original {}: assembled {:?}, original {:?}",
                sig.kind.tag(),
                c.tag,
                sig.elements,
                tgsi::d3d::signature::Signature::parse(
                    SignatureKind::from_tag(c.tag).unwrap_or(sig.kind),
                    &c.data
                )
                .map(|s| s.elements)
            )),
            None => problems.push(format!(
                "{} from the listing's table, but the original has none",
                sig.kind.tag()
            )),
        }
    }
    // the same listing in fxc's /Fh C-header form assembles the same
    let bytes: Vec<String> = blob.iter().map(|b| format!("{b:4}")).collect();
    let lines: Vec<String> = bytes
        .chunks(6)
        .map(|c| format!("   {}", c.join(",")))
        .collect();
    let header = format!(
        "#if 0\n{text}#endif\n\nconst BYTE g_shader[] =\n{{\n{}\n}};\n",
        lines.join(",\n")
    );
    match tgsi::d3d::assemble_listing(&header) {
        Ok(a) if a.container == assembled.container => tally.header_form += 1,
        Ok(_) => problems.push("the /Fh header form assembles differently".into()),
        Err(d) => problems.push(format!(
            "the /Fh header form does not assemble: {}",
            d.0[0].message
        )),
    }
    // the program block alone: every signature derived from the declarations
    if let Some(block) = program_blocks(text).first()
        && let Ok(bare) = tgsi::d3d::assemble_listing(block)
    {
        for sig in &bare.signatures {
            tally.derived += 1;
            if original
                .chunks
                .iter()
                .any(|c| c.tag == sig.kind.tag() && c.data == sig.to_bytes())
            {
                tally.derived_identical += 1;
            }
        }
    }
    match original.program() {
        Some(p) if p.tag == assembled.program_tag => tally.program_tags += 1,
        Some(p) => problems.push(format!(
            "program chunk {} assembled as {}",
            p.tag, assembled.program_tag
        )),
        None => problems.push("the original has no program chunk".into()),
    }
    let theirs = original
        .chunk(tags::SFI0)
        .map(|c| Sfi0::parse(&c.data).map(|s| s.flags).unwrap_or(u64::MAX));
    if theirs.is_some() {
        tally.with_sfi0 += 1;
    }
    if theirs.unwrap_or(0) == assembled.features {
        tally.sfi0_agree += 1;
    } else {
        problems.push(format!(
            "SFI0 {:#x?}, assembled features {:#x}",
            theirs, assembled.features
        ));
    }
    problems
}

#[test]
fn corpus_containers_get_the_original_signatures_chunk_tag_and_features() {
    let dir = common::corpus_root();
    let files = common::corpus_files(common::LISTINGS);
    let mut tally = ContainerTally::default();
    let mut report = String::new();
    let mut failing = 0;
    for asm in &files {
        let text = std::fs::read_to_string(asm).unwrap_or_default();
        // effects and libraries are not single-program containers
        if text.contains("// FX Version: fx_")
            || program_blocks(&text).len() != 1
            || text.contains("\nlib_")
        {
            continue;
        }
        let Some(blob) = [asm.with_extension("o"), asm.with_extension("dxbc")]
            .into_iter()
            .find_map(|p| std::fs::read(p).ok())
        else {
            continue;
        };
        let problems = check_container(&text, &blob, &mut tally);
        if !problems.is_empty() {
            failing += 1;
            let rel = asm.strip_prefix(&dir).unwrap_or(asm);
            let _ = writeln!(report, "  {}:", rel.display());
            for p in problems {
                let _ = writeln!(report, "    {p}");
            }
        }
    }
    let summary = format!(
        "{} listings assembled into containers: {}/{} signature chunks from tables identical, {}/{} program chunk tags, {}/{} SFI0 masks agree ({} originals have SFI0); {}/{} identical in fxc's /Fh header form; without the tables, {} signatures derived from the declarations, {} of them identical to the original's",
        tally.listings,
        tally.signatures_identical,
        tally.signature_chunks,
        tally.program_tags,
        tally.listings,
        tally.sfi0_agree,
        tally.listings,
        tally.with_sfi0,
        tally.header_form,
        tally.listings,
        tally.derived,
        tally.derived_identical
    );
    if failing > 0 {
        panic!("{failing} listings with problems:\n{report}{summary}");
    }
    println!("{summary}");
}

/// Damaged listings (a byte deleted, or a troublesome character inserted,
/// at many positions) give diagnostics, never a panic or a hang.
#[test]
fn damaged_listings_never_panic() {
    let dir = common::corpus_root();
    let picks = [
        "dxdecompiler/3Dmigoto/debug.asm",
        "dxdecompiler/Internal/SM51_test.asm",
        "mesa-d3d1x/progs/d3d11spikysphere/d3d11spikysphere.hlsl.hs.asm",
        "dxdecompiler/3Dmigoto/min_precision.asm",
    ];
    let mut runs = 0;
    for pick in picks {
        let text =
            std::fs::read_to_string(dir.join(pick)).unwrap_or_else(|e| panic!("{pick}: {e}"));
        let start = text
            .find("\nps_")
            .or_else(|| text.find("\ncs_"))
            .or_else(|| text.find("\nhs_"))
            .unwrap_or(0);
        let body = &text[start..];
        let positions: Vec<usize> = (0..body.len())
            .step_by(37)
            .filter(|&i| body.is_char_boundary(i))
            .collect();
        for &i in &positions {
            let mut deleted = body.to_string();
            if let Some(c) = deleted[i..].chars().next() {
                deleted.replace_range(i..i + c.len_utf8(), "");
            }
            let _ = tgsi::d3d::assemble_listing(&deleted);
            for insert in ["(", "[", "{", "\"", "|", "\n", "é", "1.#"] {
                let mut damaged = body.to_string();
                damaged.insert_str(i, insert);
                let _ = tgsi::d3d::assemble_listing(&damaged);
                runs += 1;
            }
        }
    }
    assert!(runs > 500, "{runs}");
}

/// A small deterministic generator (xorshift) for the random programs below.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn word(&mut self) -> u32 {
        match self.below(4) {
            0 => self.below(16) as u32,
            1 => self.below(20000) as u32,
            _ => self.next() as u32,
        }
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

mod random_ir {
    use super::Rng;
    use tgsi::d3d::enums::{
        MinPrecision, OperandModifier, RegisterFile, ResourceDimension, ReturnType, SystemValue,
    };
    use tgsi::d3d::ir::*;
    use tgsi::d3d::opcode::{CONTROL_FIELDS, OPCODES, OpFlags, PayloadKind};

    pub fn components(rng: &mut Rng) -> Components {
        let c = |rng: &mut Rng| rng.below(4) as u8;
        match rng.below(5) {
            0 => Components::None,
            1 => Components::One,
            2 => Components::Mask(rng.below(16) as u8),
            3 => Components::Swizzle([c(rng), c(rng), c(rng), c(rng)]),
            _ => Components::Select(c(rng)),
        }
    }

    pub fn operand(rng: &mut Rng, depth: usize) -> Operand {
        let file = rng.pick(RegisterFile::ALL);
        let mut op = Operand::register(file, &[], components(rng));
        if file.is_immediate() {
            if op.components == Components::None {
                op.components = Components::One;
            }
            let dwords = match (file, op.components) {
                (RegisterFile::Immediate32, Components::One) => 1,
                (RegisterFile::Immediate64, Components::One) => 2,
                _ => 4,
            };
            op.values = (0..dwords).map(|_| rng.word()).collect();
        } else {
            for _ in 0..rng.below(4) {
                let nested = |rng: &mut Rng| Box::new(operand(rng, depth + 1));
                let index = match rng.below(if depth < 2 { 8 } else { 4 }) {
                    0..=2 => Index::Imm32(rng.word()),
                    3 => Index::Imm64(rng.next() >> rng.below(64)),
                    4 => Index::Relative(nested(rng)),
                    5 | 6 => Index::Imm32Relative(rng.word(), nested(rng)),
                    _ => Index::Imm64Relative(rng.next() >> rng.below(64), nested(rng)),
                };
                op.indices.push(index);
            }
        }
        op.modifier = rng.pick(OperandModifier::ALL);
        op.min_precision = rng.pick(MinPrecision::ALL);
        op.non_uniform = rng.chance(10);
        if rng.chance(50) {
            op.modifier = OperandModifier::None;
            op.min_precision = MinPrecision::Default;
        }
        op.force_extended = !op.needs_extended() && rng.chance(10);
        op
    }

    fn return_types(rng: &mut Rng) -> [ReturnType; 4] {
        [
            rng.pick(ReturnType::ALL),
            rng.pick(ReturnType::ALL),
            rng.pick(ReturnType::ALL),
            rng.pick(ReturnType::ALL),
        ]
    }

    fn space(rng: &mut Rng) -> Option<u32> {
        rng.chance(30).then(|| rng.word())
    }

    pub fn instruction(rng: &mut Rng) -> Instruction {
        let info = loop {
            let info = &OPCODES[rng.below(OPCODES.len() as u64) as usize];
            if !info.flags.contains(OpFlags::RESERVED) {
                break info;
            }
        };
        let mut inst = Instruction::new(info.opcode, Vec::new());
        if info.flags.contains(OpFlags::CUSTOM_DATA) {
            let data = match rng.below(3) {
                0 => CustomData::ImmediateConstantBuffer(
                    (0..rng.below(12)).map(|_| rng.word()).collect(),
                ),
                1 => CustomData::Other {
                    class: rng.pick(&[0, 1, 2, 5, 77]),
                    data: (0..rng.below(6)).map(|_| rng.word()).collect(),
                },
                _ => CustomData::ShaderMessage(ShaderMessage {
                    message_id: rng.pick(&[0x0020_0102, 0x0020_0103, 0x1234]),
                    format: rng.pick(&[0, 1]),
                    text: (0..rng.below(20))
                        .map(|_| rng.pick(b"ab %d\"\\\n\t\x01\xff/,"))
                        .collect(),
                    operands: (0..rng.below(3)).map(|_| operand(rng, 0)).collect(),
                }),
            };
            inst.payload = Payload::CustomData(data);
            return inst;
        }
        for f in CONTROL_FIELDS
            .iter()
            .filter(|f| info.flags.contains(f.flag))
        {
            let _ = inst
                .controls
                .set_field(f.flag, rng.below(1 << f.width) as u32);
        }
        let most = if rng.chance(70) { 1 } else { 4 };
        for _ in 0..rng.below(most) {
            inst.extended.push(match rng.below(3) {
                0 => ExtendedOpcode::SampleControls {
                    offsets: [
                        rng.below(16) as i8 - 8,
                        rng.below(16) as i8 - 8,
                        rng.below(16) as i8 - 8,
                    ],
                },
                1 => ExtendedOpcode::ResourceDim {
                    dimension: rng.pick(ResourceDimension::ALL),
                    stride: rng.below(0x1000) as u16,
                },
                _ => ExtendedOpcode::ResourceReturnType(return_types(rng)),
            });
        }
        inst.operands = info.operands.iter().map(|_| operand(rng, 0)).collect();
        inst.payload = match info.payload {
            PayloadKind::None | PayloadKind::CustomData => Payload::None,
            PayloadKind::ReturnTypes => Payload::ReturnTypes {
                types: return_types(rng),
                space: space(rng),
            },
            PayloadKind::ConstantBuffer => {
                Payload::ConstantBuffer(rng.chance(30).then(|| ConstantBufferRange {
                    size: rng.word(),
                    space: rng.word(),
                }))
            }
            PayloadKind::Space => Payload::Space(space(rng)),
            PayloadKind::Structured => Payload::Structured {
                stride: rng.word(),
                space: space(rng),
            },
            PayloadKind::Count => Payload::Count(rng.word()),
            PayloadKind::Name => Payload::Name(rng.pick(SystemValue::ALL)),
            PayloadKind::IndexableTemp => Payload::IndexableTemp {
                register: rng.word(),
                count: rng.word(),
                components: rng.word(),
            },
            PayloadKind::TgsmStructured => Payload::TgsmStructured {
                stride: rng.word(),
                count: rng.word(),
            },
            PayloadKind::FunctionTable => Payload::FunctionTable {
                index: rng.word(),
                bodies: (0..rng.below(4)).map(|_| rng.word()).collect(),
            },
            PayloadKind::Interface => Payload::Interface {
                index: rng.word(),
                call_sites: rng.word(),
                array_size: rng.below(0x10000) as u16,
                tables: (0..rng.below(4)).map(|_| rng.word()).collect(),
            },
            PayloadKind::Float => Payload::Float(rng.word()),
            PayloadKind::ThreadGroup => Payload::ThreadGroup([rng.word(), rng.word(), rng.word()]),
            PayloadKind::CallSite => Payload::CallSite(rng.word()),
        };
        inst.trailing = inst.fxc_trailing();
        if rng.chance(5) {
            inst.trailing = (0..rng.below(3)).map(|_| rng.word()).collect();
        }
        inst
    }
}

/// Random programs, built as IR (every opcode, operand file, component
/// field, index representation, modifier, payload and custom-data class),
/// encoded and decoded to their canonical form, print (with exact floats)
/// and parse back to the decoded IR.
#[test]
fn random_programs_print_and_parse_back() {
    use tgsi::d3d::enums::ProgramType;
    use tgsi::d3d::ir::Version;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut tried, mut checked) = (0, 0);
    let mut failures = Vec::new();
    while checked < 5000 && tried < 200_000 {
        tried += 1;
        let version = Version {
            program_type: rng.pick(ProgramType::ALL),
            major: rng.pick(&[4, 5]),
            minor: rng.pick(&[0, 1]),
        };
        let instructions = (0..1 + rng.below(4))
            .map(|_| random_ir::instruction(&mut rng))
            .collect();
        let program = Program {
            version,
            instructions,
        };
        let Ok(words) = encode_program(&program) else {
            continue;
        };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let Ok(decoded) = decode_program(&bytes) else {
            continue;
        };
        checked += 1;
        let text = print_program_with(
            &decoded,
            &PrintOptions {
                exact_floats: true,
                ..PrintOptions::default()
            },
        );
        match parse_program(&text) {
            Ok((parsed, _)) if parsed == decoded => {}
            Ok((parsed, _)) => {
                let k = parsed
                    .instructions
                    .iter()
                    .zip(&decoded.instructions)
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                failures.push(format!(
                    "{text}  parsed:  {:?}\n  decoded: {:?}",
                    parsed.instructions.get(k),
                    decoded.instructions.get(k)
                ));
            }
            Err(d) => failures.push(d.render("printed", &text)),
        }
    }
    assert!(
        checked >= 1000,
        "only {checked} of {tried} random programs encode and decode"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} random programs do not read back; first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    println!("{checked} random programs ({tried} generated) print and parse back");
}

/// The nested containers of a library blob's `LIBF` chunks, in order.
fn library_functions(blob: &[u8]) -> Vec<tgsi::d3d::container::Container> {
    use tgsi::d3d::container::{Container, tags};
    Container::parse(blob)
        .map(|c| {
            c.chunks_with(tags::LIBF)
                .filter_map(|f| Container::parse(&f.data).ok())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn corpus_library_listings_assemble_to_the_original_programs_and_lfs0() {
    use tgsi::d3d::container::{Container, tags, verify_checksum};
    let dir = common::corpus_root();
    let files = common::corpus_files(common::LISTINGS);
    let mut report = String::new();
    let (mut libraries, mut programs, mut libh_identical) = (0, 0, 0);
    let (mut lfs0, mut lfs0_identical, mut lfs0_interpolation) = (0, 0, 0);
    for asm in &files {
        let text = std::fs::read_to_string(asm).unwrap_or_default();
        if !text.contains("\nlib_") {
            continue;
        }
        let Ok(blob) = std::fs::read(asm.with_extension("o")) else {
            continue;
        };
        let rel = asm.strip_prefix(&dir).unwrap_or(asm).display().to_string();
        libraries += 1;
        let assembled = match tgsi::d3d::assemble_listing(&text) {
            Ok(a) => a,
            Err(d) => {
                let _ = writeln!(report, "  {rel}: {}", d.render("listing", &text));
                continue;
            }
        };
        if let Err(e) = verify_checksum(&assembled.container) {
            let _ = writeln!(report, "  {rel}: checksum {e}");
        }
        let ours = tgsi::d3d::program_chunks(&assembled.container).unwrap_or_default();
        let theirs = tgsi::d3d::program_chunks(&blob).unwrap_or_default();
        let payloads = |v: &[tgsi::d3d::ProgramChunk]| -> Vec<Vec<u8>> {
            v.iter().map(|p| p.payload.clone()).collect()
        };
        if payloads(&ours) != payloads(&theirs) || ours.is_empty() {
            let _ = writeln!(
                report,
                "  {rel}: {} program chunks assembled, {} in the original, not identical",
                ours.len(),
                theirs.len()
            );
        }
        programs += ours.len();
        let original = Container::parse(&blob).expect("corpus blob");
        let libh = |c: &Container| c.chunk(tags::LIBH).map(|h| h.data.clone());
        let ours_container = Container::parse(&assembled.container).expect("assembled container");
        if libh(&ours_container) == libh(&original) {
            libh_identical += 1;
        } else {
            let _ = writeln!(report, "  {rel}: LIBH differs");
        }
        let (ours_fns, theirs_fns) = (
            library_functions(&assembled.container),
            library_functions(&blob),
        );
        for (i, (o, t)) in ours_fns.iter().zip(&theirs_fns).enumerate() {
            let tag = |c: &Container| c.program().map(|p| p.tag);
            if tag(o) != tag(t) {
                let _ = writeln!(report, "  {rel}: function {i}: program chunk tag differs");
            }
            let lfs = |c: &Container| c.chunk(tags::LFS0).map(|h| h.data.clone());
            lfs0 += 1;
            let parse = |c: &Container| {
                lfs(c).and_then(|d| tgsi::d3d::library::ParameterSignature::parse(&d).ok())
            };
            // the listing does not show interpolation modes
            // (`nointerpolation`, `centroid` ...): those may differ
            let without_interpolation = |c: &Container| {
                parse(c).map(|mut s| {
                    for p in &mut s.parameters {
                        p.interpolation = 0;
                    }
                    s
                })
            };
            if lfs(o) == lfs(t) {
                lfs0_identical += 1;
            } else if parse(o).is_some() && without_interpolation(o) == without_interpolation(t) {
                lfs0_interpolation += 1;
            } else {
                let _ = writeln!(
                    report,
                    "  {rel}: function {i}: LFS0 differs:\n    assembled {:?}\n    original  {:?}",
                    parse(o),
                    parse(t)
                );
            }
        }
        if ours_fns.len() != theirs_fns.len() {
            let _ = writeln!(
                report,
                "  {rel}: {} functions assembled, {} in the original",
                ours_fns.len(),
                theirs_fns.len()
            );
        }
    }
    let summary = format!(
        "{libraries} library listings: {programs} function programs identical to the originals, {libh_identical} LIBH chunks and {lfs0_identical}/{lfs0} LFS0 chunks identical, {lfs0_interpolation} differing only in interpolation modes the listing does not show"
    );
    if !report.is_empty() || libraries < 27 {
        panic!("library problems:\n{report}{summary}");
    }
    println!("{summary}");
}
