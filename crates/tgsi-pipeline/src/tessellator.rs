//! The Direct3D 11 fixed-function tessellator: from a patch's tessellation
//! factors to domain points and the primitives that connect them, for the
//! tri, quad and isoline domains and the integer, pow2, fractional_odd and
//! fractional_even partitionings, following the arithmetic of the Direct3D
//! 11.3 functional specification's reference tessellator bit for bit:
//!
//! * factors are clamped in float (NaN and ≤ 0 outer factors cull the patch;
//!   a NaN inner factor becomes the lower bound), integer and pow2
//!   partitioning round them up (pow2 behaves exactly like integer: rounding
//!   to a power of two is the hull shader's business), and they become 15.16
//!   fixed-point numbers (round to nearest even);
//! * every point position is computed in 16.16 fixed point (the
//!   "half tess factor" split by the ruler function, a rounded reciprocal
//!   table, the middle snapped to 0.5) and converted exactly to f32;
//! * points are generated ring by ring from the outside in, and the rings
//!   are stitched with the reference's transition and regular stitches
//!   (including its index patching where a ring wraps around and where an
//!   even inner factor leaves a degenerate middle row).
//!
//! Domain coordinates follow Direct3D: on the quad domain outer factor 0 is
//! the edge u = 0, 1 is v = 0, 2 is u = 1, 3 is v = 1, inner 0 runs along u
//! and inner 1 along v; on the tri domain outer factor i is the edge where
//! coordinate i (u, v, w) is 0; on the isoline domain outer 0 is the line
//! density (how many lines, always integer) and outer 1 the line detail
//! (segments per line). Triangles come clockwise in (u, v) space as the
//! reference defines it (positive `(b - a) × (c - a)` with u right and v
//! up), or reversed for `output_triangle_ccw`.

pub use tgsi_ir::tess::{Domain, OutputPrimitive, Partitioning, Settings};

/// The most an (even) tessellation factor may be.
pub const MAX_FACTOR: f32 = 64.0;
/// Largest odd factor (fractional_odd clamps to it).
pub const MAX_ODD_FACTOR: f32 = 63.0;
/// Smallest even factor (fractional_even clamps to it).
pub const MIN_EVEN_FACTOR: f32 = 2.0;
/// Smallest odd factor (integer, pow2 and fractional_odd clamp to it).
pub const MIN_ODD_FACTOR: f32 = 1.0;

/// The result of tessellating one patch.
#[derive(Clone, Debug, PartialEq)]
pub struct Tessellation {
    /// Domain points `(u, v, w)`: `w = 1 - u - v` on the tri domain, 0 on
    /// the quad and isoline domains.
    pub points: Vec<[f32; 3]>,
    /// Indices into `points`, one per point, two per line or three per
    /// triangle as `primitive` says.
    pub indices: Vec<u32>,
    /// What `indices` lists: `Point`, `Line`, `TriangleCw` or `TriangleCcw`
    /// (the isoline domain gives lines for a triangle output).
    pub primitive: OutputPrimitive,
}

impl Tessellation {
    /// Indices per primitive of `primitive`.
    pub fn vertices_per_primitive(&self) -> usize {
        match self.primitive {
            OutputPrimitive::Point => 1,
            OutputPrimitive::Line => 2,
            _ => 3,
        }
    }
}

/// Tessellates one patch. `outer` and `inner` are the factors in the order
/// of [`Settings`] (missing entries read as 0). `None` when the patch is
/// culled (an outer factor ≤ 0 or NaN).
pub fn tessellate(settings: &Settings, outer: &[f32], inner: &[f32]) -> Option<Tessellation> {
    let f = |s: &[f32], i: usize| s.get(i).copied().unwrap_or(0.0);
    let mut t = Tessellator::new(settings);
    match settings.domain() {
        Domain::Quad => t.quad(
            [f(outer, 0), f(outer, 1), f(outer, 2), f(outer, 3)],
            [f(inner, 0), f(inner, 1)],
        )?,
        Domain::Triangle => t.tri([f(outer, 0), f(outer, 1), f(outer, 2)], f(inner, 0))?,
        _ => t.isoline(f(outer, 0), f(outer, 1))?,
    }
    let w_is_rest = settings.domain() == Domain::Triangle;
    let points = t
        .points
        .iter()
        .map(|&(u, v)| {
            let (u, v) = (fixed_to_float(u), fixed_to_float(v));
            [u, v, if w_is_rest { 1.0 - u - v } else { 0.0 }]
        })
        .collect();
    Some(Tessellation {
        points,
        indices: t.indices,
        primitive: t.primitive,
    })
}

