//! Multisampled images on the device. Vulkan copies no multisampled image
//! to or from a buffer, so:
//!
//! * in: an image whose contents are one value throughout (a cleared
//!   target, a texture of one texel value) is cleared to it; a render or
//!   depth target whose samples differ is written by an upload pass
//!   (`draw.rs`) from its staging buffer's words; a texture whose samples
//!   differ is refused before anything is made (`image.rs`);
//! * out: after the draw, a compute pass (a TGSI shader translated by
//!   `tgsi_spirv`, like any other) fetches every sample of the image with
//!   SAMPLE_I_MS and stores it as four words into the image's staging
//!   buffer, sample `s` of texel `(x, y)` at word quadruple
//!   `(y * width + x) * samples + s`, the machine's order; the caller
//!   encodes the words into its texture's format.

use super::image::{Clear, DeviceImage, USE_ACCESS, full_range, layout_barrier};
use super::{Bound, Device, Objects};
use crate::Error;
use ash::vk;
use tgsi_exec::texture::format::NumClass;

/// Work groups Vulkan guarantees in one dimension of a dispatch.
const MAX_GROUPS: u64 = 65_535;

/// The readback pass of one multisampled image, made before the draw's
/// commands are recorded.
pub(super) struct Readback {
    objects: Objects,
    groups: u32,
}

impl Device {
    /// Records the clear of a multisampled image to its one value, and its
    /// move to the layout the draw uses it in.
    pub(super) fn record_clear(&self, cb: vk::CommandBuffer, img: &DeviceImage, clear: Clear) {
        let range = full_range(img);
        self.record_transfer_in(cb, img, |d| {
            // SAFETY: `cb` is recording; the image belongs to this device
            // and lives until the submission ended.
            unsafe {
                match clear {
                    Clear::Color(c) => d.cmd_clear_color_image(
                        cb,
                        img.handle(),
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &c,
                        &[range],
                    ),
                    Clear::DepthStencil(c) => d.cmd_clear_depth_stencil_image(
                        cb,
                        img.handle(),
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &c,
                        &[range],
                    ),
                }
            }
        });
    }

