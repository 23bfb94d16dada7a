//! Every `unsafe` call of the Vulkan API, behind [`Device`]: the instance
//! and logical device, host-visible storage buffers, the compute pipeline
//! of a module, one dispatch and the read-back; textures, storage images
//! and samplers in [`image`].

mod draw;
mod image;
mod multisample;

use super::{Dispatch, Error};
use ash::vk;
use tgsi_exec::Resources;
use tgsi_ir::enums::File;

/// A Vulkan device with a compute queue.
pub struct Device {
    // the entry keeps the loader library loaded while the device lives
    _entry: ash::Entry,
    instance: ash::Instance,
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    name: String,
    /// Linear filtering and sRGB decoding are done the device's way rather
    /// than refused ([`Device::allow_device_sampling`]).
    device_sampling: bool,
    /// Why the runs since the last [`Device::take_sampling_notes`] sampled
    /// the device's way (each reason once).
    sampling_notes: std::sync::Mutex<Vec<String>>,
    /// `shaderDemoteToHelperInvocation` is enabled (DEMOTE, READ_HELPER).
    demote: bool,
    /// `VK_EXT_shader_stencil_export` is enabled (a STENCIL output).
    stencil_export: bool,
    /// `VK_EXT_robustness2`'s `nullDescriptor` is enabled (unbound views).
    null_descriptors: bool,
    /// `VK_EXT_custom_border_color` is enabled, without formats (any
    /// border colour).
    pub(super) custom_border: bool,
    /// What its subgroups are (the inter-lane opcodes).
    subgroup: Subgroup,
    /// `shaderFloat64` and `shaderInt64` (the 64-bit opcodes, LDEXP).
    wide: bool,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").field("name", &self.name).finish()
    }
}

fn vkerr(what: &str) -> impl Fn(vk::Result) -> Error + '_ {
    move |e| Error::Device(format!("{what}: {e}"))
}

/// The descriptor of a texel buffer: storage for an `IMAGE` (read back),
/// uniform for a texture.
fn texel_type(b: &Buffer) -> vk::DescriptorType {
    if b.readback.is_some() {
        vk::DescriptorType::STORAGE_TEXEL_BUFFER
    } else {
        vk::DescriptorType::UNIFORM_TEXEL_BUFFER
    }
}

/// The push constants of `CS_USER_DATA_AMD`: zeros.
const USER_DATA: [u8; 16] = [0; 16];

/// What [`Device::pick`] chose and made.
struct Picked {
    physical: vk::PhysicalDevice,
    name: String,
    family: u32,
    device: ash::Device,
    queue: vk::Queue,
    demote: bool,
    stencil_export: bool,
    null_descriptors: bool,
    custom_border: bool,
    subgroup: Subgroup,
    wide: bool,
}

/// What the device's subgroups are: their size, and whether they vote and
/// ballot in every stage the engine runs.
#[derive(Clone, Copy)]
struct Subgroup {
    size: u32,
    votes_everywhere: bool,
}

fn subgroup_of(p: &vk::PhysicalDeviceSubgroupProperties) -> Subgroup {
    let ops = vk::SubgroupFeatureFlags::VOTE | vk::SubgroupFeatureFlags::BALLOT;
    let stages = vk::ShaderStageFlags::ALL_GRAPHICS | vk::ShaderStageFlags::COMPUTE;
    Subgroup {
        size: p.subgroup_size,
        votes_everywhere: p.supported_operations.contains(ops)
            && p.supported_stages.contains(stages),
    }
}

/// A storage buffer on the device, mapped.
struct Buffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    size: u64,
    binding: u32,
    /// `BUFFER[n]` (read back after the run), or a constant buffer.
    readback: Option<usize>,
}