// ---- fixed point ------------------------------------------------------------

/// 16.16 unsigned fixed point, as the reference computes positions.
type Fixed = u32;
const FRACTION_BITS: u32 = 16;
const ONE: Fixed = 1 << FRACTION_BITS;
const HALF: Fixed = ONE / 2;
const FRACTION_MASK: Fixed = ONE - 1;
const INTEGER_MASK: Fixed = 0x7fff_0000;
/// 1/3 and 2/3 truncated to 16 bits.
const ONE_THIRD: Fixed = 0x5555;
const TWO_THIRDS: Fixed = 0xaaaa;
/// 2^-16: the smallest fraction.
const EPSILON: f32 = 1.0 / 65536.0;

/// `round(2^16 / n)` for n = 0..=64 (entry 0 is never used).
const RECIPROCALS: [Fixed; 65] = {
    let mut t = [0 as Fixed; 65];
    t[0] = u32::MAX;
    let mut n = 1;
    while n <= 64 {
        t[n] = (ONE + n as u32 / 2) / n as u32;
        n += 1;
    }
    t
};

/// A clamped, non-negative factor to 15.16 fixed point, rounding to
/// nearest even (NaN and negatives give 0).
fn float_to_fixed(x: f32) -> Fixed {
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    let scaled = (x as f64 * ONE as f64).round_ties_even();
    scaled.min(i32::MAX as f64) as Fixed
}

/// Exact: positions are multiples of 2^-16 in [0, 1].
fn fixed_to_float(x: Fixed) -> f32 {
    (x >> FRACTION_BITS) as f32 + (x & FRACTION_MASK) as f32 / ONE as f32
}

fn fixed_ceil(x: Fixed) -> Fixed {
    if x & FRACTION_MASK != 0 {
        (x & INTEGER_MASK) + ONE
    } else {
        x
    }
}

fn fixed_floor(x: Fixed) -> Fixed {
    x & INTEGER_MASK
}

/// `v` without its highest set bit.
fn remove_msb(v: u32) -> u32 {
    if v == 0 {
        0
    } else {
        v & !(1 << (31 - v.leading_zeros()))
    }
}

/// The float min/max of the reference (denormals compare as zero, a NaN
/// second operand loses): clamps `x` to [lo, hi], NaN to `lo`.
fn clamp_factor(x: f32, lo: f32, hi: f32) -> f32 {
    let flushed = if x.is_subnormal() { 0.0 } else { x };
    if x.is_nan() || flushed < lo {
        lo
    } else if flushed > hi {
        hi
    } else {
        x
    }
}

/// An outer factor that culls the patch: NaN, zero or negative.
fn culls(x: f32) -> bool {
    x.is_nan() || x <= 0.0
}

