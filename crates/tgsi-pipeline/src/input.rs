//! Vertex input and primitive assembly: vertex buffers with formats,
//! strides and per-instance rates, indexed draws with strip restart, the
//! vertex shader run once per distinct (index, instance), and the
//! primitives of every topology as lists of shaded vertices
//! ([`VertexStream`], what the later stages consume).
//!
//! Rules (Direct3D 11's, see `shader_test.md` "Drawing"):
//! * VERTEXID is the index value, INSTANCEID the instance (from 0);
//!   PRIMID counts the primitives of one instance from 0.
//! * An element read past the end of its buffer reads 0; missing
//!   components read (0, 0, 0, 1) (1.0 for floats, 1 for integers).
//! * Strips, fans and adjacency strips of an indexed draw restart at the
//!   index 0xFFFFFFFF; in list topologies it is an ordinary index.
//! * The leading vertex is the first of each primitive: strip triangle i is
//!   (i, i+1, i+2) when i is even and (i, i+2, i+1) when odd, fan triangle i
//!   is (i+1, i+2, 0). Without a geometry shader, adjacency topologies keep
//!   their base primitives: line (1, 2) of each 4, triangle (0, 2, 4) of
//!   each 6 (GS input order: vertex, adjacent, vertex, adjacent, ...).

use super::state::{BasicTopology, Topology};
use crate::index_values::DistinctValues;
use crate::reuse::Kept;
use tgsi_exec::{ExecError, Limits, Program, Resources, Stats, VertexRows};

/// The strip-restart index.
pub const RESTART: u32 = 0xFFFF_FFFF;

/// How the 32-bit components of an element are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    Float,
    Sint,
    Uint,
}

/// An element format: 1 to 4 components of 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexFormat {
    pub kind: ValueKind,
    pub components: u8,
}

/// Which index steps through a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputRate {
    PerVertex,
    /// One element per `n` instances (0: every instance reads element 0).
    PerInstance(u32),
}

/// A vertex buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexBuffer {
    pub data: Vec<u8>,
    pub stride: u32,
    pub rate: InputRate,
}

/// One input register filled from a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexElement {
    /// The vertex shader's `IN` register.
    pub register: u32,
    pub buffer: u32,
    /// Byte offset inside an element of the buffer.
    pub offset: u32,
    pub format: VertexFormat,
}

/// The vertex input of a draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VertexInput {
    pub buffers: Vec<VertexBuffer>,
    pub elements: Vec<VertexElement>,
}

impl VertexInput {
    /// Input registers `IN[0..]` per vertex, four words each, from rows:
    /// `rows[v][r]` = `IN[r]` of vertex v (one per-vertex buffer).
    pub fn from_rows(rows: &[Vec<[u32; 4]>]) -> VertexInput {
        let regs = rows.iter().map(Vec::len).max().unwrap_or(0);
        let stride = regs * 16;
        let mut data = Vec::with_capacity(rows.len() * stride);
        for row in rows {
            for r in 0..regs {
                let v = row.get(r).copied().unwrap_or([0; 4]);
                for w in v {
                    data.extend_from_slice(&w.to_le_bytes());
                }
            }
        }
        VertexInput {
            buffers: vec![VertexBuffer {
                data,
                stride: stride as u32,
                rate: InputRate::PerVertex,
            }],
            elements: (0..regs as u32)
                .map(|r| VertexElement {
                    register: r,
                    buffer: 0,
                    offset: r * 16,
                    format: VertexFormat {
                        kind: ValueKind::Uint,
                        components: 4,
                    },
                })
                .collect(),
        }
    }

    /// The input registers of vertex `index` of instance `instance` into `out`
    /// (`out[r]` = `IN[r]`; registers no element fills stay as they are).
    pub fn fetch(&self, index: u32, instance: u32, out: &mut [[u32; 4]]) {
        for e in &self.elements {
            let Some(reg) = out.get_mut(e.register as usize) else {
                continue;
            };
            let Some(b) = self.buffers.get(e.buffer as usize) else {
                continue;
            };
            let element = match b.rate {
                InputRate::PerVertex => index,
                InputRate::PerInstance(0) => 0,
                InputRate::PerInstance(n) => instance / n,
            };
            let base = element as u64 * b.stride as u64 + e.offset as u64;
            let one = match e.format.kind {
                ValueKind::Float => 1.0f32.to_bits(),
                _ => 1,
            };
            *reg = [0, 0, 0, one];
            let components = (e.format.components as usize).min(4);
            let whole = usize::try_from(base)
                .ok()
                .and_then(|a| b.data.get(a..)?.first_chunk::<16>());
            if let (4, Some(w)) = (components, whole) {
                // the common case: four components inside the buffer
                *reg = std::array::from_fn(|c| {
                    u32::from_le_bytes([w[4 * c], w[4 * c + 1], w[4 * c + 2], w[4 * c + 3]])
                });
                continue;
            }
            for (c, slot) in reg.iter_mut().enumerate().take(components) {
                let at = base + 4 * c as u64;
                *slot = usize::try_from(at)
                    .ok()
                    .and_then(|a| b.data.get(a..a.checked_add(4)?))
                    .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            }
        }
    }
}

/// A draw: topology, vertex count (indices used, for an indexed draw),
/// instances and the index buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawCall<'a> {
    pub topology: Topology,
    pub count: u32,
    pub instances: u32,
    pub indices: Option<&'a [u32]>,
}

impl<'a> DrawCall<'a> {
    /// One instance of `count` vertices taken in order.
    pub fn vertices(topology: Topology, count: u32) -> DrawCall<'a> {
        DrawCall {
            topology,
            count,
            instances: 1,
            indices: None,
        }
    }

    /// One instance of the vertices `indices` names; `None` when there are
    /// more indices than a draw counts (`u32`).
    pub fn indexed(topology: Topology, indices: &'a [u32]) -> Option<DrawCall<'a>> {
        Some(DrawCall {
            topology,
            count: u32::try_from(indices.len()).ok()?,
            instances: 1,
            indices: Some(indices),
        })
    }
}

