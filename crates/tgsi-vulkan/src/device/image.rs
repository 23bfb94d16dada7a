//! Textures, storage images and samplers on the device: a machine
//! [`Texture`] becomes a `VkImage` (every level for a sampled view, level 0
//! for a storage image) filled from a staging buffer inside the dispatch's
//! command buffer, seen through a view of the machine's [`View`]; a storage
//! image is copied back to the staging buffer after the dispatch and read
//! into the texture. A machine [`Sampler`] becomes a `VkSampler` where
//! Vulkan has its state (otherwise the run is refused, naming it).

use super::super::Error;
use super::{Device, vkerr};
use ash::vk;
use tgsi_exec::texture::{
    CompareFunc, Filter, Format, MipFilter, Sampler, Swizzle, Texture, View, Wrap,
};
use tgsi_ir::enums::TextureTarget;
use tgsi_pipeline::{DepthFormat, DepthTarget};

/// The Vulkan format of a machine format, when Vulkan has one.
pub(super) fn vk_format(f: Format) -> Option<vk::Format> {
    use Format as F;
    use vk::Format as V;
    Some(match f {
        F::R8Unorm => V::R8_UNORM,
        F::Rg8Unorm => V::R8G8_UNORM,
        F::Rgba8Unorm => V::R8G8B8A8_UNORM,
        F::R8Snorm => V::R8_SNORM,
        F::Rg8Snorm => V::R8G8_SNORM,
        F::Rgba8Snorm => V::R8G8B8A8_SNORM,
        F::R8Uint => V::R8_UINT,
        F::Rg8Uint => V::R8G8_UINT,
        F::Rgba8Uint => V::R8G8B8A8_UINT,
        F::R8Sint => V::R8_SINT,
        F::Rg8Sint => V::R8G8_SINT,
        F::Rgba8Sint => V::R8G8B8A8_SINT,
        F::R16Unorm => V::R16_UNORM,
        F::Rg16Unorm => V::R16G16_UNORM,
        F::Rgba16Unorm => V::R16G16B16A16_UNORM,
        F::R16Snorm => V::R16_SNORM,
        F::Rg16Snorm => V::R16G16_SNORM,
        F::Rgba16Snorm => V::R16G16B16A16_SNORM,
        F::R16Uint => V::R16_UINT,
        F::Rg16Uint => V::R16G16_UINT,
        F::Rgba16Uint => V::R16G16B16A16_UINT,
        F::R16Sint => V::R16_SINT,
        F::Rg16Sint => V::R16G16_SINT,
        F::Rgba16Sint => V::R16G16B16A16_SINT,
        F::R16Float => V::R16_SFLOAT,
        F::Rg16Float => V::R16G16_SFLOAT,
        F::Rgba16Float => V::R16G16B16A16_SFLOAT,
        F::R32Uint => V::R32_UINT,
        F::Rg32Uint => V::R32G32_UINT,
        F::Rgb32Uint => V::R32G32B32_UINT,
        F::Rgba32Uint => V::R32G32B32A32_UINT,
        F::R32Sint => V::R32_SINT,
        F::Rg32Sint => V::R32G32_SINT,
        F::Rgb32Sint => V::R32G32B32_SINT,
        F::Rgba32Sint => V::R32G32B32A32_SINT,
        F::R32Float => V::R32_SFLOAT,
        F::Rg32Float => V::R32G32_SFLOAT,
        F::Rgb32Float => V::R32G32B32_SFLOAT,
        F::Rgba32Float => V::R32G32B32A32_SFLOAT,
        F::Rgba8Srgb => V::R8G8B8A8_SRGB,
        F::R8Srgb => V::R8_SRGB,
        F::Rg8Srgb => V::R8G8_SRGB,
        F::Bgra8Unorm => V::B8G8R8A8_UNORM,
        F::Bgra8Srgb => V::B8G8R8A8_SRGB,
        F::Rgb10a2Unorm => V::A2B10G10R10_UNORM_PACK32,
        F::Rgb10a2Uint => V::A2B10G10R10_UINT_PACK32,
        F::Rg11b10Float => V::B10G11R11_UFLOAT_PACK32,
        F::Z32Float => V::D32_SFLOAT,
        F::Z16Unorm => V::D16_UNORM,
        _ => return None,
    })
}

/// The image type, view type and layer count of a texture target.
fn image_kind(t: &Texture) -> Result<(vk::ImageType, vk::ImageViewType, bool), Error> {
    use TextureTarget as T;
    Ok(match t.target {
        T::Tex1D | T::Shadow1D => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D, false),
        T::Array1D | T::Shadow1DArray => (
            vk::ImageType::TYPE_1D,
            vk::ImageViewType::TYPE_1D_ARRAY,
            false,
        ),
        T::Tex2D | T::Shadow2D | T::Rect | T::ShadowRect | T::Msaa2D => {
            (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D, false)
        }
        T::Array2D | T::Shadow2DArray | T::Msaa2DArray => (
            vk::ImageType::TYPE_2D,
            vk::ImageViewType::TYPE_2D_ARRAY,
            false,
        ),
        T::Cube | T::ShadowCube => (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE, true),
        T::CubeArray | T::ShadowCubeArray => {
            (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE_ARRAY, true)
        }
        T::Tex3D => (vk::ImageType::TYPE_3D, vk::ImageViewType::TYPE_3D, false),
        other => {
            return Err(Error::Unsupported(format!(
                "{other} textures are not bound by the Vulkan engine yet"
            )));
        }
    })
}