impl Device {
    /// Opens the first Vulkan device whose name contains `name` (any
    /// device when `None`; `N` as a number picks the N-th).
    pub fn open(name: Option<&str>) -> Result<Device, Error> {
        // SAFETY: loading the system's Vulkan loader library; it stays
        // loaded for as long as the Entry (kept in the Device) lives.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| Error::Device(format!("no Vulkan loader: {e}")))?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"tgsi")
            .api_version(vk::make_api_version(0, 1, 2, 0));
        let ci = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: the create info and what it points to live across the call.
        let instance =
            unsafe { entry.create_instance(&ci, None) }.map_err(vkerr("vkCreateInstance"))?;
        match Device::pick(&instance, name) {
            Ok(Picked {
                physical,
                name,
                family,
                device,
                queue,
                demote,
                stencil_export,
                null_descriptors,
                custom_border,
                subgroup,
                wide,
            }) => Ok(Device {
                _entry: entry,
                instance,
                physical,
                device,
                queue,
                family,
                name,
                device_sampling: false,
                sampling_notes: std::sync::Mutex::new(Vec::new()),
                demote,
                stencil_export,
                null_descriptors,
                custom_border,
                subgroup,
                wide,
            }),
            Err(e) => {
                // SAFETY: nothing was created from the instance that outlives it.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    /// The device `want` names, its compute queue family and a logical device.
    fn pick(instance: &ash::Instance, want: Option<&str>) -> Result<Picked, Error> {
        // SAFETY: the instance is valid.
        let devices = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| Error::Device(format!("no devices: {e}")))?;
        let named: Vec<(vk::PhysicalDevice, String)> = devices
            .iter()
            .map(|&pd| {
                // SAFETY: `pd` came from this instance.
                let props = unsafe { instance.get_physical_device_properties(pd) };
                let name = props
                    .device_name_as_c_str()
                    .map(|c| c.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (pd, name)
            })
            .collect();
        let picked = match want {
            None => named.first().cloned(),
            Some(w) => match w.parse::<usize>() {
                Ok(k) => named.get(k).cloned(),
                Err(_) => named.iter().find(|(_, n)| n.contains(w)).cloned(),
            },
        };
        let Some((physical, name)) = picked else {
            let all: Vec<&str> = named.iter().map(|(_, n)| n.as_str()).collect();
            return Err(Error::Device(format!(
                "no Vulkan device {} (devices: {all:?})",
                want.map_or("at all".to_string(), |w| format!("{w:?}"))
            )));
        };
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        // SAFETY: `physical` came from this instance; the chained structure
        // lives across the call.
        unsafe { instance.get_physical_device_properties2(physical, &mut props) };
        // SAFETY: `physical` came from this instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let Some(family) = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        else {
            return Err(Error::Device(format!("{name} has no compute queue")));
        };
        let family = family as u32;
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        // every feature the device has (geometry shaders, storage images
        // without a format, ...): the modules may need any of them
        // SAFETY: `physical` came from this instance.
        let features = unsafe { instance.get_physical_device_features(physical) };
        // and helper demotion, where the device has its extension
        let mut demote = vk::PhysicalDeviceShaderDemoteToHelperInvocationFeaturesEXT::default();
        let demote_ext = vk::EXT_SHADER_DEMOTE_TO_HELPER_INVOCATION_NAME;
        let stencil_ext = vk::EXT_SHADER_STENCIL_EXPORT_NAME;
        // SAFETY: `physical` came from this instance.
        let available =
            unsafe { instance.enumerate_device_extension_properties(physical) }.unwrap_or_default();
        let has = |name: &std::ffi::CStr| {
            available
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(name))
        };
        let has_demote = has(demote_ext);
        // null descriptors for unbound views
        let robustness_ext = vk::EXT_ROBUSTNESS2_NAME;
        let mut robustness = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        if has(robustness_ext) {
            let mut query = vk::PhysicalDeviceFeatures2::default().push_next(&mut robustness);
            // SAFETY: `physical` came from this instance; the chained
            // structure lives across the call.
            unsafe { instance.get_physical_device_features2(physical, &mut query) };
        }
        let null_descriptors = robustness.null_descriptor == vk::TRUE;
        // only null descriptors: out-of-range accesses keep the rules the
        // translated code itself enforces
        let mut robustness =
            vk::PhysicalDeviceRobustness2FeaturesEXT::default().null_descriptor(null_descriptors);
        // any sampler border colour, as the machine takes
        let border_ext = vk::EXT_CUSTOM_BORDER_COLOR_NAME;
        let mut border = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default();
        if has(border_ext) {
            let mut query = vk::PhysicalDeviceFeatures2::default().push_next(&mut border);
            // SAFETY: `physical` came from this instance; the chained
            // structure lives across the call.
            unsafe { instance.get_physical_device_features2(physical, &mut query) };
        }
        let custom_border = border.custom_border_colors == vk::TRUE
            && border.custom_border_color_without_format == vk::TRUE;
        let mut border = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default()
            .custom_border_colors(custom_border)
            .custom_border_color_without_format(custom_border);
        // a fragment shader's STENCIL output
        let stencil_export = has(stencil_ext);
        if has_demote {
            let mut query = vk::PhysicalDeviceFeatures2::default().push_next(&mut demote);
            // SAFETY: `physical` came from this instance; the chained
            // structure lives across the call.
            unsafe { instance.get_physical_device_features2(physical, &mut query) };
        }
        let demote_on = demote.shader_demote_to_helper_invocation == vk::TRUE;
        let mut extensions = Vec::new();
        if demote_on {
            extensions.push(demote_ext.as_ptr());
        }
        if stencil_export {
            extensions.push(stencil_ext.as_ptr());
        }
        if null_descriptors {
            extensions.push(robustness_ext.as_ptr());
        }
        if custom_border {
            extensions.push(border_ext.as_ptr());
        }
        let mut dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&features)
            .enabled_extension_names(&extensions);
        if demote_on {
            dci = dci.push_next(&mut demote);
        }
        if null_descriptors {
            dci = dci.push_next(&mut robustness);
        }
        if custom_border {
            dci = dci.push_next(&mut border);
        }
        // SAFETY: the create info and its arrays live across the call.
        let device = unsafe { instance.create_device(physical, &dci, None) }
            .map_err(vkerr("vkCreateDevice"))?;
        // SAFETY: the device has a queue 0 of this family.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Ok(Picked {
            physical,
            name,
            family,
            device,
            queue,
            demote: demote_on,
            stencil_export,
            null_descriptors,
            custom_border,
            subgroup: subgroup_of(&subgroup),
            wide: features.shader_float64 == vk::TRUE && features.shader_int64 == vk::TRUE,
        })
    }

    /// Invocations per subgroup (what the inter-lane opcodes see).
    pub fn subgroup_size(&self) -> u32 {
        self.subgroup.size
    }

    /// Whether the device has `shaderFloat64` and `shaderInt64`.
    pub(crate) fn has_64_bit(&self) -> bool {
        self.wide
    }

    /// Whether the device votes and ballots in every stage (else the
    /// inter-lane opcodes are refused).
    pub(crate) fn votes_everywhere(&self) -> bool {
        self.subgroup.votes_everywhere
    }

    /// The device's name (e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A host-visible, coherent storage buffer holding `bytes` (at least 4).
    fn buffer(&self, bytes: &[u8], binding: u32, readback: Option<usize>) -> Result<Buffer, Error> {
        self.host_buffer(
            bytes,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            binding,
            readback,
        )
    }

    /// The first memory type of `bits` with the `wanted` properties.
    fn memory_type(&self, bits: u32, wanted: vk::MemoryPropertyFlags) -> Option<u32> {
        // SAFETY: the physical device belongs to the instance.
        let mem = unsafe {
            self.instance
                .get_physical_device_memory_properties(self.physical)
        };
        (0..mem.memory_type_count).find(|&k| {
            bits & (1 << k) != 0 && mem.memory_types[k as usize].property_flags.contains(wanted)
        })
    }

    /// A host-visible, coherent buffer of `usage` holding `bytes` (at least 4).
    fn host_buffer(
        &self,
        bytes: &[u8],
        usage: vk::BufferUsageFlags,
        binding: u32,
        readback: Option<usize>,
    ) -> Result<Buffer, Error> {
        let size = bytes.len().max(4) as u64;
        let bci = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid device and create info.
        let buffer =
            unsafe { self.device.create_buffer(&bci, None) }.map_err(vkerr("vkCreateBuffer"))?;
        // SAFETY: the buffer belongs to this device.
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let Some(kind) = self.memory_type(req.memory_type_bits, wanted) else {
            // SAFETY: the buffer is unused.
            unsafe { self.device.destroy_buffer(buffer, None) };
            return Err(Error::Device("no host-visible memory".into()));
        };
        let ai = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(kind);
        // SAFETY: a valid allocate info for this device.
        let memory = match unsafe { self.device.allocate_memory(&ai, None) } {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: the buffer is unused.
                unsafe { self.device.destroy_buffer(buffer, None) };
                return Err(Error::Device(format!("vkAllocateMemory: {e}")));
            }
        };
        let b = Buffer {
            buffer,
            memory,
            size,
            binding,
            readback,
        };
        // SAFETY: the memory was allocated for this buffer's requirements;
        // the mapping covers `size` bytes and is written within them.
        let ok = unsafe {
            self.device
                .bind_buffer_memory(buffer, memory, 0)
                .and_then(|_| {
                    let p = self
                        .device
                        .map_memory(memory, 0, size, vk::MemoryMapFlags::empty())?;
                    let dst = std::slice::from_raw_parts_mut(p.cast::<u8>(), size as usize);
                    dst.fill(0);
                    dst[..bytes.len()].copy_from_slice(bytes);
                    self.device.unmap_memory(memory);
                    Ok(())
                })
        };
        if let Err(e) = ok {
            self.free(&b);
            return Err(Error::Device(format!("filling a buffer: {e}")));
        }
        Ok(b)
    }

    /// The first `len` bytes of a buffer.
    fn read(&self, b: &Buffer, len: usize) -> Result<Vec<u8>, Error> {
        let len = len.min(b.size as usize);
        // SAFETY: the memory is host-visible and coherent, the device is
        // idle (the fence was waited for), and `len` is within the mapping.
        unsafe {
            let p = self
                .device
                .map_memory(b.memory, 0, b.size, vk::MemoryMapFlags::empty())
                .map_err(vkerr("vkMapMemory"))?;
            let out = std::slice::from_raw_parts(p.cast::<u8>(), len).to_vec();
            self.device.unmap_memory(b.memory);
            Ok(out)
        }
    }

    fn free(&self, b: &Buffer) {
        // SAFETY: the buffer and its memory belong to this device and are
        // no longer used by it.
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.memory, None);
        }
    }

    /// Runs a compute shader over `d.groups` work groups with `res` (its
    /// constant and storage buffers, textures, samplers and images), then
    /// copies the storage buffers and images back into `res`.
    pub fn dispatch(&self, d: &Dispatch, res: &mut Resources) -> Result<(), Error> {
        if d.shader.processor != tgsi_ir::enums::Processor::Compute {
            return Err(Error::Unsupported(format!(
                "the Vulkan engine dispatches compute shaders; this is a {} shader",
                d.shader.processor
            )));
        }
        let words = self.translate_exact(d.shader, &self.options(d.direct3d))?;
        let mut bound = Bound::default();
        let result = self
            .bind_resources(&[d.shader], res, &mut bound)
            .and_then(|()| self.dispatch_bound(d, &words, &bound))
            .and_then(|()| self.read_back(&bound, res));
        self.release(&bound);
        result
    }

    fn dispatch_bound(&self, d: &Dispatch, words: &[u32], bound: &Bound) -> Result<(), Error> {
        let mut objects = Objects::default();
        let made = objects.make(self, words, bound);
        let ran = made.and_then(|()| {
            let [x, y, z] = d.groups;
            self.submit(d.timeout_ms, "the dispatch", |cb| {
                for img in &bound.images {
                    self.record_upload(cb, img);
                }
                // SAFETY: `cb` is recording; the pipeline and set belong to
                // this device and live until `destroy` below.
                unsafe {
                    self.device.cmd_bind_pipeline(
                        cb,
                        vk::PipelineBindPoint::COMPUTE,
                        objects.pipeline,
                    );
                    self.device.cmd_bind_descriptor_sets(
                        cb,
                        vk::PipelineBindPoint::COMPUTE,
                        objects.descriptors.layout,
                        0,
                        &[objects.descriptors.set],
                        &[],
                    );
                    self.device.cmd_push_constants(
                        cb,
                        objects.descriptors.layout,
                        vk::ShaderStageFlags::ALL,
                        0,
                        &USER_DATA,
                    );
                    self.device.cmd_dispatch(cb, x, y, z);
                }
                for img in bound
                    .images
                    .iter()
                    .filter(|i| i.usage == image::Use::Storage)
                {
                    self.record_download(cb, img);
                }
            })
        });
        objects.destroy(self);
        ran
    }

    /// Binds the resources the shaders read where their modules' layouts
    /// put them (each binding once).
    fn bind_resources(
        &self,
        shaders: &[&tgsi_ir::ir::Shader],
        res: &Resources,
        bound: &mut Bound,
    ) -> Result<(), Error> {
        let mut seen = Vec::new();
        for shader in shaders {
            for b in tgsi_spirv::layout(shader) {
                if seen.contains(&b.binding) {
                    continue;
                }
                seen.push(b.binding);
                self.bind_one(&b, res, bound)?;
            }
            // a compare with a sampler that has no compare function, or a
            // plain sample with one that has, is the device's choice (the
            // machine follows the sampler)
            for (n, compare) in tgsi_spirv::sampler_uses(shader) {
                let s = res
                    .samplers
                    .get(n as usize)
                    .unwrap_or(&tgsi_exec::texture::Sampler::DEFAULT);
                if s.compare.is_some() != compare {
                    return Err(Error::Unsupported(format!(
                        "SAMP[{n}] {}: Vulkan leaves that sample to the device",
                        if compare {
                            "has no compare function, and a shadow opcode compares with it"
                        } else {
                            "has a compare function, and an opcode samples without a compare"
                        }
                    )));
                }
            }
        }
        Ok(())
    }

    fn bind_one(
        &self,
        b: &tgsi_spirv::Binding,
        res: &Resources,
        bound: &mut Bound,
    ) -> Result<(), Error> {
        let n = b.index as usize;
        match b.file {
            File::Const => {
                let bytes: Vec<u8> = res
                    .constants
                    .get(n)
                    .map(|w| w.iter().flat_map(|x| x.to_le_bytes()).collect())
                    .unwrap_or_default();
                bound.buffers.push(self.buffer(&bytes, b.binding, None)?);
            }
            File::Buffer => {
                let bytes = res.buffers.get(n).cloned().unwrap_or_default();
                bound.buffers.push(self.buffer(&bytes, b.binding, Some(n))?);
            }
            File::SamplerView => {
                let Some(tex) = res.textures.get(n).and_then(|t| t.as_ref()) else {
                    if !self.null_descriptors {
                        return Err(Error::Unsupported(format!(
                            "SVIEW[{n}] has no texture bound, and the device has no null \
                             descriptors (VK_EXT_robustness2) to read its zeros"
                        )));
                    }
                    let ty = if b.kind == tgsi_spirv::UNIFORM_TEXEL_BUFFER {
                        vk::DescriptorType::UNIFORM_TEXEL_BUFFER
                    } else {
                        vk::DescriptorType::SAMPLED_IMAGE
                    };
                    bound.null_views.push((b.binding, ty));
                    return Ok(());
                };
                if tex.target == tgsi_ir::enums::TextureTarget::Buffer {
                    bound
                        .texel_buffers
                        .push(self.texel_buffer(tex, b.binding, None)?);
                    return Ok(());
                }
                let view = res.views.get(n);
                let format = view.and_then(|v| v.format).unwrap_or(tex.format);
                if format.is_srgb() {
                    self.inexact_sampling(format!(
                        "SVIEW[{n}] is sRGB: Vulkan lets a device decode sRGB approximately \
                         (lavapipe: within about 1e-3), the machine decodes it exactly"
                    ))?;
                }
                bound
                    .images
                    .push(self.image(tex, view, image::Use::Sampled, b.binding, None)?);
            }
            File::Image => {
                let tex =
                    res.images.get(n).and_then(|t| t.as_ref()).ok_or_else(|| {
                        Error::Unsupported(format!("IMAGE[{n}] has no image bound"))
                    })?;
                if tex.target == tgsi_ir::enums::TextureTarget::Buffer {
                    // a storage texel buffer, read back into the image
                    bound
                        .texel_buffers
                        .push(self.texel_buffer(tex, b.binding, Some(n))?);
                    return Ok(());
                }
                bound.images.push(self.image(
                    tex,
                    None,
                    image::Use::Storage,
                    b.binding,
                    Some(n),
                )?);
            }
            File::Sampler => {
                let s = res
                    .samplers
                    .get(n)
                    .unwrap_or(&tgsi_exec::texture::Sampler::DEFAULT);
                self.check_exact_filtering(n, s)?;
                self.check_border_views(n, s, res)?;
                bound.samplers.push((b.binding, self.sampler(s)?));
            }
            other => {
                return Err(Error::Unsupported(format!(
                    "{other} resources are not bound by the Vulkan engine yet"
                )));
            }
        }
        Ok(())
    }

    /// Copies the storage buffers and images back into the resources.
    fn read_back(&self, bound: &Bound, res: &mut Resources) -> Result<(), Error> {
        for b in &bound.buffers {
            if let Some(n) = b.readback
                && let Some(dst) = res.buffers.get_mut(n)
            {
                let bytes = self.read(b, dst.len())?;
                dst[..bytes.len()].copy_from_slice(&bytes);
            }
        }
        for img in &bound.images {
            if let Some(n) = img.readback
                && let Some(Some(tex)) = res.images.get_mut(n)
                && let Some(level) = tex.levels.first_mut()
            {
                let bytes = self.image_bytes(img, level.len())?;
                level[..bytes.len()].copy_from_slice(&bytes);
            }
        }
        for (b, _) in &bound.texel_buffers {
            if let Some(n) = b.readback
                && let Some(Some(tex)) = res.images.get_mut(n)
                && let Some(level) = tex.levels.first_mut()
            {
                let bytes = self.read(b, level.len())?;
                level[..bytes.len()].copy_from_slice(&bytes);
            }
        }
        Ok(())
    }

    fn release(&self, bound: &Bound) {
        for b in &bound.buffers {
            self.free(b);
        }
        for img in &bound.images {
            self.destroy_image(img);
        }
        for &(_, s) in &bound.samplers {
            self.destroy_sampler(s);
        }
        for t in &bound.texel_buffers {
            self.destroy_texel_buffer(t);
        }
    }

    /// Records commands with `record` into a one-time command buffer,
    /// submits it and waits for it (`what` names it in the timeout error).
    fn submit(
        &self,
        timeout_ms: u64,
        what: &str,
        record: impl FnOnce(vk::CommandBuffer),
    ) -> Result<(), Error> {
        let device = &self.device;
        let mut pool = vk::CommandPool::null();
        let mut fence = vk::Fence::null();
        // SAFETY: the pool, its one command buffer and the fence belong to
        // this device; the buffer is recorded and submitted once, and both
        // are destroyed after the fence was waited for (or the device idled).
        let result = unsafe {
            (|| -> Result<(), Error> {
                pool = device
                    .create_command_pool(
                        &vk::CommandPoolCreateInfo::default().queue_family_index(self.family),
                        None,
                    )
                    .map_err(vkerr("vkCreateCommandPool"))?;
                fence = device
                    .create_fence(&vk::FenceCreateInfo::default(), None)
                    .map_err(vkerr("vkCreateFence"))?;
                let cb = device
                    .allocate_command_buffers(
                        &vk::CommandBufferAllocateInfo::default()
                            .command_pool(pool)
                            .level(vk::CommandBufferLevel::PRIMARY)
                            .command_buffer_count(1),
                    )
                    .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
                device
                    .begin_command_buffer(
                        cb,
                        &vk::CommandBufferBeginInfo::default()
                            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                    )
                    .map_err(vkerr("vkBeginCommandBuffer"))?;
                record(cb);
                device
                    .end_command_buffer(cb)
                    .map_err(vkerr("vkEndCommandBuffer"))?;
                let cbs = [cb];
                let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
                device
                    .queue_submit(self.queue, &submit, fence)
                    .map_err(vkerr("vkQueueSubmit"))?;
                if let Err(e) = device.wait_for_fences(&[fence], true, timeout_ms * 1_000_000) {
                    let _ = device.device_wait_idle();
                    return Err(Error::Device(format!(
                        "{what} did not finish within {timeout_ms} ms: {e}"
                    )));
                }
                Ok(())
            })()
        };
        // SAFETY: the device no longer uses them; null handles are allowed.
        unsafe {
            device.destroy_fence(fence, None);
            device.destroy_command_pool(pool, None);
        }
        result
    }
}

