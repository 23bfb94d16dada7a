//! The differential check of the Direct3D front end: compute shaders written
//! twice, once as SM5 assembly (lowered, run under Direct3D's numeric rules)
//! and once as TGSI text (run under TGSI's), must give the same bits for the
//! same inputs.
//!
//! The corpus has no TGSI twins of its Direct3D programs (its TGSI comes from
//! OpenGL), so the pairs are written here, each twin by hand from its own
//! specification (Microsoft's reference pages / tgsi.rst), not one generated
//! from the other. Inputs are random words from a fixed seed mixed with the
//! edge values both specifications define alike (±0, ±inf, NaN, extremes of
//! the integer ranges, 0 divisors). Float32 denormals are where the two sets
//! of rules differ on purpose (Direct3D flushes them, TGSI keeps them):
//! `denormals_are_where_the_rules_differ` pins that difference down.
//!
//! Every pair reads 4 words per thread from `u0`/`BUFFER[0]` at byte
//! 16 × thread and writes 4 words to `u1`/`BUFFER[1]` at the same place.

use tgsi::exec::{Limits, Numerics, Resources};
use tgsi::shader_test::d3d::{D3dShader, check_assembly};

const THREADS: u32 = 64;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }
}

/// What kind of words a pair reads.
#[derive(Clone, Copy)]
enum Inputs {
    /// Normal floats between 2^-47 and 2^48, and ±0, ±inf, NaN, ±1, ±0.5,
    /// the largest finite float.
    Floats,
    /// Floats that fit an int/uint conversion without saturating, ±0 and
    /// halves that test the rounding direction.
    SmallFloats,
    /// Any 32-bit words, and 0, 1, ~0, i32::MIN, i32::MAX, 31, 32, 33.
    Words,
    /// Pairs of words holding doubles: normal doubles between 2^-60 and
    /// 2^61 and ±0, ±inf, NaN, ±1.
    Doubles,
}

fn float_word(r: &mut Rng) -> u32 {
    const EDGES: [u32; 10] = [
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x3f00_0000,
        0xbf00_0000,
        0x7f7f_ffff,
    ];
    let w = r.next();
    if w.is_multiple_of(8) {
        return EDGES[(w >> 3) as usize % EDGES.len()];
    }
    // a normal float between 2^-47 and 2^48, so that no sum, product or
    // quotient of two of them is a denormal (Direct3D flushes those results)
    let exp = 80 + (r.next() % 95);
    (w & 0x807f_ffff) | (exp << 23)
}

fn input_words(kind: Inputs, seed: u64) -> Vec<u32> {
    let mut r = Rng(seed | 1);
    let n = THREADS as usize * 4;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        match kind {
            Inputs::Floats => out.push(float_word(&mut r)),
            Inputs::SmallFloats => {
                let w = r.next();
                let v = match w % 6 {
                    0 => (w >> 3) as f32 / 8.0 - 1000.0,
                    1 => -((w >> 20) as f32) - 0.5,
                    2 => ((w >> 20) as f32) + 0.5,
                    3 => 0.0,
                    4 => -0.0,
                    _ => (w >> 8) as f32 * 1.5,
                };
                out.push(v.to_bits());
            }
            Inputs::Words => {
                const EDGES: [u32; 8] = [0, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff, 31, 32, 33];
                let w = r.next();
                out.push(if w.is_multiple_of(5) {
                    EDGES[(w >> 3) as usize % EDGES.len()]
                } else {
                    r.next()
                });
            }
            Inputs::Doubles => {
                const EDGES: [u64; 7] = [
                    0,
                    0x8000_0000_0000_0000,
                    0x7ff0_0000_0000_0000,
                    0xfff0_0000_0000_0000,
                    0x7ff8_0000_0000_0000,
                    0x3ff0_0000_0000_0000,
                    0xbff0_0000_0000_0000,
                ];
                let w = r.next();
                let d = if w.is_multiple_of(8) {
                    EDGES[(w >> 3) as usize % EDGES.len()]
                } else {
                    // between 2^-60 and 2^61: doubles keep denormals under
                    // both rules, but a dtof result is a float32, which
                    // Direct3D flushes, so none may come out denormal
                    let exp = 963 + (r.next() as u64 % 121);
                    let mant = ((r.next() as u64) << 32 | r.next() as u64) & 0x800f_ffff_ffff_ffff;
                    mant | exp << 52
                };
                out.push(d as u32);
                out.push((d >> 32) as u32);
            }
        }
    }
    out
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn resources(input: &[u32]) -> Resources {
    Resources {
        buffers: vec![bytes(input), vec![0; THREADS as usize * 16]],
        ..Resources::default()
    }
}

