//! Error snapshots of the SM4/SM5 assembler: every file in
//! `tests/data/d3d_malformed/` is assembled, must fail, and its diagnostics
//! rendered rustc-style are compared with the reviewed snapshot in
//! `tests/snapshots/`.

use std::path::Path;

fn render_errors(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/d3d_malformed")
        .join(file);
    let source =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match tgsi::d3d::assemble_listing(&source) {
        Ok(_) => panic!("{file} assembled without errors"),
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
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/d3d_malformed");
            let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            on_disk.sort();
            let mut listed = vec![$($file.to_string()),*];
            listed.sort();
            assert_eq!(on_disk, listed);
            assert!(listed.len() >= 25);
        }
    };
}

malformed! {
    e01_unknown_mnemonic => "01_unknown_mnemonic.asm",
    e02_unknown_register => "02_unknown_register.asm",
    e03_bad_swizzle => "03_bad_swizzle.asm",
    e04_missing_operand => "04_missing_operand.asm",
    e05_too_many_operands => "05_too_many_operands.asm",
    e06_unterminated_icb => "06_unterminated_icb.asm",
    e07_bad_literal => "07_bad_literal.asm",
    e08_bad_suffix => "08_bad_suffix.asm",
    e09_aoffimmi_out_of_range => "09_aoffimmi_out_of_range.asm",
    e10_sample_count_too_big => "10_sample_count_too_big.asm",
    e11_unknown_system_value => "11_unknown_system_value.asm",
    e12_missing_version_line => "12_missing_version_line.asm",
    e13_tgsi_text => "13_tgsi_text.asm",
    e14_direct3d9_version => "14_direct3d9_version.asm",
    e15_dxil_version => "15_dxil_version.asm",
    e16_bad_write_mask => "16_bad_write_mask.asm",
    e17_missing_test_suffix => "17_missing_test_suffix.asm",
    e18_unclosed_abs => "18_unclosed_abs.asm",
    e19_immediate_value_count => "19_immediate_value_count.asm",
    e20_index_out_of_range => "20_index_out_of_range.asm",
    e21_stride_too_big => "21_stride_too_big.asm",
    e22_control_point_count_too_big => "22_control_point_count_too_big.asm",
    e23_unknown_return_type => "23_unknown_return_type.asm",
    e24_unknown_global_flag => "24_unknown_global_flag.asm",
    e25_unterminated_string => "25_unterminated_string.asm",
    e26_bad_escape => "26_bad_escape.asm",
    e27_precise_bad_mask => "27_precise_bad_mask.asm",
    e28_unknown_interpolation => "28_unknown_interpolation.asm",
    e29_too_many_indices => "29_too_many_indices.asm",
    e30_unknown_annotation => "30_unknown_annotation.asm",
    e31_preprocessor_directive => "31_preprocessor_directive.asm",
    e32_library_in_one_container => "32_library_in_one_container.asm",
    e33_trailing_text => "33_trailing_text.asm",
    e34_missing_dimension => "34_missing_dimension.asm",
    e35_offsets_without_suffix => "35_offsets_without_suffix.asm",
    e36_many_errors_in_one_run => "36_many_errors_in_one_run.asm",
    e37_bad_signature_row => "37_bad_signature_row.asm",
    e38_effect_version => "38_effect_version.asm",
    e39_relative_index_too_deep => "39_relative_index_too_deep.asm",
    e40_unknown_constant_buffer_access => "40_unknown_constant_buffer_access.asm",
}
