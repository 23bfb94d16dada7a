//! What kind of fxc text a file is, told from its first statement: an SM4/SM5
//! listing (`/Fc`, `/Fh` with its `#if 0` guard), a feature-level-9 listing
//! whose Direct3D 9 program (`ps_2_x`, `vs_2_0` ...) comes before the SM4 one,
//! or an effect listing (`fx_4_0`/`fx_5_0`: buffers, techniques and passes
//! around `asm { ... }` shaders).

use tgsi_ir::diag::Diagnostic;
use tgsi_ir::ir::Span;

/// The kinds of listing fxc writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListingKind {
    /// the first statement is an SM4/SM5 version line (`ps_5_0`, `lib_4_0`,
    /// `vs_4_0_level_9_1`, `fx_5_0`)
    Program,
    /// the first statement is a Direct3D 9 version line (`ps_2_x`) and an
    /// SM4 version line follows: the listing of a `*_level_9_*` target
    Level9First {
        /// byte offset of the Direct3D 9 version line
        level9: usize,
    },
    /// a Direct3D 9 program alone (`vs_2_0`, `ps_3_0` ...): fxc's, but not
    /// shader model 4 or 5
    Direct3D9 {
        /// byte offset of the version line
        at: usize,
    },
    /// an effect listing: top-level `cbuffer`, `technique10`, `fxgroup` ...
    Effect {
        /// byte offset of the first statement
        at: usize,
    },
}

/// Statements of the text that are not blank, `//` comments or preprocessor
/// lines, with their byte offsets.
fn statements(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').filter_map(move |line| {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        let skip = trimmed.is_empty() || trimmed.starts_with("//") || trimmed.starts_with('#');
        (!skip).then(|| (start + (line.len() - line.trim_start().len()), trimmed))
    })
}

/// The kind of listing `text` is, or `None` when it is none of fxc's.
pub fn listing_kind(text: &str) -> Option<ListingKind> {
    let mut lines = statements(text);
    let (first_at, first) = lines.next()?;
    if is_level9_version_line(first) {
        return Some(if lines.any(|(_, l)| is_sm_version_line(l)) {
            ListingKind::Level9First { level9: first_at }
        } else {
            ListingKind::Direct3D9 { at: first_at }
        });
    }
    if is_sm_version_line(first) {
        return Some(ListingKind::Program);
    }
    let effect_words = [
        "cbuffer",
        "tbuffer",
        "technique10",
        "technique11",
        "fxgroup",
    ];
    let word = first.split_whitespace().next().unwrap_or("");
    let has_effect_body = statements(text).any(|(_, l)| {
        l.starts_with("technique10")
            || l.starts_with("technique11")
            || l.starts_with("fxgroup")
            || l.contains("= asm {")
    });
    (effect_words.contains(&word) && has_effect_body)
        .then_some(ListingKind::Effect { at: first_at })
}

/// `ps_5_0`, `cs_4_1`, `vs_4_0_level_9_3`, `lib_5_0`, `fx_5_0` ...
pub fn is_sm_version_line(line: &str) -> bool {
    let word = line.split_whitespace().next().unwrap_or("");
    let Some((stage, rest)) = word.split_once('_') else {
        return false;
    };
    let mut parts = rest.split('_');
    ["vs", "ps", "gs", "hs", "ds", "cs", "lib", "fx"].contains(&stage)
        && is_digit(parts.next())
        && is_digit(parts.next())
}

/// A Direct3D 9 version line: `vs_1_1`, `vs_2_0`, `ps_2_x`, `ps_2_sw`,
/// `ps_3_0` ..., or the `lib_4_0_ps_2_0` form of a library function's.
fn is_level9_version_line(line: &str) -> bool {
    let word = line.split_whitespace().next().unwrap_or("");
    let word = word.strip_prefix("lib_4_0_").unwrap_or(word);
    let mut parts = word.split('_');
    let stage = parts.next();
    let major = parts.next();
    let minor = parts.next();
    matches!(stage, Some("vs" | "ps"))
        && matches!(major, Some("1" | "2" | "3"))
        && (is_digit(minor) || matches!(minor, Some("x" | "sw")))
        && parts.next().is_none()
}

fn is_digit(part: Option<&str>) -> bool {
    part.is_some_and(|p| p.len() == 1 && p.as_bytes()[0].is_ascii_digit())
}

/// The error for a Direct3D 9 program alone.
pub fn direct3d9_error(text: &str, at: usize) -> Diagnostic {
    let end = text[at..]
        .find(char::is_whitespace)
        .map_or(text.len(), |n| at + n);
    Diagnostic::error(format!(
        "`{}` is Direct3D 9 assembly, not SM4/SM5",
        &text[at..end]
    ))
    .with_primary(Span::new(at, end), "not an SM4/SM5 version")
    .with_note("this assembler reads shader models 4.0 to 5.1; a `*_level_9_*` listing holds a Direct3D 9 program before its SM4 one, and that SM4 program is what is assembled")
}

/// The error for an effect listing given to a verb that takes one program:
/// effects are listed and decoded, not assembled.
pub fn effect_listing_error(text: &str, at: usize) -> Diagnostic {
    let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    Diagnostic::error(
        "this is an fxc effect listing (fx_4_0/fx_5_0: buffers, techniques and passes), not one SM4/SM5 program",
        )
        .with_primary(Span::new(at, end), "the effect's declarations start here")
        .with_note(
            "effect containers are not assembled: give each shader of an `asm { ... }` block as its own listing, or the compiled `.fxo` effect to `tgsi dis`, `tgsi lower` or `tgsi check`",
        )
}

#[cfg(test)]
mod tests {
    use super::{ListingKind, listing_kind};

    #[test]
    fn listings_are_told_apart_by_their_first_statement() {
        let sm = "//\n// Generated by fxc\n//\nps_5_0\ndcl_temps 1\n";
        assert_eq!(listing_kind(sm), Some(ListingKind::Program));
        assert_eq!(
            listing_kind("#if 0\nvs_4_0_level_9_1\n"),
            Some(ListingKind::Program)
        );
        let l9 = "// Level9 shader bytecode:\n    ps_2_x\n    mov oC0, c0\nps_4_0\nret\n";
        assert_eq!(
            listing_kind(l9),
            Some(ListingKind::Level9First { level9: 31 })
        );
        // a Direct3D 9 program alone is fxc's, but no SM4 listing
        assert_eq!(
            listing_kind("    vs_2_0\n    mov oPos, c0\n"),
            Some(ListingKind::Direct3D9 { at: 4 })
        );
        let fx = "//\ncbuffer $Globals\n{\n}\ntechnique10 T\n{\n    pass P0\n    {\n        VertexShader = asm {\n";
        assert_eq!(listing_kind(fx), Some(ListingKind::Effect { at: 3 }));
        assert_eq!(listing_kind("FRAG\nEND\n"), None);
        assert_eq!(listing_kind("ps_x_0\n"), None);
        assert_eq!(listing_kind("cbuffer cb0\n{\n}\n"), None);
        assert_eq!(listing_kind(""), None);
    }
}