fn run_d3d(asm: &str, input: &[u32]) -> Vec<u32> {
    let checked = check_assembly(asm).unwrap_or_else(|e| panic!("{e:?}\n{asm}"));
    let shader = D3dShader::lower(checked).unwrap_or_else(|e| panic!("{e:?}"));
    let program = tgsi::jit::compile(&shader.lowered.shader, Numerics::Direct3D)
        .unwrap_or_else(|e| panic!("compile: {e}"));
    let mut res = resources(input);
    shader.bind(&mut res, |res| {
        program
            .dispatch(res, [1, 1, 1], &Limits::default())
            .unwrap_or_else(|e| panic!("run: {e}"))
    });
    words(&res.buffers[1])
}

fn run_tgsi(text: &str, input: &[u32]) -> Vec<u32> {
    let (shader, _) = tgsi::assemble(text).unwrap_or_else(|d| panic!("{}", d.render("twin", text)));
    let program =
        tgsi::jit::compile(&shader, Numerics::Ieee).unwrap_or_else(|e| panic!("compile: {e}"));
    let mut res = resources(input);
    program
        .dispatch(&mut res, [1, 1, 1], &Limits::default())
        .unwrap_or_else(|e| panic!("run: {e}"));
    words(&res.buffers[1])
}

/// Runs both twins on three input sets and compares every output word.
fn twins(name: &str, inputs: Inputs, d3d_body: &str, tgsi_body: &str, tgsi_decls: &str) {
    twins_with(name, inputs, "", d3d_body, tgsi_body, tgsi_decls)
}

fn twins_with(
    name: &str,
    inputs: Inputs,
    d3d_decls: &str,
    d3d_body: &str,
    tgsi_body: &str,
    tgsi_decls: &str,
) {
    let d3d = format!(
        "cs_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions\n\
         dcl_uav_raw u0\ndcl_uav_raw u1\ndcl_input vThreadIDInGroupFlattened\ndcl_temps 8\n\
         {d3d_decls}\
         dcl_thread_group {THREADS}, 1, 1\n\
         ishl r7.x, vThreadIDInGroupFlattened.x, l(4)\n\
         ld_raw r0.xyzw, r7.x, u0.xyzw\n{d3d_body}\nstore_raw u1.xyzw, r7.x, r1.xyzw\nret\n"
    );
    let tgsi = format!(
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH {THREADS}\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
         PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\n\
         DCL TEMP[0..7]\nIMM[0] UINT32 {{4, 0, 0, 0}}\n{tgsi_decls}\
         SHL TEMP[7].x, SV[0].xxxx, IMM[0].xxxx\n\
         LOAD TEMP[0], BUFFER[0], TEMP[7].xxxx\n{tgsi_body}\n\
         STORE BUFFER[1], TEMP[7].xxxx, TEMP[1]\nEND\n"
    );
    for seed in [1u64, 0x9e37_79b9_7f4a_7c15, 0xdead_beef] {
        let input = input_words(inputs, seed);
        let a = run_d3d(&d3d, &input);
        let b = run_tgsi(&tgsi, &input);
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            let t = k / 4;
            assert_eq!(
                x,
                y,
                "{name}: thread {t} channel {}: Direct3D {x:#010x}, TGSI {y:#010x}; inputs {:08x?}",
                k % 4,
                &input[t * 4..t * 4 + 4]
            );
        }
    }
}

