//! `tgsi test --engine vulkan`: the commands of a test run on a Vulkan
//! device ([`tgsi_vulkan::Device`]) instead of the machine. Compute
//! dispatches, `draw quad` and `draw` run there with the test's buffers,
//! textures, samplers, images, vertex data, render state and targets, and
//! the probes then read what the device wrote; `run vertices` reads the
//! vertex shader's outputs back from a capture buffer. What the device
//! engine does not run (tessellation, state whose result Vulkan leaves to
//! the device, shaders the SPIR-V back end refuses) makes the test "not
//! runnable on Vulkan", with the reason, rather than failed.

use super::run::Runnable;
use tgsi_exec::Resources;

/// The words that start the reason of a test the device cannot run.
pub(crate) const NOT_RUNNABLE: &str = "not runnable on Vulkan";

/// `device` set up to run shader tests: linear filtering and sRGB
/// decoding are done the device's way ([`tgsi_vulkan::Device::allow_device_sampling`]),
/// the probes' tolerances judge the results, and a test whose probes
/// then differ is reported as not runnable on Vulkan with the reason
/// and the first difference, not as failed.
pub fn test_device(mut device: tgsi_vulkan::Device) -> std::sync::Arc<tgsi_vulkan::Device> {
    device.allow_device_sampling();
    std::sync::Arc::new(device)
}

/// A test's probes on the device, kept apart by whether a command before
/// them sampled the device's way ([`test_device`]): such a probe's failure
/// makes the test not runnable on Vulkan (with the reason and the
/// difference) when nothing else failed; every other failure fails it.
pub(crate) struct Judged {
    /// The reasons the commands run so far sampled the device's way.
    notes: Vec<String>,
    /// Failing probes read after such a command.
    excusable: Vec<String>,
}

impl Judged {
    /// A test starting on `device` (None: on the machine).
    pub(crate) fn start(device: Option<&tgsi_vulkan::Device>) -> Judged {
        if let Some(d) = device {
            d.take_sampling_notes();
        }
        Judged {
            notes: Vec::new(),
            excusable: Vec::new(),
        }
    }

    /// Notes how the command just run sampled.
    pub(crate) fn after_command(&mut self, device: Option<&tgsi_vulkan::Device>) {
        for note in device.map(|d| d.take_sampling_notes()).unwrap_or_default() {
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
    }

    /// A probe that failed (its message).
    pub(crate) fn probe_failed(&mut self, message: String, failures: &mut Vec<String>) {
        if self.notes.is_empty() {
            failures.push(message);
        } else {
            self.excusable.push(message);
        }
    }

    /// The test's outcome, `failures` being the others.
    pub(crate) fn outcome(self, mut failures: Vec<String>) -> crate::Outcome {
        match (failures.is_empty(), self.excusable.first()) {
            (true, None) => crate::Outcome::Passed,
            (true, Some(first)) => crate::Outcome::Skipped(format!(
                "{NOT_RUNNABLE}: {}; sampled the device's way, {first}",
                self.notes.join("; ")
            )),
            (false, _) => {
                failures.extend(self.excusable);
                crate::Outcome::Failed(failures)
            }
        }
    }
}

/// Why a dispatch or draw did not happen on the device.
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

/// Runs `shader`'s fragment program over every pixel of `targets` on
/// `device` with the quad's varyings `draw` gives, as `draw quad` does on
/// the machine.
pub(crate) fn draw_quad(
    device: &tgsi_vulkan::Device,
    shader: &Runnable,
    draw: &tgsi_exec::Draw,
    targets: &mut [tgsi_exec::texture::Texture],
    res: &mut Resources,
) -> Result<(), Refused> {
    if draw.samples > 1 || !draw.front_face {
        return Err(Refused::NotRunnable(
            "a multisampled or back-facing quad is not drawn by the Vulkan engine yet".into(),
        ));
    }
    let mut q = tgsi_vulkan::QuadDraw {
        fragment: &shader.shader,
        direct3d: shader.d3d.is_some(),
        varyings: tgsi_vulkan::QuadDraw::varyings_of(draw),
        targets,
        timeout_ms: 60_000,
    };
    shader
        .bind(res, |r| device.draw_quad(&mut q, r))
        .map_err(refused)
}

/// What a `draw` gives the device besides the shaders.
pub(crate) struct DrawInputs<'a> {
    pub rows: &'a [Vec<[u32; 4]>],
    pub topology: tgsi_pipeline::Topology,
    pub count: u32,
    pub instances: u32,
    pub indices: Option<&'a [u32]>,
    pub state: &'a tgsi_pipeline::RenderState,
}