/// What a primitive is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrimitiveKind {
    Point,
    Line,
    Triangle,
    /// 4 vertices: adjacent, vertex, vertex, adjacent.
    LineAdj,
    /// 6 vertices: vertex, adjacent, vertex, adjacent, vertex, adjacent.
    TriangleAdj,
    /// A patch of n control points.
    Patch(u32),
}

impl PrimitiveKind {
    pub fn vertices(self) -> usize {
        match self {
            PrimitiveKind::Point => 1,
            PrimitiveKind::Line => 2,
            PrimitiveKind::Triangle => 3,
            PrimitiveKind::LineAdj => 4,
            PrimitiveKind::TriangleAdj => 6,
            PrimitiveKind::Patch(n) => n as usize,
        }
    }
}

/// One assembled primitive: `VertexStream::indices[first..first + kind.vertices()]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Primitive {
    pub kind: PrimitiveKind,
    pub first: u32,
    /// PRIMID: the primitive's number within its instance.
    pub id: u32,
    pub instance: u32,
}

/// A stream's primitives in draw order: records made one by one, or the
/// primitives of a list draw, each made from its number when it is asked
/// for (a draw of a million triangles then writes and reads no million
/// records).
#[derive(Clone, Debug, Default)]
pub struct Primitives {
    /// The records (empty while `list` stands for them).
    each: Vec<Primitive>,
    list: Option<ListShape>,
}

/// The primitives of a list draw from a stream's first index on: `count`
/// of `kind` per instance, for `instances` instances, primitive p number
/// `p % count` of instance `p / count`, its vertices the
/// `kind.vertices()` indices from `p * kind.vertices()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ListShape {
    kind: PrimitiveKind,
    count: u32,
    instances: u32,
}

impl ListShape {
    fn len(self) -> usize {
        self.count as usize * self.instances as usize
    }

    /// Primitive `p` (below [`ListShape::len`]).
    #[inline]
    fn at(self, p: usize) -> Primitive {
        let count = self.count as usize;
        // (no division in the first instance, a draw's common case)
        let (instance, id) = if p < count {
            (0, p)
        } else {
            (p / count, p % count)
        };
        Primitive {
            kind: self.kind,
            first: (p * self.kind.vertices()) as u32,
            id: id as u32,
            instance: instance as u32,
        }
    }
}

impl Primitives {
    /// Primitives as records.
    pub fn new(each: Vec<Primitive>) -> Primitives {
        Primitives { each, list: None }
    }

    pub fn len(&self) -> usize {
        match self.list {
            Some(l) => l.len(),
            None => self.each.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Primitive `p`.
    #[inline]
    pub fn get(&self, p: usize) -> Option<Primitive> {
        match self.list {
            Some(l) => (p < l.len()).then(|| l.at(p)),
            None => self.each.get(p).copied(),
        }
    }

    /// Whether these are a list draw's triangles: primitive p's vertices
    /// are the stream's indices from 3p on.
    pub fn is_triangle_list(&self) -> bool {
        self.list.is_some_and(|l| l.kind == PrimitiveKind::Triangle)
    }

    pub fn first(&self) -> Option<Primitive> {
        self.get(0)
    }

    pub fn iter(&self) -> impl Iterator<Item = Primitive> + '_ {
        (0..self.len()).filter_map(|p| self.get(p))
    }

    /// The primitives as records, to change (a list's made into records).
    pub fn each_mut(&mut self) -> &mut Vec<Primitive> {
        if let Some(l) = self.list.take() {
            self.each.clear();
            self.each.extend((0..l.len()).map(|p| l.at(p)));
        }
        &mut self.each
    }

    pub fn push(&mut self, p: Primitive) {
        self.each_mut().push(p);
    }

    pub fn clear(&mut self) {
        self.list = None;
        self.each.clear();
    }

    /// Makes these the primitives of a list draw of `count` primitives of
    /// `kind` per instance over the stream's indices from the first on.
    pub(crate) fn set_list(&mut self, kind: PrimitiveKind, count: usize, instances: usize) {
        self.each.clear();
        self.list = Some(ListShape {
            kind,
            count: count as u32,
            instances: instances as u32,
        });
    }
}

/// The same primitives, however they are held.
impl PartialEq for Primitives {
    fn eq(&self, other: &Primitives) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

/// Shaded vertices and the primitives over them, in draw order: the output
/// of the vertex stage and the input of the next one (geometry,
/// tessellation, or clipping and rasterization).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexStream {
    /// `OUT[k]` of vertex v at `v * stride + k`.
    pub outputs: Vec<[u32; 4]>,
    pub stride: usize,
    pub indices: Vec<u32>,
    pub primitives: Primitives,
}

impl VertexStream {
    /// The output registers of vertex `v`.
    pub fn vertex(&self, v: u32) -> &[[u32; 4]] {
        let s = v as usize * self.stride;
        self.outputs.get(s..s + self.stride).unwrap_or(&[])
    }

    /// The vertices of a primitive.
    pub fn primitive_vertices(&self, p: &Primitive) -> &[u32] {
        let s = p.first as usize;
        self.indices.get(s..s + p.kind.vertices()).unwrap_or(&[])
    }