#[test]
fn float_arithmetic() {
    twins(
        "float arithmetic",
        Inputs::Floats,
        "add r1.x, r0.x, r0.y\nmul r1.y, r0.z, r0.w\nmad r1.z, r0.x, r0.y, r0.z\n\
         add r2.x, -r0.w, |r0.x|\nmul_sat r1.w, r2.x, r0.y",
        "ADD TEMP[1].x, TEMP[0].xxxx, TEMP[0].yyyy\nMUL TEMP[1].y, TEMP[0].zzzz, TEMP[0].wwww\n\
         MAD TEMP[1].z, TEMP[0].xxxx, TEMP[0].yyyy, TEMP[0].zzzz\n\
         ADD TEMP[2].x, -TEMP[0].wwww, |TEMP[0].xxxx|\n\
         MUL_SAT TEMP[1].w, TEMP[2].xxxx, TEMP[0].yyyy",
        "",
    );
}

#[test]
fn float_division_roots_and_rounding() {
    twins(
        "div, sqrt, rounding",
        Inputs::Floats,
        "div r1.x, r0.x, r0.y\nsqrt r1.y, |r0.z|\nround_ni r2.x, r0.w\nround_pi r2.y, r0.x\n\
         add r1.z, r2.x, r2.y\nround_ne r2.z, r0.y\nround_z r2.w, r0.z\nadd r1.w, r2.z, r2.w",
        "DIV TEMP[1].x, TEMP[0].xxxx, TEMP[0].yyyy\nSQRT TEMP[1].y, |TEMP[0].zzzz|\n\
         FLR TEMP[2].x, TEMP[0].wwww\nCEIL TEMP[2].y, TEMP[0].xxxx\n\
         ADD TEMP[1].z, TEMP[2].xxxx, TEMP[2].yyyy\nROUND TEMP[2].z, TEMP[0].yyyy\n\
         TRUNC TEMP[2].w, TEMP[0].zzzz\nADD TEMP[1].w, TEMP[2].zzzz, TEMP[2].wwww",
        "",
    );
}

#[test]
fn float_compares_and_selects() {
    // D3D's lt/ge/eq/ne give ~0 / 0, as TGSI's FSLT/FSGE/FSEQ/FSNE do; movc
    // selects on any bit, as UCMP does.
    twins(
        "compares",
        Inputs::Floats,
        "lt r2.x, r0.x, r0.y\nge r2.y, r0.z, r0.w\neq r2.z, r0.x, r0.z\nne r2.w, r0.y, r0.w\n\
         movc r1.x, r2.x, r0.z, r0.w\nand r1.y, r2.y, r2.z\nxor r1.z, r2.w, r2.x\n\
         movc r1.w, r2.z, l(1.0), r0.x",
        "FSLT TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy\nFSGE TEMP[2].y, TEMP[0].zzzz, TEMP[0].wwww\n\
         FSEQ TEMP[2].z, TEMP[0].xxxx, TEMP[0].zzzz\nFSNE TEMP[2].w, TEMP[0].yyyy, TEMP[0].wwww\n\
         UCMP TEMP[1].x, TEMP[2].xxxx, TEMP[0].zzzz, TEMP[0].wwww\n\
         AND TEMP[1].y, TEMP[2].yyyy, TEMP[2].zzzz\nXOR TEMP[1].z, TEMP[2].wwww, TEMP[2].xxxx\n\
         UCMP TEMP[1].w, TEMP[2].zzzz, IMM[1].xxxx, TEMP[0].xxxx",
        "IMM[1] FLT32 {1.0, 0.0, 0.0, 0.0}\n",
    );
}

