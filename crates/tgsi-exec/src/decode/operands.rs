//! Operands: register indices (direct, indirect and 2-D), source modifiers
//! and destinations resolved to the machine's register array, and the
//! resources (buffers, images, shared memory) instructions name.

use super::*;

pub(super) fn decode_index(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    idx: &Index,
) -> Result<IndexExpr, ExecError> {
    let addr = match idx.indirect {
        None => None,
        Some(ind) => {
            let range = layout
                .range(ind.file)
                .filter(|_| {
                    matches!(
                        ind.file,
                        File::Address
                            | File::Temp
                            | File::Input
                            | File::SystemValue
                            | File::Immediate
                            | File::Output
                    )
                })
                .ok_or_else(|| {
                    err(
                        i,
                        inst,
                        format!("indirect index through {} is not supported", ind.file),
                    )
                })?;
            if ind.index < 0 || ind.index as u32 >= range.len {
                return Err(err(
                    i,
                    inst,
                    format!(
                        "indirect register {}[{}] is out of range",
                        ind.file, ind.index
                    ),
                ));
            }
            Some(AddrRef {
                reg: range.base + ind.index as u32,
                chan: ind.component as u8,
            })
        }
    };
    Ok(IndexExpr {
        offset: idx.offset,
        addr,
    })
}

/// The bounds an indirect access into `reg` may reach: its ARRAY if it names
/// one, else the whole file.
pub(super) fn indirect_bounds(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
    range: FileRange,
) -> Result<(u32, u32), ExecError> {
    let array_id = reg.index.indirect.map_or(0, |a| a.array_id);
    if array_id != 0 && reg.file == File::Temp {
        let &(_, first, last) = layout
            .temp_arrays
            .iter()
            .find(|(id, _, _)| *id == array_id)
            .ok_or_else(|| err(i, inst, format!("ARRAY({array_id}) is not declared")))?;
        // Offsets stay relative to the file start: the array bounds only
        // narrow which entries the lane may reach.
        return Ok((range.base + first, last - first + 1));
    }
    Ok((range.base, range.len))
}

pub(super) fn decode_reg_access(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
) -> Result<SrcKind, ExecError> {
    if reg.file == File::Const {
        let slot = decode_index(i, inst, layout, &reg.index)?;
        let buf = match &reg.dimension {
            Some(d) => decode_index(i, inst, layout, d)?,
            None => IndexExpr {
                offset: 0,
                addr: None,
            },
        };
        return Ok(match (buf.addr, slot.addr) {
            (None, None) => {
                if buf.offset < 0 {
                    return Err(err(
                        i,
                        inst,
                        format!("constant buffer index {} is negative", buf.offset),
                    ));
                }
                SrcKind::Const {
                    buf: buf.offset as u32,
                    slot: slot.offset,
                }
            }
            _ => SrcKind::ConstIndirect { buf, slot },
        });
    }
    let range = layout.range(reg.file).ok_or_else(|| {
        err(
            i,
            inst,
            format!("register file {} cannot be read as a register", reg.file),
        )
    })?;
    if layout.processor == Processor::TessCtrl && reg.file == File::Output {
        return Ok(SrcKind::Patch {
            grid: layout.patch_grid(i, inst, reg)?,
        });
    }
    if reg.file == File::Input && reg.dimension.is_some() {
        return layout.vertex_input(i, inst, reg);
    }
    if reg.dimension.is_some() {
        return Err(err(
            i,
            inst,
            format!(
                "2-D {} registers exist only for the inputs of GEOM, TESS_CTRL and TESS_EVAL shaders and the outputs of TESS_CTRL shaders",
                reg.file
            ),
        ));
    }
    match reg.index.indirect {
        None => {
            // file_sizes grew the file to cover every direct use.
            Ok(SrcKind::Reg(range.base + reg.index.offset as u32))
        }
        Some(_) => {
            let ix = decode_index(i, inst, layout, &reg.index)?;
            let (base, len) = indirect_bounds(i, inst, layout, reg, range)?;
            // Make the offset relative to `base` (array start).
            let offset = ix.offset - (base - range.base) as i32;
            Ok(SrcKind::RegIndirect {
                base,
                len,
                offset,
                addr: ix.addr.expect("indirect index has an address"),
            })
        }
    }
}

