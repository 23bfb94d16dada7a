//! Properties: each one belongs to the stage it configures, takes values from
//! its range, and is set once (a repeated property is a warning: the last
//! one wins).

use super::{Reporter, Site};
use crate::enums::{Primitive, Processor, PropertyName};
use crate::ir::{Shader, Statement};

/// The stage a property configures; `None` for those meaningful anywhere.
fn stage_of(name: PropertyName) -> Option<Processor> {
    use PropertyName::*;
    match name {
        GsInputPrimitive | GsOutputPrimitive | GsMaxOutputVertices | GsInvocations => {
            Some(Processor::Geometry)
        }
        FsCoordOrigin
        | FsCoordPixelCenter
        | FsColor0WritesAllCbufs
        | FsDepthLayout
        | FsEarlyDepthStencil
        | FsPostDepthCoverage
        | FsBlendEquationAdvanced => Some(Processor::Fragment),
        VsProhibitUcps | VsWindowSpacePosition | VsBlitSgprsAmd => Some(Processor::Vertex),
        TcsVerticesOut => Some(Processor::TessCtrl),
        TesPrimMode | TesSpacing | TesVertexOrderCw | TesPointMode => Some(Processor::TessEval),
        CsFixedBlockWidth | CsFixedBlockHeight | CsFixedBlockDepth | CsUserDataComponentsAmd => {
            Some(Processor::Compute)
        }
        NumClipdistEnabled
        | NumCulldistEnabled
        | NextShader
        | LegacyMathRules
        | LayerViewportRelative
        | SeparableProgram => None,
    }
}

/// What is wrong with a property's value, if anything.
fn value_problem(name: PropertyName, value: u32) -> Option<String> {
    use PropertyName::*;
    let boolean = |v: u32| (v > 1).then(|| format!("{name} is 0 or 1, found {v}"));
    match name {
        GsInputPrimitive => match Primitive::from_u32(value) {
            Some(
                Primitive::Points
                | Primitive::Lines
                | Primitive::LinesAdjacency
                | Primitive::Triangles
                | Primitive::TrianglesAdjacency,
            ) => None,
            _ => Some(format!(
                "GS_INPUT_PRIMITIVE is POINTS, LINES, LINES_ADJACENCY, TRIANGLES or TRIANGLES_ADJACENCY, found {}",
                primitive_words(value)
            )),
        },
        GsOutputPrimitive => match Primitive::from_u32(value) {
            Some(Primitive::Points | Primitive::LineStrip | Primitive::TriangleStrip) => None,
            _ => Some(format!(
                "GS_OUTPUT_PRIMITIVE is POINTS, LINE_STRIP or TRIANGLE_STRIP, found {}",
                primitive_words(value)
            )),
        },
        GsInvocations if value == 0 => Some("GS_INVOCATIONS is at least 1".into()),
        TcsVerticesOut if value == 0 || value > 32 => {
            Some(format!("TCS_VERTICES_OUT is 1 to 32, found {value}"))
        }
        TesPrimMode => match Primitive::from_u32(value) {
            Some(Primitive::Lines | Primitive::Triangles | Primitive::Quads) => None,
            _ => Some(format!(
                "TES_PRIM_MODE is LINES, TRIANGLES or QUADS, found {}",
                primitive_words(value)
            )),
        },
        CsFixedBlockWidth | CsFixedBlockHeight | CsFixedBlockDepth if value == 0 => {
            Some(format!("{name} is at least 1"))
        }
        FsCoordOrigin
        | FsCoordPixelCenter
        | FsColor0WritesAllCbufs
        | FsEarlyDepthStencil
        | FsPostDepthCoverage
        | VsProhibitUcps
        | VsWindowSpacePosition
        | TesVertexOrderCw
        | TesPointMode
        | LegacyMathRules
        | SeparableProgram
        | LayerViewportRelative => boolean(value),
        FsDepthLayout if value > 4 => Some(format!(
            "FS_DEPTH_LAYOUT is 0 to 4 (NONE, ANY, GREATER, LESS, UNCHANGED), found {value}"
        )),
        NumClipdistEnabled | NumCulldistEnabled if value > 8 => {
            Some(format!("{name} is 0 to 8, found {value}"))
        }
        _ => None,
    }
}

fn primitive_words(value: u32) -> String {
    match Primitive::from_u32(value) {
        Some(p) => p.name().to_string(),
        None => value.to_string(),
    }
}

/// Checks every property of the shader.
pub(crate) fn check(shader: &Shader, report: &mut Reporter) {
    let mut seen: Vec<(PropertyName, usize)> = Vec::new();
    for (stmt, s) in shader.statements.iter().enumerate() {
        let Statement::Property(p) = s else { continue };
        let site = Site::stmt(stmt);
        if let Some(stage) = stage_of(p.name)
            && stage != shader.processor
        {
            report.error(
                site,
                format!(
                    "property {} configures {stage} shaders, this is a {} shader",
                    p.name, shader.processor
                ),
                "wrong stage",
            );
        }
        if let Some(problem) = value_problem(p.name, p.value) {
            report.error(site, problem, "value out of range");
        }
        if let Some(&(_, first)) = seen.iter().find(|(n, _)| *n == p.name) {
            report.warning(
                site,
                format!("property {} is set twice; the last value wins", p.name),
                "set again",
            );
            report.also(Site::stmt(first), "first set here");
        } else {
            seen.push((p.name, stmt));
        }
    }
    check_block_size(shader, report);
}

/// A compute block of more invocations than the machine runs by default
/// (`Limits::max_group_invocations`): a warning at its last size property.
fn check_block_size(shader: &Shader, report: &mut Reporter) {
    use PropertyName::*;
    let mut size = [1u64; 3];
    let mut last = None;
    for (stmt, s) in shader.statements.iter().enumerate() {
        if let Statement::Property(p) = s {
            let axis = match p.name {
                CsFixedBlockWidth => 0,
                CsFixedBlockHeight => 1,
                CsFixedBlockDepth => 2,
                _ => continue,
            };
            size[axis] = u64::from(p.value).max(1);
            last = Some(stmt);
        }
    }
    let invocations = size.iter().fold(1u64, |a, &b| a.saturating_mul(b));
    if let Some(stmt) = last
        && invocations > super::MAX_BLOCK_INVOCATIONS
    {
        report.warning(
            Site::stmt(stmt),
            format!(
                "a block of {}x{}x{} = {invocations} invocations: the machine runs at most {} by default",
                size[0],
                size[1],
                size[2],
                super::MAX_BLOCK_INVOCATIONS
            ),
            "block too large to run",
        );
    }
}