impl Device {
    /// How to translate for this device: under Direct3D's rules or not,
    /// requesting only the float-controls modes it supports (Vulkan 1.2's
    /// `shaderDenormPreserveFloat32`, `shaderDenormFlushToZeroFloat32`,
    /// `shaderSignedZeroInfNanPreserveFloat32`).
    pub fn options(&self, direct3d: bool) -> tgsi_spirv::Options {
        let mut v12 = vk::PhysicalDeviceVulkan12Properties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut v12);
        // SAFETY: the physical device belongs to the instance; the chained
        // structure lives across the call.
        unsafe {
            self.instance
                .get_physical_device_properties2(self.physical, &mut props)
        };
        let limits = props.properties.limits;
        let denorm = if direct3d {
            v12.shader_denorm_flush_to_zero_float32
        } else {
            v12.shader_denorm_preserve_float32
        };
        tgsi_spirv::Options {
            direct3d,
            omit_denorm_mode: denorm == vk::FALSE,
            omit_signed_zero_mode: v12.shader_signed_zero_inf_nan_preserve_float32 == vk::FALSE,
            omit_denorm_mode_64: v12.shader_denorm_preserve_float64 == vk::FALSE,
            omit_signed_zero_mode_64: v12.shader_signed_zero_inf_nan_preserve_float64 == vk::FALSE,
            refuse_demote: !self.demote,
            refuse_stencil_export: !self.stencil_export,
            // lavapipe: each lane sees the other lanes of its quad as
            // helpers (`tests/shader/frag_kill.shader_test`, test 5)
            refuse_read_helper: v12.driver_id == vk::DriverId::MESA_LLVMPIPE,
            distance_limits: Some(tgsi_spirv::DistanceLimits {
                clip: limits.max_clip_distances,
                cull: limits.max_cull_distances,
                combined: limits.max_combined_clip_and_cull_distances,
            }),
            ..Default::default()
        }
    }

    /// Lets samplers filter linearly and sRGB textures decode the device's
    /// way instead of refusing them (their results then differ from the
    /// machine's by the device's precision: for pictures and timings, as
    /// `tgsi render` and `tgsi bench frag --vulkan`, not comparisons).
    pub fn allow_device_sampling(&mut self) {
        self.device_sampling = true;
    }

    /// The reasons the runs since the last call sampled the device's way
    /// rather than the machine's (with [`Self::allow_device_sampling`];
    /// empty otherwise), each once: a caller comparing with the machine
    /// judges such runs by its tolerances, knowing why they may differ.
    pub fn take_sampling_notes(&self) -> Vec<String> {
        let mut notes = self
            .sampling_notes
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *notes)
    }

    /// A binding the device samples in its own way (`why`): refused, or
    /// with [`Self::allow_device_sampling`] noted and allowed.
    fn inexact_sampling(&self, why: String) -> Result<(), Error> {
        if !self.device_sampling {
            return Err(Error::Unsupported(why));
        }
        let mut notes = self
            .sampling_notes
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if !notes.contains(&why) {
            notes.push(why);
        }
        Ok(())
    }

    /// Refuses (or notes: [`Self::inexact_sampling`]) a sampler whose
    /// filtering the device does not do exactly: Vulkan weights linear taps with `subTexelPrecisionBits` of the
    /// fraction (8 on lavapipe) and blends levels with
    /// `mipmapPrecisionBits`, where the machine uses the f32 fraction.
    fn check_exact_filtering(
        &self,
        n: usize,
        s: &tgsi_exec::texture::Sampler,
    ) -> Result<(), Error> {
        use tgsi_exec::texture::{Filter, MipFilter};
        let linear =
            s.min == Filter::Linear || s.mag == Filter::Linear || s.mip == MipFilter::Linear;
        if !linear {
            return Ok(());
        }
        // SAFETY: the physical device belongs to the instance.
        let limits = unsafe {
            self.instance
                .get_physical_device_properties(self.physical)
                .limits
        };
        self.inexact_sampling(format!(
            "SAMP[{n}] filters linearly: Vulkan weights the taps with {} bits of the texel \
             fraction ({} bits between levels) on this device, the machine with the whole f32",
            limits.sub_texel_precision_bits, limits.mipmap_precision_bits
        ))
    }
}

