//! The differential fuzzer: random valid compute shaders (every ALU,
//! integer, 64-bit, double, conversion, packing and inter-lane opcode of the
//! opcode table, random swizzles, writemasks, modifiers, `_SAT`, indirect
//! sources and destinations, divergent IF/UIF/ELSE, loops with BRK/CONT,
//! SWITCH/CASE/DEFAULT, RET, buffer memory ops) over random inputs rich in
//! NaN, ±inf, -0 and denormals, one case in four under Direct3D's numeric
//! rules (denormals flushed), run by the interpreter and by the compiled
//! engine; every output word, the memory, the statistics and the error (if
//! any) must be identical. `tgsi fuzz` runs it for a while; a unit test runs
//! a fixed small budget.

use std::fmt::Write;
use tgsi_exec::{Limits, Numerics, Resources};
use tgsi_ir::opcode::{Category, Opcode, OperandType};
use tgsi_jit::Engine;

/// splitmix64: small, seedable, good enough for test generation.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// A word that is often a special float, half of a special double, or a small integer.
    pub(crate) fn word(&mut self) -> u32 {
        const SPECIAL: [u32; 24] = tgsi_ir::rng::edge_f32_and([
            0x3f00_0000,
            0x4049_0fdb,
            0x3ff0_0000,
            0xbff0_0000,
            0x7ff0_0000,
            0x7ff8_0000,
            0x000f_ffff,
            0xffff_ffff,
            0x4f00_0000,
        ]);
        match self.below(8) {
            0..=2 => SPECIAL[self.below(SPECIAL.len() as u64) as usize],
            3 => self.below(64) as u32,
            4 => (self.below(64) as i32 - 32) as u32,
            5 => (self.below(2000) as f32 / 16.0 - 60.0).to_bits(),
            _ => self.next() as u32,
        }
    }
}

/// Temps the random instructions read and write (the loop counters live above).
pub(crate) const TEMPS: u64 = 10;
/// The last TEMP a generated program may name: the random ones, then loop
/// counters (`TEMPS..`, one per nesting level) and the loop test
/// (`TEMPS + 4`) and scratch (`TEMPS + 5`) registers.
pub(crate) const LAST_TEMP: u64 = TEMPS + 5;
/// Words of BUFFER[0] (inputs) per invocation.
pub(crate) const IN_WORDS: u32 = 16;
/// Words of BUFFER[1] (outputs) per invocation.
pub(crate) const OUT_WORDS: u32 = TEMPS as u32 * 4;
pub(crate) const BLOCK: u32 = 32;
pub(crate) const IMMS: usize = 8;

/// The opcodes the generator draws from: every opcode of these categories
/// that a compute shader runs (the opcode table is the list).
pub(crate) fn pool() -> Vec<Opcode> {
    (0..=255u8)
        .filter_map(Opcode::from_u8)
        .filter(|op| {
            let info = op.info();
            (info.category.is_lane_arithmetic() || info.category == Category::InterLane)
                && (1..=2).contains(&info.num_dst)
                && info.num_src <= 4
        })
        .collect()
}

pub(crate) struct Gen<'a> {
    pub(crate) rng: &'a mut Rng,
    ops: &'a [Opcode],
    out: String,
    depth: usize,
    loops: usize,
    in_switch: bool,
    budget: usize,
    /// Inside a loop made of inline-compiled opcodes and direct operands
    /// only (what the compiled engine keeps in registers across the loop).
    pure: bool,
    /// Buffer and shared-memory access and BARRIER may be drawn.
    memory: bool,
    /// Subroutines a CAL may name (`@SUB0` .. below this, replaced by their
    /// BGNSUB's index once the program is laid out); inside one of them,
    /// no BARRIER.
    subs: usize,
    in_sub: bool,
}

/// Opcodes of the pure loops (all inline templates or row kernels).
const PURE_OPS: &[&str] = &[
    "MOV", "ADD", "MUL", "MAD", "DIV", "FRC", "FLR", "ROUND", "SIN", "COS", "EX2", "LG2", "POW",
    "RCP", "RSQ", "SQRT", "UADD", "UMUL", "XOR", "AND", "SHL", "USHR", "ISHR", "ISGE", "USLT",
    "FSLT", "SGE", "SNE", "CMP", "UCMP", "IMAX", "U2F", "I2F", "DADD", "DMUL", "DDIV", "DMAD",
    "DABS", "DNEG", "U64ADD", "U64MUL", "U64SHR", "U64SHL", "I64SHR", "I64NEG", "LIT", "EXP",
    "LOG", "DST", "PK2H", "UP2H", "ARR", "BFI",
];

