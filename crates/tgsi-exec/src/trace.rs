//! Following one invocation through its program: the recorder behind
//! `tgsi debug`.
//!
//! A [`Tracer`] attached to a program ([`crate::Program::set_tracer`])
//! holds a [`Selector`] (a compute thread, a vertex, a pixel's fragment, a
//! primitive's invocation). Every stage tells the tracer who each lane of a
//! batch is ([`Identity`]) just before running it; the batch holding the
//! chosen invocation then runs here, one instruction at a time, in the
//! interpreter's own code (`Batch::execute_one` and the fast kernels), and
//! the chosen lane's steps are recorded with what each wrote. Other batches
//! and programs without a tracer run exactly as before.
//!
//! What a step is: an instruction the lane executes as if it ran alone as
//! a scalar program. An instruction is a step when the lane is active as it
//! starts, except for the block ends, which a lane reaches from either side:
//! ELSE (active before or after it), ENDIF and CASE/DEFAULT (active after),
//! ENDLOOP (active after it, when it jumps back: a lane that left the loop
//! with BRK never reaches it) and ENDSWITCH (active before, or after when
//! it did not leave the SWITCH by a BRK). So an IF whose condition is false
//! is a step and its body is not; ELSE and ENDIF are steps on both paths.
//!
//! A write names the register the instruction stores (its resolved index
//! for indirect destinations), with the channels the opcode really writes
//! (64-bit pairs follow the machine's writemask rules), after saturation,
//! read back after the instruction; memory writes name the resource and
//! the byte offset (images: the texel and its words).

use super::decode::{Code, DstKind, IndexExpr, Inst, Resource};
use super::machine::{Batch, Env, Mask, Stop, grid_entry, index_in_lane, patch_slot};
use super::semantics::written_channels;
use super::{ExecError, LANES};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use tgsi_ir::enums::{File, TextureTarget};
use tgsi_ir::opcode::{Category, Opcode};

/// The most steps a trace records (a memory cap): a longer run ends the
/// trace with status `budget`.
pub const MAX_TRACE_STEPS: usize = 2_000_000;

/// [`Selector::Pixel`]'s `sample` for a fragment covering any sample
/// (pixel history).
pub const ANY_SAMPLE: u32 = u32::MAX;

/// Which invocation to follow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Selector {
    /// Compute: the thread with local id `thread` in work group `group`.
    Thread { group: [u32; 3], thread: [u32; 3] },
    /// Vertex: the invocation of vertex `vertex` (its VERTEXID) of instance `instance`.
    Vertex { vertex: u32, instance: u32 },
    /// Fragment: the fragment at pixel (x, y) covering `sample`, of primitive
    /// `primitive` (`None`: the last primitive shaded there).
    Pixel {
        x: u32,
        y: u32,
        sample: u32,
        primitive: Option<u32>,
    },
    /// Geometry and tess-control: invocation `invocation` of primitive (patch) `primitive`.
    Primitive { primitive: u32, invocation: u32 },
    /// Tess-eval: the domain point (u, v) of patch `primitive`; `w`, when
    /// given, must be the point's too (1 - u - v on triangles, 0 on quads
    /// and isolines).
    Domain {
        primitive: u32,
        coord: [f32; 2],
        w: Option<f32>,
    },
}

/// Who a lane of a batch is, as its stage knows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Identity {
    Thread {
        group: [u32; 3],
        thread: [u32; 3],
    },
    Vertex {
        vertex: u32,
        instance: u32,
    },
    /// `samples`: the samples of the pixel this invocation shades (bit s).
    Fragment {
        x: u32,
        y: u32,
        samples: u32,
        primitive: u32,
    },
    Primitive {
        primitive: u32,
        invocation: u32,
    },
    Domain {
        primitive: u32,
        coord: [f32; 3],
    },
}