    /// Gives the stream's buffers to later draws' vertex stages (a stream
    /// simply dropped is freed instead).
    pub fn recycle(self) {
        STREAMS.give(self);
    }
}

/// The buffers of streams given back by [`VertexStream::recycle`].
static STREAMS: Kept<VertexStream> = Kept::new(2);

/// The vertex stage's working lists (see [`shade_vertices`]), kept from
/// draw to draw.
#[derive(Default)]
struct VertexScratch {
    distinct: DistinctValues,
    ids: Vec<[u32; 2]>,
    regs_in: Vec<[u32; 4]>,
    seq: Vec<u32>,
}

static SCRATCH: Kept<VertexScratch> = Kept::new(2);

/// Most vertex shader invocations one draw may run.
pub const MAX_INVOCATIONS: u64 = 1 << 24;

/// Input registers a vertex element may fill (`IN[0..4096]`): past them an
/// element would only make every vertex's input rows huge.
const MAX_ELEMENT_REGISTER: u32 = 4096;

/// Runs the vertex shader for a draw and assembles its primitives.
/// `keep_adjacency`: a geometry shader follows (adjacency primitives stay
/// whole); `patches`: tessellation follows (patch lists are allowed).
pub fn shade_vertices(
    vs: &Program,
    res: &mut Resources,
    input: &VertexInput,
    call: &DrawCall<'_>,
    keep_adjacency: bool,
    patches: bool,
    limits: &Limits,
) -> Result<(VertexStream, Stats), ExecError> {
    if let (Topology::PatchList(_), false) = (call.topology, patches) {
        return Err(ExecError {
            instruction: None,
            message: format!(
                "`{}` needs tessellation shaders (a hull and a domain shader)",
                call.topology
            ),
        });
    }
    let total = call.count as u64 * call.instances as u64;
    if total > MAX_INVOCATIONS {
        return Err(ExecError {
            instruction: None,
            message: format!(
                "{} vertices × {} instances exceed the limit of {MAX_INVOCATIONS} vertex invocations",
                call.count, call.instances
            ),
        });
    }
    if let Some(e) = input
        .elements
        .iter()
        .find(|e| e.register >= MAX_ELEMENT_REGISTER)
    {
        return Err(ExecError {
            instruction: None,
            message: format!(
                "a vertex element fills input register {}; registers go up to {}",
                e.register,
                MAX_ELEMENT_REGISTER - 1
            ),
        });
    }
    if let Some(ix) = call.indices
        && ix.len() < call.count as usize
    {
        return Err(ExecError {
            instruction: None,
            message: format!(
                "an indexed draw of {} vertices, but the index data holds {}",
                call.count,
                ix.len()
            ),
        });
    }
    let strip = matches!(call.topology, Topology::Basic(t) if t.restarts());
    // The draw's index values (checked above to hold `count`), and whether
    // RESTART among them cuts strips rather than naming a vertex.
    let values = call.indices.map(|ix| &ix[..call.count as usize]);
    let restarts = strip && values.is_some();
    let mut scratch = SCRATCH.take();
    let VertexScratch {
        distinct,
        ids,
        regs_in,
        seq,
    } = &mut scratch;
    // the distinct index values (restart excluded in strips), ascending
    match values {
        // Without indices every vertex is its own slot.
        None => distinct.all_below(call.count),
        Some(ix) => distinct.find(ix, restarts, limits.threads),
    }
    let regs = input
        .elements
        .iter()
        .map(|e| e.register as usize + 1)
        .max()
        .unwrap_or(0);
    let per_instance = distinct.values.len();
    ids.clear();
    ids.reserve(per_instance * call.instances as usize);
    for inst in 0..call.instances {
        ids.extend(distinct.values.iter().map(|&v| [v, inst]));
    }
    let mut stream = STREAMS.take();
    let kept = std::mem::take(&mut stream.outputs);
    let (outputs, stats) = match direct_rows(input, &distinct.values, call.instances, regs) {
        // the shader reads the buffer itself
        Some(rows) => vs.run_vertex_rows(res, rows, ids, limits, kept)?,
        None => {
            // Registers some element fills are overwritten; the others read 0.
            let all_filled = (0..regs).all(|r| {
                input
                    .elements
                    .iter()
                    .any(|e| e.register as usize == r && (e.buffer as usize) < input.buffers.len())
            });
            if !all_filled {
                regs_in.clear();
            }
            regs_in.truncate(ids.len() * regs);
            regs_in.resize(ids.len() * regs, [0; 4]);
            fetch_all(input, ids, regs, limits.threads, regs_in);
            vs.run_vertex_invocations(res, regs_in, regs, ids, limits, kept)?
        }
    };
    stream.outputs = outputs;
    stream.stride = vs.output_count();
    let slots = Slots {
        values,
        per_instance: per_instance as u32,
        distinct,
        restarts,
    };
    if let Some(list) = list_kind(call.topology) {
        let (len, instances) = (call.count as usize, 0..call.instances);
        assemble_list(
            list,
            len,
            instances,
            limits.threads,
            &|at, instance, out| slots.fill(at, instance, out),
            &mut stream,
            Placement::Replace,
        );
    } else {
        stream.indices.clear();
        stream.primitives.clear();
        seq.clear();
        seq.reserve(call.count as usize);
        for inst in 0..call.instances {
            seq.clear();
            seq.resize(call.count as usize, 0);
            slots.fill(0, inst, seq);
            assemble(call.topology, seq, keep_adjacency, inst, &mut stream);
        }
    }
    SCRATCH.give(scratch);
    Ok((stream, stats))
}

/// The primitive kind and vertex count of a list topology (points, lines,
/// triangles); None for the others.
fn list_kind(topology: Topology) -> Option<(PrimitiveKind, usize)> {
    match topology {
        Topology::Basic(BasicTopology::PointList) => Some((PrimitiveKind::Point, 1)),
        Topology::Basic(BasicTopology::LineList) => Some((PrimitiveKind::Line, 2)),
        Topology::Basic(BasicTopology::TriangleList) => Some((PrimitiveKind::Triangle, 3)),
        _ => None,
    }
}

/// Which stream vertex each index of a draw names: the index values
/// (None: the vertex numbers themselves) placed among the distinct
/// values; instance `i`'s vertices follow the first `i` instances'
/// `per_instance`.
struct Slots<'a> {
    values: Option<&'a [u32]>,
    per_instance: u32,
    distinct: &'a DistinctValues,
    /// RESTART cuts strips instead of naming a vertex.
    restarts: bool,
}

