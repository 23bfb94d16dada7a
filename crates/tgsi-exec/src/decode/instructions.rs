//! One instruction pre-decoded: opcode checks per stage, operands,
//! texture and sampling instructions, Direct3D's numeric marks.

use super::*;

/// Explains why an opcode cannot run yet, or `None` when the machine runs it.
pub(super) fn unsupported(op: Opcode, processor: Processor) -> Option<&'static str> {
    let info = op.info();
    match info.category {
        _ if op == Opcode::FBFETCH => {
            Some("(framebuffer fetch) is not supported: the machine has no blending stage")
        }
        Category::Derivative | Category::Fragment | Category::Interpolation
            if processor != Processor::Fragment =>
        {
            Some("needs the fragment stage (it is only valid in a FRAG shader)")
        }
        Category::Geometry if processor != Processor::Geometry => {
            Some("needs a GEOM shader (it only runs in the geometry stage)")
        }
        Category::Bindless => Some("needs bindless texture/image support (not yet implemented)"),
        Category::Gap => Some("is an unused opcode slot"),
        _ => None,
    }
}

pub(super) fn decode_inst(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    tex: &mut Vec<TexInst>,
) -> Result<Inst, ExecError> {
    let op = inst.opcode;
    if let Some(why) = unsupported(op, layout.processor) {
        return Err(err(i, inst, format!("opcode {op} {why}")));
    }
    let info = op.info();
    // Old GEOM shaders write EMIT / ENDPRIM without the stream operand (stream 0).
    let legacy_stream = info.category == Category::Geometry && inst.src.is_empty();
    if !legacy_stream
        && (inst.dst.len() != info.num_dst as usize || inst.src.len() != info.num_src as usize)
    {
        return Err(err(
            i,
            inst,
            format!(
                "expected {} destination(s) and {} source(s), found {} and {}",
                info.num_dst,
                info.num_src,
                inst.dst.len(),
                inst.src.len()
            ),
        ));
    }
    let mut out = Inst {
        op,
        saturate: inst.saturate,
        dst: [Dst::NULL; 2],
        src: [Src::NONE; 5],
        resource: None,
        target: 0,
        aux: 0,
        brk_switch: false,
        flush: false,
        d3d: false,
        zero_wins: false,
        resource_addr: None,
    };
    let memory_dst = op == Opcode::STORE;
    let memory_src0 =
        matches!(info.category, Category::Atomic) || matches!(op, Opcode::LOAD | Opcode::RESQ);
    for (k, d) in inst.dst.iter().enumerate() {
        if memory_dst {
            (out.resource, out.resource_addr) = resource_of(i, inst, layout, &d.reg)?;
            out.dst[k] = Dst {
                kind: DstKind::Null,
                mask: d.write_mask.bits(),
            };
            continue;
        }
        let kind = match d.reg.file {
            File::Null => DstKind::Null,
            File::Output if layout.processor == Processor::TessCtrl => DstKind::Patch {
                grid: layout.patch_grid(i, inst, &d.reg)?,
            },
            File::Temp | File::Output | File::Address => {
                let range = layout.range(d.reg.file).expect("register file has a range");
                if d.reg.dimension.is_some() {
                    return Err(err(
                        i,
                        inst,
                        "2-D destinations exist only for the outputs of TESS_CTRL shaders",
                    ));
                }
                match d.reg.index.indirect {
                    None => DstKind::Reg(range.base + d.reg.index.offset as u32),
                    Some(_) => {
                        let ix = decode_index(i, inst, layout, &d.reg.index)?;
                        let (base, len) = indirect_bounds(i, inst, layout, &d.reg, range)?;
                        let offset = ix.offset - (base - range.base) as i32;
                        DstKind::RegIndirect {
                            base,
                            len,
                            offset,
                            addr: ix.addr.expect("indirect index has an address"),
                        }
                    }
                }
            }
            f => return Err(err(i, inst, format!("register file {f} cannot be written"))),
        };
        out.dst[k] = Dst {
            kind,
            mask: d.write_mask.bits(),
        };
    }
    if matches!(info.category, Category::Texture | Category::Sampling) {
        out.aux = tex.len() as u32;
        tex.push(decode_tex(i, inst, layout, &mut out.src)?);
        return Ok(out);
    }
    if info.category == Category::Interpolation {
        let r = &inst.src[0].reg;
        if r.file != File::Input || r.dimension.is_some() {
            return Err(err(
                i,
                inst,
                "the interpolated operand must be an IN register",
            ));
        }
        // Direct: the IN index; indirect: read per lane from src[0]'s kind.
        out.aux = r.index.offset.max(0) as u32;
    }
    for (k, s) in inst.src.iter().enumerate() {
        if k == 0 && memory_src0 {
            (out.resource, out.resource_addr) = resource_of(i, inst, layout, &s.reg)?;
            out.src[0] = Src {
                kind: SrcKind::None,
                swz: [0, 1, 2, 3].map(|c| s.swizzle.get(c) as u8),
                modifier: Modifier::None,
                flush: false,
            };
            continue;
        }
        out.src[k] = decode_src(i, inst, layout, k, s)?;
    }
    if matches!(
        op,
        Opcode::ATOMFADD | Opcode::ATOMINC_WRAP | Opcode::ATOMDEC_WRAP
    ) && out.resource.is_none()
    {
        return Err(err(i, inst, "atomic without a resource operand"));
    }
    Ok(out)
}

