//! The disassembler: IR → canonical `tgsi_dump` text.
//!
//! The layout is Mesa 22.3's `tgsi_dump` with flags 0, piece by piece, so
//! that Mesa's own dumps print back byte for byte. Where Mesa's dump loses
//! information, this printer makes one deliberate, documented choice so that
//! `parse(print(x)) == x` for everything the text form can express:
//!
//! * **FLT32 immediates** print as `%10.4f` (C semantics: width 10, four
//!   decimals, right-aligned) when that text, read back as a correctly
//!   rounded `f32` (as `str::parse::<f32>` does), gives exactly the same
//!   bits; otherwise (more precision needed, NaN, infinity) they print as
//!   `0x%08x` of the raw bits, which the assembler reads back exactly.
//!   `-0.0` prints as `   -0.0000`.
//! * **FLT64 immediates** print as `%10.8f` when exact in the same sense,
//!   otherwise as the shortest round-trip decimal in exponent form (Rust's
//!   `{:e}`, e.g. `1.2345678901234567e-7`), which `strtod` reads; infinities
//!   print as `inf`/`-inf` and NaNs as `nan` (the payload is lost: the text
//!   form has no way to spell it).
//! * **Property values** without a name table print as unsigned decimal
//!   (Mesa prints `%d`; the two differ only above `i32::MAX`, where `%d`
//!   would not parse back).
//! * Enumerated values without a name (an out-of-table primitive, pipe
//!   format…) print as decimal numbers, as Mesa does.
//! * The interpolation mode prints whenever the declaration has one. Mesa
//!   shows it only on fragment-shader inputs, but its assembler also accepts
//!   it elsewhere (`DCL OUT[0], COLOR, CONSTANT` in old Mesa tests) and keeps
//!   it in the tokens, so hiding it would lose it.
//! * As in Mesa, labels show on IF, UIF, ELSE, BGNLOOP, ENDLOOP, CAL (the
//!   branch opcodes of the table) and BGNSUB, and the SAMPLE family's texture
//!   target is not shown (the assembler gives them UNKNOWN).
//! * A non-zero cylindrical wrap prints as `, CYLWRAP_<letters>` (the form
//!   older dumpers used; Mesa 22.3 no longer has the field).

use std::fmt::Write;
use tgsi_ir::enums::{File, ImmType, InterpLocation, TextureTarget};
use tgsi_ir::enums::{Primitive, Processor, PropertyName};
use tgsi_ir::ir::*;
use tgsi_ir::opcode::{OpFlags, Opcode};

/// Prints a shader in the canonical dump layout.
pub fn print(shader: &Shader) -> String {
    let mut out = String::new();
    out.push_str(shader.processor.name());
    out.push('\n');
    let mut immediate_number = 0usize;
    let mut instruction_number = 0usize;
    let mut indent: i32 = 0;
    for statement in &shader.statements {
        match statement {
            Statement::Property(p) => print_property(&mut out, p),
            Statement::Declaration(d) => print_declaration(&mut out, shader.processor, d),
            Statement::Immediate(imm) => {
                print_immediate(&mut out, immediate_number, imm);
                immediate_number += 1;
            }
            Statement::Instruction(inst) => {
                print_instruction(&mut out, instruction_number, &mut indent, inst);
                instruction_number += 1;
            }
        }
    }
    out
}

fn print_property(out: &mut String, p: &Property) {
    out.push_str("PROPERTY ");
    out.push_str(p.name.name());
    out.push(' ');
    let named = match p.name {
        PropertyName::GsInputPrimitive | PropertyName::GsOutputPrimitive => {
            Primitive::from_u32(p.value).map(|v| v.name())
        }
        PropertyName::FsCoordOrigin => ["UPPER_LEFT", "LOWER_LEFT"].get(p.value as usize).copied(),
        PropertyName::FsCoordPixelCenter => {
            ["HALF_INTEGER", "INTEGER"].get(p.value as usize).copied()
        }
        PropertyName::NextShader => Processor::from_u32(p.value).map(|v| v.name()),
        _ => None,
    };
    match named {
        Some(name) => out.push_str(name),
        None => {
            let _ = write!(out, "{}", p.value);
        }
    }
    out.push('\n');
}

/// True for the per-patch semantics that make a tessellation I/O declaration 1-D.
fn is_patch_semantic(decl: &Declaration) -> bool {
    decl.semantic.is_some_and(|s| s.name.is_patch())
}

