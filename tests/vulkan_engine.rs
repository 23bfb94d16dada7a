//! Vulkan as an engine: compute shaders translated to SPIR-V run on the
//! Vulkan device (lavapipe here) and on the machine with the same inputs,
//! and every output word is compared. Exact operations must agree bit for
//! bit. Where no Vulkan device is found, the test says it skipped, loudly.

use tgsi::exec::{Limits, Resources};
use tgsi::vulkan::{Device, Dispatch};

fn device() -> Option<Device> {
    match Device::open(std::env::var("TGSI_VULKAN_DEVICE").ok().as_deref()) {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!(
                "\n*** SKIPPED: no Vulkan device ({e}); Debian: apt-get install mesa-vulkan-drivers ***\n"
            );
            None
        }
    }
}

/// Dispatches `shader` (`groups` work groups along x) on the machine and on
/// the device, each with resources from `fresh`: (the machine's, the
/// device's) afterwards. `direct3d`: Direct3D's numeric rules on both.
fn run_both(
    dev: &Device,
    shader: &tgsi::Shader,
    groups: u32,
    direct3d: bool,
    fresh: impl Fn() -> Resources,
) -> (Resources, Resources) {
    let numerics = if direct3d {
        tgsi::exec::Numerics::Direct3D
    } else {
        tgsi::exec::Numerics::Ieee
    };
    let mut machine = fresh();
    tgsi::jit::compile(shader, numerics)
        .unwrap()
        .dispatch(&mut machine, [groups, 1, 1], &Limits::default())
        .unwrap();
    let mut vulkan = fresh();
    let d = Dispatch {
        shader,
        direct3d,
        groups: [groups, 1, 1],
        timeout_ms: 60_000,
    };
    dev.dispatch(&d, &mut vulkan).unwrap();
    (machine, vulkan)
}

/// The exact operations compared, one output word each: (opcode line, how
/// the sources are typed in the text).
const OPS: &[&str] = &[
    "ADD TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "MUL TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "MAD TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy, TEMP[0].xxxx",
    "DIV TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "MIN TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "MAX TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "SLT TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "SGE TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "SEQ TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "SNE TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "FSLT TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "FSEQ TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "FLR TEMP[2].x, TEMP[0].xxxx",
    "CEIL TEMP[2].x, TEMP[0].xxxx",
    "TRUNC TEMP[2].x, TEMP[0].xxxx",
    "ROUND TEMP[2].x, TEMP[0].xxxx",
    "F2I TEMP[2].x, TEMP[0].xxxx",
    "F2U TEMP[2].x, TEMP[0].xxxx",
    "I2F TEMP[2].x, TEMP[0].xxxx",
    "U2F TEMP[2].x, TEMP[0].xxxx",
    "UADD TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "UMUL TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "IMUL_HI TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "UMUL_HI TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "AND TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "XOR TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "SHL TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "ISHR TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "USHR TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "IMIN TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "UMAX TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "USLT TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "ISLT TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "UDIV TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "UMOD TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "IDIV TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "MOD TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
    "INEG TEMP[2].x, TEMP[0].xxxx",
    "UBFE TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy, TEMP[0].xxxx",
    "IBFE TEMP[2].x, TEMP[0].xxxx, TEMP[0].xxxx, TEMP[0].yyyy",
    "BFI TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy, TEMP[0].yyyy, TEMP[0].xxxx",
    "BREV TEMP[2].x, TEMP[0].xxxx",
    "POPC TEMP[2].x, TEMP[0].xxxx",
    "LSB TEMP[2].x, TEMP[0].xxxx",
    "IMSB TEMP[2].x, TEMP[0].xxxx",
    "UMSB TEMP[2].x, TEMP[0].xxxx",
    "MOV TEMP[2].x, -TEMP[0].xxxx",
    "MOV_SAT TEMP[2].x, TEMP[0].xxxx",
    "PK2H TEMP[2].x, TEMP[0].xyxy",
    "PK2US TEMP[2].x, TEMP[0].xyxy",
    "PK4UB TEMP[2].x, TEMP[0].xyyx",
    "PK4B TEMP[2].x, TEMP[0].yxxy",
    "UP2H TEMP[2].x, TEMP[0].yyyy",
    "UP2H TEMP[2].x, TEMP[0].xxxx",
    "UP2H TEMP[2].y, TEMP[0].xxxx\nMOV TEMP[2].x, TEMP[2].yyyy",
    "UP2US TEMP[2].x, TEMP[0].xxxx",
    "UP4UB TEMP[2].x, TEMP[0].xxxx",
    "UP4B TEMP[2].x, TEMP[0].yyyy",
    "LDEXP TEMP[2].x, TEMP[0].xxxx, TEMP[0].yyyy",
];

