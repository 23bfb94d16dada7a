//! Error snapshots of the Direct3D binary readers: each case damages a real
//! fxc blob (`vs5/mad_imm.o`: RDEF, ISGN, OSGN, SHEX, STAT) in one way, and
//! the message of `tgsi::d3d::disassemble` (container, every chunk codec, the
//! token decoder) or of the checksum check is compared with the reviewed
//! snapshot in `tests/snapshots/`. Every message names a byte offset inside
//! the input and what was expected there.

use tgsi::d3d::container::{ChecksumStatus, Container, FourCC, checksum_hex, checksum_status};

const BLOB: &str = "tests/fixtures/d3d/dxdecompiler/HlslCrossCompiler/vs5/mad_imm.o";

fn blob() -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(BLOB)).unwrap()
}

fn put(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// Byte offset of the payload of chunk `tag`.
fn payload(bytes: &[u8], tag: &[u8; 4]) -> usize {
    Container::parse(bytes)
        .unwrap()
        .chunk(FourCC(*tag))
        .unwrap()
        .payload_offset
}

/// Byte offset of program word `index` (0 = version token).
fn word(bytes: &[u8], index: usize) -> usize {
    payload(bytes, b"SHEX") + 4 * index
}

/// The message the readers give for `bytes`; the damage must be refused,
/// and the offset it names must lie inside the input.
fn error_of(bytes: &[u8]) -> String {
    let err = tgsi::d3d::disassemble(bytes).expect_err("the damaged blob must be refused");
    assert!(
        err.offset <= bytes.len(),
        "offset {} beyond the {}-byte input",
        err.offset,
        bytes.len()
    );
    err.to_string()
}

macro_rules! damaged {
    ($($name:ident: |$b:ident| $damage:expr;)*) => {
        $(
            #[test]
            fn $name() {
                #[allow(unused_mut)]
                let mut $b = blob();
                let damaged: Vec<u8> = $damage;
                insta::assert_snapshot!(stringify!($name), error_of(&damaged));
            }
        )*
    };
}

damaged! {
    b01_empty_file: |b| { b.clear(); b };
    b02_shorter_than_the_header: |b| b[..20].to_vec();
    b03_bad_magic: |b| { b[3] = b'D'; b };
    b04_container_version_2: |b| { put(&mut b, 20, 2); b };
    b05_total_size_larger_than_the_file: |b| { let n = b.len() as u32 + 4; put(&mut b, 24, n); b };
    b06_file_longer_than_the_total_size: |b| { b.extend_from_slice(&[0; 8]); b };
    b07_chunk_count_beyond_the_file: |b| { put(&mut b, 28, 0x4000_0000); b };
    b08_chunk_offset_past_the_end: |b| { let n = b.len() as u32; put(&mut b, 32, n + 16); b };
    b09_chunk_offset_inside_the_header: |b| { put(&mut b, 32, 8); b };
    b10_chunk_size_past_the_end: |b| { let at = payload(&b, b"ISGN") - 4; put(&mut b, at, 0x7fff_ffff); b };
    b11_rdef_creator_offset_out_of_range: |b| { let at = payload(&b, b"RDEF") + 24; put(&mut b, at, 0xffff); b };
    b12_signature_element_count_too_large: |b| { let at = payload(&b, b"ISGN"); put(&mut b, at, 1000); b };
    b13_signature_name_offset_out_of_range: |b| { let at = payload(&b, b"OSGN") + 8; put(&mut b, at, 0xfff0); b };
    b14_program_type_unknown: |b| { let at = word(&b, 0); put(&mut b, at, 0x0009_0050); b };
    b15_program_length_beyond_the_chunk: |b| { let at = word(&b, 1); put(&mut b, at, 500); b };
    b16_instruction_length_zero: |b| { let at = word(&b, 2); put(&mut b, at, 0x0000_086a); b };
    b17_instruction_longer_than_the_program: |b| { let at = word(&b, 3); put(&mut b, at, 0x7f00_005f); b };
    b18_reserved_opcode: |b| { let at = word(&b, 2); put(&mut b, at, 0x0100_006b); b };
    b19_undefined_operand_type: |b| { let at = word(&b, 4); let t = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()); put(&mut b, at, (t & !0x000f_f000) | 0x000f_f000); b };
    b20_stat_truncated: |b| { let at = payload(&b, b"STAT") - 4; put(&mut b, at, 2); b };
}

/// A blob whose bytes were changed after fxc wrote it still lists (with
/// `tgsi dis`), but its checksum names both digests.
#[test]
fn b21_checksum_mismatch_names_both_digests() {
    let mut b = blob();
    let at = word(&b, 5) + 2;
    b[at] ^= 1;
    let status = checksum_status(&b).unwrap();
    let ChecksumStatus::Mismatch { expected, stored } = status else {
        panic!("a changed byte must break the checksum");
    };
    let message = format!(
        "checksum mismatch: expected {}, stored {}",
        checksum_hex(&expected),
        checksum_hex(&stored)
    );
    insta::assert_snapshot!("b21_checksum_mismatch_names_both_digests", message);
    assert!(tgsi::d3d::disassemble(&b).is_ok());
}
