//! Property tests of the printer, the assembler and the token codec.
//!
//! The strategy builds random shaders from the IR types, limited to what the
//! text form can express (e.g. no semantics on vertex-shader inputs, texture
//! targets only where the opcode carries one, four equal sampler-view return
//! types, non-negative direct indices). Over them:
//! print → parse gives the same IR, and encode → decode gives the same IR.
//! Over arbitrary or mutated input: `parse` and `decode` never panic, and
//! whatever `decode` accepts encodes back to the very same words.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use tgsi::enums::*;
use tgsi::format_names::PIPE_FORMAT_NAMES;
use tgsi::ir::*;
use tgsi::opcode::{OPCODES, OpFlags, Opcode};
use tgsi::tokens::{decode, encode};

const NUMBERINGS: [ProcessorNumbering; 2] =
    [ProcessorNumbering::Mesa22, ProcessorNumbering::Mesa21];

fn component() -> impl Strategy<Value = Component> {
    (0u32..4).prop_map(Component::from_u32)
}

fn swizzle() -> impl Strategy<Value = Swizzle> {
    prop::array::uniform4(component()).prop_map(Swizzle)
}

fn nonzero_mask() -> impl Strategy<Value = WriteMask> {
    (1u8..16).prop_map(WriteMask::from_bits_truncate)
}

fn file() -> impl Strategy<Value = File> {
    select(File::ALL.to_vec())
}

fn texture_target() -> impl Strategy<Value = TextureTarget> {
    select(TextureTarget::ALL.to_vec())
}

fn pipe_format() -> impl Strategy<Value = PipeFormat> {
    (0..PIPE_FORMAT_NAMES.len() as u16).prop_map(PipeFormat)
}

fn indirect() -> impl Strategy<Value = IndirectAddr> {
    (file(), 0i32..=32767, component(), 0u32..1024).prop_map(
        |(file, index, component, array_id)| IndirectAddr {
            file,
            index,
            component,
            array_id,
        },
    )
}

fn index() -> impl Strategy<Value = Index> {
    prop_oneof![
        3 => (0i32..=32767).prop_map(Index::direct),
        1 => (-32768i32..=32767, indirect()).prop_map(|(offset, ind)| Index { offset, indirect: Some(ind) }),
    ]
}

fn register() -> impl Strategy<Value = Register> {
    (file(), index(), option::weighted(0.2, index())).prop_map(|(file, index, dimension)| {
        Register {
            file,
            index,
            dimension,
        }
    })
}

fn dst_operand() -> impl Strategy<Value = DstOperand> {
    (register(), nonzero_mask()).prop_map(|(reg, write_mask)| DstOperand { reg, write_mask })
}

fn src_operand() -> impl Strategy<Value = SrcOperand> {
    (register(), swizzle(), any::<bool>(), any::<bool>()).prop_map(
        |(reg, swizzle, negate, absolute)| SrcOperand {
            reg,
            swizzle,
            negate,
            absolute,
        },
    )
}

fn tex_offset() -> impl Strategy<Value = TexOffset> {
    (file(), 0i32..=32767, prop::array::uniform3(component())).prop_map(|(file, index, swizzle)| {
        TexOffset {
            file,
            index,
            swizzle,
        }
    })
}

fn opcode() -> impl Strategy<Value = Opcode> {
    let usable: Vec<Opcode> = OPCODES
        .iter()
        .filter(|i| !i.flags.contains(OpFlags::GAP))
        .map(|i| i.opcode)
        .collect();
    select(usable)
}

