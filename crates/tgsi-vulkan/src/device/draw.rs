//! Draws on the device: `draw quad` (the fragment shader over every pixel
//! of the render targets, fed by the quad's vertex shader
//! [`tgsi_spirv::quad_vertex_shader`] with the machine's varyings) and
//! `draw` (a vertex and a fragment shader over vertex rows, with the
//! pipeline's render state). The targets' contents are loaded (draws
//! accumulate) and read back, with the depth target's.

use super::super::{DrawRequest, Error, QuadDraw, TessStages};
use super::image::{DeviceImage, Use, sample_count};
use super::multisample::Readback;
use super::{Bound, Descriptors, Device, vkerr};
use ash::vk;
use tgsi_exec::Resources;
use tgsi_exec::texture::format::NumClass;
use tgsi_exec::texture::{Format, Texture};
use tgsi_ir::ir::Shader;
use tgsi_pipeline::{
    BasicTopology, BlendFactor, BlendOp, CompareFunc, CullMode, DepthTarget, FrontFace,
    RenderState, StencilFace, StencilOp, StencilState,
};

/// What a pass draws besides the shaders: the vertex rows (16 bytes per
/// register), the draw and the render state (None: a full-target quad).
struct Geometry<'a> {
    rows: &'a [Vec<[u32; 4]>],
    topology: BasicTopology,
    count: u32,
    instances: u32,
    indices: Option<&'a [u32]>,
    state: Option<&'a RenderState>,
    /// The targets the fragment shader has a colour for (bit k: `COLOR[k]`).
    colors_written: u8,
    /// The geometry shader and its module's words.
    geometry: Option<(&'a Shader, Vec<u32>)>,
    /// The tessellation shaders, their modules' words and the patch size.
    tessellation: Option<Tessellation<'a>>,
    /// No rasterization (and no fragment shader): `run vertices`.
    discard: bool,
}

/// The tessellation stages of a draw, translated.
struct Tessellation<'a> {
    control: &'a Shader,
    eval: &'a Shader,
    words: [Vec<u32>; 2],
    patch_vertices: u32,
}

/// Why lines are not drawn on the device.
const LINES: &str = "lines: Vulkan rasterizes them as rectangles (or Bresenham's lines), \
                     not with Direct3D's diamond-exit rule the machine follows";

/// The objects of one draw besides what it binds.
#[derive(Default)]
struct Pass {
    vertex: vk::ShaderModule,
    control: vk::ShaderModule,
    eval: vk::ShaderModule,
    geometry: vk::ShaderModule,
    fragment: vk::ShaderModule,
    descriptors: Descriptors,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    pipeline: vk::Pipeline,
    /// The readback pass of each multisampled target (by image index).
    readbacks: Vec<(usize, Readback)>,
    /// The upload pass of each multisampled target whose samples differ.
    uploads: Vec<Pass>,
}

impl Device {
    /// Runs `q.fragment` over the whole of `q.targets` with `res` bound;
    /// the targets (and storage buffers and images) are read back.
    pub fn draw_quad(&self, q: &mut QuadDraw, res: &mut Resources) -> Result<(), Error> {
        let (width, height) = q.targets.first().map_or((0, 0), |t| (t.width, t.height));
        let vs = tgsi_spirv::quad_vertex_shader(q.fragment, width, height, &q.varyings)?;
        let geometry = Geometry {
            rows: &[],
            topology: BasicTopology::TriangleList,
            count: 3,
            instances: 1,
            indices: None,
            state: None,
            colors_written: colors_written(q.fragment),
            geometry: None,
            tessellation: None,
            discard: false,
        };
        self.draw_pass(
            (&vs, None),
            q.fragment,
            q.direct3d,
            &geometry,
            q.targets,
            None,
            res,
            q.timeout_ms,
        )
    }

    /// Runs a draw of `d.vertex` and `d.fragment` with the pipeline's
    /// render state into `d.targets` (and `d.depth`), `res` bound.
    pub fn draw(&self, d: &mut DrawRequest, res: &mut Resources) -> Result<(), Error> {
        let vs = self.translate_exact(d.vertex, &self.options(d.direct3d.0))?;
        let gs = match d.geometry {
            Some((shader, direct3d)) => {
                let lines = shader.properties().any(|p| {
                    p.name == tgsi_ir::enums::PropertyName::GsOutputPrimitive && p.value == 3
                });
                if lines {
                    return Err(Error::Unsupported(LINES.into()));
                }
                Some((
                    shader,
                    self.translate_exact(shader, &self.options(direct3d))?,
                ))
            }
            None => None,
        };
        let tessellation = match d.tessellation {
            Some(t) => Some(self.tessellation(&t, d.geometry.is_some())?),
            None => None,
        };
        let geometry = Geometry {
            rows: d.rows,
            topology: d.topology,
            count: d.count,
            instances: d.instances,
            indices: d.indices,
            state: Some(d.state),
            colors_written: colors_written(d.fragment),
            geometry: gs,
            tessellation,
            discard: false,
        };
        self.draw_pass(
            (&vs, Some(d.vertex)),
            d.fragment,
            d.direct3d.1,
            &geometry,
            d.targets,
            d.depth.as_deref_mut(),
            res,
            d.timeout_ms,
        )
    }

