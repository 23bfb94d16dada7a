//! A band's rows of a colour target and the output merge into them: where
//! a pixel's sample lies, how a texel is converted (RGBA8 and RGBA16F
//! batches side by side, every other format texel by texel), and the merge
//! of a shaded batch (blending, write masks, several samples) or of one
//! fragment ([`write_color`]).

use super::merge::{
    BlendClass, DepthStencilTest, blend, blend_lanes, blend_lanes_for_unorm_encode,
};
use super::state::{BlendFactor, BlendOp, BlendState, RenderState};
use tgsi_exec::LANES;
use tgsi_exec::ShadedBatch;
use tgsi_exec::texture::format::{
    Rgba8Encoder, rgba16f_decode_lanes, rgba16f_decode_pairs, rgba16f_encode_lanes,
};

/// The rows of one colour target a thread writes.
pub(crate) struct ColorRows<'a> {
    pub(crate) bytes: &'a mut [u8],
    pub(crate) pitch: usize,
    pub(crate) bpt: usize,
    pub(crate) class: BlendClass,
    pub(crate) texels: TexelCodec,
}

impl<'a> ColorRows<'a> {
    /// Rows of `pitch` bytes of a target of `format` (converted under
    /// Direct3D's rules when `direct3d`).
    pub(crate) fn new(
        bytes: &'a mut [u8],
        pitch: usize,
        format: tgsi_exec::texture::Format,
        direct3d: bool,
    ) -> ColorRows<'a> {
        ColorRows {
            bytes,
            pitch,
            bpt: format.bytes_per_texel(),
            class: BlendClass::of(format),
            texels: TexelCodec::of(format, direct3d),
        }
    }
}

impl ColorRows<'_> {
    /// Writes `color` (floats) to every texel and sample of the rows,
    /// encoded as the draw's writes to the target are.
    pub(crate) fn clear(&mut self, color: [f32; 4]) {
        let mut texel = [0u8; MAX_TEXEL];
        let mut wide = Vec::new();
        let texel = match texel.get_mut(..self.bpt) {
            Some(t) => t,
            None => {
                wide.resize(self.bpt, 0);
                &mut wide[..]
            }
        };
        self.texels.encode(color.map(f32::to_bits), texel);
        crate::merge::fill_by_doubling(self.bytes, texel);
    }
}

/// How a target's texels are read and written, chosen once per target.
#[derive(Clone, Copy)]
pub(crate) struct TexelCodec {
    pub(crate) format: tgsi_exec::texture::Format,
    /// Converted under Direct3D's rules (narrower floats toward zero,
    /// saturating: [`tgsi_exec::texture::Format::encode_direct3d_into`]).
    pub(crate) direct3d: bool,
    /// RGBA8 targets' conversion (the same bytes under both rules).
    pub(crate) rgba8: Option<Rgba8Encoder>,
    /// An RGBA16F target under TGSI's rule (round to nearest), whose
    /// lanes convert side by side.
    pub(crate) rgba16f: bool,
}

impl TexelCodec {
    /// The codec of a target of `format`, converted under Direct3D's rules
    /// when `direct3d` (RGBA16F then takes the general path).
    pub(crate) fn of(format: tgsi_exec::texture::Format, direct3d: bool) -> TexelCodec {
        TexelCodec {
            format,
            direct3d,
            rgba8: Rgba8Encoder::of(format),
            rgba16f: format == tgsi_exec::texture::Format::Rgba16Float && !direct3d,
        }
    }

    /// The float channels (raw words) of texel `src`.
    #[inline]
    fn decode(&self, src: &[u8]) -> [u32; 4] {
        self.format.decode(src)
    }

    /// Converts `v` into `dst`, one texel.
    #[inline]
    pub(crate) fn encode(&self, v: [u32; 4], dst: &mut [u8]) {
        if let (Some(e), Ok(texel)) = (self.rgba8, <&mut [u8; 4]>::try_from(&mut *dst)) {
            *texel = e.encode(v);
        } else if self.direct3d {
            self.format.encode_direct3d_into(v, dst);
        } else {
            self.format.encode_into(v, dst);
        }
    }
}

/// The most bytes of a colour texel a lane's converted colour is kept in
/// (RGBA32F; wider ones are converted sample by sample).
const MAX_TEXEL: usize = 16;