/// `(int)x` is even.
fn is_even(x: f32) -> bool {
    (x as i32) & 1 == 0
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parity {
    Even,
    Odd,
}

/// What placing points along one factor needs (per factor and parity).
#[derive(Clone, Copy, Debug, Default)]
struct FactorContext {
    half_fraction: Fixed,
    /// Points on half of the edge (for even factors without the middle one).
    half_points: i32,
    /// Points after this index sit on the "floor" half factor shifted by one.
    split_point: i32,
    inv_floor_segments: Fixed,
    inv_ceil_segments: Fixed,
}

impl FactorContext {
    fn new(factor: Fixed, parity: Parity) -> FactorContext {
        let odd = parity == Parity::Odd;
        let mut half = factor.wrapping_add(1) / 2;
        if odd || half == HALF {
            // a factor of 1 counts as even with a half factor of 1
            half += HALF;
        }
        let floor = fixed_floor(half);
        let ceil = fixed_ceil(half);
        let half_points = (ceil >> FRACTION_BITS) as i32;
        let split_point = if ceil == floor {
            half_points + 1 // never reached
        } else if odd {
            if floor == ONE {
                0
            } else {
                (remove_msb((floor >> FRACTION_BITS) - 1) << 1) as i32 + 1
            }
        } else {
            (remove_msb(floor >> FRACTION_BITS) << 1) as i32 + 1
        };
        let mut floor_segments = ((floor * 2) >> FRACTION_BITS) as usize;
        let mut ceil_segments = ((ceil * 2) >> FRACTION_BITS) as usize;
        if odd {
            floor_segments -= 1;
            ceil_segments -= 1;
        }
        FactorContext {
            half_fraction: half - floor,
            half_points,
            split_point,
            inv_floor_segments: RECIPROCALS[floor_segments.min(64)],
            inv_ceil_segments: RECIPROCALS[ceil_segments.min(64)],
        }
    }

    /// Position of point `point` (0 = the edge's start) along the factor.
    fn place(&self, point: i32, parity: Parity) -> Fixed {
        let mut point = point;
        let flip = point >= self.half_points;
        if flip {
            point = (self.half_points << 1) - point;
            if parity == Parity::Odd {
                point -= 1;
            }
        }
        if point == self.half_points {
            return HALF;
        }
        let on_ceil = point.max(0) as u64;
        let on_floor = if point > self.split_point {
            on_ceil - 1
        } else {
            on_ceil
        };
        let at_floor = on_floor * self.inv_floor_segments as u64;
        let at_ceil = on_ceil * self.inv_ceil_segments as u64;
        let lerp =
            at_floor * (ONE - self.half_fraction) as u64 + at_ceil * self.half_fraction as u64;
        let location = ((lerp + HALF as u64) >> FRACTION_BITS) as Fixed;
        if flip { ONE - location } else { location }
    }
}

/// Points along a factor (both ends included).
fn points_for_factor(factor: Fixed, parity: Parity) -> i32 {
    let half = factor.wrapping_add(1) / 2;
    match parity {
        Parity::Odd => ((fixed_ceil(HALF + half) * 2) >> FRACTION_BITS) as i32,
        Parity::Even => ((fixed_ceil(half) * 2) >> FRACTION_BITS) as i32 + 1,
    }
}

/// One processed factor: its context, parity and point count.
#[derive(Clone, Copy, Debug)]
struct Factor {
    ctx: FactorContext,
    parity: Parity,
    points: i32,
}

impl Factor {
    fn new(value: f32, parity: Parity) -> Factor {
        let fixed = float_to_fixed(value);
        Factor {
            ctx: FactorContext::new(fixed, parity),
            parity,
            points: points_for_factor(fixed, parity),
        }
    }
    fn place(&self, point: i32) -> Fixed {
        self.ctx.place(point, self.parity)
    }
}

// ---- connectivity ---------------------------------------------------------

/// How indices are remapped while a stitch runs.
#[derive(Clone, Copy, Debug)]
enum IndexPatch {
    None,
    /// The last edge of a ring: the stitch sees two rows counted from 0 (the
    /// inner row) and from `outside_base` (the outer row); their last points
    /// wrap to the ring's first points.
    Wrap {
        inside_delta: i32,
        inside_last: i32,
        inside_first: i32,
        outside_base: i32,
        outside_delta: i32,
        outside_last: i32,
        outside_first: i32,
    },
    /// A row stored backwards: indices from `invert_from` on become
    /// `invert_end - index`; `corner` (when ≥ 0) becomes `corner_to`.
    Invert {
        invert_from: i32,
        invert_end: i32,
        corner: i32,
        corner_to: i32,
    },
}

impl IndexPatch {
    fn apply(&self, i: i32) -> i32 {
        match *self {
            IndexPatch::None => i,
            IndexPatch::Wrap {
                inside_delta,
                inside_last,
                inside_first,
                outside_base,
                outside_delta,
                outside_last,
                outside_first,
            } => {
                if i >= outside_base {
                    if i == outside_last {
                        outside_first
                    } else {
                        i + outside_delta
                    }
                } else if i == inside_last {
                    inside_first
                } else {
                    i + inside_delta
                }
            }
            IndexPatch::Invert {
                invert_from,
                invert_end,
                corner,
                corner_to,
            } => {
                if i == corner {
                    corner_to
                } else if i >= invert_from {
                    invert_end - i
                } else {
                    i
                }
            }
        }
    }
}

/// Which way the diagonals of a regular stitch point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Diagonals {
    InsideToOutside,
    InsideToOutsideExceptMiddle,
    Mirrored,
}

