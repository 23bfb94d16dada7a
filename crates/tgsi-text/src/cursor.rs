//! The token cursor both assemblers stand on (this crate's TGSI parser and
//! the Direct3D listing parser): a position in a token vector that always
//! ends with an end-of-file token, the source the spans point into, and the
//! diagnostics found so far, with "expected X, found Y" errors worded by
//! the parser (`describe`).

use tgsi_ir::diag::{Diagnostic, push_limited};
use tgsi_ir::ir::Span;

/// The kinds of one assembler's tokens.
pub trait Kind: Copy + PartialEq {
    /// The kind of the last token of every vector.
    const EOF: Self;
}

/// A token of either assembler: its kind, its byte span and its place on
/// its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<K> {
    pub kind: K,
    pub span: Span,
    /// Nothing but blanks (and comments) precede it on its line.
    pub line_start: bool,
    /// Blanks precede it on its line (an indented line's first token).
    pub indented: bool,
}

impl<K> Token<K> {
    /// The source text of the token.
    pub fn text<'a>(&self, source: &'a str) -> &'a str {
        &source[self.span.start..self.span.end]
    }
}

/// A byte of a word: `[A-Za-z0-9_]`.
pub fn is_word_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The error was recorded in [`Cursor::diags`]; the caller recovers.
#[derive(Debug)]
pub struct Reported;

/// A parse step's result: its value, or an error already reported.
pub type PResult<T> = Result<T, Reported>;

/// A parser's position in its tokens, with its diagnostics.
pub struct Cursor<'a, K> {
    pub src: &'a str,
    /// The tokens; the last is always of kind [`Kind::EOF`].
    pub toks: Vec<Token<K>>,
    pub pos: usize,
    pub diags: Vec<Diagnostic>,
    /// How the next token reads in a message, and the span to point at.
    describe: fn(&Cursor<'a, K>) -> (String, Span),
}

impl<'a, K: Kind> Cursor<'a, K> {
    /// A cursor at the first of `toks` (which must end with an EOF token).
    pub fn new(
        src: &'a str,
        toks: Vec<Token<K>>,
        describe: fn(&Cursor<'a, K>) -> (String, Span),
    ) -> Self {
        Cursor {
            src,
            toks,
            pos: 0,
            diags: Vec::new(),
            describe,
        }
    }

    pub fn peek(&self) -> Token<K> {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }

    pub fn peek_at(&self, n: usize) -> Token<K> {
        self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }

    /// The next token, stepping past it (never past the end).
    pub fn bump(&mut self) -> Token<K> {
        let t = self.peek();
        if t.kind != K::EOF {
            self.pos += 1;
        }
        t
    }

    /// The source text of `t`.
    pub fn text(&self, t: Token<K>) -> &'a str {
        t.text(self.src)
    }

    pub fn at(&self, kind: K) -> bool {
        self.peek().kind == kind
    }

    pub fn eat(&mut self, kind: K) -> Option<Token<K>> {
        if self.at(kind) {
            Some(self.bump())
        } else {
            None
        }
    }

    /// The end of the last consumed token.
    pub fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.toks[self.pos - 1].span.end
        }
    }

    /// Records `d` (up to the diagnostics limit).
    pub fn push(&mut self, d: Diagnostic) {
        push_limited(&mut self.diags, d);
    }

    pub fn error(&mut self, d: Diagnostic) -> Reported {
        self.push(d);
        Reported
    }

    /// How the next token reads in a message, and the span to point at.
    pub fn describe_next(&self) -> (String, Span) {
        (self.describe)(self)
    }

    /// "expected X, found Y" at the next token.
    pub fn expected(&mut self, what: &str) -> Reported {
        let (found, span) = self.describe_next();
        self.error(
            Diagnostic::error(format!("expected {what}, found {found}"))
                .with_primary(span, format!("expected {what}")),
        )
    }

    /// The next token when it is of `kind`, else the "expected" error.
    pub fn expect(&mut self, kind: K, what: &str) -> PResult<Token<K>> {
        match self.eat(kind) {
            Some(t) => Ok(t),
            None => Err(self.expected(what)),
        }
    }
}

/// Lets a parser that keeps its cursor in a field `cur` be used as that
/// cursor (`self.peek()`, `self.expect(..)`, `self.pos`, ...).
#[macro_export]
macro_rules! derefs_to_cursor {
    ($parser:ident, $kind:ty) => {
        impl<'a> std::ops::Deref for $parser<'a> {
            type Target = $crate::cursor::Cursor<'a, $kind>;
            fn deref(&self) -> &Self::Target {
                &self.cur
            }
        }

        impl std::ops::DerefMut for $parser<'_> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.cur
            }
        }
    };
}