/// Writes (or blends) the fragments of one shaded batch into every colour
/// target, each covered sample of each, depth and stencil already tested
/// (or not tested); targets written whole without blending take
/// [`ColorRows::store`].
pub(crate) fn merge_batch(
    colors: &mut [ColorRows<'_>],
    state: &RenderState,
    y_lo: i64,
    samples: usize,
    b: &ShadedBatch<'_>,
) {
    for (n, t) in colors.iter_mut().enumerate() {
        let Some(rows) = b.color(n) else {
            continue;
        };
        let bs = &state.blend[n];
        let plain = bs.write_mask & 0xF == 0xF && !(bs.enabled && t.class != BlendClass::Integer);
        let blends = bs.enabled && t.class != BlendClass::Integer;
        if samples == 1 && (plain || blends && bs.write_mask & 0xF == 0xF) {
            // the lanes side by side: blended, converted, then the written
            // ones stored
            let at = |l: usize| (b.pixel[0][l], (b.pixel[1][l] as i64 - y_lo) as u32);
            let blended;
            let values = if plain {
                rows
            } else {
                let mut old = [[0f32; LANES]; 4];
                // the written lanes' texels side by side (0 elsewhere)
                #[cfg(target_arch = "x86_64")]
                if blend_quads_in_registers(t, bs, state.blend_factor, rows, b.writes, &at) {
                    continue;
                }
                if let Some(e) = t.texels.rgba8 {
                    old = match t.quad_pairs(b.writes, &at) {
                        Some(pairs) => e.decode_pairs(pairs),
                        None => {
                            let texels = t.gather::<4>(b.writes, &at).map(u32::from_le_bytes);
                            e.decode_lanes(&texels)
                        }
                    };
                } else if t.texels.rgba16f {
                    old = match t.quad_pairs(b.writes, &at) {
                        Some(pairs) => rgba16f_decode_pairs(pairs),
                        None => rgba16f_decode_lanes(&t.gather::<8>(b.writes, &at)),
                    };
                } else {
                    for_each_lane(b.writes, |l| {
                        let (x, row) = at(l);
                        let v = t.load(x, row, 0, 1);
                        for c in 0..4 {
                            old[c][l] = f32::from_bits(v[c]);
                        }
                    });
                }
                blended = blend_rows(bs, t.class, rows, &old, state.blend_factor);
                &blended
            };
            store_lanes(t, values, b.writes, at);
            continue;
        }
        // several samples: a lane's colour converted once (RGBA8: the
        // batch's lanes together), its bytes written to each covered sample
        let encoded = t
            .texels
            .rgba8
            .filter(|_| plain)
            .map(|e| e.encode_lanes(rows));
        let mut w = b.writes;
        while w != 0 {
            let l = w.trailing_zeros() as usize;
            w &= w - 1;
            let (x, row) = (b.pixel[0][l], (b.pixel[1][l] as i64 - y_lo) as u32);
            let v = [rows[0][l], rows[1][l], rows[2][l], rows[3][l]];
            let covered = (0..samples).filter(|s| b.coverage[l] & (1 << s) != 0);
            if !plain {
                for s in covered {
                    write_color(t, state, n, x, row, s, samples, v);
                }
                continue;
            }
            if let Some(all) = &encoded {
                // RGBA8: the texel's 4 bytes to each covered sample, the
                // pixel's samples side by side
                let first = t.offset(x, row, 0, samples);
                if let Some(cells) = t.bytes.get_mut(first..first + 4 * samples) {
                    for (s, cell) in cells.chunks_exact_mut(4).enumerate() {
                        if b.coverage[l] >> s & 1 != 0 {
                            cell.copy_from_slice(&all[l]);
                        }
                    }
                }
                continue;
            }
            let mut texel = [0u8; MAX_TEXEL];
            let bytes = match (&encoded, texel.get_mut(..t.bpt)) {
                (Some(all), _) => &all[l][..],
                (None, Some(bytes)) => {
                    t.texels.encode(v, bytes);
                    bytes
                }
                (None, None) => {
                    for s in covered {
                        t.store(x, row, s, samples, v);
                    }
                    continue;
                }
            };
            for s in covered {
                t.store_bytes(x, row, s, samples, bytes);
            }
        }
    }
}

/// [`blend_lanes`] of a batch's colour rows (`src`, raw words) over the old
/// texels' rows `dst`, as raw words: 16 lanes to a register where the CPU
/// has AVX-512 (the same bits: [`super::merge::BlendRow`]).
fn blend_rows(
    state: &BlendState,
    class: BlendClass,
    src: &[[u32; LANES]; 4],
    dst: &[[f32; LANES]; 4],
    k: [f32; 4],
) -> [[u32; LANES]; 4] {
    #[cfg(target_arch = "x86_64")]
    if let Some(cpu) = tgsi_exec::tiles::Avx512::detect() {
        return tgsi_exec::tiles::wide(BlendWide {
            cpu,
            state,
            class,
            src,
            dst,
            k,
        });
    }
    let s = src.map(|r| r.map(f32::from_bits));
    blend_lanes(state, class, &s, dst, k).map(|r| r.map(f32::to_bits))
}

/// [`blend_rows`] over [`tgsi_exec::tiles::Row16`] rows, run inlined into
/// code compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
struct BlendWide<'a> {
    cpu: tgsi_exec::tiles::Avx512,
    state: &'a BlendState,
    class: BlendClass,
    src: &'a [[u32; LANES]; 4],
    dst: &'a [[f32; LANES]; 4],
    k: [f32; 4],
}