/// The 64-bit operations compared, two output words each (TEMP[2].xy):
/// thread t's sources are the doubles (or 64-bit integers) a = TEMP[0].xy
/// and b = TEMP[0].zw.
const OPS64: &[&str] = &[
    "DADD TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "DMUL TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "DDIV TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "DMAD TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw, TEMP[0].xyxy",
    "DMIN TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "DMAX TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "DRCP TEMP[2].xy, TEMP[0].xyxy",
    "DSQRT TEMP[2].xy, TEMP[0].xyxy",
    "DRSQ TEMP[2].xy, TEMP[0].xyxy",
    "DFRAC TEMP[2].xy, TEMP[0].xyxy",
    "DTRUNC TEMP[2].xy, TEMP[0].xyxy",
    "DCEIL TEMP[2].xy, TEMP[0].xyxy",
    "DFLR TEMP[2].xy, TEMP[0].xyxy",
    "DROUND TEMP[2].xy, TEMP[0].xyxy",
    "DSSG TEMP[2].xy, TEMP[0].xyxy",
    "DABS TEMP[2].xy, -TEMP[0].xyxy",
    "DNEG TEMP[2].xy, |TEMP[0].xyxy|",
    "DSLT TEMP[2].x, TEMP[0].xyxy, TEMP[0].zwzw",
    "DSGE TEMP[2].x, TEMP[0].xyxy, TEMP[0].zwzw",
    "DSEQ TEMP[2].x, TEMP[0].xyxy, TEMP[0].zwzw",
    "DSNE TEMP[2].y, TEMP[0].xyxy, TEMP[0].zwzw",
    "D2F TEMP[2].xy, TEMP[0]",
    "D2I TEMP[2].xy, TEMP[0]",
    "D2U TEMP[2].xy, TEMP[0]",
    "F2D TEMP[2].xy, TEMP[0].xxxx",
    "I2D TEMP[2].xy, TEMP[0].yyyy",
    "U2D TEMP[2].xy, TEMP[0].zzzz",
    "DFRACEXP TEMP[2].xy, TEMP[3].x, TEMP[0].xyxy",
    "U64ADD TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "U64MUL TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "U64DIV TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "I64DIV TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "U64MOD TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "I64MOD TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "I64MIN TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "U64MAX TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
    "I64ABS TEMP[2].xy, TEMP[0].xyxy",
    "I64NEG TEMP[2].xy, TEMP[0].xyxy",
    "I64SSG TEMP[2].xy, -TEMP[0].zwzw",
    "U64SHL TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zzzz",
    "I64SHR TEMP[2].xy, TEMP[0].xyxy, TEMP[0].wwww",
    "U64SHR TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zzzz",
    "U64SEQ TEMP[2].x, TEMP[0].xyxy, TEMP[0].zwzw",
    "U64SLT TEMP[2].x, TEMP[0].xyxy, TEMP[0].zwzw",
    "I64SLT TEMP[2].x, TEMP[0].xyxy, TEMP[0].zwzw",
    "I64SGE TEMP[2].x, TEMP[0].xyxy, TEMP[0].zwzw",
    "D2U64 TEMP[2].xy, TEMP[0].xyxy",
    "D2I64 TEMP[2].xy, TEMP[0].xyxy",
    "U642D TEMP[2].xy, TEMP[0].xyxy",
    "I642D TEMP[2].xy, TEMP[0].xyxy",
    "U642F TEMP[2].xy, TEMP[0]",
    "I642F TEMP[2].xy, TEMP[0]",
    "I642F TEMP[2].xy, |TEMP[0].wyyz|",
    "U642F TEMP[2].xy, -TEMP[0]",
    "F2U64 TEMP[2].xy, TEMP[0].yyyy",
    "F2I64 TEMP[2].xy, TEMP[0].yyyy",
    "DLDEXP TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zzzz",
    "U2I64 TEMP[2].xy, TEMP[0].zzzz",
    "I2I64 TEMP[2].xy, TEMP[0].zzzz",
    "DMAX_SAT TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw",
];