fn swz(rng: &mut Rng) -> String {
    let l = ['x', 'y', 'z', 'w'];
    match rng.below(4) {
        0 => String::new(),
        1 => {
            let c = l[rng.below(4) as usize];
            format!(".{c}{c}{c}{c}")
        }
        _ => {
            let s: String = (0..4).map(|_| l[rng.below(4) as usize]).collect();
            format!(".{s}")
        }
    }
}

fn mask(rng: &mut Rng) -> String {
    let m = 1 + rng.below(15);
    if m == 15 && rng.chance(50) {
        return String::new();
    }
    let s: String = "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| m & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect();
    format!(".{s}")
}

impl<'a> Gen<'a> {
    /// A generator of ALU and flow-control code (no memory access) over
    /// `TEMP[0..TEMPS]`, `IMM[0..IMMS]`, `CONST[0][0..4]` and `ADDR[0]`.
    pub(crate) fn alu_only(rng: &'a mut Rng, ops: &'a [Opcode], budget: usize) -> Gen<'a> {
        Gen {
            rng,
            ops,
            out: String::new(),
            depth: 0,
            loops: 0,
            in_switch: false,
            budget,
            pure: false,
            memory: false,
            subs: 0,
            in_sub: false,
        }
    }

    /// `len` random instructions (within the budget).
    pub(crate) fn code(&mut self, len: usize) -> String {
        self.block(len);
        std::mem::take(&mut self.out)
    }
}

