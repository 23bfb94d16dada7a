//! [`Program`] → fxc's listing text: the version line, then one line per
//! declaration or instruction exactly as fxc spells it (multi-line only for
//! `dcl_immediateConstantBuffer`). The `//` header and the
//! `// Approximately N instruction slots used` footer belong to the listing
//! driver, not to this module.
//!
//! fxc's conventions reproduced here:
//!
//! * suffix order `name[_z|_nz][sync flags][_aoffimmi][_indexable][(u,v,w)][(dim[, stride=N])][(types)][_uint|_rcpFloat][_sat]`:
//!   the extended tokens' names, then their arguments;
//! * an instruction without operands keeps the space after its name (`ret `),
//!   except `sync_*`; `dcl_inputprimitive` and `dcl_outputtopology` end in a space too;
//! * source swizzles always have 4 letters, select-1 sources 1 letter;
//! * `if`/`loop`/`switch` bodies are indented by two spaces per level, at
//!   most 32 levels (`case`/`default` stay at the level of the `switch`
//!   body);
//! * immediates follow the type the opcode reads them as: floats `%f`
//!   (`1.000000`), integers in decimal when |v| ≤ 10000 and `0x%08x`
//!   otherwise, and the typeless data of `mov`/`movc`/`swapc` per component
//!   (float when the exponent is normal, else as an integer), joined without
//!   spaces (`l(0,0,0,1.000000)`); the gather4_po family prints its float
//!   immediates as integers;
//! * minimum precision `{min16f}`, and `{min16f as def32}` on a source whose
//!   precision differs from the destination's (same numeric class only);
//! * SM5.1 range-bound registers upper-case (`T0[2:6]`, `CB0[3][1]`), and
//!   `dcl_constantbuffer CB0[14]` upper-case for fxc 10.x ([`PrintOptions`]).
//!
//! What a listing cannot normally show is printed only where the program
//! departs from the rule the assembler applies, so that printing and parsing
//! rebuild the same words:
//!
//! * an operand whose component field differs from the one its printed form
//!   implies ([`implied_components`]) is followed by `{components=none}`,
//!   `{components=1}`, `{mask=xy}`, `{swizzle=xyzw}` or `{select=x}` and
//!   printed without its `.xyzw` suffix;
//! * an empty extended operand token prints `{ext}`; extended opcode tokens
//!   on a declaration print as `{extended=_aoffimmi(1,0,0)}` at its end;
//!   dwords after the operands that fxc would not write as `{trailing=0x…}`
//!   ([`crate::ir::Instruction::fxc_trailing`]);
//! * a non-uniform index prints `{nonuniform}`;
//! * indices on an immediate (the token can hold them, fxc never writes
//!   them) print as brackets after it: `l(1)[3]`;
//! * an immediate-plus-relative index whose immediate is 0 prints `[0 + r0.x]`
//!   (fxc's `[r0.x + 0]` is the relative-only form); 64-bit indices end in `l`;
//! * precise masks print as ` [precise]` / ` [precise(xy)]` after the mnemonic;
//! * fxc's `%f` loses the low bits of most floats (`0.333333`): with
//!   [`PrintOptions::exact_floats`] every float that `%f` would not give back
//!   prints as its shortest exact decimal (`0.33333334`), NaN payloads as raw
//!   bits; the fxc-identical default keeps `%f`;
//! * custom data other than immediate constant buffers and shader messages
//!   prints as `customdata <class> { 0x…, … }`; shader messages with other ids
//!   or formats as `shader_message(0xID, FORMAT) "…"`.

use crate::enums::{
    CustomDataClass, GLOBAL_FLAG_NAMES, MinPrecision, OperandModifier, RegisterFile,
    ResourceDimension, ReturnType, SHADER_MESSAGE_FORMAT_PRINTF, SHADER_MESSAGE_NAMES,
    SYNC_FLAG_NAMES, UAV_FLAG_NAMES,
};
use crate::ir::{
    Components, CustomData, ExtendedOpcode, Index, Instruction, Operand, Payload, Program,
    ShaderMessage, Version, component_numbers, mask_letters,
};
use crate::opcode::{OpFlags, Opcode, OperandKind, OperandSpec, PayloadKind, Role};

/// Listing differences between fxc versions that the program chunk does not
/// record (take them from the RDEF creator string).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintOptions {
    /// `dcl_constantbuffer CB0[14]` (fxc 10.x) rather than `cb0[14]` (fxc 9.x)
    pub uppercase_constant_buffer_declarations: bool,
    /// print every float immediate so that it reads back to the same bits
    /// (`0.33333334` where fxc prints `0.333333`); off for fxc's text
    pub exact_floats: bool,
}