/// A shader where thread t reads `words_in` (2 or 4) words at byte
/// 4 × `words_in` × t of BUFFER[0] into TEMP[0], then per operation k
/// clears TEMP[2], runs it and writes `words_out` words of TEMP[2] at
/// byte 4 × `words_out` × (t × ops + k) of BUFFER[1].
fn shader(ops: &[&str], words_in: u32, words_out: u32) -> String {
    let n = ops.len() as u32;
    let (load, store) = (
        ["", "x", "xy", "xyz", "xyzw"][words_in as usize],
        ["", "x", "xy", "xyz", "xyzw"][words_out as usize],
    );
    let mut s = format!(
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
         PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n\
         DCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..3]\n\
         IMM[0] UINT32 {{64, {}, {}, {}}}\nIMM[1] UINT32 {{0, 0, 0, 0}}\n\
         UMAD TEMP[1].x, SV[1].xxxx, IMM[0].xxxx, SV[0].xxxx\n\
         UMUL TEMP[1].y, TEMP[1].xxxx, IMM[0].yyyy\n\
         LOAD TEMP[0].{load}, BUFFER[0], TEMP[1].yyyy\n\
         UMUL TEMP[1].z, TEMP[1].xxxx, IMM[0].zzzz\n",
        4 * words_in,
        4 * words_out * n,
        4 * words_out
    );
    for op in ops {
        s.push_str("MOV TEMP[2], IMM[1]\n");
        s.push_str(op);
        s.push_str(&format!(
            "\nSTORE BUFFER[1].{store}, TEMP[1].zzzz, TEMP[2]\n"
        ));
        s.push_str("UADD TEMP[1].z, TEMP[1].zzzz, IMM[0].wwww\n");
    }
    s.push_str("END\n");
    s
}

/// Every pair of `special` values, then random words, for `threads`
/// threads of `words` words each (pairs of values of `words / 2` words).
fn inputs(special: &[u64], words: usize, threads: usize) -> Vec<u32> {
    let half = words / 2;
    let split = |v: u64| -> Vec<u32> {
        if half == 1 {
            vec![v as u32]
        } else {
            vec![v as u32, (v >> 32) as u32]
        }
    };
    let mut out = Vec::new();
    for &a in special {
        for &b in special {
            out.extend(split(a));
            out.extend(split(b));
        }
    }
    let mut rng = tgsi::rng::Rng(0x5eed);
    while out.len() < threads * words {
        out.push((rng.next() >> 32) as u32);
    }
    out.truncate(threads * words);
    out
}

/// Runs `ops` on the machine and the device over `words` (`words_in` per
/// thread) and lists every output word that differs, by operation.
fn differences(
    dev: &Device,
    ops: &[&str],
    words: &[u32],
    words_in: u32,
    words_out: u32,
) -> Vec<String> {
    let text = shader(ops, words_in, words_out);
    let (shader, _) =
        tgsi::assemble(&text).unwrap_or_else(|d| panic!("{}", d.render("ops", &text)));
    let groups = (words.len() / words_in as usize / 64) as u32;
    let per_thread = ops.len() * words_out as usize;
    let out_len = (groups * 64) as usize * per_thread * 4;
    let fresh = || Resources {
        buffers: vec![
            words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            vec![0; out_len],
        ],
        ..Resources::default()
    };
    let (machine, vulkan) = run_both(dev, &shader, groups, false, fresh);
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    let mut differ: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for i in 0..out_len / 4 {
        let (m, v) = (word(&machine.buffers[1], i), word(&vulkan.buffers[1], i));
        if m != v {
            let (t, k) = (i / per_thread, i % per_thread / words_out as usize);
            let input = &words[t * words_in as usize..(t + 1) * words_in as usize];
            differ.entry(ops[k]).or_default().push(format!(
                "in {input:08x?} word {}: machine {m:#010x}, {} {v:#010x}",
                i % words_out as usize,
                dev.name()
            ));
        }
    }
    differ
        .iter()
        .map(|(op, d)| format!("{op}: {} differ, e.g. {}", d.len(), d[0]))
        .collect()
}

