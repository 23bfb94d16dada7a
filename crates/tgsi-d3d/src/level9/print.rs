//! Prints a Direct3D 9 program the way fxc lists the level-9 programs inside
//! an SM4 listing: the version line and one line per instruction, each
//! indented by four spaces (nested flow control two more per level), comments
//! left out, then a blank line and `// approximately N instruction slots
//! used`, with `(T texture, A arithmetic)` when texture instructions occur.

use super::program::{
    Body, Declaration, Destination, Instruction, Program, Register, Relative, ShaderKind,
    ShaderVersion, Source,
};
use super::tables::{
    COMPARISONS, DECL_USAGES, Naming, RegisterFile, RegisterNaming, SAMPLER_TEXTURE_TYPES,
    SlotClass,
};
use std::fmt::Write as _;

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];
const IDENTITY_SWIZZLE: u8 = 0xE4;

/// Instruction slots of a program, as fxc sums them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SlotCount {
    pub total: u32,
    pub texture: u32,
}

/// Adds up the instruction slots of `program` (declarations, definitions,
/// labels and comments take none; see the opcode table for the rest).
pub fn instruction_slots(program: &Program) -> SlotCount {
    let pixel = program.version.is_pixel();
    let mut count = SlotCount::default();
    for instruction in program.instructions() {
        let info = instruction.opcode.info();
        let slots = info.slots(pixel, program.version.major);
        count.total += slots;
        if info.class == SlotClass::Texture {
            count.texture += slots;
        }
    }
    count
}

/// The statistics line fxc ends each level-9 program with (no newline).
pub fn slot_summary(count: SlotCount) -> String {
    let noun = if count.total == 1 { "slot" } else { "slots" };
    let mut line = format!("// approximately {} instruction {noun} used", count.total);
    if count.texture > 0 {
        let _ = write!(
            line,
            " ({} texture, {} arithmetic)",
            count.texture,
            count.total - count.texture
        );
    }
    line
}

/// The listing of `program`: version line and instructions indented by four
/// spaces, a blank line, and the slot summary; every line ends in `\n`.
pub fn listing(program: &Program) -> String {
    let mut out = format!("    {}\n", program.version.name());
    let mut depth = 0usize;
    for instruction in program.instructions() {
        let info = instruction.opcode.info();
        if info.closes_block {
            depth = depth.saturating_sub(1);
        }
        out.push_str("    ");
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str(&instruction_text(instruction, program.version));
        out.push('\n');
        if info.opens_block {
            depth += 1;
        }
    }
    out.push('\n');
    out.push_str(&slot_summary(instruction_slots(program)));
    out.push('\n');
    out
}

/// One instruction as fxc prints it, without indentation.
pub fn instruction_text(instruction: &Instruction, version: ShaderVersion) -> String {
    let mut text = String::new();
    if instruction.coissue {
        text.push('+');
    }
    if let Body::Regular {
        predicate: Some(predicate),
        ..
    } = &instruction.body
    {
        let _ = write!(text, "({}) ", source_text(predicate, version));
    }
    match &instruction.body {
        Body::Regular {
            destination,
            sources,
            ..
        } => {
            text.push_str(&mnemonic(instruction, version));
            if let Some(destination) = destination {
                text.push_str(&result_modifiers(destination));
            }
            let operands: Vec<String> = destination
                .iter()
                .map(|d| destination_text(d, version))
                .chain(sources.iter().map(|s| source_text(s, version)))
                .collect();
            if !operands.is_empty() {
                text.push(' ');
                text.push_str(&operands.join(", "));
            }
        }
        Body::Declaration {
            declaration,
            destination,
        } => {
            text.push_str("dcl");
            text.push_str(&declaration_suffix(
                *declaration,
                destination.register.file,
                version,
            ));
            text.push_str(&result_modifiers(destination));
            text.push(' ');
            text.push_str(&destination_text(destination, version));
        }
        Body::DefineFloat {
            destination,
            values,
        } => {
            let _ = write!(text, "def {}", destination_text(destination, version));
            for value in values {
                let _ = write!(text, ", {}", float_text(*value));
            }
        }
        Body::DefineInt {
            destination,
            values,
        } => {
            let _ = write!(text, "defi {}", destination_text(destination, version));
            for value in values {
                let _ = write!(text, ", {value}");
            }
        }
        Body::DefineBool { destination, value } => {
            let _ = write!(
                text,
                "defb {}, {}",
                destination_text(destination, version),
                if *value != 0 { "true" } else { "false" }
            );
        }
    }
    text
}

