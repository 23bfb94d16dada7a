//! `draw quad` on the device: the fragment shader over every pixel of the
//! render targets, fed by the quad's vertex shader
//! ([`tgsi_spirv::quad_vertex_shader`]) with the machine's varyings, into
//! the targets' contents (draws accumulate), which are read back.

use super::super::{Error, QuadDraw};
use super::image::{DeviceImage, Use};
use super::{Bound, Descriptors, Device, vkerr};
use ash::vk;
use tgsi_exec::Resources;

/// The objects of one draw besides what it binds.
#[derive(Default)]
struct Pass {
    vertex: vk::ShaderModule,
    fragment: vk::ShaderModule,
    descriptors: Descriptors,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    pipeline: vk::Pipeline,
}

impl Device {
    /// Runs `q.fragment` over the whole of `q.targets` with `res` bound;
    /// the targets (and storage buffers and images) are read back.
    pub fn draw_quad(&self, q: &mut QuadDraw, res: &mut Resources) -> Result<(), Error> {
        let shader = q.fragment;
        if shader.processor != tgsi_ir::enums::Processor::Fragment {
            return Err(Error::Unsupported(format!(
                "draw quad runs a fragment shader; this is a {} shader",
                shader.processor
            )));
        }
        if let Some(t) = q.targets.iter().find(|t| {
            let name = t.format.short_name();
            name.ends_with("ui") || name.ends_with('i') && !name.ends_with("srgb")
        }) {
            return Err(Error::Unsupported(format!(
                "render target format {}: the translation writes float colours",
                t.format.short_name()
            )));
        }
        if let Some(t) = q
            .targets
            .iter()
            .find(|t| t.format == tgsi_exec::texture::Format::Rg11b10Float)
        {
            return Err(Error::Unsupported(format!(
                "render target format {}: Vulkan leaves the rounding into 11- and 10-bit \
                 floats to the device (this one rounds toward zero and clamps, as Direct3D; \
                 TGSI rounds to nearest and overflows to infinity)",
                t.format.short_name()
            )));
        }
        let (width, height) = q.targets.first().map_or((0, 0), |t| (t.width, t.height));
        let fs = tgsi_spirv::to_spirv(
            shader,
            &tgsi_spirv::Options {
                direct3d: q.direct3d,
            },
        )?;
        let vs = tgsi_spirv::quad_vertex_shader(shader, width, height, &q.varyings)?;
        let mut bound = Bound::default();
        let mut targets: Vec<DeviceImage> = Vec::new();
        let result = (|| -> Result<(), Error> {
            self.bind_resources(&[shader], res, &mut bound)?;
            for (k, t) in q.targets.iter().enumerate() {
                targets.push(self.image(t, None, Use::Attachment, k as u32, None)?);
            }
            let mut pass = Pass::default();
            let made = pass.make(self, &vs, &fs, &bound, &targets, width, height);
            let ran = made.and_then(|()| {
                self.submit(q.timeout_ms, "the draw", |cb| {
                    self.record_quad(cb, &pass, &bound, &targets, width, height)
                })
            });
            pass.destroy(self);
            ran?;
            for (t, img) in q.targets.iter_mut().zip(&targets) {
                if let Some(level) = t.levels.first_mut() {
                    let bytes = self.image_bytes(img, level.len())?;
                    level[..bytes.len()].copy_from_slice(&bytes);
                }
            }
            self.read_back(&bound, res)
        })();
        for t in &targets {
            self.destroy_image(t);
        }
        self.release(&bound);
        result
    }

    fn record_quad(
        &self,
        cb: vk::CommandBuffer,
        pass: &Pass,
        bound: &Bound,
        targets: &[DeviceImage],
        width: u32,
        height: u32,
    ) {
        for img in bound.images.iter().chain(targets) {
            self.record_upload(cb, img);
        }
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass.render_pass)
            .framebuffer(pass.framebuffer)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent: vk::Extent2D { width, height },
            });
        // SAFETY: `cb` is recording; the pass, framebuffer, pipeline and
        // set belong to this device and live until the submission ended.
        unsafe {
            self.device
                .cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            self.device
                .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pass.pipeline);
            self.device.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::GRAPHICS,
                pass.descriptors.layout,
                0,
                &[pass.descriptors.set],
                &[],
            );
            self.device.cmd_draw(cb, 3, 1, 0, 0);
            self.device.cmd_end_render_pass(cb);
        }
        for img in targets
            .iter()
            .chain(bound.images.iter().filter(|i| i.usage == Use::Storage))
        {
            self.record_download(cb, img);
        }
    }
}