impl Default for PrintOptions {
    /// fxc 10.1's spelling.
    fn default() -> Self {
        PrintOptions {
            uppercase_constant_buffer_declarations: true,
            exact_floats: false,
        }
    }
}

impl PrintOptions {
    /// The options matching the compiler named in an RDEF creator string
    /// (`Microsoft (R) HLSL Shader Compiler 9.29.952.3111`); fxc 10.1's for
    /// anything else.
    pub fn for_creator(creator: &str) -> PrintOptions {
        let major = creator
            .rsplit(' ')
            .next()
            .and_then(|v| v.split('.').next())
            .and_then(|m| m.parse::<u32>().ok());
        PrintOptions {
            uppercase_constant_buffer_declarations: !matches!(major, Some(m) if m < 10),
            exact_floats: false,
        }
    }
}

/// The listing of a program with fxc 10.1's spelling.
pub fn print_program(program: &Program) -> String {
    print_program_with(program, &PrintOptions::default())
}

/// The listing of a program: the version line and one line per instruction,
/// each ending in `\n`.
pub fn print_program_with(program: &Program, options: &PrintOptions) -> String {
    let v = program.version;
    let mut out = format!("{}_{}_{}\n", v.program_type.name(), v.major, v.minor);
    let printer = Printer {
        version: v,
        options: *options,
    };
    let mut indent = 0usize;
    for inst in &program.instructions {
        let flags = inst.opcode.info().flags;
        if flags.contains(OpFlags::DEDENT) {
            indent = indent.saturating_sub(1);
        }
        for line in printer.instruction(inst).split('\n') {
            // (at most 32 levels: deeper code prints at that depth, so the
            // listing grows with the program, not with the square of its
            // nesting)
            for _ in 0..indent.min(32) {
                out.push_str("  ");
            }
            out.push_str(line);
            out.push('\n');
        }
        if flags.contains(OpFlags::INDENT) {
            indent += 1;
        }
    }
    out
}

/// The line (or lines) of one instruction, without indentation.
pub fn print_instruction(inst: &Instruction, version: Version, options: &PrintOptions) -> String {
    Printer {
        version,
        options: *options,
    }
    .instruction(inst)
}

/// Where an operand appears, for deciding what its printed form implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComponentContext {
    pub file: RegisterFile,
    pub role: Role,
    /// number of indices the operand has
    pub index_count: usize,
    /// number of values printed inside `l(…)` / `d(…)` (0 for registers)
    pub printed_values: usize,
}

/// The component field that an operand printed with the component letters
/// `letters` (empty when there is no `.xyzw` suffix) implies in `ctx`, or
/// `None` if the letters cannot be one. The printer falls back to an explicit
/// `{…}` marker whenever this differs from the real field; the assembler uses
/// the same function to rebuild it.
pub fn implied_components(ctx: &ComponentContext, letters: &str) -> Option<Components> {
    if letters.is_empty() {
        return Some(default_components(ctx));
    }
    let comps = component_numbers(letters)?;
    let increasing = comps.windows(2).all(|w| w[0] < w[1]);
    let mask = || Components::Mask(comps.iter().fold(0, |m, &c| m | (1 << c)));
    match (ctx.role, comps.len()) {
        (Role::Src, 4) => Some(Components::Swizzle([
            comps[0], comps[1], comps[2], comps[3],
        ])),
        (Role::Src, 1) => Some(Components::Select(comps[0])),
        (_, 1..=4) if increasing => Some(mask()),
        (Role::Dst | Role::Decl, 4) => Some(Components::Swizzle([
            comps[0], comps[1], comps[2], comps[3],
        ])),
        _ => None,
    }
}

/// Registers fxc declares and writes as one component (no suffix).
fn is_scalar_output(file: RegisterFile) -> bool {
    matches!(
        file,
        RegisterFile::OutputDepth
            | RegisterFile::OutputDepthGreaterEqual
            | RegisterFile::OutputDepthLessEqual
            | RegisterFile::OutputStencilRef
    )
}

fn default_components(ctx: &ComponentContext) -> Components {
    if ctx.file.is_immediate() {
        return if ctx.printed_values == 1 {
            Components::One
        } else {
            Components::Mask(0)
        };
    }
    let one = match ctx.role {
        Role::Decl => {
            if ctx.file == RegisterFile::ConstantBuffer
                || (ctx.index_count == 3 && ctx.file.is_range_bound())
            {
                return Components::XYZW;
            }
            is_scalar_output(ctx.file)
                || matches!(
                    ctx.file,
                    RegisterFile::InputCoverageMask | RegisterFile::InnerCoverage
                )
        }
        Role::Dst => is_scalar_output(ctx.file) || ctx.file == RegisterFile::OutputCoverageMask,
        Role::Src => matches!(
            ctx.file,
            RegisterFile::InputPrimitiveId | RegisterFile::OutputControlPointId
        ),
    };
    if one {
        Components::One
    } else {
        Components::None
    }
}