    /// The tessellation stages translated (with the tessellator's settings
    /// of a Direct3D hull shader); isolines without a geometry shader after
    /// them are lines, which are not drawn.
    fn tessellation<'a>(
        &self,
        t: &TessStages<'a>,
        geometry: bool,
    ) -> Result<Tessellation<'a>, Error> {
        let isolines = t
            .eval
            .properties()
            .any(|p| p.name == tgsi_ir::enums::PropertyName::TesPrimMode && p.value == 1)
            || t.settings
                .is_some_and(|s| s.domain() == tgsi_ir::tess::Domain::Isoline);
        let points = t
            .eval
            .properties()
            .any(|p| p.name == tgsi_ir::enums::PropertyName::TesPointMode && p.value != 0)
            || t.settings
                .is_some_and(|s| s.output() == tgsi_ir::tess::OutputPrimitive::Point);
        if isolines && !points && !geometry {
            return Err(Error::Unsupported(LINES.into()));
        }
        // SAFETY: the physical device belongs to the instance.
        let limits = unsafe {
            self.instance
                .get_physical_device_properties(self.physical)
                .limits
        };
        let room = [
            limits.max_tessellation_control_per_vertex_output_components,
            limits.max_tessellation_control_per_patch_output_components,
            limits.max_tessellation_evaluation_input_components,
        ]
        .into_iter()
        .min()
        .unwrap_or(0)
            / 4;
        let reached = tgsi_spirv::tessellation_locations_reached(t.control)
            .max(tgsi_spirv::tessellation_locations_reached(t.eval));
        if reached > room {
            return Err(Error::Unsupported(format!(
                "the varyings between the tessellation stages reach location {} (PATCH[k] is at {} - k); \
                 this device has {room} locations there",
                reached - 1,
                tgsi_spirv::TESSELLATION_LOCATIONS - 1
            )));
        }
        let options = tgsi_spirv::Options {
            tessellator: t.settings,
            ..self.options(t.direct3d)
        };
        Ok(Tessellation {
            control: t.control,
            eval: t.eval,
            words: [
                self.translate_exact(t.control, &options)?,
                self.translate_exact(t.eval, &options)?,
            ],
            patch_vertices: t.patch_vertices,
        })
    }

    /// `run vertices` on the device: `vertex` over vertices 0..`count` of
    /// `rows` (points, nothing rasterized), each vertex's `OUT` registers
    /// written by the shader to a capture buffer and returned per vertex,
    /// per register.
    pub fn run_vertices(
        &self,
        vertex: &Shader,
        direct3d: bool,
        rows: &[Vec<[u32; 4]>],
        count: u32,
        res: &mut Resources,
    ) -> Result<Vec<Vec<[u32; 4]>>, Error> {
        let outs = vertex
            .declarations()
            .filter(|d| d.file == tgsi_ir::enums::File::Output)
            .map(|d| d.last + 1)
            .max()
            .unwrap_or(0) as usize;
        let options = tgsi_spirv::Options {
            capture_outputs: true,
            ..self.options(direct3d)
        };
        let vs = self.translate_exact(vertex, &options)?;
        let g = Geometry {
            rows,
            topology: BasicTopology::PointList,
            count,
            instances: 1,
            indices: None,
            state: None,
            colors_written: 0,
            geometry: None,
            tessellation: None,
            discard: true,
        };
        let mut bound = Bound::default();
        let mut vertices: Vec<super::Buffer> = Vec::new();
        let words = (|| -> Result<Vec<u8>, Error> {
            self.bind_resources(&[vertex], res, &mut bound)?;
            let size = (count as usize * outs * 16).max(16);
            let capture = self.buffer(&vec![0; size], tgsi_spirv::CAPTURE_BINDING, None)?;
            bound.buffers.push(capture);
            let (vb, _) = vertex_bytes(&g)?;
            vertices.push(self.host_buffer(&vb, vk::BufferUsageFlags::VERTEX_BUFFER, 0, None)?);
            let mut pass = Pass::default();
            let made = pass.make(self, &vs, &[], &bound, &[], &g, (1, 1));
            let ran = made.and_then(|()| {
                self.submit(60_000, "run vertices", |cb| {
                    self.record_draw(cb, &pass, &bound, &[], &vertices, &g, (1, 1))
                })
            });
            pass.destroy(self);
            ran?;
            let capture = bound
                .buffers
                .last()
                .ok_or_else(|| Error::Device("no capture".into()))?;
            let bytes = self.read(capture, size)?;
            self.read_back(&bound, res)?;
            Ok(bytes)
        })();
        for b in &vertices {
            self.free(b);
        }
        self.release(&bound);
        let words = words?;
        let word = |i: usize| {
            u32::from_le_bytes([
                words[4 * i],
                words[4 * i + 1],
                words[4 * i + 2],
                words[4 * i + 3],
            ])
        };
        Ok((0..count as usize)
            .map(|v| {
                (0..outs)
                    .map(|r| std::array::from_fn(|c| word(4 * (v * outs + r) + c)))
                    .collect()
            })
            .collect())
    }

    /// A draw: the targets and resources made, one render pass recorded
    /// and run, everything read back and released.
    #[allow(clippy::too_many_arguments)]
    fn draw_pass(
        &self,
        (vs, vertex): (&[u32], Option<&Shader>),
        fragment: &Shader,
        direct3d: bool,
        g: &Geometry,
        targets: &mut [Texture],
        depth: Option<&mut DepthTarget>,
        res: &mut Resources,
        timeout_ms: u64,
    ) -> Result<(), Error> {
        check_targets(targets)?;
        if g.tessellation.is_none()
            && matches!(
                g.topology,
                BasicTopology::LineList
                    | BasicTopology::LineStrip
                    | BasicTopology::LineListAdj
                    | BasicTopology::LineStripAdj
            )
        {
            return Err(Error::Unsupported(LINES.into()));
        }
        let (integer_colors, signed_colors) = integer_targets(targets);
        let options = tgsi_spirv::Options {
            integer_colors,
            signed_colors,
            ..self.options(direct3d)
        };
        let fs = self.translate_exact(fragment, &options)?;
        let (width, height) = match (targets.first(), depth.as_deref()) {
            (Some(t), _) => (t.width, t.height),
            (None, Some(d)) => (d.width, d.height),
            (None, None) => (0, 0),
        };
        let mut bound = Bound::default();
        let mut images: Vec<DeviceImage> = Vec::new();
        let mut vertices: Vec<super::Buffer> = Vec::new();
        let result = (|| -> Result<(), Error> {
            let tess = g.tessellation.as_ref();
            let shaders: Vec<&Shader> = vertex
                .into_iter()
                .chain(tess.map(|t| t.control))
                .chain(tess.map(|t| t.eval))
                .chain(g.geometry.as_ref().map(|(s, _)| *s))
                .chain([fragment])
                .collect();
            self.bind_resources(&shaders, res, &mut bound)?;
            for (k, t) in targets.iter().enumerate() {
                images.push(self.image(t, None, Use::Attachment, k as u32, None)?);
            }
            if let Some(d) = depth.as_deref() {
                images.push(self.depth_image(d)?);
            }
            if !g.rows.is_empty() || g.indices.is_some() {
                let (vb, ib) = vertex_bytes(g)?;
                vertices.push(self.host_buffer(
                    &vb,
                    vk::BufferUsageFlags::VERTEX_BUFFER,
                    0,
                    None,
                )?);
                if let Some(ib) = ib {
                    vertices.push(self.host_buffer(
                        &ib,
                        vk::BufferUsageFlags::INDEX_BUFFER,
                        0,
                        None,
                    )?);
                }
            }
            let mut pass = Pass::default();
            let made = pass
                .make(self, vs, &fs, &bound, &images, g, (width, height))
                .and_then(|()| {
                    for (k, img) in images.iter().enumerate().filter(|(_, i)| i.samples > 1) {
                        let class = match img.usage {
                            Use::Depth => NumClass::Float,
                            _ => img.machine_format().num_class(),
                        };
                        pass.readbacks
                            .push((k, self.readback(img, class, (width, height))?));
                        if img.fill {
                            pass.uploads
                                .push(self.upload_pass(img, class, (width, height))?);
                        }
                    }
                    Ok(())
                });
            let ran = made.and_then(|()| {
                self.submit(timeout_ms, "the draw", |cb| {
                    self.record_draw(cb, &pass, &bound, &images, &vertices, g, (width, height))
                })
            });
            pass.destroy(self);
            ran?;
            for (t, img) in targets.iter_mut().zip(&images) {
                if img.samples > 1 {
                    self.read_samples(img, t)?;
                } else if let Some(level) = t.levels.first_mut() {
                    let bytes = self.image_bytes(img, level.len())?;
                    level[..bytes.len()].copy_from_slice(&bytes);
                }
            }
            if let (Some(d), Some(img)) = (depth, images.last().filter(|i| i.usage == Use::Depth)) {
                self.read_depth(img, d)?;
            }
            self.read_back(&bound, res)
        })();
        for img in &images {
            self.destroy_image(img);
        }
        for b in &vertices {
            self.free(b);
        }
        self.release(&bound);
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn record_draw(
        &self,
        cb: vk::CommandBuffer,
        pass: &Pass,
        bound: &Bound,
        images: &[DeviceImage],
        vertices: &[super::Buffer],
        g: &Geometry,
        (width, height): (u32, u32),
    ) {
        for img in bound.images.iter().chain(images) {
            self.record_upload(cb, img);
        }
        for upload in &pass.uploads {
            self.record_full_pass(cb, upload, (width, height));
            self.record_attachments_done(cb);
        }
        self.begin_pass(cb, pass, (width, height));
        // SAFETY: `cb` is recording inside the pass; the buffers belong to
        // this device and live until the submission ended.
        unsafe {
            let device = &self.device;
            if let Some(vb) = vertices.first() {
                device.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
            }
            match (g.indices, vertices.get(1)) {
                (Some(_), Some(ib)) => {
                    device.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT32);
                    device.cmd_draw_indexed(cb, g.count, g.instances, 0, 0, 0);
                }
                _ => device.cmd_draw(cb, g.count, g.instances, 0, 0),
            }
            device.cmd_end_render_pass(cb);
        }
        for img in images
            .iter()
            .chain(bound.images.iter().filter(|i| i.usage == Use::Storage))
        {
            self.record_download(cb, img);
        }
        for (k, r) in &pass.readbacks {
            self.record_readback(cb, &images[*k], r);
        }
    }
}