fn instruction() -> impl Strategy<Value = Instruction> {
    opcode().prop_flat_map(|op| {
        let info = op.info();
        let flags = info.flags;
        let label = if flags.contains(OpFlags::BRANCH) {
            option::of(0u32..1 << 24).boxed()
        } else {
            Just(None).boxed()
        };
        let target = if flags.contains(OpFlags::SAMPLE) {
            Just(TextureTarget::Unknown).boxed()
        } else {
            texture_target().boxed()
        };
        let texture = if flags.intersects(OpFlags::TEX | OpFlags::SAMPLE) {
            (target, vec(tex_offset(), 0..=4))
                .prop_map(|(target, offsets)| {
                    Some(TextureInfo {
                        target,
                        return_type: 5,
                        offsets,
                    })
                })
                .boxed()
        } else {
            Just(None).boxed()
        };
        let memory = if flags.contains(OpFlags::MEMORY) {
            (0u8..16, texture_target(), pipe_format())
                .prop_map(|(q, target, format)| {
                    Some(MemoryInfo {
                        qualifier: MemQualifier::from_bits_truncate(q),
                        target,
                        format,
                    })
                })
                .boxed()
        } else {
            Just(None).boxed()
        };
        (
            any::<bool>(),
            any::<bool>(),
            vec(dst_operand(), info.num_dst as usize),
            vec(src_operand(), info.num_src as usize),
            label,
            texture,
            memory,
        )
            .prop_map(
                move |(saturate, precise, dst, src, label, texture, memory)| Instruction {
                    opcode: op,
                    saturate,
                    precise,
                    dst,
                    src,
                    label,
                    texture,
                    memory,
                },
            )
    })
}

