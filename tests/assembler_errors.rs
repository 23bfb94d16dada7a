//! Error snapshots of the assembler: every file in `tests/data/malformed/`
//! is parsed, must fail, and its diagnostics rendered rustc-style are
//! compared with the reviewed snapshot in `tests/snapshots/`.

use std::path::Path;

fn render_errors(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/malformed")
        .join(file);
    let source =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match tgsi::text::parse(&source) {
        Ok(_) => panic!("{file} parsed without errors"),
        Err(diags) => {
            assert!(diags.has_errors());
            for d in &diags.0 {
                assert!(
                    d.primary.is_some(),
                    "{file}: diagnostic without a span: {}",
                    d.message
                );
            }
            diags.render(file, &source)
        }
    }
}

macro_rules! malformed {
    ($($test:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $test() {
                insta::assert_snapshot!(stringify!($test), render_errors($file));
            }
        )*

        /// Every input file has a test above, and every test has its file.
        #[test]
        fn every_malformed_file_is_tested() {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/malformed");
            let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            on_disk.sort();
            let mut listed = vec![$($file.to_string()),*];
            listed.sort();
            assert_eq!(on_disk, listed);
            assert!(listed.len() >= 40);
        }
    };
}

malformed! {
    m01_missing_header => "01_missing_header.tgsi",
    m02_unknown_header => "02_unknown_header.tgsi",
    m03_unknown_opcode => "03_unknown_opcode.tgsi",
    m04_too_few_operands => "04_too_few_operands.tgsi",
    m05_too_many_operands => "05_too_many_operands.tgsi",
    m06_bad_swizzle_letters => "06_bad_swizzle_letters.tgsi",
    m07_swizzle_wrong_length => "07_swizzle_wrong_length.tgsi",
    m08_writemask_out_of_order => "08_writemask_out_of_order.tgsi",
    m09_writemask_repeated => "09_writemask_repeated.tgsi",
    m10_unclosed_abs => "10_unclosed_abs.tgsi",
    m11_negate_inside_abs => "11_negate_inside_abs.tgsi",
    m12_unclosed_bracket => "12_unclosed_bracket.tgsi",
    m13_bad_register_file => "13_bad_register_file.tgsi",
    m14_index_overflow => "14_index_overflow.tgsi",
    m15_index_out_of_16_bits => "15_index_out_of_16_bits.tgsi",
    m16_octal_int64_immediate => "16_octal_int64_immediate.tgsi",
    m17_imm_index_out_of_order => "17_imm_index_out_of_order.tgsi",
    m18_label_on_non_branch => "18_label_on_non_branch.tgsi",
    m19_unknown_semantic => "19_unknown_semantic.tgsi",
    m20_unknown_property => "20_unknown_property.tgsi",
    m21_bad_texture_target => "21_bad_texture_target.tgsi",
    m22_bad_format_name => "22_bad_format_name.tgsi",
    m23_trailing_garbage => "23_trailing_garbage.tgsi",
    m24_lone_carriage_return => "24_lone_carriage_return.tgsi",
    m25_removed_opcode_sub => "25_removed_opcode_sub.tgsi",
    m26_removed_file_res => "26_removed_file_res.tgsi",
    m27_removed_file_immx => "27_removed_file_immx.tgsi",
    m28_preprocessor_directive => "28_preprocessor_directive.tgsi",
    m29_imm_wrong_value_count => "29_imm_wrong_value_count.tgsi",
    m30_imm_bad_float => "30_imm_bad_float.tgsi",
    m31_imm_uint32_overflow => "31_imm_uint32_overflow.tgsi",
    m32_imm_unknown_type => "32_imm_unknown_type.tgsi",
    m33_imm_unclosed_brace => "33_imm_unclosed_brace.tgsi",
    m34_empty_brackets_without_size => "34_empty_brackets_without_size.tgsi",
    m35_attribute_out_of_order => "35_attribute_out_of_order.tgsi",
    m36_bad_return_type => "36_bad_return_type.tgsi",
    m37_bad_primitive => "37_bad_primitive.tgsi",
    m38_bad_memory_qualifier => "38_bad_memory_qualifier.tgsi",
    m39_negative_direct_index => "39_negative_direct_index.tgsi",
    m40_indirect_two_components => "40_indirect_two_components.tgsi",
    m41_uint64_negative => "41_uint64_negative.tgsi",
    m42_many_errors_in_one_file => "42_many_errors_in_one_file.tgsi",
    m43_too_many_texel_offsets => "43_too_many_texel_offsets.tgsi",
    m44_label_missing_number => "44_label_missing_number.tgsi",
    m45_stream_out_of_range => "45_stream_out_of_range.tgsi",
    m46_array_id_too_large => "46_array_id_too_large.tgsi",
    m47_sign_separated_from_digits => "47_sign_separated_from_digits.tgsi",
    m48_unexpected_character => "48_unexpected_character.tgsi",
    m49_removed_opcode_kil => "49_removed_opcode_kil.tgsi",
    m50_opcode_after_label_missing => "50_opcode_after_label_missing.tgsi",
}

#[test]
fn errors_point_at_the_right_line() {
    let text = render_errors("42_many_errors_in_one_file.tgsi");
    for line in [":3:", ":4:", ":5:", ":6:"] {
        assert!(text.contains(line), "no error on line {line}:\n{text}");
    }
}