impl Device {
    /// The pass writing a multisampled target whose samples differ from
    /// its staging buffer's words (each sample's, of `class`): a
    /// full-target triangle shaded per sample (the fragment shader reads
    /// SAMPLEID) by a TGSI shader translated like any other, writing the
    /// sample's colour, or its depth with the test always passing.
    fn upload_pass(
        &self,
        img: &DeviceImage,
        class: NumClass,
        (width, height): (u32, u32),
    ) -> Result<Pass, Error> {
        let depth = img.usage == Use::Depth;
        let (out, write) = if depth {
            ("DCL OUT[0], POSITION", "MOV OUT[0].z, TEMP[1].xxxx")
        } else {
            ("DCL OUT[0], COLOR", "MOV OUT[0], TEMP[1]")
        };
        let samples = img.samples;
        let text = format!(
            "FRAG
DCL IN[0], POSITION, LINEAR
DCL SV[0], SAMPLEID
DCL BUFFER[0]
{out}
DCL TEMP[0..1]
IMM[0] UINT32 {{{width}, {samples}, 16, 0}}
F2U TEMP[0].xy, IN[0].xyyy
UMAD TEMP[0].x, TEMP[0].yyyy, IMM[0].xxxx, TEMP[0].xxxx
UMAD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy, SV[0].xxxx
UMUL TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz
LOAD TEMP[1], BUFFER[0], TEMP[0].xxxx
{write}
END
"
        );
        let shader = super::multisample::helper_shader("upload", &text)?;
        let integer = matches!(class, NumClass::Uint | NumClass::Sint);
        let options = tgsi_spirv::Options {
            integer_colors: u8::from(integer),
            signed_colors: u8::from(class == NumClass::Sint),
            ..self.options(false)
        };
        let fs = tgsi_spirv::to_spirv(&shader, &options)?;
        let vs = tgsi_spirv::quad_vertex_shader(&shader, width, height, &[])?;
        // the staging buffer where the module reads it (borrowed handles:
        // this `Bound` is never released)
        let bound = Bound {
            buffers: vec![img.staging_as_buffer_0()],
            ..Bound::default()
        };
        let mut state = RenderState {
            cull: CullMode::None,
            ..RenderState::default()
        };
        state.depth.enabled = depth;
        state.depth.func = CompareFunc::Always;
        state.depth.write = depth;
        let g = Geometry {
            rows: &[],
            topology: BasicTopology::TriangleList,
            count: 3,
            instances: 1,
            indices: None,
            state: Some(&state),
            colors_written: u8::from(!depth),
            geometry: None,
            tessellation: None,
            discard: false,
        };
        let target = [img.attachment_alias()];
        let mut pass = Pass::default();
        if let Err(e) = pass.make(self, &vs, &fs, &bound, &target, &g, (width, height)) {
            pass.destroy(self);
            return Err(e);
        }
        Ok(pass)
    }