#[cfg(target_arch = "x86_64")]
impl tgsi_exec::tiles::Kernel for BlendWide<'_> {
    type Out = [[u32; LANES]; 4];

    #[inline(always)]
    fn run(self) -> Self::Out {
        use tgsi_exec::tiles::Row16;
        // no `map`: its closure may stay out of line, outside this
        // function's AVX-512 code
        let (cpu, src, dst) = (self.cpu, self.src, self.dst);
        let s = Row16::load_rows_bits(cpu, src);
        let d = [
            Row16::load(cpu, &dst[0]),
            Row16::load(cpu, &dst[1]),
            Row16::load(cpu, &dst[2]),
            Row16::load(cpu, &dst[3]),
        ];
        let out = blend_lanes(self.state, self.class, &s, &d, self.k);
        [
            out[0].to_bits(),
            out[1].to_bits(),
            out[2].to_bits(),
            out[3].to_bits(),
        ]
    }
}

/// Merges a blended batch (shaded rows `src`, written lanes `writes` at
/// pixels `at(l)`) into an RGBA8 or RGBA16F target in registers
/// ([`BlendQuads`]) when its written lanes are whole quads inside the
/// rows and the CPU has AVX-512; false, nothing done, otherwise.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn blend_quads_in_registers(
    t: &mut ColorRows<'_>,
    state: &BlendState,
    k: [f32; 4],
    src: &[[u32; LANES]; 4],
    writes: u16,
    at: &impl Fn(usize) -> (u32, u32),
) -> bool {
    let rgba8 = t.texels.rgba8.and_then(|e| e.rows());
    let rgba16f = t
        .texels
        .rgba16f
        .then(tgsi_exec::tiles::Avx512::detect)
        .flatten();
    if rgba8.is_none() && rgba16f.is_none() {
        return false;
    }
    let Some(tops) = t.quad_tops(writes, at) else {
        return false;
    };
    let target = t;
    match (rgba8, rgba16f) {
        (Some(codec), _) => tgsi_exec::tiles::wide(BlendQuads {
            codec,
            state,
            k,
            src,
            target,
            tops,
        }),
        (None, Some(cpu)) => tgsi_exec::tiles::wide(BlendQuads {
            codec: Rgba16fPairs(cpu),
            state,
            k,
            src,
            target,
            tops,
        }),
        (None, None) => {}
    }
    true
}

/// How a target's texels convert in registers (AVX-512), two
/// neighbouring texels (`P` bytes) at a time: [`BlendQuads`]'s formats.
#[cfg(target_arch = "x86_64")]
trait PairCodec<const P: usize>: Copy {
    fn cpu(self) -> tgsi_exec::tiles::Avx512;
    /// The channel rows of 16 texels given as eight pairs (`pairs[p]`:
    /// lanes 2p and 2p + 1).
    fn decode(self, pairs: [&[u8; P]; 8]) -> [tgsi_exec::tiles::Row16; 4];
    /// The texels of channel rows, as eight pairs.
    fn encode(self, rows: [tgsi_exec::tiles::Row16; 4]) -> [[u8; P]; 8];
}

#[cfg(target_arch = "x86_64")]
impl PairCodec<8> for tgsi_exec::texture::format::Rgba8Rows {
    #[inline(always)]
    fn cpu(self) -> tgsi_exec::tiles::Avx512 {
        Self::cpu(self)
    }
    #[inline(always)]
    fn decode(self, pairs: [&[u8; 8]; 8]) -> [tgsi_exec::tiles::Row16; 4] {
        self.decode_pairs(pairs)
    }
    #[inline(always)]
    fn encode(self, rows: [tgsi_exec::tiles::Row16; 4]) -> [[u8; 8]; 8] {
        Self::encode(self, rows).pairs()
    }
}

/// RGBA16F under TGSI's rule (round to nearest even) in registers.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Rgba16fPairs(tgsi_exec::tiles::Avx512);

#[cfg(target_arch = "x86_64")]
impl PairCodec<16> for Rgba16fPairs {
    #[inline(always)]
    fn cpu(self) -> tgsi_exec::tiles::Avx512 {
        self.0
    }
    #[inline(always)]
    fn decode(self, pairs: [&[u8; 16]; 8]) -> [tgsi_exec::tiles::Row16; 4] {
        tgsi_exec::tiles::Row16::rgba16f_decode_pairs(self.0, pairs)
    }
    #[inline(always)]
    fn encode(self, rows: [tgsi_exec::tiles::Row16; 4]) -> [[u8; 16]; 8] {
        tgsi_exec::tiles::Row16::rgba16f_texel_pairs(rows)
    }
}

