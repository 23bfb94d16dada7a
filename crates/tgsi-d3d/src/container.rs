//! The DXBC container: header, chunk table and chunks, read and written
//! byte for byte, and the modified-MD5 checksum that guards it.
//!
//! Layout (all little-endian u32): magic `DXBC`, a 16-byte checksum, version
//! 1, total size, chunk count, then one absolute offset per chunk. Each chunk
//! is a FourCC tag, a payload size and the payload. Chunks are kept in file
//! order and unknown chunks byte for byte; [`Container::to_bytes`] lays them
//! out back to back after the header (as fxc does) and computes the checksum.
//!
//! Reading is structural ([`Container::parse`]); checking the checksum is a
//! separate step ([`verify_checksum`], [`Container::parse_verified`]) so a
//! blob whose checksum does not verify can still be listed with a warning.

use super::DecodeError;
use super::blob::{Bytes, to_u32};
use std::fmt;

/// `DXBC` read as a little-endian u32.
pub const DXBC_MAGIC: [u8; 4] = *b"DXBC";
/// The only container version fxc writes (and runtimes accept).
pub const CONTAINER_VERSION: u32 = 1;
/// Bytes before the chunk-offset table.
pub const HEADER_SIZE: usize = 32;
/// Bytes of a chunk header (tag and payload size).
pub const CHUNK_HEADER_SIZE: usize = 8;

/// A chunk tag such as `RDEF`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCC(pub [u8; 4]);

impl FourCC {
    /// The tag spelled by `s` (the first four bytes; shorter names are padded with NUL).
    pub const fn new(s: &[u8; 4]) -> FourCC {
        FourCC(*s)
    }

    /// The tag as text (non-printable bytes as `\xNN`).
    pub fn name(&self) -> String {
        let mut out = String::new();
        for &b in &self.0 {
            if b.is_ascii_graphic() || b == b' ' {
                out.push(b as char);
            } else {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
        out
    }
}

impl fmt::Display for FourCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Debug for FourCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FourCC({})", self.name())
    }
}

/// Chunk tags this crate decodes (other tags are kept as raw bytes).
pub mod tags {
    use super::FourCC;
    /// SM4 token stream.
    pub const SHDR: FourCC = FourCC(*b"SHDR");
    /// SM5 token stream.
    pub const SHEX: FourCC = FourCC(*b"SHEX");
    /// Reflection.
    pub const RDEF: FourCC = FourCC(*b"RDEF");
    /// Statistics.
    pub const STAT: FourCC = FourCC(*b"STAT");
    /// Required features.
    pub const SFI0: FourCC = FourCC(*b"SFI0");
    /// Class linkage (interfaces).
    pub const IFCE: FourCC = FourCC(*b"IFCE");
    /// Library header.
    pub const LIBH: FourCC = FourCC(*b"LIBH");
    /// Library function (a nested container).
    pub const LIBF: FourCC = FourCC(*b"LIBF");
    /// Library function parameter signature.
    pub const LFS0: FourCC = FourCC(*b"LFS0");
    /// Effect (fx_4/fx_5) data.
    pub const FX10: FourCC = FourCC(*b"FX10");
    /// Direct3D 9 bytecode for feature level 9.
    pub const AON9: FourCC = FourCC(*b"Aon9");
    /// XNA shader bytecode.
    pub const XNAS: FourCC = FourCC(*b"XNAS");
    /// XNA prepass shader bytecode.
    pub const XNAP: FourCC = FourCC(*b"XNAP");
}

/// One chunk: its tag and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The FourCC tag.
    pub tag: FourCC,
    /// The payload (without the 8-byte chunk header).
    pub data: Vec<u8>,
    /// Where the payload started in the blob it was read from (0 for built
    /// chunks); payload decoders shift their errors by it.
    pub payload_offset: usize,
}

impl Chunk {
    /// A chunk built from data.
    pub fn new(tag: FourCC, data: Vec<u8>) -> Chunk {
        Chunk {
            tag,
            data,
            payload_offset: 0,
        }
    }
}

/// A parsed DXBC container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    /// The checksum stored in the header (bytes 4..20 as four LE words).
    pub stored_checksum: [u32; 4],
    /// The chunks, in file order.
    pub chunks: Vec<Chunk>,
}

/// Whether the stored checksum matches the one computed over the blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChecksumStatus {
    /// Stored and computed checksums agree.
    Valid,
    /// They differ.
    Mismatch {
        /// What [`checksum`] computes over the blob.
        expected: [u32; 4],
        /// What the header holds.
        stored: [u32; 4],
    },
}