/// The mnemonic of a regular instruction, from the table's naming rule.
fn mnemonic(instruction: &Instruction, version: ShaderVersion) -> String {
    let info = instruction.opcode.info();
    let pixel_one = version.is_pixel() && version.major == 1;
    match info.naming {
        Naming::Plain => info.name.to_string(),
        Naming::Comparison => {
            let comparison = COMPARISONS
                .get(usize::from(instruction.controls))
                .copied()
                .unwrap_or("");
            format!("{}_{comparison}", info.name)
        }
        Naming::TextureLoad if pixel_one && version.minor < 4 => "tex".to_string(),
        Naming::TextureLoad => match instruction.controls {
            1 => "texldp".to_string(),
            2 => "texldb".to_string(),
            _ => info.name.to_string(),
        },
        Naming::TextureCoordinate if pixel_one && version.minor >= 4 => "texcrd".to_string(),
        Naming::TextureCoordinate => info.name.to_string(),
    }
}

/// `_usage[index]` or `_texturetype` after `dcl`, by stage and register.
fn declaration_suffix(
    declaration: Declaration,
    file: RegisterFile,
    version: ShaderVersion,
) -> String {
    if file == RegisterFile::Sampler {
        let name = SAMPLER_TEXTURE_TYPES
            .get(usize::from(declaration.texture_type))
            .copied()
            .unwrap_or("");
        return if name.is_empty() {
            String::new()
        } else {
            format!("_{name}")
        };
    }
    // Pixel shaders before model 3 declare `t#`/`v#` without a usage, and
    // `vPos`/`vFace` never have one.
    let with_usage = match version.kind {
        ShaderKind::Vertex | ShaderKind::LibraryVertex => true,
        ShaderKind::Pixel | ShaderKind::LibraryPixel => {
            version.major >= 3 && file != RegisterFile::Misc
        }
    };
    if !with_usage {
        return String::new();
    }
    let usage = DECL_USAGES
        .get(usize::from(declaration.usage))
        .copied()
        .unwrap_or("");
    if declaration.usage_index == 0 {
        format!("_{usage}")
    } else {
        format!("_{usage}{}", declaration.usage_index)
    }
}

/// Shift and result modifiers, in fxc's order: `_x2_sat_pp_centroid`.
fn result_modifiers(destination: &Destination) -> String {
    let mut text = String::new();
    match destination.shift {
        0 => {}
        shift @ 1.. => {
            let _ = write!(text, "_x{}", 1u32 << shift);
        }
        shift => {
            let _ = write!(text, "_d{}", 1u32 << shift.unsigned_abs());
        }
    }
    if destination.saturate {
        text.push_str("_sat");
    }
    if destination.partial_precision {
        text.push_str("_pp");
    }
    if destination.centroid {
        text.push_str("_centroid");
    }
    text
}

/// The name of a register (`r0`, `oPos`, `t1`, `c2048`, `aL`).
pub fn register_text(register: Register, version: ShaderVersion) -> String {
    let number = register.number;
    match register.file.info().naming {
        RegisterNaming::Numbered(prefix) => format!("{prefix}{number}"),
        RegisterNaming::Offset(prefix, base) => format!("{prefix}{}", base + u32::from(number)),
        RegisterNaming::Named(names) => names
            .get(usize::from(number))
            .map_or_else(|| format!("{:?}{number}", register.file), |n| n.to_string()),
        RegisterNaming::AddressOrTexture if version.is_pixel() => format!("t{number}"),
        RegisterNaming::AddressOrTexture => format!("a{number}"),
        RegisterNaming::TextureOrOutput
            if version.kind == ShaderKind::Vertex && version.major >= 3 =>
        {
            format!("o{number}")
        }
        RegisterNaming::TextureOrOutput => format!("oT{number}"),
    }
}