impl Selector {
    /// True when the lane `id` is the invocation this selector names.
    pub fn matches(&self, id: &Identity) -> bool {
        match (*self, *id) {
            (
                Selector::Thread { group, thread },
                Identity::Thread {
                    group: g,
                    thread: t,
                },
            ) => group == g && thread == t,
            (
                Selector::Vertex { vertex, instance },
                Identity::Vertex {
                    vertex: v,
                    instance: i,
                },
            ) => vertex == v && instance == i,
            (
                Selector::Pixel {
                    x,
                    y,
                    sample,
                    primitive,
                },
                Identity::Fragment {
                    x: fx,
                    y: fy,
                    samples,
                    primitive: p,
                },
            ) => {
                x == fx
                    && y == fy
                    && (sample == ANY_SAMPLE || (sample < 32 && samples & (1 << sample) != 0))
                    && primitive.is_none_or(|want| want == p)
            }
            (
                Selector::Primitive {
                    primitive,
                    invocation,
                },
                Identity::Primitive {
                    primitive: p,
                    invocation: i,
                },
            ) => primitive == p && invocation == i,
            (
                Selector::Domain {
                    primitive,
                    coord,
                    w,
                },
                Identity::Domain {
                    primitive: p,
                    coord: c,
                },
            ) => {
                let near = |a: f32, b: f32| (a - b).abs() <= 1e-6;
                primitive == p
                    && near(coord[0], c[0])
                    && near(coord[1], c[1])
                    && w.is_none_or(|w| near(w, c[2]))
            }
            _ => false,
        }
    }
}

/// Where a recorded value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Channel `chan` of register `file[index]` (`vertex`: the control
    /// point of a tess-control output or of a per-vertex input).
    Reg {
        file: File,
        index: u32,
        vertex: Option<u32>,
        chan: u8,
    },
    /// The 32-bit word at byte `offset` of `BUFFER[n]` or of the shared `MEMORY`.
    Memory { buffer: Option<u32>, offset: u32 },
    /// The texel of `IMAGE[index]` at `coord` (x, y, z, layer).
    Image { index: u32, coord: [u32; 4] },
}

/// One value an instruction wrote for the lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    /// The destination operand that wrote it (`None`: memory).
    pub dst: Option<u8>,
    pub at: Location,
    /// The value (an image write: the texel's first word).
    pub word: u32,
    /// An image write: every word of the texel.
    pub texel: Option<Box<[u32]>>,
    /// The first channel of a 64-bit pair written whole by a 64-bit opcode.
    pub wide: bool,
}

/// One instruction the lane executed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The instruction's index in the program.
    pub pc: u32,
    pub writes: Vec<Write>,
}

/// How the lane's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Ok,
    /// KILL, KILL_IF or DEMOTE took the lane out.
    Killed,
    /// The instruction budget ran out.
    Budget,
    Error(String),
}

/// A 2×2 quad's lane, for fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuadLane {
    pub x: u32,
    pub y: u32,
    /// A helper lane (outside the primitive): it runs but writes nothing.
    pub helper: bool,
    /// The lane the debugger follows.
    pub chosen: bool,
}

/// What the tracer recorded of the chosen invocation.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneTrace {
    pub identity: Identity,
    /// Its lane in the batch.
    pub lane: u8,
    /// Every input, system-value and vertex-input register channel of the
    /// lane as the run started (temporaries and outputs start at 0).
    pub start: Vec<(Location, u32)>,
    /// Fragments: the lane's 2×2 quad, in lane order.
    pub quad: Option<[QuadLane; 4]>,
    pub steps: Vec<Step>,
    /// Output register channels as the run ended.
    pub outputs: Vec<(Location, u32)>,
    pub status: Status,
    /// With [`Status::Error`]: the instruction to blame, if one is.
    pub failed_at: Option<usize>,
}

/// The recorder a program carries while a debugger follows one invocation.
#[derive(Debug)]
pub struct Tracer {
    selector: Selector,
    armed: AtomicBool,
    record: Mutex<Option<LaneTrace>>,
    /// Pixel history: every fragment at the pixel and what became of it.
    history: Option<Mutex<Vec<HistoryEvent>>>,
    /// The draw being recorded (a runner's command number), for the history.
    draw: AtomicU32,
}