impl Gen<'_> {
    fn line(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// One `UADD TEMP[t].c, TEMP[t].cccc, IMM[IMMS + 2].ssss` per channel
    /// `s` of `steps`, in order (IMM[IMMS + 2] is {1, 2, 3, 5}).
    fn add_steps(&mut self, t: u64, c: char, steps: &str) {
        for s in steps.chars() {
            self.line(&format!(
                "UADD TEMP[{t}].{c}, TEMP[{t}].{c}{c}{c}{c}, IMM[{}].{s}{s}{s}{s}",
                IMMS + 2
            ));
        }
    }

    fn temp(&mut self) -> u64 {
        self.rng.below(TEMPS)
    }

    fn src_reg(&mut self) -> String {
        let pick = if self.pure {
            3 + self.rng.below(7)
        } else {
            self.rng.below(10)
        };
        match pick {
            0 => format!("IMM[{}]", self.rng.below(IMMS as u64)),
            1 => format!("CONST[0][{}]", self.rng.below(5)),
            2 => format!("TEMP[ADDR[0].x+{}]", self.rng.below(4)),
            3 => format!("CONST[0][ADDR[0].y+{}]", self.rng.below(3)),
            _ => format!("TEMP[{}]", self.temp()),
        }
    }

    fn src(&mut self) -> String {
        let reg = self.src_reg();
        let s = swz(self.rng);
        let (neg, abs) = match self.rng.below(8) {
            0 => (true, false),
            1 => (false, true),
            2 => (true, true),
            _ => (false, false),
        };
        let inner = format!("{reg}{s}");
        let inner = if abs { format!("|{inner}|") } else { inner };
        if neg { format!("-{inner}") } else { inner }
    }

    fn dst(&mut self, wide: bool) -> String {
        let m = if wide {
            [".xy", ".zw", "", ".xyzw"][self.rng.below(4) as usize].to_string()
        } else {
            mask(self.rng)
        };
        if !self.pure && self.rng.chance(8) {
            format!("TEMP[ADDR[0].x+{}]{m}", self.rng.below(3))
        } else {
            format!("TEMP[{}]{m}", self.temp())
        }
    }

    fn alu(&mut self) {
        let op = if self.pure {
            let name = PURE_OPS[self.rng.below(PURE_OPS.len() as u64) as usize];
            self.ops
                .iter()
                .copied()
                .find(|o| o.name() == name)
                .unwrap_or(Opcode::MOV)
        } else {
            self.ops[self.rng.below(self.ops.len() as u64) as usize]
        };
        let info = op.info();
        let sat = info.dst_type == OperandType::Float && self.rng.chance(15);
        let mut text = format!("{}{}", op.name(), if sat { "_SAT" } else { "" });
        let wide = info.dst_type.is_64bit();
        let mut operands: Vec<String> = (0..info.num_dst).map(|_| self.dst(wide)).collect();
        operands.extend((0..info.num_src).map(|_| self.src()));
        if !operands.is_empty() {
            text.push(' ');
            text.push_str(&operands.join(", "));
        }
        self.line(&text);
    }

    fn memory(&mut self) {
        let t = self.temp();
        let addr = if self.rng.chance(50) {
            format!(
                "IMM[{}].{}",
                IMMS,
                ['x', 'y', 'z', 'w'][self.rng.below(4) as usize]
            )
        } else {
            format!("TEMP[{}].xxxx", self.temp())
        };
        // now and then a per-lane buffer (unbound past BUFFER[2]: reads 0,
        // writes dropped) or the group's shared memory
        let buf = match self.rng.below(100) {
            0..15 => "BUFFER[ADDR[0].x+1]",
            15..30 => "MEMORY[0]",
            _ => "BUFFER[2]",
        };
        match self.rng.below(3) {
            0 => {
                let m = mask(self.rng);
                self.line(&format!("LOAD TEMP[{t}]{m}, {buf}, {addr}"))
            }
            1 => {
                let m = mask(self.rng);
                let s = self.temp();
                self.line(&format!("STORE {buf}{m}, {addr}, TEMP[{s}]"))
            }
            _ => {
                let op =
                    ["ATOMUADD", "ATOMXCHG", "ATOMUMAX", "ATOMXOR"][self.rng.below(4) as usize];
                let v = self.temp();
                self.line(&format!("{op} TEMP[{t}].x, {buf}, {addr}, TEMP[{v}].xxxx"))
            }
        }
    }

    fn block(&mut self, len: usize) {
        for _ in 0..len {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            let r = self.rng.below(100);
            if self.pure {
                match r {
                    0..=9 if self.depth < 5 => self.if_block(),
                    10..=15 => {
                        let op = if self.rng.chance(60) { "BRK" } else { "CONT" };
                        let c = self.temp();
                        self.line(&format!("UIF TEMP[{c}].xxxx"));
                        self.line(op);
                        self.line("ENDIF");
                    }
                    _ => self.alu(),
                }
                continue;
            }
            match r {
                0..=5 if self.depth < 4 => self.if_block(),
                6..=8 if self.depth < 4 => self.loop_block(),
                9..=10 if self.depth < 4 => self.switch_block(),
                11..=12 if self.loops > 0 => {
                    let op = if self.rng.chance(60) { "BRK" } else { "CONT" };
                    let c = self.temp();
                    self.line(&format!("UIF TEMP[{c}].xxxx"));
                    self.line(op);
                    self.line("ENDIF");
                }
                13 if self.in_switch => self.line("BRK"),
                14 if self.rng.chance(20) => {
                    let c = self.temp();
                    self.line(&format!("UIF TEMP[{c}].xxxx"));
                    self.line("RET");
                    self.line("ENDIF");
                }
                15..=17 => {
                    let op = if self.rng.chance(50) { "UARL" } else { "ARL" };
                    let s = self.src();
                    let m = mask(self.rng);
                    self.line(&format!("{op} ADDR[0]{m}, {s}"));
                }
                18..=20 if self.memory => self.memory(),
                // the batches of a group stop and resume here (anywhere:
                // in divergent flow and loops too)
                21 if self.memory && !self.in_sub && self.rng.chance(40) => self.line("BARRIER"),
                22..=23 if self.subs > 0 => {
                    let k = self.rng.below(self.subs as u64);
                    self.line(&format!("CAL @SUB{k}"));
                }
                _ => self.alu(),
            }
        }
    }

    fn if_block(&mut self) {
        let op = if self.rng.chance(50) { "IF" } else { "UIF" };
        let s = self.src_reg();
        let c = ['x', 'y', 'z', 'w'][self.rng.below(4) as usize];
        let neg = if op == "IF" && self.rng.chance(20) {
            "-"
        } else {
            ""
        };
        // CONST/TEMP indirect are fine for IF (the compiled engine then refuses the program only if modified as integer)
        self.line(&format!("{op} {neg}{s}.{c}{c}{c}{c}"));
        self.depth += 1;
        let n = 1 + self.rng.below(4) as usize;
        self.block(n);
        if self.rng.chance(50) {
            self.line("ELSE");
            let n = 1 + self.rng.below(4) as usize;
            self.block(n);
        }
        self.depth -= 1;
        self.line("ENDIF");
    }

    fn loop_block(&mut self) {
        let counter = TEMPS + self.loops as u64;
        let limit = 1 + self.rng.below(5);
        self.line(&format!("MOV TEMP[{counter}].x, IMM[{}].xxxx", IMMS + 1));
        self.line("BGNLOOP");
        self.depth += 1;
        self.loops += 1;
        let saved = self.in_switch;
        self.in_switch = false;
        let was_pure = self.pure;
        self.pure = self.rng.chance(50);
        self.line(&format!(
            "UADD TEMP[{counter}].x, TEMP[{counter}].xxxx, IMM[{}].yyyy",
            IMMS + 1
        ));
        self.line(&format!(
            "USGE TEMP[{}].x, TEMP[{counter}].xxxx, IMM[{}].{}",
            TEMPS + 4,
            IMMS + 2,
            ['x', 'y', 'z', 'w'][(limit - 1).min(3) as usize]
        ));
        self.line(&format!("UIF TEMP[{}].xxxx", TEMPS + 4));
        self.line("BRK");
        self.line("ENDIF");
        let n = 1 + self.rng.below(5) as usize;
        self.block(n);
        self.pure = was_pure;
        self.in_switch = saved;
        self.loops -= 1;
        self.depth -= 1;
        self.line("ENDLOOP");
    }

    fn switch_block(&mut self) {
        let s = self.temp();
        self.line(&format!("SWITCH TEMP[{s}].xxxx"));
        self.depth += 1;
        let saved = self.in_switch;
        self.in_switch = true;
        let cases = 1 + self.rng.below(3);
        let default_at = self.rng.below(cases + 1);
        // distinct CASE values (GLSL and HLSL reject two CASEs of one
        // value; the machine's lanes that BRK out of one would enter the
        // other again, where SPIR-V's OpSwitch takes the first)
        let mut channels = vec!['x', 'y', 'z', 'w'];
        for k in 0..=cases {
            if k == default_at {
                self.line("DEFAULT");
            } else {
                let c = channels.remove(self.rng.below(channels.len() as u64) as usize);
                self.line(&format!("CASE IMM[{}].{c}{c}{c}{c}", IMMS + 3));
            }
            let n = self.rng.below(3) as usize;
            self.block(n);
            if self.rng.chance(60) {
                self.line("BRK");
            }
        }
        self.in_switch = saved;
        self.depth -= 1;
        self.line("ENDSWITCH");
    }
}

