//! Runs every `tests/shader/*.shader_test` file through the runner library
//! and asserts that none fails (skips are allowed, and listed).

use std::path::PathBuf;
use tgsi::jit::Engine;
use tgsi::shader_test::{RunConfig, run_paths};

/// The suite under each engine (this binary's only test, so the process-wide
/// engine choice is not shared with another test).
#[test]
fn shader_test_suite() {
    for engine in [Engine::Interp, Engine::Jit] {
        Engine::set_default(engine);
        suite(engine);
    }
}

fn suite(engine: Engine) {
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
    assert!(summary.passed > 0, "{engine:?}: no test ran:\n{report}");
    assert!(summary.success(), "{engine:?}: {summary}\n{report}");
}