    /// Records a pass of a full-target triangle (an upload pass).
    fn record_full_pass(&self, cb: vk::CommandBuffer, pass: &Pass, size: (u32, u32)) {
        self.begin_pass(cb, pass, size);
        // SAFETY: `cb` is recording inside the pass.
        unsafe {
            self.device.cmd_draw(cb, 3, 1, 0, 0);
            self.device.cmd_end_render_pass(cb);
        }
    }

    /// Records the start of `pass` over the whole target: its pipeline,
    /// descriptor set and push constants bound.
    fn begin_pass(&self, cb: vk::CommandBuffer, pass: &Pass, (width, height): (u32, u32)) {
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass.render_pass)
            .framebuffer(pass.framebuffer)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent: vk::Extent2D { width, height },
            });
        // SAFETY: `cb` is recording outside a render pass; the pass,
        // framebuffer, pipeline and set belong to this device and live
        // until the submission ended.
        unsafe {
            let device = &self.device;
            device.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pass.pipeline);
            device.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::GRAPHICS,
                pass.descriptors.layout,
                0,
                &[pass.descriptors.set],
                &[],
            );
            device.cmd_push_constants(
                cb,
                pass.descriptors.layout,
                vk::ShaderStageFlags::ALL,
                0,
                &super::USER_DATA,
            );
        }
    }
}

/// Refuses targets the device engine does not draw into yet.
fn check_targets(targets: &[Texture]) -> Result<(), Error> {
    for t in targets {
        let name = t.format.short_name();
        if t.format == Format::Rg11b10Float {
            return Err(Error::Unsupported(format!(
                "render target format {name}: Vulkan leaves the rounding into 11- and 10-bit \
                 floats to the device (this one rounds toward zero and clamps, as Direct3D; \
                 TGSI rounds to nearest and overflows to infinity)"
            )));
        }
    }
    Ok(())
}

/// The `COLOR[k]` outputs a fragment shader declares (bit k).
fn colors_written(fragment: &Shader) -> u8 {
    let mut mask = 0u8;
    for d in fragment.declarations() {
        if d.file == tgsi_ir::enums::File::Output
            && let Some(s) = d.semantic
            && s.name == tgsi_ir::enums::SemanticName::Color
        {
            for k in s.index..=s.index + (d.last - d.first) {
                if k < 8 {
                    mask |= 1 << k;
                }
            }
        }
    }
    mask
}

