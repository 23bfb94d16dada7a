//! [`AtomicWords`]: bytes held as little-endian 32-bit words with relaxed
//! atomic access — the storage the threads of a dispatch share for buffers
//! (`exec`) and for images (`texture::SharedImage`).

use std::sync::atomic::{AtomicU32, Ordering};

/// A byte array as atomic words (relaxed access: plain moves on x86), plus
/// its length in bytes. A trailing partial word is zero-padded.
#[derive(Debug)]
pub struct AtomicWords {
    words: Vec<AtomicU32>,
    len: usize,
}

impl AtomicWords {
    /// Copies `bytes` into atomic words.
    pub fn from_bytes(bytes: &[u8]) -> AtomicWords {
        // whole words first (a loop the compiler vectorizes), then the padded tail
        let whole = bytes.chunks_exact(4);
        let tail = whole.remainder();
        let mut words: Vec<AtomicU32> = whole
            .map(|c| AtomicU32::new(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect();
        if !tail.is_empty() {
            let mut w = [0u8; 4];
            w[..tail.len()].copy_from_slice(tail);
            words.push(AtomicU32::new(u32::from_le_bytes(w)));
        }
        AtomicWords {
            words,
            len: bytes.len(),
        }
    }

    /// The first word's address, for code that reads and writes the words
    /// with plain 32-bit moves (the compiled engine: relaxed atomic loads
    /// and stores are plain moves on x86).
    pub fn as_ptr(&self) -> *mut u32 {
        self.words.as_ptr() as *mut u32
    }

    pub fn byte_len(&self) -> usize {
        self.len
    }

    /// Word `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<&AtomicU32> {
        self.words.get(i)
    }

    /// Copies the current contents into `bytes` (as far as both reach).
    pub fn write_back(&self, bytes: &mut [u8]) {
        let full = bytes.len() / 4;
        let mut whole = bytes.chunks_exact_mut(4);
        for (c, w) in (&mut whole).zip(&self.words) {
            c.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        let tail = whole.into_remainder();
        if let Some(w) = self.words.get(full) {
            let v = w.load(Ordering::Relaxed).to_le_bytes();
            let n = tail.len();
            tail.copy_from_slice(&v[..n]);
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = vec![0u8; self.len];
        self.write_back(&mut bytes);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_little_endian_and_the_tail_is_padded() {
        let w = AtomicWords::from_bytes(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(w.byte_len(), 6);
        assert_eq!(
            w.get(0).map(|w| w.load(Ordering::Relaxed)),
            Some(0x0403_0201)
        );
        assert_eq!(
            w.get(1).map(|w| w.load(Ordering::Relaxed)),
            Some(0x0000_0605)
        );
        assert!(w.get(2).is_none());
    }

    #[test]
    fn stores_reach_the_bytes_written_back() {
        let w = AtomicWords::from_bytes(&[0; 6]);
        if let Some(x) = w.get(1) {
            x.store(0xaabb_ccdd, Ordering::Relaxed);
        }
        // only the 2 bytes of the partial word that exist come back
        assert_eq!(w.to_bytes(), vec![0, 0, 0, 0, 0xdd, 0xcc]);
        let mut short = [9u8; 3];
        w.write_back(&mut short);
        assert_eq!(short, [0, 0, 0]);
    }
}
