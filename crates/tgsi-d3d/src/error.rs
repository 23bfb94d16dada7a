//! The error of every Direct3D binary reader: the byte offset in the input
//! where decoding stopped and what was expected there.

use std::fmt;

/// A binary Direct3D input could not be decoded.
///
/// `offset` counts bytes from the start of the outermost input (a reader that
/// decodes a chunk payload reports offsets inside that payload, and the
/// container shifts them with [`DecodeError::shifted`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset of the offending data.
    pub offset: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl DecodeError {
    /// An error at `offset` with `message`.
    pub fn at(offset: usize, message: impl Into<String>) -> DecodeError {
        DecodeError {
            offset,
            message: message.into(),
        }
    }

    /// The same message at `offset` instead: at the field that holds a bad
    /// count or offset rather than where following it led.
    pub fn moved_to(mut self, offset: usize) -> DecodeError {
        self.offset = offset;
        self
    }

    /// The same error with `base` added to its offset (a payload's position
    /// inside its container).
    pub fn shifted(mut self, base: usize) -> DecodeError {
        self.offset += base;
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "byte offset {} (0x{:x}): {}",
            self.offset, self.offset, self.message
        )
    }
}

impl std::error::Error for DecodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_moves_the_offset_and_display_names_it() {
        let e = DecodeError::at(8, "expected a chunk tag").shifted(0x20);
        assert_eq!(e.offset, 0x28);
        assert_eq!(e.to_string(), "byte offset 40 (0x28): expected a chunk tag");
    }
}