/// Everything a declaration might say, before [`expressible`] trims it.
#[allow(clippy::type_complexity)]
fn raw_declaration() -> impl Strategy<Value = Declaration> {
    let files = vec![
        File::Const,
        File::Input,
        File::Output,
        File::Temp,
        File::Sampler,
        File::Address,
        File::SystemValue,
        File::Image,
        File::SamplerView,
        File::Buffer,
        File::Memory,
        File::HwAtomic,
    ];
    let semantic = (
        select(SemanticName::ALL.to_vec()),
        0u32..=65535,
        prop::array::uniform4(0u8..4),
    )
        .prop_map(|(name, index, streams)| Semantic {
            name,
            index,
            streams,
        });
    let interp = (
        select(InterpMode::ALL.to_vec()),
        select(InterpLocation::ALL.to_vec()),
    )
        .prop_map(|(mode, location)| Interp {
            mode,
            location,
            cylindrical_wrap: 0,
        });
    let image = (
        texture_target(),
        pipe_format(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(target, format, raw, writable)| ImageDecl {
            target,
            format,
            raw,
            writable,
        });
    let view = (texture_target(), select(ReturnType::ALL.to_vec())).prop_map(|(target, rt)| {
        SamplerViewDecl {
            target,
            return_types: [rt; 4],
        }
    });
    (
        (
            select(files),
            0u32..2000,
            0u32..200,
            nonzero_mask(),
            option::of(0u32..1024),
            option::of(0u32..=65535),
        ),
        (
            any::<bool>(),
            option::of(semantic),
            option::of(interp),
            any::<bool>(),
            any::<bool>(),
        ),
        (select(MemType::ALL.to_vec()), image, view),
    )
        .prop_map(
            |(
                (file, first, extra, usage_mask, array_id, dimension),
                (local, semantic, interp, invariant, atomic),
                (mem_type, image, view),
            )| {
                let mut d = Declaration::new(file, first, (first + extra).min(65535));
                d.usage_mask = usage_mask;
                d.array_id = array_id;
                d.dimension = dimension;
                d.local = local;
                d.semantic = semantic;
                d.interp = interp;
                d.invariant = invariant;
                d.atomic = atomic;
                d.mem_type = mem_type;
                d.image = Some(image);
                d.sampler_view = Some(view);
                d
            },
        )
}

/// Trims a declaration to what the text form can say in this stage.
fn expressible(processor: Processor, mut d: Declaration) -> Declaration {
    let vs_input = processor == Processor::Vertex && d.file == File::Input;
    let plain = !matches!(
        d.file,
        File::Image | File::SamplerView | File::Buffer | File::Memory
    );
    if !plain || vs_input {
        d.local = false;
        d.semantic = None;
    }
    if let Some(sem) = &mut d.semantic
        && !(processor == Processor::Geometry && d.file == File::Output)
    {
        sem.streams = [0; 4];
    }
    if vs_input {
        d.interp = None;
        d.invariant = false;
    }
    // Without a semantic, interpolation `COLOR` reads back as the semantic COLOR.
    if d.semantic.is_none() && d.interp.is_some_and(|i| i.mode == InterpMode::Color) {
        d.interp = None;
    }
    if d.file != File::Buffer {
        d.atomic = false;
    }
    if d.file != File::Memory {
        d.mem_type = MemType::Global;
    }
    if d.file != File::Image {
        d.image = None;
    }
    if d.file != File::SamplerView {
        d.sampler_view = None;
    }
    if !matches!(d.file, File::Const | File::HwAtomic) {
        d.dimension = None;
    }
    d
}

fn immediate() -> impl Strategy<Value = Immediate> {
    select(ImmType::ALL.to_vec()).prop_flat_map(|ty| {
        let words = match ty {
            ImmType::Flt64 => vec(
                prop_oneof![
                    any::<f64>().prop_filter("finite", |v| v.is_finite()),
                    (-1000i32..1000).prop_map(|v| v as f64 / 8.0),
                    // `inf`/`-inf`/`nan` are what the text can say beyond finite values.
                    select(vec![f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -0.0]),
                ],
                2,
            )
            .prop_map(|vals| vals.iter().flat_map(|v| split64(v.to_bits())).collect())
            .boxed(),
            ImmType::Flt32 => vec(
                prop_oneof![
                    any::<u32>(),
                    (-100000i32..100000).prop_map(|v| (v as f32 / 16.0).to_bits()),
                    Just((-0.0f32).to_bits()),
                ],
                4,
            )
            .boxed(),
            _ => vec(any::<u32>(), 4).boxed(),
        };
        words.prop_map(move |words| Immediate { ty, words })
    })
}

fn split64(bits: u64) -> [u32; 2] {
    [bits as u32, (bits >> 32) as u32]
}

fn property() -> impl Strategy<Value = Property> {
    let names: Vec<PropertyName> = PropertyName::ALL
        .iter()
        .copied()
        .filter(|n| *n != PropertyName::GsInputPrimitive)
        .collect();
    select(names).prop_flat_map(|name| {
        let value = match name {
            PropertyName::GsOutputPrimitive => (0u32..15).boxed(),
            PropertyName::FsCoordOrigin | PropertyName::FsCoordPixelCenter => (0u32..2).boxed(),
            PropertyName::NextShader => (0u32..6).boxed(),
            _ => any::<u32>().boxed(),
        };
        value.prop_map(move |value| Property { name, value })
    })
}

fn shader() -> impl Strategy<Value = Shader> {
    select(Processor::ALL.to_vec()).prop_flat_map(|processor| {
        let gs_input = select(vec![
            Primitive::Points,
            Primitive::Lines,
            Primitive::Triangles,
            Primitive::LinesAdjacency,
            Primitive::TrianglesAdjacency,
        ]);
        let middle = (vec(raw_declaration(), 0..8), vec(immediate(), 0..4)).prop_flat_map(
            move |(decls, imms)| {
                let mut both: Vec<Statement> = decls
                    .into_iter()
                    .map(|d| Statement::Declaration(expressible(processor, d)))
                    .collect();
                both.extend(imms.into_iter().map(Statement::Immediate));
                Just(both).prop_shuffle()
            },
        );
        (
            gs_input,
            vec(property(), 0..4),
            middle,
            vec(instruction(), 0..16),
        )
            .prop_map(move |(gs_input, props, middle, insts)| {
                let mut s = Shader::new(processor);
                if processor == Processor::Geometry {
                    s.statements.push(Statement::Property(Property {
                        name: PropertyName::GsInputPrimitive,
                        value: gs_input as u32,
                    }));
                }
                s.statements
                    .extend(props.into_iter().map(Statement::Property));
                s.statements.extend(middle);
                s.statements
                    .extend(insts.into_iter().map(Statement::Instruction));
                s
            })
    })
}

/// An edit to apply to a word stream.
#[derive(Clone, Debug)]
enum WordEdit {
    FlipBit(usize, u32),
    Replace(usize, u32),
    Truncate(usize),
    Insert(usize, u32),
}

fn apply_edits(words: &mut Vec<u32>, edits: &[WordEdit]) {
    for edit in edits {
        if words.is_empty() {
            return;
        }
        match *edit {
            WordEdit::FlipBit(i, bit) => {
                let i = i % words.len();
                words[i] ^= 1 << (bit % 32);
            }
            WordEdit::Replace(i, w) => {
                let i = i % words.len();
                words[i] = w;
            }
            WordEdit::Truncate(n) => {
                let n = n % words.len();
                words.truncate(n);
            }
            WordEdit::Insert(i, w) => {
                let i = i % words.len();
                words.insert(i, w);
            }
        }
    }
}

fn word_edit() -> impl Strategy<Value = WordEdit> {
    prop_oneof![
        4 => (any::<usize>(), any::<u32>()).prop_map(|(i, b)| WordEdit::FlipBit(i, b)),
        2 => (any::<usize>(), any::<u32>()).prop_map(|(i, w)| WordEdit::Replace(i, w)),
        1 => any::<usize>().prop_map(WordEdit::Truncate),
        1 => (any::<usize>(), any::<u32>()).prop_map(|(i, w)| WordEdit::Insert(i, w)),
    ]
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

proptest! {
    // 256 cases unless PROPTEST_CASES says otherwise.
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn encode_then_decode_is_identity(s in shader()) {
        for numbering in NUMBERINGS {
            let words = encode(&s, numbering).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back = decode(&words, numbering).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&back, &s);
            let bytes = tgsi::tokens::words_to_bytes(&words);
            prop_assert_eq!(tgsi::tokens::bytes_to_words(&bytes).unwrap(), words);
        }
    }

    #[test]
    fn print_then_parse_is_identity(s in shader()) {
        let text = tgsi::text::print(&s);
        match tgsi::text::parse(&text) {
            Ok((back, _)) => {
                prop_assert_eq!(&back, &s, "printed text:\n{}", text);
                prop_assert_eq!(tgsi::text::print(&back), text);
            }
            Err(d) => return Err(TestCaseError::fail(format!("{}\nprinted text:\n{}", d.render("printed.tgsi", &text), text))),
        }
    }

    #[test]
    fn decode_never_panics_on_random_words(words in vec(any::<u32>(), 0..64)) {
        if let Ok(s) = decode(&words, ProcessorNumbering::Mesa22) {
            prop_assert_eq!(encode(&s, ProcessorNumbering::Mesa22).unwrap(), words);
        }
    }

    #[test]
    fn decode_never_panics_on_random_bodies(
        processor in 0u32..6,
        body in vec(prop_oneof![any::<u32>(), (0u32..1 << 16).prop_map(|w| w & !0xc)], 0..48),
    ) {
        // A valid header and processor word, so that the damage reaches the tokens.
        let mut words = vec![2 | (body.len() as u32) << 8, processor];
        words.extend(body);
        if let Ok(s) = decode(&words, ProcessorNumbering::Mesa22) {
            prop_assert_eq!(encode(&s, ProcessorNumbering::Mesa22).unwrap(), words);
            let _ = tgsi::text::print(&s);
        }
    }

    #[test]
    fn decode_of_damaged_streams_never_panics(s in shader(), edits in vec(word_edit(), 1..4)) {
        let mut words = encode(&s, ProcessorNumbering::Mesa22).unwrap();
        apply_edits(&mut words, &edits);
        // Keep BodySize consistent half of the time so that damage reaches the body.
        if edits.len() % 2 == 0 && !words.is_empty() {
            words[0] = (words[0] & 0xff) | ((words.len().saturating_sub(2) as u32) << 8);
        }
        if let Ok(back) = decode(&words, ProcessorNumbering::Mesa22) {
            // Whatever is accepted is canonical: it encodes to the same words and prints.
            prop_assert_eq!(encode(&back, ProcessorNumbering::Mesa22).unwrap(), words);
            let _ = tgsi::text::print(&back);
        }
    }

    #[test]
    fn parse_never_panics_on_random_bytes(bytes in vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = tgsi::text::parse(&text);
    }

    #[test]
    fn parse_never_panics_on_damaged_text(s in shader(), cuts in vec((any::<usize>(), any::<char>()), 1..4)) {
        let mut text: Vec<char> = tgsi::text::print(&s).chars().collect();
        for (at, c) in cuts {
            if text.is_empty() {
                break;
            }
            let at = at % text.len();
            if c.is_ascii_digit() {
                text.remove(at);
            } else {
                text[at] = c;
            }
        }
        let text: String = text.into_iter().collect();
        let _ = tgsi::text::parse(&text);
    }
}