pub(super) fn decode_src(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    k: usize,
    s: &SrcOperand,
) -> Result<Src, ExecError> {
    let kind = decode_reg_access(i, inst, layout, &s.reg)?;
    let ty = inst.opcode.src_type(k);
    let modifier = if s.absolute || s.negate {
        Modifier::Apply {
            ty,
            abs: s.absolute,
            neg: s.negate,
        }
    } else {
        Modifier::None
    };
    let swz = [0, 1, 2, 3].map(|c| s.swizzle.get(c) as u8);
    Ok(Src {
        kind,
        swz,
        modifier,
        flush: false,
    })
}

pub(super) fn resource_of(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
) -> Result<(Option<Resource>, Option<IndexExpr>), ExecError> {
    if reg.dimension.is_some_and(|d| d.indirect.is_some()) {
        return Err(err(
            i,
            inst,
            format!("indirect 2-D {} resources are not supported", reg.file),
        ));
    }
    let addr = match reg.index.indirect {
        Some(_) if matches!(reg.file, File::Buffer | File::Image) => {
            Some(decode_index(i, inst, layout, &reg.index)?)
        }
        Some(_) => {
            return Err(err(
                i,
                inst,
                format!("indirect {} resources are not supported", reg.file),
            ));
        }
        None => None,
    };
    let direct = Register {
        index: Index::direct(reg.index.offset.max(0)),
        ..*reg
    };
    Ok((Some(direct_resource(i, inst, layout, &direct)?), addr))
}

pub(super) fn direct_resource(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
) -> Result<Resource, ExecError> {
    let n = reg.index.offset;
    if n < 0 {
        return Err(err(i, inst, format!("negative {} index {n}", reg.file)));
    }
    match reg.file {
        File::Buffer => Ok(Resource::Buffer(n as u32)),
        File::Memory => Ok(Resource::Shared),
        File::Const | File::ConstBuf => {
            let b = reg.dimension.map_or(n, |d| d.offset);
            Ok(Resource::Const(b.max(0) as u32))
        }
        File::Image => {
            let decl = layout
                .images
                .iter()
                .find(|(k, _)| *k == n as u32)
                .map(|(_, d)| *d);
            let mem = inst.memory.unwrap_or_default();
            let target = if mem.target != TextureTarget::Buffer {
                mem.target
            } else {
                decl.map_or(TextureTarget::Unknown, |d| d.target)
            };
            let pipe = if mem.format != PipeFormat::NONE {
                mem.format
            } else {
                decl.map_or(PipeFormat::NONE, |d| d.format)
            };
            let format = if pipe == PipeFormat::NONE {
                None
            } else {
                Some(crate::texture::Format::from_pipe(pipe).ok_or_else(|| {
                    err(
                        i,
                        inst,
                        format!("IMAGE[{n}]: format {pipe} is not supported by the texture engine"),
                    )
                })?)
            };
            Ok(Resource::Image {
                index: n as u32,
                target,
                format,
            })
        }
        File::HwAtomic => Err(err(i, inst, "HWATOMIC counters are not supported")),
        f => Err(err(i, inst, format!("{f} is not a memory resource"))),
    }
}

/// A SVIEW or SAMP operand's index (direct or per lane).
pub(super) fn resource_index(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    reg: &Register,
) -> Result<IndexExpr, ExecError> {
    if reg.dimension.is_some() {
        return Err(err(
            i,
            inst,
            format!("2-D {} operands are not supported", reg.file),
        ));
    }
    let ix = decode_index(i, inst, layout, &reg.index)?;
    if ix.addr.is_none() && ix.offset < 0 {
        return Err(err(
            i,
            inst,
            format!("negative {} index {}", reg.file, ix.offset),
        ));
    }
    Ok(ix)
}