/// Where the i-th point added to a half edge ends up at the largest factor
/// (the ruler-function split order of the specification); the transition
/// stitch walks it to interleave two rows of different factors.
const SPLIT_ORDER: [i32; 33] = [
    0, 32, 16, 8, 17, 4, 18, 9, 19, 2, 20, 10, 21, 5, 22, 11, 23, 1, 24, 12, 25, 6, 26, 13, 27, 3,
    28, 14, 29, 7, 30, 15, 31,
];

struct Tessellator {
    /// Fractional partitionings keep one parity for every factor.
    fractional: Option<Parity>,
    partitioning: Partitioning,
    output: OutputPrimitive,
    points: Vec<(Fixed, Fixed)>,
    indices: Vec<u32>,
    primitive: OutputPrimitive,
    patch: IndexPatch,
}

impl Tessellator {
    fn new(s: &Settings) -> Tessellator {
        let fractional = match s.partitioning() {
            Partitioning::FractionalOdd => Some(Parity::Odd),
            Partitioning::FractionalEven => Some(Parity::Even),
            _ => None,
        };
        Tessellator {
            fractional,
            partitioning: s.partitioning(),
            output: s.output(),
            points: Vec::new(),
            indices: Vec::new(),
            primitive: s.output(),
            patch: IndexPatch::None,
        }
    }

    fn integer(&self) -> bool {
        self.fractional.is_none()
    }

    /// The clamping range of the partitioning.
    fn bounds(&self) -> (f32, f32) {
        match self.partitioning {
            Partitioning::FractionalEven => (MIN_EVEN_FACTOR, MAX_FACTOR),
            Partitioning::FractionalOdd => (MIN_ODD_FACTOR, MAX_ODD_FACTOR),
            _ => (MIN_ODD_FACTOR, MAX_FACTOR),
        }
    }

    /// Clamps (and for integer partitioning rounds up) an outer factor.
    fn outer(&self, x: f32) -> f32 {
        let (lo, hi) = self.bounds();
        let x = clamp_factor(x, lo, hi);
        if self.integer() { x.ceil() } else { x }
    }

    /// Parity of an (already rounded) outer factor.
    fn outer_parity(&self, x: f32) -> Parity {
        match self.fractional {
            Some(p) => p,
            None if is_even(x) => Parity::Even,
            None => Parity::Odd,
        }
    }

    /// Parity of an inner factor: integer 1 counts as even.
    fn inner_parity(&self, x: f32) -> Parity {
        match self.fractional {
            Some(p) => p,
            None if is_even(x) || x == 1.0 => Parity::Even,
            None => Parity::Odd,
        }
    }

    /// The inner lower bound: fractional_odd raises it just above 1 when
    /// any factor ends above 1, so that the outer ring ("picture frame")
    /// exists.
    fn inner_lower_bound(&self, any_above_one: bool) -> f32 {
        let (lo, _) = self.bounds();
        if self.partitioning == Partitioning::FractionalOdd && any_above_one {
            MIN_ODD_FACTOR + EPSILON
        } else {
            lo
        }
    }

    fn inner(&self, x: f32, lo: f32) -> f32 {
        let (_, hi) = self.bounds();
        let x = clamp_factor(x, lo, hi);
        if self.integer() { x.ceil() } else { x }
    }

    fn point(&mut self, u: Fixed, v: Fixed) {
        self.points.push((u, v));
    }

    fn index(&mut self, i: i32) {
        let i = self.patch.apply(i);
        self.indices.push(i.max(0) as u32);
    }

    /// A triangle given clockwise, stored in the output winding.
    fn triangle(&mut self, a: i32, b: i32, c: i32) {
        self.index(a);
        if self.output == OutputPrimitive::TriangleCw {
            self.index(b);
            self.index(c);
        } else {
            self.index(c);
            self.index(b);
        }
    }

    /// Point and line outputs of the tri and quad domains: every point, in
    /// order, as points or as a line list joining consecutive points.
    fn points_only(&mut self) {
        let n = self.points.len() as u32;
        match self.output {
            OutputPrimitive::Point => self.indices.extend(0..n),
            _ => {
                for p in 1..n {
                    self.indices.extend([p - 1, p]);
                }
            }
        }
    }

    fn wants_triangles(&self) -> bool {
        matches!(
            self.output,
            OutputPrimitive::TriangleCw | OutputPrimitive::TriangleCcw
        )
    }

