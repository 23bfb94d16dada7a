//! What the integration tests share: where the fxc corpus is, the files of
//! a corpus in a stable order, how a listing's program starts, and running
//! the `tgsi` command.

#![allow(dead_code)] // each test crate uses its own part

use std::path::{Path, PathBuf};

/// The fxc corpus: blobs (`.o`, `.dxbc`) beside fxc's listings (`.asm`).
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/d3d")
}

/// The extensions of the corpus blobs.
pub const BLOBS: &[&str] = &["o", "dxbc"];
/// The extension of fxc's listings.
pub const LISTINGS: &[&str] = &["asm"];

/// Every corpus file with one of `extensions`, directories recursed, in
/// sorted path order.
pub fn corpus_files(extensions: &[&str]) -> Vec<PathBuf> {
    files_under(&corpus_root(), extensions)
}

/// Every file below `dir` with one of `extensions`, directories recursed,
/// in sorted path order (also for other corpora, e.g. `tests/fixtures/corpus`).
pub fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, extensions, &mut out);
    out
}

fn collect(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, extensions, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
        {
            out.push(path);
        }
    }
}

/// `path` relative to the corpus root, with `/` separators.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(corpus_root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A listing line that starts an SM4/SM5 program (`ps_5_0`, `lib_4_1`,
/// `vs_4_0_level_9_1`).
pub fn is_version_line(line: &str) -> bool {
    let b = line.as_bytes();
    let stage = ["vs_", "ps_", "gs_", "hs_", "ds_", "cs_", "lib_"]
        .iter()
        .find(|p| line.starts_with(*p));
    let Some(stage) = stage else { return false };
    let rest = &b[stage.len()..];
    rest.len() >= 3 && rest[0].is_ascii_digit() && rest[1] == b'_' && rest[2].is_ascii_digit()
}

/// Runs `tgsi ARGS` in the repository → (exit status, stdout, stderr).
pub fn run_tgsi(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tgsi"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("running tgsi");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes `bytes` to a file of this test process in the temporary folder
/// and gives its path.
pub fn temp_file(name: &str, bytes: impl AsRef<[u8]>) -> String {
    let path = std::env::temp_dir().join(format!("tgsi-test-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}