#[test]
fn exact_operations_agree_bit_for_bit_with_the_machine() {
    let Some(dev) = device() else { return };
    let special: Vec<u64> = [
        0,
        0x8000_0000,
        1.0f32.to_bits(),
        (-1.0f32).to_bits(),
        0.5f32.to_bits(),
        1.5f32.to_bits(),
        2.5f32.to_bits(),
        (-2.5f32).to_bits(),
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0000,
        0xff80_0000,
        1,
        0x807f_ffff,
        0x7f7f_ffff,
        2147483648.0f32.to_bits(),
        (-2147483648.0f32).to_bits(),
        4294967296.0f32.to_bits(),
        3.0e9f32.to_bits(),
        0xffff_ffff,
        7,
        33,
        // exponents of LDEXP: underflow to the last denormal and past it,
        // and the largest finite scale
        (-150i32) as u32,
        (-126i32) as u32,
        127,
    ]
    .map(u64::from)
    .to_vec();
    let words = inputs(&special, 2, 16 * 64);
    let report = differences(&dev, OPS, &words, 2, 1);
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// The doubles and 64-bit integers: every 64-bit opcode whose result
/// Vulkan defines exactly (all but DFMA) agrees bit for bit.
#[test]
fn exact_64_bit_operations_agree_bit_for_bit_with_the_machine() {
    let Some(dev) = device() else { return };
    let special: Vec<u64> = [
        0.0f64,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        -2.5,
        1.0 / 3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        2147483648.5,
        -2147483649.0,
        4294967296.0,
        9223372036854775808.0,
        -9223372036854775808.0,
        18446744073709551616.0,
        1e300,
    ]
    .map(f64::to_bits)
    .into_iter()
    .chain([
        0x7ff8_0000_0000_0000,
        0xfff8_0000_0000_0001,
        1,
        63,
        64,
        u64::MAX,
        1 << 63,
        // exponents of DLDEXP (the low word): into and past the
        // denormals, to the largest and past it
        (-1074i32) as u32 as u64,
        (-1080i32) as u32 as u64,
        (-1023i32) as u32 as u64,
        1023,
        2000,
    ])
    .collect();
    let words = inputs(&special, 4, 24 * 64);
    let report = differences(&dev, OPS64, &words, 4, 2);
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn the_collatz_example_runs_the_same_on_the_device() {
    let Some(dev) = device() else { return };
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/collatz.tgsi"
    ))
    .unwrap();
    let (shader, _) = tgsi::assemble(&text).unwrap();
    let fresh = || Resources {
        buffers: vec![vec![0; 128]],
        ..Resources::default()
    };
    let (machine, vulkan) = run_both(&dev, &shader, 2, false, fresh);
    assert_eq!(machine.buffers, vulkan.buffers);
    assert_eq!(
        &machine.buffers[0][4..8],
        &[1, 0, 0, 0],
        "n = 2 takes one step"
    );
}

