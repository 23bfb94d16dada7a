//! Diagnostics: what every stage reports about bad input, with source spans,
//! and their rendering in the style of rustc (file, line, column, the line
//! with a caret, what was expected and what was found).

use crate::ir::Span;
use codespan_reporting::diagnostic::{
    Diagnostic as CsDiagnostic, Label as CsLabel, Severity as CsSeverity,
};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// `error` or `warning`, as a rendered diagnostic begins.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A labelled span inside a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The main place of the problem (absent when no source position is known).
    pub primary: Option<Label>,
    pub secondary: Vec<Label>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }
    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }
    pub fn with_primary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.primary = Some(Label {
            span,
            message: message.into(),
        });
        self
    }
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    /// Adds another place the diagnostic concerns: a secondary label at
    /// `span`, or where no span is known a note `label: place` (`place`
    /// says in words where it is).
    pub fn add_place(&mut self, span: Option<Span>, label: String, place: &str) {
        match span {
            Some(span) => self.secondary.push(Label {
                span,
                message: label,
            }),
            None => self.notes.push(format!("{label}: {place}")),
        }
    }
}

/// At most this many errors an assembler reports for one input.
pub const MAX_ERRORS: usize = 100;

/// Records `d` in `diags`, an assembler's list, unless [`MAX_ERRORS`] are
/// there already: the first diagnostic past the limit becomes one "too many
/// errors" error pointing where it was, later ones are dropped.
pub fn push_limited(diags: &mut Vec<Diagnostic>, d: Diagnostic) {
    if diags.len() < MAX_ERRORS {
        diags.push(d);
    } else if diags.len() == MAX_ERRORS {
        let mut stop = Diagnostic::error(format!("too many errors; stopped after {MAX_ERRORS}"))
            .with_note("fix the errors above and assemble again");
        if let Some(p) = d.primary {
            stop = stop.with_primary(p.span, "assembling stopped here");
        }
        diags.push(stop);
    }
}

/// A list of diagnostics, used as the error type of the assembler and validator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.is_error())
    }
    /// Renders every diagnostic against `source`, named `file_name`, without colour.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        render(&self.0, file_name, source)
    }
    /// Renders every diagnostic of a binary input, whose spans are byte
    /// ranges of the file `file_name`: the message, the byte offset, and
    /// the labels and notes.
    pub fn render_binary(&self, file_name: &str) -> String {
        render_binary(&self.0, file_name)
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}", d.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// The start of every line of a text, for finding many offsets' lines in
/// logarithmic time each ([`line_col`] counts from the start every time).
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `source`'s lines (one pass).
    pub fn new(source: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    /// The 1-based line holding byte `offset` (the last line past the end).
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset)
    }

    /// The byte offset where 1-based `line` starts.
    fn start(&self, line: usize) -> usize {
        self.starts[line - 1]
    }

    /// The length in bytes of 1-based `line` of `source` (its `\n` counted).
    fn len(&self, source: &str, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(source.len()) - self.start(line)
    }

    /// 1-based (line, column) of byte `offset`, the column in characters:
    /// [`line_col`] without counting the lines before.
    pub fn line_col(&self, source: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(source, offset.min(source.len()));
        let line = self.line(offset);
        (line, source[self.start(line)..offset].chars().count() + 1)
    }
}

