//! The memory a file's resources hold at once, bounded while the file is
//! parsed: each section that makes a resource (constant and storage
//! buffers, textures, images, render targets, the depth target) is counted
//! at its size in bytes, a later section of the same kind and number
//! replacing the earlier one's count as it replaces the resource, and so is
//! each target a test's draws make (the default target of `draw quad W H`
//! or `draw`, the scratch targets filling gaps between declared ones). A
//! file whose resources would declare more than [`MAX_FILE_BYTES`] at once
//! is refused at the section or command that goes over, before anything is
//! allocated. (A test runs on copies of the buffers, constants, textures
//! and images, so the runner holds up to about twice that; each resource
//! has its own limit besides: `check_size` and the texture module's.)

use super::{Command, ParseError, Section, TextureSection};
use std::collections::HashMap;

/// The most bytes a file's resources may declare at once.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// What a counted resource is: its kind and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Slot {
    Constant(u32),
    Buffer(u32),
    Texture(u32),
    Image(u32),
    RenderTarget(u32),
    Depth,
    /// The targets a test's draws make (for the test only).
    DrawTargets,
}

/// A declared render target: its pixels and samples.
#[derive(Clone, Copy)]
struct Target {
    pixels: u64,
    samples: u32,
}

/// The live resources' sizes so far.
#[derive(Default)]
pub(super) struct ResourceBytes {
    held: HashMap<Slot, u64>,
    /// The sum of `held` (saturating).
    total: u64,
    /// The declared render targets by number.
    targets: HashMap<u32, Target>,
    /// The depth target's pixels, if declared.
    depth_pixels: Option<u64>,
}

/// Bytes per pixel and sample of a depth target: the depth word and the
/// stencil byte every format keeps.
const DEPTH_BYTES: u64 = 5;

/// Bytes per pixel of the RGBA32F default target and of a scratch target.
const DEFAULT_TARGET_BYTES: u64 = 16;
const SCRATCH_TARGET_BYTES: u64 = 1;

impl ResourceBytes {
    /// Counts the resource `section` (starting at line `line`) makes.
    pub(super) fn section(&mut self, line: usize, section: &Section) -> Result<(), ParseError> {
        match section {
            Section::Constant { index, words } => {
                let bytes = words.len() as u64 * 4;
                self.hold(line, Slot::Constant(*index), bytes, "this constant buffer")
            }
            Section::Buffer { index, size, words } => {
                let bytes = size.unwrap_or(0).max(words.len() as u64 * 4);
                self.hold(line, Slot::Buffer(*index), bytes, "this buffer")
            }
            Section::Texture(t) => {
                let slot = if t.image {
                    Slot::Image(t.index)
                } else {
                    Slot::Texture(t.index)
                };
                self.hold(line, slot, texture_bytes(t), "this texture")
            }
            Section::RenderTarget(t) => {
                let [w, h] = t.size;
                let pixels = u64::from(w) * u64::from(h);
                let samples = t.samples.max(1);
                let bytes = pixels * u64::from(samples) * t.format.bytes_per_texel() as u64;
                self.targets.insert(t.index, Target { pixels, samples });
                self.hold(
                    line,
                    Slot::RenderTarget(t.index),
                    bytes,
                    "this render target",
                )?;
                self.hold_depth(line)
            }
            Section::DepthTarget { size, .. } => {
                self.depth_pixels = Some(u64::from(size[0]) * u64::from(size[1]));
                self.hold_depth(line)
            }
            Section::Test(t) => {
                for (line, command) in &t.commands {
                    self.draw_targets(*line, command)?;
                }
                // (the test's targets go with it)
                self.hold(t.line, Slot::DrawTargets, 0, "")
            }
            _ => Ok(()),
        }
    }

    /// The targets a draw command makes beside the declared ones: the
    /// RGBA32F default target (`draw quad W H`'s size, else the depth
    /// target's or 64×64) when none is declared, else a scratch R8 target
    /// for each number below the highest declared one that has none.
    fn draw_targets(&mut self, line: usize, command: &Command) -> Result<(), ParseError> {
        let quad = match command {
            Command::DrawQuad { size } => *size,
            Command::Draw { .. } => None,
            _ => return Ok(()),
        };
        let bytes = if self.targets.is_empty() {
            let pixels = match (quad, self.depth_pixels) {
                (Some([w, h]), _) => u64::from(w) * u64::from(h),
                (None, Some(pixels)) => pixels,
                (None, None) => 64 * 64,
            };
            pixels * DEFAULT_TARGET_BYTES
        } else {
            let highest = self.targets.keys().max().copied().unwrap_or(0);
            let gaps = (0..highest).filter(|k| !self.targets.contains_key(k));
            let pixels = self.targets.values().map(|t| t.pixels).max().unwrap_or(0);
            gaps.count() as u64 * pixels * SCRATCH_TARGET_BYTES
        };
        let held = self.held.get(&Slot::DrawTargets).copied().unwrap_or(0);
        self.hold(
            line,
            Slot::DrawTargets,
            held.max(bytes),
            "the targets this draw makes",
        )
    }

    /// The depth target at the render targets' largest sample count.
    fn hold_depth(&mut self, line: usize) -> Result<(), ParseError> {
        let Some(pixels) = self.depth_pixels else {
            return Ok(());
        };
        let samples = self.targets.values().map(|t| t.samples).max().unwrap_or(1);
        let bytes = pixels * u64::from(samples) * DEPTH_BYTES;
        let what = format!("the depth target at {samples} sample(s) per pixel");
        self.hold(line, Slot::Depth, bytes, &what)
    }