/// The targets of integer formats (bit k for target k) and of those the
/// signed ones: their colour outputs are written as integers.
fn integer_targets(targets: &[Texture]) -> (u8, u8) {
    let (mut integer, mut signed) = (0u8, 0u8);
    for (k, t) in targets.iter().enumerate().take(8) {
        match t.format.num_class() {
            NumClass::Uint => integer |= 1 << k,
            NumClass::Sint => {
                integer |= 1 << k;
                signed |= 1 << k;
            }
            _ => {}
        }
    }
    (integer, signed)
}

/// The vertex buffer (each row's registers, 16 bytes each, padded with
/// zero rows up to the vertices the draw names) and the index buffer.
fn vertex_bytes(g: &Geometry) -> Result<(Vec<u8>, Option<Vec<u8>>), Error> {
    let regs = g.rows.first().map_or(1, |r| r.len().max(1));
    let restarts = g.tessellation.is_none() && g.topology.restarts();
    let needed = match g.indices {
        Some(ix) => ix
            .iter()
            .take(g.count as usize)
            .filter(|&&i| !(restarts && i == tgsi_pipeline::RESTART))
            .map(|&i| i as usize + 1)
            .max()
            .unwrap_or(0),
        None => g.count as usize,
    };
    // the rows past the given ones are zeros the buffer holds, up to a
    // buffer of PADDED_VERTICES vertices
    if needed > g.rows.len().max(PADDED_VERTICES) {
        return Err(Error::Unsupported(format!(
            "index {} is past the {} vertex rows, and the engine pads the vertex buffer to {PADDED_VERTICES} vertices at most",
            needed - 1,
            g.rows.len()
        )));
    }
    let n = needed.max(g.rows.len()).max(1);
    let mut vb = Vec::with_capacity(n * regs * 16);
    for v in 0..n {
        for r in 0..regs {
            let words = g
                .rows
                .get(v)
                .and_then(|row| row.get(r))
                .copied()
                .unwrap_or([0; 4]);
            for w in words {
                vb.extend_from_slice(&w.to_le_bytes());
            }
        }
    }
    let ib = g.indices.map(|ix| {
        let mut b: Vec<u8> = ix
            .iter()
            .take(g.count as usize)
            .flat_map(|i| i.to_le_bytes())
            .collect();
        b.resize(g.count as usize * 4, 0);
        b
    });
    Ok((vb, ib))
}

/// The most vertices a draw's vertex buffer is padded to with zero rows
/// (for indices past the given rows).
const PADDED_VERTICES: usize = 1 << 16;

fn topology(t: BasicTopology) -> vk::PrimitiveTopology {
    use BasicTopology as T;
    use vk::PrimitiveTopology as P;
    match t {
        T::PointList => P::POINT_LIST,
        T::LineList => P::LINE_LIST,
        T::LineStrip => P::LINE_STRIP,
        T::TriangleList => P::TRIANGLE_LIST,
        T::TriangleStrip => P::TRIANGLE_STRIP,
        T::TriangleFan => P::TRIANGLE_FAN,
        T::LineListAdj => P::LINE_LIST_WITH_ADJACENCY,
        T::LineStripAdj => P::LINE_STRIP_WITH_ADJACENCY,
        T::TriangleListAdj => P::TRIANGLE_LIST_WITH_ADJACENCY,
        T::TriangleStripAdj => P::TRIANGLE_STRIP_WITH_ADJACENCY,
    }
}

fn compare_op(f: CompareFunc) -> vk::CompareOp {
    match f {
        CompareFunc::Never => vk::CompareOp::NEVER,
        CompareFunc::Less => vk::CompareOp::LESS,
        CompareFunc::Equal => vk::CompareOp::EQUAL,
        CompareFunc::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
        CompareFunc::Greater => vk::CompareOp::GREATER,
        CompareFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
        CompareFunc::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
        CompareFunc::Always => vk::CompareOp::ALWAYS,
    }
}

fn blend_factor(f: BlendFactor) -> vk::BlendFactor {
    use BlendFactor as B;
    use vk::BlendFactor as V;
    match f {
        B::Zero => V::ZERO,
        B::One => V::ONE,
        B::SrcColor => V::SRC_COLOR,
        B::InvSrcColor => V::ONE_MINUS_SRC_COLOR,
        B::SrcAlpha => V::SRC_ALPHA,
        B::InvSrcAlpha => V::ONE_MINUS_SRC_ALPHA,
        B::DstColor => V::DST_COLOR,
        B::InvDstColor => V::ONE_MINUS_DST_COLOR,
        B::DstAlpha => V::DST_ALPHA,
        B::InvDstAlpha => V::ONE_MINUS_DST_ALPHA,
        B::SrcAlphaSat => V::SRC_ALPHA_SATURATE,
        B::BlendFactor => V::CONSTANT_COLOR,
        B::InvBlendFactor => V::ONE_MINUS_CONSTANT_COLOR,
    }
}

fn blend_op(o: BlendOp) -> vk::BlendOp {
    match o {
        BlendOp::Add => vk::BlendOp::ADD,
        BlendOp::Subtract => vk::BlendOp::SUBTRACT,
        BlendOp::RevSubtract => vk::BlendOp::REVERSE_SUBTRACT,
        BlendOp::Min => vk::BlendOp::MIN,
        BlendOp::Max => vk::BlendOp::MAX,
    }
}