/// Whether the printer writes the implied (empty) vertex bracket `[]`.
fn has_implied_vertex_bracket(processor: Processor, decl: &Declaration) -> bool {
    let patch = is_patch_semantic(decl);
    match decl.file {
        File::Input => {
            processor == Processor::Geometry
                || (!patch && matches!(processor, Processor::TessCtrl | Processor::TessEval))
        }
        File::Output => !patch && processor == Processor::TessCtrl,
        _ => false,
    }
}

fn push_write_mask(out: &mut String, mask: WriteMask) {
    if mask != WriteMask::XYZW {
        out.push('.');
        out.push_str(&mask.letters());
    }
}

fn print_declaration(out: &mut String, processor: Processor, d: &Declaration) {
    out.push_str("DCL ");
    out.push_str(d.file.name());
    if has_implied_vertex_bracket(processor, d) {
        out.push_str("[]");
    }
    if let Some(dim) = d.dimension {
        let _ = write!(out, "[{dim}]");
    }
    if d.first == d.last {
        let _ = write!(out, "[{}]", d.first);
    } else {
        let _ = write!(out, "[{}..{}]", d.first, d.last);
    }
    push_write_mask(out, d.usage_mask);
    if let Some(id) = d.array_id {
        let _ = write!(out, ", ARRAY({id})");
    }
    if d.local {
        out.push_str(", LOCAL");
    }
    if let Some(sem) = &d.semantic {
        out.push_str(", ");
        out.push_str(sem.name.name());
        if sem.index != 0 || sem.name.always_prints_index() {
            let _ = write!(out, "[{}]", sem.index);
        }
        if sem.streams.iter().any(|s| *s != 0) {
            let [x, y, z, w] = sem.streams;
            let _ = write!(out, ", STREAM({x}, {y}, {z}, {w})");
        }
    }
    if let Some(image) = &d.image {
        let _ = write!(out, ", {}, {}", image.target.name(), image.format);
        if image.writable {
            out.push_str(", WR");
        }
        if image.raw {
            out.push_str(", RAW");
        }
    }
    if d.file == File::Buffer && d.atomic {
        out.push_str(", ATOMIC");
    }
    if d.file == File::Memory {
        out.push_str(", ");
        out.push_str(d.mem_type.name());
    }
    if let Some(view) = &d.sampler_view {
        out.push_str(", ");
        out.push_str(view.target.name());
        let [x, y, z, w] = view.return_types;
        if x == y && x == z && x == w {
            let _ = write!(out, ", {x}");
        } else {
            let _ = write!(out, ", {x}, {y}, {z}, {w}");
        }
    }
    if let Some(interp) = &d.interp {
        out.push_str(", ");
        out.push_str(interp.mode.name());
        if interp.location != InterpLocation::Center {
            out.push_str(", ");
            out.push_str(interp.location.name());
        }
        if interp.cylindrical_wrap & 15 != 0 {
            out.push_str(", CYLWRAP_");
            for (bit, letter) in ['X', 'Y', 'Z', 'W'].iter().enumerate() {
                if interp.cylindrical_wrap & (1 << bit) != 0 {
                    out.push(*letter);
                }
            }
        }
    }
    if d.invariant {
        out.push_str(", INVARIANT");
    }
    out.push('\n');
}

/// Formats an `f32` losslessly: `%10.4f` when that reads back to the same
/// bits, else `0x%08x` of the bits.
pub fn format_f32(value: f32) -> String {
    if value.is_finite() {
        let text = format!("{value:10.4}");
        if text
            .trim_start()
            .parse::<f32>()
            .is_ok_and(|back| back.to_bits() == value.to_bits())
        {
            return text;
        }
    }
    format!("0x{:08x}", value.to_bits())
}

/// Formats an `f64` for `strtod`: `%10.8f` when exact, else the shortest
/// round-trip decimal in exponent form.
pub fn format_f64(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let text = format!("{value:10.8}");
    if text
        .trim_start()
        .parse::<f64>()
        .is_ok_and(|back| back.to_bits() == value.to_bits())
    {
        return text;
    }
    format!("{value:e}")
}

