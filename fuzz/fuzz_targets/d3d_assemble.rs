//! Fuzz target: arbitrary bytes as SM4/SM5 assembly through the assembler.
//!
//! `tgsi::d3d::parse_listing`, the validator and the container builder must
//! never panic; every program the parser accepts and the encoder can hold
//! must print losslessly and parse back to itself (the printer's output is
//! always valid input).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tgsi::d3d::{PrintOptions, parse_program, print_program_with};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = tgsi::d3d::assemble(&text);
    let Ok(programs) = tgsi::d3d::parse_listing(&text) else {
        return;
    };
    let lossless = PrintOptions {
        exact_floats: true,
        ..PrintOptions::default()
    };
    for parsed in programs {
        let _ = tgsi::d3d::validate(&parsed.program, Some(&parsed.map));
        let program = parsed.program;
        if tgsi::d3d::encode_program(&program).is_err() {
            // Text the grammar allows but the token fields cannot hold is
            // refused by the encoder with an error, which is fine.
            continue;
        }
        let printed = print_program_with(&program, &lossless);
        match parse_program(&printed) {
            Ok((again, _)) => assert_eq!(
                again, program,
                "printing then parsing changed the program; printed:\n{printed}"
            ),
            Err(d) => panic!(
                "the printer's output does not parse:\n{}\n--- printed:\n{printed}",
                d.render("printed.asm", &printed)
            ),
        }
    }
});
