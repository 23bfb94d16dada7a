//! `tgsi bench compute|frag --vulkan`: the same work on a Vulkan device
//! (the shader translated to SPIR-V, lavapipe on a machine without a GPU),
//! timed beside the machine in the same run. A device run is timed whole:
//! translation, pipeline creation, upload, the run and the readback, as a
//! caller of `Device::dispatch` / `Device::draw_quad` sees it.

use anyhow::{Result, anyhow};
use std::time::Instant;
use tgsi::exec::{Draw, Resources};
use tgsi::ir::Shader;
use tgsi::texture::Texture;
use tgsi::vulkan::{Device, Dispatch, QuadDraw};

fn open() -> Result<Device> {
    crate::cli::open_vulkan_device().map_err(|e| anyhow!("--vulkan: {e}"))
}

/// The median and best of `times`, and the line comparing them with the
/// machine's median seconds per run at each thread count (`ours`).
fn report(dev: &Device, what: &str, times: &mut [f64], ours: &[(usize, f64)]) {
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    let med = super::median(times);
    let ratios: Vec<String> = ours
        .iter()
        .map(|(t, s)| format!("tgsi {t}T is {:.2}x as fast", med / s))
        .collect();
    // lavapipe runs on llvmpipe's threads (LP_NUM_THREADS, else the cores)
    let threads = if dev.name().contains("llvmpipe") {
        "; llvmpipe's own thread count, LP_NUM_THREADS"
    } else {
        ""
    };
    println!(
        "Vulkan engine on {} ({what}, whole run: translation, pipeline, upload, run, readback{threads}): best {best:.4} s, median {med:.4} s; {}",
        dev.name(),
        ratios.join(", ")
    );
}

/// Runs `shader` over `groups` on the device `reps` times (after one
/// warm-up) with fresh resources, checks that the buffers equal the
/// machine's (`machine`) and prints the times beside the machine's.
pub(super) fn compute(
    shader: &Shader,
    groups: [u32; 3],
    reps: usize,
    fresh: impl Fn() -> Resources,
    machine: &Resources,
    ours: &[(usize, f64)],
) -> Result<()> {
    let dev = open()?;
    let d = Dispatch {
        shader,
        direct3d: false,
        groups,
        timeout_ms: 600_000,
    };
    let mut res = fresh();
    dev.dispatch(&d, &mut res).map_err(|e| anyhow!("{e}"))?;
    if res.buffers == machine.buffers {
        println!(
            "Vulkan engine: the buffers are bit-identical to the machine's ({} bytes)",
            res.buffers.iter().map(Vec::len).sum::<usize>()
        );
    } else {
        anyhow::bail!("the Vulkan engine's buffers differ from the machine's");
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let mut res = fresh();
        let start = Instant::now();
        dev.dispatch(&d, &mut res).map_err(|e| anyhow!("{e}"))?;
        times.push(start.elapsed().as_secs_f64());
    }
    report(&dev, "compute", &mut times, ours);
    Ok(())
}

/// Draws the full-target quad of `fragment` on the device `reps` times
/// (after one warm-up) into `target`, with linear filtering done the
/// device's way, compares the image with the machine's (`machine`) and
/// prints the times beside the machine's.
pub(super) fn frag(
    fragment: &Shader,
    draw: &Draw,
    reps: usize,
    res: &mut Resources,
    mut target: Texture,
    machine: &[u8],
    ours: &[(usize, f64)],
) -> Result<()> {
    let mut dev = open()?;
    dev.allow_device_sampling();
    let varyings = QuadDraw::varyings_of(draw);
    let run = |target: &mut Texture, res: &mut Resources| -> Result<f64> {
        let mut q = QuadDraw {
            fragment,
            direct3d: false,
            varyings: varyings.clone(),
            targets: std::slice::from_mut(target),
            timeout_ms: 600_000,
        };
        let start = Instant::now();
        dev.draw_quad(&mut q, res).map_err(|e| anyhow!("{e}"))?;
        Ok(start.elapsed().as_secs_f64())
    };
    run(&mut target, res)?;
    if let Some(image) = target.levels.first() {
        let peer = format!("the Vulkan engine on {}", dev.name());
        println!("{}", super::agreement(machine, image, &peer));
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        times.push(run(&mut target, res)?);
    }
    report(&dev, "frag", &mut times, ours);
    Ok(())
}