fn relative_text(relative: &Option<Relative>, version: ShaderVersion) -> String {
    match relative {
        None => String::new(),
        Some(Relative::Implicit) => "[a0.x]".to_string(),
        Some(Relative::Address(address)) => format!("[{}]", source_text(address, version)),
    }
}

/// A write mask in fxc's form: nothing for `.xyzw`, else the written
/// components in order.
pub fn write_mask_text(mask: u8) -> String {
    if mask & 0xF == 0xF {
        return String::new();
    }
    let mut text = String::from(".");
    for (bit, component) in COMPONENTS.iter().enumerate() {
        if mask & (1 << bit) != 0 {
            text.push(*component);
        }
    }
    text
}

/// A swizzle in fxc's form: nothing for `.xyzw`, one letter when all four
/// selectors agree, otherwise all four.
pub fn swizzle_text(swizzle: u8) -> String {
    if swizzle == IDENTITY_SWIZZLE {
        return String::new();
    }
    let selectors: Vec<usize> = (0..4)
        .map(|i| usize::from((swizzle >> (2 * i)) & 3))
        .collect();
    let mut text = String::from(".");
    if selectors.iter().all(|&s| s == selectors[0]) {
        text.push(COMPONENTS[selectors[0]]);
    } else {
        text.extend(selectors.iter().map(|&s| COMPONENTS[s]));
    }
    text
}

/// A destination operand: register, relative address, write mask.
pub fn destination_text(destination: &Destination, version: ShaderVersion) -> String {
    format!(
        "{}{}{}",
        register_text(destination.register, version),
        relative_text(&destination.relative, version),
        write_mask_text(destination.write_mask)
    )
}

/// A source operand: modifier prefix, register, relative address, modifier
/// suffix, swizzle (`-r0_abs.x`, `c3[a0.x]`, `1-r1.w`).
pub fn source_text(source: &Source, version: ShaderVersion) -> String {
    let modifier = source.modifier.info();
    format!(
        "{}{}{}{}{}",
        modifier.prefix,
        register_text(source.register, version),
        relative_text(&source.relative, version),
        modifier.suffix,
        swizzle_text(source.swizzle)
    )
}

/// A `def` value as fxc prints it: C's `%.9g` (shortest of fixed and
/// exponent form, trailing zeros dropped) with a three-digit exponent as the
/// Windows C runtime writes it (`9.99999975e-005`), `-0` for negative zero.
pub fn float_text(bits: u32) -> String {
    let value = f32::from_bits(bits);
    if value.is_nan() {
        return if value.is_sign_negative() {
            "-1.#QNAN".to_string()
        } else {
            "1.#QNAN".to_string()
        };
    }
    if value.is_infinite() {
        return if value < 0.0 {
            "-1.#INF".to_string()
        } else {
            "1.#INF".to_string()
        };
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    const PRECISION: i32 = 9;
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, f64::from(value));
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("{:e} always writes an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} writes a decimal exponent");
    if !(-4..PRECISION).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:03}",
            trim_fraction(mantissa),
            exponent.unsigned_abs()
        )
    } else {
        let decimals = (PRECISION - 1 - exponent).max(0) as usize;
        trim_fraction(&format!("{:.*}", decimals, f64::from(value))).to_string()
    }
}