/// What a run binds: buffers, images and samplers with their bindings.
#[derive(Default)]
struct Bound {
    buffers: Vec<Buffer>,
    images: Vec<image::DeviceImage>,
    samplers: Vec<(u32, vk::Sampler)>,
    /// Buffer textures (uniform texel buffers) and buffer images (storage
    /// texel buffers, their `readback` the `IMAGE` index): their buffer
    /// (with its binding) and view.
    texel_buffers: Vec<(Buffer, vk::BufferView)>,
    /// Views with nothing bound (`VK_EXT_robustness2`'s null descriptors,
    /// which read zeros and report a size of 0, as Direct3D's unbound
    /// slots): their binding and descriptor type.
    null_views: Vec<(u32, vk::DescriptorType)>,
}

/// The descriptor set of what a run binds, its layout and the pipeline
/// layout over it (every stage sees every binding).
#[derive(Default)]
struct Descriptors {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
}

impl Descriptors {
    fn make(&mut self, dev: &Device, bound: &Bound) -> Result<(), Error> {
        let device = &dev.device;
        let binding = |n: u32, ty: vk::DescriptorType| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(n)
                .descriptor_type(ty)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::ALL)
        };
        let image_type = |img: &image::DeviceImage| {
            if img.usage == image::Use::Storage {
                vk::DescriptorType::STORAGE_IMAGE
            } else {
                vk::DescriptorType::SAMPLED_IMAGE
            }
        };
        let mut bindings: Vec<vk::DescriptorSetLayoutBinding> = bound
            .buffers
            .iter()
            .map(|b| binding(b.binding, vk::DescriptorType::STORAGE_BUFFER))
            .collect();
        bindings.extend(
            bound
                .images
                .iter()
                .map(|i| binding(i.binding, image_type(i))),
        );
        bindings.extend(
            bound
                .samplers
                .iter()
                .map(|&(n, _)| binding(n, vk::DescriptorType::SAMPLER)),
        );
        bindings.extend(
            bound
                .texel_buffers
                .iter()
                .map(|(b, _)| binding(b.binding, texel_type(b))),
        );
        bindings.extend(bound.null_views.iter().map(|&(n, ty)| binding(n, ty)));
        let count = |ty: vk::DescriptorType| {
            let n = bindings.iter().filter(|b| b.descriptor_type == ty).count() as u32;
            vk::DescriptorPoolSize::default()
                .ty(ty)
                .descriptor_count(n.max(1))
        };
        let sizes = [
            count(vk::DescriptorType::STORAGE_BUFFER),
            count(vk::DescriptorType::STORAGE_IMAGE),
            count(vk::DescriptorType::SAMPLED_IMAGE),
            count(vk::DescriptorType::SAMPLER),
            count(vk::DescriptorType::UNIFORM_TEXEL_BUFFER),
            count(vk::DescriptorType::STORAGE_TEXEL_BUFFER),
        ];
        // SAFETY (every call below): valid create infos whose arrays live
        // across the call, objects of this device, and each object stored
        // in `self` so that `destroy` frees it exactly once.
        unsafe {
            self.set_layout = device
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .map_err(vkerr("vkCreateDescriptorSetLayout"))?;
            let layouts = [self.set_layout];
            // CS_USER_DATA_AMD's push constants, pushed as zeros (the
            // machine's value when none is given)
            let push = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::ALL)
                .offset(tgsi_spirv::USER_DATA_PUSH_CONSTANT.start)
                .size(tgsi_spirv::USER_DATA_PUSH_CONSTANT.len() as u32)];
            self.layout = device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&layouts)
                        .push_constant_ranges(&push),
                    None,
                )
                .map_err(vkerr("vkCreatePipelineLayout"))?;
            self.pool = device
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .map_err(vkerr("vkCreateDescriptorPool"))?;
            self.set = device
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(self.pool)
                        .set_layouts(&layouts),
                )
                .map_err(vkerr("vkAllocateDescriptorSets"))?[0];
        }
        self.update(dev, bound);
        Ok(())
    }

    /// Writes what `bound` holds into the set.
    fn update(&self, dev: &Device, bound: &Bound) {
        let device = &dev.device;
        let image_type = |img: &image::DeviceImage| {
            if img.usage == image::Use::Storage {
                vk::DescriptorType::STORAGE_IMAGE
            } else {
                vk::DescriptorType::SAMPLED_IMAGE
            }
        };
        let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = bound
            .buffers
            .iter()
            .map(|b| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(b.buffer)
                    .offset(0)
                    .range(b.size)]
            })
            .collect();
        let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = bound
            .images
            .iter()
            .map(|i| {
                [vk::DescriptorImageInfo::default()
                    .image_view(i.view)
                    .image_layout(i.layout())]
            })
            .collect();
        let sampler_infos: Vec<[vk::DescriptorImageInfo; 1]> = bound
            .samplers
            .iter()
            .map(|&(_, s)| [vk::DescriptorImageInfo::default().sampler(s)])
            .collect();
        let write = |n: u32, ty: vk::DescriptorType| {
            vk::WriteDescriptorSet::default()
                .dst_set(self.set)
                .dst_binding(n)
                .descriptor_type(ty)
        };
        let mut writes: Vec<vk::WriteDescriptorSet> = bound
            .buffers
            .iter()
            .zip(&buffer_infos)
            .map(|(b, info)| write(b.binding, vk::DescriptorType::STORAGE_BUFFER).buffer_info(info))
            .collect();
        writes.extend(
            bound
                .images
                .iter()
                .zip(&image_infos)
                .map(|(i, info)| write(i.binding, image_type(i)).image_info(info)),
        );
        writes.extend(
            bound
                .samplers
                .iter()
                .zip(&sampler_infos)
                .map(|(&(n, _), info)| write(n, vk::DescriptorType::SAMPLER).image_info(info)),
        );
        let texel_views: Vec<[vk::BufferView; 1]> =
            bound.texel_buffers.iter().map(|(_, v)| [*v]).collect();
        writes.extend(
            bound
                .texel_buffers
                .iter()
                .zip(&texel_views)
                .map(|((b, _), view)| write(b.binding, texel_type(b)).texel_buffer_view(view)),
        );
        // null descriptors: no view (enabled with `nullDescriptor`)
        let null_image = [vk::DescriptorImageInfo::default()];
        let null_texels = [vk::BufferView::null()];
        writes.extend(bound.null_views.iter().map(|&(n, ty)| {
            if ty == vk::DescriptorType::UNIFORM_TEXEL_BUFFER {
                write(n, ty).texel_buffer_view(&null_texels)
            } else {
                write(n, ty).image_info(&null_image)
            }
        }));
        // SAFETY: the writes name this device's set, buffers, views and
        // samplers (or null ones, which the device takes), and their info
        // arrays live across the call.
        unsafe { device.update_descriptor_sets(&writes, &[]) };
    }

    fn destroy(&self, dev: &Device) {
        // SAFETY: every object belongs to this device and is no longer in
        // use; destroying a null handle is allowed.
        unsafe {
            dev.device.destroy_descriptor_pool(self.pool, None);
            dev.device.destroy_pipeline_layout(self.layout, None);
            dev.device
                .destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

/// A compute dispatch's module, descriptors and pipeline.
#[derive(Default)]
struct Objects {
    module: vk::ShaderModule,
    descriptors: Descriptors,
    pipeline: vk::Pipeline,
}

impl Objects {
    fn make(&mut self, dev: &Device, words: &[u32], bound: &Bound) -> Result<(), Error> {
        self.descriptors.make(dev, bound)?;
        let device = &dev.device;
        // SAFETY: valid create infos for this device, whose arrays live
        // across the calls; each object is stored in `self` for `destroy`.
        unsafe {
            self.module = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
                .map_err(vkerr("vkCreateShaderModule"))?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(self.module)
                .name(c"main");
            let ci = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(self.descriptors.layout)];
            self.pipeline = device
                .create_compute_pipelines(vk::PipelineCache::null(), &ci, None)
                .map_err(|(_, e)| Error::Device(format!("vkCreateComputePipelines: {e}")))?[0];
        }
        Ok(())
    }

    fn destroy(&self, dev: &Device) {
        // SAFETY: the objects belong to this device and are no longer in
        // use; destroying a null handle is allowed.
        unsafe {
            dev.device.destroy_pipeline(self.pipeline, None);
            dev.device.destroy_shader_module(self.module, None);
        }
        self.descriptors.destroy(dev);
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: every object made from the device was destroyed by the
        // calls that made it; the device, then the instance, go last.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
