//! Fuzz target: arbitrary bytes as little-endian `tgsi_token` words through
//! the decoder, in both processor numberings.
//!
//! `tgsi::tokens::decode` must never panic; when it accepts the words,
//! encoding the shader must not panic either, and when that succeeds the
//! words must decode to the same shader again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tgsi::enums::ProcessorNumbering;

fuzz_target!(|data: &[u8]| {
    let words: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for numbering in [ProcessorNumbering::Mesa22, ProcessorNumbering::Mesa21] {
        let Ok(shader) = tgsi::tokens::decode(&words, numbering) else {
            continue;
        };
        let Ok(encoded) = tgsi::tokens::encode(&shader, numbering) else {
            continue;
        };
        match tgsi::tokens::decode(&encoded, numbering) {
            Ok(again) => assert_eq!(again, shader, "encode then decode changed the shader"),
            Err(e) => panic!("the encoder's words do not decode: {e}"),
        }
    }
});