/// What the pipeline did with a fragment at the watched pixel (one sample).
#[derive(Clone, Debug, PartialEq)]
pub struct MergeEvent {
    pub draw: u32,
    pub primitive: u32,
    pub sample: u32,
    /// The depth/stencil test: passed, the fragment's depth, the stored
    /// depth before; `None` without a depth target.
    pub depth_test: Option<(bool, f32, f32)>,
    /// Each colour target written: (target, before, after), the target's
    /// values as its format reads them.
    pub colors: Vec<(u32, [u32; 4], [u32; 4])>,
}

/// One entry of a pixel's history, in draw order: a fragment shaded, or a
/// sample of it merged into the targets.
#[derive(Clone, Debug, PartialEq)]
pub enum HistoryEvent {
    Shaded { draw: u32, trace: LaneTrace },
    Merged(MergeEvent),
}

impl Tracer {
    /// A tracer following `selector`, armed.
    pub fn new(selector: Selector) -> Tracer {
        Tracer {
            selector,
            armed: AtomicBool::new(true),
            record: Mutex::new(None),
            history: None,
            draw: AtomicU32::new(1),
        }
    }

    /// A tracer keeping the history of pixel `selector` (a
    /// [`Selector::Pixel`]): every fragment shaded there, and for each
    /// sample the depth/stencil test and the colours before and after.
    pub fn with_history(selector: Selector) -> Tracer {
        Tracer {
            history: Some(Mutex::new(Vec::new())),
            ..Tracer::new(selector)
        }
    }

    /// Numbers the draws the history records (from 1).
    pub fn set_draw(&self, draw: u32) {
        self.draw.store(draw, Ordering::Relaxed);
    }

    /// The pixel whose history is kept, while armed: what the pipeline
    /// reports merges of (and, watching it, merges fragment by fragment).
    pub fn watched_pixel(&self) -> Option<(u32, u32)> {
        match self.selector {
            Selector::Pixel { x, y, .. }
                if self.history.is_some() && self.armed.load(Ordering::Relaxed) =>
            {
                Some((x, y))
            }
            _ => None,
        }
    }

    /// Records what the pipeline did with a sample at the watched pixel.
    pub fn record_merge(&self, mut event: MergeEvent) {
        event.draw = self.draw.load(Ordering::Relaxed);
        self.push_history(HistoryEvent::Merged(event));
    }

    fn push_history(&self, e: HistoryEvent) {
        if let Some(h) = &self.history {
            h.lock().unwrap_or_else(|e| e.into_inner()).push(e);
        }
    }

    /// The pixel history recorded so far (taken).
    pub fn take_history(&self) -> Vec<HistoryEvent> {
        self.history.as_ref().map_or_else(Vec::new, |h| {
            std::mem::take(&mut *h.lock().unwrap_or_else(|e| e.into_inner()))
        })
    }

    pub fn selector(&self) -> Selector {
        self.selector
    }

    /// Turns recording on or off (a runner arms it for one command only).
    pub fn arm(&self, on: bool) {
        self.armed.store(on, Ordering::Relaxed);
    }

