//! What a shader file holds, told from its bytes alone: the one rule the
//! command's verbs, the debugger and the translator share (the command adds
//! what a file's name promises and what a verb expects).

/// A kind of shader file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A DXBC container, or a raw `fx_5_0` effect.
    Dxbc,
    /// SM4/SM5 assembly as fxc prints it (one of its listings).
    SmAsm,
    /// TGSI text (its first word a stage header).
    Tgsi,
    /// Mesa's binary `tgsi_token` words.
    Tokens,
}

/// The kind `bytes` show, or `None` when nothing marks them (text without a
/// stage header, binary without a token header).
pub fn kind_of(bytes: &[u8]) -> Option<Kind> {
    if bytes.starts_with(b"DXBC") || tgsi_d3d::effect::is_raw_effect(bytes) {
        return Some(Kind::Dxbc);
    }
    let text = std::str::from_utf8(bytes).ok();
    if text.is_some_and(tgsi_shader_test::d3d::is_assembly) {
        return Some(Kind::SmAsm);
    }
    if looks_like_tokens(bytes) {
        return Some(Kind::Tokens);
    }
    if text.is_some_and(starts_with_tgsi_header) {
        return Some(Kind::Tgsi);
    }
    // a version line gone wrong: assembly, whose assembler points at it
    if text.is_some_and(starts_like_sm_version) {
        return Some(Kind::SmAsm);
    }
    None
}

/// Mesa's `tgsi_token` words: whole words, a header of 2 words and a
/// processor type below 16 (no text starts with the byte 2).
fn looks_like_tokens(bytes: &[u8]) -> bool {
    bytes.len() >= 8
        && bytes.len().is_multiple_of(4)
        && bytes[0] == 2
        && u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) < 16
}

/// TGSI text: its first word (past a byte-order mark) is a stage header.
fn starts_with_tgsi_header(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.split_whitespace().next().unwrap_or("");
    ["VERT", "FRAG", "GEOM", "TESS_CTRL", "TESS_EVAL", "COMP"].contains(&first)
}

/// Whether the first word past `//` comments looks like an SM4/SM5
/// version line gone wrong (`ps5_0`, `PS_5_0`, `xs_5_0`): two letters,
/// then `_` or a digit.
fn starts_like_sm_version(text: &str) -> bool {
    let first = (text.lines())
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("");
    let b = first.as_bytes();
    b.len() >= 3
        && b[..2].iter().all(u8::is_ascii_alphabetic)
        && (b[2] == b'_' || b[2].is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::{Kind, kind_of};

    #[test]
    fn kinds_are_told_by_their_first_bytes() {
        assert_eq!(kind_of(b"DXBC\0\0"), Some(Kind::Dxbc));
        assert_eq!(kind_of(&[0x01, 0x20, 0xff, 0xfe]), Some(Kind::Dxbc));
        assert_eq!(kind_of(b"// fxc\nps_5_0\nret\n"), Some(Kind::SmAsm));
        assert_eq!(kind_of(b"\xef\xbb\xbf  COMP\nEND\n"), Some(Kind::Tgsi));
        let tokens = [2, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0];
        assert_eq!(kind_of(&tokens), Some(Kind::Tokens));
        assert_eq!(kind_of(&tokens[..11]), None);
        assert_eq!(kind_of(b"MOV TEMP[0], IN[0]\n"), None);
        // a version line gone wrong is still assembly
        for broken in [
            &b"// c\nps_5_O\nret\n"[..],
            b"ps5_0\n",
            b"XS_5_0\n",
            b"hs_-1_0\n",
        ] {
            assert_eq!(kind_of(broken), Some(Kind::SmAsm));
        }
        assert_eq!(kind_of(b""), None);
    }
}
