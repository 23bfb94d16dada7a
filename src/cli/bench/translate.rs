//! `tgsi bench translate`: the time to translate every shader of the
//! bundled TGSI corpus to SPIR-V (`tests/fixtures/corpus`), median and
//! worst, and how many were translated or refused.

use anyhow::{Result, bail};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn tgsi_files(dir: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for p in rd.filter_map(|e| e.ok().map(|e| e.path())) {
        if p.is_dir() {
            tgsi_files(&p.to_string_lossy(), out);
        } else if p.extension().is_some_and(|e| e == "tgsi") {
            out.push(p);
        }
    }
}

pub fn bench_translate(reps: usize) -> Result<ExitCode> {
    let mut files = Vec::new();
    for d in [
        "tests/fixtures/corpus/accepted",
        "tests/fixtures/corpus/mesa-generated",
    ] {
        tgsi_files(d, &mut files);
    }
    files.sort();
    if files.is_empty() {
        bail!("no corpus shader found (run from the repository root)");
    }
    let options = tgsi::translate::Options::default();
    let (mut times, mut refused) = (Vec::new(), 0usize);
    let mut worst = (0.0f64, String::new());
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok((shader, _)) = tgsi::assemble(&text) else {
            continue;
        };
        let mut t = Vec::with_capacity(reps);
        let mut ok = true;
        for _ in 0..reps {
            let start = Instant::now();
            ok = tgsi::translate::to_spirv(&shader, &options).is_ok();
            t.push(start.elapsed().as_secs_f64() * 1e3);
        }
        if !ok {
            refused += 1;
            continue;
        }
        let m = super::median(&mut t);
        if m > worst.0 {
            worst = (m, f.display().to_string());
        }
        times.push(m);
    }
    let n = times.len();
    let median = super::median(&mut times);
    println!(
        "translate to SPIR-V: {n} corpus shaders translated, {refused} refused; median {median:.3} ms, worst {:.3} ms ({}), median of {reps} runs each",
        worst.0, worst.1
    );
    Ok(ExitCode::SUCCESS)
}