fn print_immediate(out: &mut String, number: usize, imm: &Immediate) {
    let _ = write!(out, "IMM[{number}] {} {{", imm.ty.name());
    let values: Vec<String> = if imm.ty.is_64bit() {
        imm.words
            .chunks(2)
            .map(|pair| {
                let low = pair[0] as u64;
                let high = pair.get(1).copied().unwrap_or(0) as u64;
                let bits = low | (high << 32);
                match imm.ty {
                    ImmType::Flt64 => format_f64(f64::from_bits(bits)),
                    ImmType::Int64 => (bits as i64).to_string(),
                    _ => bits.to_string(),
                }
            })
            .collect()
    } else {
        imm.words
            .iter()
            .map(|&w| match imm.ty {
                ImmType::Flt32 => format_f32(f32::from_bits(w)),
                ImmType::Int32 => (w as i32).to_string(),
                _ => w.to_string(),
            })
            .collect()
    };
    out.push_str(&values.join(", "));
    out.push_str("}\n");
}

fn push_index(out: &mut String, index: &Index) {
    out.push('[');
    match &index.indirect {
        None => {
            let _ = write!(out, "{}", index.offset);
        }
        Some(ind) => {
            let _ = write!(
                out,
                "{}[{}].{}",
                ind.file.name(),
                ind.index,
                ind.component.letter()
            );
            if index.offset > 0 {
                let _ = write!(out, "+{}", index.offset);
            } else if index.offset < 0 {
                let _ = write!(out, "{}", index.offset);
            }
        }
    }
    out.push(']');
    if let Some(ind) = &index.indirect
        && ind.array_id != 0
    {
        let _ = write!(out, "({})", ind.array_id);
    }
}

fn push_register(out: &mut String, reg: &Register) {
    out.push_str(reg.file.name());
    if let Some(dim) = &reg.dimension {
        push_index(out, dim);
    }
    push_index(out, &reg.index);
}

/// True for the opcodes whose label the dumper shows.
fn prints_label(opcode: Opcode) -> bool {
    opcode.flags().contains(OpFlags::BRANCH) || opcode == Opcode::BGNSUB
}

/// The deepest indentation printed (in levels of two spaces): code nested
/// deeper prints at this depth, so that the text grows with the program,
/// not with the square of its nesting (Mesa's dump has no limit; no
/// program of Mesa's nests this deep).
const MAX_INDENT: i32 = 32;

