//! The statistics chunk (`STAT`): the counters fxc gathers while compiling
//! (the footer's "Approximately N instruction slots used" is its first word)
//! and the stage facts the listing header prints (tessellator domain,
//! output primitive and partitioning, sample-frequency pixel shaders).
//!
//! The payload is an array of u32: 29 words for Direct3D 10 targets, 37 for
//! Direct3D 11 ones. [`STAT_FIELDS`] names them in order; words past the
//! table (none seen) are kept and written back unchanged.

use super::DecodeError;
use super::blob::{Bytes, le_bytes};

/// The names of the STAT words, in order (`D3D11_SHADER_DESC` terms).
pub const STAT_FIELDS: [&str; 37] = [
    "instruction_count",
    "temp_register_count",
    "def_count",
    "dcl_count",
    "float_instruction_count",
    "int_instruction_count",
    "uint_instruction_count",
    "static_flow_control_count",
    "dynamic_flow_control_count",
    "macro_instruction_count",
    "temp_array_count",
    "array_instruction_count",
    "cut_instruction_count",
    "emit_instruction_count",
    "texture_normal_instructions",
    "texture_load_instructions",
    "texture_comp_instructions",
    "texture_bias_instructions",
    "texture_gradient_instructions",
    "mov_instruction_count",
    "movc_instruction_count",
    "conversion_instruction_count",
    "reserved",
    "input_primitive",
    "gs_output_topology",
    "gs_max_output_vertex_count",
    "texture_gather_instructions",
    "texture_lod_instructions",
    "is_sample_frequency_shader",
    "gs_instance_count",
    "control_points",
    "hs_output_primitive",
    "hs_partitioning",
    "tessellator_domain",
    "barrier_instructions",
    "interlocked_instructions",
    "texture_store_instructions",
];

/// Index of a named word in [`STAT_FIELDS`].
fn field(name: &str) -> usize {
    STAT_FIELDS
        .iter()
        .position(|&n| n == name)
        .unwrap_or(usize::MAX)
}

/// `D3D_TESSELLATOR_DOMAIN`: value and listing name.
pub const TESSELLATOR_DOMAINS: [(u32, &str); 3] =
    [(1, "Isoline"), (2, "Triangle"), (3, "Quadrilateral")];
/// `D3D_TESSELLATOR_OUTPUT_PRIMITIVE`: value and listing name.
pub const TESSELLATOR_OUTPUT_PRIMITIVES: [(u32, &str); 4] = [
    (1, "Point"),
    (2, "Line"),
    (3, "Clockwise Triangles"),
    (4, "Counter-Clockwise Triangles"),
];
/// `D3D_TESSELLATOR_PARTITIONING`: value and listing name.
pub const TESSELLATOR_PARTITIONINGS: [(u32, &str); 4] = [
    (1, "Integer"),
    (2, "Integer Power of 2"),
    (3, "Odd Fractional"),
    (4, "Even Fractional"),
];

fn lookup(table: &[(u32, &'static str)], v: u32) -> Option<&'static str> {
    table.iter().find(|r| r.0 == v).map(|r| r.1)
}

/// A decoded `STAT` chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    /// The words, in chunk order (named by [`STAT_FIELDS`]).
    pub words: Vec<u32>,
}

impl Stat {
    /// Decodes the payload (its length must be a multiple of 4).
    pub fn parse(payload: &[u8]) -> Result<Stat, DecodeError> {
        if !payload.len().is_multiple_of(4) {
            return Err(DecodeError::at(
                payload.len() - payload.len() % 4,
                format!("STAT size {} is not a whole number of words", payload.len()),
            ));
        }
        let words = Bytes::new(payload).u32s(0, payload.len() / 4, "STAT words")?;
        Ok(Stat { words })
    }

    /// The payload bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        le_bytes(&self.words)
    }

    /// The word named `name` in [`STAT_FIELDS`] (0 when the chunk is shorter).
    pub fn get(&self, name: &str) -> u32 {
        self.words.get(field(name)).copied().unwrap_or(0)
    }

    /// The footer's instruction-slot count.
    pub fn instruction_count(&self) -> u32 {
        self.get("instruction_count")
    }

    /// `(name, value)` for every word, extra words named `word_N`.
    pub fn named_fields(&self) -> Vec<(String, u32)> {
        self.words
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let name = STAT_FIELDS
                    .get(i)
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| format!("word_{i}"));
                (name, w)
            })
            .collect()
    }

    /// The stage notes fxc prints after the signatures: the tessellator
    /// tables and the sample-frequency note, each followed by `//`.
    pub fn listing_notes(&self) -> String {
        let mut out = String::new();
        if let Some(domain) = lookup(&TESSELLATOR_DOMAINS, self.get("tessellator_domain")) {
            out.push_str("// Tessellation Domain   # of control points\n");
            out.push_str("// -------------------- --------------------\n");
            out.push_str(&format!(
                "// {domain:<20} {:>20}\n//\n",
                self.get("control_points")
            ));
        }
        if let Some(primitive) = lookup(
            &TESSELLATOR_OUTPUT_PRIMITIVES,
            self.get("hs_output_primitive"),
        ) {
            let partitioning = lookup(&TESSELLATOR_PARTITIONINGS, self.get("hs_partitioning"))
                .map(str::to_string)
                .unwrap_or_else(|| self.get("hs_partitioning").to_string());
            out.push_str("// Tessellation Output Primitive  Partitioning Type \n");
            out.push_str("// ------------------------------ ------------------\n");
            out.push_str(&format!("// {primitive:<30} {partitioning:<18}\n//\n"));
        }
        if self.get("is_sample_frequency_shader") == 1 {
            out.push_str("// Pixel Shader runs at sample frequency\n//\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_shader_stat_decodes_and_prints_the_tessellator_tables() {
        let mut words = [0u32; 37];
        words[0] = 5;
        words[23] = 10;
        words[30] = 3;
        words[31] = 3;
        words[32] = 4;
        words[33] = 2;
        let raw = le_bytes(&words);
        let stat = Stat::parse(&raw).unwrap();
        assert_eq!(stat.instruction_count(), 5);
        assert_eq!(stat.get("control_points"), 3);
        assert_eq!(stat.to_bytes(), raw);
        assert_eq!(
            stat.listing_notes(),
            "// Tessellation Domain   # of control points\n\
             // -------------------- --------------------\n\
             // Triangle                                3\n\
             //\n\
             // Tessellation Output Primitive  Partitioning Type \n\
             // ------------------------------ ------------------\n\
             // Clockwise Triangles            Even Fractional   \n\
             //\n"
        );
        assert_eq!(
            stat.named_fields()[33],
            ("tessellator_domain".to_string(), 2)
        );
    }

    #[test]
    fn short_and_odd_stat_chunks() {
        let stat = Stat::parse(&[7, 0, 0, 0]).unwrap();
        assert_eq!(stat.instruction_count(), 7);
        assert_eq!(stat.get("tessellator_domain"), 0);
        assert_eq!(stat.listing_notes(), "");
        let e = Stat::parse(&[0; 6]).unwrap_err();
        assert_eq!(e.offset, 4);
        assert_eq!(e.message, "STAT size 6 is not a whole number of words");
    }
}
