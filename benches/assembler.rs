//! Assembler throughput on the real-shader corpus: every `.tgsi` file under
//! `corpus/accepted/` and `corpus/mesa-generated/` (recursively), run one
//! after the other per iteration. Reported in bytes of source text per
//! second: the whole assembler (`tgsi::assemble` = parse + validate), and
//! its two halves on their own.

use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use std::path::{Path, PathBuf};

fn main() {
    divan::main();
}

fn tgsi_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            tgsi_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "tgsi") {
            out.push(p);
        }
    }
}

/// The corpus texts, in a fixed order; panics if the corpus is missing or a
/// file does not assemble (a benchmark of error paths would mislead).
fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus");
    let mut paths = Vec::new();
    tgsi_files(&root.join("accepted"), &mut paths);
    tgsi_files(&root.join("mesa-generated"), &mut paths);
    paths.sort();
    assert!(!paths.is_empty(), "no corpus under {}", root.display());
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("corpus file reads");
            if let Err(d) = tgsi::assemble(&text) {
                panic!(
                    "{} does not assemble:\n{}",
                    p.display(),
                    d.render(&p.display().to_string(), &text)
                );
            }
            text
        })
        .collect()
}

fn total_bytes(texts: &[String]) -> BytesCount {
    BytesCount::new(texts.iter().map(String::len).sum::<usize>())
}

/// Parse and validate every corpus file (`tgsi::assemble`).
#[divan::bench]
fn assemble(bencher: Bencher) {
    let texts = corpus();
    bencher.counter(total_bytes(&texts)).bench(|| {
        for t in &texts {
            let _ = black_box(tgsi::assemble(black_box(t)));
        }
    });
}

/// Parse only (`tgsi::text::parse`).
#[divan::bench]
fn parse(bencher: Bencher) {
    let texts = corpus();
    bencher.counter(total_bytes(&texts)).bench(|| {
        for t in &texts {
            let _ = black_box(tgsi::text::parse(black_box(t)));
        }
    });
}

/// Validate only, on shaders parsed beforehand (bytes are those of the source).
#[divan::bench]
fn validate(bencher: Bencher) {
    let texts = corpus();
    let parsed: Vec<_> = texts
        .iter()
        .map(|t| tgsi::text::parse(t).expect("corpus parses"))
        .collect();
    bencher.counter(total_bytes(&texts)).bench(|| {
        for (shader, map) in &parsed {
            black_box(tgsi::validate::validate(black_box(shader), Some(map)));
        }
    });
}