/// Drops trailing zeros of a fraction, and the point if nothing remains.
fn trim_fraction(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::super::program::{decode, encode};
    use super::*;

    fn words_to_program(words: &[u32]) -> Program {
        let bytes = crate::blob::le_bytes(words);
        let program = decode(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(encode(&program), bytes, "the tokens encode back");
        program
    }

    fn lines(words: &[u32]) -> Vec<String> {
        let program = words_to_program(words);
        program
            .instructions()
            .map(|i| instruction_text(i, program.version))
            .collect()
    }

    const VS20: u32 = 0xFFFE_0200;
    const PS20: u32 = 0xFFFF_0200;
    const END: u32 = 0x0000_FFFF;

    #[test]
    fn floats_print_like_msvc_percent_point_nine_g() {
        let f = |v: f32| float_text(v.to_bits());
        assert_eq!(f(5.0), "5");
        assert_eq!(f(0.5), "0.5");
        assert_eq!(f(-0.0), "-0");
        assert_eq!(f(0.0), "0");
        assert_eq!(f(1e-4), "9.99999975e-005");
        assert_eq!(f(0.999), "0.999000013");
        assert_eq!(f(-0.1688), "-0.168799996");
        assert_eq!(f(0.15915494), "0.159154937");
        assert_eq!(f(-std::f32::consts::PI), "-3.14159274");
        assert_eq!(f(1.0e10), "1e+010");
        assert_eq!(f(123456789.0), "123456792");
        assert_eq!(f(0.001), "0.00100000005");
        assert_eq!(f(f32::INFINITY), "1.#INF");
    }

    #[test]
    fn masks_and_swizzles_take_fxc_short_forms() {
        assert_eq!(write_mask_text(0xF), "");
        assert_eq!(write_mask_text(0b0011), ".xy");
        assert_eq!(write_mask_text(0b1000), ".w");
        assert_eq!(swizzle_text(0xE4), "");
        assert_eq!(swizzle_text(0x00), ".x");
        assert_eq!(swizzle_text(0xFF), ".w");
        assert_eq!(swizzle_text(0x24), ".xyzx");
        assert_eq!(swizzle_text(0x54), ".xyyy");
    }

    #[test]
    fn vertex_registers_declarations_and_outputs() {
        assert_eq!(
            lines(&[
                VS20,
                0x0200_001F,
                0x8000_0005,
                0x900F_0000,
                0x0200_001F,
                0x8002_0005,
                0x900F_0002,
                0x0300_0009,
                0xC004_0000,
                0x90E4_0000,
                0xA0E4_0003,
                0x0200_0001,
                0xE003_0002,
                0x90E4_0003,
                0x0200_0001,
                0xD00F_0000,
                0x90E4_0001,
                0x0300_0005,
                0x8003_0001,
                0x80AA_0000,
                0xA0E4_0000,
                END,
            ]),
            [
                "dcl_texcoord v0",
                "dcl_texcoord2 v2",
                "dp4 oPos.z, v0, c3",
                "mov oT2.xy, v3",
                "mov oD0, v1",
                "mul r1.xy, r0.z, c0",
            ]
        );
    }

    #[test]
    fn pixel_declarations_texture_loads_and_modifiers() {
        assert_eq!(
            lines(&[
                PS20,
                0x0200_001F,
                0x8000_0000,
                0xB007_0000,
                0x0200_001F,
                0x8000_0000,
                0xB047_0001,
                0x0200_001F,
                0x9000_0000,
                0xA00F_0800,
                0x0200_001F,
                0x9800_0000,
                0xA00F_0801,
                0x0300_0042,
                0x800F_0000,
                0xB0E4_0000,
                0xA0E4_0800,
                0x0301_0042,
                0x802F_0000,
                0xB0E4_0000,
                0xA0E4_0801,
                0x0400_0004,
                0x811F_0000,
                0x8BE4_0000,
                0x8C00_0001,
                0x86FF_0000,
                0x0100_0041,
                0x800F_0002,
                0x0200_0001,
                0x800F_0800,
                0x8000_0000,
                END,
            ]),
            [
                "dcl t0.xyz",
                "dcl_centroid t1.xyz",
                "dcl_2d s0",
                "dcl_cube s1",
                "texld r0, t0, s0",
                "texldp_pp r0, t0, s1",
                "mad_x2_sat r0, r0_abs, -r1_abs.x, 1-r0.w",
                "texkill r2",
                "mov oC0, r0.x",
            ]
        );
    }

    #[test]
    fn definitions_flow_control_and_relative_addressing() {
        let program = words_to_program(&[
            0xFFFE_0201,
            0x0500_0051,
            0xA00F_0004,
            0x4000_0000,
            0x0000_0000,
            0x3F00_0000,
            0x8000_0000,
            0x0500_0030,
            0xF00F_0000,
            0x0000_0003,
            0xFFFF_FFFF,
            0x0000_0001,
            0x0000_0000,
            0x0200_002F,
            0xE00F_0800,
            0x0000_0000,
            0x0100_0026,
            0xF0E4_0000,
            0x0100_0028,
            0xE0E4_0800,
            0x0300_0001,
            0x800F_0000,
            0xA0E4_2005,
            0xB000_0000,
            0x0000_002A,
            0x0201_0029,
            0x8000_0000,
            0x8000_0000,
            0x0000_002B,
            0x0000_002B,
            0x0000_0027,
            0x0200_0001,
            0xC00F_0000,
            0x80E4_0000,
            END,
        ]);
        let text = listing(&program);
        assert_eq!(
            text,
            "    vs_2_x\n    def c4, 2, 0, 0.5, -0\n    defi i0, 3, -1, 1, 0\n    defb b0, false\n    rep i0\n      if b0\n        mov r0, c5[a0.x]\n      else\n        if_gt r0.x, r0.x\n        endif\n      endif\n    endrep\n    mov oPos, r0\n\n// approximately 16 instruction slots used\n"
        );
    }

    /// A parameter token of register type `file` and number `number`.
    fn parameter(file: u32, number: u32) -> u32 {
        0x8000_0000 | number | ((file & 7) << 28) | ((file & 0x18) << 8)
    }

    fn dst(file: u32, number: u32, mask: u32) -> u32 {
        parameter(file, number) | (mask << 16)
    }

    fn src(file: u32, number: u32, swizzle: u32) -> u32 {
        parameter(file, number) | (swizzle << 16)
    }

    fn ins(opcode: u32, controls: u32, length: u32) -> u32 {
        opcode | (controls << 16) | (length << 24)
    }

    const TEMP: u32 = 0;
    const INPUT: u32 = 1;
    const CONST: u32 = 2;
    const TEXTURE: u32 = 3;
    const OUTPUT: u32 = 6;
    const INT: u32 = 7;
    const SAMPLER: u32 = 10;
    const CONST2: u32 = 11;
    const BOOL: u32 = 14;
    const LOOP: u32 = 15;
    const LABEL: u32 = 18;
    const PREDICATE: u32 = 19;
    const XYZW: u32 = 0xE4;

    #[test]
    fn model_three_loops_predicates_and_outputs() {
        let program = words_to_program(&[
            0xFFFE_0300,
            ins(31, 0, 2),
            0x8000_0000,
            dst(OUTPUT, 0, 0xF),
            ins(31, 0, 2),
            0x8001_0005,
            dst(OUTPUT, 1, 0b0011),
            ins(31, 0, 2),
            0x9000_0000,
            dst(SAMPLER, 0, 0xF),
            ins(95, 0, 3),
            dst(TEMP, 0, 0xF),
            src(INPUT, 0, XYZW),
            src(SAMPLER, 0, XYZW),
            ins(27, 0, 2),
            src(LOOP, 0, XYZW),
            src(INT, 0, XYZW),
            ins(1, 0, 3),
            dst(TEMP, 1, 0xF),
            src(CONST, 2, XYZW) | 0x2000,
            src(LOOP, 0, XYZW),
            ins(45, 5, 2),
            src(TEMP, 1, 0x00),
            src(CONST, 0, 0x55),
            ins(29, 0, 0),
            ins(94, 3, 3),
            dst(PREDICATE, 0, 0b0001),
            src(TEMP, 0, 0x00),
            src(CONST, 0, 0x00),
            ins(1, 0, 3) | 0x1000_0000,
            dst(TEMP, 2, 0xF),
            src(PREDICATE, 0, 0x00) | (13 << 24),
            src(TEMP, 0, XYZW),
            ins(37, 0, 2),
            dst(TEMP, 0, 0b0011),
            src(TEMP, 1, 0x00),
            ins(5, 0, 3),
            dst(TEMP, 0, 0xF) | 0x0F00_0000,
            src(CONST2, 1, XYZW),
            src(INPUT, 0, XYZW),
            ins(26, 0, 2),
            src(LABEL, 1, XYZW),
            src(BOOL, 2, XYZW),
            ins(28, 0, 0),
            ins(30, 0, 1),
            src(LABEL, 1, XYZW),
            ins(28, 0, 0),
            0x0000_FFFF,
        ]);
        assert_eq!(
            listing(&program),
            "    vs_3_0
    dcl_position o0
    dcl_texcoord1 o1.xy
    dcl_2d s0
    texldl r0, v0, s0
    loop aL, i0
      mov r1, c2[aL]
      break_ne r1.x, c0.y
    endloop
    setp_ge p0.x, r0.x, c0.x
    (!p0.x) mov r2, r0
    sincos r0.xy, r1.x
    mul_d2 r0, c2049, v0
    callnz l1, b2
    ret
    label l1
    ret

// approximately 27 instruction slots used (2 texture, 25 arithmetic)
"
        );
    }

    #[test]
    fn model_one_pixel_names_and_modifiers() {
        assert_eq!(
            lines(&[
                0xFFFF_0104,
                ins(64, 0, 0),
                dst(TEMP, 0, 0b0111),
                src(TEXTURE, 0, XYZW),
                ins(66, 0, 0),
                dst(TEMP, 1, 0xF),
                src(TEXTURE, 1, XYZW) | (10 << 24),
                0x0000_FFFF,
            ]),
            ["texcrd r0.xyz, t0", "texld r1, t1_dw"]
        );
        assert_eq!(
            lines(&[
                0xFFFF_0101,
                ins(66, 0, 0),
                dst(TEXTURE, 0, 0xF),
                ins(5, 0, 0),
                dst(TEMP, 0, 0b0111),
                src(TEXTURE, 0, XYZW) | (4 << 24),
                src(INPUT, 0, XYZW) | (2 << 24),
                ins(1, 0, 0) | 0x4000_0000,
                dst(TEMP, 0, 0b1000),
                src(TEXTURE, 0, 0xFF) | (5 << 24),
                0x0000_FFFF,
            ]),
            [
                "tex t0",
                "mul r0.xyz, t0_bx2, v0_bias",
                "+mov r0.w, -t0_bx2.w"
            ]
        );
    }

    #[test]
    fn pixel_model_three_declares_usages_but_not_for_vface() {
        assert_eq!(
            lines(&[
                0xFFFF_0300,
                ins(31, 0, 2),
                0x8001_0005,
                dst(INPUT, 0, 0b0011) | (4 << 20),
                ins(31, 0, 2),
                0x8000_0000,
                dst(17, 1, 0xF),
                ins(31, 0, 2),
                0x8000_000A,
                dst(INPUT, 1, 0xF) | (2 << 20),
                0x0000_FFFF,
            ]),
            [
                "dcl_texcoord1_centroid v0.xy",
                "dcl vFace",
                "dcl_color_pp v1"
            ]
        );
    }

    #[test]
    fn slot_summary_forms() {
        assert_eq!(
            slot_summary(SlotCount {
                total: 1,
                texture: 0
            }),
            "// approximately 1 instruction slot used"
        );
        assert_eq!(
            slot_summary(SlotCount {
                total: 18,
                texture: 4
            }),
            "// approximately 18 instruction slots used (4 texture, 14 arithmetic)"
        );
    }

    #[test]
    fn library_programs_name_registers_by_stage() {
        let vertex = ShaderVersion::from_token(0x4C56_0200).unwrap();
        let pixel = ShaderVersion::from_token(0x4C50_0201).unwrap();
        let vs3 = ShaderVersion::from_token(0xFFFE_0300).unwrap();
        let t = |file, number, version| register_text(Register { file, number }, version);
        assert_eq!(t(RegisterFile::AddressTexture, 0, vertex), "a0");
        assert_eq!(t(RegisterFile::AddressTexture, 2, pixel), "t2");
        assert_eq!(t(RegisterFile::TexCoordOut, 4, pixel), "oT4");
        assert_eq!(t(RegisterFile::TexCoordOut, 4, vs3), "o4");
        assert_eq!(t(RegisterFile::Const2, 1, vs3), "c2049");
        assert_eq!(t(RegisterFile::Misc, 1, vs3), "vFace");
        assert_eq!(t(RegisterFile::Loop, 0, vs3), "aL");
        assert_eq!(t(RegisterFile::DepthOut, 0, pixel), "oDepth");
    }
}
