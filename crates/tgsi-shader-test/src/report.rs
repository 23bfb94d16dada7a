//! What running a file gives: each test's outcome (passed, failed with
//! its messages, skipped with the reason) and the counts.

/// What became of one test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    /// Every message is a full line (or block) starting `FILE:LINE: `.
    Failed(Vec<String>),
    Skipped(String),
}

/// One test: a `[test]` section, or a shader section checked on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    pub line: usize,
    pub outcome: Outcome,
}

/// The results of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    pub name: String,
    pub results: Vec<TestResult>,
}

/// Counts of tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl Summary {
    /// True when nothing failed.
    pub fn success(&self) -> bool {
        self.failed == 0
    }
    pub fn add(&mut self, other: Summary) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.skipped > 0 {
            write!(f, ", {} skipped", self.skipped)?;
        }
        Ok(())
    }
}

impl FileReport {
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for r in &self.results {
            match r.outcome {
                Outcome::Passed => s.passed += 1,
                Outcome::Failed(_) => s.failed += 1,
                Outcome::Skipped(_) => s.skipped += 1,
            }
        }
        s
    }
    /// A report of one failed test (unreadable or unparsable file).
    pub fn failure(name: &str, line: usize, message: String) -> FileReport {
        FileReport {
            name: name.to_string(),
            results: vec![TestResult {
                line,
                outcome: Outcome::Failed(vec![message]),
            }],
        }
    }
}
