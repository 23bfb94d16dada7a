//! The peer of `tgsi bench mesh`: the mesh program (llvmpipe drawing the
//! same scene through OpenGL) run with `LP_NUM_THREADS` 1 and 2 in rounds
//! between ours, its median frame times, the ratios and the agreement of
//! its picture with ours.

use super::mesh::{CHECKER_PNG, SCENE_CONSTANTS, Workload};
use anyhow::{Context, Result, anyhow};
use std::path::{Path, PathBuf};
use std::process::Command;
use tgsi::image_io::{Rgba8Image, load_png};

/// Rounds of frames with the peer: ours at each thread count, then the
/// peer at 1 and 2 threads, and again (a machine whose speed drifts over
/// the minutes of a run then slows both alike).
pub const PEER_ROUNDS: usize = 3;

/// The llvmpipe thread counts the peer runs with.
const PEER_THREADS: [usize; 2] = [1, 2];

/// The peer's runs of one workload: its files and each round's medians.
pub struct PeerRun<'a> {
    exe: &'a Path,
    w: &'a Workload,
    size: (u32, u32),
    dir: PathBuf,
    /// Per thread count of [`PEER_THREADS`], each round's median.
    medians: [Vec<f64>; 2],
    /// Per thread count, each round's median processor seconds per frame
    /// (all the peer's threads; absent from an older peer program).
    cpu: [Vec<f64>; 2],
}

impl<'a> PeerRun<'a> {
    /// Writes the mesh and the texture the peer reads.
    pub fn new(exe: &'a Path, w: &'a Workload, width: u32, height: u32) -> Result<PeerRun<'a>> {
        let dir = std::env::temp_dir().join(format!("tgsi-bench-mesh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let run = PeerRun {
            exe,
            w,
            size: (width, height),
            dir,
            medians: [Vec::new(), Vec::new()],
            cpu: [Vec::new(), Vec::new()],
        };
        std::fs::write(run.obj(), &w.obj)?;
        std::fs::write(run.texture(), CHECKER_PNG)?;
        Ok(run)
    }

    fn obj(&self) -> PathBuf {
        self.dir.join("mesh.obj")
    }

    fn texture(&self) -> PathBuf {
        self.dir.join("checker.png")
    }

    fn picture(&self) -> PathBuf {
        self.dir.join("llvmpipe.png")
    }

    /// One round: `frames` timed frames (at least 3) at each peer thread
    /// count.
    pub fn round(&mut self, frames: usize) -> Result<()> {
        for (k, threads) in PEER_THREADS.into_iter().enumerate() {
            let (seconds, cpu) = self.frame_seconds(threads, frames.max(3))?;
            self.medians[k].push(seconds);
            self.cpu[k].extend(cpu);
        }
        Ok(())
    }

    /// The peer's median seconds per frame over `frames` frames, and its
    /// median processor seconds per frame when it prints them.
    fn frame_seconds(&self, threads: usize, frames: usize) -> Result<(f64, Option<f64>)> {
        let (width, height) = self.size;
        let mut cmd = Command::new(self.exe);
        cmd.arg("--mesh")
            .arg(self.obj())
            .arg("--texture")
            .arg(self.texture())
            .arg("--size")
            .arg(format!("{width}x{height}"))
            .arg("--frames")
            .arg(frames.to_string())
            .arg("--out")
            .arg(self.picture());
        for c in SCENE_CONSTANTS {
            cmd.arg("--const").arg(c);
        }
        cmd.args(self.w.setup.peer_args());
        cmd.env("LIBGL_ALWAYS_SOFTWARE", "1")
            .env("GALLIUM_DRIVER", "llvmpipe")
            .env("LP_NUM_THREADS", threads.to_string());
        let run = cmd
            .output()
            .with_context(|| format!("running {}", self.exe.display()))?;
        let text = String::from_utf8_lossy(&run.stdout);
        text.lines()
            .filter(|l| l.contains("s per frame"))
            .find_map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                let after = |word: &str| -> Option<f64> {
                    let k = words.iter().position(|w| *w == word)?;
                    words.get(k + 1)?.parse::<f64>().ok()
                };
                Some((after("median")?, after("cpu")))
            })
            .ok_or_else(|| {
                anyhow!(
                    "{} printed no `median S s per frame` line: {text}{}",
                    self.exe.display(),
                    String::from_utf8_lossy(&run.stderr)
                )
            })
    }

    /// Prints the peer's median of its rounds' medians at each thread
    /// count, the speed of `ours` (thread count, median seconds) over the
    /// peer's, and the agreement of its last picture with `image` (RGBA8
    /// rows).
    pub fn report(mut self, w: &Workload, ours: &[(usize, f64)], image: &[u8]) -> Result<()> {
        for (k, threads) in PEER_THREADS.into_iter().enumerate() {
            let rounds = &mut self.medians[k];
            if rounds.is_empty() {
                continue;
            }
            rounds.sort_by(f64::total_cmp);
            let seconds = rounds[rounds.len() / 2];
            let cpu = &mut self.cpu[k];
            cpu.sort_by(f64::total_cmp);
            let busy = match cpu.get(cpu.len() / 2) {
                Some(c) => format!(", {:.2} cores busy", c / seconds),
                None => String::new(),
            };
            let ratios: Vec<String> = ours
                .iter()
                .map(|(t, med)| format!("tgsi {t}T / llvmpipe {threads}T = {:.2}", seconds / med))
                .collect();
            println!(
                "  llvmpipe, {threads} thread(s): median {seconds:.5} s per frame = {:.1} frames/s, {:.3} M triangles/s (median of {} rounds{busy}); speed {}",
                1.0 / seconds,
                w.triangles() as f64 / seconds / 1e6,
                rounds.len(),
                ratios.join(", ")
            );
        }
        let theirs = load_png(&self.picture()).map_err(|e| anyhow!("the peer's picture: {e}"))?;
        println!("  {}", agreement(image, &theirs));
        Ok(())
    }
}

impl Drop for PeerRun<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Pixels whose largest channel difference exceeds 0, 1, 2, 4, 8 and 32
/// (of 255).
fn agreement(ours: &[u8], theirs: &Rgba8Image) -> String {
    if ours.len() != theirs.pixels.len() {
        return format!(
            "image vs llvmpipe: sizes differ ({} and {} bytes)",
            ours.len(),
            theirs.pixels.len()
        );
    }
    let diffs: Vec<u8> = ours
        .chunks_exact(4)
        .zip(theirs.pixels.chunks_exact(4))
        .map(|(a, b)| (0..4).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0))
        .collect();
    let over = |t: u8| diffs.iter().filter(|d| **d > t).count();
    format!(
        "image vs llvmpipe: {} pixels; differing by more than 0/255: {}, 1/255: {}, 2/255: {}, 4/255: {}, 8/255: {}, 32/255: {}",
        diffs.len(),
        over(0),
        over(1),
        over(2),
        over(4),
        over(8),
        over(32)
    )
}