    fn stitch_regular(
        &mut self,
        trapezoid: bool,
        diagonals: Diagonals,
        inside_points: i32,
        inside_base: i32,
        outside_base: i32,
    ) {
        let (mut i, mut o) = (inside_base, outside_base);
        if trapezoid {
            self.triangle(o, o + 1, i);
            o += 1;
        }
        let n = inside_points;
        match diagonals {
            Diagonals::InsideToOutside => {
                for _ in 0..n - 1 {
                    self.triangle(i, o, o + 1);
                    self.triangle(i, o + 1, i + 1);
                    i += 1;
                    o += 1;
                }
            }
            Diagonals::InsideToOutsideExceptMiddle => {
                let mut p = 0;
                while p < n / 2 - 1 {
                    self.triangle(o, o + 1, i);
                    self.triangle(i, o + 1, i + 1);
                    i += 1;
                    o += 1;
                    p += 1;
                }
                self.triangle(o, i + 1, i);
                self.triangle(o, o + 1, i + 1);
                i += 1;
                o += 1;
                p += 2;
                while p < n {
                    self.triangle(o, o + 1, i);
                    self.triangle(i, o + 1, i + 1);
                    i += 1;
                    o += 1;
                    p += 1;
                }
            }
            Diagonals::Mirrored => {
                let mut p = 0;
                while p < n / 2 {
                    self.triangle(o, i + 1, i);
                    self.triangle(o, o + 1, i + 1);
                    i += 1;
                    o += 1;
                    p += 1;
                }
                while p < n - 1 {
                    self.triangle(i, o, o + 1);
                    self.triangle(i, o + 1, i + 1);
                    i += 1;
                    o += 1;
                    p += 1;
                }
            }
        }
        if trapezoid {
            self.triangle(o, o + 1, i);
        }
    }

    /// Stitches the outer ring (edge factor `outside`) to the first inner
    /// ring (factor `inside`), interleaving by the split order.
    fn stitch_transition(
        &mut self,
        inside_base: i32,
        inside: &Factor,
        outside_base: i32,
        outside: &Factor,
    ) {
        let odd = |f: &Factor| (f.parity == Parity::Odd) as i32;
        let inside_half = inside.ctx.half_points - odd(inside);
        let outside_half = outside.ctx.half_points - odd(outside);
        let (mut i, mut o) = (inside_base, outside_base);
        if SPLIT_ORDER[0] < outside_half {
            self.triangle(o, o + 1, i);
            o += 1;
        }
        for &at in &SPLIT_ORDER[1..] {
            if at < inside_half {
                self.triangle(i, o, i + 1);
                i += 1;
            }
            if at < outside_half {
                self.triangle(o, o + 1, i);
                o += 1;
            }
        }
        if inside.parity != outside.parity || inside.parity == Parity::Odd {
            if inside.parity == outside.parity {
                // a quad in the middle
                self.triangle(i, o, i + 1);
                self.triangle(i + 1, o, o + 1);
                i += 1;
                o += 1;
            } else if inside.parity == Parity::Even {
                self.triangle(i, o, o + 1);
                o += 1;
            } else {
                self.triangle(i, o, i + 1);
                i += 1;
            }
        }
        for &at in SPLIT_ORDER[1..].iter().rev() {
            if at < outside_half {
                self.triangle(o, o + 1, i);
                o += 1;
            }
            if at < inside_half {
                self.triangle(i, o, i + 1);
                i += 1;
            }
        }
        if SPLIT_ORDER[0] < outside_half {
            self.triangle(o, o + 1, i);
        }
    }

    // ---- quad ---------------------------------------------------------------

