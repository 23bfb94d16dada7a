//! The tokenizer of SM4/SM5 assembly text (fxc and vkd3d listings): words,
//! numbers, strings and punctuation with their byte spans, and the line ends
//! the line-oriented grammar needs.
//!
//! Rules:
//! * `//` starts a comment that runs to the end of the line (outside a
//!   string); space, tab and CR are blanks; LF is a [`TokenKind::Newline`];
//! * a `#` that begins a line makes the whole line one
//!   [`TokenKind::Directive`] (`#line 3 "a.hlsl"`, `#if 0`, `#endif`);
//! * a number starts with a digit and runs over letters, digits, `_`, `.`
//!   and `#` (so `1.#INF00`, `0x3f800000`, `1.000000l` and `4l` are single
//!   tokens), with a sign directly after the exponent letter of a decimal
//!   (`1.00000000e+00`);
//! * a string (`printf "…"`) may hold unescaped quotes, because fxc prints
//!   them raw: it ends at the last quote of the line after which only an
//!   operand list (`, r0.x`) or a comment can follow (see [`string_end`]).

use tgsi_ir::ir::Span;
use tgsi_text::cursor::is_word_char;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`
    Ident,
    /// a word starting with a digit: `12`, `0x3f800000`, `1.000000`, `1.#INF00`, `5l`
    Number,
    /// `"…"`, quotes included
    String,
    /// a `"` without a closing quote on its line (runs to the line end)
    UnterminatedString,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Semicolon,
    Dot,
    Pipe,
    Plus,
    Minus,
    Equals,
    Star,
    /// a whole line starting with `#`
    Directive,
    /// a line feed
    Newline,
    /// any other character
    Invalid,
    /// the end of the input (always the last token)
    Eof,
}

impl tgsi_text::cursor::Kind for TokenKind {
    const EOF: TokenKind = TokenKind::Eof;
}

/// One token.
pub type Token = tgsi_text::cursor::Token<TokenKind>;

