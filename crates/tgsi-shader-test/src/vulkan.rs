//! `tgsi test --engine vulkan`: the commands of a test run on a Vulkan
//! device ([`tgsi_vulkan::Device`]) instead of the machine. Compute
//! dispatches run there with the test's constant and storage buffers, and
//! the probes then read what the device wrote. What the device engine
//! does not run (draws, `run vertices`, textures, images, shaders the
//! SPIR-V back end refuses) makes the test "not runnable on Vulkan", with
//! the reason, rather than failed.

use super::parse::{Command, TestSection};
use super::run::Runnable;
use tgsi_exec::Resources;

/// The words that start the reason of a test the device cannot run.
pub(crate) const NOT_RUNNABLE: &str = "not runnable on Vulkan";

/// Why a dispatch did not happen on the device.
pub(crate) enum Refused {
    /// The engine does not run this (an unsupported shader or resource).
    NotRunnable(String),
    /// The device failed.
    Failed(String),
}

impl Refused {
    pub(crate) fn text(&self) -> &str {
        match self {
            Refused::NotRunnable(t) | Refused::Failed(t) => t,
        }
    }
}

/// The first command of `test` the Vulkan engine does not run, as a skip
/// reason (`line N: not runnable on Vulkan: ...`).
pub(crate) fn command_not_runnable(test: &TestSection) -> Option<String> {
    test.commands.iter().find_map(|(line, cmd)| {
        let what = match cmd {
            Command::Draw { .. } => "draw",
            Command::DrawQuad { .. } => "draw quad",
            Command::RunVertices(_) => "run vertices",
            _ => return None,
        };
        Some(format!(
            "line {line}: {NOT_RUNNABLE}: `{what}` needs a graphics pipeline; the Vulkan engine runs compute dispatches"
        ))
    })
}

/// Runs `shader`'s compute program over `groups` work groups on `device`
/// with `res` bound where the shader reads it (a Direct3D program's
/// registers mapped as on the machine), the storage buffers read back.
pub(crate) fn dispatch(
    device: &tgsi_vulkan::Device,
    shader: &Runnable,
    res: &mut Resources,
    groups: [u32; 3],
) -> Result<(), Refused> {
    let d = tgsi_vulkan::Dispatch {
        shader: &shader.shader,
        direct3d: shader.d3d.is_some(),
        groups,
        timeout_ms: 60_000,
    };
    shader
        .bind(res, |r| device.dispatch(&d, r))
        .map_err(|e| match e {
            tgsi_vulkan::Error::Device(t) => Refused::Failed(t),
            tgsi_vulkan::Error::Translate(t) => Refused::NotRunnable(format!("SPIR-V: {t}")),
            tgsi_vulkan::Error::Unsupported(t) => Refused::NotRunnable(t),
        })
}