    fn quad(&mut self, outer: [f32; 4], inner: [f32; 2]) -> Option<()> {
        if outer.iter().any(|&x| culls(x)) {
            return None;
        }
        let outer = outer.map(|x| self.outer(x));
        let frame_needed = outer
            .iter()
            .chain(&inner)
            .any(|&x| x > MIN_ODD_FACTOR + EPSILON / 2.0);
        let lo = self.inner_lower_bound(frame_needed);
        let inner = inner.map(|x| self.inner(x, lo));
        let outside = outer.map(|x| Factor::new(x, self.outer_parity(x)));
        let inside = inner.map(|x| Factor::new(x, self.inner_parity(x)));
        let all_one = outer
            .iter()
            .chain(&inner)
            .all(|&x| float_to_fixed(x) == ONE);
        if (self.integer() || self.fractional == Some(Parity::Odd)) && all_one {
            for (u, v) in [(0, 0), (ONE, 0), (ONE, ONE), (0, ONE)] {
                self.point(u, v);
            }
            if self.wants_triangles() {
                self.triangle(0, 1, 3);
                self.triangle(1, 2, 3);
            } else {
                self.points_only();
            }
            return Some(());
        }
        // inner rows need at least 3 points (4 when odd): an inner factor
        // of 1 gives a degenerate transition region
        let inside_points =
            inside.map(|f| f.points.max(if f.parity == Parity::Odd { 4 } else { 3 }));
        self.quad_points(&outside, &inside, inside_points);
        if self.wants_triangles() {
            self.quad_connectivity(&outside, &inside, inside_points);
        } else {
            self.points_only();
        }
        Some(())
    }

    fn quad_points(&mut self, outside: &[Factor; 4], inside: &[Factor; 2], n_in: [i32; 2]) {
        // the outer ring, clockwise from (0, 1) along u = 0
        for (edge, f) in outside.iter().enumerate() {
            let end = f.points - 1;
            for p in 0..end {
                let q = if edge == 1 || edge == 2 { p } else { end - p };
                let at = f.place(q);
                match edge {
                    0 => self.point(0, at),
                    1 => self.point(at, 0),
                    2 => self.point(ONE, at),
                    _ => self.point(at, ONE),
                }
            }
        }
        // inner rings, spiralling in
        let rings = n_in[0].min(n_in[1]) >> 1;
        for ring in 1..rings {
            let start = ring;
            let end = [n_in[0] - 1 - start, n_in[1] - 1 - start];
            for edge in 0..4usize {
                let across = edge & 1; // the axis the edge is perpendicular to
                let along = (edge + 1) & 1;
                let perp_point = if edge < 2 { start } else { end[across] };
                let perp = inside[across].place(perp_point);
                for p in start..end[along] {
                    let q = if edge == 1 || edge == 2 {
                        p
                    } else {
                        end[along] - (p - start)
                    };
                    let at = inside[along].place(q);
                    if along == 1 {
                        self.point(perp, at);
                    } else {
                        self.point(at, perp);
                    }
                }
            }
        }
        // an even inner factor leaves a middle row of points
        if n_in[0] > n_in[1] && inside[1].parity == Parity::Even {
            for p in rings..=n_in[0] - 1 - rings {
                let at = inside[0].place(p);
                self.point(at, HALF);
            }
        } else if n_in[1] >= n_in[0] && inside[0].parity == Parity::Even {
            for p in (rings..=n_in[1] - 1 - rings).rev() {
                let at = inside[1].place(p);
                self.point(HALF, at);
            }
        }
    }