/// What an image on the device is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Use {
    /// A texture shaders sample (every level).
    Sampled,
    /// An `IMAGE` shaders load and store (level 0, read back).
    Storage,
    /// A render target (level 0, read back).
    Attachment,
    /// A depth target (level 0, read back).
    Depth,
}

/// A machine texture on the device.
pub(super) struct DeviceImage {
    image: vk::Image,
    memory: vk::DeviceMemory,
    pub(super) view: vk::ImageView,
    /// Every level's bytes, one after the other (level 0 alone for a
    /// storage image); read back from it after the dispatch.
    staging: super::Buffer,
    /// (level, byte offset, width, height, depth or layers) of each level.
    levels: Vec<(u32, u64, u32, u32, u32)>,
    layered: bool,
    aspect: vk::ImageAspectFlags,
    /// Where the stencil bytes start in the staging buffer (a
    /// depth-stencil target; the depths come first).
    stencil_offset: Option<u64>,
    /// Samples per texel; a multisampled image is filled by a clear
    /// ([`Self::clear`]) and read back by a compute pass
    /// (`multisample.rs`) into its staging buffer, a word quadruple per
    /// sample.
    pub(super) samples: u32,
    /// What a multisampled image is cleared to (its contents are one value).
    pub(super) clear: Option<Clear>,
    /// A multisampled target whose samples differ: its staging buffer
    /// holds each sample's words, which an upload pass writes into it
    /// (`draw.rs`).
    pub(super) fill: bool,
    /// A multisampled image's view for the readback pass (one aspect).
    pub(super) sample_view: vk::ImageView,
    pub(super) usage: Use,
    pub(super) binding: u32,
    /// `IMAGE[n]`, read back into the resources.
    pub(super) readback: Option<usize>,
    format: vk::Format,
    machine_format: Format,
}

/// The one value a multisampled image holds when it is made.
#[derive(Clone, Copy)]
pub(super) enum Clear {
    Color(vk::ClearColorValue),
    DepthStencil(vk::ClearDepthStencilValue),
}

impl DeviceImage {
    /// The layout shaders see the image in.
    pub(super) fn layout(&self) -> vk::ImageLayout {
        match self.usage {
            Use::Sampled => vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            Use::Storage => vk::ImageLayout::GENERAL,
            Use::Attachment => vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            Use::Depth => vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        }
    }

    /// The image (for barriers).
    pub(super) fn handle(&self) -> vk::Image {
        self.image
    }

    /// The image seen through its one-aspect multisample view as a sampled
    /// image at `binding`, sharing this image's handles (for the readback
    /// pass's descriptors; never destroyed itself).
    pub(super) fn sampled_alias(&self, binding: u32) -> DeviceImage {
        DeviceImage {
            image: self.image,
            memory: vk::DeviceMemory::null(),
            view: self.sample_view,
            staging: super::Buffer {
                buffer: vk::Buffer::null(),
                memory: vk::DeviceMemory::null(),
                size: 0,
                binding,
                readback: None,
            },
            levels: Vec::new(),
            layered: self.layered,
            aspect: self.aspect,
            stencil_offset: None,
            samples: self.samples,
            clear: None,
            fill: false,
            sample_view: vk::ImageView::null(),
            usage: Use::Sampled,
            binding,
            readback: None,
            format: self.format,
            machine_format: self.machine_format,
        }
    }

    /// The image as the attachment it is, sharing this image's handles
    /// (the upload pass's target; never destroyed itself).
    pub(super) fn attachment_alias(&self) -> DeviceImage {
        DeviceImage {
            view: self.view,
            usage: self.usage,
            ..self.sampled_alias(self.binding)
        }
    }

    /// The staging buffer (the multisample readback pass writes it).
    pub(super) fn staging(&self) -> &super::Buffer {
        &self.staging
    }

    /// The staging buffer seen as `BUFFER[0]` of a helper pass (the
    /// multisample upload and readback passes), sharing its handles (never
    /// freed itself).
    pub(super) fn staging_as_buffer_0(&self) -> super::Buffer {
        super::Buffer {
            buffer: self.staging.buffer,
            memory: self.staging.memory,
            size: self.staging.size,
            binding: tgsi_spirv::buffer_binding(0),
            readback: None,
        }
    }

    /// Whether the image has a stencil aspect (a d24s8 depth target).
    pub(super) fn has_stencil(&self) -> bool {
        self.stencil_offset.is_some()
    }

    /// The format the image was made with.
    pub(super) fn format(&self) -> vk::Format {
        self.format
    }

    /// The machine format the image holds.
    pub(super) fn machine_format(&self) -> Format {
        self.machine_format
    }
}

impl Device {
    /// Refuses a texture format the device cannot hold as a `usage` image.
    fn check_format(&self, tex: &Texture, format: vk::Format, usage: Use) -> Result<(), Error> {
        let want = match usage {
            Use::Sampled => vk::FormatFeatureFlags::SAMPLED_IMAGE,
            Use::Storage => vk::FormatFeatureFlags::STORAGE_IMAGE,
            Use::Attachment => vk::FormatFeatureFlags::COLOR_ATTACHMENT,
            Use::Depth => vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT,
        };
        // SAFETY: the physical device belongs to the instance.
        let props = unsafe {
            self.instance
                .get_physical_device_format_properties(self.physical, format)
        };
        if !props.optimal_tiling_features.contains(want) {
            return Err(Error::Unsupported(format!(
                "{} cannot hold texture format {} as a {} image",
                self.name,
                tex.format.short_name(),
                match usage {
                    Use::Sampled => "sampled",
                    Use::Storage => "storage",
                    Use::Attachment => "render target",
                    Use::Depth => "depth target",
                }
            )));
        }
        Ok(())
    }