/// RSQ, SQRT and LG2 at and below zero, where GLSL leaves its functions
/// undefined: the translation selects the machine's IEEE results (NaN
/// below zero; ±inf, ±0 and -inf at ±0), and agrees at the exact points
/// above (two NaNs agree: Vulkan leaves a NaN's bits open).
#[test]
fn square_roots_and_logarithms_at_and_below_zero_are_the_machines() {
    let Some(dev) = device() else { return };
    let text = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL BUFFER[0]\n\
                DCL BUFFER[1]\nDCL TEMP[0..2]\nIMM[0] UINT32 {4, 12, 0, 0}\n\
                UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
                LOAD TEMP[1].x, BUFFER[0], TEMP[0].xxxx\n\
                UMUL TEMP[0].y, SV[0].xxxx, IMM[0].yyyy\n\
                RSQ TEMP[2].x, TEMP[1].xxxx\nSQRT TEMP[2].y, TEMP[1].xxxx\n\
                LG2 TEMP[2].z, TEMP[1].xxxx\n\
                STORE BUFFER[1].xyz, TEMP[0].yyyy, TEMP[2]\nEND\n";
    let (shader, _) = tgsi::assemble(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
    let inputs: [f32; 16] = [
        0.0,
        -0.0,
        -1.0,
        -4.0,
        f32::NEG_INFINITY,
        f32::INFINITY,
        f32::NAN,
        1.0,
        4.0,
        16.0,
        0.25,
        -1e-30,
        f32::MIN,
        -0.5,
        64.0,
        1.0,
    ];
    let fresh = || Resources {
        buffers: vec![
            inputs.iter().flat_map(|f| f.to_le_bytes()).collect(),
            vec![0; 16 * 12],
        ],
        ..Resources::default()
    };
    let (machine, vulkan) = run_both(&dev, &shader, 1, false, fresh);
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    for i in 0..48 {
        let (m, v) = (word(&machine.buffers[1], i), word(&vulkan.buffers[1], i));
        let nan = |w: u32| f32::from_bits(w).is_nan();
        assert!(
            m == v || nan(m) && nan(v),
            "{} of {}: machine {m:#010x}, device {v:#010x}",
            ["RSQ", "SQRT", "LG2"][i % 3],
            inputs[i / 3]
        );
    }
}

/// `tgsi test --engine vulkan` over the repository's `.shader_test` suite:
/// nothing fails on the device, some tests run there, and every test the
/// Vulkan engine cannot run is skipped as "not runnable on Vulkan" with
/// its reason (the machine runs and passes all of them).
#[test]
fn the_shader_test_suite_passes_on_the_device() {
    use tgsi::shader_test::{RunConfig, run_paths};
    let Some(dev) = device() else { return };
    let config = RunConfig {
        verbose: true,
        vulkan: Some(tgsi::shader_test::test_device(dev)),
        ..RunConfig::default()
    };
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shader");
    let mut out = Vec::new();
    let summary = run_paths(&[dir], &config, &mut out);
    let report = String::from_utf8_lossy(&out);
    println!("{report}");
    assert_eq!(summary.failed, 0, "{report}");
    assert!(
        summary.passed >= 50,
        "only {} ran on the device",
        summary.passed
    );
    for line in report.lines().filter(|l| l.contains(": skipped: ")) {
        assert!(
            line.contains(": not runnable on Vulkan: "),
            "a skip without the Vulkan reason: {line}"
        );
    }
}

/// A one-thread compute test of `code` (after the declarations of
/// `SVIEW[0]`, 2D float, `SAMP[0]` and `BUFFER[0]`), with texture 0 and
/// sampler 0 given by the section lines `texture` and `sampler`, a buffer
/// of `bytes` and the `probes` after one dispatch.
fn texture_test(code: &str, texture: &str, sampler: &str, bytes: u32, probes: &str) -> String {
    format!(
        "[compute shader]\nCOMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
         PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SVIEW[0], 2D, FLOAT\nDCL SAMP[0]\nDCL BUFFER[0]\n\
         {code}END\n\n[texture 0]\ntarget 2d\n{texture}\n[sampler 0]\n{sampler}\n\
         [buffer 0]\nsize {bytes}\n\n[test]\ndispatch 1 1 1\n{probes}\n"
    )
}

/// `tgsi test`'s configuration for the Vulkan device (None without one).
fn device_config() -> Option<tgsi::shader_test::RunConfig> {
    Some(tgsi::shader_test::RunConfig {
        vulkan: Some(tgsi::shader_test::test_device(device()?)),
        ..Default::default()
    })
}

/// The outcome of the last test of `text` with `config`.
fn outcome_of(text: &str, config: &tgsi::shader_test::RunConfig) -> tgsi::shader_test::Outcome {
    let report = tgsi::shader_test::run_source("t.shader_test", text, config);
    report.results.last().expect("a test").outcome.clone()
}

/// A test reading a 2-texel RGBA8 row (black, then white with blue 0)
/// with one linear sampler 1/3 of the way between the texel centres (`wx`
/// 1/3), probing the value `probe` expects.
fn linear_sample_test(probe: &str) -> String {
    texture_test(
        "DCL TEMP[0]\nIMM[0] FLT32 {0.41666666, 0.5, 0.0, 0.0}\nIMM[1] UINT32 {0, 0, 0, 0}\n\
         SAMPLE_L TEMP[0], IMM[0], SVIEW[0], SAMP[0], IMM[1].xxxx\n\
         STORE BUFFER[0].xyzw, IMM[1].xxxx, TEMP[0]\n",
        "format rgba8\nsize (2, 1)\nuint 0 0 0 255 255 255 0 255\n",
        "filter linear linear none\naddress clamp clamp clamp\n",
        16,
        probe,
    )
}

/// Tests that filter linearly run on the device the device's way: they
/// pass when their probes hold within the contract's tolerances, and a
/// probe that then differs makes the test not runnable on Vulkan, naming
/// the sampler and the difference, never failed (the machine fails it).
#[test]
fn linearly_filtered_tests_are_judged_by_their_probes() {
    use tgsi::shader_test::{Outcome, RunConfig};
    let Some(device) = device_config() else {
        return;
    };
    let machine = RunConfig::default();
    let outcome = |config: &RunConfig, probe: &str| outcome_of(&linear_sample_test(probe), config);
    // a third of the way from black to white, within the tolerance of 8-bit
    // weights (85/256 and 86/256 are 3.9e-3 away)
    let near = "probe buffer 0 float 0 (0.33333334, 0.33333334, 0, 1) ulp 300000";
    assert_eq!(outcome(&device, near), Outcome::Passed);
    assert_eq!(outcome(&machine, near), Outcome::Passed);
    // a value neither gives
    let wrong = "probe buffer 0 float 0 (0.3, 0.3, 0, 1)";
    match outcome(&device, wrong) {
        Outcome::Skipped(why) => {
            assert!(
                why.starts_with("not runnable on Vulkan: SAMP[0] filters linearly"),
                "{why}"
            );
            assert!(
                why.contains("probe failed: expected (0.3, 0.3, 0.0, 1.0)"),
                "{why}"
            );
        }
        other => panic!("not reported as sampled the device's way: {other:?}"),
    }
    assert!(matches!(outcome(&machine, wrong), Outcome::Failed(_)));
}

/// GATHER4 takes its view operand's swizzle on the device as on the
/// machine (nearest sampling: nothing here is the device's to choose).
#[test]
fn gather_results_take_the_view_swizzle() {
    use tgsi::shader_test::Outcome;
    let Some(config) = device_config() else {
        return;
    };
    let test = texture_test(
        "DCL TEMP[0..1]\nIMM[0] FLT32 {0.5, 0.5, 0.0, 0.0}\nIMM[1] UINT32 {0, 16, 0, 0}\n\
         GATHER4 TEMP[0], IMM[0], SVIEW[0].wzyx, SAMP[0].xxxx\n\
         GATHER4 TEMP[1], IMM[0], SVIEW[0].yyxw, SAMP[0].xxxx\n\
         STORE BUFFER[0].xyzw, IMM[1].xxxx, TEMP[0]\n\
         STORE BUFFER[0].xyzw, IMM[1].yyyy, TEMP[1]\n",
        "format r32f\nsize (2, 2)\n1.0 2.0\n3.0 4.0\n",
        "filter nearest nearest none\n",
        32,
        "probe buffer 0 float 0 (1, 2, 4, 3)\nprobe buffer 0 float 16 (4, 4, 3, 1)",
    );
    assert_eq!(outcome_of(&test, &config), Outcome::Passed);
}

/// A constant buffer chosen at run time (`CONST[ADDR[0].x][k]`, an index
/// per thread, some past the declared buffers) and an indirect immediate
/// read the machine's words on the device.
#[test]
fn indirect_constant_buffers_and_immediates_read_the_machines_words() {
    let Some(dev) = device() else { return };
    let text = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 8\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL BUFFER[0]\n\
                DCL CONST[0][0..1]\nDCL CONST[1][0..1]\nDCL CONST[2][0..1]\nDCL ADDR[0]\n\
                DCL TEMP[0..1]\nIMM[0] UINT32 {32, 3, 0, 0}\nIMM[1] UINT32 {7, 8, 9, 10}\n\
                IMM[2] UINT32 {11, 12, 13, 14}\nIMM[3] UINT32 {16, 0, 0, 0}\n\
                UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
                UARL ADDR[0].x, SV[0].xxxx\n\
                MOV TEMP[1], CONST[ADDR[0].x][1]\n\
                STORE BUFFER[0], TEMP[0].xxxx, TEMP[1]\n\
                UADD TEMP[0].x, TEMP[0].xxxx, IMM[3].xxxx\n\
                MOV TEMP[1], IMM[ADDR[0].x-1]\n\
                STORE BUFFER[0], TEMP[0].xxxx, TEMP[1]\n\
                END\n";
    let (shader, _) = tgsi::assemble(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
    let fresh = || Resources {
        constants: (0..3u32)
            .map(|b| (0..8).map(|w| 100 * b + w).collect())
            .collect(),
        buffers: vec![vec![0; 8 * 32]],
        ..Resources::default()
    };
    let (machine, vulkan) = run_both(&dev, &shader, 1, false, fresh);
    assert_eq!(machine.buffers, vulkan.buffers);
    let word =
        |i: usize| u32::from_le_bytes(machine.buffers[0][4 * i..4 * i + 4].try_into().unwrap());
    // thread 1 reads buffer 1's slot 1 (words 4..8) and IMM[0]; thread 2
    // IMM[1]; thread 5 zeros from both (no buffer 5, no IMM[4])
    assert_eq!(word(8), 104);
    assert_eq!(word(8 + 4), 32);
    assert_eq!(word(2 * 8 + 4), 7);
    assert_eq!(word(5 * 8), 0);
    assert_eq!(word(5 * 8 + 4), 0);
}

/// Loads and stores whose later channels' addresses would pass 2^32 are
/// out of range on the device as on the machine (they do not wrap onto the
/// start of the buffer), aligned or not.
#[test]
fn addresses_past_four_gibibytes_do_not_wrap() {
    let Some(dev) = device() else { return };
    let text = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0]\n\
                IMM[0] UINT32 {4294967292, 4294967288, 4294967295, 16}\n\
                IMM[1] UINT32 {287454020, 1432778632, 2578103244, 3723427856}\n\
                STORE BUFFER[0].xyzw, IMM[0].xxxx, IMM[1]\n\
                STORE BUFFER[0].xyzw, IMM[0].yyyy, IMM[1]\n\
                STORE BUFFER[0].xyzw, IMM[0].zzzz, IMM[1]\n\
                LOAD TEMP[0], BUFFER[0], IMM[0].xxxx\n\
                STORE BUFFER[1].xyzw, IMM[0].wwww, TEMP[0]\n\
                LOAD TEMP[0], BUFFER[0], IMM[0].zzzz\n\
                STORE BUFFER[1].xyzw, IMM[0].wwww, TEMP[0]\n\
                END\n";
    let (shader, _) = tgsi::assemble(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
    let fresh = || Resources {
        buffers: vec![(1..=16u8).collect(), vec![0xee; 32]],
        ..Resources::default()
    };
    let (machine, vulkan) = run_both(&dev, &shader, 1, false, fresh);
    assert_eq!(machine.buffers, vulkan.buffers);
    assert_eq!(
        machine.buffers[0],
        (1..=16u8).collect::<Vec<u8>>(),
        "nothing written"
    );
    assert_eq!(machine.buffers[1][16..], [0; 16], "zeros read");
}

/// Under Direct3D's rules a sum whose result is a denormal is flushed to a
/// zero of its sign, and an exact zero sum takes IEEE's sign (-0 only from
/// two -0 operands): both on the device as on the machine.
#[test]
fn zero_sums_keep_the_machines_signs_under_both_rules() {
    let Some(dev) = device() else { return };
    let text = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL CONST[0][0..1]\n\
                DCL TEMP[0]\nIMM[0] UINT32 {0, 0, 0, 0}\n\
                ADD TEMP[0], CONST[0][0], CONST[0][1]\n\
                STORE BUFFER[0], IMM[0].xxxx, TEMP[0]\nEND\n";
    let (shader, _) = tgsi::assemble(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
    // (-1.5e-38 + 1.2e-38: a denormal), (-0 + -0), (-0 + 0), (3 + -3)
    let a = [
        (-1.5e-38f32).to_bits(),
        0x8000_0000,
        0x8000_0000,
        3f32.to_bits(),
    ];
    let b = [1.2e-38f32.to_bits(), 0x8000_0000, 0, (-3f32).to_bits()];
    for direct3d in [false, true] {
        let fresh = || Resources {
            constants: vec![a.iter().chain(&b).copied().collect()],
            buffers: vec![vec![0; 16]],
            ..Resources::default()
        };
        let (machine, vulkan) = run_both(&dev, &shader, 1, direct3d, fresh);
        let words = |b: &[u8]| -> Vec<u32> {
            b.chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        let (m, v) = (words(&machine.buffers[0]), words(&vulkan.buffers[0]));
        // the exact zero sums: -0, +0, +0 on both
        assert_eq!(
            &m[1..],
            &[0x8000_0000, 0, 0],
            "machine, direct3d {direct3d}"
        );
        if direct3d {
            assert_eq!(m[0], 0x8000_0000, "the flushed denormal keeps its sign");
            assert_eq!(m, v, "direct3d {direct3d}");
        } else {
            // IEEE keeps the denormal; lavapipe may flush it (no
            // denormal mode), so only its sign is compared
            assert_eq!(m[0] >> 31, v[0] >> 31);
            assert_eq!(&m[1..], &v[1..]);
        }
    }
}

/// TXF's texel offsets from a register (each invocation's own) move the
/// address on the device as on the machine, out of the texture included.
#[test]
fn fetches_take_texel_offsets_from_a_register() {
    use tgsi::shader_test::{Outcome, RunConfig};
    let Some(config) = device_config() else {
        return;
    };
    let test = texture_test(
        "DCL TEMP[0..2]\nIMM[0] UINT32 {0, 0, 0, 0}\nIMM[1] INT32 {1, 1, 0, 0}\n\
         IMM[2] INT32 {1, -1, 0, 0}\nIMM[3] UINT32 {0, 1, 0, 16}\n\
         MOV TEMP[0], IMM[1]\n\
         TXF TEMP[1], IMM[0], SAMP[0], 2D, TEMP[0].xyz\n\
         MOV TEMP[0], IMM[2]\n\
         TXF TEMP[2], IMM[3].yxxx, SAMP[0], 2D, TEMP[0].xyz\n\
         MOV TEMP[1].y, TEMP[2].xxxx\n\
         TXF TEMP[2], IMM[3].yxxx, SAMP[0], 2D, TEMP[0].yxz\n\
         MOV TEMP[1].z, TEMP[2].xxxx\n\
         STORE BUFFER[0].xyzw, IMM[3].xxxx, TEMP[1]\n",
        "format r32f\nsize (2, 2)\n1.0 2.0\n3.0 4.0\n",
        "filter nearest nearest none\n",
        16,
        // (0,0)+(1,1) = 4; (1,0)+(1,-1) is outside: 0; (1,0)+(-1,1) = 3
        "probe buffer 0 float 0 (4, 0, 3, 1)",
    );
    assert_eq!(outcome_of(&test, &RunConfig::default()), Outcome::Passed);
    assert_eq!(outcome_of(&test, &config), Outcome::Passed);
}