/// A blended batch of whole quads merged in registers: the old texels
/// read as the quads' rows of two ([`ColorRows::quad_tops`]), decoded,
/// blended under `state` with the shaded rows `src`, converted and written
/// back, the lanes never leaving AVX-512 registers (the bits of the steps
/// apart: [`Rgba8Encoder::decode_pairs`] or [`rgba16f_decode_pairs`],
/// [`blend_rows`], [`store_lanes`]).
#[cfg(target_arch = "x86_64")]
struct BlendQuads<'a, 'b, C, const P: usize> {
    codec: C,
    state: &'a BlendState,
    k: [f32; 4],
    src: &'a [[u32; LANES]; 4],
    target: &'a mut ColorRows<'b>,
    tops: [Option<usize>; LANES / 4],
}

#[cfg(target_arch = "x86_64")]
impl<const P: usize, C: PairCodec<P>> tgsi_exec::tiles::Kernel for BlendQuads<'_, '_, C, P> {
    type Out = ();

    #[inline(always)]
    fn run(self) {
        use tgsi_exec::tiles::Row16;
        let (codec, src, t) = (self.codec, self.src, self.target);
        let cpu = codec.cpu();
        let old = codec.decode(t.pairs_at::<P>(&self.tops));
        let s = Row16::load_rows_bits(cpu, src);
        // the common over-blend with its factors known here (the same
        // steps, chosen once for the kernel rather than per channel)
        let out = match (*self.state == OVER, t.class) {
            // (the RGBA8 encode below clamps and takes NaN to 0 itself)
            (true, BlendClass::Unorm) => blend_lanes_for_unorm_encode(&OVER, &s, &old, self.k),
            (true, BlendClass::Float) => blend_lanes(&OVER, BlendClass::Float, &s, &old, self.k),
            _ => blend_lanes(self.state, t.class, &s, &old, self.k),
        };
        let texels = codec.encode(out);
        let pitch = t.pitch;
        for (q, top) in self.tops.iter().enumerate() {
            let Some(top) = *top else { continue };
            for (k, o) in [top, top + pitch].into_iter().enumerate() {
                if let Some(dst) = t.bytes.get_mut(o..o + P) {
                    dst.copy_from_slice(&texels[2 * q + k]);
                }
            }
        }
    }
}

/// Alpha blending "over" (source alpha, one minus source alpha, added,
/// for colour and alpha), all channels written.
#[cfg(target_arch = "x86_64")]
const OVER: BlendState = BlendState {
    enabled: true,
    src: BlendFactor::SrcAlpha,
    dst: BlendFactor::InvSrcAlpha,
    op: BlendOp::Add,
    src_alpha: BlendFactor::SrcAlpha,
    dst_alpha: BlendFactor::InvSrcAlpha,
    op_alpha: BlendOp::Add,
    write_mask: 0xF,
};

/// Calls `f` with each lane set in `mask`, in lane order.
#[inline(always)]
pub(crate) fn for_each_lane(mut mask: u16, mut f: impl FnMut(usize)) {
    while mask != 0 {
        let l = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        f(l);
    }
}

/// Stores the lanes of `values` (channel rows) set in `writes` to their
/// pixels `at(l)` (x and row) of a one-sample target: RGBA8 and (under
/// TGSI's rule) RGBA16F targets convert every lane side by side first.
pub(crate) fn store_lanes(
    t: &mut ColorRows<'_>,
    values: &[[u32; LANES]; 4],
    writes: u16,
    at: impl Fn(usize) -> (u32, u32),
) {
    if let Some(e) = t.texels.rgba8 {
        t.scatter(writes, &at, &e.encode_lanes(values));
    } else if t.texels.rgba16f {
        t.scatter(writes, &at, &rgba16f_encode_lanes(values));
    } else {
        for_each_lane(writes, |l| {
            let (x, row) = at(l);
            let v = std::array::from_fn(|c| values[c][l]);
            t.store(x, row, 0, 1, v);
        });
    }
}