/// Formats a checksum as fxc-style hex words (`19578813 b1e4de1e ...`).
pub fn checksum_hex(c: &[u32; 4]) -> String {
    format!("{:08x} {:08x} {:08x} {:08x}", c[0], c[1], c[2], c[3])
}

impl Container {
    /// A container holding `chunks` (the checksum is computed when written).
    pub fn new(chunks: Vec<Chunk>) -> Container {
        Container {
            stored_checksum: [0; 4],
            chunks,
        }
    }

    /// Reads the header and chunk table, checking every offset and size
    /// against the blob. Does not check the checksum (see
    /// [`verify_checksum`] and [`Container::parse_verified`]).
    pub fn parse(bytes: &[u8]) -> Result<Container, DecodeError> {
        let b = Bytes::new(bytes);
        if bytes.len() < HEADER_SIZE {
            return Err(DecodeError::at(
                0,
                format!(
                    "truncated DXBC header: {} bytes, the header needs {HEADER_SIZE}",
                    bytes.len()
                ),
            ));
        }
        if bytes[0..4] != DXBC_MAGIC {
            return Err(DecodeError::at(
                0,
                format!(
                    "bad magic {}: a DXBC container starts with \"DXBC\"",
                    FourCC([bytes[0], bytes[1], bytes[2], bytes[3]])
                ),
            ));
        }
        let mut stored_checksum = [0u32; 4];
        for (i, word) in stored_checksum.iter_mut().enumerate() {
            *word = b.u32(4 + 4 * i, "checksum")?;
        }
        let version = b.u32(20, "container version")?;
        if version != CONTAINER_VERSION {
            return Err(DecodeError::at(
                20,
                format!("unsupported container version {version} (expected {CONTAINER_VERSION})"),
            ));
        }
        let total = b.u32(24, "total size")? as usize;
        if total != bytes.len() {
            return Err(DecodeError::at(
                24,
                format!(
                    "total size field says {total} bytes but the blob has {}",
                    bytes.len()
                ),
            ));
        }
        let count = b.u32(28, "chunk count")? as usize;
        let table_end = count
            .checked_mul(4)
            .and_then(|n| n.checked_add(HEADER_SIZE))
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| {
                DecodeError::at(
                    28,
                    format!(
                        "chunk count {count} needs a {}-byte offset table, the blob has {} bytes after the header",
                        count.saturating_mul(4),
                        bytes.len() - HEADER_SIZE
                    ),
                )
            })?;
        let mut chunks = Vec::with_capacity(count);
        for i in 0..count {
            let entry = HEADER_SIZE + 4 * i;
            let offset = b.u32(entry, "chunk offset")? as usize;
            if offset < table_end {
                return Err(DecodeError::at(
                    entry,
                    format!(
                        "chunk {i} offset {offset} points inside the container header (which ends at {table_end})"
                    ),
                ));
            }
            if offset
                .checked_add(CHUNK_HEADER_SIZE)
                .is_none_or(|end| end > bytes.len())
            {
                return Err(DecodeError::at(
                    entry,
                    format!(
                        "chunk {i} offset {offset} leaves no room for its 8-byte header in the {}-byte blob",
                        bytes.len()
                    ),
                ));
            }
            let tag = FourCC([
                bytes[offset],
                bytes[offset + 1],
                bytes[offset + 2],
                bytes[offset + 3],
            ]);
            let size = b.u32(offset + 4, "chunk size")? as usize;
            let start = offset + CHUNK_HEADER_SIZE;
            if start.checked_add(size).is_none_or(|end| end > bytes.len()) {
                return Err(DecodeError::at(
                    offset + 4,
                    format!(
                        "chunk {i} ({tag}) size {size} runs past the end of the blob ({} bytes left)",
                        bytes.len() - start
                    ),
                ));
            }
            chunks.push(Chunk {
                tag,
                data: bytes[start..start + size].to_vec(),
                payload_offset: start,
            });
        }
        Ok(Container {
            stored_checksum,
            chunks,
        })
    }

    /// [`Container::parse`], then fails if the checksum does not verify.
    pub fn parse_verified(bytes: &[u8]) -> Result<Container, DecodeError> {
        let c = Container::parse(bytes)?;
        verify_checksum(bytes)?;
        Ok(c)
    }

    /// The first chunk with `tag`.
    pub fn chunk(&self, tag: FourCC) -> Option<&Chunk> {
        self.chunks.iter().find(|c| c.tag == tag)
    }

    /// Every chunk with `tag`, in order.
    pub fn chunks_with(&self, tag: FourCC) -> impl Iterator<Item = &Chunk> {
        self.chunks.iter().filter(move |c| c.tag == tag)
    }

    /// The program chunk (`SHEX` or `SHDR`, whichever comes first).
    pub fn program(&self) -> Option<&Chunk> {
        self.chunks
            .iter()
            .find(|c| c.tag == tags::SHEX || c.tag == tags::SHDR)
    }

    /// Size in bytes of the written container.
    pub fn byte_size(&self) -> usize {
        HEADER_SIZE
            + 4 * self.chunks.len()
            + self
                .chunks
                .iter()
                .map(|c| CHUNK_HEADER_SIZE + c.data.len())
                .sum::<usize>()
    }

    /// The container as bytes: header, offset table, the chunks back to back,
    /// and the checksum computed over the result.
    pub fn to_bytes(&self) -> Vec<u8> {
        let total = self.byte_size();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(&DXBC_MAGIC);
        out.extend_from_slice(&[0; 16]);
        out.extend_from_slice(&CONTAINER_VERSION.to_le_bytes());
        out.extend_from_slice(&to_u32(total).to_le_bytes());
        out.extend_from_slice(&to_u32(self.chunks.len()).to_le_bytes());
        let mut offset = HEADER_SIZE + 4 * self.chunks.len();
        for c in &self.chunks {
            out.extend_from_slice(&to_u32(offset).to_le_bytes());
            offset += CHUNK_HEADER_SIZE + c.data.len();
        }
        for c in &self.chunks {
            out.extend_from_slice(&c.tag.0);
            out.extend_from_slice(&to_u32(c.data.len()).to_le_bytes());
            out.extend_from_slice(&c.data);
        }
        let sum = checksum(&out);
        for (i, w) in sum.iter().enumerate() {
            out[4 + 4 * i..8 + 4 * i].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

/// Compares the checksum stored in `bytes` with the computed one.
/// `bytes` must hold at least the 20 bytes of magic and checksum.
pub fn checksum_status(bytes: &[u8]) -> Result<ChecksumStatus, DecodeError> {
    let b = Bytes::new(bytes);
    let mut stored = [0u32; 4];
    for (i, word) in stored.iter_mut().enumerate() {
        *word = b.u32(4 + 4 * i, "checksum")?;
    }
    let expected = checksum(bytes);
    Ok(if expected == stored {
        ChecksumStatus::Valid
    } else {
        ChecksumStatus::Mismatch { expected, stored }
    })
}

/// Fails (at byte 4) when the stored checksum is not the computed one.
pub fn verify_checksum(bytes: &[u8]) -> Result<(), DecodeError> {
    match checksum_status(bytes)? {
        ChecksumStatus::Valid => Ok(()),
        ChecksumStatus::Mismatch { expected, stored } => Err(DecodeError::at(
            4,
            format!(
                "checksum mismatch: the blob's bytes hash to {} but the header stores {}",
                checksum_hex(&expected),
                checksum_hex(&stored)
            ),
        )),
    }
}

/// The DXBC checksum of a container: MD5's compression function run over
/// bytes 20.. of `bytes` with DXBC's own final padding (the bit count first
/// and `2·len+1` last in the final block instead of MD5's 64-bit length).
/// Blobs shorter than 20 bytes hash as if empty.
pub fn checksum(bytes: &[u8]) -> [u32; 4] {
    let data = bytes.get(20..).unwrap_or(&[]);
    let len = data.len();
    let bit_count = (len as u32).wrapping_mul(8);
    let tail_word = (bit_count >> 2) | 1;
    let mut state = MD5_INIT;
    let whole = len - len % 64;
    for block in data[..whole].chunks_exact(64) {
        md5_compress(&mut state, block.try_into().unwrap_or(&[0; 64]));
    }
    let rest = &data[whole..];
    let mut block = [0u8; 64];
    if rest.len() < 56 {
        block[0..4].copy_from_slice(&bit_count.to_le_bytes());
        block[4..4 + rest.len()].copy_from_slice(rest);
        block[4 + rest.len()] = 0x80;
        block[60..64].copy_from_slice(&tail_word.to_le_bytes());
        md5_compress(&mut state, &block);
    } else {
        block[..rest.len()].copy_from_slice(rest);
        block[rest.len()] = 0x80;
        md5_compress(&mut state, &block);
        let mut last = [0u8; 64];
        last[0..4].copy_from_slice(&bit_count.to_le_bytes());
        last[60..64].copy_from_slice(&tail_word.to_le_bytes());
        md5_compress(&mut state, &last);
    }
    state
}

const MD5_INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// Per-step left-rotation amounts of MD5 (four per round).
const MD5_SHIFTS: [u32; 16] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];

/// MD5's additive constants, floor(|sin(i + 1)| · 2^32).
const MD5_K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// The MD5 compression function over one 64-byte block.
fn md5_compress(state: &mut [u32; 4], block: &[u8; 64]) {
    let mut m = [0u32; 16];
    for (i, w) in m.iter_mut().enumerate() {
        *w = u32::from_le_bytes([
            block[4 * i],
            block[4 * i + 1],
            block[4 * i + 2],
            block[4 * i + 3],
        ]);
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        let rotated = a
            .wrapping_add(f)
            .wrapping_add(MD5_K[i])
            .wrapping_add(m[g])
            .rotate_left(MD5_SHIFTS[(i / 16) * 4 + i % 4]);
        a = d;
        d = c;
        c = b;
        b = b.wrapping_add(rotated);
    }
    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Standard MD5 built on the same compression function (to test it
    /// against the RFC 1321 vectors).
    fn md5(data: &[u8]) -> [u8; 16] {
        let mut state = MD5_INIT;
        let mut msg = data.to_vec();
        msg.push(0x80);
        while msg.len() % 64 != 56 {
            msg.push(0);
        }
        msg.extend_from_slice(&((data.len() as u64) * 8).to_le_bytes());
        for block in msg.chunks_exact(64) {
            md5_compress(&mut state, block.try_into().unwrap());
        }
        let mut out = [0u8; 16];
        for (i, w) in state.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn md5_compression_matches_rfc1321() {
        assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(&md5(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    /// Builds a container with the given chunks and checks that parse and
    /// write agree.
    fn sample() -> Vec<u8> {
        Container::new(vec![
            Chunk::new(FourCC(*b"ISGN"), vec![0, 0, 0, 0, 8, 0, 0, 0]),
            Chunk::new(FourCC(*b"ZZZZ"), vec![1, 2, 3]),
        ])
        .to_bytes()
    }

    #[test]
    fn write_then_parse_round_trips_and_verifies() {
        let bytes = sample();
        assert_eq!(bytes.len(), 32 + 8 + 16 + 11);
        let c = Container::parse_verified(&bytes).unwrap();
        assert_eq!(c.chunks.len(), 2);
        assert_eq!(c.chunks[1].tag.name(), "ZZZZ");
        assert_eq!(c.chunks[1].data, vec![1, 2, 3]);
        assert_eq!(c.chunks[0].payload_offset, 48);
        assert_eq!(c.to_bytes(), bytes);
    }

    /// An fxc-compiled empty compute shader (`[numthreads(1,1,1)] void
    /// main() {}`, cs_5_0, 116 bytes, as embedded in vkd3d-proton's tests):
    /// the stored checksum is the one computed, and rewriting the parsed
    /// container gives the same bytes.
    #[test]
    fn checksum_of_a_real_fxc_blob() {
        let words: [u32; 29] = [
            0x43425844, 0x1acc3ad0, 0x71c7b057, 0xc72c4306, 0xf432cb57, 0x00000001, 0x00000074,
            0x00000003, 0x0000002c, 0x0000003c, 0x0000004c, 0x4e475349, 0x00000008, 0x00000000,
            0x00000008, 0x4e47534f, 0x00000008, 0x00000000, 0x00000008, 0x58454853, 0x00000020,
            0x00050050, 0x00000008, 0x0100086a, 0x0400009b, 0x00000001, 0x00000001, 0x00000001,
            0x0100003e,
        ];
        let bytes = crate::blob::le_bytes(&words);
        assert_eq!(
            checksum(&bytes),
            [0x1acc3ad0, 0x71c7b057, 0xc72c4306, 0xf432cb57]
        );
        let c = Container::parse_verified(&bytes).unwrap();
        let names: Vec<String> = c.chunks.iter().map(|c| c.tag.name()).collect();
        assert_eq!(names, ["ISGN", "OSGN", "SHEX"]);
        assert_eq!(c.to_bytes(), bytes);
    }

    /// The algorithm's two padding cases and the skipped header bytes.
    #[test]
    fn checksum_covers_both_padding_cases() {
        // r < 56 and r >= 56 after the 20 skipped bytes, and a whole block.
        for len in [20usize, 21, 75, 76, 83, 84, 139, 140, 147] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let a = checksum(&data);
            let mut changed = data.clone();
            if len > 20 {
                changed[len - 1] ^= 1;
                assert_ne!(checksum(&changed), a, "len {len}");
            }
            // The first 20 bytes are not hashed.
            changed = data.clone();
            changed[5] ^= 0xff;
            assert_eq!(checksum(&changed), a, "len {len}");
        }
    }

    fn err(bytes: &[u8]) -> DecodeError {
        Container::parse(bytes).unwrap_err()
    }

    fn set_u32(bytes: &mut [u8], at: usize, v: u32) {
        bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn malformed_truncated_header() {
        let e = err(&sample()[..31]);
        assert_eq!(e.offset, 0);
        assert_eq!(
            e.message,
            "truncated DXBC header: 31 bytes, the header needs 32"
        );
    }

    #[test]
    fn malformed_empty_input() {
        let e = err(&[]);
        assert_eq!(e.offset, 0);
        assert!(e.message.starts_with("truncated DXBC header: 0 bytes"));
    }

    #[test]
    fn malformed_bad_magic() {
        let mut b = sample();
        b[0..4].copy_from_slice(b"DXBX");
        let e = err(&b);
        assert_eq!(e.offset, 0);
        assert_eq!(
            e.message,
            "bad magic DXBX: a DXBC container starts with \"DXBC\""
        );
    }

    #[test]
    fn malformed_binary_magic_is_escaped() {
        let mut b = sample();
        b[0..4].copy_from_slice(&[1, 0x20, 0xff, 0xfe]);
        let e = err(&b);
        assert!(
            e.message.starts_with("bad magic \\x01 \\xff\\xfe"),
            "{}",
            e.message
        );
    }

    /// A header field of `sample()` set to a bad value: the field's offset
    /// (where the error points), the value and the error message.
    const MALFORMED_FIELDS: &[(usize, u32, &str)] = &[
        (20, 2, "unsupported container version 2 (expected 1)"),
        (
            24,
            1000,
            "total size field says 1000 bytes but the blob has 67",
        ),
        (
            28,
            0x4000_0000,
            "chunk count 1073741824 needs a 4294967296-byte offset table, the blob has 35 bytes after the header",
        ),
        (
            28,
            u32::MAX,
            "chunk count 4294967295 needs a 17179869180-byte offset table, the blob has 35 bytes after the header",
        ),
        (
            36,
            500,
            "chunk 1 offset 500 leaves no room for its 8-byte header in the 67-byte blob",
        ),
        (
            36,
            62,
            "chunk 1 offset 62 leaves no room for its 8-byte header in the 67-byte blob",
        ),
        (
            32,
            u32::MAX,
            "chunk 0 offset 4294967295 leaves no room for its 8-byte header in the 67-byte blob",
        ),
        (
            32,
            4,
            "chunk 0 offset 4 points inside the container header (which ends at 40)",
        ),
        (
            60,
            4,
            "chunk 1 (ZZZZ) size 4 runs past the end of the blob (3 bytes left)",
        ),
        (
            44,
            u32::MAX,
            "chunk 0 (ISGN) size 4294967295 runs past the end of the blob (19 bytes left)",
        ),
    ];

    #[test]
    fn malformed_fields_are_reported_at_their_offset() {
        for &(field, value, message) in MALFORMED_FIELDS {
            let mut b = sample();
            set_u32(&mut b, field, value);
            let e = err(&b);
            assert_eq!((e.offset, e.message.as_str()), (field, message));
        }
    }

    #[test]
    fn malformed_trailing_bytes() {
        let mut b = sample();
        b.push(0);
        let e = err(&b);
        assert_eq!(e.offset, 24);
        assert_eq!(
            e.message,
            "total size field says 67 bytes but the blob has 68"
        );
    }

    #[test]
    fn malformed_bad_checksum_is_reported_but_parse_still_works() {
        let mut b = sample();
        b[4] ^= 0xff;
        assert!(Container::parse(&b).is_ok());
        let e = Container::parse_verified(&b).unwrap_err();
        assert_eq!(e.offset, 4);
        let good = checksum(&b);
        let mut stored = good;
        stored[0] ^= 0xff;
        assert_eq!(
            e.message,
            format!(
                "checksum mismatch: the blob's bytes hash to {} but the header stores {}",
                checksum_hex(&good),
                checksum_hex(&stored)
            )
        );
        assert_eq!(
            checksum_status(&b).unwrap(),
            ChecksumStatus::Mismatch {
                expected: good,
                stored
            }
        );
    }

    #[test]
    fn malformed_changed_payload_fails_checksum() {
        let mut b = sample();
        let last = b.len() - 1;
        b[last] ^= 0x10;
        assert!(matches!(
            checksum_status(&b).unwrap(),
            ChecksumStatus::Mismatch { .. }
        ));
    }

    #[test]
    fn checksum_status_needs_the_checksum_bytes() {
        let e = checksum_status(&[b'D', b'X', b'B', b'C', 0]).unwrap_err();
        assert_eq!(e.offset, 4);
    }
}