    fn quad_connectivity(&mut self, outside: &[Factor; 4], inside: &[Factor; 2], n_in: [i32; 2]) {
        let rows_to_center = [(n_in[0] + 1) >> 1, (n_in[1] + 1) >> 1];
        let rings = rows_to_center[0].min(rows_to_center[1]);
        // the ring whose inner row is the degenerate middle row, per axis
        let degenerate = [
            if inside[1].parity == Parity::Even {
                rows_to_center[1] - 1
            } else {
                -1
            },
            if inside[0].parity == Parity::Even {
                rows_to_center[0] - 1
            } else {
                -1
            },
        ];
        let mut outer_points = outside.map(|f| f.points);
        let outer_ring_points: i32 = outer_points.iter().map(|n| n - 1).sum();
        let mut inside_base = outer_ring_points;
        let mut outside_base = 0;
        for ring in 1..rings {
            let inner_points = [n_in[0] - 2 * ring, n_in[1] - 2 * ring];
            let ring_inside_first = inside_base;
            let ring_outside_first = outside_base;
            for edge in 0..4usize {
                let axis = (edge + 1) & 1;
                let (ib, ob);
                if edge == 3 {
                    if ring == degenerate[axis] {
                        let from = inside_base + 1;
                        self.patch = IndexPatch::Invert {
                            invert_from: from,
                            invert_end: (from << 1) - 1,
                            corner: outside_base + outer_points[edge] - 1,
                            corner_to: ring_outside_first,
                        };
                        ib = from;
                        ob = outside_base;
                    } else {
                        let inside_last = inner_points[axis] - 1;
                        let base = inside_last + 1;
                        self.patch = IndexPatch::Wrap {
                            inside_delta: inside_base,
                            inside_last,
                            inside_first: ring_inside_first,
                            outside_base: base,
                            outside_delta: outside_base - base,
                            outside_last: base + outer_points[edge] - 1,
                            outside_first: ring_outside_first,
                        };
                        ib = 0;
                        ob = base;
                    }
                } else if edge == 2 && ring == degenerate[axis] {
                    self.patch = IndexPatch::Invert {
                        invert_from: inside_base,
                        invert_end: inside_base << 1,
                        corner: -1,
                        corner_to: -1,
                    };
                    ib = inside_base;
                    ob = outside_base;
                } else {
                    ib = inside_base;
                    ob = outside_base;
                }
                if ring == 1 {
                    self.stitch_transition(ib, &inside[axis], ob, &outside[edge]);
                } else {
                    self.stitch_regular(true, Diagonals::Mirrored, inner_points[axis], ib, ob);
                }
                self.patch = IndexPatch::None;
                outside_base += outer_points[edge] - 1;
                if edge == 2 && ring == degenerate[axis] {
                    inside_base -= inner_points[axis] - 1;
                } else {
                    inside_base += inner_points[axis] - 1;
                }
                outer_points[edge] = inner_points[axis];
            }
        }
        // the centre: a row of quads when the smaller inner factor is odd
        if n_in[0] > n_in[1] && inside[1].parity == Parity::Odd {
            let quads = (((n_in[0] >> 1) - (n_in[1] >> 1)) << 1)
                + if inside[0].parity == Parity::Even {
                    2
                } else {
                    1
                };
            let from = outside_base + quads + 2;
            self.patch = IndexPatch::Invert {
                invert_from: from,
                invert_end: from + from + quads,
                corner: from,
                corner_to: outside_base,
            };
            self.stitch_regular(
                false,
                Diagonals::InsideToOutside,
                quads + 1,
                from,
                outside_base + 1,
            );
            self.patch = IndexPatch::None;
        } else if n_in[1] >= n_in[0] && inside[0].parity == Parity::Odd {
            let quads = (((n_in[1] >> 1) - (n_in[0] >> 1)) << 1)
                + if inside[1].parity == Parity::Even {
                    2
                } else {
                    1
                };
            let from = outside_base + quads + 1;
            self.patch = IndexPatch::Invert {
                invert_from: from,
                invert_end: from + from + quads,
                corner: -1,
                corner_to: -1,
            };
            let diagonals = if inside[1].parity == Parity::Even {
                Diagonals::InsideToOutside
            } else {
                Diagonals::InsideToOutsideExceptMiddle
            };
            self.stitch_regular(false, diagonals, quads + 1, from, outside_base);
            self.patch = IndexPatch::None;
        }
    }

    // ---- tri ----------------------------------------------------------------

    fn tri(&mut self, outer: [f32; 3], inner: f32) -> Option<()> {
        if outer.iter().any(|&x| culls(x)) {
            return None;
        }
        let outer = outer.map(|x| self.outer(x));
        // one inner factor: only the outer ones decide the picture frame
        let frame_needed = outer.iter().any(|&x| x > MIN_ODD_FACTOR + EPSILON / 2.0);
        let lo = self.inner_lower_bound(frame_needed);
        let inner = self.inner(inner, lo);
        let outside = outer.map(|x| Factor::new(x, self.outer_parity(x)));
        let inside = Factor::new(inner, self.inner_parity(inner));
        let all_one =
            outer.iter().all(|&x| float_to_fixed(x) == ONE) && float_to_fixed(inner) == ONE;
        if (self.integer() || self.fractional == Some(Parity::Odd)) && all_one {
            // v = 1, w = 1, u = 1: the starts of the edges u = 0, v = 0, w = 0
            for (u, v) in [(0, ONE), (0, 0), (ONE, 0)] {
                self.point(u, v);
            }
            if self.wants_triangles() {
                self.triangle(0, 1, 2);
            } else {
                self.points_only();
            }
            return Some(());
        }
        let n_in = inside
            .points
            .max(if inside.parity == Parity::Odd { 4 } else { 3 });
        self.tri_points(&outside, &inside, n_in);
        if self.wants_triangles() {
            self.tri_connectivity(&outside, &inside, n_in);
        } else {
            self.points_only();
        }
        Some(())
    }

