//! The SPIR-V back end: a TGSI shader (TGSI text or tokens, or the
//! lowering of a Direct3D program: both front ends share it) to a SPIR-V
//! module for Vulkan 1.2 (SPIR-V 1.5).
//!
//! The module is written directly with `rspirv`'s builder from the one IR.
//! Registers live in function variables of four 32-bit words (TGSI's
//! registers hold bits; each instruction reads them as the type the opcode
//! table gives its operands and writes bits back), immediates are
//! constants, and resources follow a fixed interface ([`layout`],
//! `docs/spirv.md`): descriptor set 0, `CONST[n]` at binding n, `BUFFER[n]`
//! at binding 32 + n, each a storage buffer of 32-bit words; `SVIEW[n]`
//! a sampled image at binding 64 + n, `SAMP[n]` a sampler at 96 + n, `IMAGE[n]`
//! a storage image at 128 + n. Memory
//! accesses follow the machine's Direct3D bounds rules (reads out of range
//! give 0, writes are dropped), division by zero the machine's results,
//! float-to-integer conversions its saturation, and MAD stays unfused
//! (`NoContraction`).
//!
//! What the translator does not yet write is refused with an [`Error`]
//! naming the instruction (or stage) and why, never a wrong module.
//!
//! ```
//! let text = "COMP
//! PROPERTY CS_FIXED_BLOCK_WIDTH 64
//! PROPERTY CS_FIXED_BLOCK_HEIGHT 1
//! PROPERTY CS_FIXED_BLOCK_DEPTH 1
//! DCL SV[0], THREAD_ID
//! DCL BUFFER[0]
//! DCL TEMP[0]
//! IMM[0] UINT32 {4, 0, 0, 0}
//!   0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx
//!   1: STORE BUFFER[0].x, TEMP[0].xxxx, SV[0].xxxx
//!   2: END
//! ";
//! let (shader, _) = tgsi_text::parse(text).unwrap();
//! let words = tgsi_spirv::to_spirv(&shader, &tgsi_spirv::Options::default())?;
//! assert_eq!(words[0], 0x0723_0203); // the SPIR-V magic number
//! assert!(tgsi_spirv::disassemble(&words)?.contains("OpEntryPoint GLCompute"));
//! # Ok::<(), tgsi_spirv::Error>(())
//! ```

/// Evaluates a builder call, then turns its error into an [`Error`] at the
/// instruction being translated (`$t` is the translator).
macro_rules! sp {
    ($t:expr, $e:expr) => {{
        let r = $e;
        r.map_err(|e| $t.fail(e.to_string()))
    }};
}

mod flow;
mod geometry;
mod image;
mod indirect;
mod io;
mod lanes;
mod memory;
mod module;
mod ops;
mod pack;
mod quad;
mod tess;
mod texture;
mod wide;
mod wide_ops;

pub use texture::{sampler_binding, sampler_uses, texture_binding};

use tgsi_ir::enums::File;
use tgsi_ir::ir::Shader;