/// The explicit marker of a component field.
fn components_marker(c: Components) -> String {
    match c {
        Components::None => "{components=none}".into(),
        Components::One => "{components=1}".into(),
        Components::Mask(_) => format!("{{mask={}}}", c.letters()),
        Components::Swizzle(_) => format!("{{swizzle={}}}", c.letters()),
        Components::Select(_) => format!("{{select={}}}", c.letters()),
    }
}

/// `%f` of a float's bits, with MSVC's spellings of infinities and NaNs
/// (fxc's text, which may not determine the bits: see [`format_f32_with`]).
pub fn format_f32(bits: u32) -> String {
    format_float(
        f32::from_bits(bits) as f64,
        bits >> 31 != 0,
        bits == 0xFFC0_0000,
    )
}

/// `%f` of a double.
pub fn format_f64(bits: u64) -> String {
    format_float(
        f64::from_bits(bits),
        bits >> 63 != 0,
        bits == 0xFFF8_0000_0000_0000,
    )
}

/// A float as fxc prints it, or, with `exact`, a text that reads back to
/// the same bits: fxc's `%f` text when it does ([`float_literal_bits`]), else
/// the shortest decimal that does (`0.33333334`), else (NaN payloads) the raw
/// bits `0x%08x`.
pub fn format_f32_with(bits: u32, exact: bool) -> String {
    let text = format_f32(bits);
    if !exact || float_literal_bits(&text) == Some(bits) {
        return text;
    }
    let v = f32::from_bits(bits);
    if v.is_nan() {
        return format!("0x{bits:08x}");
    }
    with_point(v.to_string())
}

/// A double as fxc prints it, or, with `exact`, a text that reads back to
/// the same bits (see [`format_f32_with`]).
pub fn format_f64_with(bits: u64, exact: bool) -> String {
    let text = format_f64(bits);
    if !exact || double_literal_bits(&text) == Some(bits) {
        return text;
    }
    let v = f64::from_bits(bits);
    if v.is_nan() {
        return format!("0x{bits:016x}");
    }
    with_point(v.to_string())
}

/// A decimal with a `.` in it, so that it reads as a float.
fn with_point(mut s: String) -> String {
    if !s.contains('.') {
        s.push_str(".0");
    }
    s
}

/// The bits a float literal of a listing stands for: a decimal (rounded to
/// the nearest float), MSVC's `1.#INF00`/`-1.#INF00`/`1.#QNAN0`/`-1.#IND00`,
/// or raw bits `0x…`.
pub fn float_literal_bits(text: &str) -> Option<u32> {
    match text {
        "1.#INF00" => Some(0x7F80_0000),
        "-1.#INF00" => Some(0xFF80_0000),
        "1.#QNAN0" => Some(0x7FC0_0000),
        "-1.#IND00" => Some(0xFFC0_0000),
        _ => match text.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None if text
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-') =>
            {
                text.parse::<f32>().ok().map(f32::to_bits)
            }
            None => None,
        },
    }
}

/// The bits a double literal (without its `l`) stands for; see [`float_literal_bits`].
pub fn double_literal_bits(text: &str) -> Option<u64> {
    match text {
        "1.#INF00" => Some(0x7FF0_0000_0000_0000),
        "-1.#INF00" => Some(0xFFF0_0000_0000_0000),
        "1.#QNAN0" => Some(0x7FF8_0000_0000_0000),
        "-1.#IND00" => Some(0xFFF8_0000_0000_0000),
        _ => match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None if text
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-') =>
            {
                text.parse::<f64>().ok().map(f64::to_bits)
            }
            None => None,
        },
    }
}

fn format_float(v: f64, negative: bool, indefinite: bool) -> String {
    if v.is_nan() {
        return if indefinite {
            "-1.#IND00".into()
        } else if negative {
            "-1.#QNAN0".into()
        } else {
            "1.#QNAN0".into()
        };
    }
    if v.is_infinite() {
        return if negative {
            "-1.#INF00".into()
        } else {
            "1.#INF00".into()
        };
    }
    format!("{v:.6}")
}