impl ColorRows<'_> {
    /// The `N` bytes of each lane set in `writes` (one sample per pixel,
    /// `N` bytes per texel), at its pixel `at(l)`; zeros elsewhere.
    fn gather<const N: usize>(
        &self,
        writes: u16,
        at: impl Fn(usize) -> (u32, u32),
    ) -> [[u8; N]; LANES] {
        let mut texels = [[0u8; N]; LANES];
        self.walk().each_texel(writes, &at, N, |t| match t {
            Texels::Quad(q, rows) => {
                for (k, o) in rows.into_iter().enumerate() {
                    let pair = &mut texels[4 * q + 2 * k..4 * q + 2 * k + 2];
                    pair.as_flattened_mut()
                        .copy_from_slice(&self.bytes[o..o + 2 * N]);
                }
            }
            Texels::Lane(l, o) => {
                if let Some(b) = self.bytes.get(o..).and_then(|b| b.get(..N)) {
                    texels[l].copy_from_slice(b);
                }
            }
        });
        texels
    }

    /// The texels of a batch whose written lanes (`writes`) are whole 2x2
    /// quads laid out as a batch lays them ([`quad_origin`]) inside these
    /// one-sample rows of `P / 2`-byte texels, as each quad's two rows of
    /// two texels (`pairs[2q]` its top row, `pairs[2q + 1]` its bottom row;
    /// zeros for a quad with no lane written). None otherwise.
    fn quad_pairs<const P: usize>(
        &self,
        writes: u16,
        at: &impl Fn(usize) -> (u32, u32),
    ) -> Option<[&[u8; P]; 8]> {
        if 2 * self.bpt != P {
            return None;
        }
        Some(self.pairs_at(&self.quad_tops(writes, at)?))
    }

    /// Where the quads of a batch whose written lanes (`writes`) are whole
    /// 2x2 quads laid out as a batch lays them ([`quad_origin`]) start in
    /// these one-sample rows: per quad the byte offset of its top row's
    /// first texel (None for a quad with no lane written), both of its
    /// rows' two texels inside the rows. None otherwise.
    #[inline(always)]
    fn quad_tops(
        &self,
        writes: u16,
        at: &impl Fn(usize) -> (u32, u32),
    ) -> Option<[Option<usize>; LANES / 4]> {
        let mut tops = [None; LANES / 4];
        for (q, top) in tops.iter_mut().enumerate() {
            match writes >> (4 * q) & 0xF {
                0 => continue,
                0xF => {}
                _ => return None,
            }
            let (x, row) = quad_origin(at, q)?;
            let first = row as usize * self.pitch + x as usize * self.bpt;
            let end = first + self.pitch + 2 * self.bpt;
            if end > self.bytes.len() {
                return None;
            }
            *top = Some(first);
        }
        Some(tops)
    }

    /// The texel pairs of the quads starting at `tops` ([`Self::quad_tops`]):
    /// `pairs[2q]` quad q's top row, `pairs[2q + 1]` its bottom row, zeros
    /// for a quad without a start (`P` bytes: two texels).
    fn pairs_at<const P: usize>(&self, tops: &[Option<usize>; LANES / 4]) -> [&[u8; P]; 8] {
        let none = &[0; P];
        let mut pairs = [none; 8];
        for (q, top) in tops.iter().enumerate() {
            let Some(top) = *top else { continue };
            for (k, o) in [top, top + self.pitch].into_iter().enumerate() {
                if let Some(pair) = self.bytes.get(o..o + P).and_then(|b| b.try_into().ok()) {
                    pairs[2 * q + k] = pair;
                }
            }
        }
        pairs
    }

    /// Writes `texels[l]` (`N` bytes each) of the lanes set in `writes` to
    /// their pixels `at(l)` (one sample per pixel).
    fn scatter<const N: usize>(
        &mut self,
        writes: u16,
        at: impl Fn(usize) -> (u32, u32),
        texels: &[[u8; N]; LANES],
    ) {
        // every lane's offset, then the written ones at once (no branch on
        // which lanes are written, which mispredicted at triangles' edges)
        if N == self.bpt {
            let (pitch, bpt) = (self.pitch as u64, self.bpt as u64);
            // (exact: a row below 2^32 times a pitch within the rows, which
            // a resource's 1 GiB cap bounds, plus x times the texel size,
            // stays far below 2^64; wrapping keeps any other case from
            // panicking, and the kernel checks every written offset)
            let offsets = std::array::from_fn(|l| {
                let (x, row) = at(l);
                let start = u64::from(row).wrapping_mul(pitch);
                start.wrapping_add(u64::from(x).wrapping_mul(bpt))
            });
            if tgsi_exec::tiles::scatter_texels(self.bytes, &offsets, texels, writes) {
                return;
            }
        }
        let walk = self.walk();
        let bytes = &mut *self.bytes;
        walk.each_texel(writes, &at, N, |t| match t {
            Texels::Quad(q, rows) => {
                for (k, o) in rows.into_iter().enumerate() {
                    let pair = &texels[4 * q + 2 * k..4 * q + 2 * k + 2];
                    bytes[o..o + 2 * N].copy_from_slice(pair.as_flattened());
                }
            }
            Texels::Lane(l, o) => {
                if let Some(dst) = bytes.get_mut(o..).and_then(|b| b.get_mut(..N)) {
                    dst.copy_from_slice(&texels[l]);
                }
            }
        });
    }

    /// How [`TexelWalk::each_texel`] finds these rows' texels.
    fn walk(&self) -> TexelWalk {
        TexelWalk {
            pitch: self.pitch,
            bpt: self.bpt,
            len: self.bytes.len(),
        }
    }

    /// The byte offset of sample `s` of pixel `x` of row `row`.
    #[inline(always)]
    fn offset(&self, x: u32, row: u32, s: usize, samples: usize) -> usize {
        row as usize * self.pitch + (x as usize * samples + s) * self.bpt
    }

    /// The value at sample `s` of pixel `x` of row `row`, as the target's
    /// format reads it.
    pub(crate) fn load(&self, x: u32, row: u32, s: usize, samples: usize) -> [u32; 4] {
        let o = self.offset(x, row, s, samples);
        self.bytes
            .get(o..o + self.bpt)
            .map_or([0; 4], |b| self.texels.decode(b))
    }

    /// Stores `v` at sample `s` of pixel `x` of row `row`, converted to the
    /// target's format.
    #[inline]
    fn store(&mut self, x: u32, row: u32, s: usize, samples: usize, v: [u32; 4]) {
        let o = self.offset(x, row, s, samples);
        if let Some(dst) = self.bytes.get_mut(o..o + self.bpt) {
            self.texels.encode(v, dst);
        }
    }

    /// Writes `texel` (converted already: [`Self::bpt`] bytes) at sample
    /// `s` of pixel `x` of row `row`.
    #[inline]
    fn store_bytes(&mut self, x: u32, row: u32, s: usize, samples: usize, texel: &[u8]) {
        let o = self.offset(x, row, s, samples);
        if let Some(dst) = self.bytes.get_mut(o..o + self.bpt)
            && dst.len() == texel.len()
        {
            dst.copy_from_slice(texel);
        }
    }
}

