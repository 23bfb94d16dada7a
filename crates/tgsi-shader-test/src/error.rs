//! The error of a test file that does not parse: where (line and column)
//! and what is wrong.

/// A problem in the test file itself, at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    /// 1-based (the parser finds it in the file once the error is known).
    pub column: usize,
    pub message: String,
}

impl ParseError {
    pub(super) fn new(line: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            line,
            column: 0,
            message: message.into(),
        }
    }

    /// Fills in the column from the file's text: where the first word the
    /// message quotes (`like this`) that the line holds stands on it (its
    /// last place there: a line is read from left to right, so what stopped
    /// it is the later word), else the line's first character that is not
    /// blank.
    pub(super) fn locate(mut self, source: &str) -> ParseError {
        if self.column != 0 {
            return self;
        }
        let text = source
            .lines()
            .nth(self.line.saturating_sub(1))
            .unwrap_or("");
        let start = text.len() - text.trim_start().len();
        let quoted = self
            .message
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|w| !w.trim().is_empty())
            .find_map(|w| text[start..].rfind(w).map(|at| start + at));
        let byte = quoted.unwrap_or(start);
        self.column = text[..byte].chars().count() + 1;
        self
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}