impl Pass {
    #[allow(clippy::too_many_arguments)]
    fn make(
        &mut self,
        dev: &Device,
        vs: &[u32],
        fs: &[u32],
        bound: &Bound,
        targets: &[DeviceImage],
        width: u32,
        height: u32,
    ) -> Result<(), Error> {
        self.descriptors.make(dev, bound)?;
        let device = &dev.device;
        let attachments: Vec<vk::AttachmentDescription> = targets
            .iter()
            .map(|t| {
                vk::AttachmentDescription::default()
                    .format(t.format())
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .load_op(vk::AttachmentLoadOp::LOAD)
                    .store_op(vk::AttachmentStoreOp::STORE)
                    .initial_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            })
            .collect();
        let refs: Vec<vk::AttachmentReference> = (0..targets.len() as u32)
            .map(|k| {
                vk::AttachmentReference::default()
                    .attachment(k)
                    .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            })
            .collect();
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&refs)];
        let views: Vec<vk::ImageView> = targets.iter().map(|t| t.view).collect();
        let viewport = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: width as f32,
            height: height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        let scissor = [vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D { width, height },
        }];
        let blend: Vec<vk::PipelineColorBlendAttachmentState> = targets
            .iter()
            .map(|_| {
                vk::PipelineColorBlendAttachmentState::default()
                    .blend_enable(false)
                    .color_write_mask(vk::ColorComponentFlags::RGBA)
            })
            .collect();
        // SAFETY (every call below): valid create infos whose arrays live
        // across the call, objects of this device, each stored in `self`
        // so that `destroy` frees it exactly once.
        unsafe {
            self.vertex = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(vs), None)
                .map_err(vkerr("vkCreateShaderModule (vertex)"))?;
            self.fragment = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(fs), None)
                .map_err(vkerr("vkCreateShaderModule (fragment)"))?;
            self.render_pass = device
                .create_render_pass(
                    &vk::RenderPassCreateInfo::default()
                        .attachments(&attachments)
                        .subpasses(&subpass),
                    None,
                )
                .map_err(vkerr("vkCreateRenderPass"))?;
            self.framebuffer = device
                .create_framebuffer(
                    &vk::FramebufferCreateInfo::default()
                        .render_pass(self.render_pass)
                        .attachments(&views)
                        .width(width)
                        .height(height)
                        .layers(1),
                    None,
                )
                .map_err(vkerr("vkCreateFramebuffer"))?;
            let stages = [
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(self.vertex)
                    .name(c"main"),
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(self.fragment)
                    .name(c"main"),
            ];
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
            let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
                .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
            let viewports = vk::PipelineViewportStateCreateInfo::default()
                .viewports(&viewport)
                .scissors(&scissor);
            // the covering triangle is clockwise on the target: front facing
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(vk::CullModeFlags::NONE)
                .front_face(vk::FrontFace::CLOCKWISE)
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(vk::SampleCountFlags::TYPE_1);
            let blending = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
            let ci = [vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewports)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .color_blend_state(&blending)
                .layout(self.descriptors.layout)
                .render_pass(self.render_pass)
                .subpass(0)];
            self.pipeline = device
                .create_graphics_pipelines(vk::PipelineCache::null(), &ci, None)
                .map_err(|(_, e)| Error::Device(format!("vkCreateGraphicsPipelines: {e}")))?[0];
        }
        Ok(())
    }

    fn destroy(&self, dev: &Device) {
        // SAFETY: the objects belong to this device and are no longer in
        // use; destroying a null handle is allowed.
        unsafe {
            dev.device.destroy_pipeline(self.pipeline, None);
            dev.device.destroy_framebuffer(self.framebuffer, None);
            dev.device.destroy_render_pass(self.render_pass, None);
            dev.device.destroy_shader_module(self.fragment, None);
            dev.device.destroy_shader_module(self.vertex, None);
        }
        self.descriptors.destroy(dev);
    }
}
