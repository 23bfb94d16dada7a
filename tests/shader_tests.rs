//! Runs every `tests/shader/*.shader_test` file through the runner library
//! and asserts that none fails (skips are allowed, and listed).

use std::path::PathBuf;
use tgsi::shader_test::{RunConfig, run_paths};

#[test]
fn shader_test_suite() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("shader");
    let config = RunConfig {
        verbose: true,
        ..RunConfig::default()
    };
    let mut out = Vec::new();
    let summary = run_paths(&[dir], &config, &mut out);
    let report = String::from_utf8_lossy(&out);
    println!("{report}");
    assert!(summary.passed > 0, "no test ran:\n{report}");
    assert!(summary.success(), "{summary}\n{report}");
}