    /// The record of the last batch that held the chosen invocation.
    pub fn take(&self) -> Option<LaneTrace> {
        self.lock().take()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<LaneTrace>> {
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Code {
    /// Marks batch `b` (reset and filled, about to run) for tracing when
    /// one of its live lanes is the invocation the tracer follows;
    /// `id(lane)` says who a lane is. Nothing without a tracer.
    #[inline]
    pub fn trace_batch(&self, b: &mut Batch, id: impl Fn(usize) -> Identity) {
        let Some(tracer) = &self.tracer else { return };
        if !tracer.armed.load(Ordering::Relaxed) {
            return;
        }
        let live = b.alive & !b.helper;
        // of several fragments of the pixel in one batch, the last
        // primitive's (a later batch's replaces this record in turn)
        let order = |l: usize| match id(l) {
            Identity::Fragment { primitive, .. } => primitive,
            _ => 0,
        };
        let Some(lane) = (0..LANES)
            .filter(|&l| live >> l & 1 == 1 && tracer.selector.matches(&id(l)))
            .max_by_key(|&l| (order(l), std::cmp::Reverse(l)))
        else {
            return;
        };
        b.traced = Some(lane as u8);
        let quad = (self.processor == tgsi_ir::enums::Processor::Fragment).then(|| {
            let first = lane & !3;
            std::array::from_fn(|k| QuadLane {
                x: b.pixel[0][first + k],
                y: b.pixel[1][first + k],
                helper: b.helper >> (first + k) & 1 == 1,
                chosen: first + k == lane,
            })
        });
        *tracer.lock() = Some(LaneTrace {
            identity: id(lane),
            lane: lane as u8,
            start: self.start_values(b, lane),
            quad,
            steps: Vec::new(),
            outputs: Vec::new(),
            status: Status::Ok,
            failed_at: None,
        });
    }

    /// The lane's input, system-value and per-vertex input channels.
    fn start_values(&self, b: &Batch, l: usize) -> Vec<(Location, u32)> {
        let mut out = Vec::new();
        let mut file = |file: File, base: u32, count: u32, vertex: Option<u32>| {
            for index in 0..count {
                let reg = &b.regs[(base + index) as usize];
                for (chan, row) in reg.iter().enumerate() {
                    let at = Location::Reg {
                        file,
                        index,
                        vertex,
                        chan: chan as u8,
                    };
                    out.push((at, row[l]));
                }
            }
        };
        file(File::Input, self.input.base, self.input.len, None);
        file(File::SystemValue, self.system.base, self.system.len, None);
        for v in 0..self.vertex_rows {
            let base = self.vertex_in.base + v * self.input.len;
            file(File::Input, base, self.input.len, Some(v));
        }
        out
    }

    /// The file and index of batch register `slot` (a writable one).
    fn name_slot(&self, slot: u32) -> Option<(File, u32)> {
        [
            (File::Temp, self.temp),
            (File::Output, self.output),
            (File::Address, self.addr),
            (File::Input, self.input),
        ]
        .into_iter()
        .find(|(_, r)| slot >= r.base && slot < r.base + r.len)
        .map(|(f, r)| (f, slot - r.base))
    }
}

/// Where a destination operand lands for the traced lane.
#[derive(Clone, Copy)]
enum Slot {
    Reg(u32),
    /// A tess-control patch-store entry, through grid `grid`.
    Patch {
        grid: u32,
        entry: u32,
    },
}

/// A memory write of the traced lane, resolved before the instruction runs.
#[derive(Clone, Copy)]
enum MemoryTarget {
    Words {
        buffer: Option<u32>,
        offset: u32,
        chans: u8,
    },
    Texel {
        index: u32,
        target: TextureTarget,
        coord: [u32; 4],
    },
}

/// What an instruction will write for the lane: resolved before it runs
/// (indices read the registers as they were), read back after.
#[derive(Default)]
struct Plan {
    dsts: [Option<(Slot, u8)>; 2],
    memory: Option<MemoryTarget>,
    /// The memory the lane wrote, read right after its own access.
    memory_writes: Vec<Write>,
}

impl Batch {
    /// Runs this batch with lane `lane` followed (see the module docs),
    /// recording into `tracer`; otherwise exactly what the interpreter does.
    pub(crate) fn run_traced(
        &mut self,
        code: &Code,
        env: &Env,
        shared: &mut [u32],
        lane: u8,
        tracer: &Tracer,
    ) -> Result<Stop, ExecError> {
        let mut guard = tracer.lock();
        let Some(rec) = guard.as_mut() else {
            self.traced = None;
            drop(guard);
            return self.run(code, env, shared);
        };
        let r = self.trace_loop(code, env, shared, lane, rec);
        let bit: Mask = 1 << lane;
        match &r {
            Ok(Stop::Barrier) => {}
            Ok(Stop::Ended) => {
                if self.alive & bit == 0 || self.helper & bit != 0 {
                    rec.status = Status::Killed;
                }
                rec.outputs = output_values(code, self, lane as usize);
            }
            Err(e) if e.message.contains("instruction budget") => rec.status = Status::Budget,
            Err(e) => {
                rec.status = Status::Error(e.message.clone());
                rec.failed_at = e.instruction;
            }
        }
        if tracer.history.is_some() && !matches!(r, Ok(Stop::Barrier)) {
            let draw = tracer.draw.load(Ordering::Relaxed);
            let trace = rec.clone();
            drop(guard);
            tracer.push_history(HistoryEvent::Shaded { draw, trace });
        }
        r
    }

    fn trace_loop(
        &mut self,
        code: &Code,
        env: &Env,
        shared: &mut [u32],
        lane: u8,
        rec: &mut LaneTrace,
    ) -> Result<Stop, ExecError> {
        let bit: Mask = 1 << lane;
        let l = lane as usize;
        // Per open SWITCH frame (by depth): the lane left it with a BRK.
        let mut left_switch = [false; super::decode::MAX_DEPTH + 1];
        loop {
            let Some(inst) = code.insts.get(self.pc) else {
                self.ended = true;
                return Ok(Stop::Ended);
            };
            self.executed += 1;
            if self.executed > env.max_instructions {
                return Err(self.budget_exhausted(code, env, self.pc));
            }
            let (pc, next) = (self.pc, self.pc + 1);
            let before = self.exec & bit != 0;
            let mut plan = if before {
                self.plan(code, inst, env, l)
            } else {
                Plan::default()
            };
            let depth = self.depth();
            if inst.op == Opcode::BRK
                && inst.brk_switch
                && before
                && let Some(d) = self.innermost_switch()
            {
                left_switch[d] = true;
            }
            let stopped = match code.fast.get(pc) {
                _ if plan.memory.is_some() => {
                    self.memory_in_lane_order(code, inst, env, shared, l, &mut plan)?;
                    self.pc = next;
                    false
                }
                Some(k) if k.run.is_some() => {
                    if self.exec != 0 {
                        super::fast::run_block(self, std::slice::from_ref(k), env);
                    }
                    self.pc = next;
                    false
                }
                _ => self.execute_one(code, inst, env, shared, next)?,
            };
            let after = self.exec & bit != 0;
            let step = match inst.op {
                Opcode::ELSE => before || after,
                Opcode::ENDIF | Opcode::CASE | Opcode::DEFAULT => after,
                Opcode::ENDLOOP => after && self.pc == inst.target as usize + 1,
                Opcode::ENDSWITCH => {
                    before || (after && !left_switch[depth.min(left_switch.len() - 1)])
                }
                _ => before,
            };
            if inst.op == Opcode::SWITCH {
                left_switch[self.depth().min(left_switch.len() - 1)] = false;
            }
            if step {
                if rec.steps.len() >= MAX_TRACE_STEPS {
                    return Err(ExecError {
                        instruction: Some(pc),
                        message: format!(
                            "instruction budget of the trace ({MAX_TRACE_STEPS} steps) exhausted at instruction {pc}"
                        ),
                    });
                }
                let writes = self.read_back(code, inst, l, &plan);
                rec.steps.push(Step {
                    pc: pc as u32,
                    writes,
                });
            }
            if stopped {
                return Ok(if self.ended {
                    Stop::Ended
                } else {
                    Stop::Barrier
                });
            }
        }
    }

    /// Resolves where `inst` writes for lane `l`, before it runs.
    fn plan(&self, code: &Code, inst: &Inst, env: &Env, l: usize) -> Plan {
        let mut plan = Plan::default();
        for (k, d) in inst.dst.iter().enumerate() {
            let chans = written_channels(inst.op, k, d.mask);
            if chans == 0 {
                continue;
            }
            let slot = match d.kind {
                DstKind::Null => None,
                DstKind::Reg(r) => Some(Slot::Reg(r)),
                DstKind::RegIndirect {
                    base,
                    len,
                    offset,
                    addr,
                } => {
                    let e = IndexExpr {
                        offset,
                        addr: Some(addr),
                    };
                    let i = index_in_lane(&self.regs, e, l);
                    (0..len as i64)
                        .contains(&i)
                        .then(|| Slot::Reg(base + i as u32))
                }
                DstKind::Patch { grid } => code
                    .grids
                    .get(grid as usize)
                    .and_then(|g| grid_entry(&self.regs, g, l))
                    .map(|entry| Slot::Patch { grid, entry }),
            };
            plan.dsts[k] = slot.map(|s| (s, chans));
        }
        plan.memory = self.memory_target(inst, env, l);
        plan
    }

    /// The memory a STORE or an atomic of lane `l` writes.
    fn memory_target(&self, inst: &Inst, env: &Env, l: usize) -> Option<MemoryTarget> {
        let store = inst.op == Opcode::STORE;
        if !(store || inst.op.info().category == Category::Atomic) || self.helper >> l & 1 == 1 {
            return None;
        }
        let lane_index = |n: u32| match inst.resource_addr {
            Some(e) => u32::try_from(index_in_lane(&self.regs, e, l)).ok(),
            None => Some(n),
        };
        let address = if store { &inst.src[0] } else { &inst.src[1] };
        let a = self.fetch(address, 0xF, env);
        let coord = [a[0][l], a[1][l], a[2][l], a[3][l]];
        let chans = if store { inst.dst[0].mask } else { 1 };
        match inst.resource? {
            Resource::Buffer(n) => Some(MemoryTarget::Words {
                buffer: Some(lane_index(n)?),
                offset: coord[0],
                chans,
            }),
            Resource::Shared => Some(MemoryTarget::Words {
                buffer: None,
                offset: coord[0],
                chans,
            }),
            Resource::Image { index, target, .. } => Some(MemoryTarget::Texel {
                index: lane_index(index)?,
                target,
                coord,
            }),
            Resource::Const(_) => None,
        }
    }

    /// Runs a STORE or an atomic the traced lane `l` takes part in as three
    /// accesses: the lanes before it, the lane, the lanes after it (the
    /// machine's lane order, so memory ends the same), reading what the
    /// lane wrote right after its own access.
    fn memory_in_lane_order(
        &mut self,
        code: &Code,
        inst: &Inst,
        env: &Env,
        shared: &mut [u32],
        l: usize,
        plan: &mut Plan,
    ) -> Result<(), ExecError> {
        let saved = self.exec;
        let bit: Mask = 1 << l;
        let parts = [saved & (bit - 1), bit, saved & !(bit | (bit - 1))];
        for (k, part) in parts.into_iter().enumerate() {
            if part == 0 {
                continue;
            }
            self.narrow_exec(part);
            let r = self.run_plain(code, inst, env, shared);
            if k == 1 {
                plan.memory_writes = self.memory_written(env, shared, plan);
            }
            if let Err(e) = r {
                self.narrow_exec(saved);
                return Err(e);
            }
        }
        self.narrow_exec(saved);
        Ok(())
    }

    /// The words (or texel) `plan.memory` names, as they are now.
    fn memory_written(&self, env: &Env, shared: &[u32], plan: &Plan) -> Vec<Write> {
        let mut out = Vec::new();
        match plan.memory {
            Some(MemoryTarget::Words {
                buffer,
                offset,
                chans,
            }) => {
                // the words each written channel's four bytes reach (two
                // at an address that is not a multiple of 4), in order
                let mut words: Vec<u32> = Vec::new();
                for c in (0..4u32).filter(|c| chans >> c & 1 == 1) {
                    let Some(at) = offset.checked_add(4 * c) else {
                        continue;
                    };
                    for word in [at & !3, at.saturating_add(3) & !3] {
                        if !words.contains(&word) {
                            words.push(word);
                        }
                    }
                }
                for at in words {
                    let i = at as usize / 4;
                    let word = match buffer {
                        Some(n) => env
                            .buffers
                            .get(n as usize)
                            .and_then(|b| b.get(i))
                            .map(|w| w.load(Ordering::Relaxed)),
                        None => shared.get(i).copied(),
                    };
                    if let Some(w) = word {
                        out.push(Write {
                            dst: None,
                            at: Location::Memory { buffer, offset: at },
                            word: w,
                            texel: None,
                            wide: false,
                        });
                    }
                }
            }
            Some(MemoryTarget::Texel {
                index,
                target,
                coord,
            }) => {
                let img = env.images.get(index as usize).and_then(|i| i.as_ref());
                let texel = img.and_then(|i| Some((i.texel_words(target, coord)?, i)));
                if let Some((texel, img)) = texel {
                    let coord = img.texel_coord(target, coord).unwrap_or(coord);
                    out.push(Write {
                        dst: None,
                        at: Location::Image { index, coord },
                        word: texel.first().copied().unwrap_or(0),
                        texel: Some(texel.into_boxed_slice()),
                        wide: false,
                    });
                }
            }
            None => {}
        }
        out
    }

    /// What `plan` names, read after the instruction ran.
    fn read_back(&self, code: &Code, inst: &Inst, l: usize, plan: &Plan) -> Vec<Write> {
        let mut out = Vec::new();
        let wide_op = inst.op.info().dst_type.is_64bit();
        for (k, d) in plan.dsts.iter().enumerate() {
            let Some((slot, chans)) = *d else { continue };
            for c in 0..4u8 {
                if chans >> c & 1 == 0 {
                    continue;
                }
                let (at, word) = match slot {
                    Slot::Reg(r) => {
                        let Some((file, index)) = code.name_slot(r) else {
                            continue;
                        };
                        let at = Location::Reg {
                            file,
                            index,
                            vertex: None,
                            chan: c,
                        };
                        (at, self.regs[r as usize][c as usize][l])
                    }
                    Slot::Patch { grid, entry } => {
                        let g = &code.grids[grid as usize];
                        let (r, k) = patch_slot(g, entry);
                        let per = code.output.len.max(1);
                        let (index, vertex) = if entry < per {
                            (entry, None)
                        } else {
                            ((entry - per) % per, Some((entry - per) / per))
                        };
                        let at = Location::Reg {
                            file: File::Output,
                            index,
                            vertex,
                            chan: c,
                        };
                        (at, self.regs[r][c as usize][k])
                    }
                };
                let wide = k == 0 && wide_op && c % 2 == 0 && chans >> (c + 1) & 1 == 1;
                out.push(Write {
                    dst: Some(k as u8),
                    at,
                    word,
                    texel: None,
                    wide,
                });
            }
        }
        out.append(&mut plan.memory_writes.clone());
        out
    }
}

/// The lane's output channels as its run ended (tess-control: the patch
/// store entries are shared by the patch and not listed).
fn output_values(code: &Code, b: &Batch, l: usize) -> Vec<(Location, u32)> {
    if code.processor == tgsi_ir::enums::Processor::TessCtrl {
        return Vec::new();
    }
    let mut out = Vec::new();
    for index in 0..code.output.len {
        let reg = &b.regs[(code.output.base + index) as usize];
        for (chan, row) in reg.iter().enumerate() {
            let at = Location::Reg {
                file: File::Output,
                index,
                vertex: None,
                chan: chan as u8,
            };
            out.push((at, row[l]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Limits, Program, Resources};
    use std::sync::Arc;
    use tgsi_ir::opcode::OPCODES;

    const SENTINEL: u32 = 0xdead_beef;

    /// Runs `OP TEMP[0].mask, sources` on one thread with a tracer; the
    /// channels the trace reports for TEMP[0] and TEMP[0] afterwards.
    fn traced_pair_op(name: &str, num_dst: u8, num_src: u8, mask: u8) -> Option<(u8, [u32; 4])> {
        let m: String = "xyzw"
            .chars()
            .enumerate()
            .filter(|(c, _)| mask >> c & 1 == 1)
            .map(|(_, ch)| ch)
            .collect();
        let srcs = ["TEMP[1]", "TEMP[2]", "TEMP[1]"][..num_src as usize].join(", ");
        let extra = if num_dst == 2 { ", TEMP[3]" } else { "" };
        let text = format!(
            "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
             PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL TEMP[0..3]\n\
             IMM[0] UINT32 {{{SENTINEL}, {SENTINEL}, {SENTINEL}, {SENTINEL}}}\n\
             IMM[1] UINT32 {{0, 1073217536, 1, 1074003968}}\n\
             IMM[2] UINT32 {{5, 1072693248, 3, 3221225472}}\n\
             IMM[3] UINT32 {{0, 0, 0, 0}}\n\
             MOV TEMP[0], IMM[0]\nMOV TEMP[1], IMM[1]\nMOV TEMP[2], IMM[2]\n\
             {name} TEMP[0].{m}{extra}, {srcs}\n\
             STORE BUFFER[0].xyzw, IMM[3].xxxx, TEMP[0]\nEND\n"
        );
        let (shader, _) = tgsi_text::parse(&text).ok()?;
        let mut program = Program::compile(&shader).ok()?;
        let tracer = Arc::new(Tracer::new(Selector::Thread {
            group: [0; 3],
            thread: [0; 3],
        }));
        program.set_tracer(tracer.clone());
        let mut res = Resources {
            buffers: vec![vec![0; 16]],
            ..Resources::default()
        };
        program
            .dispatch(&mut res, [1, 1, 1], &Limits::default())
            .ok()?;
        let rec = tracer.take().expect("thread 0 is traced");
        let step = &rec.steps[3];
        assert_eq!(step.pc, 3, "{name}");
        let mut reported = 0u8;
        for w in step.writes.iter().filter(|w| w.dst == Some(0)) {
            if let Location::Reg { chan, .. } = w.at {
                reported |= 1 << chan;
            }
        }
        let b = &res.buffers[0];
        let after =
            std::array::from_fn(|c| u32::from_le_bytes(b[4 * c..4 * c + 4].try_into().unwrap()));
        Some((reported, after))
    }

    #[test]
    fn pair_writes_are_the_channels_the_interpreter_writes() {
        let mut checked = 0;
        for info in OPCODES
            .iter()
            .filter(|i| matches!(i.channels, tgsi_ir::opcode::Channels::Pair64(_)))
        {
            for mask in 1u8..16 {
                let Some((reported, after)) =
                    traced_pair_op(info.name, info.num_dst, info.num_src, mask)
                else {
                    continue;
                };
                let changed = (0..4)
                    .filter(|&c| after[c] != SENTINEL)
                    .fold(0u8, |m, c| m | 1 << c);
                assert_eq!(reported, changed, "{} .{mask:04b}", info.name);
                assert_eq!(
                    reported,
                    written_channels(info.opcode, 0, mask),
                    "{}",
                    info.name
                );
                checked += 1;
            }
        }
        assert!(checked > 400, "only {checked} opcode/mask pairs ran");
    }

    #[test]
    fn selectors_match_only_their_invocation() {
        let px = Selector::Pixel {
            x: 3,
            y: 1,
            sample: 2,
            primitive: None,
        };
        let frag = |samples, primitive| Identity::Fragment {
            x: 3,
            y: 1,
            samples,
            primitive,
        };
        assert!(px.matches(&frag(0b100, 7)));
        assert!(!px.matches(&frag(0b011, 7)), "sample 2 not covered");
        let any = Selector::Pixel {
            x: 3,
            y: 1,
            sample: ANY_SAMPLE,
            primitive: Some(7),
        };
        assert!(any.matches(&frag(0b001, 7)));
        assert!(!any.matches(&frag(0b001, 6)));
        let dom = |w: Option<f32>| Selector::Domain {
            primitive: 1,
            coord: [0.25, 0.5],
            w,
        };
        let at = |u: f32| Identity::Domain {
            primitive: 1,
            coord: [u, 0.5, 0.25],
        };
        assert!(dom(None).matches(&at(0.25)), "(u, v) name the point");
        assert!(dom(Some(0.25)).matches(&at(0.25)));
        assert!(
            !dom(Some(9.0)).matches(&at(0.25)),
            "a w given must be the point's"
        );
        assert!(!dom(None).matches(&at(0.26)));
        assert!(!dom(None).matches(&Identity::Vertex {
            vertex: 1,
            instance: 0
        }));
    }
}