    /// Creates `tex` on the device: a storage image or a render target
    /// (level 0), or a sampled one (its levels, seen through `view`).
    pub(super) fn image(
        &self,
        tex: &Texture,
        view: Option<&View>,
        usage: Use,
        binding: u32,
        readback: Option<usize>,
    ) -> Result<DeviceImage, Error> {
        let storage = usage != Use::Sampled;
        let format = vk_format(tex.format).ok_or_else(|| {
            Error::Unsupported(format!(
                "texture format {} has no Vulkan format",
                tex.format.short_name()
            ))
        })?;
        let samples = tex.samples.max(1);
        if samples > 1 && usage == Use::Storage {
            return Err(Error::Unsupported(
                "multisampled storage images are not bound by the Vulkan engine".into(),
            ));
        }
        if samples > 1 && matches!(tex.format, Format::Z32Float | Format::Z16Unorm) {
            return Err(Error::Unsupported(
                "multisampled depth textures are not bound by the Vulkan engine yet".into(),
            ));
        }
        if samples > 1 && usage == Use::Attachment && tex.level_dims(0).2 > 1 {
            return Err(Error::Unsupported(
                "layered multisampled render targets are not drawn by the Vulkan engine yet".into(),
            ));
        }
        // one value throughout: a clear; else (a render target) an upload
        // pass of each sample's words
        let (clear, fill) = match (samples > 1, uniform_color(tex)) {
            (false, _) => (None, false),
            (true, Ok(c)) => (Some(c), false),
            (true, Err(_)) if usage == Use::Attachment && !tex.format.is_srgb() => (None, true),
            (true, Err(e)) => return Err(e),
        };
        let (image_type, view_type, cube) = image_kind(tex)?;
        self.check_format(tex, format, usage)?;
        let depth_format = matches!(tex.format, Format::Z32Float | Format::Z16Unorm);
        let aspect = if depth_format {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        };
        let nlevels = if storage {
            1
        } else {
            tex.levels.len().max(1) as u32
        };
        let layered = image_type != vk::ImageType::TYPE_3D;
        let (w, h, d) = tex.level_dims(0);
        let (depth, layers) = if layered { (1, d.max(1)) } else { (d, 1) };
        let (mut bytes, levels) = staging_levels(tex, nlevels);
        let mut usage_flags = usage_flags(usage);
        if samples > 1 {
            // the readback pass samples it and writes 16 bytes a sample
            usage_flags |= vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
            self.check_samples(format, usage_flags, samples)?;
            let (w, h, d) = tex.level_dims(0);
            let words = w as usize * h as usize * d as usize * samples as usize * 16;
            if fill {
                bytes = sample_words(tex);
            }
            bytes.resize(bytes.len().max(words), 0);
        }
        let ici = vk::ImageCreateInfo::default()
            .flags(if cube {
                vk::ImageCreateFlags::CUBE_COMPATIBLE
            } else {
                vk::ImageCreateFlags::empty()
            })
            .image_type(image_type)
            .format(format)
            .extent(vk::Extent3D {
                width: w,
                height: h,
                depth,
            })
            .mip_levels(nlevels)
            .array_layers(layers)
            .samples(sample_count(samples)?)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage_flags)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let staging = self.host_buffer(&bytes, staging_usage(), binding, None)?;
        let made = DeviceImage {
            image: vk::Image::null(),
            memory: vk::DeviceMemory::null(),
            view: vk::ImageView::null(),
            staging,
            levels,
            layered,
            aspect,
            stencil_offset: None,
            samples,
            clear,
            fill,
            sample_view: vk::ImageView::null(),
            usage,
            binding,
            readback,
            format,
            machine_format: tex.format,
        };
        let (first_level, level_count, first_layer, layer_count, components) =
            view_range(view, usage, nlevels, layers);
        let range = vk::ImageSubresourceRange {
            aspect_mask: aspect,
            base_mip_level: first_level,
            level_count,
            base_array_layer: first_layer,
            layer_count,
        };
        self.allocate(made, &ici, view_type, components, range)
    }

    /// A depth target on the device: d32f and d16 as depth images, d24s8
    /// as a depth-stencil one (`D24_UNORM_S8_UINT`: the machine's 24-bit
    /// codes and stencil bytes as they are), filled from its contents.
    pub(super) fn depth_image(&self, d: &DepthTarget) -> Result<DeviceImage, Error> {
        let n = d.depth.len();
        let (format, mut bytes, aspect) = match d.format {
            DepthFormat::D16 => (
                vk::Format::D16_UNORM,
                d.depth
                    .iter()
                    .flat_map(|w| (*w as u16).to_le_bytes())
                    .collect(),
                vk::ImageAspectFlags::DEPTH,
            ),
            DepthFormat::D32Float => (
                vk::Format::D32_SFLOAT,
                d.depth.iter().flat_map(|w| w.to_le_bytes()).collect(),
                vk::ImageAspectFlags::DEPTH,
            ),
            DepthFormat::D24S8 => (
                vk::Format::D24_UNORM_S8_UINT,
                d.depth
                    .iter()
                    .flat_map(|w| (w & 0xff_ffff).to_le_bytes())
                    .collect::<Vec<u8>>(),
                vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL,
            ),
        };
        let stencil_offset = (d.format == DepthFormat::D24S8).then(|| {
            let at = bytes.len() as u64;
            bytes.extend((0..n).map(|i| d.stencil.get(i).copied().unwrap_or(0)));
            at
        });
        // SAFETY: the physical device belongs to the instance.
        let props = unsafe {
            self.instance
                .get_physical_device_format_properties(self.physical, format)
        };
        if !props
            .optimal_tiling_features
            .contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
        {
            return Err(Error::Unsupported(format!(
                "{} cannot hold a {} depth target",
                self.name,
                d.format.name()
            )));
        }
        let samples = d.samples.max(1);
        if samples > 1 && d.format == DepthFormat::D24S8 {
            return Err(Error::Unsupported(
                "multisampled d24s8 targets are not drawn by the Vulkan engine yet".into(),
            ));
        }
        let (clear, fill) = match (samples > 1, uniform_depth(d)) {
            (false, _) => (None, false),
            (true, Ok(c)) => (Some(c), false),
            (true, Err(_)) if depths_in_range(d) => {
                // the upload pass writes each sample's depth from its words
                bytes = d
                    .depth
                    .iter()
                    .flat_map(|&w| {
                        let x = d.format.dequantize(w).to_bits();
                        [x, 0, 0, 0].into_iter().flat_map(u32::to_le_bytes)
                    })
                    .collect();
                (None, true)
            }
            (true, Err(e)) => return Err(e),
        };
        if samples > 1 {
            // the readback pass writes 16 bytes a sample
            bytes.resize(bytes.len().max(n * 16), 0);
        }
        let mut usage = usage_flags(Use::Depth);
        if samples > 1 {
            usage |= vk::ImageUsageFlags::SAMPLED;
            self.check_samples(format, usage, samples)?;
        }
        let ici = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: d.width,
                height: d.height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(sample_count(samples)?)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let staging = self.host_buffer(&bytes, staging_usage(), 0, None)?;
        let made = DeviceImage {
            image: vk::Image::null(),
            memory: vk::DeviceMemory::null(),
            view: vk::ImageView::null(),
            staging,
            levels: vec![(0, 0, d.width, d.height, 1)],
            layered: true,
            aspect,
            stencil_offset,
            samples,
            clear,
            fill,
            sample_view: vk::ImageView::null(),
            usage: Use::Depth,
            binding: 0,
            readback: None,
            format,
            machine_format: Format::Z32Float,
        };
        let range = vk::ImageSubresourceRange {
            aspect_mask: aspect,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        let identity = vk::ComponentMapping::default();
        self.allocate(made, &ici, vk::ImageViewType::TYPE_2D, identity, range)
    }

    /// Reads a depth target's contents back from the device image made by
    /// [`Self::depth_image`] (after the draw).
    pub(super) fn read_depth(&self, img: &DeviceImage, d: &mut DepthTarget) -> Result<(), Error> {
        let n = d.depth.len();
        if img.samples > 1 {
            // the readback pass's words: each sample's depth in .x
            for (w, s) in d.depth.iter_mut().zip(self.sample_words(img, n)?) {
                *w = d.format.quantize(f32::from_bits(s[0]));
            }
            return Ok(());
        }
        let per = if d.format == DepthFormat::D16 { 2 } else { 4 };
        let stencil = img.stencil_offset.map_or(0, |_| n);
        let bytes = self.image_bytes(img, n * per + stencil)?;
        let (depths, stencils) = bytes.split_at((n * per).min(bytes.len()));
        for (w, b) in d.depth.iter_mut().zip(depths.chunks(per)) {
            *w = b.iter().rev().fold(0u32, |a, &x| (a << 8) | x as u32);
            if d.format == DepthFormat::D24S8 {
                // the copy's top 8 bits are undefined
                *w &= 0xff_ffff;
            }
        }
        if img.stencil_offset.is_some() {
            d.stencil.resize(n, 0);
            for (s, b) in d.stencil.iter_mut().zip(stencils) {
                *s = *b;
            }
        }
        Ok(())
    }

    /// Refuses `samples` per texel where the device has no 2-D `format`
    /// image of that count for `usage`.
    fn check_samples(
        &self,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        samples: u32,
    ) -> Result<(), Error> {
        let want = sample_count(samples)?;
        // SAFETY: the physical device belongs to the instance.
        let props = unsafe {
            self.instance.get_physical_device_image_format_properties(
                self.physical,
                format,
                vk::ImageType::TYPE_2D,
                vk::ImageTiling::OPTIMAL,
                usage,
                vk::ImageCreateFlags::empty(),
            )
        };
        match props {
            Ok(p) if p.sample_counts.contains(want) => Ok(()),
            _ => Err(Error::Unsupported(format!(
                "{} has no {format:?} images of {samples} samples",
                self.name
            ))),
        }
    }

    /// Creates the image, its memory and its view for `made` (whose
    /// staging buffer exists); on an error everything made is freed.
    fn allocate(
        &self,
        mut made: DeviceImage,
        ici: &vk::ImageCreateInfo,
        view_type: vk::ImageViewType,
        components: vk::ComponentMapping,
        range: vk::ImageSubresourceRange,
    ) -> Result<DeviceImage, Error> {
        let format = made.format;
        // SAFETY: valid create infos for this device; each object is stored
        // in `made` as soon as it exists so that `destroy_image` frees it.
        let result = unsafe {
            (|| -> Result<(), Error> {
                made.image = self
                    .device
                    .create_image(ici, None)
                    .map_err(vkerr("vkCreateImage"))?;
                let req = self.device.get_image_memory_requirements(made.image);
                let kind = self
                    .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())
                    .ok_or_else(|| Error::Device("no memory for an image".into()))?;
                made.memory = self
                    .device
                    .allocate_memory(
                        &vk::MemoryAllocateInfo::default()
                            .allocation_size(req.size)
                            .memory_type_index(kind),
                        None,
                    )
                    .map_err(vkerr("vkAllocateMemory"))?;
                self.device
                    .bind_image_memory(made.image, made.memory, 0)
                    .map_err(vkerr("vkBindImageMemory"))?;
                let vci = vk::ImageViewCreateInfo::default()
                    .image(made.image)
                    .view_type(view_type)
                    .format(format)
                    .components(components)
                    .subresource_range(range);
                made.view = self
                    .device
                    .create_image_view(&vci, None)
                    .map_err(vkerr("vkCreateImageView"))?;
                if made.samples > 1 {
                    // one aspect (depth of a depth target) for the readback
                    let mut one = range;
                    if one.aspect_mask.contains(vk::ImageAspectFlags::DEPTH) {
                        one.aspect_mask = vk::ImageAspectFlags::DEPTH;
                    }
                    made.sample_view = self
                        .device
                        .create_image_view(&vci.subresource_range(one), None)
                        .map_err(vkerr("vkCreateImageView"))?;
                }
                Ok(())
            })()
        };
        if let Err(e) = result {
            self.destroy_image(&made);
            return Err(e);
        }
        Ok(made)
    }

    /// Records the staging copy into the image and the move to the layout
    /// shaders read it in.
    pub(super) fn record_upload(&self, cb: vk::CommandBuffer, img: &DeviceImage) {
        if let Some(clear) = img.clear {
            return self.record_clear(cb, img, clear);
        }
        if img.fill {
            // written by its upload pass
            return self.record_to_layout(cb, img);
        }
        let layers = |img: &DeviceImage, ld: u32| if img.layered { ld } else { 1 };
        let regions: Vec<vk::BufferImageCopy> = img
            .levels
            .iter()
            .flat_map(|&(k, offset, w, h, ld)| {
                copy_regions(img, k, offset, w, h, ld, layers(img, ld))
            })
            .collect();
        self.record_transfer_in(cb, img, |device| {
            // SAFETY: `cb` is recording; the image and buffer belong to
            // this device and live until the run's objects are destroyed.
            unsafe {
                device.cmd_copy_buffer_to_image(
                    cb,
                    img.staging.buffer,
                    img.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &regions,
                );
            }
        });
    }

    /// Records a transfer writing a whole image: its move to
    /// `TRANSFER_DST_OPTIMAL` (old contents dropped), `write`, and its move
    /// to the layout its users see it in.
    pub(super) fn record_transfer_in(
        &self,
        cb: vk::CommandBuffer,
        img: &DeviceImage,
        write: impl FnOnce(&ash::Device),
    ) {
        let dst = (
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::AccessFlags::TRANSFER_WRITE,
        );
        let to_dst = layout_barrier(
            img,
            (vk::ImageLayout::UNDEFINED, vk::AccessFlags::empty()),
            dst,
        );
        let to_use = layout_barrier(img, dst, (img.layout(), USE_ACCESS));
        // SAFETY: `cb` is recording; the image belongs to this device and
        // lives until the submission ended.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst],
            );
        }
        write(&self.device);
        // SAFETY: as above.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_use],
            );
        }
    }

    /// Records the copy of a storage image's or render target's level 0
    /// back to its staging buffer (after the dispatch or draw).
    pub(super) fn record_download(&self, cb: vk::CommandBuffer, img: &DeviceImage) {
        if img.samples > 1 {
            // read by the multisample readback pass
            return;
        }
        let Some(&(k, offset, w, h, ld)) = img.levels.first() else {
            return;
        };
        let layers = if img.layered { ld } else { 1 };
        let regions = copy_regions(img, k, offset, w, h, ld, layers);
        let to_src = vk::ImageMemoryBarrier::default()
            .src_access_mask(
                vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::COLOR_ATTACHMENT_WRITE
                    | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
            )
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
            .old_layout(img.layout())
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(img.image)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: img.aspect,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: vk::REMAINING_ARRAY_LAYERS,
            });
        let to_host = vk::BufferMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(img.staging.buffer)
            .offset(0)
            .size(vk::WHOLE_SIZE);
        // SAFETY: `cb` is recording after the dispatch; the image and the
        // buffer belong to this device and outlive the submission.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_src],
            );
            self.device.cmd_copy_image_to_buffer(
                cb,
                img.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                img.staging.buffer,
                &regions,
            );
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[],
                &[to_host],
                &[],
            );
        }
    }

    /// Level 0's bytes of a storage image after the dispatch.
    pub(super) fn image_bytes(&self, img: &DeviceImage, len: usize) -> Result<Vec<u8>, Error> {
        self.read(&img.staging, len)
    }

    pub(super) fn destroy_image(&self, img: &DeviceImage) {
        // SAFETY: every object belongs to this device and is no longer in
        // use; destroying a null handle is allowed.
        unsafe {
            self.device.destroy_image_view(img.view, None);
            self.device.destroy_image_view(img.sample_view, None);
            self.device.destroy_image(img.image, None);
            self.device.free_memory(img.memory, None);
        }
        self.free(&img.staging);
    }

    /// Refuses a sampler whose border colour is custom
    /// ([`custom_border`]) while a bound view is swizzled or reads integers:
    /// Vulkan leaves a custom border seen through a swizzled view undefined
    /// (without `VK_EXT_border_color_swizzle`), and the float border type
    /// would meet an integer format.
    pub(super) fn check_border_views(
        &self,
        n: usize,
        s: &Sampler,
        res: &tgsi_exec::Resources,
    ) -> Result<(), Error> {
        if !custom_border(s) {
            return Ok(());
        }
        for (k, tex) in res.textures.iter().enumerate() {
            let Some(tex) = tex else { continue };
            let view = res.views.get(k);
            let swizzled =
                view.is_some_and(|v| v.swizzle != tgsi_exec::texture::View::default().swizzle);
            let format = view.and_then(|v| v.format).unwrap_or(tex.format);
            if swizzled || format.is_integer() {
                return Err(Error::Unsupported(format!(
                    "SAMP[{n}]'s custom border colour beside SVIEW[{k}], {}: Vulkan leaves such a \
                     border undefined (VK_EXT_border_color_swizzle) or of another type",
                    if swizzled {
                        "a swizzled view"
                    } else {
                        "an integer view"
                    }
                )));
            }
        }
        Ok(())
    }

    /// A `VkSampler` with the machine sampler's state, or why Vulkan has
    /// none (a border colour other than transparent or opaque black or
    /// opaque white on a device without custom border colours, texel-unit
    /// coordinates, GL's clamp modes).
    pub(super) fn sampler(&self, s: &Sampler) -> Result<vk::Sampler, Error> {
        let address = |w: Wrap| -> Result<vk::SamplerAddressMode, Error> {
            Ok(match w {
                Wrap::Repeat => vk::SamplerAddressMode::REPEAT,
                Wrap::Clamp | Wrap::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
                Wrap::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
                Wrap::MirrorRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
                Wrap::MirrorClampToEdge => vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE,
                other => {
                    return Err(Error::Unsupported(format!(
                        "wrap mode {other:?} has no Vulkan address mode"
                    )));
                }
            })
        };
        if !s.normalized {
            return Err(Error::Unsupported(
                "samplers with texel-unit coordinates are not bound by the Vulkan engine".into(),
            ));
        }
        let border = match s.border {
            _ if custom_border(s) && self.custom_border => vk::BorderColor::FLOAT_CUSTOM_EXT,
            _ if custom_border(s) => {
                return Err(Error::Unsupported(format!(
                    "border colour {:x?} is not one of Vulkan's, and this device has no \
                     custom border colours (VK_EXT_custom_border_color without formats)",
                    s.border
                )));
            }
            [0, 0, 0, 0x3f80_0000] => vk::BorderColor::FLOAT_OPAQUE_BLACK,
            [0x3f80_0000, 0x3f80_0000, 0x3f80_0000, 0x3f80_0000] => {
                vk::BorderColor::FLOAT_OPAQUE_WHITE
            }
            // transparent black, or no border read
            _ => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
        };
        let mut custom = vk::SamplerCustomBorderColorCreateInfoEXT::default()
            .custom_border_color(vk::ClearColorValue { uint32: s.border })
            .format(vk::Format::UNDEFINED);
        let filter = |f: Filter| match f {
            Filter::Nearest => vk::Filter::NEAREST,
            Filter::Linear => vk::Filter::LINEAR,
        };
        let (mipmap_mode, max_lod) = match s.mip {
            // no mipmapping: level 0 alone (Vulkan's "max LOD 0.25" idiom)
            MipFilter::None => (vk::SamplerMipmapMode::NEAREST, 0.25f32.min(s.max_lod)),
            MipFilter::Nearest => (vk::SamplerMipmapMode::NEAREST, s.max_lod),
            MipFilter::Linear => (vk::SamplerMipmapMode::LINEAR, s.max_lod),
        };
        let compare = s.compare.map(|c| match c {
            CompareFunc::Never => vk::CompareOp::NEVER,
            CompareFunc::Less => vk::CompareOp::LESS,
            CompareFunc::Equal => vk::CompareOp::EQUAL,
            CompareFunc::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
            CompareFunc::Greater => vk::CompareOp::GREATER,
            CompareFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
            CompareFunc::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
            CompareFunc::Always => vk::CompareOp::ALWAYS,
        });
        let ci = vk::SamplerCreateInfo::default()
            .mag_filter(filter(s.mag))
            .min_filter(filter(s.min))
            .mipmap_mode(mipmap_mode)
            .address_mode_u(address(s.wrap[0])?)
            .address_mode_v(address(s.wrap[1])?)
            .address_mode_w(address(s.wrap[2])?)
            .mip_lod_bias(s.lod_bias)
            .compare_enable(compare.is_some())
            .compare_op(compare.unwrap_or(vk::CompareOp::NEVER))
            .min_lod(s.min_lod.max(0.0))
            .max_lod(max_lod.max(s.min_lod.max(0.0)))
            .border_color(border)
            .unnormalized_coordinates(false);
        let ci = if border == vk::BorderColor::FLOAT_CUSTOM_EXT {
            ci.push_next(&mut custom)
        } else {
            ci
        };
        // SAFETY: a valid create info for this device.
        unsafe { self.device.create_sampler(&ci, None) }.map_err(vkerr("vkCreateSampler"))
    }

    /// A buffer texture (`SVIEW` of target BUFFER): its texels in a
    /// uniform texel buffer, seen through a view of its format; or a
    /// buffer image (`IMAGE[n]` of target BUFFER, `image` = n): a storage
    /// texel buffer, read back after the run.
    pub(super) fn texel_buffer(
        &self,
        tex: &Texture,
        binding: u32,
        image: Option<usize>,
    ) -> Result<(super::Buffer, vk::BufferView), Error> {
        let format = vk_format(tex.format).ok_or_else(|| {
            Error::Unsupported(format!(
                "texture format {} has no Vulkan format",
                tex.format.short_name()
            ))
        })?;
        let bytes = tex.levels.first().map_or(&[][..], |v| v);
        let usage = match image {
            Some(_) => vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER,
            None => vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
        };
        let buffer = self.host_buffer(bytes, usage, binding, image)?;
        let texels = (bytes.len() / tex.format.bytes_per_texel().max(1)) as u64;
        let ci = vk::BufferViewCreateInfo::default()
            .buffer(buffer.buffer)
            .format(format)
            .offset(0)
            .range(texels.max(1) * tex.format.bytes_per_texel().max(1) as u64);
        // SAFETY: a valid create info over a buffer of this device.
        match unsafe { self.device.create_buffer_view(&ci, None) } {
            Ok(view) => Ok((buffer, view)),
            Err(e) => {
                self.free(&buffer);
                Err(Error::Device(format!("vkCreateBufferView: {e}")))
            }
        }
    }

    pub(super) fn destroy_texel_buffer(&self, (buffer, view): &(super::Buffer, vk::BufferView)) {
        // SAFETY: the view belongs to this device and is no longer used.
        unsafe { self.device.destroy_buffer_view(*view, None) };
        self.free(buffer);
    }

    pub(super) fn destroy_sampler(&self, s: vk::Sampler) {
        // SAFETY: the sampler belongs to this device and is no longer used.
        unsafe { self.device.destroy_sampler(s, None) };
    }
}