#[test]
fn integer_arithmetic() {
    // udiv by 0 gives ~0 for quotient and remainder in both (the D3D page;
    // tgsi.rst's UDIV/UMOD); shift counts are masked to 5 bits in both.
    twins(
        "integer arithmetic",
        Inputs::Words,
        "iadd r1.x, r0.x, -r0.y\nimul null, r1.y, r0.z, r0.w\nudiv r2.x, r2.y, r0.x, r0.y\n\
         xor r1.z, r2.x, r2.y\nishl r2.z, r0.z, r0.w\nushr r2.w, r0.x, r0.y\nishr r2.x, r0.w, r0.z\n\
         xor r2.z, r2.z, r2.w\nxor r1.w, r2.z, r2.x",
        "INEG TEMP[2].y, TEMP[0].yyyy\nUADD TEMP[1].x, TEMP[0].xxxx, TEMP[2].yyyy\n\
         UMUL TEMP[1].y, TEMP[0].zzzz, TEMP[0].wwww\nUDIV TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy\n\
         UMOD TEMP[2].y, TEMP[0].xxxx, TEMP[0].yyyy\nXOR TEMP[1].z, TEMP[2].xxxx, TEMP[2].yyyy\n\
         SHL TEMP[2].z, TEMP[0].zzzz, TEMP[0].wwww\nUSHR TEMP[2].w, TEMP[0].xxxx, TEMP[0].yyyy\n\
         ISHR TEMP[2].x, TEMP[0].wwww, TEMP[0].zzzz\nXOR TEMP[2].z, TEMP[2].zzzz, TEMP[2].wwww\n\
         XOR TEMP[1].w, TEMP[2].zzzz, TEMP[2].xxxx",
        "",
    );
}

#[test]
fn integer_high_products_min_max() {
    twins(
        "umul/imul high, min/max",
        Inputs::Words,
        "umul r1.x, null, r0.x, r0.y\nimul r1.y, null, r0.z, r0.w\nimax r2.x, r0.x, r0.z\n\
         umin r2.y, r0.y, r0.w\nxor r1.z, r2.x, r2.y\nimin r2.z, r0.x, r0.w\numax r2.w, r0.z, r0.y\n\
         iadd r1.w, r2.z, r2.w",
        "UMUL_HI TEMP[1].x, TEMP[0].xxxx, TEMP[0].yyyy\nIMUL_HI TEMP[1].y, TEMP[0].zzzz, TEMP[0].wwww\n\
         IMAX TEMP[2].x, TEMP[0].xxxx, TEMP[0].zzzz\nUMIN TEMP[2].y, TEMP[0].yyyy, TEMP[0].wwww\n\
         XOR TEMP[1].z, TEMP[2].xxxx, TEMP[2].yyyy\nIMIN TEMP[2].z, TEMP[0].xxxx, TEMP[0].wwww\n\
         UMAX TEMP[2].w, TEMP[0].zzzz, TEMP[0].yyyy\nUADD TEMP[1].w, TEMP[2].zzzz, TEMP[2].wwww",
        "",
    );
}