/// Runs a `draw` of `vs` (the tessellation stages `tess`, when there
/// are), the optional geometry shader and `fs` on `device` into `targets`
/// and `depth`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw(
    device: &tgsi_vulkan::Device,
    (vs, gs, fs): (&Runnable, Option<&Runnable>, &Runnable),
    tess: (Option<&Runnable>, Option<&Runnable>),
    inputs: &DrawInputs,
    targets: &mut [tgsi_exec::texture::Texture],
    depth: Option<&mut tgsi_pipeline::DepthTarget>,
    res: &mut Resources,
) -> Result<(), Refused> {
    let (topology, tessellation) = match (inputs.topology, tess) {
        (tgsi_pipeline::Topology::Basic(t), (None, None)) => (t, None),
        (tgsi_pipeline::Topology::PatchList(c), (Some(tcs), Some(tes))) => {
            // a Direct3D hull shader's declarations (the pipeline's own
            // reading of them)
            let settings = tcs
                .d3d
                .as_ref()
                .and_then(tgsi_pipeline::StageInterface::tessellator_settings)
                .and_then(Result::ok);
            let stages = tgsi_vulkan::TessStages {
                control: &tcs.shader,
                eval: &tes.shader,
                direct3d: tcs.d3d.is_some(),
                settings,
                patch_vertices: c,
            };
            (tgsi_pipeline::BasicTopology::PointList, Some(stages))
        }
        _ => {
            return Err(Refused::NotRunnable(
                "patches without both tessellation shaders (or tessellation shaders without patches) are not drawn by the Vulkan engine".into(),
            ));
        }
    };
    let mut d = tgsi_vulkan::DrawRequest {
        vertex: &vs.shader,
        geometry: gs.map(|g| (&g.shader, g.d3d.is_some())),
        fragment: &fs.shader,
        direct3d: (vs.d3d.is_some(), fs.d3d.is_some()),
        rows: inputs.rows,
        topology,
        tessellation,
        count: inputs.count,
        instances: inputs.instances,
        indices: inputs.indices,
        state: inputs.state,
        targets,
        depth,
        timeout_ms: 60_000,
    };
    let (tcs, tes) = tess;
    let run = |r: &mut Resources| {
        let mut with_fs = |r: &mut Resources| match gs {
            Some(g) => g.bind(r, |r| fs.bind(r, |r| device.draw(&mut d, r))),
            None => fs.bind(r, |r| device.draw(&mut d, r)),
        };
        match (tcs, tes) {
            (Some(c), Some(e)) => c.bind(r, |r| e.bind(r, with_fs)),
            _ => with_fs(r),
        }
    };
    vs.bind(res, run).map_err(refused)
}

/// `run vertices` on `device`: the vertex shader's outputs per vertex, per
/// `OUT` register.
pub(crate) fn run_vertices(
    device: &tgsi_vulkan::Device,
    shader: &Runnable,
    rows: &[Vec<[u32; 4]>],
    count: u32,
    res: &mut Resources,
) -> Result<Vec<Vec<[u32; 4]>>, Refused> {
    let direct3d = shader.d3d.is_some();
    shader
        .bind(res, |r| {
            device.run_vertices(&shader.shader, direct3d, rows, count, r)
        })
        .map_err(refused)
}

/// How a device error reads for the runner.
fn refused(e: tgsi_vulkan::Error) -> Refused {
    match e {
        tgsi_vulkan::Error::Device(t) => Refused::Failed(t),
        tgsi_vulkan::Error::Translate(t) => Refused::NotRunnable(format!("SPIR-V: {t}")),
        tgsi_vulkan::Error::Unsupported(t) => Refused::NotRunnable(t),
    }
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
        .map_err(refused)
}
