//! The shader feature info chunk (`SFI0`): a 64-bit mask of the optional
//! hardware features a shader uses (`D3D_SHADER_FEATURE_*`), and the
//! "requires additional functionality" note fxc prints from it.
//!
//! The note lists `D3D_SHADER_REQUIRES_*` flags. They are the SFI0 bits
//! except bit 1: in SFI0 it means "compute shaders plus raw and structured
//! buffers on 4.x" (never printed), while the printed bit 1 is "early
//! depth-stencil", which comes from the program's `dcl_globalFlags`
//! (`forceEarlyDepthStencil`), not from SFI0.

use super::DecodeError;
use super::blob::Bytes;

/// Feature bits: bit, SFI0 name, and the line fxc prints under "Note:
/// shader requires additional functionality:" (`None`: not printed).
pub const FEATURES: [(u64, &str, Option<&str>); 14] = [
    (0x1, "doubles", Some("Double-precision floating point")),
    (
        0x2,
        "compute_shaders_plus_raw_and_structured_buffers_via_shader_4_x",
        None,
    ),
    (
        0x4,
        "uavs_at_every_stage",
        Some("UAVs at every shader stage"),
    ),
    (0x8, "64_uavs", Some("64 UAV slots")),
    (
        0x10,
        "minimum_precision",
        Some("Minimum-precision data types"),
    ),
    (
        0x20,
        "11_1_double_extensions",
        Some("Double-precision extensions for 11.1"),
    ),
    (
        0x40,
        "11_1_shader_extensions",
        Some("Shader extensions for 11.1"),
    ),
    (
        0x80,
        "level_9_comparison_filtering",
        Some("Comparison filtering for feature level 9"),
    ),
    (0x100, "tiled_resources", Some("Tiled resources")),
    (0x200, "stencil_ref", Some("PS Output Stencil Ref")),
    (0x400, "inner_coverage", Some("PS Inner Coverage")),
    (
        0x800,
        "typed_uav_load_additional_formats",
        Some("Typed UAV Load Additional Formats"),
    ),
    (0x1000, "rovs", Some("Raster Ordered UAVs")),
    (
        0x2000,
        "viewport_and_rt_array_index_from_any_shader_feeding_rasterizer",
        Some(
            "SV_RenderTargetArrayIndex or SV_ViewportArrayIndex from any shader feeding rasterizer",
        ),
    ),
];

/// The printed line for bit 1 of the requirement flags (from the program's
/// `forceEarlyDepthStencil` global flag).
pub const EARLY_DEPTH_STENCIL_NOTE: &str = "Early depth-stencil";

/// A decoded `SFI0` chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sfi0 {
    /// The feature mask (`D3D_SHADER_FEATURE_*`).
    pub flags: u64,
}

impl Sfi0 {
    /// Decodes the 8-byte payload.
    pub fn parse(payload: &[u8]) -> Result<Sfi0, DecodeError> {
        if payload.len() != 8 {
            return Err(DecodeError::at(
                0,
                format!("SFI0 payload is {} bytes, expected 8", payload.len()),
            ));
        }
        let b = Bytes::new(payload);
        let low = b.u32(0, "SFI0 flags")?;
        let high = b.u32(4, "SFI0 flags")?;
        Ok(Sfi0 {
            flags: u64::from(low) | (u64::from(high) << 32),
        })
    }

    /// The payload bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.flags.to_le_bytes().to_vec()
    }

    /// Names of the set bits (unknown bits as `bit_N`).
    pub fn names(&self) -> Vec<String> {
        (0..64)
            .filter(|bit| self.flags & (1u64 << bit) != 0)
            .map(|bit| {
                FEATURES
                    .iter()
                    .find(|f| f.0 == 1u64 << bit)
                    .map(|f| f.1.to_string())
                    .unwrap_or_else(|| format!("bit_{bit}"))
            })
            .collect()
    }
}

/// The "// Note: shader requires additional functionality:" block (ending in
/// two `//` lines), or "" when nothing is required. `features` is the SFI0
/// mask (0 without the chunk); `early_depth_stencil` whether the program
/// declares `forceEarlyDepthStencil`.
pub fn requirements_note(features: u64, early_depth_stencil: bool) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for &(bit, _, text) in &FEATURES {
        if bit == 0x2 {
            if early_depth_stencil {
                lines.push(EARLY_DEPTH_STENCIL_NOTE);
            }
            continue;
        }
        if features & bit != 0
            && let Some(text) = text
        {
            lines.push(text);
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut out = String::from("// Note: shader requires additional functionality:\n");
    for l in lines {
        out.push_str("//       ");
        out.push_str(l);
        out.push('\n');
    }
    out.push_str("//\n//\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_encodes_and_prints_in_bit_order() {
        let raw = [0x08, 0x08, 0, 0, 0, 0, 0, 0];
        let s = Sfi0::parse(&raw).unwrap();
        assert_eq!(s.flags, 0x808);
        assert_eq!(s.to_bytes(), raw);
        assert_eq!(s.names(), ["64_uavs", "typed_uav_load_additional_formats"]);
        assert_eq!(
            requirements_note(s.flags, false),
            "// Note: shader requires additional functionality:\n\
             //       64 UAV slots\n\
             //       Typed UAV Load Additional Formats\n//\n//\n"
        );
    }

    #[test]
    fn bit_one_is_not_printed_but_early_depth_stencil_is() {
        assert_eq!(requirements_note(0x2, false), "");
        assert_eq!(
            requirements_note(0x1, true),
            "// Note: shader requires additional functionality:\n\
             //       Double-precision floating point\n\
             //       Early depth-stencil\n//\n//\n"
        );
        assert_eq!(Sfi0 { flags: 1 << 40 }.names(), ["bit_40"]);
    }

    #[test]
    fn wrong_size_is_an_error() {
        let e = Sfi0::parse(&[1, 0, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert_eq!(e.message, "SFI0 payload is 4 bytes, expected 8");
    }
}