#[test]
fn bit_instructions() {
    // D3D's firstbit_hi counts from the top (31 - UMSB), ~0 for 0 in both;
    // bfi's operands are (width, offset, insert, base), TGSI's BFI (base,
    // insert, offset, width); countbits and bfrev are POPC and BREV.
    twins(
        "bits",
        Inputs::Words,
        "countbits r2.x, r0.x\nbfrev r2.y, r0.y\nxor r1.x, r2.x, r2.y\nfirstbit_lo r2.z, r0.z\n\
         firstbit_hi r2.w, r0.w\nxor r1.y, r2.z, r2.w\nand r3.xy, r0.zwzz, l(31, 31, 0, 0)\n\
         bfi r1.z, r3.x, r3.y, r0.x, r0.y\nubfe r2.x, r3.x, r3.y, r0.w\nibfe r2.y, r3.y, r3.x, r0.z\n\
         xor r1.w, r2.x, r2.y",
        "POPC TEMP[2].x, TEMP[0].xxxx\nBREV TEMP[2].y, TEMP[0].yyyy\n\
         XOR TEMP[1].x, TEMP[2].xxxx, TEMP[2].yyyy\nLSB TEMP[2].z, TEMP[0].zzzz\n\
         UMSB TEMP[3].w, TEMP[0].wwww\nUSGE TEMP[3].z, TEMP[3].wwww, IMM[1].yyyy\n\
         UADD TEMP[2].w, IMM[1].xxxx, -TEMP[3].wwww\n\
         OR TEMP[2].w, TEMP[2].wwww, TEMP[3].zzzz\n\
         XOR TEMP[1].y, TEMP[2].zzzz, TEMP[2].wwww\n\
         AND TEMP[3].xy, TEMP[0].zwzz, IMM[1].xxxx\n\
         BFI TEMP[1].z, TEMP[0].yyyy, TEMP[0].xxxx, TEMP[3].yyyy, TEMP[3].xxxx\n\
         UBFE TEMP[2].x, TEMP[0].wwww, TEMP[3].yyyy, TEMP[3].xxxx\n\
         IBFE TEMP[2].y, TEMP[0].zzzz, TEMP[3].xxxx, TEMP[3].yyyy\n\
         XOR TEMP[1].w, TEMP[2].xxxx, TEMP[2].yyyy",
        "IMM[1] UINT32 {31, 32, 0, 0}\n",
    );
}

#[test]
fn conversions_in_range() {
    // Inside the integer ranges both truncate toward zero and round int→float
    // to nearest even.
    twins(
        "conversions",
        Inputs::SmallFloats,
        "ftoi r1.x, r0.x\nftou r1.y, |r0.y|\nftoi r2.x, r0.z\nitof r1.z, r2.x\n\
         ftou r2.y, |r0.w|\nutof r2.y, r2.y\nadd r1.w, r2.y, r0.x",
        "F2I TEMP[1].x, TEMP[0].xxxx\nF2U TEMP[1].y, |TEMP[0].yyyy|\nF2I TEMP[2].x, TEMP[0].zzzz\n\
         I2F TEMP[1].z, TEMP[2].xxxx\nF2U TEMP[2].y, |TEMP[0].wwww|\nU2F TEMP[2].y, TEMP[2].yyyy\n\
         ADD TEMP[1].w, TEMP[2].yyyy, TEMP[0].xxxx",
        "",
    );
}

#[test]
fn doubles() {
    // r0.xy and r0.zw are two doubles; dmovc picks on r2.x.
    twins(
        "doubles",
        Inputs::Doubles,
        "dadd r1.xy, r0.xyxy, r0.zwzw\ndmul r2.xy, r0.xyxy, r0.zwzw\ndlt r3.x, r0.xyxy, r0.zwzw\n\
         dmovc r1.zw, r3.xxxx, r2.xyxy, r0.xyxy",
        "DADD TEMP[1].xy, TEMP[0].xyxy, TEMP[0].zwzw\nDMUL TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw\n\
         DSLT TEMP[3].x, TEMP[0].xyxy, TEMP[0].zwzw\n\
         UCMP TEMP[1].z, TEMP[3].xxxx, TEMP[2].xxxx, TEMP[0].xxxx\n\
         UCMP TEMP[1].w, TEMP[3].xxxx, TEMP[2].yyyy, TEMP[0].yyyy",
        "",
    );
}