/// (viewport, scissor) of a pass over a `width` × `height` target. A draw
/// (a render state) flips the viewport upside down: its clip space has y
/// up, as Direct3D's and Gallium's, where Vulkan's has y down; the
/// quad's vertex shader is written for Vulkan's.
fn view_rects(state: Option<&RenderState>, width: u32, height: u32) -> (vk::Viewport, vk::Rect2D) {
    let v = state.map_or(tgsi_pipeline::Viewport::full(width, height), |s| {
        tgsi_pipeline::setup::viewport_of(s, width, height)
    });
    // a draw's clip space has y up: the viewport upside down
    let (y, h) = if state.is_some() {
        (v.y + v.height, -v.height)
    } else {
        (v.y, v.height)
    };
    let viewport = vk::Viewport {
        x: v.x,
        y,
        width: v.width,
        height: h,
        min_depth: v.min_depth,
        max_depth: v.max_depth,
    };
    // the pixels the machine draws: target ∩ viewport ∩ scissor, with its
    // pixel-centre rounding
    let [x0, y0, x1, y1] = match state {
        Some(s) => tgsi_pipeline::setup::raster_rect(s, width, height),
        None => [0, 0, width as i64, height as i64],
    };
    let scissor = vk::Rect2D {
        offset: vk::Offset2D {
            x: x0 as i32,
            y: y0 as i32,
        },
        extent: vk::Extent2D {
            width: (x1 - x0).max(0) as u32,
            height: (y1 - y0).max(0) as u32,
        },
    };
    (viewport, scissor)
}