/// What the draws and dispatches do with an image.
pub(super) const USE_ACCESS: vk::AccessFlags = vk::AccessFlags::from_raw(
    vk::AccessFlags::COLOR_ATTACHMENT_READ.as_raw()
        | vk::AccessFlags::COLOR_ATTACHMENT_WRITE.as_raw()
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ.as_raw()
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE.as_raw()
        | vk::AccessFlags::SHADER_READ.as_raw()
        | vk::AccessFlags::SHADER_WRITE.as_raw(),
);

/// Every level and layer of an image's aspects.
/// Whether `s` reads a border colour none of Vulkan's three (transparent
/// black, opaque black, opaque white) is.
fn custom_border(s: &Sampler) -> bool {
    const STANDARD: [[u32; 4]; 3] = [
        [0, 0, 0, 0],
        [0, 0, 0, 0x3f80_0000],
        [0x3f80_0000, 0x3f80_0000, 0x3f80_0000, 0x3f80_0000],
    ];
    s.wrap.contains(&Wrap::ClampToBorder) && !STANDARD.contains(&s.border)
}

pub(super) fn full_range(img: &DeviceImage) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: img.aspect,
        base_mip_level: 0,
        level_count: vk::REMAINING_MIP_LEVELS,
        base_array_layer: 0,
        layer_count: vk::REMAINING_ARRAY_LAYERS,
    }
}