/// A random program and its inputs.
pub struct Case {
    pub text: String,
    pub consts: Vec<u32>,
    pub input: Vec<u32>,
    pub groups: u32,
    pub max_instructions: u64,
    /// IEEE, or (one case in four) Direct3D's rules: float denormals read
    /// and written as zeros of their sign.
    pub numerics: Numerics,
}

/// Generates case `seed`.
pub fn generate(seed: u64) -> Case {
    generate_with(seed, &pool(), true)
}

/// `TEMP[t].c` = the invocation's byte address in a buffer of `words`
/// (the channel of IMM[IMMS + 1] holding the words per invocation) words
/// per invocation: its id × words × 4, every invocation its own words.
fn invocation_address(g: &mut Gen, t: u64, c: char, words: char) {
    g.line(&format!(
        "UMUL TEMP[{t}].{c}, SV[0].xxxx, IMM[{}].{words}{words}{words}{words}",
        IMMS + 1
    ));
    // words to bytes: × 4
    g.line(&format!(
        "SHL TEMP[{t}].{c}, TEMP[{t}].{c}{c}{c}{c}, IMM[{}].yyyy",
        IMMS + 2
    ));
}

/// `TEMP[t].y` = the invocation's byte address in BUFFER[1] (OUT_WORDS).
fn output_address(g: &mut Gen, t: u64) {
    invocation_address(g, t, 'y', 'w');
}

