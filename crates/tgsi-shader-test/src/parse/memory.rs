//! The memory a file's resources hold at once, bounded while the file is
//! parsed: each section that makes a resource (constant and storage
//! buffers, textures, images, render targets, the depth target and the
//! target `draw quad W H` makes) is counted at its size in bytes, a later
//! section of the same kind and number replacing the earlier one's count
//! as it replaces the resource. A file whose resources would hold more than
//! [`MAX_FILE_BYTES`] at once is refused at the section that goes over,
//! before anything is allocated. (Each resource has its own limit besides:
//! `check_size` and the texture module's.)

use super::{ParseError, RenderTargetSection, Section, TextureSection};
use std::collections::HashMap;

/// The most bytes a file's resources may hold at once.
pub const MAX_FILE_BYTES: u64 = 1 << 31;

/// What a counted resource is: its kind and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Slot {
    Constant(u32),
    Buffer(u32),
    Texture(u32),
    Image(u32),
    RenderTarget(u32),
    Depth,
}

/// The live resources' sizes so far.
#[derive(Default)]
pub(super) struct ResourceBytes {
    held: HashMap<Slot, u64>,
    /// The largest sample count of the render targets (the depth target
    /// has as many samples per pixel).
    samples: u32,
    /// The depth target's pixels, counted again when the samples change.
    depth_pixels: u64,
    /// Whether a `[render target]` section was seen (`draw quad W H` then
    /// draws into it rather than making its own).
    declared_targets: bool,
}

/// Bytes per pixel and sample of a depth target: the depth word and the
/// stencil byte every format keeps.
const DEPTH_BYTES: u64 = 5;

