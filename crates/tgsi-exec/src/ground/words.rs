//! [`AtomicWords`]: bytes held as little-endian 32-bit words with relaxed
//! atomic access — the storage the threads of a dispatch share for buffers
//! (`exec`) and for images (`texture::SharedImage`).
//!
//! [`AtomicWords::share`] lends a caller's buffer to a run without copying
//! it when the host can view the bytes as words in place (little-endian,
//! 4-byte aligned, a whole number of words): the one `unsafe` block of the
//! module. Any other buffer is copied in and written back by
//! [`AtomicWords::finish`].

use std::sync::atomic::{AtomicU32, Ordering};

/// A byte array as atomic words (relaxed access: plain moves on x86), plus
/// its length in bytes. A trailing partial word is zero-padded.
#[derive(Debug)]
pub struct AtomicWords<'a> {
    store: Store<'a>,
    len: usize,
}

#[derive(Debug)]
enum Store<'a> {
    /// The caller's bytes themselves, viewed as words: stores land in place.
    InPlace(&'a [AtomicU32]),
    /// A copy, written back into `home` (when there is one) by `finish`.
    Copied {
        words: Vec<AtomicU32>,
        home: Option<&'a mut [u8]>,
    },
}

/// `bytes` as words, when the host's layout allows it without copying;
/// else the bytes back.
fn in_place(bytes: &mut [u8]) -> Result<&[AtomicU32], &mut [u8]> {
    let fits = cfg!(target_endian = "little")
        && bytes.len().is_multiple_of(4)
        && (bytes.as_ptr() as usize).is_multiple_of(std::mem::align_of::<AtomicU32>());
    if !fits {
        return Err(bytes);
    }
    // SAFETY: the pointer is aligned for AtomicU32 (checked above) and the
    // slice covers exactly len/4 words of the caller's allocation; AtomicU32
    // has the size and alignment of u32 and every bit pattern is a valid
    // value. The returned slice reborrows the unique `&mut [u8]` for its
    // whole lifetime, so nothing else reads or writes those bytes meanwhile
    // (this is what the unstable `AtomicU32::from_mut_slice` provides). On a
    // little-endian host a word's value is `u32::from_le_bytes` of its bytes,
    // the layout every other path uses.
    Ok(unsafe {
        std::slice::from_raw_parts(bytes.as_mut_ptr() as *const AtomicU32, bytes.len() / 4)
    })
}

fn copy_words(bytes: &[u8]) -> Vec<AtomicU32> {
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
    words
}

impl AtomicWords<'static> {
    /// Copies `bytes` into atomic words.
    pub fn from_bytes(bytes: &[u8]) -> AtomicWords<'static> {
        AtomicWords {
            store: Store::Copied {
                words: copy_words(bytes),
                home: None,
            },
            len: bytes.len(),
        }
    }
}

impl<'a> AtomicWords<'a> {
    /// Lends `bytes` to a run: the bytes themselves when the host can view
    /// them as words, else a copy that [`AtomicWords::finish`] writes back.
    pub fn share(bytes: &'a mut [u8]) -> AtomicWords<'a> {
        let len = bytes.len();
        let store = match in_place(bytes) {
            Ok(words) => Store::InPlace(words),
            Err(bytes) => Store::Copied {
                words: copy_words(bytes),
                home: Some(bytes),
            },
        };
        AtomicWords { store, len }
    }

    /// Ends a [`AtomicWords::share`]: a copy goes back into the caller's bytes.
    pub fn finish(self) {
        if let Store::Copied {
            words,
            home: Some(home),
        } = self.store
        {
            write_words(&words, home);
        }
    }

    fn words(&self) -> &[AtomicU32] {
        match &self.store {
            Store::InPlace(w) => w,
            Store::Copied { words, .. } => words,
        }
    }

    /// The first word's address, for code that reads and writes the words
    /// with plain 32-bit moves (the compiled engine: relaxed atomic loads
    /// and stores are plain moves on x86).
    pub fn as_ptr(&self) -> *mut u32 {
        self.words().as_ptr() as *mut u32
    }

    pub fn byte_len(&self) -> usize {
        self.len
    }

    /// Word `i`, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&AtomicU32> {
        self.words().get(i)
    }

    /// Copies the current contents into `bytes` (as far as both reach).
    pub fn write_back(&self, bytes: &mut [u8]) {
        write_words(self.words(), bytes)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = vec![0u8; self.len];
        self.write_back(&mut bytes);
        bytes
    }
}

fn write_words(words: &[AtomicU32], bytes: &mut [u8]) {
    let full = bytes.len() / 4;
    let mut whole = bytes.chunks_exact_mut(4);
    for (c, w) in (&mut whole).zip(words) {
        c.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
    }
    let tail = whole.into_remainder();
    if let Some(w) = words.get(full) {
        let v = w.load(Ordering::Relaxed).to_le_bytes();
        let n = tail.len();
        tail.copy_from_slice(&v[..n]);
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

    #[test]
    fn shared_bytes_see_every_store_whether_in_place_or_copied() {
        // of the four windows at offsets 0..4, exactly one starts on a word
        // boundary whatever the allocation's address: it is lent in place,
        // the others are copied and written back; odd lengths are copied
        let mut backing = [0u8; 24];
        let mut in_place = 0;
        for (start, len) in (0..4).flat_map(|k| [(k, 8), (k, 7)]) {
            backing.fill(0);
            let cut = &mut backing[start..start + len];
            let addr = cut.as_ptr() as usize;
            let w = AtomicWords::share(cut);
            assert_eq!(w.byte_len(), len);
            if w.as_ptr() as usize == addr {
                in_place += 1;
                assert!(addr.is_multiple_of(4) && len == 8);
            }
            for i in 0..len.div_ceil(4) {
                if let Some(x) = w.get(i) {
                    x.store(0x0403_0201 + 0x1010_1010 * i as u32, Ordering::Relaxed);
                }
            }
            w.finish();
            let want: Vec<u8> = (0..len)
                .map(|b| (b % 4 + 1 + 0x10 * (b / 4)) as u8)
                .collect();
            assert_eq!(
                &backing[start..start + len],
                &want[..],
                "window {start}+{len}"
            );
            assert!(
                backing[..start]
                    .iter()
                    .chain(&backing[start + len..])
                    .all(|&b| b == 0)
            );
        }
        assert_eq!(in_place, usize::from(cfg!(target_endian = "little")));
    }
}