impl Pass {
    #[allow(clippy::too_many_arguments)]
    fn make(
        &mut self,
        dev: &Device,
        vs: &[u32],
        fs: &[u32],
        bound: &Bound,
        images: &[DeviceImage],
        g: &Geometry,
        (width, height): (u32, u32),
    ) -> Result<(), Error> {
        self.descriptors.make(dev, bound)?;
        self.make_render_pass(dev, images, width, height)?;
        self.make_modules(dev, vs, fs, g)?;
        let colors: Vec<&DeviceImage> = images
            .iter()
            .filter(|i| i.usage == Use::Attachment)
            .collect();
        let has_depth = images.iter().any(|i| i.usage == Use::Depth);
        // the machine tests the stencil only where the target has one
        let has_stencil = images
            .iter()
            .any(|i| i.usage == Use::Depth && i.has_stencil());
        let (viewport, scissor) = view_rects(g.state, width, height);
        let (viewport, scissor) = ([viewport], [scissor]);
        let blend = blend_states(g, &colors);
        let regs = g.rows.first().map_or(0, |r| r.len()) as u32;
        let vertex_bindings = [vk::VertexInputBindingDescription::default()
            .binding(0)
            .stride(16 * regs.max(1))
            .input_rate(vk::VertexInputRate::VERTEX)];
        let vertex_attributes: Vec<vk::VertexInputAttributeDescription> = (0..regs)
            .map(|r| {
                vk::VertexInputAttributeDescription::default()
                    .location(r)
                    .binding(0)
                    .format(vk::Format::R32G32B32A32_SFLOAT)
                    .offset(16 * r)
            })
            .collect();
        let state = g.state.cloned().unwrap_or_default();
        let stage = |flag, module| {
            vk::PipelineShaderStageCreateInfo::default()
                .stage(flag)
                .module(module)
                .name(c"main")
        };
        let mut stages = vec![stage(vk::ShaderStageFlags::VERTEX, self.vertex)];
        let target_samples = images.first().map_or(1, |i| i.samples);
        let (constant_entries, constant_bytes) = target_constants(height, target_samples);
        let fragment_constants = vk::SpecializationInfo::default()
            .map_entries(&constant_entries)
            .data(&constant_bytes);
        if self.fragment != vk::ShaderModule::null() {
            stages.push(
                stage(vk::ShaderStageFlags::FRAGMENT, self.fragment)
                    .specialization_info(&fragment_constants),
            );
        }
        if g.geometry.is_some() {
            stages.push(stage(vk::ShaderStageFlags::GEOMETRY, self.geometry));
        }
        if g.tessellation.is_some() {
            stages.push(stage(
                vk::ShaderStageFlags::TESSELLATION_CONTROL,
                self.control,
            ));
            stages.push(stage(
                vk::ShaderStageFlags::TESSELLATION_EVALUATION,
                self.eval,
            ));
        }
        // TGSI's tessellation coordinates are OpenGL's (v up)
        let mut origin = vk::PipelineTessellationDomainOriginStateCreateInfo::default()
            .domain_origin(vk::TessellationDomainOrigin::LOWER_LEFT);
        let tess_state = vk::PipelineTessellationStateCreateInfo::default()
            .patch_control_points(g.tessellation.as_ref().map_or(1, |t| t.patch_vertices))
            .push_next(&mut origin);
        let mut vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        if regs > 0 {
            vertex_input = vertex_input
                .vertex_binding_descriptions(&vertex_bindings)
                .vertex_attribute_descriptions(&vertex_attributes);
        }
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(match g.tessellation {
                Some(_) => vk::PrimitiveTopology::PATCH_LIST,
                None => topology(g.topology),
            })
            .primitive_restart_enable(
                g.indices.is_some() && g.tessellation.is_none() && g.topology.restarts(),
            );
        let viewports = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewport)
            .scissors(&scissor);
        // the quad's covering triangle is clockwise on the target
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(match state.cull {
                CullMode::None => vk::CullModeFlags::NONE,
                CullMode::Front => vk::CullModeFlags::FRONT,
                CullMode::Back => vk::CullModeFlags::BACK,
            })
            .front_face(match state.front {
                FrontFace::Clockwise => vk::FrontFace::CLOCKWISE,
                FrontFace::CounterClockwise => vk::FrontFace::COUNTER_CLOCKWISE,
            })
            .line_width(1.0)
            .rasterizer_discard_enable(g.discard);
        let samples = images.first().map_or(1, |i| i.samples);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(sample_count(samples)?);
        let depth_state = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(state.depth.enabled)
            .depth_write_enable(state.depth.enabled && state.depth.write)
            .depth_compare_op(compare_op(state.depth.func))
            .stencil_test_enable(state.stencil.enabled && has_stencil)
            .front(stencil_face(&state.stencil, &state.stencil.front))
            .back(stencil_face(&state.stencil, &state.stencil.back));
        let blending = vk::PipelineColorBlendStateCreateInfo::default()
            .attachments(&blend)
            .blend_constants(state.blend_factor);
        let mut ci = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewports)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blending)
            .layout(self.descriptors.layout)
            .render_pass(self.render_pass)
            .subpass(0);
        if has_depth {
            ci = ci.depth_stencil_state(&depth_state);
        }
        if g.tessellation.is_some() {
            ci = ci.tessellation_state(&tess_state);
        }
        // SAFETY: a valid create info whose states and arrays live across
        // the call, with modules, layout and render pass of this device;
        // the pipeline is stored in `self` for `destroy`.
        self.pipeline = unsafe {
            dev.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
                .map_err(|(_, e)| Error::Device(format!("vkCreateGraphicsPipelines: {e}")))?[0]
        };
        Ok(())
    }

    /// The render pass over the colour targets (and the depth target, the
    /// last image), loaded and stored, and its framebuffer.
    fn make_render_pass(
        &mut self,
        dev: &Device,
        images: &[DeviceImage],
        width: u32,
        height: u32,
    ) -> Result<(), Error> {
        let colors = images.iter().filter(|i| i.usage == Use::Attachment).count() as u32;
        let depth = images.iter().any(|i| i.usage == Use::Depth);
        let attachments: Vec<vk::AttachmentDescription> = images
            .iter()
            .map(|t| {
                let layout = t.layout();
                vk::AttachmentDescription::default()
                    .format(t.format())
                    .samples(sample_count(t.samples).unwrap_or(vk::SampleCountFlags::TYPE_1))
                    .load_op(vk::AttachmentLoadOp::LOAD)
                    .store_op(vk::AttachmentStoreOp::STORE)
                    .stencil_load_op(vk::AttachmentLoadOp::LOAD)
                    .stencil_store_op(vk::AttachmentStoreOp::STORE)
                    .initial_layout(layout)
                    .final_layout(layout)
            })
            .collect();
        let refs: Vec<vk::AttachmentReference> = (0..colors)
            .map(|k| {
                vk::AttachmentReference::default()
                    .attachment(k)
                    .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            })
            .collect();
        let depth_ref = vk::AttachmentReference::default()
            .attachment(colors)
            .layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
        let mut subpass = vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&refs);
        if depth {
            subpass = subpass.depth_stencil_attachment(&depth_ref);
        }
        let subpasses = [subpass];
        let views: Vec<vk::ImageView> = images.iter().map(|t| t.view).collect();
        // SAFETY: valid create infos whose arrays live across the calls,
        // image views of this device; both objects are stored in `self`
        // for `destroy`.
        unsafe {
            self.render_pass = dev
                .device
                .create_render_pass(
                    &vk::RenderPassCreateInfo::default()
                        .attachments(&attachments)
                        .subpasses(&subpasses),
                    None,
                )
                .map_err(vkerr("vkCreateRenderPass"))?;
            self.framebuffer = dev
                .device
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
        }
        Ok(())
    }

    /// The vertex, fragment and (when there are) geometry and tessellation
    /// modules.
    fn make_modules(
        &mut self,
        dev: &Device,
        vs: &[u32],
        fs: &[u32],
        g: &Geometry,
    ) -> Result<(), Error> {
        let module = |words: &[u32], what: &'static str| {
            // SAFETY: a valid create info over the module's words.
            unsafe {
                dev.device
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
            }
            .map_err(vkerr(what))
        };
        self.vertex = module(vs, "vkCreateShaderModule (vertex)")?;
        if !fs.is_empty() {
            self.fragment = module(fs, "vkCreateShaderModule (fragment)")?;
        }
        if let Some((_, words)) = &g.geometry {
            self.geometry = module(words, "vkCreateShaderModule (geometry)")?;
        }
        if let Some(t) = &g.tessellation {
            self.control = module(&t.words[0], "vkCreateShaderModule (tessellation control)")?;
            self.eval = module(
                &t.words[1],
                "vkCreateShaderModule (tessellation evaluation)",
            )?;
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
            dev.device.destroy_shader_module(self.geometry, None);
            dev.device.destroy_shader_module(self.control, None);
            dev.device.destroy_shader_module(self.eval, None);
            dev.device.destroy_shader_module(self.vertex, None);
        }
        self.descriptors.destroy(dev);
        for (_, r) in &self.readbacks {
            dev.destroy_readback(r);
        }
        for p in &self.uploads {
            p.destroy(dev);
        }
    }
}

