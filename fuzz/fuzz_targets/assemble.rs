//! Fuzz target: arbitrary bytes as TGSI text through the whole assembler.
//!
//! `tgsi::assemble` must never panic; when it accepts a shader, the printed
//! text must assemble again to the same IR (the printer's output is always
//! valid input, and printing loses nothing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok((shader, _map)) = tgsi::assemble(&text) else {
        return;
    };
    let printed = tgsi::text::print(&shader);
    match tgsi::assemble(&printed) {
        Ok((again, _)) => assert_eq!(
            again, shader,
            "printing then assembling changed the shader; printed:\n{printed}"
        ),
        Err(d) => panic!(
            "the printer's output does not assemble:\n{}\n--- printed:\n{printed}",
            d.render("printed.tgsi", &printed)
        ),
    }
});
