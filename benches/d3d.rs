//! Direct3D bytecode throughput on the fxc corpus (`tests/fixtures/d3d`):
//! every non-effect blob, one after the other per iteration, counted in bytes
//! of DXBC per second. `disassemble` is the whole `tgsi dis` (container, every
//! chunk codec, level-9 and SM4/SM5 decoding, fxc's listing text);
//! `decode_programs` is the SM4/SM5 token decoder alone on the program
//! chunks (counted in bytes of those chunks).

use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use std::path::{Path, PathBuf};

fn main() {
    divan::main();
}

fn blobs_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            blobs_under(&p, out);
        } else if matches!(p.extension().and_then(|x| x.to_str()), Some("o" | "dxbc")) {
            out.push(p);
        }
    }
}

/// The corpus blobs that are shaders or libraries (effects left out), in a
/// fixed order; panics if one does not disassemble (a benchmark of error
/// paths would mislead).
fn corpus() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/d3d");
    let mut paths = Vec::new();
    blobs_under(&root, &mut paths);
    paths.sort();
    assert!(!paths.is_empty(), "no corpus under {}", root.display());
    paths
        .iter()
        .map(|p| std::fs::read(p).expect("corpus blob reads"))
        .filter(|b| !tgsi::d3d::listing::is_effect(b))
        .inspect(|b| {
            tgsi::d3d::disassemble(b).expect("corpus blob disassembles");
        })
        .collect()
}

/// `tgsi::d3d::disassemble` on every blob.
#[divan::bench]
fn disassemble(bencher: Bencher) {
    let blobs = corpus();
    let bytes = blobs.iter().map(Vec::len).sum::<usize>();
    bencher.counter(BytesCount::new(bytes)).bench(|| {
        for b in &blobs {
            let _ = black_box(tgsi::d3d::disassemble(black_box(b)));
        }
    });
}

/// `tgsi::d3d::decode_program` on every program chunk.
#[divan::bench]
fn decode_programs(bencher: Bencher) {
    let programs: Vec<Vec<u8>> = corpus()
        .iter()
        .flat_map(|b| tgsi::d3d::program_chunks(b).expect("programs are found"))
        .map(|p| p.payload)
        .collect();
    let bytes = programs.iter().map(Vec::len).sum::<usize>();
    bencher.counter(BytesCount::new(bytes)).bench(|| {
        for p in &programs {
            let _ = black_box(tgsi::d3d::decode_program(black_box(p)));
        }
    });
}