impl Slots<'_> {
    /// The stream vertices of indices `at..at + out.len()` of `instance`
    /// into `out` (RESTART where a strip is cut).
    fn fill(&self, at: usize, instance: u32, out: &mut [u32]) {
        let first = instance * self.per_instance;
        let Some(values) = self.values else {
            for (o, v) in out.iter_mut().zip(at as u32..) {
                *o = first + v;
            }
            return;
        };
        let values = &values[at..at + out.len()];
        self.distinct.places(values, self.restarts, first, out);
    }
}

/// Where [`assemble_list`] puts its primitives.
#[derive(Clone, Copy)]
enum Placement {
    /// After those the stream holds.
    Append,
    /// In place of them.
    Replace,
}

/// Primitives per thread below which [`assemble_list`] stays on one thread.
const ASSEMBLE_PER_THREAD: usize = 8192;

/// The primitives of a list draw of `len` indices per instance appended
/// to `out` (`Append`) or making all of its indices and primitives
/// (`Replace`: what they held is resized and overwritten, without a pass
/// that clears them first), for each of `instances` in order, each
/// instance's primitives in runs on up to `threads` threads: index i of an
/// instance is the stream vertex `fill` writes for it (`fill(at,
/// instance, out)` writes those of indices `at..at + out.len()`; a partial
/// last primitive is dropped).
#[allow(clippy::too_many_arguments)]
fn assemble_list(
    (kind, n): (PrimitiveKind, usize),
    len: usize,
    instances: std::ops::Range<u32>,
    threads: usize,
    fill: &(impl Fn(usize, u32, &mut [u32]) + Sync),
    out: &mut VertexStream,
    into: Placement,
) {
    let count = len / n;
    let total = count * instances.len();
    let (first_index, first_prim) = match into {
        Placement::Append => (out.indices.len(), out.primitives.len()),
        Placement::Replace => (0, 0),
    };
    let blank = Primitive {
        kind,
        first: 0,
        id: 0,
        instance: 0,
    };
    out.indices.resize(first_index + total * n, 0);
    // the records of appended primitives; replacing ones stand as a list
    let records = match into {
        Placement::Append => {
            let each = out.primitives.each_mut();
            each.resize(first_prim + total, blank);
            &mut each[first_prim..]
        }
        Placement::Replace => {
            out.primitives.set_list(kind, count, instances.len());
            &mut []
        }
    };
    let threads = threads.clamp(1, (count / ASSEMBLE_PER_THREAD).max(1));
    let per = count.div_ceil(threads).max(1);
    let indices = out.indices[first_index..].chunks_mut((count * n).max(1));
    // (no records: an empty run of them per instance)
    let prims = records
        .chunks_mut(count.max(1))
        .chain(std::iter::repeat_with(Default::default));
    for (q, (instance, (indices, prims))) in instances.zip(indices.zip(prims)).enumerate() {
        let base = first_index + q * count * n;
        let run = |(t, (indices, prims)): (usize, (&mut [u32], &mut [Primitive]))| {
            let p0 = t * per;
            for (j, p) in prims.iter_mut().enumerate() {
                *p = Primitive {
                    kind,
                    first: (base + (p0 + j) * n) as u32,
                    id: (p0 + j) as u32,
                    instance,
                };
            }
            fill(p0 * n, instance, indices);
        };
        let prims = prims
            .chunks_mut(per)
            .chain(std::iter::repeat_with(Default::default));
        let shares = indices.chunks_mut(per * n).zip(prims);
        if threads <= 1 {
            shares.enumerate().for_each(run);
        } else {
            tgsi_exec::parallel::each(shares.enumerate().collect(), run);
        }
    }
}

/// The invocations' input registers straight from the vertex buffer when
/// it holds them as they are: one per-vertex buffer whose elements are
/// registers 0..regs in order, four components each, back to back, and
/// one invocation per buffer element in order (one instance of a draw
/// that reads every vertex from the first on).
fn direct_rows<'a>(
    input: &'a VertexInput,
    distinct: &[u32],
    instances: u32,
    regs: usize,
) -> Option<VertexRows<'a>> {
    let [b] = input.buffers.as_slice() else {
        return None;
    };
    let n = distinct.len();
    let in_order = |(r, e): (usize, &VertexElement)| {
        e.register as usize == r
            && e.buffer == 0
            && e.offset as usize == 16 * r
            && e.format.components == 4
    };
    // (distinct is sorted without repeats: 0 first and n - 1 last is 0..n)
    let whole = instances == 1
        && b.rate == InputRate::PerVertex
        && b.stride as usize == 16 * regs
        && input.elements.len() == regs
        && input.elements.iter().enumerate().all(in_order)
        && distinct.first().is_none_or(|&v| v == 0)
        && distinct.last().is_none_or(|&v| v as usize == n - 1)
        && b.data.len() >= 16 * regs * n;
    whole.then_some(VertexRows::Bytes {
        bytes: &b.data,
        stride: regs,
        count: n,
    })
}

/// Invocations below which [`fetch_all`] stays on one thread.
const FETCH_PER_THREAD: usize = 8192;