/// The move of a whole image from one (layout, access) to another.
pub(super) fn layout_barrier<'a>(
    img: &DeviceImage,
    (old, src): (vk::ImageLayout, vk::AccessFlags),
    (new, dst): (vk::ImageLayout, vk::AccessFlags),
) -> vk::ImageMemoryBarrier<'a> {
    vk::ImageMemoryBarrier::default()
        .src_access_mask(src)
        .dst_access_mask(dst)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(img.image)
        .subresource_range(full_range(img))
}

/// A staging buffer's uses: the copies in and out, and the multisample
/// readback pass's writes.
fn staging_usage() -> vk::BufferUsageFlags {
    vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST
        | vk::BufferUsageFlags::STORAGE_BUFFER
}

/// Vulkan's flag of `n` samples per texel.
pub(super) fn sample_count(n: u32) -> Result<vk::SampleCountFlags, Error> {
    Ok(match n {
        1 => vk::SampleCountFlags::TYPE_1,
        2 => vk::SampleCountFlags::TYPE_2,
        4 => vk::SampleCountFlags::TYPE_4,
        8 => vk::SampleCountFlags::TYPE_8,
        16 => vk::SampleCountFlags::TYPE_16,
        _ => {
            return Err(Error::Unsupported(format!(
                "{n} samples per texel have no Vulkan sample count"
            )));
        }
    })
}

