//! Fuzz target: arbitrary bytes as a DXBC container through everything that
//! reads one: the container and chunk table, every chunk codec behind the fxc
//! listing, the SM4/SM5 token decoder and the level-9 decoder.
//!
//! None of them may panic. When the bytes hold a program chunk that decodes,
//! encoding it must give back exactly its words, and the validator must
//! judge it without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tgsi::d3d::container::{Container, tags};

fuzz_target!(|data: &[u8]| {
    let _ = tgsi::d3d::disassemble(data);
    let _ = tgsi::d3d::info::info(data);
    let Ok(container) = Container::parse(data) else {
        // The token decoder on its own: the bytes as a program payload.
        if let Ok(program) = tgsi::d3d::decode_program(data) {
            check_reencodes(data, &program);
        }
        return;
    };
    for chunk in &container.chunks {
        if chunk.tag == tags::SHDR || chunk.tag == tags::SHEX {
            if let Ok(program) = tgsi::d3d::decode_program(&chunk.data) {
                check_reencodes(&chunk.data, &program);
            }
        }
    }
});

fn check_reencodes(payload: &[u8], program: &tgsi::d3d::Program) {
    let map = tgsi::d3d::source_map::SourceMap::from_payload(payload, 0);
    let _ = tgsi::d3d::validate(program, Some(&map));
    let bytes = tgsi::d3d::encode_program_bytes(program).expect("a decoded program encodes");
    assert_eq!(
        payload.get(..bytes.len()),
        Some(bytes.as_slice()),
        "decode then encode changed the words"
    );
}