/// Splits `source` into tokens; the last one is always [`TokenKind::Eof`].
pub fn tokenize(source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    let mut indented = false;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        let kind = match b {
            b' ' | b'\t' | b'\r' | 0x0B | 0x0C => {
                i += 1;
                if line_start {
                    indented = true;
                }
                continue;
            }
            b'\n' => {
                i += 1;
                TokenKind::Newline
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'#' if line_start => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                TokenKind::Directive
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
            b'"' => {
                let line_end = bytes[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(bytes.len(), |p| i + p);
                match string_end(&source[i..line_end]) {
                    Some(len) => {
                        i += len;
                        TokenKind::String
                    }
                    None => {
                        i = line_end;
                        TokenKind::UnterminatedString
                    }
                }
            }
            _ => {
                i += 1;
                match b {
                    b'(' => TokenKind::LParen,
                    b')' => TokenKind::RParen,
                    b'[' => TokenKind::LBracket,
                    b']' => TokenKind::RBracket,
                    b'{' => TokenKind::LBrace,
                    b'}' => TokenKind::RBrace,
                    b',' => TokenKind::Comma,
                    b':' => TokenKind::Colon,
                    b';' => TokenKind::Semicolon,
                    b'.' => TokenKind::Dot,
                    b'|' => TokenKind::Pipe,
                    b'+' => TokenKind::Plus,
                    b'-' => TokenKind::Minus,
                    b'=' => TokenKind::Equals,
                    b'*' => TokenKind::Star,
                    _ => {
                        // keep whole UTF-8 characters together
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
            indented,
        });
        if kind == TokenKind::Newline {
            line_start = true;
            indented = false;
        } else {
            line_start = false;
        }
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(source.len(), source.len()),
        line_start,
        indented: false,
    });
    tokens
}

/// The end of a number starting at `start` (a digit).
fn scan_number(bytes: &[u8], start: usize) -> usize {
    let hex = bytes.get(start) == Some(&b'0') && matches!(bytes.get(start + 1), Some(b'x' | b'X'));
    let mut i = start;
    while i < bytes.len() {
        let c = bytes[i];
        let part_of_number = is_word_char(c) || c == b'.' || c == b'#';
        // the sign of a decimal exponent (`1.0e+00`)
        let exponent_sign = (c == b'+' || c == b'-')
            && !hex
            && matches!(bytes[i - 1], b'e' | b'E')
            && bytes.get(i + 1).is_some_and(|d| d.is_ascii_digit());
        if !(part_of_number || exponent_sign) {
            break;
        }
        i += 1;
    }
    i
}

/// The length of the string token at the start of `line` (which starts
/// with `"` and runs to the end of its line), or `None` if no quote closes
/// it.
///
/// fxc prints the quotes inside a shader message raw, so the closing quote
/// is the last quote (outside a `\` escape) after which the rest of the line,
/// up to a `//` comment, holds no quote and is empty or an operand list
/// starting with `,`. If no quote qualifies, the first closing quote is
/// taken (and the parser reports what follows it).
pub fn string_end(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut candidates = Vec::new();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => {
                candidates.push(i);
                i += 1;
            }
            _ => i += 1,
        }
    }
    let fits = |c: usize| {
        let rest = &line[c + 1..];
        let code = rest.find("//").map_or(rest, |p| &rest[..p]);
        let code = code.trim();
        !code.contains('"') && (code.is_empty() || code.starts_with(','))
    };
    let chosen = candidates
        .iter()
        .rev()
        .find(|&&c| fits(c))
        .or(candidates.first())?;
    Some(chosen + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(TokenKind, &str)> {
        tokenize(src)
            .iter()
            .map(|t| (t.kind, t.text(src)))
            .collect()
    }

    #[test]
    fn numbers_keep_fxc_spellings_whole() {
        use TokenKind::*;
        assert_eq!(
            kinds("l(1.#INF00, -1.#IND00, 0x3f800000, 1.00000000e+00)"),
            vec![
                (Ident, "l"),
                (LParen, "("),
                (Number, "1.#INF00"),
                (Comma, ","),
                (Minus, "-"),
                (Number, "1.#IND00"),
                (Comma, ","),
                (Number, "0x3f800000"),
                (Comma, ","),
                (Number, "1.00000000e+00"),
                (RParen, ")"),
                (Eof, ""),
            ]
        );
        assert_eq!(kinds("x0[r1.x + 2]")[5], (Plus, "+"));
        assert_eq!(kinds("0x1e+2")[0], (Number, "0x1e"));
    }

    #[test]
    fn comments_directives_and_lines() {
        let src = "#line 3 \"a b\"\n  mov r0.x, l(1) // r0.x <- a\n";
        let toks = tokenize(src);
        assert_eq!(toks[0].kind, TokenKind::Directive);
        assert_eq!(toks[1].kind, TokenKind::Newline);
        assert!(toks[2].line_start && toks[2].indented);
        assert_eq!(toks[2].text(src), "mov");
        let last: Vec<TokenKind> = toks.iter().rev().take(3).map(|t| t.kind).collect();
        assert_eq!(
            last,
            vec![TokenKind::Eof, TokenKind::Newline, TokenKind::RParen]
        );
    }

    #[test]
    fn strings_end_where_only_operands_can_follow() {
        assert_eq!(string_end("\"a\", r0.x"), Some(3));
        assert_eq!(string_end("\"embedded \"quote\" test\""), Some(23));
        assert_eq!(string_end("\"naive\", r0.x\""), Some(14));
        assert_eq!(string_end("\"c++ // and \"q\" // x\""), Some(21));
        assert_eq!(string_end("\"esc \\\\\""), Some(8));
        assert_eq!(string_end("\"x %d\", r0.x  // r0.x <- y"), Some(6));
        assert_eq!(string_end("\"open"), None);
        let src = "printf \"a\"b\"\n";
        assert_eq!(kinds(src)[1], (TokenKind::String, "\"a\"b\""));
    }
}