/// Why a multisampled image is not made: only one value throughout is
/// uploaded (by a clear).
const SAMPLES_DIFFER: &str = "a multisampled image whose samples differ is not uploaded to the \
     Vulkan device yet (one cleared to a single value is)";

/// The clear colour of a multisampled texture holding one texel value
/// throughout (sRGB refused: a clear colour is linear, and the device's
/// encoding may differ from the machine's).
fn uniform_color(tex: &Texture) -> Result<Clear, Error> {
    let bpt = tex.format.bytes_per_texel().max(1);
    let bytes = tex.levels.first().map_or(&[][..], |v| v);
    let first = bytes.get(..bpt).unwrap_or(&[]);
    if first.len() < bpt || bytes.chunks(bpt).any(|t| t != first) {
        return Err(Error::Unsupported(SAMPLES_DIFFER.into()));
    }
    if tex.format.is_srgb() {
        return Err(Error::Unsupported(format!(
            "multisampled {} targets are not drawn by the Vulkan engine (their clear colour would be encoded by the device)",
            tex.format.short_name()
        )));
    }
    let v = tex.format.decode(first);
    use tgsi_exec::texture::format::NumClass;
    Ok(Clear::Color(match tex.format.num_class() {
        NumClass::Uint => vk::ClearColorValue { uint32: v },
        NumClass::Sint => vk::ClearColorValue {
            int32: v.map(|w| w as i32),
        },
        _ => vk::ClearColorValue {
            float32: v.map(f32::from_bits),
        },
    }))
}