/// Generates case `seed` from the opcodes `ops`; `memory`: random buffer
/// and shared-memory accesses, atomics and barriers may be drawn.
pub(crate) fn generate_with(seed: u64, ops: &[Opcode], memory: bool) -> Case {
    let mut rng = Rng(seed);
    let mut head = String::new();
    let _ = write!(
        head,
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH {BLOCK}\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
         DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL BUFFER[2]\nDCL MEMORY[0], SHARED\nDCL CONST[0][0..4]\n\
         DCL TEMP[0..{LAST_TEMP}]\nDCL ADDR[0]\n",
    );
    for k in 0..IMMS {
        let w: Vec<String> = (0..4).map(|_| rng.word().to_string()).collect();
        let _ = writeln!(head, "IMM[{k}] UINT32 {{{}}}", w.join(", "));
    }
    let mem_imm: Vec<String> = (0..4).map(|_| (4 * rng.below(40)).to_string()).collect();
    let _ = writeln!(head, "IMM[{IMMS}] UINT32 {{{}}}", mem_imm.join(", "));
    let _ = writeln!(
        head,
        "IMM[{}] UINT32 {{0, 1, {IN_WORDS}, {OUT_WORDS}}}",
        IMMS + 1
    );
    let _ = writeln!(head, "IMM[{}] UINT32 {{1, 2, 3, 5}}", IMMS + 2);
    // four distinct CASE values
    let mut case_words: Vec<u32> = Vec::new();
    while case_words.len() < 4 {
        let w = rng.word();
        if !case_words.contains(&w) {
            case_words.push(w);
        }
    }
    let cases: Vec<String> = case_words.iter().map(|w| w.to_string()).collect();
    let _ = writeln!(head, "IMM[{}] UINT32 {{{}}}", IMMS + 3, cases.join(", "));
    let mut g = Gen {
        rng: &mut rng,
        ops,
        out: String::new(),
        depth: 0,
        loops: 0,
        in_switch: false,
        budget: 40,
        pure: false,
        memory,
        subs: 0,
        in_sub: false,
    };
    // up to two subroutines, the second may call the first
    let mut subs: Vec<String> = Vec::new();
    for k in 0..g.rng.below(3) as usize {
        (g.subs, g.in_sub, g.budget) = (k, true, 12);
        g.line("BGNSUB");
        let n = 3 + g.rng.below(8) as usize;
        g.block(n);
        g.line("ENDSUB");
        subs.push(std::mem::take(&mut g.out));
    }
    (g.subs, g.in_sub, g.budget) = (subs.len(), false, 40);
    // inputs from BUFFER[0] (IN_WORDS per invocation)
    let t = TEMPS + 4;
    invocation_address(&mut g, t, 'x', 'z');
    output_address(&mut g, t);
    // every temp from the inputs (unaligned, 14 bytes apart, the last
    // ones reaching the next invocation's words): no register starts as a
    // constant a compiler could fold (a device's folding of 0 × x ignores
    // NaN and infinity even where the module forbids it)
    for r in 0..TEMPS {
        g.line(&format!("LOAD TEMP[{r}], BUFFER[0], TEMP[{t}].xxxx"));
        g.add_steps(t, 'x', "ywzzx");
    }
    g.line("UARL ADDR[0], TEMP[0]");
    let n = 10 + g.rng.below(25) as usize;
    g.block(n);
    // the output address again: an indirect write of the body may have
    // reached TEMP[t] (then invocations would store over each other, in an
    // order a device may change)
    output_address(&mut g, t);
    for r in 0..TEMPS {
        g.line(&format!("STORE BUFFER[1], TEMP[{t}].yyyy, TEMP[{r}]"));
        // 16 bytes on: each register's words in their own place
        g.add_steps(t, 'y', "wwzxy");
    }
    g.line("END");
    let mut body = std::mem::take(&mut g.out);
    // the subroutines after END, and each CAL's label their BGNSUB's index
    let mut at = body.lines().count();
    let mut starts = Vec::new();
    for sub in &subs {
        starts.push(at);
        at += sub.lines().count();
        body.push_str(sub);
    }
    for (k, start) in starts.iter().enumerate().rev() {
        body = body.replace(&format!("@SUB{k}"), &format!(":{start}"));
    }
    let groups = 1 + rng.below(2) as u32;
    let n = (groups * BLOCK) as usize;
    let input = (0..n * IN_WORDS as usize).map(|_| rng.word()).collect();
    let consts = (0..20).map(|_| rng.word()).collect();
    let max_instructions = if rng.chance(10) {
        50 + rng.below(400)
    } else {
        100_000
    };
    Case {
        text: head + &body,
        consts,
        input,
        groups,
        max_instructions,
        numerics: if seed % 4 == 3 {
            Numerics::Direct3D
        } else {
            Numerics::Ieee
        },
    }
}