#[test]
fn double_division_min_max_and_conversions() {
    twins(
        "ddiv, dmin/dmax, dtof",
        Inputs::Doubles,
        "ddiv r1.xy, r0.xyxy, r0.zwzw\ndmax r2.xy, r0.xyxy, r0.zwzw\ndmin r2.zw, r0.xyxy, r0.zwzw\n\
         dadd r2.xy, r2.xyxy, -r2.zwzw\ndtof r1.z, r2.xyxy\ndtof r1.w, r0.zwzw",
        "DDIV TEMP[1].xy, TEMP[0].xyxy, TEMP[0].zwzw\nDMAX TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw\n\
         DMIN TEMP[2].zw, TEMP[0].xyxy, TEMP[0].zwzw\nDADD TEMP[2].xy, TEMP[2].xyxy, -TEMP[2].zwzw\n\
         D2F TEMP[3].x, TEMP[2].xyxy\nD2F TEMP[3].y, TEMP[0].zwzw\nMOV TEMP[1].zw, TEMP[3].xxxy",
        "",
    );
}

#[test]
fn loops_breakc_and_switch() {
    // A Collatz walk of at most 40 steps from (x & 0xff) + 1, counting steps
    // and summing the values; then a switch on y & 3 with two labels sharing
    // code and a default.
    twins(
        "flow",
        Inputs::Words,
        "and r2.x, r0.x, l(255)\niadd r2.x, r2.x, l(1)\nmov r2.yz, l(0, 0, 0, 0)\nloop\n\
         ieq r3.x, r2.x, l(1)\nbreakc_nz r3.x\nuge r3.y, r2.y, l(40)\nbreakc_nz r3.y\n\
         and r3.z, r2.x, l(1)\nif_nz r3.z\nimad r2.x, r2.x, l(3), l(1)\nelse\nushr r2.x, r2.x, l(1)\n\
         endif\niadd r2.y, r2.y, l(1)\niadd r2.z, r2.z, r2.x\nendloop\nmov r1.xy, r2.yzyy\n\
         and r3.w, r0.y, l(3)\nmov r1.zw, l(0, 0, 0, 0)\nswitch r3.w\ncase l(0)\n\
         case l(1)\niadd r1.z, r1.z, l(100)\nbreak\ncase l(2)\n\
         mov r1.w, l(7)\nbreak\ndefault\nmov r1.w, l(9)\nbreak\nendswitch",
        "AND TEMP[2].x, TEMP[0].xxxx, IMM[1].xxxx\nUADD TEMP[2].x, TEMP[2].xxxx, IMM[1].yyyy\n\
         MOV TEMP[2].yz, IMM[1].wwww\nBGNLOOP\nUSEQ TEMP[3].x, TEMP[2].xxxx, IMM[1].yyyy\n\
         UIF TEMP[3].xxxx\nBRK\nENDIF\nUSGE TEMP[3].y, TEMP[2].yyyy, IMM[1].zzzz\n\
         UIF TEMP[3].yyyy\nBRK\nENDIF\nAND TEMP[3].z, TEMP[2].xxxx, IMM[1].yyyy\n\
         UIF TEMP[3].zzzz\nUMAD TEMP[2].x, TEMP[2].xxxx, IMM[2].xxxx, IMM[1].yyyy\nELSE\n\
         USHR TEMP[2].x, TEMP[2].xxxx, IMM[1].yyyy\nENDIF\n\
         UADD TEMP[2].y, TEMP[2].yyyy, IMM[1].yyyy\nUADD TEMP[2].z, TEMP[2].zzzz, TEMP[2].xxxx\n\
         ENDLOOP\nMOV TEMP[1].xy, TEMP[2].yzyy\nAND TEMP[3].w, TEMP[0].yyyy, IMM[2].xxxx\n\
         MOV TEMP[1].zw, IMM[1].wwww\nSWITCH TEMP[3].wwww\nCASE IMM[1].wwww\n\
         CASE IMM[1].yyyy\n\
         UADD TEMP[1].z, TEMP[1].zzzz, IMM[2].zzzz\nBRK\nCASE IMM[2].wwww\n\
         MOV TEMP[1].w, IMM[3].xxxx\nBRK\nDEFAULT\nMOV TEMP[1].w, IMM[3].yyyy\nBRK\nENDSWITCH",
        "IMM[1] UINT32 {255, 1, 40, 0}\nIMM[2] UINT32 {3, 10, 100, 2}\nIMM[3] UINT32 {7, 9, 0, 0}\n",
    );
}

