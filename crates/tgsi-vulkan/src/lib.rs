//! Vulkan as an engine: a shader translated to SPIR-V
//! ([`tgsi_spirv::to_spirv`]) runs on a Vulkan device — Mesa's lavapipe on
//! a machine without a GPU, the GPU elsewhere — with the resources of a
//! machine run ([`tgsi_exec::Resources`]) bound where the module's
//! interface puts them, and the buffers read back into them, so that a
//! caller compares the device's words with the machine's.
//!
//! Compute dispatches, full-target quads (`draw quad`) and draws of a
//! vertex, an optional geometry and a fragment shader run today; every
//! `unsafe` call of the Vulkan API lives in the `device` module, behind
//! [`Device`].

mod device;

pub use device::Device;
use tgsi_ir::ir::Shader;

impl Device {
    /// Translates `shader` for a run on this device, refusing what the
    /// module would state exactly but Vulkan lets a device compute
    /// otherwise than the machine: DFMA (Vulkan's precision rules let a
    /// device round the 64-bit product before the add, and lavapipe does;
    /// the machine's DFMA rounds once), the inter-lane opcodes where the
    /// device's subgroups are not the machine's 16 lanes, and the 64-bit
    /// opcodes (and LDEXP, computed in doubles) on a device without
    /// 64-bit floats and integers.
    pub(crate) fn translate_exact(
        &self,
        shader: &Shader,
        options: &tgsi_spirv::Options,
    ) -> Result<Vec<u32>, Error> {
        use tgsi_ir::opcode::Opcode as O;
        for i in shader.instructions() {
            match i.opcode {
                O::DFMA => {
                    return Err(Error::Unsupported(
                        "DFMA: Vulkan lets a device round the 64-bit product before the add (lavapipe does); the machine rounds once".into(),
                    ));
                }
                O::VOTE_ANY
                | O::VOTE_ALL
                | O::VOTE_EQ
                | O::BALLOT
                | O::READ_FIRST
                | O::READ_INVOC
                    if self.subgroup_size() != MACHINE_SUBGROUP || !self.votes_everywhere() =>
                {
                    return Err(Error::Unsupported(format!(
                        "{}: the device's subgroups are {} invocations, the machine's {MACHINE_SUBGROUP}{}",
                        i.opcode,
                        self.subgroup_size(),
                        if self.votes_everywhere() {
                            ""
                        } else {
                            ", and they do not vote and ballot in every stage"
                        }
                    )));
                }
                op if !self.has_64_bit()
                    && (op == O::LDEXP
                        || matches!(op.info().channels, tgsi_ir::opcode::Channels::Pair64(_))) =>
                {
                    return Err(Error::Unsupported(format!(
                        "{op}: its module needs the device features shaderFloat64 and shaderInt64"
                    )));
                }
                _ => {}
            }
        }
        Ok(tgsi_spirv::to_spirv(shader, options)?)
    }
}

/// The lanes the machine's inter-lane opcodes see (its batch).
const MACHINE_SUBGROUP: u32 = 16;

/// Why a run on the device did not happen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// No Vulkan loader or device, or the device refused a step.
    #[error("Vulkan: {0}")]
    Device(String),
    /// The shader was not translated.
    #[error("SPIR-V: {0}")]
    Translate(#[from] tgsi_spirv::Error),
    /// A shader or a request this engine does not run.
    #[error("{0}")]
    Unsupported(String),
}

/// What [`Device::draw_quad`] takes besides the resources: the fragment
/// shader, the machine's varyings of the quad and the render targets.
#[derive(Debug)]
pub struct QuadDraw<'a> {
    pub fragment: &'a Shader,
    /// Direct3D's numeric rules (a lowered Direct3D program).
    pub direct3d: bool,
    /// Each varying the quad gives: semantic, index, one plane per channel.
    pub varyings: Vec<tgsi_spirv::QuadVarying>,
    /// The render targets (their contents are drawn over and read back).
    pub targets: &'a mut [tgsi_exec::texture::Texture],
    pub timeout_ms: u64,
}

impl QuadDraw<'_> {
    /// The varyings of the machine's full-target quad `draw` (semantic,
    /// index, plane per channel), as [`QuadDraw::varyings`] takes them.
    pub fn varyings_of(draw: &tgsi_exec::Draw) -> Vec<tgsi_spirv::QuadVarying> {
        draw.varyings
            .iter()
            .map(|v| (v.semantic, v.index, v.plane))
            .collect()
    }
}

/// What [`Device::draw`] takes besides the resources: a vertex and a
/// fragment shader, the vertex rows (each vertex's `IN` registers, raw
/// words), the draw, the pipeline's render state and the targets.
#[derive(Debug)]
pub struct DrawRequest<'a> {
    pub vertex: &'a Shader,
    /// A geometry shader between them, and whether it is a lowered
    /// Direct3D program.
    pub geometry: Option<(&'a Shader, bool)>,
    pub fragment: &'a Shader,
    /// Direct3D's rules for the vertex and for the fragment shader (a
    /// lowered Direct3D program; the stages may differ).
    pub direct3d: (bool, bool),
    pub rows: &'a [Vec<[u32; 4]>],
    /// The primitives (ignored with tessellation, which draws patches).
    pub topology: tgsi_pipeline::BasicTopology,
    /// The tessellation stages between the vertex and the geometry shader.
    pub tessellation: Option<TessStages<'a>>,
    pub count: u32,
    pub instances: u32,
    pub indices: Option<&'a [u32]>,
    pub state: &'a tgsi_pipeline::RenderState,
    pub targets: &'a mut [tgsi_exec::texture::Texture],
    pub depth: Option<&'a mut tgsi_pipeline::DepthTarget>,
    pub timeout_ms: u64,
}

/// The tessellation stages of a [`DrawRequest`]: a TESS_CTRL and a
/// TESS_EVAL shader drawing patches of `patch_vertices` control points.
#[derive(Clone, Copy, Debug)]
pub struct TessStages<'a> {
    pub control: &'a Shader,
    pub eval: &'a Shader,
    /// Direct3D's rules (lowered hull and domain shaders), and the
    /// tessellator settings a Direct3D hull shader declares.
    pub direct3d: bool,
    pub settings: Option<tgsi_ir::tess::Settings>,
    pub patch_vertices: u32,
}

/// What [`Device::dispatch`] takes besides the resources.
#[derive(Clone, Copy, Debug)]
pub struct Dispatch<'a> {
    pub shader: &'a Shader,
    /// Direct3D's numeric rules (a lowered Direct3D program).
    pub direct3d: bool,
    pub groups: [u32; 3],
    /// How long to wait for the device before giving up (a shader that
    /// never ends).
    pub timeout_ms: u64,
}
