//! Per-instruction checks: operand counts (from the opcode table), the
//! register files each operand may name (resource operands as Mesa's
//! `tgsi.rst` and `tgsi_exec.c` lay them out), writemasks (64-bit channel
//! pairs), source modifiers on
//! resources, texture targets, labels on opcodes that take none, and opcodes
//! that only exist in one shader stage.

use super::registers::{RegisterTable, is_value_file, register_name};
use super::{Reporter, Site};
use crate::enums::{File, Processor, TextureTarget};
use crate::ir::{Instruction, Register, Shader, Statement, WriteMask};
use crate::opcode::{Category, Channels, OpFlags, Opcode, PairShape};

/// What an operand stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A value read or written through a register.
    Value,
    /// A resource the instruction works on; the files it may be.
    Resource(&'static [File]),
    /// Not checked (operands whose meaning the specification leaves open).
    Any,
}

const SAMP: &[File] = &[File::Sampler];
const SVIEW: &[File] = &[File::SamplerView];
const SAMP_OR_SVIEW: &[File] = &[File::Sampler, File::SamplerView];
const IMAGE: &[File] = &[File::Image];
const LOAD_FILES: &[File] = &[
    File::Buffer,
    File::Image,
    File::Memory,
    File::Const,
    File::ConstBuf,
];
const STORE_FILES: &[File] = &[File::Buffer, File::Image, File::Memory];
const ATOMIC_FILES: &[File] = &[File::Buffer, File::Image, File::Memory, File::HwAtomic];
const RESQ_FILES: &[File] = &[File::Buffer, File::Image];

/// Files a value destination may write.
const WRITABLE: &[File] = &[File::Temp, File::Output, File::Address, File::Null];