/// Each sample's words of a multisampled texture (its format's decoding,
/// four words a sample), the upload pass's input.
fn sample_words(tex: &Texture) -> Vec<u8> {
    let bpt = tex.format.bytes_per_texel().max(1);
    let bytes = tex.levels.first().map_or(&[][..], |v| v);
    bytes
        .chunks_exact(bpt)
        .flat_map(|t| tex.format.decode(t).into_iter().flat_map(u32::to_le_bytes))
        .collect()
}

/// Whether every depth of a target is one a fragment shader can write
/// (in [0, 1]: Vulkan clamps the others).
fn depths_in_range(d: &DepthTarget) -> bool {
    d.depth
        .iter()
        .all(|&w| (0.0..=1.0).contains(&d.format.dequantize(w)))
}

/// The clear value of a multisampled depth target holding one depth (and
/// stencil) throughout.
fn uniform_depth(d: &DepthTarget) -> Result<Clear, Error> {
    let first = d.depth.first().copied().unwrap_or(0);
    let stencil = d.stencil.first().copied().unwrap_or(0);
    if d.depth.iter().any(|&w| w != first) || d.stencil.iter().any(|&s| s != stencil) {
        return Err(Error::Unsupported(SAMPLES_DIFFER.into()));
    }
    let depth = d.format.dequantize(first);
    // (a clear value is defined in [0, 1] only)
    if !(0.0..=1.0).contains(&depth) {
        return Err(Error::Unsupported(format!(
            "a multisampled depth target cleared to {depth} is not drawn by the Vulkan engine"
        )));
    }
    Ok(Clear::DepthStencil(vk::ClearDepthStencilValue {
        depth,
        stencil: stencil.into(),
    }))
}