/// What a message quotes of the text it found: the first 40 characters,
/// control and invisible characters written as escapes (`\u{0}`,
/// `\u{feff}`) so that the message shows them.
pub fn shown(text: &str) -> String {
    let mut out = String::new();
    // control characters, and the invisible ones that change nothing
    // visible or the direction of the text (a byte-order mark, zero
    // widths, bidirectional marks)
    let invisible = |c: char| {
        c.is_control()
            || matches!(c, '\u{feff}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    for c in text.chars().take(40) {
        if invisible(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// Byte offset → 1-based (line, column), column counted in characters.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Most diagnostics of one file rendered; the rest are counted.
pub const MAX_RENDERED: usize = 200;
/// Longest source line shown under a diagnostic (in bytes); a longer one
/// is named by line and column only.
const MAX_SHOWN_LINE: usize = 1000;
/// Longest message rendered (in bytes); a longer one, which can only be
/// quoting the input at length, is cut.
const MAX_MESSAGE: usize = 1000;

/// `message`, cut after [`MAX_MESSAGE`] bytes.
fn short_message(message: &str) -> String {
    if message.len() <= MAX_MESSAGE {
        return message.to_string();
    }
    let cut = floor_char_boundary(message, MAX_MESSAGE);
    format!("{}… ({} bytes more)", &message[..cut], message.len() - cut)
}

/// The line after the first [`MAX_RENDERED`] diagnostics: how many more.
fn more_line(diags: &[Diagnostic]) -> Option<String> {
    let rest = diags.get(MAX_RENDERED..).filter(|r| !r.is_empty())?;
    let errors = rest
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    Some(format!(
        "note: {} more diagnostic(s) not shown ({errors} error(s), {} warning(s))\n",
        rest.len(),
        rest.len() - errors
    ))
}

/// True when a line that `span` touches (its first or its last) is too
/// long to show.
fn touches_long_line(lines: &LineIndex, source: &str, span: Span) -> bool {
    let first = lines.line(span.start.min(source.len()));
    let last = lines.line(span.end.min(source.len()));
    [first, last]
        .iter()
        .any(|&l| lines.len(source, l) > MAX_SHOWN_LINE)
}

/// Renders diagnostics as rustc-like text: `error: ...`, ` --> file:line:col`, the
/// source line with carets, then notes; at most [`MAX_RENDERED`] of them.
pub fn render(diags: &[Diagnostic], file_name: &str, source: &str) -> String {
    let file = SimpleFile::new(file_name, source);
    let config = Config::default();
    let mut out = String::new();
    let lines = LineIndex::new(source);
    for d in diags.iter().take(MAX_RENDERED) {
        if d.primary.is_none() && d.secondary.is_empty() {
            // nothing to point at (an empty shader, a binary program's
            // checks): the file, then the notes
            out.push_str(&render_unplaced(d, file_name));
            continue;
        }
        let mut spans = d.primary.iter().chain(&d.secondary).map(|l| l.span);
        if spans.any(|s| touches_long_line(&lines, source, s)) {
            out.push_str(&render_without_source(d, file_name, source, &lines));
            continue;
        }
        let severity = match d.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
        };
        let clamp = |s: Span| {
            let start = floor_char_boundary(source, s.start.min(source.len()));
            let end = floor_char_boundary(source, s.end.min(source.len())).max(start);
            start..end
        };
        let mut labels = Vec::new();
        if let Some(p) = &d.primary {
            labels.push(CsLabel::primary((), clamp(p.span)).with_message(p.message.clone()));
        }
        for s in &d.secondary {
            labels.push(CsLabel::secondary((), clamp(s.span)).with_message(s.message.clone()));
        }
        let cs = CsDiagnostic::new(severity)
            .with_message(short_message(&d.message))
            .with_labels(labels)
            .with_notes(d.notes.clone());
        let mut buf = String::new();
        if term::emit_to_string(&mut buf, &config, &file, &cs).is_err() {
            // Rendering can only fail on a bad span; fall back to a plain line.
            buf = format!("error: {}\n", short_message(&d.message));
        }
        out.push_str(&buf);
    }
    out.extend(more_line(diags));
    out
}

/// A diagnostic with no place in the file: `severity: message`,
/// ` --> file` and its notes.
fn render_unplaced(d: &Diagnostic, file_name: &str) -> String {
    let severity = d.severity.word();
    let mut out = format!(
        "{severity}: {}\n  --> {file_name}\n",
        short_message(&d.message)
    );
    for note in &d.notes {
        out.push_str(&format!("  = {}\n", short_message(note)));
    }
    out
}

/// One diagnostic as `severity: message`, ` --> file:line:column` and its
/// labels and notes, without the source line (too long to show).
fn render_without_source(
    d: &Diagnostic,
    file_name: &str,
    source: &str,
    lines: &LineIndex,
) -> String {
    let severity = d.severity.word();
    let mut out = format!("{severity}: {}\n", short_message(&d.message));
    for (k, label) in d.primary.iter().chain(&d.secondary).enumerate() {
        let (line, column) = lines.line_col(source, label.span.start);
        let arrow = if k == 0 { "-->" } else { "..." };
        out.push_str(&format!(" {arrow} {file_name}:{line}:{column}"));
        if !label.message.is_empty() {
            out.push_str(&format!(": {}", short_message(&label.message)));
        }
        out.push('\n');
    }
    for note in &d.notes {
        out.push_str(&format!("  = {}\n", short_message(note)));
    }
    out
}

/// [`Diagnostics::render_binary`].
pub fn render_binary(diags: &[Diagnostic], file_name: &str) -> String {
    let mut out = String::new();
    for d in diags.iter().take(MAX_RENDERED) {
        let severity = d.severity.word();
        out.push_str(&format!("{severity}: {}\n", short_message(&d.message)));
        match &d.primary {
            Some(p) => {
                out.push_str(&format!(
                    "  --> {file_name}: byte offset {} (0x{:x})\n",
                    p.span.start, p.span.start
                ));
                if !p.message.is_empty() {
                    out.push_str(&format!("   = {}\n", p.message));
                }
            }
            None => out.push_str(&format!("  --> {file_name}\n")),
        }
        for s in &d.secondary {
            out.push_str(&format!(
                "   = byte offset {} (0x{:x}): {}\n",
                s.span.start, s.span.start, s.message
            ));
        }
        for n in &d.notes {
            out.push_str(&format!("   = note: {n}\n"));
        }
    }
    out.extend(more_line(diags));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_past_the_limit_becomes_one_stop_note() {
        let mut diags = Vec::new();
        for i in 0..MAX_ERRORS + 5 {
            push_limited(
                &mut diags,
                Diagnostic::error(format!("e{i}")).with_primary(Span::new(i, i + 1), "here"),
            );
        }
        assert_eq!(diags.len(), MAX_ERRORS + 1);
        let stop = &diags[MAX_ERRORS];
        assert_eq!(
            stop.message,
            format!("too many errors; stopped after {MAX_ERRORS}")
        );
        assert_eq!(
            stop.primary.as_ref().map(|p| p.span),
            Some(Span::new(MAX_ERRORS, MAX_ERRORS + 1))
        );
    }

    #[test]
    fn binary_diagnostics_name_the_byte_offset() {
        let d = Diagnostic::error("r7 is beyond dcl_temps 2")
            .with_primary(Span::new(0x140, 0x144), "this operand")
            .with_note("declare more temps");
        let text = render_binary(&[d], "a.dxbc");
        assert_eq!(
            text,
            "error: r7 is beyond dcl_temps 2\n  --> a.dxbc: byte offset 320 (0x140)\n   = this operand\n   = note: declare more temps\n"
        );
    }

    #[test]
    fn line_and_column() {
        let s = "FRAG\nDCL IN[0]\n";
        assert_eq!(line_col(s, 0), (1, 1));
        assert_eq!(line_col(s, 5), (2, 1));
        assert_eq!(line_col(s, 9), (2, 5));
    }

    #[test]
    fn renders_with_location() {
        let src = "FRAG\nMOV TEMP[0], IN[0\n";
        let d =
            Diagnostic::error("expected `]`").with_primary(Span::new(17, 18), "found end of line");
        let text = render(&[d], "a.tgsi", src);
        assert!(text.contains("a.tgsi:2:13"), "{text}");
        assert!(text.contains("expected `]`"));
    }

    /// A diagnostic with no span still names the file.
    #[test]
    fn an_unplaced_diagnostic_names_the_file() {
        let d = Diagnostic::error("missing END instruction: the shader is empty");
        let text = render(&[d], "empty.tgsi", "COMP\n");
        assert_eq!(
            text,
            "error: missing END instruction: the shader is empty\n  --> empty.tgsi\n"
        );
    }
}

#[cfg(test)]
mod line_tests {
    use super::{LineIndex, line_col};

    #[test]
    fn the_index_gives_the_lines_line_col_counts() {
        let text = "a\nbb\n\nccc\n\u{e9}x";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                index.line_col(text, offset),
                line_col(text, offset),
                "offset {offset}"
            );
            assert_eq!(
                index.line(offset),
                line_col(text, offset).0,
                "offset {offset}"
            );
        }
        assert_eq!(LineIndex::new("").line(0), 1);
    }

    #[test]
    fn rendering_is_bounded_in_count_line_and_message() {
        use super::{Diagnostic, MAX_RENDERED, Span, render};
        let source = format!("ok\nMOV {}\n", "x".repeat(100_000));
        let long = Diagnostic::error(format!("unknown `{}`", "x".repeat(100_000)))
            .with_primary(Span::new(7, 100_007), "here");
        let out = render(&[long], "f.tgsi", &source);
        assert!(out.len() < 3000, "{}", out.len());
        assert!(out.contains("--> f.tgsi:2:5: here"), "{out}");
        assert!(out.contains("(99010 bytes more)"), "{out}");
        let many: Vec<Diagnostic> = (0..MAX_RENDERED + 5)
            .map(|_| Diagnostic::error("bad").with_primary(Span::new(0, 2), "this"))
            .collect();
        let out = render(&many, "f.tgsi", &source);
        assert_eq!(out.matches("error: bad").count(), MAX_RENDERED);
        assert!(
            out.ends_with("note: 5 more diagnostic(s) not shown (5 error(s), 0 warning(s))\n"),
            "{out}"
        );
    }

    #[test]
    fn shown_text_escapes_control_characters_and_is_short() {
        assert_eq!(super::shown("a\0b\u{1b}\"'"), "a\\0b\\u{1b}\"'");
        assert_eq!(super::shown(&"x".repeat(100)).len(), 40);
        assert_eq!(super::shown("\u{feff}COMP"), "\\u{feff}COMP");
    }
}