/// How to translate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Direct3D's float rules: 32-bit denormals flushed to zero
    /// (`DenormFlushToZero` through the float controls); otherwise IEEE
    /// (`DenormPreserve`).
    pub direct3d: bool,
    /// Fragment colour outputs written as integers: bit k for `COLOR[k]`
    /// (an `int`/`uint` render target; the bits of the output register go
    /// out unchanged), and in `signed_colors` those of a signed target.
    pub integer_colors: u8,
    pub signed_colors: u8,
    /// Leave out the float-controls denormal mode (for a device without
    /// `shaderDenormPreserveFloat32` / `shaderDenormFlushToZeroFloat32`,
    /// where requesting it is not allowed; Direct3D's flush stays in code).
    pub omit_denorm_mode: bool,
    /// Leave out `SignedZeroInfNanPreserve` (for a device without
    /// `shaderSignedZeroInfNanPreserveFloat32`).
    pub omit_signed_zero_mode: bool,
    /// The same for doubles (a module with 64-bit floats asks for
    /// `DenormPreserve` and `SignedZeroInfNanPreserve` of width 64: the
    /// machine keeps double denormals under both numeric rules): for a
    /// device without `shaderDenormPreserveFloat64` or
    /// `shaderSignedZeroInfNanPreserveFloat64`.
    pub omit_denorm_mode_64: bool,
    pub omit_signed_zero_mode_64: bool,
    /// A vertex shader also writes every `OUT` register's words to the
    /// storage buffer at [`CAPTURE_BINDING`], vertex v's register r at
    /// words 4 × (v × registers + r) (`run vertices` on a device).
    pub capture_outputs: bool,
    /// The tessellator's settings, written as execution modes of a
    /// tessellation module (a Direct3D hull shader declares them, where a
    /// TGSI TESS_EVAL shader's properties say them; without them a
    /// Direct3D module leaves the spacing and the winding to the other
    /// tessellation stage).
    pub tessellator: Option<tgsi_ir::tess::Settings>,
    /// Refuse DEMOTE and READ_HELPER (for a device without
    /// `shaderDemoteToHelperInvocation`, which their module needs).
    pub refuse_demote: bool,
    /// Refuse READ_HELPER (for a device whose helper flags are not what
    /// the other lanes of a quad see through quad operations: Mesa's
    /// lavapipe, where every lane sees the others as helpers).
    pub refuse_read_helper: bool,
    /// Refuse a fragment shader's STENCIL output (for a device without
    /// `VK_EXT_shader_stencil_export`).
    pub refuse_stencil_export: bool,
    /// The device's `maxClipDistances`, `maxCullDistances` and
    /// `maxCombinedClipAndCullDistances`: a shader with more distances is
    /// refused. `None` (the default, `tgsi translate`) writes as many as
    /// the `CLIPDIST` registers hold (Vulkan guarantees 8).
    pub distance_limits: Option<DistanceLimits>,
}

/// A device's limits on clip and cull distances ([`Options::distance_limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DistanceLimits {
    pub clip: u32,
    pub cull: u32,
    pub combined: u32,
}

/// The binding of the buffer a capturing vertex shader writes its outputs to.
pub const CAPTURE_BINDING: u32 = 255;

/// The specialization constant (a `uint`, default 0) a fragment shader with
/// `FS_COORD_ORIGIN LOWER_LEFT` reads the render target's height from:
/// Vulkan's fragment origin is upper-left, so the shader turns `FragCoord.y`
/// into `height - FragCoord.y` itself.
pub const TARGET_HEIGHT_SPEC_ID: u32 = 0;

/// The push constant range a shader reading `CS_USER_DATA_AMD` takes its
/// value from: one `uvec4` at offset 0 (16 bytes), in every stage.
pub const USER_DATA_PUSH_CONSTANT: std::ops::Range<u32> = 0..16;

/// The specialization constant (a `uint`, default 1) SAMPLE_INFO and
/// SAMPLE_POS on the render target (a TEMP first operand) read its sample
/// count from.
pub const TARGET_SAMPLES_SPEC_ID: u32 = 1;

/// Why a shader was not translated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", instruction.map(|i| format!("instruction {i}: ")).unwrap_or_default())]
pub struct Error {
    /// The TGSI instruction to blame, when one is.
    pub instruction: Option<usize>,
    pub message: String,
}

impl Error {
    pub(crate) fn general(message: impl Into<String>) -> Error {
        Error {
            instruction: None,
            message: message.into(),
        }
    }
}

/// One resource of the module's interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The TGSI register file and index it stands for.
    pub file: File,
    pub index: u32,
    pub set: u32,
    pub binding: u32,
    /// What Vulkan binds there.
    pub kind: &'static str,
}

/// [`Binding::kind`] of a buffer texture (`SVIEW[n], BUFFER`).
pub const UNIFORM_TEXEL_BUFFER: &str = "uniform texel buffer";

/// The binding of `CONST[n]`.
pub const fn const_binding(n: u32) -> u32 {
    n
}

/// The binding of `BUFFER[n]`.
pub const fn buffer_binding(n: u32) -> u32 {
    32 + n
}

pub use image::image_binding;
pub use io::varying_location;
pub use quad::{QuadVarying, quad_vertex_shader};
pub use tess::{TESSELLATION_LOCATIONS, tessellation_location, tessellation_locations_reached};

/// Translates `shader` to a SPIR-V module (its 32-bit words).
pub fn to_spirv(shader: &Shader, options: &Options) -> Result<Vec<u32>, Error> {
    module::Translator::new(shader, options)?.translate()
}