#[test]
fn shared_memory_and_atomics() {
    // Each thread writes x to g0[tid], syncs, reads its neighbour's word
    // (tid + 1) % 64; atomics on a shared counter word return distinct old
    // values, whose xor over all threads is order-independent, but each
    // thread's own old value depends on the lane order both engines use.
    twins_with(
        "tgsm",
        Inputs::Words,
        "dcl_tgsm_raw g0, 256\ndcl_tgsm_raw g1, 8\n",
        "ishl r2.x, vThreadIDInGroupFlattened.x, l(2)\nstore_raw g0.x, r2.x, r0.x\n\
         sync_g_t\niadd r2.y, vThreadIDInGroupFlattened.x, l(1)\nand r2.y, r2.y, l(63)\n\
         ishl r2.y, r2.y, l(2)\nld_raw r1.x, r2.y, g0.xxxx\n\
         imm_atomic_iadd r1.y, g1, l(0), r0.y\nimm_atomic_umax r1.z, g1, l(4), r0.z\n\
         sync_g_t\nld_raw r1.w, l(0), g1.xxxx",
        "SHL TEMP[2].x, SV[0].xxxx, IMM[1].xxxx\nSTORE MEMORY[0].x, TEMP[2].xxxx, TEMP[0].xxxx\n\
         BARRIER\nUADD TEMP[2].y, SV[0].xxxx, IMM[1].yyyy\nAND TEMP[2].y, TEMP[2].yyyy, IMM[1].zzzz\n\
         SHL TEMP[2].y, TEMP[2].yyyy, IMM[1].xxxx\nLOAD TEMP[1].x, MEMORY[0], TEMP[2].yyyy\n\
         ATOMUADD TEMP[1].y, MEMORY[0], IMM[1].wwww, TEMP[0].yyyy\n\
         ATOMUMAX TEMP[1].z, MEMORY[0], IMM[2].xxxx, TEMP[0].zzzz\n\
         BARRIER\nLOAD TEMP[2], MEMORY[0], IMM[1].wwww\nMOV TEMP[1].w, TEMP[2].xxxx",
        "DCL MEMORY[0], SHARED\nIMM[1] UINT32 {2, 1, 63, 256}\nIMM[2] UINT32 {260, 0, 0, 0}\n",
    );
}

/// The one place the two sets of rules differ on purpose: a float32
/// denormal input is flushed by Direct3D's `add` (so 0 + denormal = +0),
/// kept by TGSI's ADD; `mov` keeps it in both.
#[test]
fn denormals_are_where_the_rules_differ() {
    let d3d = "cs_5_0\ndcl_uav_raw u0\ndcl_uav_raw u1\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n\
               ld_raw r0.xyzw, l(0), u0.xyzw\nadd r1.x, r0.x, l(0.0)\nmov r1.y, r0.x\n\
               mov r1.zw, l(0, 0, 0, 0)\nstore_raw u1.xyzw, l(0), r1.xyzw\nret\n";
    let tgsi = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..1]\n\
                IMM[0] UINT32 {0, 0, 0, 0}\nLOAD TEMP[0], BUFFER[0], IMM[0].xxxx\n\
                ADD TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx\nMOV TEMP[1].y, TEMP[0].xxxx\n\
                MOV TEMP[1].zw, IMM[0].xxxx\nSTORE BUFFER[1], IMM[0].xxxx, TEMP[1]\nEND\n";
    let mut input = vec![0u32; THREADS as usize * 4];
    input[0] = 0x0000_0003; // the third-smallest positive denormal
    let a = run_d3d(d3d, &input);
    let b = run_tgsi(tgsi, &input);
    assert_eq!(&a[..2], &[0, 3], "Direct3D flushes the sum, keeps the move");
    assert_eq!(&b[..2], &[3, 3], "TGSI keeps both");
}