    /// Counts `bytes` for `slot` (`what` names it) in place of what it held.
    fn hold(&mut self, line: usize, slot: Slot, bytes: u64, what: &str) -> Result<(), ParseError> {
        let held = self.held.get(&slot).copied().unwrap_or(0);
        let total = (self.total - held).saturating_add(bytes);
        if total > MAX_FILE_BYTES {
            return Err(ParseError::new(
                line,
                format!(
                    "with {what} ({bytes} bytes) the file's resources would hold \
                     {total} bytes at once, more than the runner's limit of {MAX_FILE_BYTES}"
                ),
            ));
        }
        self.held.insert(slot, bytes);
        self.total = total;
        Ok(())
    }
}

/// A texture's or image's bytes, all levels (saturating).
fn texture_bytes(t: &TextureSection) -> u64 {
    let texel = t.format.bytes_per_texel() as u64;
    (0..t.levels)
        .map(|k| t.target.texels(t.size, k).saturating_mul(texel))
        .fold(0, u64::saturating_add)
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

    /// 256 MiB: a quarter of the limit.
    const QUARTER: u64 = MAX_FILE_BYTES / 4;

    #[test]
    fn resources_within_the_limit_are_accepted() {
        assert!(parse_file("t", &buffers(4, QUARTER)).is_ok());
    }

    #[test]
    fn the_section_that_goes_over_the_limit_is_named() {
        let e = parse_file("t", &buffers(5, QUARTER))
            .unwrap_err()
            .to_string();
        // the fifth buffer's `[buffer 4]` header: 4 sections of 3 lines before
        assert!(e.contains("line 13,"), "{e}");
        assert!(e.contains(&MAX_FILE_BYTES.to_string()), "{e}");
        assert!(e.contains("this buffer (268435456 bytes)"), "{e}");
    }

    #[test]
    fn a_replaced_resource_no_longer_counts() {
        // the same buffer declared nine times holds 256 MiB at once
        let src: String = (0..9)
            .map(|_| format!("[buffer 3]\nsize {QUARTER}\n\n"))
            .collect();
        assert!(parse_file("t", &src).is_ok());
    }

    #[test]
    fn textures_targets_and_depth_count() {
        // 1 GiB of render targets (4 × 4096² RGBA32F at one sample)
        let targets: String = (0..4)
            .map(|i| format!("[render target {i}]\nformat rgba32f\nsize (4096, 4096)\n\n"))
            .collect();
        assert!(parse_file("t", &targets).is_ok());
        // any more: a depth target, a texture
        let depth = format!("{targets}[depth target]\nformat d32f\nsize (64, 64)\n");
        assert!(parse_file("t", &depth).is_err());
        let texture = format!("{targets}[texture 0]\ntarget 1d\nformat r8\nsize (1)\n");
        assert!(parse_file("t", &texture).is_err());
        // the depth target counts the targets' samples; a target replaced
        // by one of fewer samples lowers them again
        let msaa = "[render target 0]\nformat r8\nsize (4096, 4096)\nsamples 16\n\
                    [depth target]\nformat d32f\nsize (4096, 4096)\n";
        let e = parse_file("t", msaa).unwrap_err().to_string();
        assert!(e.contains("the depth target at 16 sample(s)"), "{e}");
        let fewer = "[render target 0]\nformat r8\nsize (4096, 4096)\nsamples 16\n\
                     [render target 0]\nformat r8\nsize (4096, 4096)\n\
                     [depth target]\nformat d32f\nsize (4096, 4096)\n";
        assert!(parse_file("t", fewer).is_ok());
        // the render target that raises the samples past the limit is named
        let raised = "[depth target]\nformat d32f\nsize (4096, 4096)\n\
                      [render target 0]\nformat r8\nsize (4096, 4096)\nsamples 16\n";
        let e = parse_file("t", raised).unwrap_err().to_string();
        assert!(e.contains("line 4,") && e.contains("16 sample(s)"), "{e}");
    }

    #[test]
    fn sizes_no_resource_can_have_are_refused_not_wrapped() {
        let huge = "[texture 0]\ntarget 3d\nformat rgba32f\n\
                    size (2147483648, 2147483648, 2147483648)\n";
        assert!(parse_file("t", huge).is_err());
        // with texel data too
        assert!(parse_file("t", &format!("{huge}float 1 2 3 4\n")).is_err());
    }

    #[test]
    fn the_targets_draws_make_count_for_their_test() {
        let base = buffers(3, QUARTER);
        let with = |extra: &str, test: &str| format!("{base}{extra}[test]\n{test}\n");
        // 768 MiB + the quad's 256 MiB target: at the limit
        assert!(parse_file("t", &with("", "draw quad 4096 4096")).is_ok());
        let e = parse_file(
            "t",
            &with("[constant 0]\nuint 1\n\n", "draw quad 4096 4096"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("line 14,") && e.contains("this draw makes"),
            "{e}"
        );
        // `draw` without a target: the depth target's size
        let depth = "[depth target]\nformat d32f\nsize (4096, 4096)\n";
        let e = parse_file("t", &with(depth, "draw triangle list 3"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("this draw makes"), "{e}");
        // with a declared target the quad draws into it
        let declared = "[render target 0]\nformat r8\nsize (16, 16)\n\n";
        assert!(parse_file("t", &with(declared, "draw quad 4096 4096")).is_ok());
        // scratch targets fill the gaps below a declared one
        let gaps = "[render target 7]\nformat rgba32f\nsize (4096, 4096)\n\n";
        let e = parse_file("t", &with(gaps, "draw quad"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("this draw makes"), "{e}");
        // a test's targets go with it
        let two = format!("{base}[test]\ndraw quad 4096 4096\n[test]\ndraw quad 4096 4096\n");
        assert!(parse_file("t", &two).is_ok());
    }
}