/// An integer immediate: decimal when small, else `0x%08x`.
pub fn format_int(bits: u32) -> String {
    let signed = bits as i32;
    if (-10000..=10000).contains(&signed) {
        signed.to_string()
    } else {
        format!("0x{bits:08x}")
    }
}

/// A typeless immediate: a float if its exponent is normal, else an integer.
pub fn format_typeless(bits: u32, exact: bool) -> String {
    let exponent = (bits >> 23) & 0xFF;
    if exponent != 0 && exponent != 0xFF {
        format_f32_with(bits, exact)
    } else {
        format_int(bits)
    }
}

/// Escapes a shader-message string as fxc prints it (quotes stay raw).
pub fn escape_message(text: &[u8]) -> String {
    let mut s = String::new();
    for &b in text {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            0x07 => s.push_str("\\a"),
            0x08 => s.push_str("\\b"),
            0x0B => s.push_str("\\v"),
            0x0C => s.push_str("\\f"),
            0x20..=0x7E => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

struct Printer {
    version: Version,
    options: PrintOptions,
}

/// The precision of an instruction's first value destination and its class.
#[derive(Clone, Copy)]
struct DstPrecision {
    precision: MinPrecision,
    class: u8,
}

impl Printer {
    fn instruction(&self, inst: &Instruction) -> String {
        let info = inst.opcode.info();
        if let Payload::CustomData(data) = &inst.payload {
            return self.custom_data(data);
        }
        if info.flags.contains(OpFlags::DECLARATION)
            && let Some(text) = self.declaration(inst)
        {
            return text;
        }
        let mut name = self.mnemonic(inst);
        let dst = info
            .operands
            .iter()
            .zip(&inst.operands)
            .find(|(spec, _)| spec.role == Role::Dst && spec.kind.is_value())
            .map(|(spec, op)| DstPrecision {
                precision: op.min_precision,
                class: spec.kind.precision_class(),
            });
        let int_immediates = info.flags.contains(OpFlags::FXC_INTEGER_IMMEDIATES);
        let mut operands: Vec<String> = inst
            .operands
            .iter()
            .enumerate()
            .map(|(i, op)| {
                let spec = info.operands.get(i).copied().unwrap_or(OperandSpec {
                    role: Role::Src,
                    kind: OperandKind::Typeless,
                });
                let kind = if int_immediates && spec.kind == OperandKind::Float {
                    OperandKind::Int
                } else {
                    spec.kind
                };
                self.operand(op, spec.role, kind, dst)
            })
            .collect();
        if let (Opcode::InterfaceCall, Payload::CallSite(site), Some(first)) =
            (inst.opcode, &inst.payload, operands.first_mut())
        {
            first.push_str(&format!("[{site}]"));
        } else if !matches!(inst.payload, Payload::None) || info.payload != PayloadKind::None {
            // a payload this opcode does not print in its usual place
            operands.push(format!("{{payload={:?}}}", inst.payload));
        }
        // fxc keeps the space after an operand-less name, except after sync
        if !(operands.is_empty() && inst.opcode == Opcode::Sync) {
            name.push(' ');
        }
        name.push_str(&operands.join(", "));
        name.push_str(&trailing_marker(inst));
        name
    }

    fn mnemonic(&self, inst: &Instruction) -> String {
        let info = inst.opcode.info();
        let c = &inst.controls;
        let mut s = info.name.to_string();
        if info.flags.contains(OpFlags::TEST) {
            s.push_str(c.test.0.name());
        }
        if info.flags.contains(OpFlags::SYNC) {
            for (flag, suffix) in SYNC_FLAG_NAMES {
                if c.sync.contains(*flag) {
                    s.push_str(suffix);
                }
            }
        }
        s.push_str(&extended_suffix(&inst.extended));
        if info
            .flags
            .intersects(OpFlags::RESINFO_RETURN | OpFlags::SAMPLEINFO_RETURN)
        {
            s.push_str(c.info_return.0.name());
        }
        if info.flags.contains(OpFlags::SATURATE) && c.saturate {
            s.push_str("_sat");
        }
        if info.flags.contains(OpFlags::PRECISE) && c.precise != 0 {
            if c.precise & 0xF == 0xF {
                s.push_str(" [precise]");
            } else {
                s.push_str(&format!(" [precise({})]", mask_letters(c.precise)));
            }
        }
        s
    }

    /// Upper-case prefix for SM5.1 range-bound registers.
    fn upper(&self, file: RegisterFile) -> bool {
        self.version.is_sm51() && file.is_range_bound()
    }

    fn operand(
        &self,
        op: &Operand,
        role: Role,
        kind: OperandKind,
        dst: Option<DstPrecision>,
    ) -> String {
        let upper = self.upper(op.file);
        self.operand_with(op, role, kind, dst, upper)
    }

    fn operand_with(
        &self,
        op: &Operand,
        role: Role,
        kind: OperandKind,
        dst: Option<DstPrecision>,
        upper: bool,
    ) -> String {
        // `T0[2:6]` only when all three indices are immediates: a relative
        // one glued to the prefix (`um6490.z + 0[…]`) could not be read back
        let range_decl = role == Role::Decl
            && op.indices.len() == 3
            && op.file.is_range_bound()
            && op.indices.iter().all(|i| matches!(i, Index::Imm32(_)));
        let mut core = match op.file {
            RegisterFile::Immediate32 => immediate32(&op.values, kind, self.options.exact_floats),
            RegisterFile::Immediate64 => immediate64(&op.values, self.options.exact_floats),
            _ => self.register(op, upper, range_decl),
        };
        if op.file.is_immediate() {
            for index in &op.indices {
                core.push_str(&format!("[{}]", self.index(index)));
            }
        }
        let ctx = ComponentContext {
            file: op.file,
            role,
            index_count: op.indices.len(),
            printed_values: match op.file {
                RegisterFile::Immediate32 => op.values.len(),
                RegisterFile::Immediate64 => op.values.len() / 2,
                _ => 0,
            },
        };
        let letters = if implied_components(&ctx, "") == Some(op.components) {
            String::new()
        } else {
            op.components.letters()
        };
        let departs = implied_components(&ctx, &letters) != Some(op.components);
        if !departs && !letters.is_empty() {
            core.push('.');
            core.push_str(&letters);
        }
        let mut s = match op.modifier {
            OperandModifier::None => core,
            OperandModifier::Neg => format!("-{core}"),
            OperandModifier::Abs => format!("|{core}|"),
            OperandModifier::AbsNeg => format!("-|{core}|"),
        };
        let precision = op.min_precision;
        match (role, dst) {
            (Role::Src, Some(d))
                if kind.is_value()
                    && kind.precision_class() == d.class
                    && precision != d.precision =>
            {
                s.push_str(&format!(
                    " {{{} as {}}}",
                    precision.name(),
                    d.precision.name()
                ));
            }
            _ if precision != MinPrecision::Default => {
                s.push_str(&format!(" {{{}}}", precision.name()))
            }
            _ => {}
        }
        if op.non_uniform {
            s.push_str(" {nonuniform}");
        }
        if op.force_extended {
            s.push_str(" {ext}");
        }
        if departs {
            s.push(' ');
            s.push_str(&components_marker(op.components));
        }
        s
    }

    fn register(&self, op: &Operand, upper: bool, range_decl: bool) -> String {
        let mut s = if upper {
            op.file.name().to_uppercase()
        } else {
            op.file.name().to_string()
        };
        let idx = &op.indices;
        if range_decl {
            s.push_str(&self.index(&idx[0]));
            let hi = match idx[2] {
                Index::Imm32(u32::MAX) => "*".to_string(),
                ref i => self.index(i),
            };
            s.push_str(&format!("[{}:{hi}]", self.index(&idx[1])));
            return s;
        }
        let bracket_all = matches!(
            op.file,
            RegisterFile::ImmediateConstantBuffer
                | RegisterFile::InputControlPoint
                | RegisterFile::OutputControlPoint
                | RegisterFile::ThisPointer
        ) || (op.file == RegisterFile::Input && idx.len() >= 2);
        let mut rest = &idx[..];
        if !bracket_all && let Some(Index::Imm32(n)) = idx.first() {
            s.push_str(&n.to_string());
            rest = &idx[1..];
        }
        for i in rest {
            s.push('[');
            s.push_str(&self.index(i));
            s.push(']');
        }
        s
    }

    fn index(&self, index: &Index) -> String {
        let rel = |r: &Operand| self.operand(r, Role::Src, OperandKind::Int, None);
        match index {
            Index::Imm32(n) => n.to_string(),
            Index::Imm64(n) => format!("{n}l"),
            Index::Relative(r) => format!("{} + 0", rel(r)),
            Index::Imm32Relative(0, r) => format!("0 + {}", rel(r)),
            Index::Imm32Relative(n, r) => format!("{} + {n}", rel(r)),
            Index::Imm64Relative(n, r) => format!("{} + {n}l", rel(r)),
        }
    }

    fn decl_operand(&self, inst: &Instruction) -> Option<String> {
        let op = inst.operands.first()?;
        let upper = self.upper(op.file)
            || (inst.opcode == Opcode::DclConstantBuffer
                && self.options.uppercase_constant_buffer_declarations);
        Some(self.operand_with(op, Role::Decl, OperandKind::Declared, None, upper))
    }

    /// A declaration in fxc's spelling; `None` if its operands or payload do
    /// not have the shape of its table row (then the generic form is printed).
    fn declaration(&self, inst: &Instruction) -> Option<String> {
        let info = inst.opcode.info();
        if inst.operands.len() != info.operands.len() {
            return None;
        }
        let operand = self.decl_operand(inst);
        let operand = operand.as_deref();
        // Each family spells its own opcodes and gives `None` for any other
        // opcode or payload shape. The opcodes spelled with their operand
        // have one in their table row, so after the count check `operand` is
        // there for them.
        let text = self
            .binding_declaration(inst, operand)
            .or_else(|| self.register_declaration(inst, operand))
            .or_else(|| self.stage_declaration(inst))
            .or_else(|| self.program_declaration(inst))
            .or_else(|| match &inst.payload {
                Payload::Count(n) if info.operands.is_empty() => Some(format!("{} {n}", info.name)),
                _ => None,
            })?;
        let extended = if inst.extended.is_empty() {
            String::new()
        } else {
            format!(" {{extended={}}}", extended_suffix(&inst.extended))
        };
        Some(text + &extended + &trailing_marker(inst))
    }

    /// Resources, UAVs, shared memory, constant buffers and samplers.
    fn binding_declaration(&self, inst: &Instruction, operand: Option<&str>) -> Option<String> {
        let c = &inst.controls;
        let name = inst.opcode.info().name;
        let space = |s: &Option<u32>| s.map(|s| format!(", space={s}")).unwrap_or_default();
        let uav_flags = || -> String {
            UAV_FLAG_NAMES
                .iter()
                .filter(|(f, _)| c.uav.contains(*f))
                .map(|(_, n)| *n)
                .collect()
        };
        Some(match (inst.opcode, &inst.payload) {
            (Opcode::DclResource, Payload::ReturnTypes { types, space: sp }) => {
                let dim = c.resource_dimension.0;
                let samples = if dim.is_multisampled() || c.sample_count != 0 {
                    format!("({})", c.sample_count)
                } else {
                    String::new()
                };
                format!(
                    "{name}_{}{samples} {} {}{}",
                    dim.name(),
                    return_type_list(types),
                    operand?,
                    space(sp)
                )
            }
            (Opcode::DclUavTyped, Payload::ReturnTypes { types, space: sp }) => format!(
                "{name}_{}{} {} {}{}",
                c.resource_dimension.0.name(),
                uav_flags(),
                return_type_list(types),
                operand?,
                space(sp)
            ),
            (Opcode::DclUavRaw, Payload::Space(sp)) => {
                format!("{name}{} {}{}", uav_flags(), operand?, space(sp))
            }
            (Opcode::DclUavStructured, Payload::Structured { stride, space: sp }) => {
                format!("{name}{} {}, {stride}{}", uav_flags(), operand?, space(sp))
            }
            (Opcode::DclResourceRaw, Payload::Space(sp)) => {
                format!("{name} {}{}", operand?, space(sp))
            }
            (Opcode::DclResourceStructured, Payload::Structured { stride, space: sp }) => {
                format!("{name} {}, {stride}{}", operand?, space(sp))
            }
            (Opcode::DclConstantBuffer, Payload::ConstantBuffer(range)) => {
                let size = range.map(|r| format!("[{}]", r.size)).unwrap_or_default();
                let sp = range
                    .map(|r| format!(", space={}", r.space))
                    .unwrap_or_default();
                format!("{name} {}{size}, {}{sp}", operand?, c.cb_access.0.name())
            }
            (Opcode::DclSampler, Payload::Space(sp)) => {
                format!(
                    "{name} {}, {}{}",
                    operand?,
                    c.sampler_mode.0.name(),
                    space(sp)
                )
            }
            (Opcode::DclTgsmRaw, Payload::Count(n)) => format!("{name} {}, {n}", operand?),
            (Opcode::DclTgsmStructured, Payload::TgsmStructured { stride, count }) => {
                format!("{name} {}, {stride}, {count}", operand?)
            }
            _ => return None,
        })
    }

    /// Inputs, outputs (with their system values and interpolation), index
    /// ranges, streams and indexable temps.
    fn register_declaration(&self, inst: &Instruction, operand: Option<&str>) -> Option<String> {
        let c = &inst.controls;
        let name = inst.opcode.info().name;
        Some(match (inst.opcode, &inst.payload) {
            (Opcode::DclIndexRange, Payload::Count(n)) => format!("{name} {} {n}", operand?),
            (Opcode::DclInput | Opcode::DclOutput | Opcode::DclStream, Payload::None) => {
                format!("{name} {}", operand?)
            }
            (
                Opcode::DclInputSgv
                | Opcode::DclInputSiv
                | Opcode::DclOutputSgv
                | Opcode::DclOutputSiv,
                Payload::Name(sv),
            ) => format!("{name} {}, {}", operand?, sv.name()),
            (Opcode::DclInputPs, Payload::None) => {
                format!("{name} {}{}", interpolation(c.interpolation.0), operand?)
            }
            (Opcode::DclInputPsSgv | Opcode::DclInputPsSiv, Payload::Name(sv)) => {
                format!(
                    "{name} {}{}, {}",
                    interpolation(c.interpolation.0),
                    operand?,
                    sv.name()
                )
            }
            (
                Opcode::DclIndexableTemp,
                Payload::IndexableTemp {
                    register,
                    count,
                    components,
                },
            ) => {
                format!("{name} x{register}[{count}], {components}")
            }
            _ => return None,
        })
    }

    /// The geometry-shader primitives, the tessellation state and the
    /// compute thread group.
    fn stage_declaration(&self, inst: &Instruction) -> Option<String> {
        let c = &inst.controls;
        let name = inst.opcode.info().name;
        Some(match (inst.opcode, &inst.payload) {
            // fxc ends these two lines with a space
            (Opcode::DclGsOutputPrimitiveTopology, Payload::None) => {
                format!("{name} {} ", c.output_topology.0.name())
            }
            (Opcode::DclGsInputPrimitive, Payload::None) => {
                format!("{name} {} ", c.input_primitive.0.name())
            }
            (
                Opcode::DclInputControlPointCount | Opcode::DclOutputControlPointCount,
                Payload::None,
            ) => {
                format!("{name} {}", c.control_point_count)
            }
            (Opcode::DclTessDomain, Payload::None) => format!("{name} {}", c.tess_domain.0.name()),
            (Opcode::DclTessPartitioning, Payload::None) => {
                format!("{name} {}", c.tess_partitioning.0.name())
            }
            (Opcode::DclTessOutputPrimitive, Payload::None) => {
                format!("{name} {}", c.tess_output_primitive.0.name())
            }
            (Opcode::DclHsMaxTessFactor, Payload::Float(bits)) => format!(
                "{name} l({})",
                format_f32_with(*bits, self.options.exact_floats)
            ),
            (Opcode::DclThreadGroup, Payload::ThreadGroup([x, y, z])) => {
                format!("{name} {x}, {y}, {z}")
            }
            _ => return None,
        })
    }

    /// Program-wide declarations: the global flags, function bodies and
    /// tables, interfaces.
    fn program_declaration(&self, inst: &Instruction) -> Option<String> {
        let c = &inst.controls;
        let name = inst.opcode.info().name;
        Some(match (inst.opcode, &inst.payload) {
            (Opcode::DclGlobalFlags, Payload::None) => {
                let names: Vec<&str> = GLOBAL_FLAG_NAMES
                    .iter()
                    .filter(|(f, _)| c.global_flags.contains(*f))
                    .map(|(_, n)| *n)
                    .collect();
                format!("{name} {}", names.join(" | "))
            }
            (Opcode::DclFunctionBody, Payload::Count(n)) => format!("{name} fb{n}"),
            (Opcode::DclFunctionTable, Payload::FunctionTable { index, bodies }) => {
                let list: Vec<String> = bodies.iter().map(|b| format!("fb{b}")).collect();
                format!("{name} ft{index} = {{{}}}", list.join(", "))
            }
            (
                Opcode::DclInterface,
                Payload::Interface {
                    index,
                    call_sites,
                    array_size,
                    tables,
                },
            ) => {
                let list: Vec<String> = tables.iter().map(|t| format!("ft{t}")).collect();
                let dynamic = if c.interface_dynamic {
                    "_dynamicindexed"
                } else {
                    ""
                };
                format!(
                    "{name}{dynamic} fp{index}[{array_size}][{call_sites}] = {{{}}}",
                    list.join(", ")
                )
            }
            _ => return None,
        })
    }

    fn custom_data(&self, data: &CustomData) -> String {
        match data {
            CustomData::ImmediateConstantBuffer(values) => {
                let rows: Vec<String> = values
                    .chunks(4)
                    .map(|row| {
                        let items: Vec<String> = row
                            .iter()
                            .map(|&v| format_typeless(v, self.options.exact_floats))
                            .collect();
                        format!("{{ {}}}", items.join(", "))
                    })
                    .collect();
                let head = "dcl_immediateConstantBuffer { ";
                if rows.is_empty() {
                    return format!("{head}}}");
                }
                let pad = " ".repeat(head.len());
                let mut s = String::from(head);
                for (i, row) in rows.iter().enumerate() {
                    if i > 0 {
                        s.push_str(",\n");
                        s.push_str(&pad);
                    }
                    s.push_str(row);
                }
                s.push_str(" }");
                s
            }
            CustomData::ShaderMessage(m) => self.shader_message(m),
            CustomData::Other { class, data } => {
                let class = CustomDataClass::from_u32(*class)
                    .map(|c| c.name().to_string())
                    .unwrap_or_else(|| class.to_string());
                let items: Vec<String> = data.iter().map(|v| format!("0x{v:08x}")).collect();
                if items.is_empty() {
                    format!("customdata {class} {{ }}")
                } else {
                    format!("customdata {class} {{ {} }}", items.join(", "))
                }
            }
        }
    }

    fn shader_message(&self, m: &ShaderMessage) -> String {
        let known = SHADER_MESSAGE_NAMES
            .iter()
            .find(|(id, _)| *id == m.message_id);
        let mut s = match known {
            Some((_, name)) if m.format == SHADER_MESSAGE_FORMAT_PRINTF => name.to_string(),
            _ => format!("shader_message(0x{:08x}, {})", m.message_id, m.format),
        };
        s.push_str(&format!(" \"{}\"", escape_message(&m.text)));
        for op in &m.operands {
            s.push_str(", ");
            s.push_str(&self.operand(op, Role::Src, OperandKind::Typeless, None));
        }
        s
    }
}

/// The extended opcode tokens' suffix: their names first, then their
/// parenthesised arguments, both in token order
/// (`_aoffimmi_indexable(1,0,0)(texture1d)(float,float,float,float)`).
fn extended_suffix(extended: &[ExtendedOpcode]) -> String {
    let mut s = String::new();
    let mut arguments = String::new();
    for ext in extended {
        match *ext {
            ExtendedOpcode::SampleControls { offsets } => {
                s.push_str("_aoffimmi");
                arguments.push_str(&format!("({},{},{})", offsets[0], offsets[1], offsets[2]));
            }
            ExtendedOpcode::ResourceDim { dimension, stride } => {
                s.push_str("_indexable");
                if dimension == ResourceDimension::StructuredBuffer || stride != 0 {
                    arguments.push_str(&format!("({}, stride={stride})", dimension.name()));
                } else {
                    arguments.push_str(&format!("({})", dimension.name()));
                }
            }
            ExtendedOpcode::ResourceReturnType(types) => {
                arguments.push_str(&return_type_list(&types))
            }
        }
    }
    s.push_str(&arguments);
    s
}

/// ` {trailing=0x…, …}` when the trailing dwords are not the ones fxc writes.
fn trailing_marker(inst: &Instruction) -> String {
    if inst.trailing == inst.fxc_trailing() {
        return String::new();
    }
    let items: Vec<String> = inst.trailing.iter().map(|v| format!("0x{v:08x}")).collect();
    format!(" {{trailing={}}}", items.join(", "))
}

fn interpolation(mode: crate::enums::Interpolation) -> String {
    if mode == crate::enums::Interpolation::Undefined {
        String::new()
    } else {
        format!("{} ", mode.name())
    }
}

fn return_type_list(types: &[ReturnType; 4]) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
    format!("({})", names.join(","))
}

fn immediate32(values: &[u32], kind: OperandKind, exact: bool) -> String {
    let (items, sep): (Vec<String>, &str) = match kind {
        OperandKind::Float => (
            values.iter().map(|&v| format_f32_with(v, exact)).collect(),
            ", ",
        ),
        OperandKind::Int | OperandKind::Uint => {
            (values.iter().map(|&v| format_int(v)).collect(), ", ")
        }
        _ => (
            values.iter().map(|&v| format_typeless(v, exact)).collect(),
            ",",
        ),
    };
    format!("l({})", items.join(sep))
}

fn immediate64(values: &[u32], exact: bool) -> String {
    let items: Vec<String> = values
        .chunks(2)
        .map(|p| {
            let bits = (p[0] as u64) | ((p.get(1).copied().unwrap_or(0) as u64) << 32);
            format!("{}l", format_f64_with(bits, exact))
        })
        .collect();
    format!("d({})", items.join(", "))
}

#[cfg(test)]
mod tests;