/// What an image of `usage` is made for: its use and the copies in and out.
fn usage_flags(usage: Use) -> vk::ImageUsageFlags {
    let copies = vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC;
    match usage {
        Use::Sampled => vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
        Use::Storage => vk::ImageUsageFlags::STORAGE | copies,
        Use::Attachment => vk::ImageUsageFlags::COLOR_ATTACHMENT | copies,
        Use::Depth => vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | copies,
    }
}

/// Every level's bytes one after the other (each padded to its texel
/// count, zeros past the texture's own bytes, 16-byte aligned), and each
/// level's (level, offset, width, height, depth or layers).
#[allow(clippy::type_complexity)]
fn staging_levels(tex: &Texture, nlevels: u32) -> (Vec<u8>, Vec<(u32, u64, u32, u32, u32)>) {
    let mut bytes = Vec::new();
    let mut levels = Vec::new();
    for k in 0..nlevels {
        let (lw, lh, ld) = tex.level_dims(k);
        let need = lw as usize * lh as usize * ld as usize * tex.format.bytes_per_texel();
        let offset = bytes.len() as u64;
        let src = tex.levels.get(k as usize).map_or(&[][..], |v| v);
        let mut level = src[..need.min(src.len())].to_vec();
        level.resize(need, 0);
        bytes.extend_from_slice(&level);
        // offsets of a copy are multiples of the texel size and of 4
        bytes.resize(bytes.len().next_multiple_of(16), 0);
        levels.push((k, offset, lw, lh, ld));
    }
    (bytes, levels)
}

/// The levels, layers and swizzle a sampled image's view shows (the
/// machine's `View`, clamped to the image), or the whole image.
fn view_range(
    view: Option<&View>,
    usage: Use,
    nlevels: u32,
    layers: u32,
) -> (u32, u32, u32, u32, vk::ComponentMapping) {
    match view {
        Some(v) if usage == Use::Sampled => {
            let last = v.last_level.min(nlevels - 1);
            let first = v.first_level.min(last);
            let last_layer = v.last_layer.min(layers - 1);
            let first_layer = v.first_layer.min(last_layer);
            (
                first,
                last - first + 1,
                first_layer,
                last_layer - first_layer + 1,
                components(&v.swizzle),
            )
        }
        _ => (0, nlevels, 0, layers, vk::ComponentMapping::default()),
    }
}

/// The copies of one level between a staging buffer and an image: one,
/// or for a depth-stencil image one per aspect (the stencil bytes at
/// their own offset).
fn copy_regions(
    img: &DeviceImage,
    level: u32,
    offset: u64,
    w: u32,
    h: u32,
    ld: u32,
    layers: u32,
) -> Vec<vk::BufferImageCopy> {
    let depth = if img.layered { 1 } else { ld };
    let region = |aspect_mask, buffer_offset| vk::BufferImageCopy {
        buffer_offset,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask,
            mip_level: level,
            base_array_layer: 0,
            layer_count: layers.max(1),
        },
        image_offset: vk::Offset3D::default(),
        image_extent: vk::Extent3D {
            width: w,
            height: h,
            depth: depth.max(1),
        },
    };
    match img.stencil_offset {
        Some(stencil) => vec![
            region(vk::ImageAspectFlags::DEPTH, offset),
            region(vk::ImageAspectFlags::STENCIL, stencil),
        ],
        None => vec![region(img.aspect, offset)],
    }
}

/// A view swizzle as Vulkan's component mapping.
fn components(sw: &[Swizzle; 4]) -> vk::ComponentMapping {
    let one = |s: Swizzle| match s {
        Swizzle::R => vk::ComponentSwizzle::R,
        Swizzle::G => vk::ComponentSwizzle::G,
        Swizzle::B => vk::ComponentSwizzle::B,
        Swizzle::A => vk::ComponentSwizzle::A,
        Swizzle::Zero => vk::ComponentSwizzle::ZERO,
        Swizzle::One => vk::ComponentSwizzle::ONE,
    };
    vk::ComponentMapping {
        r: one(sw[0]),
        g: one(sw[1]),
        b: one(sw[2]),
        a: one(sw[3]),
    }
}
