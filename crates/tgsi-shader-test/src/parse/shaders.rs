//! `[<stage> shader ...]` sections: the stage and language a header names,
//! and the shader text of the body.

use super::{Line, ParseError, ShaderLanguage, ShaderSection, Stage, is_comment_or_blank};

pub(super) fn parse_shader_header(
    line: usize,
    stage: &[&str],
    modifiers: &[&str],
) -> Result<(Stage, ShaderLanguage, bool), ParseError> {
    let stage = Stage::from_words(stage).ok_or_else(|| {
        ParseError::new(
            line,
            format!(
                "unknown shader stage `{}` (expected compute, vertex, fragment, pixel, geometry, tess control, hull, tess eval or domain)",
                stage.join(" ")
            ),
        )
    })?;
    let mut language = ShaderLanguage::Tgsi;
    let mut fail = false;
    for m in modifiers {
        match *m {
            "fail" if !fail => fail = true,
            "d3d-asm" if language == ShaderLanguage::Tgsi && !fail => {
                language = ShaderLanguage::D3dAsm
            }
            "dxbc-tpf-hex" if language == ShaderLanguage::Tgsi && !fail => {
                language = ShaderLanguage::DxbcTpfHex
            }
            other => {
                return Err(ParseError::new(
                    line,
                    format!(
                        "unexpected `{other}` in a shader header (expected `d3d-asm` or `dxbc-tpf-hex`, then optionally `fail`)"
                    ),
                ));
            }
        }
    }
    Ok((stage, language, fail))
}

/// The shader text: every line of the body, except trailing blank and
/// comment-only lines (so comments may precede the next header).
pub(super) fn shader_body(
    stage: Stage,
    language: ShaderLanguage,
    fail: bool,
    line: usize,
    body: &[Line<'_>],
    source: &str,
) -> ShaderSection {
    let mut last = body.len();
    while last > 0 && is_comment_or_blank(body[last - 1].text) {
        last -= 1;
    }
    let (body_offset, text) = match body.first() {
        Some(first) if last > 0 => {
            let end = body[last - 1].offset + body[last - 1].text.len();
            (first.offset, format!("{}\n", &source[first.offset..end]))
        }
        Some(first) => (first.offset, String::new()),
        None => (source.len(), String::new()),
    };
    ShaderSection {
        stage,
        language,
        fail,
        line,
        body: text,
        body_offset,
    }
}