/// Where a band's one-sample texels are: the rows' pitch, bytes per texel
/// and length.
#[derive(Clone, Copy)]
struct TexelWalk {
    pitch: usize,
    bpt: usize,
    len: usize,
}

impl TexelWalk {
    /// Walks the lanes set in `writes` (texels of `n` bytes) quad by quad,
    /// calling `visit` with each whole 2x2 quad inside the rows laid out as
    /// a batch lays them (its first lane's pixel `at(4q)`, then one pixel
    /// right, one row down and both) and with each lane of the others.
    #[inline(always)]
    fn each_texel(
        self,
        writes: u16,
        at: &impl Fn(usize) -> (u32, u32),
        n: usize,
        mut visit: impl FnMut(Texels),
    ) {
        let offset = |(x, row): (u32, u32)| row as usize * self.pitch + x as usize * self.bpt;
        for q in 0..LANES / 4 {
            let lanes = writes >> (4 * q) & 0xF;
            if lanes == 0 {
                continue;
            }
            if lanes == 0xF
                && n == self.bpt
                && let Some(origin) = quad_origin(at, q)
            {
                let top = offset(origin);
                let bottom = top + self.pitch;
                if bottom + 2 * n <= self.len {
                    visit(Texels::Quad(q, [top, bottom]));
                    continue;
                }
            }
            for_each_lane(lanes << (4 * q), |l| visit(Texels::Lane(l, offset(at(l)))));
        }
    }
}

/// The pixel (x, row) of quad `q`'s first lane when its lanes lie as a
/// batch lays them out (`at(4q)`, then one pixel right, one row down and
/// both).
#[inline(always)]
fn quad_origin(at: &impl Fn(usize) -> (u32, u32), q: usize) -> Option<(u32, u32)> {
    let (x, row) = at(4 * q);
    let quad = [(x + 1, row), (x, row + 1), (x + 1, row + 1)];
    (1..4)
        .all(|k| at(4 * q + k) == quad[k - 1])
        .then_some((x, row))
}

/// What [`TexelWalk::each_texel`] visits.
enum Texels {
    /// Quad q, its two texel pairs at these byte offsets (inside the rows).
    Quad(usize, [usize; 2]),
    /// Lane l, its texel at this byte offset (perhaps past the rows).
    Lane(usize, usize),
}

/// A late depth/stencil test of one sample: the test, the fragment's depth
/// and facing, and the sample's depth and stencil cells.
pub(crate) struct LateTest<'a> {
    pub test: &'a DepthStencilTest,
    pub depth: f32,
    pub front: bool,
    pub stored_depth: &'a mut u32,
    pub stored_stencil: &'a mut u8,
}

/// One covered sample `s` of fragment `out` at pixel `x` of row `row`
/// through the late depth/stencil test (when given) and into `colors`;
/// for a watched pixel, the merge is recorded in the tracer's history
/// (with the fragment's primitive).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn merge_sample(
    out: &tgsi_exec::FragmentOutput,
    (x, row, s, samples): (u32, u32, usize, usize),
    late: Option<LateTest<'_>>,
    colors: &mut [ColorRows<'_>],
    state: &RenderState,
    watched: Option<(&tgsi_exec::trace::Tracer, u32)>,
) {
    let mut event = watched.map(|(_, primitive)| tgsi_exec::trace::MergeEvent {
        draw: 0,
        primitive,
        sample: s as u32,
        depth_test: None,
        colors: Vec::new(),
    });
    if let Some(l) = late {
        let stored = l.test.format.dequantize(*l.stored_depth);
        let passed = l
            .test
            .test(l.depth, l.front, l.stored_depth, l.stored_stencil);
        if let Some(e) = event.as_mut() {
            e.depth_test = Some((passed, l.depth, stored));
        }
        if !passed {
            if let (Some((t, _)), Some(e)) = (watched, event) {
                t.record_merge(e);
            }
            return;
        }
    }
    for (n, t) in colors.iter_mut().enumerate() {
        if out.written & (1 << n) != 0 {
            let before = event.as_ref().map(|_| t.load(x, row, s, samples));
            write_color(t, state, n, x, row, s, samples, out.colors[n]);
            if let (Some(e), Some(b)) = (event.as_mut(), before) {
                e.colors.push((n as u32, b, t.load(x, row, s, samples)));
            }
        }
    }
    if let (Some((t, _)), Some(e)) = (watched, event) {
        t.record_merge(e);
    }
}