    fn tri_points(&mut self, outside: &[Factor; 3], inside: &Factor, n_in: i32) {
        // the outer ring, clockwise from v = 1 along u = 0
        for (edge, f) in outside.iter().enumerate() {
            let end = f.points - 1;
            for p in 0..end {
                let q = if edge & 1 == 1 { p } else { end - p };
                let at = f.place(q);
                match edge {
                    0 => self.point(0, at),
                    1 => self.point(at, 0),
                    _ => self.point(at, ONE - at),
                }
            }
        }
        let rings = n_in >> 1;
        for ring in 1..rings {
            let start = ring;
            let end = n_in - 1 - start;
            for edge in 0..3 {
                // the ring's distance from the edge, scaled to barycentric space
                let perp = (inside.place(start) * TWO_THIRDS + HALF) >> FRACTION_BITS;
                let shift = perp.div_ceil(2);
                for p in start..end {
                    let q = if edge & 1 == 1 { p } else { end - (p - start) };
                    let at = inside.place(q).wrapping_sub(shift);
                    match edge {
                        0 => self.point(perp, at),
                        1 => self.point(at, perp),
                        _ => self.point(at, ONE.wrapping_sub(at).wrapping_sub(perp)),
                    }
                }
            }
        }
        if inside.parity == Parity::Even {
            self.point(ONE_THIRD, ONE_THIRD);
        }
    }

    fn tri_connectivity(&mut self, outside: &[Factor; 3], inside: &Factor, n_in: i32) {
        let rings = (n_in + 1) >> 1;
        let mut outer_points = outside.map(|f| f.points);
        let mut inside_base: i32 = outer_points.iter().map(|n| n - 1).sum();
        let mut outside_base = 0;
        for ring in 1..rings {
            let inner_points = n_in - 2 * ring;
            let ring_inside_first = inside_base;
            let ring_outside_first = outside_base;
            for edge in 0..3usize {
                let (ib, ob) = if edge == 2 {
                    let inside_last = inner_points - 1;
                    let base = inside_last + 1;
                    self.patch = IndexPatch::Wrap {
                        inside_delta: inside_base,
                        inside_last,
                        inside_first: ring_inside_first,
                        outside_base: base,
                        outside_delta: outside_base - base,
                        outside_last: base + outer_points[edge] - 1,
                        outside_first: ring_outside_first,
                    };
                    (0, base)
                } else {
                    (inside_base, outside_base)
                };
                if ring == 1 {
                    self.stitch_transition(ib, inside, ob, &outside[edge]);
                } else {
                    self.stitch_regular(true, Diagonals::Mirrored, inner_points, ib, ob);
                }
                self.patch = IndexPatch::None;
                outside_base += outer_points[edge] - 1;
                inside_base += inner_points - 1;
                outer_points[edge] = inner_points;
            }
        }
        if inside.parity == Parity::Odd {
            self.triangle(outside_base, outside_base + 1, outside_base + 2);
        }
    }

    // ---- isoline --------------------------------------------------------------

    fn isoline(&mut self, density: f32, detail: f32) -> Option<()> {
        if culls(density) || culls(detail) {
            return None;
        }
        let density = clamp_factor(density, MIN_ODD_FACTOR, MAX_FACTOR).ceil();
        let (lo, hi) = self.bounds();
        let mut detail = clamp_factor(detail, lo, hi);
        if self.integer() {
            detail = detail.ceil();
        }
        let detail = Factor::new(detail, self.outer_parity(detail));
        // the density is always integer partitioned
        let density_parity = if is_even(density) {
            Parity::Even
        } else {
            Parity::Odd
        };
        let density = Factor::new(density, density_parity);
        // no line at v = 1
        let lines = density.points - 1;
        for line in 0..lines {
            let v = density.place(line);
            for p in 0..detail.points {
                let u = detail.place(p);
                self.point(u, v);
            }
        }
        let per_line = detail.points as u32;
        if self.output == OutputPrimitive::Point {
            self.indices.extend(0..self.points.len() as u32);
        } else {
            self.primitive = OutputPrimitive::Line;
            for line in 0..lines as u32 {
                for p in 1..per_line {
                    let at = line * per_line + p;
                    self.indices.extend([at - 1, at]);
                }
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests;