/// Splits a texture/sampling instruction's sources into register sources
/// (written to `srcs` in operand order) and resource operands.
pub(super) fn decode_tex(
    i: usize,
    inst: &Instruction,
    layout: &Layout,
    srcs: &mut [Src; 5],
) -> Result<TexInst, ExecError> {
    let mut sview: Option<(IndexExpr, [u8; 4])> = None;
    let mut sampler: Option<(IndexExpr, [u8; 4])> = None;
    let mut n = 0usize;
    for (k, s) in inst.src.iter().enumerate() {
        let swz = [0, 1, 2, 3].map(|c| s.swizzle.get(c) as u8);
        let slot = match s.reg.file {
            File::SamplerView => &mut sview,
            File::Sampler => &mut sampler,
            _ => {
                srcs[n] = decode_src(i, inst, layout, k, s)?;
                n += 1;
                continue;
            }
        };
        if slot.is_some() {
            return Err(err(i, inst, format!("two {} operands", s.reg.file)));
        }
        *slot = Some((resource_index(i, inst, layout, &s.reg)?, swz));
    }
    let (view, view_swz, has_sview) = match (sview, sampler) {
        (Some((v, sw)), _) => (v, sw, true),
        (None, Some((v, sw))) => (v, sw, false),
        (None, None)
            if matches!(inst.opcode, Opcode::SAMPLE_INFO | Opcode::SAMPLE_POS)
                && inst.src.first().is_some_and(|s| s.reg.file == File::Temp) =>
        {
            let none = IndexExpr {
                offset: 0,
                addr: None,
            };
            return Ok(TexInst {
                target: TextureTarget::Unknown,
                return_type: None,
                sview: none,
                sampler: none,
                resource_swizzle: [0, 1, 2, 3],
                gather_component: 0,
                num_srcs: n as u8,
                offset: None,
                rasterizer: true,
            });
        }
        (None, None) => {
            return Err(err(
                i,
                inst,
                "needs a SVIEW or SAMP operand (sampling the render target is not supported)",
            ));
        }
    };
    let samp = sampler.map_or(view, |(v, _)| v);
    let gather_component = sampler.map_or(0, |(_, sw)| sw[0]);
    let decl = layout
        .sviews
        .iter()
        .find(|(k, _)| view.offset >= 0 && *k == view.offset as u32)
        .map(|(_, d)| *d);
    let token = inst
        .texture
        .as_ref()
        .map_or(TextureTarget::Unknown, |t| t.target);
    let decl_target = decl.map_or(TextureTarget::Unknown, |d| d.target);
    // Ops with a SVIEW operand take the declared target (the SAMPLE family has
    // none of its own); SAMP-only ops take the instruction's. Still UNKNOWN:
    // the texture engine uses the bound texture's target.
    let target = match (has_sview, decl_target, token) {
        (true, t, _) | (false, _, t) if t != TextureTarget::Unknown => t,
        (_, d, TextureTarget::Unknown) => d,
        (_, _, t) => t,
    };
    let return_type = decl.map(|d| d.return_types[0]).or_else(|| {
        inst.texture
            .as_ref()
            .and_then(|t| ReturnType::from_u32(t.return_type as u32))
    });
    let offsets = inst.texture.as_ref().map_or(&[][..], |t| &t.offsets[..]);
    if offsets.len() > 1 {
        return Err(err(
            i,
            inst,
            format!("{} texel offsets: only one is supported", offsets.len()),
        ));
    }
    let offset = match offsets.first() {
        None => None,
        Some(o) => {
            let range = layout.range(o.file).ok_or_else(|| {
                err(
                    i,
                    inst,
                    format!("a texel offset cannot be read from {}", o.file),
                )
            })?;
            if o.index < 0 || o.index as u32 >= range.len {
                return Err(err(
                    i,
                    inst,
                    format!(
                        "texel offset register {}[{}] is out of range",
                        o.file, o.index
                    ),
                ));
            }
            let sw = o.swizzle;
            Some(Src {
                kind: SrcKind::Reg(range.base + o.index as u32),
                swz: [sw[0] as u8, sw[1] as u8, sw[2] as u8, 3],
                modifier: Modifier::None,
                flush: false,
            })
        }
    };
    Ok(TexInst {
        target,
        return_type,
        sview: view,
        sampler: samp,
        resource_swizzle: view_swz,
        gather_component,
        num_srcs: n as u8,
        offset,
        rasterizer: false,
    })
}

/// Marks what [`super::Numerics::Direct3D`] changes: the float32 sources
/// and results [`Opcode::direct3d_flush`] names flush denormals.
pub(super) fn mark_direct3d(insts: &mut [Inst]) {
    for inst in insts {
        let info = inst.op.info();
        inst.d3d = true;
        let (sources, result) = inst.op.direct3d_flush();
        inst.flush = result;
        if sources {
            for (k, src) in inst.src.iter_mut().enumerate().take(info.num_src as usize) {
                src.flush = info.src_types.get(k) == Some(&OperandType::Float);
            }
        }
    }
}