/// The input registers of every invocation (`ids`: index value and
/// instance) into `regs_in`, `regs` per invocation, on up to `threads`
/// threads.
fn fetch_all(
    input: &VertexInput,
    ids: &[[u32; 2]],
    regs: usize,
    threads: usize,
    regs_in: &mut [[u32; 4]],
) {
    if regs == 0 {
        return;
    }
    let fetch = |ids: &[[u32; 2]], out: &mut [[u32; 4]]| {
        for (&[v, inst], regs) in ids.iter().zip(out.chunks_exact_mut(regs)) {
            input.fetch(v, inst, regs);
        }
    };
    let threads = threads.clamp(1, (ids.len() / FETCH_PER_THREAD).max(1));
    if threads <= 1 {
        fetch(ids, regs_in);
        return;
    }
    let per = ids.len().div_ceil(threads);
    let shares = ids.chunks(per).zip(regs_in.chunks_mut(per * regs));
    tgsi_exec::parallel::each(shares.collect(), |(ids, out)| fetch(ids, out));
}

/// Appends the primitives of one instance: `seq` holds vertex numbers of
/// the stream ([`RESTART`] cuts strips).
pub fn assemble(
    topology: Topology,
    seq: &[u32],
    keep_adjacency: bool,
    instance: u32,
    out: &mut VertexStream,
) {
    let mut id = 0u32;
    let mut push = |out: &mut VertexStream, kind: PrimitiveKind, verts: &[u32]| {
        out.primitives.push(Primitive {
            kind,
            first: out.indices.len() as u32,
            id,
            instance,
        });
        out.indices.extend_from_slice(verts);
        id += 1;
    };
    use BasicTopology as T;
    if let Some(list) = list_kind(topology) {
        let instances = instance..instance + 1;
        assemble_list(
            list,
            seq.len(),
            instances,
            1,
            &|at, _, out: &mut [u32]| out.copy_from_slice(&seq[at..at + out.len()]),
            out,
            Placement::Append,
        );
        return;
    }
    let t = match topology {
        Topology::PatchList(c) => {
            for p in seq.chunks_exact(c as usize) {
                push(out, PrimitiveKind::Patch(c), p);
            }
            return;
        }
        Topology::Basic(t) => t,
    };
    match t {
        // (assembled above)
        T::PointList | T::LineList | T::TriangleList => {}
        T::LineListAdj => seq.chunks_exact(4).for_each(|p| {
            if keep_adjacency {
                push(out, PrimitiveKind::LineAdj, p)
            } else {
                push(out, PrimitiveKind::Line, &p[1..3])
            }
        }),
        T::TriangleListAdj => seq.chunks_exact(6).for_each(|p| {
            if keep_adjacency {
                push(out, PrimitiveKind::TriangleAdj, p)
            } else {
                push(out, PrimitiveKind::Triangle, &[p[0], p[2], p[4]])
            }
        }),
        T::LineStrip
        | T::TriangleStrip
        | T::TriangleFan
        | T::LineStripAdj
        | T::TriangleStripAdj => {
            for run in seq.split(|v| *v == RESTART) {
                strip_primitives(t, run, keep_adjacency, &mut |kind, verts| {
                    push(out, kind, verts)
                });
            }
        }
    }
}