/// Blends (or writes) one sample of target `n`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_color(
    t: &mut ColorRows<'_>,
    state: &RenderState,
    n: usize,
    x: u32,
    row: u32,
    s: usize,
    samples: usize,
    src: [u32; 4],
) {
    let o = t.offset(x, row, s, samples);
    let Some(dst) = t.bytes.get_mut(o..o + t.bpt) else {
        return;
    };
    let bs = &state.blend[n];
    let blends = bs.enabled && t.class != BlendClass::Integer;
    // The destination is read only when blending or keeping channels.
    let v = if blends || bs.write_mask & 0xF != 0xF {
        let old = t.texels.decode(dst);
        let mut v = if blends {
            let f = |w: [u32; 4]| w.map(f32::from_bits);
            let k = state.blend_factor;
            blend(bs, t.class, f(src), f(old), k).map(f32::to_bits)
        } else {
            src
        };
        for (c, w) in v.iter_mut().enumerate() {
            if bs.write_mask & (1 << c) == 0 {
                *w = old[c];
            }
        }
        v
    } else {
        src
    };
    t.texels.encode(v, dst);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi_exec::texture::Format;

    /// The side-by-side stores and reads of RGBA8, sRGB and RGBA16F rows
    /// (whole quads two texels per row at once) give the bytes of storing
    /// each written lane alone and the words of reading each alone (random
    /// values, some NaN and out of range; quads inside the rows, one
    /// reaching past their end, lanes scattered).
    #[test]
    fn lanes_side_by_side_store_and_read_what_each_lane_does() {
        let mut rng = tgsi_ir::rng::Rng(0x5ca7_7e25);
        for format in [Format::Rgba8Unorm, Format::Rgba8Srgb, Format::Rgba16Float] {
            let bpt = format.bytes_per_texel();
            let codec = TexelCodec::of(format, false);
            for _ in 0..200 {
                let start: Vec<u8> = (0..16 * 4 * bpt).map(|_| rng.next() as u8).collect();
                let (mut a, mut b) = (start.clone(), start);
                fn rows(bytes: &mut [u8], bpt: usize, texels: TexelCodec) -> ColorRows<'_> {
                    ColorRows {
                        bytes,
                        pitch: 16 * bpt,
                        bpt,
                        class: BlendClass::of(texels.format),
                        texels,
                    }
                }
                let values: [[u32; LANES]; 4] = std::array::from_fn(|_| {
                    std::array::from_fn(|_| match rng.below(4) {
                        0 => rng.next() as u32,
                        _ => (rng.uniform(-0.5, 1.5) as f32).to_bits(),
                    })
                });
                // mostly whole quads (their rows read and written at once)
                let writes = match rng.below(3) {
                    0 => rng.next() as u16,
                    _ => (0..4).fold(0u16, |m, q| {
                        m | (u16::from(rng.below(4) > 0) * 0xF) << (4 * q)
                    }),
                };
                // lanes scattered, or in 2x2 quads as batches lay them
                // (every lane its own pixel, the last quad at the rows' end)
                let scattered = |l: usize| ((l % 4 * 3) as u32, (l / 4) as u32);
                let quads = |l: usize| {
                    let x = [0, 5, 9, 14][l / 4] + (l & 1);
                    (x as u32, (l >> 1 & 1) as u32 + 2 * (l / 8) as u32)
                };
                // or the last quad one row lower, its bottom row past the
                // rows' end (its top lanes alone are written)
                let past_end = |l: usize| {
                    let (x, row) = quads(l);
                    (x, row + u32::from(l >= 12))
                };
                let layout = rng.below(3);
                let at = |l: usize| match layout {
                    0 => quads(l),
                    1 => past_end(l),
                    _ => scattered(l),
                };
                let mut side = rows(&mut a, bpt, codec);
                let read: [[u8; 8]; LANES] = match bpt {
                    4 => side.gather::<4>(writes, at).map(|t| {
                        let mut w = [0u8; 8];
                        w[..4].copy_from_slice(&t);
                        w
                    }),
                    _ => side.gather::<8>(writes, at),
                };
                // whole quads inside the rows: also as each quad's rows of
                // two texels, decoded side by side
                let whole = (0..4).all(|q| matches!(writes >> (4 * q) & 0xF, 0 | 0xF));
                let inside = layout == 0 || layout == 1 && writes >> 12 == 0;
                let pairs = match bpt {
                    4 => side.quad_pairs::<8>(writes, &at).map(|p| {
                        let d = codec.rgba8.map(|e| e.decode_pairs(p));
                        (p.map(|p| p.to_vec()), d)
                    }),
                    _ => side
                        .quad_pairs::<16>(writes, &at)
                        .map(|p| (p.map(|p| p.to_vec()), Some(rgba16f_decode_pairs(p)))),
                };
                assert_eq!(pairs.is_some(), whole && inside, "{format:?} pairs");
                if let Some((pairs, decoded)) = pairs {
                    for_each_lane(writes, |l| {
                        let texel = &pairs[l / 2][bpt * (l & 1)..][..bpt];
                        assert_eq!(texel, &read[l][..bpt], "{format:?} pair");
                        let want = format.decode(texel).map(f32::from_bits);
                        let got = decoded.map(|d| std::array::from_fn(|c| d[c][l]));
                        assert_eq!(
                            got.map(|g: [f32; 4]| g.map(f32::to_bits)),
                            Some(want.map(f32::to_bits)),
                            "{format:?} decoded pair"
                        );
                    });
                }
                store_lanes(&mut side, &values, writes, at);
                let mut each = rows(&mut b, bpt, codec);
                for_each_lane(writes, |l| {
                    let (x, row) = at(l);
                    let want = each.load(x, row, 0, 1);
                    assert_eq!(format.decode(&read[l][..bpt]), want, "{format:?} read");
                    each.store(x, row, 0, 1, std::array::from_fn(|c| values[c][l]));
                });
                assert_eq!(a, b, "{format:?} stored");
            }
        }
    }

    /// A blended batch of whole quads merged in registers
    /// ([`blend_quads_in_registers`]) writes the bytes of blending each
    /// written lane alone ([`write_color`]): RGBA8, sRGB and RGBA16F
    /// targets, random blend states and [`OVER`], shaded values (NaN,
    /// infinities, out of range) and old texels, quads left out.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn blended_quads_in_registers_are_each_lane_blended_alone() {
        let mut rng = tgsi_ir::rng::Rng(0xb1e4_d5ea);
        let value = |rng: &mut tgsi_ir::rng::Rng| -> u32 {
            match rng.below(10) {
                0 => rng.next() as u32,
                1 => [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0][rng.below(4) as usize]
                    .to_bits(),
                2 => (rng.uniform(-2.0, 2.0) as f32).to_bits(),
                _ => (rng.uniform(0.0, 1.0) as f32).to_bits(),
            }
        };
        let mut checked = 0;
        for round in 0..900 {
            let format = [Format::Rgba8Unorm, Format::Rgba8Srgb, Format::Rgba16Float][round % 3];
            let bpt = format.bytes_per_texel();
            let codec = TexelCodec::of(format, false);
            let mut state = RenderState::default();
            // every fourth round the "over" blend the kernel has its own
            // steps for
            state.blend[0] = match round % 4 {
                3 => OVER,
                _ => super::super::merge::tests::random_blend_state(&mut rng),
            };
            state.blend_factor = std::array::from_fn(|_| f32::from_bits(value(&mut rng)));
            let src: [[u32; LANES]; 4] =
                std::array::from_fn(|_| std::array::from_fn(|_| value(&mut rng)));
            let writes = (0..4).fold(0u16, |m, q| {
                m | (u16::from(rng.below(4) > 0) * 0xF) << (4 * q)
            });
            // 2x2 quads as batches lay them, in a target 16 texels wide
            let at = |l: usize| {
                let x = [0, 5, 9, 14][l / 4] + (l & 1);
                (x as u32, (l >> 1 & 1) as u32 + 2 * (l / 8) as u32)
            };
            let start: Vec<u8> = (0..16 * 4 * bpt).map(|_| rng.next() as u8).collect();
            let (mut a, mut b) = (start.clone(), start);
            let rows = |bytes| ColorRows {
                bytes,
                pitch: 16 * bpt,
                bpt,
                class: BlendClass::of(format),
                texels: codec,
            };
            let (bs, k) = (&state.blend[0], state.blend_factor);
            if !blend_quads_in_registers(&mut rows(&mut a), bs, k, &src, writes, &at) {
                continue;
            }
            let mut each = rows(&mut b);
            for_each_lane(writes, |l| {
                let (x, row) = at(l);
                let v = std::array::from_fn(|c| src[c][l]);
                write_color(&mut each, &state, 0, x, row, 0, 1, v);
            });
            assert_eq!(a, b, "{format:?} {:?}", state.blend[0]);
            checked += 1;
        }
        // (no check at all only where the CPU lacks AVX-512)
        assert!(checked >= 900 || tgsi_exec::tiles::Avx512::detect().is_none());
    }
}
