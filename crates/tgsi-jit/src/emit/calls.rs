//! Emitting instruction ranges, and subroutine calls compiled by expansion:
//! each CAL is followed by its own copy of the subroutine's body, emitted
//! with fresh labels and its frames one call frame deeper than the CAL
//! (the call frame takes two static slots: cond, loop, cont and switch,
//! then func), so every nesting depth stays static. RET and ENDSUB in a
//! copy return to the code after its CAL as the interpreter's
//! `return_from_call` does. Recursion, BARRIERs in subroutines and copies
//! that would nest deeper than the frames allow are refused (the
//! interpreter runs such programs).

use super::*;

/// What the linear pass over the program found: per instruction its plan,
/// static nesting depth and frames, and whether it starts a segment.
pub(super) struct Layout<'a> {
    pub plans: &'a [Plan],
    pub depth_at: &'a [usize],
    pub stacks: &'a [Vec<Frame>],
    pub leader: &'a [bool],
}

/// What emitting produced besides the code.
pub(super) struct Emitted {
    /// Budget stubs: (label, first instruction, length) per segment copy.
    pub stubs: Vec<(CodeLabel, usize, usize)>,
    /// The deepest static nesting of frames, copies included.
    pub deepest: usize,
}

/// Where a range is emitted: the frames around it and, in a subroutine's
/// copy, where its returns go.
#[derive(Clone)]
pub(super) struct Nest {
    /// Frames of the enclosing code (the CALs' and their call frames).
    prefix: Vec<Frame>,
    /// The label after the CAL and the depth of its call frame.
    ret: Option<(CodeLabel, usize)>,
    /// First instructions of the subroutines being expanded (recursion).
    bodies: Vec<usize>,
    /// Instructions copied so far on this path (expansion is bounded).
    copied: usize,
}

/// Most instructions one program's subroutine copies may add.
const MAX_COPIED: usize = 1 << 14;

impl Nest {
    pub(super) fn main() -> Nest {
        Nest {
            prefix: Vec::new(),
            ret: None,
            bodies: Vec::new(),
            copied: 0,
        }
    }
}

impl Emitter<'_> {
    /// Emits instructions `range` in `nest`: labels, the segments' budget
    /// counts, each instruction (CAL by expansion).
    pub(super) fn emit_range(
        &mut self,
        lay: &Layout,
        range: std::ops::Range<usize>,
        nest: &Nest,
        out: &mut Emitted,
    ) -> R {
        let n = self.code.insts.len();
        for i in range {
            let l = self.labels[i];
            place(&mut self.a, l)?;
            if lay.leader[i] {
                let len = (i + 1..=n).find(|&j| lay.leader[j]).unwrap_or(n) - i;
                let stub = self.a.create_label();
                self.count(len as i32, stub)?;
                out.stubs.push((stub, i, len));
            }
            let depth = nest.prefix.len() + lay.depth_at[i];
            let frames: Vec<Frame> = nest.prefix.iter().chain(&lay.stacks[i]).copied().collect();
            out.deepest = out.deepest.max(depth + 1);
            let inst = self.code.insts[i];
            self.at = i;
            if self.active.is_none()
                && let Some(run) = self.runs[i].clone()
            {
                self.active = Some(run);
                self.cache_load(true)?;
            }
            let r = match (inst.op, nest.ret) {
                (Opcode::CAL, _) => self.call_copy(lay, i, depth, &frames, nest, out),
                (Opcode::RET, Some((ret, at))) => Ok(self.ret_in_copy(ret, at)?),
                (Opcode::ENDSUB, Some((ret, at))) => Ok(self.return_to(ret, at)?),
                (Opcode::BARRIER, Some(_)) => Err("a BARRIER inside a subroutine".into()),
                _ => self.instruction(i, lay.plans[i], depth, &frames),
            };
            // (an error inside a subroutine's copy names its instruction
            // already: the CAL around it does not name itself again)
            r.map_err(|err| {
                if err.0.starts_with("instruction ") {
                    err
                } else {
                    EmitError(format!("instruction {i} ({}): {}", inst.op, err.0))
                }
            })?;
            if self
                .active
                .as_ref()
                .is_some_and(|r| r.straight && r.end == i)
            {
                self.cache_store(true)?;
                self.active = None;
            }
        }
        Ok(())
    }

    /// CAL at depth `depth`: when a lane is active, the masks saved in the
    /// call frame, func = exec, and the subroutine's copy.
    fn call_copy(
        &mut self,
        lay: &Layout,
        i: usize,
        depth: usize,
        frames: &[Frame],
        nest: &Nest,
        out: &mut Emitted,
    ) -> R {
        let body = self.code.insts[i].target as usize;
        let insts = &self.code.insts;
        let end = (body..insts.len())
            .find(|&j| insts[j].op == Opcode::ENDSUB)
            .ok_or("a subroutine without ENDSUB")?;
        if nest.bodies.contains(&body) {
            return Err("a recursive subroutine call".into());
        }
        let inner_depth = (body..=end).map(|j| lay.depth_at[j]).max().unwrap_or(0);
        if depth + 2 + inner_depth > MAX_DEPTH {
            return Err("subroutine calls nest deeper than the compiled frames".into());
        }
        let copied = nest.copied + (end + 1 - body);
        if copied > MAX_COPIED {
            return Err("subroutine copies past the compiled engine's limit".into());
        }
        let fr = |d: usize, w: usize| dword_ptr(rbx + frame_off(d, w));
        let a = &mut self.a;
        a.test(ebp, ebp)?;
        a.jz(self.labels[i + 1])?;
        for (w, m) in [r9d, r10d, r11d, esi].into_iter().enumerate() {
            a.mov(fr(depth, w), m)?;
        }
        a.mov(fr(depth + 1, 0), edi)?;
        // func = exec: the lanes that called (exec stays as it is)
        a.mov(edi, ebp)?;
        let ret = self.a.create_label();
        let mut prefix = frames.to_vec();
        prefix.extend([Frame::Call, Frame::Call]);
        let mut bodies = nest.bodies.clone();
        bodies.push(body);
        let inner = Nest {
            prefix,
            ret: Some((ret, depth)),
            bodies,
            copied,
        };
        let fresh = (0..=insts.len()).map(|_| self.a.create_label()).collect();
        let outer = std::mem::replace(&mut self.labels, fresh);
        let r = self.emit_range(lay, body..end + 1, &inner, out);
        self.labels = outer;
        r?;
        Ok(place(&mut self.a, ret)?)
    }

    /// RET in a subroutine's copy: the active lanes leave func; when no
    /// live lane is left in it, the return.
    fn ret_in_copy(&mut self, ret: CodeLabel, at: usize) -> A {
        self.clear_active(edi)?;
        let stay = self.a.create_label();
        self.a.mov(eax, edi)?;
        self.a.and(eax, r8d)?;
        self.a.jnz(stay)?;
        self.return_to(ret, at)?;
        place(&mut self.a, stay)
    }

    /// The return of the call whose frame is at depth `at`: its masks back,
    /// then on after the CAL.
    fn return_to(&mut self, ret: CodeLabel, at: usize) -> A {
        let fr = |d: usize, w: usize| dword_ptr(rbx + frame_off(d, w));
        for (w, m) in [r9d, r10d, r11d, esi].into_iter().enumerate() {
            self.a.mov(m, fr(at, w))?;
        }
        self.a.mov(edi, fr(at + 1, 0))?;
        self.update_exec()?;
        self.a.jmp(ret)
    }
}