/// What one engine produced.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) compiled: Result<(), String>,
    pub(crate) run: Result<(u64, u64), String>,
    pub(crate) buffers: Vec<Vec<u8>>,
}

pub(crate) fn run_engine(
    case: &Case,
    shader: &tgsi_ir::ir::Shader,
    engine: Engine,
) -> (Outcome, Option<String>) {
    let program = match tgsi_jit::compile_engine(shader, case.numerics, engine) {
        Ok(p) => p,
        Err(e) => {
            return (
                Outcome {
                    compiled: Err(e.to_string()),
                    run: Err(String::new()),
                    buffers: Vec::new(),
                },
                None,
            );
        }
    };
    let n = (case.groups * BLOCK) as usize;
    let mut res = Resources {
        constants: vec![case.consts.clone()],
        buffers: vec![
            case.input.iter().flat_map(|w| w.to_le_bytes()).collect(),
            vec![0; n * OUT_WORDS as usize * 4],
            (0..160u32).flat_map(|w| w.to_le_bytes()).collect(),
        ],
        ..Resources::default()
    };
    let limits = Limits {
        max_instructions: case.max_instructions,
        ..Limits::default()
    };
    let run = program
        .dispatch_stats(&mut res, [case.groups, 1, 1], &limits)
        .map(|s| (s.batch_instructions, s.lane_instructions))
        .map_err(|e| format!("{:?}: {}", e.instruction, e.message));
    let note = program.fallback_reason().map(str::to_string);
    (
        Outcome {
            compiled: Ok(()),
            run,
            buffers: res.buffers,
        },
        note,
    )
}

/// The result of one case.
#[derive(Debug)]
pub enum Verdict {
    /// Both engines agree (the compiled engine ran it).
    Same,
    /// The compiled engine did not run it (why).
    NotCompiled(String),
    /// The generated case did not assemble or set up (a generator limit, not
    /// a finding): why.
    Invalid(String),
    /// The engines differ: a description.
    Differ(String),
    /// A draw stopped at the instruction budget under one batching of its
    /// quads and finished under another, and the other engine, batching
    /// the same way, stopped the same way: the budget counts a batch's
    /// instructions, which depend on the lanes batched together (not a
    /// difference between the engines). What stopped.
    BudgetBound(String),
}

/// Runs case `seed` on both engines and compares everything.
pub fn check(seed: u64) -> Verdict {
    check_case(generate(seed), seed)
}

/// Runs `text` with the inputs of case `seed` (to reduce a finding by hand).
pub fn check_text(text: &str, seed: u64) -> Verdict {
    let mut case = generate(seed);
    case.text = text.to_string();
    check_case(case, seed)
}

/// The shader of a case, or the verdict of a case that does not assemble.
pub(crate) fn assembled(case: &Case) -> Result<tgsi_ir::ir::Shader, Verdict> {
    tgsi_text::assemble(&case.text)
        .map(|(shader, _)| shader)
        .map_err(|e| Verdict::Invalid(e.to_string()))
}