fn print_instruction(out: &mut String, number: usize, indent: &mut i32, inst: &Instruction) {
    let flags = inst.opcode.flags();
    let _ = write!(out, "{number:3}: ");
    if flags.contains(OpFlags::PRE_DEDENT) {
        *indent -= 1;
    }
    for _ in 0..(*indent).clamp(0, MAX_INDENT) {
        out.push_str("  ");
    }
    if flags.contains(OpFlags::POST_INDENT) {
        *indent += 1;
    }
    out.push_str(inst.opcode.name());
    if inst.saturate {
        out.push_str("_SAT");
    }
    if inst.precise {
        out.push_str("_PRECISE");
    }
    let mut first = true;
    let mut separator = |out: &mut String| {
        if !first {
            out.push(',');
        }
        out.push(' ');
        first = false;
    };
    for dst in &inst.dst {
        separator(out);
        push_register(out, &dst.reg);
        push_write_mask(out, dst.write_mask);
    }
    for src in &inst.src {
        separator(out);
        if src.negate {
            out.push('-');
        }
        if src.absolute {
            out.push('|');
        }
        push_register(out, &src.reg);
        if !src.swizzle.is_identity() {
            out.push('.');
            for c in src.swizzle.0 {
                out.push(c.letter());
            }
        }
        if src.absolute {
            out.push('|');
        }
    }
    if let Some(tex) = &inst.texture {
        if !flags.contains(OpFlags::SAMPLE) {
            out.push_str(", ");
            out.push_str(tex.target.name());
        }
        for off in &tex.offsets {
            let _ = write!(out, ", {}[{}].", off.file.name(), off.index);
            for c in off.swizzle {
                out.push(c.letter());
            }
        }
    }
    if let Some(mem) = &inst.memory {
        for (bit, name) in MemQualifier::NAMES {
            if mem.qualifier.contains(bit) {
                out.push_str(", ");
                out.push_str(name);
            }
        }
        if mem.target != TextureTarget::Buffer {
            out.push_str(", ");
            out.push_str(mem.target.name());
        }
        if mem.format.0 != 0 {
            let _ = write!(out, ", {}", mem.format);
        }
    }
    if let Some(label) = inst.label
        && prints_label(inst.opcode)
    {
        let _ = write!(out, " :{label}");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi_ir::enums::*;

    /// Nesting deeper than 32 levels prints at 32 levels' indentation.
    #[test]
    fn indentation_stops_at_32_levels() {
        let text = format!(
            "COMP\nDCL TEMP[0]\n{}{}END\n",
            "UIF TEMP[0].xxxx\n".repeat(40),
            "ENDIF\n".repeat(40)
        );
        let (shader, _) = crate::assemble(&text).unwrap();
        let printed = print(&shader);
        let widest = printed
            .lines()
            .map(|l| {
                l.split(": ")
                    .nth(1)
                    .map_or(0, |t| t.len() - t.trim_start().len())
            })
            .max();
        assert_eq!(widest, Some(64), "{printed}");
        assert!(
            printed.contains(&format!("{}ENDIF", " ".repeat(14))),
            "{printed}"
        );
    }

    #[test]
    fn floats_are_lossless() {
        assert_eq!(format_f32(1.0), "    1.0000");
        assert_eq!(format_f32(-2.5), "   -2.5000");
        assert_eq!(format_f32(0.1), "    0.1000");
        assert_eq!(format_f32(-0.0), "   -0.0000");
        assert_eq!(format_f32(1.0e-7), "0x33d6bf95");
        assert_eq!(
            format_f32(f32::NAN),
            format!("0x{:08x}", f32::NAN.to_bits())
        );
        assert_eq!(format_f32(123456.5), "123456.5000");
        assert_eq!(format_f64(1.5), "1.50000000");
        assert_eq!(format_f64(-0.0), "-0.00000000");
        assert_eq!(format_f64(1.0e-9), "1e-9");
        assert_eq!(format_f64(0.1).parse::<f64>().unwrap(), 0.1);
        assert_eq!(format_f64(f64::NEG_INFINITY), "-inf");
    }

    fn src(file: File, index: i32) -> SrcOperand {
        SrcOperand::new(Register::new(file, index))
    }

    #[test]
    fn prints_a_small_fragment_shader() {
        let mut s = Shader::new(Processor::Fragment);
        s.statements.push(Statement::Property(Property {
            name: PropertyName::FsCoordOrigin,
            value: 1,
        }));
        let mut input = Declaration::new(File::Input, 0, 0);
        input.usage_mask = WriteMask::X | WriteMask::Y;
        input.semantic = Some(Semantic {
            name: SemanticName::Generic,
            index: 0,
            streams: [0; 4],
        });
        input.interp = Some(Interp {
            mode: InterpMode::Perspective,
            location: InterpLocation::Centroid,
            cylindrical_wrap: 0,
        });
        s.statements.push(Statement::Declaration(input));
        let mut temps = Declaration::new(File::Temp, 0, 7);
        temps.array_id = Some(1);
        temps.local = true;
        s.statements.push(Statement::Declaration(temps));
        s.statements.push(Statement::Immediate(Immediate {
            ty: ImmType::Flt32,
            words: vec![1.0f32.to_bits(), 0.5f32.to_bits(), 0, (-2.0f32).to_bits()],
        }));
        let mut cond = src(File::Temp, 0);
        cond.swizzle = Swizzle::replicate(Component::X);
        let mut iff = Instruction::new(Opcode::IF, vec![], vec![cond]);
        iff.label = Some(3);
        s.statements.push(Statement::Instruction(iff));
        let mut neg = src(File::Input, 1);
        neg.negate = true;
        neg.absolute = true;
        neg.swizzle = Swizzle([Component::Z, Component::W, Component::Z, Component::W]);
        let mut dst_reg = Register::new(File::Temp, 0);
        dst_reg.index = Index {
            offset: 0,
            indirect: Some(IndirectAddr {
                file: File::Address,
                index: 0,
                component: Component::X,
                array_id: 1,
            }),
        };
        let mov = Instruction::new(
            Opcode::MOV,
            vec![DstOperand {
                reg: dst_reg,
                write_mask: WriteMask::X | WriteMask::Y,
            }],
            vec![neg],
        );
        s.statements.push(Statement::Instruction(mov));
        let mut tex = Instruction::new(
            Opcode::TEX,
            vec![DstOperand {
                reg: Register::new(File::Temp, 1),
                write_mask: WriteMask::XYZW,
            }],
            vec![src(File::Temp, 0), src(File::Sampler, 0)],
        );
        tex.texture.as_mut().unwrap().target = TextureTarget::Tex2D;
        s.statements.push(Statement::Instruction(tex));
        s.statements.push(Statement::Instruction(Instruction::new(
            Opcode::ENDIF,
            vec![],
            vec![],
        )));
        s.statements.push(Statement::Instruction(Instruction::new(
            Opcode::END,
            vec![],
            vec![],
        )));
        let expected = concat!(
            "FRAG\n",
            "PROPERTY FS_COORD_ORIGIN LOWER_LEFT\n",
            "DCL IN[0].xy, GENERIC[0], PERSPECTIVE, CENTROID\n",
            "DCL TEMP[0..7], ARRAY(1), LOCAL\n",
            "IMM[0] FLT32 {    1.0000,     0.5000,     0.0000,    -2.0000}\n",
            "  0: IF TEMP[0].xxxx :3\n",
            "  1:   MOV TEMP[ADDR[0].x](1).xy, -|IN[1].zwzw|\n",
            "  2:   TEX TEMP[1], TEMP[0], SAMP[0], 2D\n",
            "  3: ENDIF\n",
            "  4: END\n",
        );
        assert_eq!(print(&s), expected);
    }

    #[test]
    fn geometry_inputs_get_the_implied_bracket() {
        let mut s = Shader::new(Processor::Geometry);
        let mut d = Declaration::new(File::Input, 0, 0);
        d.semantic = Some(Semantic {
            name: SemanticName::Position,
            index: 0,
            streams: [0; 4],
        });
        s.statements.push(Statement::Declaration(d));
        let mut tcs_patch = Declaration::new(File::Output, 2, 2);
        tcs_patch.semantic = Some(Semantic {
            name: SemanticName::Patch,
            index: 1,
            streams: [0, 1, 0, 0],
        });
        s.statements.push(Statement::Declaration(tcs_patch));
        assert_eq!(
            print(&s),
            "GEOM\nDCL IN[][0], POSITION\nDCL OUT[2], PATCH[1], STREAM(0, 1, 0, 0)\n"
        );
        s.processor = Processor::TessCtrl;
        assert_eq!(
            print(&s),
            "TESS_CTRL\nDCL IN[][0], POSITION\nDCL OUT[2], PATCH[1], STREAM(0, 1, 0, 0)\n"
        );
    }

    #[test]
    fn memory_and_resources() {
        let mut s = Shader::new(Processor::Compute);
        let mut img = Declaration::new(File::Image, 0, 0);
        img.image = Some(ImageDecl {
            target: TextureTarget::Tex2D,
            format: PipeFormat::from_name("PIPE_FORMAT_R32_UINT").unwrap(),
            raw: true,
            writable: true,
        });
        s.statements.push(Statement::Declaration(img));
        let mut view = Declaration::new(File::SamplerView, 1, 1);
        view.sampler_view = Some(SamplerViewDecl {
            target: TextureTarget::Tex2D,
            return_types: [
                ReturnType::Float,
                ReturnType::Float,
                ReturnType::Uint,
                ReturnType::Float,
            ],
        });
        s.statements.push(Statement::Declaration(view));
        let mut mem = Declaration::new(File::Memory, 0, 0);
        mem.mem_type = MemType::Shared;
        s.statements.push(Statement::Declaration(mem));
        let mut load = Instruction::new(
            Opcode::LOAD,
            vec![DstOperand {
                reg: Register::new(File::Temp, 1),
                write_mask: WriteMask::XYZW,
            }],
            vec![src(File::Image, 0), src(File::Temp, 1)],
        );
        load.memory = Some(MemoryInfo {
            qualifier: MemQualifier::COHERENT | MemQualifier::VOLATILE,
            target: TextureTarget::Tex2D,
            format: PipeFormat::from_name("PIPE_FORMAT_R32_UINT").unwrap(),
        });
        s.statements.push(Statement::Instruction(load));
        let text = print(&s);
        assert!(
            text.contains("DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR, RAW\n"),
            "{text}"
        );
        assert!(
            text.contains("DCL SVIEW[1], 2D, FLOAT, FLOAT, UINT, FLOAT\n"),
            "{text}"
        );
        assert!(text.contains("DCL MEMORY[0], SHARED\n"), "{text}");
        assert!(
            text.contains("  0: LOAD TEMP[1], IMAGE[0], TEMP[1], COHERENT, VOLATILE, 2D, PIPE_FORMAT_R32_UINT\n"),
            "{text}"
        );
    }
}