impl ResourceBytes {
    /// Counts the resource `section` (starting at line `line`) makes.
    pub(super) fn section(&mut self, line: usize, section: &Section) -> Result<(), ParseError> {
        match section {
            Section::Constant { index, words } => {
                self.hold(line, Slot::Constant(*index), words.len() as u64 * 4)
            }
            Section::Buffer { index, size, words } => {
                let bytes = size.unwrap_or(0).max(words.len() as u64 * 4);
                self.hold(line, Slot::Buffer(*index), bytes)
            }
            Section::Texture(t) => {
                let slot = if t.image {
                    Slot::Image(t.index)
                } else {
                    Slot::Texture(t.index)
                };
                self.hold(line, slot, texture_bytes(t))
            }
            Section::RenderTarget(t) => {
                self.declared_targets = true;
                self.samples = self.samples.max(t.samples);
                self.hold(line, Slot::RenderTarget(t.index), target_bytes(t))?;
                self.hold_depth(line)
            }
            Section::DepthTarget { size, .. } => {
                self.depth_pixels = u64::from(size[0]) * u64::from(size[1]);
                self.hold_depth(line)
            }
            Section::Test(t) => {
                for (line, command) in &t.commands {
                    if let super::Command::DrawQuad { size: Some([w, h]) } = command
                        && !self.declared_targets
                    {
                        // the RGBA32F target of that size
                        let bytes = u64::from(*w) * u64::from(*h) * 16;
                        self.hold(*line, Slot::RenderTarget(0), bytes)?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The depth target at the render targets' sample count.
    fn hold_depth(&mut self, line: usize) -> Result<(), ParseError> {
        let bytes = self.depth_pixels * u64::from(self.samples.max(1)) * DEPTH_BYTES;
        self.hold(line, Slot::Depth, bytes)
    }

    /// Counts `bytes` for `slot` in place of what it held.
    fn hold(&mut self, line: usize, slot: Slot, bytes: u64) -> Result<(), ParseError> {
        let others: u64 = self
            .held
            .iter()
            .filter(|(s, _)| **s != slot)
            .map(|(_, b)| b)
            .sum();
        let total = others.saturating_add(bytes);
        if total > MAX_FILE_BYTES {
            return Err(ParseError::new(
                line,
                format!(
                    "with this resource ({bytes} bytes) the file's resources would hold \
                     {total} bytes at once, more than the runner's limit of {MAX_FILE_BYTES}"
                ),
            ));
        }
        self.held.insert(slot, bytes);
        Ok(())
    }
}

/// A texture's or image's bytes, all levels.
fn texture_bytes(t: &TextureSection) -> u64 {
    let texel = t.format.bytes_per_texel() as u64;
    (0..t.levels)
        .map(|k| t.target.texels(t.size, k) * texel)
        .sum()
}

/// A render target's bytes, all samples.
fn target_bytes(t: &RenderTargetSection) -> u64 {
    let [w, h] = t.size;
    u64::from(w) * u64::from(h) * u64::from(t.samples.max(1)) * t.format.bytes_per_texel() as u64
}

#[cfg(test)]
mod tests {
    use super::super::parse_file;
    use super::MAX_FILE_BYTES;

    /// `n` storage buffers of `size` bytes each.
    fn buffers(n: u32, size: u64) -> String {
        (0..n)
            .map(|i| format!("[buffer {i}]\nsize {size}\n\n"))
            .collect()
    }

    #[test]
    fn resources_within_the_limit_are_accepted() {
        // eight buffers of 256 MiB: exactly the limit
        let src = buffers(8, 1 << 28);
        assert!(parse_file("t", &src).is_ok());
    }

    #[test]
    fn the_section_that_goes_over_the_limit_is_named() {
        let src = buffers(9, 1 << 28);
        let e = parse_file("t", &src).unwrap_err().to_string();
        // the ninth buffer's `[buffer 8]` header: 8 sections of 3 lines before
        assert!(e.contains("line 25,"), "{e}");
        assert!(e.contains(&MAX_FILE_BYTES.to_string()), "{e}");
        assert!(e.contains("268435456 bytes"), "{e}");
    }

    #[test]
    fn a_replaced_resource_no_longer_counts() {
        // the same buffer declared nine times holds 256 MiB at once
        let src: String = (0..9).map(|_| "[buffer 3]\nsize 268435456\n\n").collect();
        assert!(parse_file("t", &src).is_ok());
    }

    #[test]
    fn textures_targets_and_depth_count() {
        // 2 GiB of render targets (8 × 4096² RGBA32F at one sample = 256 MiB each)
        let targets: String = (0..8)
            .map(|i| format!("[render target {i}]\nformat rgba32f\nsize (4096, 4096)\n\n"))
            .collect();
        assert!(parse_file("t", &targets).is_ok());
        // any more: a depth target, a texture
        let depth = format!("{targets}[depth target]\nformat d32f\nsize (64, 64)\n");
        assert!(parse_file("t", &depth).is_err());
        let texture = format!("{targets}[texture 0]\ntarget 1d\nformat r8\nsize (1)\n");
        assert!(parse_file("t", &texture).is_err());
        // a multisampled depth target counts its samples
        let msaa = "[render target 0]\nformat r8\nsize (4096, 4096)\nsamples 16\n\
                    [depth target]\nformat d32f\nsize (4096, 4096)\n";
        assert!(parse_file("t", msaa).is_ok());
        let big = "[render target 0]\nformat rgba32f\nsize (4096, 4096)\nsamples 4\n\
                   [render target 1]\nformat rgba32f\nsize (4096, 4096)\nsamples 4\n\
                   [depth target]\nformat d32f\nsize (64, 64)\n";
        let e = parse_file("t", big).unwrap_err().to_string();
        assert!(e.contains("line 9,"), "{e}");
    }

    #[test]
    fn draw_quad_makes_its_target_when_none_is_declared() {
        let base = buffers(7, 1 << 28);
        let quad = |extra: &str| format!("{base}{extra}[test]\ndraw quad 4096 4096\n");
        // 1.75 GiB + the 256 MiB target: at the limit
        assert!(parse_file("t", &quad("")).is_ok());
        let e = parse_file("t", &quad("[constant 0]\nuint 1\n\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 26,"), "{e}");
        // with a declared target the quad draws into it
        let declared = format!(
            "{base}[render target 0]\nformat r8\nsize (16, 16)\n\n[test]\ndraw quad 4096 4096\n"
        );
        assert!(parse_file("t", &declared).is_ok());
    }
}