/// The resource interface of `shader`'s module: every descriptor it uses.
pub fn layout(shader: &Shader) -> Vec<Binding> {
    let mut out = Vec::new();
    for d in shader.declarations() {
        for index in d.first..=d.last {
            let (binding, kind) = match d.file {
                File::Const => (
                    const_binding(d.dimension.unwrap_or(0)),
                    "storage buffer (read-only words)",
                ),
                File::Buffer => (buffer_binding(index), "storage buffer (words)"),
                File::SamplerView
                    if d.sampler_view
                        .is_some_and(|v| v.target == tgsi_ir::enums::TextureTarget::Buffer) =>
                {
                    (texture_binding(index), UNIFORM_TEXEL_BUFFER)
                }
                File::SamplerView => (texture_binding(index), "sampled image"),
                File::Sampler => (sampler_binding(index), "sampler"),
                File::Image => (image::image_binding(index), "storage image"),
                _ => continue,
            };
            let index = if d.file == File::Const {
                d.dimension.unwrap_or(0)
            } else {
                index
            };
            let b = Binding {
                file: d.file,
                index,
                set: 0,
                binding,
                kind,
            };
            if !out.contains(&b) {
                out.push(b);
            }
        }
    }
    // the legacy TEX opcodes sample the texture of their sampler's index
    for n in texture::legacy_textures(shader) {
        let b = Binding {
            file: File::SamplerView,
            index: n,
            set: 0,
            binding: texture_binding(n),
            kind: "sampled image",
        };
        if !out.iter().any(|o| o.binding == b.binding) {
            out.push(b);
        }
    }
    out
}

/// The specialization constants `shader`'s module reads: (constant id,
/// what the pipeline must give it).
pub fn specialization_constants(shader: &Shader) -> Vec<(u32, &'static str)> {
    let lower_left = shader.processor == tgsi_ir::enums::Processor::Fragment
        && shader
            .properties()
            .any(|p| p.name == tgsi_ir::enums::PropertyName::FsCoordOrigin && p.value != 0);
    // SAMPLE_INFO / SAMPLE_POS on the render target: a TEMP first operand
    let target_samples = shader.instructions().any(|i| {
        matches!(
            i.opcode,
            tgsi_ir::opcode::Opcode::SAMPLE_INFO | tgsi_ir::opcode::Opcode::SAMPLE_POS
        ) && i.src.first().is_some_and(|s| s.reg.file == File::Temp)
    });
    let mut out = Vec::new();
    if lower_left {
        out.push((
            TARGET_HEIGHT_SPEC_ID,
            "uint: the render target's height in pixels (FS_COORD_ORIGIN LOWER_LEFT)",
        ));
    }
    if target_samples {
        out.push((
            TARGET_SAMPLES_SPEC_ID,
            "uint: the render target's sample count (SAMPLE_INFO/SAMPLE_POS on it; default 1)",
        ));
    }
    out
}

/// The push constants `shader`'s module reads: (byte range, what).
pub fn push_constants(shader: &Shader) -> Vec<(std::ops::Range<u32>, &'static str)> {
    let user_data = shader.declarations().any(|d| {
        d.file == File::SystemValue
            && d.semantic
                .is_some_and(|s| s.name == tgsi_ir::enums::SemanticName::CsUserDataAmd)
    });
    if user_data {
        vec![(USER_DATA_PUSH_CONSTANT, "uvec4: CS_USER_DATA_AMD")]
    } else {
        Vec::new()
    }
}

/// Runs Khronos' validator on a module: `spirv-val --target-env
/// vulkan1.2` (Debian's `spirv-tools`). `None` when the tool is not
/// installed, else its verdict (its message when it rejects the module).
pub fn spirv_val(words: &[u32]) -> Option<Result<(), String>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    // one file per call (no directory left behind), removed after
    let path = std::env::temp_dir().join(format!(
        "tgsi-spirv-{}-{}.spv",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).ok()?;
    let out = std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.2"])
        .arg(&path)
        .output();
    std::fs::remove_file(&path).ok();
    let out = out.ok()?;
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    })
}

/// The SPIR-V assembly of a module (rspirv's disassembler).
pub fn disassemble(words: &[u32]) -> Result<String, Error> {
    use rspirv::binary::Disassemble;
    let module = rspirv::dr::load_words(words)
        .map_err(|e| Error::general(format!("the module does not parse: {e}")))?;
    Ok(module.disassemble())
}

#[cfg(test)]
mod tests;
