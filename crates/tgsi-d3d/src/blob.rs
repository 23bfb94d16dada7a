//! Bounds-checked little-endian access to chunk payloads and the matching
//! writer, shared by every DXBC chunk codec.
//!
//! Every read checks its range against the bytes it was given and fails with
//! a [`DecodeError`] naming the byte offset (relative to the slice), so the
//! chunk decoders never index out of range and never size an allocation by a
//! length field they have not checked against the remaining bytes first.

use super::DecodeError;

/// Padding byte fxc writes after strings and odd-sized tables.
pub const PAD: u8 = 0xAB;

/// A read-only view of a payload; offsets are relative to its first byte.
#[derive(Clone, Copy, Debug)]
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// A view of `data`.
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }

    /// The viewed bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// `len` bytes at `offset`, or an error naming `what`.
    pub fn slice(&self, offset: usize, len: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        match offset.checked_add(len) {
            Some(end) if end <= self.data.len() => Ok(&self.data[offset..end]),
            _ => Err(DecodeError::at(
                offset.min(self.data.len()),
                format!(
                    "{what}: {len} bytes at offset {offset} run past the end of the {} bytes available",
                    self.data.len()
                ),
            )),
        }
    }

    /// The little-endian u32 at `offset`.
    pub fn u32(&self, offset: usize, what: &str) -> Result<u32, DecodeError> {
        let b = self.slice(offset, 4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The little-endian u16 at `offset`.
    pub fn u16(&self, offset: usize, what: &str) -> Result<u16, DecodeError> {
        let b = self.slice(offset, 2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// `count` little-endian u32 words at `offset` (the range is checked
    /// before anything is allocated).
    pub fn u32s(&self, offset: usize, count: usize, what: &str) -> Result<Vec<u32>, DecodeError> {
        let bytes = count
            .checked_mul(4)
            .ok_or_else(|| DecodeError::at(offset, format!("{what}: count {count} overflows")))?;
        let b = self.slice(offset, bytes, what)?;
        Ok(b.chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect())
    }

    /// The NUL-terminated string at the offset stored in the u32 at `field`
    /// (a name field of a record); a bad offset is reported at the field.
    pub fn cstr_at_field(&self, field: usize, what: &str) -> Result<String, DecodeError> {
        let offset = self.u32(field, what)? as usize;
        self.cstr(offset, what).map_err(|e| e.moved_to(field))
    }

    /// Checks that `count` records of `size` bytes fit at `offset`.
    pub fn check_table(
        &self,
        offset: usize,
        count: usize,
        size: usize,
        what: &str,
    ) -> Result<(), DecodeError> {
        let bytes = count
            .checked_mul(size)
            .ok_or_else(|| DecodeError::at(offset, format!("{what}: {count} records overflow")))?;
        match offset.checked_add(bytes) {
            Some(end) if end <= self.data.len() => Ok(()),
            _ => Err(DecodeError::at(
                offset.min(self.data.len()),
                format!(
                    "{what}: {count} records of {size} bytes at offset {offset} need {bytes} bytes, only {} available",
                    self.data.len().saturating_sub(offset)
                ),
            )),
        }
    }

    /// The NUL-terminated string at `offset` (bytes above 0x7f are taken as
    /// Latin-1, so any input decodes).
    pub fn cstr(&self, offset: usize, what: &str) -> Result<String, DecodeError> {
        if offset >= self.data.len() {
            return Err(DecodeError::at(
                offset.min(self.data.len()),
                format!(
                    "{what}: string offset {offset} is outside the {} bytes available",
                    self.data.len()
                ),
            ));
        }
        let rest = &self.data[offset..];
        match rest.iter().position(|&b| b == 0) {
            Some(end) => Ok(rest[..end].iter().map(|&b| b as char).collect()),
            None => Err(DecodeError::at(
                offset,
                format!("{what}: string at offset {offset} has no terminating NUL"),
            )),
        }
    }
}

/// Little-endian output buffer with the placement helpers the chunk writers
/// need (fxc's string pools, 0xAB padding, patching offsets).
#[derive(Clone, Debug, Default)]
pub struct Writer {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// Current length (the offset of the next byte).
    pub fn pos(&self) -> usize {
        self.bytes.len()
    }

    /// Appends a u32.
    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends a u16.
    pub fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends raw bytes.
    pub fn raw(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
    }

    /// Appends `s` and its NUL; returns its offset.
    pub fn cstr(&mut self, s: &str) -> usize {
        let at = self.pos();
        self.bytes.extend(s.chars().map(latin1_byte));
        self.bytes.push(0);
        at
    }

    /// Pads with 0xAB up to a multiple of 4.
    pub fn align4(&mut self) {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(PAD);
        }
    }

    /// Overwrites the u32 at `at`.
    pub fn patch_u32(&mut self, at: usize, v: u32) {
        self.bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// The bytes written.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// The byte a decoded string character came from (strings are read as
/// Latin-1; characters beyond it cannot come from a decoded chunk and are
/// written as `?`).
pub fn latin1_byte(c: char) -> u8 {
    u8::try_from(u32::from(c)).unwrap_or(b'?')
}

/// Little-endian dwords as bytes (a payload built from its words).
pub fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Bytes as little-endian dwords (a trailing partial dword is dropped).
pub fn le_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// Converts a length or offset to the u32 stored in a chunk (chunks cannot be
/// 4 GiB, so saturating is only reached by callers building absurd data).
pub fn to_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_check_their_range_and_name_the_offset() {
        let b = Bytes::new(&[1, 0, 0, 0, b'a', b'b', 0, 7]);
        assert_eq!(b.u32(0, "count").unwrap(), 1);
        assert_eq!(b.cstr(4, "name").unwrap(), "ab");
        let e = b.u32(6, "count").unwrap_err();
        assert_eq!(e.offset, 6);
        assert!(e.message.contains("count: 4 bytes at offset 6"), "{e}");
        let e = b.cstr(7, "name").unwrap_err();
        assert_eq!(e.offset, 7);
        assert!(e.message.contains("no terminating NUL"), "{e}");
        let e = b.cstr(99, "name").unwrap_err();
        assert!(e.message.contains("string offset 99 is outside"), "{e}");
        let e = b.check_table(4, usize::MAX / 2, 8, "records").unwrap_err();
        assert!(e.message.contains("overflow"), "{e}");
        assert!(b.u32s(0, usize::MAX, "words").is_err());
    }

    #[test]
    fn a_bad_name_offset_is_reported_at_its_field() {
        let b = Bytes::new(&[8, 0, 0, 0, 99, 0, 0, 0, b'h', b'i', 0]);
        assert_eq!(b.cstr_at_field(0, "name").unwrap(), "hi");
        let e = b.cstr_at_field(4, "name").unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(
            e.message.contains("name: string offset 99 is outside"),
            "{e}"
        );
    }

    #[test]
    fn writer_pads_with_ab_and_patches() {
        let mut w = Writer::new();
        w.u32(0);
        assert_eq!(w.cstr("xy"), 4);
        w.align4();
        w.patch_u32(0, 9);
        assert_eq!(w.finish(), vec![9, 0, 0, 0, b'x', b'y', 0, 0xAB]);
        assert_eq!(le_words(&le_bytes(&[7, 0xABCD_EF01])), [7, 0xABCD_EF01]);
        assert_eq!(le_words(&[1, 0, 0, 0, 5]), [1]);
    }
}