/// The primitives of one strip or fan run (no restart inside).
fn strip_primitives(
    t: BasicTopology,
    run: &[u32],
    keep_adjacency: bool,
    push: &mut dyn FnMut(PrimitiveKind, &[u32]),
) {
    use BasicTopology as T;
    let n = run.len();
    match t {
        T::LineStrip => run.windows(2).for_each(|p| push(PrimitiveKind::Line, p)),
        T::TriangleStrip => {
            for i in 0..n.saturating_sub(2) {
                let tri = if i % 2 == 0 {
                    [run[i], run[i + 1], run[i + 2]]
                } else {
                    [run[i], run[i + 2], run[i + 1]]
                };
                push(PrimitiveKind::Triangle, &tri);
            }
        }
        T::TriangleFan => {
            for i in 0..n.saturating_sub(2) {
                push(PrimitiveKind::Triangle, &[run[i + 1], run[i + 2], run[0]]);
            }
        }
        T::LineStripAdj => {
            for p in run.windows(4) {
                if keep_adjacency {
                    push(PrimitiveKind::LineAdj, p)
                } else {
                    push(PrimitiveKind::Line, &p[1..3])
                }
            }
        }
        T::TriangleStripAdj => {
            let tris = n.saturating_sub(4) / 2;
            for i in 0..tris {
                // 0-based vertex numbers of the main and adjacent vertices.
                let last = i + 1 == tris;
                let (a, b, c) = (2 * i, 2 * i + 2, 2 * i + 4);
                let prev = if i == 0 { 2 * i + 1 } else { 2 * i - 2 };
                let next_after_b = if last { 2 * i + 5 } else { 2 * i + 6 };
                // Even: a b c; odd: a c b (the winding of the base strip).
                let v = if i % 2 == 0 {
                    // adjacent of a-b, b-c, c-a
                    [a, prev, b, next_after_b, c, 2 * i + 3]
                } else {
                    [a, 2 * i + 3, c, next_after_b, b, prev]
                };
                if keep_adjacency {
                    let verts: [u32; 6] = v.map(|k| run[k]);
                    push(PrimitiveKind::TriangleAdj, &verts);
                } else {
                    push(PrimitiveKind::Triangle, &[run[v[0]], run[v[2]], run[v[4]]]);
                }
            }
        }
        T::PointList | T::LineList | T::TriangleList | T::LineListAdj | T::TriangleListAdj => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi_exec::{Limits, Resources};

    /// A buffer of little-endian words read `rate`.
    fn buffer_of(words: &[u32], stride: u32, rate: InputRate) -> VertexBuffer {
        VertexBuffer {
            data: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            stride,
            rate,
        }
    }

    /// Element `register` from `buffer` at `offset`, `components` of `kind`.
    fn element(
        register: u32,
        buffer: u32,
        offset: u32,
        (kind, components): (ValueKind, u8),
    ) -> VertexElement {
        VertexElement {
            register,
            buffer,
            offset,
            format: VertexFormat { kind, components },
        }
    }

    /// An element naming a register far past any shader's inputs is an
    /// error, not rows of that many registers for every vertex.
    #[test]
    fn an_element_past_the_input_registers_is_refused() {
        let (shader, _) = tgsi_text::assemble(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n",
        )
        .unwrap();
        let vs = Program::compile(&shader).unwrap();
        let rows: Vec<Vec<[u32; 4]>> = (0..3u32).map(|v| vec![[v, 0, 0, 1]]).collect();
        let mut input = VertexInput::from_rows(&rows);
        input.elements[0].register = u32::MAX;
        let call = DrawCall {
            topology: Topology::Basic(BasicTopology::TriangleList),
            count: 3,
            instances: 1,
            indices: None,
        };
        let result = shade_vertices(
            &vs,
            &mut Resources::default(),
            &input,
            &call,
            false,
            false,
            &Limits::default(),
        );
        let Err(e) = result else {
            panic!("an element at IN[4294967295] was taken")
        };
        assert!(
            e.message
                .contains("input register 4294967295; registers go up to 4095"),
            "{}",
            e.message
        );
    }

    /// The buffers of a recycled stream and of the vertex stage's working
    /// lists keep nothing of the draw before: a small indexed draw after a
    /// large one (whose buffers it likely takes) gives what it gave before.
    #[test]
    fn recycled_buffers_keep_nothing_of_the_last_draw() {
        let (shader, _) = tgsi_text::assemble(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
             0: MOV OUT[0], IN[0]\n1: MOV OUT[1], IN[0].yxwz\n2: END\n",
        )
        .unwrap();
        let vs = Program::compile(&shader).unwrap();
        let rows: Vec<Vec<[u32; 4]>> = (0..600u32).map(|v| vec![[v, 7 * v, 1, 2]]).collect();
        let input = VertexInput::from_rows(&rows);
        let big = DrawCall {
            topology: Topology::Basic(BasicTopology::TriangleStrip),
            count: 600,
            instances: 2,
            indices: None,
        };
        let indices = [9u32, 4, 4, 1, 590, 9];
        let small = DrawCall {
            topology: Topology::Basic(BasicTopology::TriangleList),
            count: 6,
            instances: 1,
            indices: Some(&indices),
        };
        let (alone, _) = crate::tests::shade(&vs, &input, &small);
        assert_eq!(alone.outputs.len(), 4 * 2, "4 distinct vertices, 2 outputs");
        // a list draw takes the last list's buffers without clearing them
        let big_list = DrawCall {
            topology: Topology::Basic(BasicTopology::TriangleList),
            ..big
        };
        for _ in 0..3 {
            for before in [&big, &big_list] {
                crate::tests::shade(&vs, &input, before).0.recycle();
                let (again, _) = crate::tests::shade(&vs, &input, &small);
                assert_eq!(again, alone);
                again.recycle();
            }
        }
    }

    /// Indexed draws shade each distinct index once and their primitives
    /// read the vertex each index names, whether the distinct values are
    /// found through the table (compact indices) or by sorting (sparse).
    #[test]
    fn indexed_draws_map_indices_to_their_vertices() {
        let (shader, _) = tgsi_text::assemble(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n",
        )
        .unwrap();
        let vs = Program::compile(&shader).unwrap();
        for spread in [1u32, 1000] {
            let indices: Vec<u32> = [5u32, 2, 9, 2, 5, 7, 9, 0, 2]
                .iter()
                .map(|i| i * spread)
                .collect();
            let rows: Vec<Vec<[u32; 4]>> = (0..=9 * spread).map(|v| vec![[v, 7, 0, 1]]).collect();
            let input = VertexInput::from_rows(&rows);
            let call = DrawCall {
                topology: Topology::Basic(BasicTopology::TriangleList),
                count: indices.len() as u32,
                instances: 2,
                indices: Some(&indices),
            };
            let (stream, stats) = crate::tests::shade(&vs, &input, &call);
            // 5 distinct values, twice (instances)
            assert_eq!(stats.invocations, 10, "spread {spread}");
            assert_eq!(stream.primitives.len(), 6);
            for (k, p) in stream.primitives.iter().enumerate() {
                let got: Vec<u32> = stream
                    .primitive_vertices(&p)
                    .iter()
                    .map(|&v| stream.vertex(v)[0][0])
                    .collect();
                let first = (k % 3) * 3;
                assert_eq!(
                    got,
                    indices[first..first + 3],
                    "spread {spread}, primitive {k}"
                );
            }
        }
    }

    /// The vertex stage on several threads (fetch, shading, outputs in
    /// place) gives the stream of one thread: per-vertex and per-instance
    /// elements, an indexed draw of two instances.
    #[test]
    fn vertex_stage_on_threads_gives_the_stream_of_one() {
        let vs = crate::tests::program(
            "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
             0: UADD OUT[0], IN[0], IN[1]\n1: MOV OUT[1], IN[1]\n2: END\n",
        );
        let words = |n: u32, k: u32| -> Vec<u32> { (0..n * 4).map(|w| w * k + 1).collect() };
        let uint4 = (ValueKind::Uint, 4);
        let n = 20_000u32;
        let input = VertexInput {
            buffers: vec![
                buffer_of(&words(n, 3), 16, InputRate::PerVertex),
                buffer_of(&words(2, 7), 16, InputRate::PerInstance(1)),
            ],
            elements: vec![element(0, 0, 0, uint4), element(1, 1, 0, uint4)],
        };
        let indices: Vec<u32> = (0..3 * n).map(|i| (i * 7919) % n).collect();
        let call = DrawCall {
            topology: Topology::Basic(BasicTopology::TriangleList),
            count: indices.len() as u32,
            instances: 2,
            indices: Some(&indices),
        };
        let run = |threads: usize| {
            let limits = Limits {
                threads,
                ..Limits::default()
            };
            let mut res = Resources::default();
            shade_vertices(&vs, &mut res, &input, &call, false, false, &limits)
                .unwrap()
                .0
        };
        let one = run(1);
        assert_eq!(one.outputs.len(), 2 * n as usize * 2);
        // vertex 5 of instance 1: IN[0] + IN[1] words
        let v = one.vertex(n + 5);
        assert_eq!(v[1], [29, 36, 43, 50]);
        assert_eq!(v[0], [61 + 29, 64 + 36, 67 + 43, 70 + 50]);
        for threads in [2, 3] {
            assert!(run(threads) == one, "{threads} threads differ");
        }
    }

    /// A buffer holding the registers as they are is read by the shader
    /// itself; the same words described otherwise (elements in another
    /// order) are fetched first: the streams are the same, for indices
    /// that read every vertex and for some that skip the first.
    #[test]
    fn registers_read_from_the_buffer_are_the_fetched_ones() {
        let vs = crate::tests::program(
            "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
             0: UADD OUT[0], IN[0], IN[1]\n1: MOV OUT[1], IN[1]\n2: END\n",
        );
        let rows: Vec<Vec<[u32; 4]>> = (0..9000u32)
            .map(|v| vec![[v, 2 * v, 3 * v, 7], [v + 1000, 5, v * v, 9]])
            .collect();
        let direct = VertexInput::from_rows(&rows);
        let mut fetched = direct.clone();
        fetched.elements.reverse();
        // every vertex (37 is prime to 9000), and the first two again
        let all: Vec<u32> = (0..9002).map(|i| (i * 37) % 9000).collect();
        let skipping: Vec<u32> = (3..99).collect();
        let every: Vec<u32> = (0..9000).collect();
        assert!(direct_rows(&direct, &every, 1, 2).is_some());
        assert!(direct_rows(&fetched, &every, 1, 2).is_none());
        assert!(direct_rows(&direct, &every[1..], 1, 2).is_none());
        assert!(direct_rows(&direct, &every, 2, 2).is_none());
        for indices in [&all, &skipping] {
            let call =
                DrawCall::indexed(Topology::Basic(BasicTopology::TriangleList), indices).unwrap();
            let (a, _) = crate::tests::shade(&vs, &direct, &call);
            let (b, _) = crate::tests::shade(&vs, &fetched, &call);
            assert!(a == b, "{} indices", indices.len());
            // (the buffer read in two ranges on threads)
            let limits = Limits {
                threads: 3,
                ..Limits::default()
            };
            let mut res = Resources::default();
            let threaded = shade_vertices(&vs, &mut res, &direct, &call, false, false, &limits);
            assert!(
                threaded.unwrap().0 == a,
                "{} indices on threads",
                indices.len()
            );
            let p = &a.primitives.get(1).unwrap();
            let v = a.primitive_vertices(p)[0];
            let value = indices[3];
            assert_eq!(a.vertex(v)[1], [value + 1000, 5, value * value, 9]);
        }
    }

    /// An indexed strip restarts at RESTART through shade_vertices, on the
    /// table (compact indices) and the sorted (sparse) paths, in every
    /// instance; in a list RESTART is an ordinary index (its vertex lies
    /// past the buffer: it reads zeros).
    #[test]
    fn indexed_strips_restart_and_lists_read_restart_as_an_index() {
        let vs = crate::tests::program(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n",
        );
        let read = |stream: &VertexStream| -> Vec<Vec<[u32; 4]>> {
            let prims = stream.primitives.iter();
            prims
                .map(|p| {
                    let verts = stream.primitive_vertices(&p).iter();
                    verts.map(|&v| stream.vertex(v)[0]).collect()
                })
                .collect()
        };
        for spread in [1u32, 1000] {
            let rows: Vec<Vec<[u32; 4]>> = (0..=6 * spread).map(|v| vec![[v, 7, 0, 1]]).collect();
            let input = VertexInput::from_rows(&rows);
            let at = |i: u32| [i * spread, 7, 0, 1];
            let indices: Vec<u32> = [0u32, 1, 2, u32::MAX, 3, 4, 5, 6]
                .iter()
                .map(|&i| if i == RESTART { RESTART } else { i * spread })
                .collect();
            let strip = DrawCall {
                topology: Topology::Basic(BasicTopology::TriangleStrip),
                count: indices.len() as u32,
                instances: 2,
                indices: Some(&indices),
            };
            let (stream, stats) = crate::tests::shade(&vs, &input, &strip);
            assert_eq!(stats.invocations, 14, "spread {spread}");
            let one = vec![
                vec![at(0), at(1), at(2)],
                vec![at(3), at(4), at(5)],
                vec![at(4), at(6), at(5)],
            ];
            assert_eq!(
                read(&stream),
                [one.clone(), one].concat(),
                "spread {spread}"
            );
            let list = DrawCall {
                topology: Topology::Basic(BasicTopology::TriangleList),
                count: 6,
                instances: 1,
                indices: Some(&indices[..6]),
            };
            let (stream, _) = crate::tests::shade(&vs, &input, &list);
            assert_eq!(
                read(&stream),
                vec![vec![at(0), at(1), at(2)], vec![[0; 4], at(3), at(4)]],
                "spread {spread}"
            );
        }
    }

    fn prims(t: BasicTopology, n: u32, adj: bool) -> Vec<Vec<u32>> {
        let seq: Vec<u32> = (0..n).collect();
        let mut s = VertexStream::default();
        assemble(Topology::Basic(t), &seq, adj, 0, &mut s);
        s.primitives
            .iter()
            .map(|p| s.primitive_vertices(&p).to_vec())
            .collect()
    }

    /// Lists cut the sequence in order, a partial last primitive dropped;
    /// ids count on from 0 and the instance is kept.
    #[test]
    fn lists_take_the_sequence_in_order() {
        assert_eq!(
            prims(BasicTopology::TriangleList, 7, false),
            vec![vec![0, 1, 2], vec![3, 4, 5]]
        );
        assert_eq!(
            prims(BasicTopology::LineList, 5, false),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(
            prims(BasicTopology::PointList, 2, false),
            vec![vec![0], vec![1]]
        );
        let mut s = VertexStream::default();
        s.indices.push(99);
        assemble(
            Topology::Basic(BasicTopology::TriangleList),
            &[4, 5, 6, 7, 8, 9],
            false,
            3,
            &mut s,
        );
        let ids: Vec<(u32, u32, u32)> = s
            .primitives
            .iter()
            .map(|p| (p.first, p.id, p.instance))
            .collect();
        assert_eq!(ids, vec![(1, 0, 3), (4, 1, 3)]);
        assert_eq!(
            s.primitive_vertices(&s.primitives.get(1).unwrap()),
            &[7, 8, 9]
        );
    }

    /// A list draw's primitives, made from their numbers, are the records
    /// an appending assembly makes: each instance's in turn, a partial
    /// last primitive dropped, on one thread and on three; made into
    /// records by a push, they are those records and the pushed one.
    #[test]
    fn listed_primitives_are_the_records_assembly_makes() {
        let fill = |at: usize, instance: u32, out: &mut [u32]| {
            for (o, v) in out.iter_mut().zip(at as u32..) {
                *o = v + 1000 * instance;
            }
        };
        let len = 3 * 20_000 + 2;
        for threads in [1, 3] {
            let assembled = |into: Placement| {
                let mut stream = VertexStream::default();
                let kind = (PrimitiveKind::Triangle, 3);
                assemble_list(kind, len, 0..3, threads, &fill, &mut stream, into);
                stream
            };
            let (mut listed, mut records) =
                (assembled(Placement::Replace), assembled(Placement::Append));
            assert!(listed.primitives.list.is_some() && listed.primitives.each.is_empty());
            assert!(records.primitives.list.is_none());
            assert_eq!(listed.primitives.len(), 60_000);
            assert!(
                listed
                    .primitives
                    .iter()
                    .eq(records.primitives.each.iter().copied())
            );
            assert_eq!(listed.primitives.get(60_000), None);
            assert_eq!(listed.indices, records.indices);
            let extra = Primitive {
                kind: PrimitiveKind::Point,
                first: 7,
                id: 9,
                instance: 1,
            };
            listed.primitives.push(extra);
            records.primitives.push(extra);
            assert!(listed.primitives.list.is_none());
            assert_eq!(listed.primitives.each, records.primitives.each);
        }
    }

    #[test]
    fn strips_keep_the_leading_vertex_first_and_the_winding() {
        assert_eq!(
            prims(BasicTopology::TriangleStrip, 5, false),
            vec![vec![0, 1, 2], vec![1, 3, 2], vec![2, 3, 4]]
        );
        assert_eq!(
            prims(BasicTopology::TriangleFan, 5, false),
            vec![vec![1, 2, 0], vec![2, 3, 0], vec![3, 4, 0]]
        );
        assert_eq!(
            prims(BasicTopology::LineStripAdj, 5, false),
            vec![vec![1, 2], vec![2, 3]]
        );
        assert_eq!(
            prims(BasicTopology::TriangleListAdj, 6, false),
            vec![vec![0, 2, 4]]
        );
        assert_eq!(
            prims(BasicTopology::TriangleStripAdj, 8, false),
            vec![vec![0, 2, 4], vec![2, 6, 4]]
        );
        assert_eq!(
            prims(BasicTopology::TriangleStripAdj, 6, true),
            vec![vec![0, 1, 2, 5, 4, 3]]
        );
    }

    #[test]
    fn restart_cuts_strips_and_ids_count_on() {
        let mut s = VertexStream::default();
        assemble(
            Topology::Basic(BasicTopology::TriangleStrip),
            &[0, 1, 2, RESTART, 3, 4, 5, 6],
            false,
            0,
            &mut s,
        );
        let v: Vec<Vec<u32>> = s
            .primitives
            .iter()
            .map(|p| s.primitive_vertices(&p).to_vec())
            .collect();
        assert_eq!(v, vec![vec![0, 1, 2], vec![3, 4, 5], vec![4, 6, 5]]);
        assert_eq!(s.primitives.get(2).unwrap().id, 2);
    }

    #[test]
    fn fetch_fills_missing_components_and_reads_zero_past_the_end() {
        let input = VertexInput {
            buffers: vec![buffer_of(&[1, 2, 3], 8, InputRate::PerVertex)],
            elements: vec![element(1, 0, 0, (ValueKind::Float, 2))],
        };
        let mut out = [[9u32; 4]; 2];
        input.fetch(1, 0, &mut out);
        assert_eq!(out[0], [9; 4]);
        assert_eq!(out[1], [3, 0, 0, 1.0f32.to_bits()]);
    }

    /// Four-component elements read whole inside the buffer and word by
    /// word where they cross its end.
    #[test]
    fn fetch_reads_whole_elements_and_words_up_to_the_end() {
        let words: Vec<u32> = (1..=7).collect();
        let input = VertexInput {
            buffers: vec![buffer_of(&words, 12, InputRate::PerVertex)],
            elements: vec![element(0, 0, 4, (ValueKind::Sint, 4))],
        };
        let mut out = [[9u32; 4]; 1];
        input.fetch(0, 0, &mut out);
        assert_eq!(out[0], [2, 3, 4, 5]);
        input.fetch(1, 0, &mut out);
        assert_eq!(out[0], [5, 6, 7, 0]);
        input.fetch(2, 0, &mut out);
        assert_eq!(out[0], [0, 0, 0, 0]);
    }
}