    /// Records the move of a multisampled target its upload pass writes to
    /// the layout the passes use it in (its old contents are dropped).
    pub(super) fn record_to_layout(&self, cb: vk::CommandBuffer, img: &DeviceImage) {
        let to_use = layout_barrier(
            img,
            (vk::ImageLayout::UNDEFINED, vk::AccessFlags::empty()),
            (img.layout(), USE_ACCESS),
        );
        // SAFETY: `cb` is recording; the image belongs to this device and
        // lives until the submission ended.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_use],
            );
        }
    }

    /// Records that a pass's attachment writes are done before the next
    /// pass reads and writes the attachments (an upload pass, then the
    /// draw).
    pub(super) fn record_attachments_done(&self, cb: vk::CommandBuffer) {
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(USE_ACCESS)
            .dst_access_mask(USE_ACCESS);
        // SAFETY: `cb` is recording, outside a render pass.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::ALL_GRAPHICS,
                vk::PipelineStageFlags::ALL_GRAPHICS,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
        }
    }

    /// Makes the readback pass of a multisampled image of `width` ×
    /// `height` texels whose values are of `class` (depth: floats).
    pub(super) fn readback(
        &self,
        img: &DeviceImage,
        class: NumClass,
        (width, height): (u32, u32),
    ) -> Result<Readback, Error> {
        let samples = img.samples;
        let total = width as u64 * height as u64 * samples as u64;
        // one group of 64 per 64 samples, in one dimension
        if total.div_ceil(64) > MAX_GROUPS {
            return Err(Error::Unsupported(format!(
                "a multisampled target of {width}x{height} with {samples} samples is read back in more than {MAX_GROUPS} work groups"
            )));
        }
        let total = total as u32;
        let kind = match class {
            NumClass::Uint => "UINT",
            NumClass::Sint => "SINT",
            _ => "FLOAT",
        };
        let text = format!(
            "COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 64
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL SV[1], BLOCK_ID
DCL SVIEW[0], 2D_MSAA, {kind}
DCL BUFFER[0]
DCL TEMP[0..2]
IMM[0] UINT32 {{64, {samples}, {width}, {total}}}
IMM[1] UINT32 {{16, 0, 0, 0}}
UMAD TEMP[0].x, SV[1].xxxx, IMM[0].xxxx, SV[0].xxxx
USLT TEMP[0].y, TEMP[0].xxxx, IMM[0].wwww
UIF TEMP[0].yyyy
  UMOD TEMP[1].w, TEMP[0].xxxx, IMM[0].yyyy
  UDIV TEMP[0].z, TEMP[0].xxxx, IMM[0].yyyy
  UMOD TEMP[1].x, TEMP[0].zzzz, IMM[0].zzzz
  UDIV TEMP[1].y, TEMP[0].zzzz, IMM[0].zzzz
  MOV TEMP[1].z, IMM[1].yyyy
  SAMPLE_I_MS TEMP[2], TEMP[1], SVIEW[0], TEMP[1].wwww
  UMUL TEMP[0].w, TEMP[0].xxxx, IMM[1].xxxx
  STORE BUFFER[0].xyzw, TEMP[0].wwww, TEMP[2]
ENDIF
END
"
        );
        let shader = helper_shader("readback", &text)?;
        let words = tgsi_spirv::to_spirv(&shader, &self.options(false))?;
        // the image's view and staging buffer where the module reads and
        // writes them (borrowed handles: this `Bound` is never released)
        let bound = Bound {
            buffers: vec![img.staging_as_buffer_0()],
            images: vec![img.sampled_alias(tgsi_spirv::texture_binding(0))],
            ..Bound::default()
        };
        let mut objects = Objects::default();
        if let Err(e) = objects.make(self, &words, &bound) {
            objects.destroy(self);
            return Err(e);
        }
        Ok(Readback {
            objects,
            groups: total.div_ceil(64),
        })
    }

    /// Records a readback pass after the draw: the image moved to be
    /// sampled, the pass, its writes made visible to the host.
    pub(super) fn record_readback(
        &self,
        cb: vk::CommandBuffer,
        img: &DeviceImage,
        pass: &Readback,
    ) {
        let to_read = layout_barrier(
            img,
            (
                img.layout(),
                vk::AccessFlags::COLOR_ATTACHMENT_WRITE
                    | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ),
            (
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                vk::AccessFlags::SHADER_READ,
            ),
        );
        let to_host = vk::BufferMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(img.staging().buffer)
            .offset(0)
            .size(vk::WHOLE_SIZE);
        // SAFETY: `cb` is recording after the draw; the image, buffer,
        // pipeline and set belong to this device and outlive the
        // submission.
        unsafe {
            let d = &self.device;
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_read],
            );
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pass.objects.pipeline);
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                pass.objects.descriptors.layout,
                0,
                &[pass.objects.descriptors.set],
                &[],
            );
            d.cmd_dispatch(cb, pass.groups, 1, 1);
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[],
                &[to_host],
                &[],
            );
        }
    }

    pub(super) fn destroy_readback(&self, pass: &Readback) {
        pass.objects.destroy(self);
    }

    /// The `n` samples' words a readback pass wrote (after the submission).
    pub(super) fn sample_words(&self, img: &DeviceImage, n: usize) -> Result<Vec<[u32; 4]>, Error> {
        let bytes = self.image_bytes(img, n * 16)?;
        Ok(bytes
            .chunks_exact(16)
            .map(|q| {
                std::array::from_fn(|c| {
                    u32::from_le_bytes([q[4 * c], q[4 * c + 1], q[4 * c + 2], q[4 * c + 3]])
                })
            })
            .collect())
    }

    /// A multisampled texture's level 0 from its readback pass's words:
    /// each sample encoded into the texture's format.
    pub(super) fn read_samples(
        &self,
        img: &DeviceImage,
        tex: &mut tgsi_exec::texture::Texture,
    ) -> Result<(), Error> {
        let bpt = tex.format.bytes_per_texel().max(1);
        let Some(level) = tex.levels.first_mut() else {
            return Ok(());
        };
        let n = level.len() / bpt;
        for (texel, words) in level.chunks_exact_mut(bpt).zip(self.sample_words(img, n)?) {
            tex.format.encode_into(words, texel);
        }
        Ok(())
    }
}

/// The TGSI text of one of the engine's own multisample passes (`what`:
/// "upload" or "readback") assembled; a fault in it is the engine's, so a
/// device error naming the pass.
pub(super) fn helper_shader(what: &str, text: &str) -> Result<tgsi_ir::ir::Shader, Error> {
    tgsi_text::parse(text)
        .map(|(shader, _)| shader)
        .map_err(|d| {
            Error::Device(format!(
                "the multisample {what} shader: {}",
                d.render(what, text)
            ))
        })
}