/// The blend state of each colour target: the render state's (none for a
/// quad), never blending an integer target, and writing nothing into a
/// target the fragment shader has no colour for (it keeps its texels).
fn blend_states(
    g: &Geometry,
    colors: &[&DeviceImage],
) -> Vec<vk::PipelineColorBlendAttachmentState> {
    (0..colors.len())
        .map(|k| {
            let mut b = g.state.map(|s| s.blend[k]).unwrap_or_default();
            if matches!(
                colors[k].machine_format().num_class(),
                NumClass::Uint | NumClass::Sint
            ) {
                b.enabled = false;
            }
            let written = k < 8 && g.colors_written >> k & 1 == 1;
            let mask = if written {
                vk::ColorComponentFlags::from_raw(u32::from(b.write_mask) & 0xF)
            } else {
                vk::ColorComponentFlags::empty()
            };
            vk::PipelineColorBlendAttachmentState::default()
                .blend_enable(b.enabled)
                .src_color_blend_factor(blend_factor(b.src))
                .dst_color_blend_factor(blend_factor(b.dst))
                .color_blend_op(blend_op(b.op))
                .src_alpha_blend_factor(blend_factor(b.src_alpha.for_alpha()))
                .dst_alpha_blend_factor(blend_factor(b.dst_alpha.for_alpha()))
                .alpha_blend_op(blend_op(b.op_alpha))
                .color_write_mask(mask)
        })
        .collect()
}

/// The fragment shader's specialization constants: the target's `height`
/// (a lower-left fragment origin) and its `samples` (SAMPLE_INFO and
/// SAMPLE_POS on the render target), as map entries and their bytes.
fn target_constants(height: u32, samples: u32) -> ([vk::SpecializationMapEntry; 2], [u8; 8]) {
    let entry = |constant_id, offset| vk::SpecializationMapEntry {
        constant_id,
        offset,
        size: 4,
    };
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&height.to_le_bytes());
    bytes[4..].copy_from_slice(&samples.to_le_bytes());
    (
        [
            entry(tgsi_spirv::TARGET_HEIGHT_SPEC_ID, 0),
            entry(tgsi_spirv::TARGET_SAMPLES_SPEC_ID, 4),
        ],
        bytes,
    )
}

/// One face's stencil state (reference, masks, function and operations).
fn stencil_face(s: &StencilState, face: &StencilFace) -> vk::StencilOpState {
    let op = |o: StencilOp| match o {
        StencilOp::Keep => vk::StencilOp::KEEP,
        StencilOp::Zero => vk::StencilOp::ZERO,
        StencilOp::Replace => vk::StencilOp::REPLACE,
        StencilOp::IncrSat => vk::StencilOp::INCREMENT_AND_CLAMP,
        StencilOp::DecrSat => vk::StencilOp::DECREMENT_AND_CLAMP,
        StencilOp::Invert => vk::StencilOp::INVERT,
        StencilOp::Incr => vk::StencilOp::INCREMENT_AND_WRAP,
        StencilOp::Decr => vk::StencilOp::DECREMENT_AND_WRAP,
    };
    vk::StencilOpState::default()
        .fail_op(op(face.fail))
        .pass_op(op(face.pass))
        .depth_fail_op(op(face.depth_fail))
        .compare_op(compare_op(face.func))
        .compare_mask(s.read_mask.into())
        .write_mask(s.write_mask.into())
        .reference(s.reference.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry<'a>(
        rows: &'a [Vec<[u32; 4]>],
        topology: BasicTopology,
        indices: &'a [u32],
    ) -> Geometry<'a> {
        Geometry {
            rows,
            topology,
            count: indices.len() as u32,
            instances: 1,
            indices: Some(indices),
            state: None,
            colors_written: 1,
            geometry: None,
            tessellation: None,
            discard: false,
        }
    }

    #[test]
    fn a_strip_restart_index_is_not_a_vertex() {
        let rows = vec![vec![[1, 2, 3, 4]]; 4];
        let ix = [0, 1, 2, tgsi_pipeline::RESTART, 1, 2, 3];
        let (vb, ib) = vertex_bytes(&geometry(&rows, BasicTopology::TriangleStrip, &ix))
            .expect("the restart index is no vertex");
        assert_eq!(vb.len(), 4 * 16);
        assert_eq!(ib.map(|b| b.len()), Some(7 * 4));
    }

    #[test]
    fn an_index_far_past_the_rows_is_refused() {
        let rows = vec![vec![[0; 4]]; 3];
        // in a list the restart value is an index like another
        let ix = [0, 1, tgsi_pipeline::RESTART];
        let e = vertex_bytes(&geometry(&rows, BasicTopology::TriangleList, &ix))
            .expect_err("4G vertices are not padded");
        assert!(e.to_string().contains("index 4294967295 is past"), "{e}");
        // a few zero rows past the given ones are
        let ix = [0, 1, 9];
        let (vb, _) = vertex_bytes(&geometry(&rows, BasicTopology::TriangleList, &ix)).unwrap();
        assert_eq!(vb.len(), 10 * 16);
    }
}