fn check_case(case: Case, seed: u64) -> Verdict {
    let shader = match assembled(&case) {
        Ok(shader) => shader,
        Err(invalid) => return invalid,
    };
    let (want, _) = run_engine(&case, &shader, Engine::Interp);
    let (got, note) = run_engine(&case, &shader, Engine::Jit);
    if let Some(why) = note {
        return Verdict::NotCompiled(why);
    }
    if want == got {
        return Verdict::Same;
    }
    let mut d = format!("seed {seed:#x}: the engines differ\n");
    if want.compiled != got.compiled || want.run != got.run {
        let _ = writeln!(
            d,
            "interp: {:?} {:?}\njit:    {:?} {:?}",
            want.compiled, want.run, got.compiled, got.run
        );
    }
    for (k, (a, b)) in want.buffers.iter().zip(&got.buffers).enumerate() {
        let words = |v: &[u8]| -> Vec<u32> {
            v.chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let (a, b) = (words(a), words(b));
        if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
            let _ = writeln!(
                d,
                "BUFFER[{k}] word {i}: interp {:#010x}, jit {:#010x} (invocation {}, temp {}, channel {})",
                a[i],
                b[i],
                i / OUT_WORDS as usize,
                (i % OUT_WORDS as usize) / 4,
                i % 4
            );
        }
    }
    d.push_str(&case.text);
    Verdict::Differ(d)
}

/// Counts of a fuzzing run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub same: u64,
    pub not_compiled: u64,
    pub invalid: u64,
    pub differ: u64,
    pub budget_bound: u64,
}

impl Tally {
    /// Every case run.
    pub fn cases(&self) -> u64 {
        self.same + self.not_compiled + self.invalid + self.differ + self.budget_bound
    }
}

/// Runs cases `first..` through `check` ([`check`] or
/// [`crate::draw_fuzz::check`]) until `keep_going` says stop; `report`
/// gets every difference (and the reasons programs were not compiled).
pub fn run(
    first: u64,
    check: impl Fn(u64) -> Verdict,
    mut keep_going: impl FnMut(&Tally) -> bool,
    mut report: impl FnMut(&str),
) -> Tally {
    let mut t = Tally::default();
    let mut seed = first;
    while keep_going(&t) {
        match check(seed) {
            Verdict::Same => t.same += 1,
            Verdict::NotCompiled(why) => {
                t.not_compiled += 1;
                if t.not_compiled <= 3 {
                    report(&format!("seed {seed:#x}: not compiled: {why}"));
                }
            }
            Verdict::Invalid(why) => {
                t.invalid += 1;
                if t.invalid <= 3 {
                    report(&format!("seed {seed:#x}: invalid case: {why}"));
                }
            }
            Verdict::Differ(d) => {
                t.differ += 1;
                report(&d);
            }
            Verdict::BudgetBound(what) => {
                t.budget_bound += 1;
                if t.budget_bound <= 3 {
                    report(&format!(
                        "seed {seed:#x}: stopped by one batching only: {what}"
                    ));
                }
            }
        }
        seed += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cases the fuzzer found, reduced (`src/fuzz_found/<seed>.tgsi`, run
    /// with the inputs of their seed): both engines give the same words.
    /// DFRACEXP's exponent, a second destination, was left out of the
    /// loop cache's writes (0x6686a1) and stored from a register the
    /// stores into a cached pair take as scratch (0x666c4a).
    #[test]
    fn reduced_findings_are_identical_on_both_engines() {
        if !tgsi_jit::cpu_supported() {
            return;
        }
        for (seed, text) in [
            (0x6686a1, include_str!("fuzz_found/0x6686a1.tgsi")),
            (0x666c4a, include_str!("fuzz_found/0x666c4a.tgsi")),
        ] {
            let verdict = check_text(text, seed);
            assert!(
                matches!(verdict, Verdict::Same),
                "seed {seed:#x}: {verdict:?}"
            );
        }
    }

    #[test]
    fn fuzz_cases_are_identical_on_both_engines() {
        if !tgsi_jit::cpu_supported() {
            return;
        }
        let mut found = Vec::new();
        let t = run(
            0x5eed,
            check,
            |t| t.cases() < 150,
            |d| found.push(d.to_string()),
        );
        assert!(
            found.iter().all(|d| d.contains("not compiled")),
            "{}",
            found.join("\n")
        );
        assert_eq!(t.differ, 0);
        assert_eq!(t.invalid, 0, "the generator makes valid shaders");
        assert!(t.same >= 140, "most cases compile: {t:?}");
    }
}
