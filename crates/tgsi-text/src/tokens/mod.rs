//! Mesa's binary `tgsi_token` stream (Mesa 22.3's
//! `p_shader_tokens.h`): IR ↔ 32-bit words, and words ↔ little-endian bytes.
//!
//! The encoder writes exactly the words Mesa 22.3's `tgsi_text` makes of the
//! same text (checked against Mesa over the whole corpus). The decoder takes
//! any sequence of words and either returns the IR or an error naming the
//! word offset; it is strict, so that every stream it accepts encodes back to
//! the very same words: padding bits must be zero, every enumerated field must
//! hold a known value, `NrTokens` must match the words the flags call for,
//! operand counts must match the opcode table, and `BodySize` must match the
//! length. Facts and choices worth knowing:
//!
//! * as in Mesa, an instruction's `NrTokens` counts its words *without* the
//!   first one (Mesa's builder starts it at 0), while declarations,
//!   immediates and properties count every word of the token;
//! * the 4-bit cylindrical-wrap field that Mesa 21 kept at bits 6–9 of the
//!   interpolation word (padding in 22.3) is read and written there, so that
//!   [`tgsi_ir::ir::Interp::cylindrical_wrap`] survives; the text form never sets it;
//! * the Texture and Memory words are accepted on any opcode (the format allows
//!   them; which opcodes may carry them is the validator's business).

pub mod decode;
pub mod encode;

pub use decode::decode;
pub use encode::encode;

/// Why the IR could not be written as tokens: a value that does not fit its
/// field, or an IR shape the binary format cannot hold.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("statement {statement}: {message}")]
pub struct EncodeError {
    /// Index of the offending statement in [`tgsi_ir::ir::Shader::statements`].
    pub statement: usize,
    pub message: String,
}

/// Why a word stream is not a valid TGSI program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("word {word}: {message}")]
pub struct DecodeError {
    /// Offset (in 32-bit words from the start of the stream) of the bad word.
    pub word: usize,
    pub message: String,
}

/// Token types (`enum tgsi_token_type`).
pub(crate) const TOKEN_DECLARATION: u32 = 0;
pub(crate) const TOKEN_IMMEDIATE: u32 = 1;
pub(crate) const TOKEN_INSTRUCTION: u32 = 2;
pub(crate) const TOKEN_PROPERTY: u32 = 3;

/// Most texel offsets an instruction may carry (`TGSI_FULL_MAX_TEX_OFFSETS`).
pub(crate) const MAX_TEX_OFFSETS: usize = 4;

/// Extracts the unsigned field `[lo, lo + width)` of `word`.
pub(crate) fn field(word: u32, lo: u32, width: u32) -> u32 {
    ((word as u64 >> lo) & ((1u64 << width) - 1)) as u32
}

/// Extracts the two's-complement field `[lo, lo + width)` of `word`.
pub(crate) fn signed_field(word: u32, lo: u32, width: u32) -> i32 {
    let shifted = (word << (32 - lo - width)) as i32;
    shifted >> (32 - width)
}

/// Serialises words as little-endian bytes.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Reads little-endian 32-bit words; the length must be a multiple of 4.
pub fn bytes_to_words(bytes: &[u8]) -> Result<Vec<u32>, DecodeError> {
    let whole = bytes.len() / 4 * 4;
    if whole != bytes.len() {
        return Err(DecodeError {
            word: whole / 4,
            message: format!(
                "byte length {} is not a multiple of 4: {} stray byte(s) at byte offset {}",
                bytes.len(),
                bytes.len() - whole,
                whole
            ),
        });
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        assert_eq!(field(0xabcd_1234, 4, 8), 0x23);
        assert_eq!(field(0xffff_ffff, 0, 32), 0xffff_ffff);
        assert_eq!(signed_field(0x0000_ffff << 6, 6, 16), -1);
        assert_eq!(signed_field(0x0000_7fff << 6, 6, 16), 32767);
        assert_eq!(signed_field(0xffff_0000, 16, 16), -1);
    }

    #[test]
    fn bytes_round_trip() {
        let words = vec![0x0403_0201, 0xdead_beef];
        let bytes = words_to_bytes(&words);
        assert_eq!(bytes[..4], [1, 2, 3, 4]);
        assert_eq!(bytes_to_words(&bytes).unwrap(), words);
        let err = bytes_to_words(&bytes[..7]).unwrap_err();
        assert_eq!(err.word, 1);
        assert!(err.to_string().contains("byte offset 4"), "{err}");
    }
}
