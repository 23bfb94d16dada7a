//! The tokenizer of TGSI text: turns source into words, numbers and
//! punctuation, each with its byte span and whether it starts a line.
//!
//! Hand-written because TGSI's words are context-free only at this level:
//! `2D_ARRAY` is one word although it starts with a digit, `0..3` is a range
//! while `1.5e-3` is one number, and `0x3f800000` is a raw float.
//!
//! Rules (a superset of Mesa's): space, tab and LF separate tokens; CR is a
//! line end only when an LF follows (CRLF files) and a lone CR is an
//! [`TokenKind::StrayCr`] token the parser reports; `;` starts a comment that
//! runs to the end of the line. Newlines are not tokens: a statement may span
//! lines as in Mesa, and [`Token::line_start`] lets the parser recover from an
//! error at the next line and say "found end of line".

use crate::cursor::is_word_char;
use tgsi_ir::ir::Span;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`
    Ident,
    /// A word starting with a digit (or `.digit`): `12`, `2D`, `0x3f800000`, `1.5e-3`.
    Number,
    LBracket,
    RBracket,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Dot,
    DotDot,
    Pipe,
    Plus,
    Minus,
    /// `#`: only seen in C-preprocessed shader templates.
    Hash,
    /// A carriage return that is not followed by a line feed.
    StrayCr,
    /// Any other character.
    Invalid,
    /// End of the input (always the last token).
    Eof,
}

impl crate::cursor::Kind for TokenKind {
    const EOF: TokenKind = TokenKind::Eof;
}

/// One token.
pub type Token = crate::cursor::Token<TokenKind>;

/// Splits `source` into tokens; the last one is always [`TokenKind::Eof`].
pub fn tokenize(source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        let kind = match b {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'\n' => {
                i += 1;
                line_start = true;
                continue;
            }
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                i += 2;
                line_start = true;
                continue;
            }
            b'\r' => {
                i += 1;
                TokenKind::StrayCr
            }
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while i < bytes.len() && is_word_char(bytes[i]) {
                    i += 1;
                }
                TokenKind::Ident
            }
            b'0'..=b'9' => {
                i = scan_number(bytes, i);
                TokenKind::Number
            }
            b'.' if bytes.get(i + 1) == Some(&b'.') => {
                i += 2;
                TokenKind::DotDot
            }
            b'.' if bytes.get(i + 1).is_some_and(|c| c.is_ascii_digit()) => {
                i = scan_number(bytes, i);
                TokenKind::Number
            }
            _ => {
                i += 1;
                match b {
                    b'[' => TokenKind::LBracket,
                    b']' => TokenKind::RBracket,
                    b'(' => TokenKind::LParen,
                    b')' => TokenKind::RParen,
                    b'{' => TokenKind::LBrace,
                    b'}' => TokenKind::RBrace,
                    b',' => TokenKind::Comma,
                    b':' => TokenKind::Colon,
                    b'.' => TokenKind::Dot,
                    b'|' => TokenKind::Pipe,
                    b'+' => TokenKind::Plus,
                    b'-' => TokenKind::Minus,
                    b'#' => TokenKind::Hash,
                    _ => {
                        // Keep whole UTF-8 characters together.
                        while i < bytes.len() && !source.is_char_boundary(i) {
                            i += 1;
                        }
                        TokenKind::Invalid
                    }
                }
            }
        };
        tokens.push(Token {
            kind,
            span: Span::new(start, i),
            line_start,
            indented: false,
        });
        // A lone CR still ends the line for error recovery.
        line_start = kind == TokenKind::StrayCr;
    }
    let end = bytes.len();
    tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(end, end),
        line_start: true,
        indented: false,
    });
    tokens
}

/// Scans a number word from `i`: word characters, an optional fraction
/// (`.` not followed by another `.`), and a signed exponent after a trailing
/// `e`/`E` (decimal) or `p`/`P` (hex float).
fn scan_number(bytes: &[u8], mut i: usize) -> usize {
    let start = i;
    while i < bytes.len() && is_word_char(bytes[i]) {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' && bytes.get(i + 1) != Some(&b'.') {
        i += 1;
        while i < bytes.len() && is_word_char(bytes[i]) {
            i += 1;
        }
    }
    let is_hex =
        bytes[start..].len() > 1 && bytes[start] == b'0' && matches!(bytes[start + 1], b'x' | b'X');
    let last = bytes[i - 1];
    let exponent_letter = if is_hex {
        matches!(last, b'p' | b'P')
    } else {
        matches!(last, b'e' | b'E')
    };
    if exponent_letter
        && i + 1 < bytes.len()
        && matches!(bytes[i], b'+' | b'-')
        && bytes[i + 1].is_ascii_digit()
    {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenKind::*;

    fn kinds(s: &str) -> Vec<(TokenKind, String)> {
        tokenize(s)
            .iter()
            .map(|t| (t.kind, t.text(s).to_string()))
            .collect()
    }

    #[test]
    fn words_numbers_and_ranges() {
        let k = kinds("DCL TEMP[0..3], 2D_ARRAY 1.5e-3 0x3f800000 5.");
        let texts: Vec<&str> = k.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                "DCL",
                "TEMP",
                "[",
                "0",
                "..",
                "3",
                "]",
                ",",
                "2D_ARRAY",
                "1.5e-3",
                "0x3f800000",
                "5.",
                ""
            ]
        );
        assert_eq!(k[8].0, Number);
        assert_eq!(k[4].0, DotDot);
    }

    #[test]
    fn swizzle_and_indirect() {
        let k = kinds("TEMP[ADDR[0].x-2].xyzw");
        let ks: Vec<TokenKind> = k.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            ks,
            [
                Ident, LBracket, Ident, LBracket, Number, RBracket, Dot, Ident, Minus, Number,
                RBracket, Dot, Ident, Eof
            ]
        );
    }

    #[test]
    fn comments_crlf_and_line_starts() {
        let toks = tokenize("FRAG ; header\r\nEND\r");
        assert_eq!(toks.len(), 4);
        assert!(toks[0].line_start);
        assert_eq!(toks[1].kind, Ident);
        assert!(toks[1].line_start);
        assert_eq!(toks[2].kind, StrayCr);
        assert_eq!(toks[3].kind, Eof);
    }

    #[test]
    fn hex_float_exponent_and_utf8() {
        let k = kinds("0x1p-3 é");
        assert_eq!(k[0], (Number, "0x1p-3".to_string()));
        assert_eq!(k[1], (Invalid, "é".to_string()));
    }
}