fn file_list(files: &[File]) -> String {
    let names: Vec<&str> = files.iter().map(|f| f.name()).collect();
    match names.len() {
        1 => names[0].to_string(),
        n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

fn dst_role(op: Opcode) -> Role {
    match op {
        Opcode::STORE => Role::Resource(STORE_FILES),
        _ => Role::Value,
    }
}

fn src_role(op: Opcode, i: usize) -> Role {
    let info = op.info();
    let last = (info.num_src as usize).saturating_sub(1);
    match op {
        Opcode::TXF | Opcode::TXF_LZ | Opcode::TXQ | Opcode::TXQS if i == last => {
            Role::Resource(SAMP_OR_SVIEW)
        }
        Opcode::SAMP2HND => Role::Resource(SAMP),
        Opcode::IMG2HND => Role::Resource(IMAGE),
        _ if info.flags.contains(OpFlags::TEX) && i == last => Role::Resource(SAMP),
        Opcode::SAMPLE
        | Opcode::SAMPLE_B
        | Opcode::SAMPLE_C
        | Opcode::SAMPLE_C_LZ
        | Opcode::SAMPLE_D
        | Opcode::SAMPLE_L
        | Opcode::GATHER4
        | Opcode::LOD => match i {
            1 => Role::Resource(SVIEW),
            2 => Role::Resource(SAMP),
            _ => Role::Value,
        },
        Opcode::SAMPLE_I | Opcode::SAMPLE_I_MS | Opcode::SVIEWINFO if i == 1 => {
            Role::Resource(SVIEW)
        }
        Opcode::SAMPLE_POS | Opcode::SAMPLE_INFO if i == 0 => Role::Any,
        Opcode::LOAD if i == 0 => Role::Resource(LOAD_FILES),
        Opcode::RESQ if i == 0 => Role::Resource(RESQ_FILES),
        _ if info.category == Category::Atomic && i == 0 => Role::Resource(ATOMIC_FILES),
        _ => Role::Value,
    }
}

/// Checks every instruction's operands.
pub(crate) fn check(shader: &Shader, table: &RegisterTable, report: &mut Reporter) {
    for (stmt, s) in shader.statements.iter().enumerate() {
        if let Statement::Instruction(inst) = s {
            check_instruction(shader.processor, inst, stmt, table, report);
        }
    }
}

fn check_instruction(
    processor: Processor,
    inst: &Instruction,
    stmt: usize,
    table: &RegisterTable,
    report: &mut Reporter,
) {
    let op = inst.opcode;
    let info = op.info();
    let here = Site::stmt(stmt);
    if info.flags.contains(OpFlags::GAP) {
        report.error(
            here,
            format!("opcode {} is an unused slot of the opcode table", op as u8),
            "no such opcode",
        );
        return;
    }
    check_counts(inst, here, report);
    if inst.label.is_some() && !info.flags.contains(OpFlags::BRANCH) {
        report.error(
            here,
            format!("{op} takes no label"),
            "only branch instructions carry a `:label`",
        );
    }
    for (i, dst) in inst.dst.iter().enumerate() {
        let site = Site::operand(stmt, i);
        if i < info.num_dst as usize {
            check_dst_file(op, &dst.reg, site, report);
        }
        table.check_register(&dst.reg, site, report);
        if dst.write_mask.is_empty() {
            report.error(
                site,
                format!("{op}: destination writemask is empty"),
                "writes no channel",
            );
        } else if i == 0 {
            check_pair_mask(op, dst.write_mask, site, report);
        }
    }
    for (i, src) in inst.src.iter().enumerate() {
        let site = Site::operand(stmt, inst.dst.len() + i);
        if i < info.num_src as usize {
            let role = src_role(op, i);
            check_src_file(op, i, role, &src.reg, site, report);
            if matches!(role, Role::Resource(_)) && (src.negate || src.absolute) {
                report.error(
                    site,
                    format!("{op}: source {i} is a resource, `-` and `|..|` do not apply to it"),
                    "modifier on a resource",
                );
            }
        }
        table.check_register(&src.reg, site, report);
    }
    check_texture(inst, here, table, report);
    check_view_target(inst, Site::operand(stmt, inst.dst.len() + 1), table, report);
    check_stage(processor, op, here, report);
}

/// The sampler view a SAMPLE-family opcode reads is neither a buffer nor
/// multisampled ("any resource type other than buffers"), and the one
/// SAMPLE_I or SAMPLE_I_MS fetches from is not a cube ("other than
/// CUBE"): known from a directly indexed SVIEW's declaration (the machine
/// refuses the others when it runs).
fn check_view_target(inst: &Instruction, site: Site, table: &RegisterTable, report: &mut Reporter) {
    use Opcode as O;
    use TextureTarget as T;
    let op = inst.opcode;
    if !op.reads_sampler_view() {
        return;
    }
    let sampled = !matches!(op, O::SAMPLE_I | O::SAMPLE_I_MS);
    let Some(view) = inst.src.get(1) else { return };
    if view.reg.file != File::SamplerView || view.reg.index.indirect.is_some() {
        return;
    }
    let index = view.reg.index.offset;
    let Some(target) = table.sampler_view_target(i64::from(index)) else {
        return;
    };
    let (refused, verb, note) = if sampled {
        (
            matches!(target, T::Buffer | T::Msaa2D | T::Msaa2DArray),
            "sample",
            "buffers and multisampled views are fetched (SAMPLE_I, SAMPLE_I_MS)",
        )
    } else {
        (
            matches!(
                target,
                T::Cube | T::CubeArray | T::ShadowCube | T::ShadowCubeArray
            ),
            "fetch from",
            "cube views are sampled, not fetched",
        )
    };
    if refused {
        report.error(
            site,
            format!("{op} cannot {verb} SVIEW[{index}], declared {target}"),
            note,
        );
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn check_counts(inst: &Instruction, site: Site, report: &mut Reporter) {
    let info = inst.opcode.info();
    let (want_dst, want_src) = (info.num_dst as usize, info.num_src as usize);
    let (dst, src) = (inst.dst.len(), inst.src.len());
    if dst != want_dst || src != want_src {
        report.error(
            site,
            format!(
                "{} takes {} and {}, found {} and {}",
                inst.opcode,
                plural(want_dst, "destination"),
                plural(want_src, "source"),
                plural(dst, "destination"),
                plural(src, "source"),
            ),
            "wrong number of operands",
        );
    }
}

fn check_dst_file(op: Opcode, reg: &Register, site: Site, report: &mut Reporter) {
    let name = || register_name(reg.file, reg.dimension.as_ref(), &reg.index);
    match dst_role(op) {
        Role::Resource(files) => {
            if !files.contains(&reg.file) {
                report.error(
                    site,
                    format!(
                        "{op} stores to a {} resource, not to {}",
                        file_list(files),
                        name()
                    ),
                    format!("expected {}", file_list(files)),
                );
            }
        }
        Role::Value | Role::Any => {
            if !WRITABLE.contains(&reg.file) {
                let why = if is_value_file(reg.file) {
                    format!("{} registers are read-only", reg.file)
                } else {
                    format!("{} is a resource, not a register", reg.file)
                };
                report.error(
                    site,
                    format!("{op} cannot write {}: {why}", name()),
                    format!("expected {}", file_list(WRITABLE)),
                );
            }
        }
    }
}

fn check_src_file(
    op: Opcode,
    i: usize,
    role: Role,
    reg: &Register,
    site: Site,
    report: &mut Reporter,
) {
    let name = || register_name(reg.file, reg.dimension.as_ref(), &reg.index);
    match role {
        Role::Any => {}
        Role::Resource(files) => {
            if !files.contains(&reg.file) {
                report.error(
                    site,
                    format!(
                        "{op}: source {i} must be a {} resource, found {}",
                        file_list(files),
                        name()
                    ),
                    format!("expected {}", file_list(files)),
                );
            }
        }
        Role::Value => {
            if !is_value_file(reg.file) {
                let why = if reg.file == File::Null {
                    "NULL cannot be read".to_string()
                } else {
                    format!("{} is a resource, not a value", reg.file)
                };
                report.error(
                    site,
                    format!(
                        "{op}: source {i} must be a value register, found {} ({why})",
                        name()
                    ),
                    "expected CONST, IN, OUT, TEMP, ADDR, IMM or SV",
                );
            }
        }
    }
}

/// 64-bit results live in channel pairs xy and zw.
fn check_pair_mask(op: Opcode, mask: WriteMask, site: Site, report: &mut Reporter) {
    let Channels::Pair64(shape) = op.info().channels else {
        return;
    };
    let bits = mask.bits();
    let (xy, zw) = (bits & 3, bits & 12);
    match shape {
        PairShape::Unary
        | PairShape::Binary
        | PairShape::Ternary
        | PairShape::Shift
        | PairShape::Widen
        | PairShape::FracExp => {
            if !(xy == 0 || xy == 3) || !(zw == 0 || zw == 12) {
                report
                    .error(
                        site,
                        format!(
                            "{op} writes 64-bit values in channel pairs; writemask .{} splits a pair",
                            mask.letters()
                        ),
                        "use .xy, .zw or .xyzw",
                    )
                    .notes
                    .push("a 64-bit value takes x and y (or z and w) together".into());
            }
        }
        PairShape::Compare | PairShape::Narrow => {
            if bits & !shape.written_words(bits) != 0 {
                let rule = if shape == PairShape::Compare {
                    "one 32-bit result per pair, to x (from xy) and z (from zw)"
                } else {
                    "two 32-bit results, to x (from xy) and y (from zw)"
                };
                report.warning(
                    site,
                    format!(
                        "{op} writes {rule}; with .{} the other enabled channels stay unchanged",
                        mask.letters()
                    ),
                    if shape == PairShape::Compare {
                        "enable x and/or z"
                    } else {
                        "enable x and/or y"
                    },
                );
            }
        }
    }
}

fn check_texture(inst: &Instruction, site: Site, table: &RegisterTable, report: &mut Reporter) {
    let op = inst.opcode;
    if op.is_tex() {
        let target = inst.texture.as_ref().map(|t| t.target);
        if matches!(target, None | Some(TextureTarget::Unknown)) {
            report.error(
                site,
                format!("{op} needs a texture target (1D, 2D, 3D, CUBE, RECT, SHADOW2D, ...)"),
                "no texture target",
            );
        }
    }
    let Some(texture) = &inst.texture else { return };
    for offset in &texture.offsets {
        if !is_value_file(offset.file) {
            report.error(
                site,
                format!(
                    "{op}: texel offset {}[{}] must be a value register",
                    offset.file, offset.index
                ),
                "bad texel offset",
            );
            continue;
        }
        table.check_register(&Register::new(offset.file, offset.index), site, report);
    }
}

fn check_stage(processor: Processor, op: Opcode, site: Site, report: &mut Reporter) {
    let category = op.info().category;
    let only = |stages: &[Processor]| stages.contains(&processor);
    match category {
        Category::Fragment | Category::Interpolation if processor != Processor::Fragment => {
            report.error(
                site,
                format!("{op} exists only in fragment shaders, this is a {processor} shader"),
                "fragment-only opcode",
            );
        }
        Category::Derivative if processor != Processor::Fragment => {
            report.warning(
                site,
                format!("{op} outside a fragment shader: derivatives need pixel quads"),
                "derivative outside FRAG",
            );
        }
        Category::Geometry if processor != Processor::Geometry => {
            report.error(
                site,
                format!("{op} exists only in geometry shaders, this is a {processor} shader"),
                "geometry-only opcode",
            );
        }
        _ if op == Opcode::BARRIER && !only(&[Processor::Compute, Processor::TessCtrl]) => {
            report.error(
                site,
                format!(
                    "BARRIER synchronises compute work groups or tessellation-control patches, this is a {processor} shader"
                ),
                "no barrier in this stage",
            );
        }
        _ => {}
    }
}
