//! `tgsi fuzz --vulkan`: random compute shaders of exact operations (no
//! transcendental functions, no DFMA, no inter-lane opcodes, no random
//! memory traffic whose order between invocations a device may change),
//! translated to SPIR-V and run on a Vulkan device against the
//! interpreter, every output word compared (two NaNs agree, floats or
//! doubles in a channel pair: Vulkan leaves a NaN result's sign and
//! payload open). Cases the translator refuses,
//! and cases the machine stops at its instruction budget (a device has
//! none), are counted apart.

use super::fuzz::{Case, Outcome, Verdict, generate_with, pool, run_engine};
use std::fmt::Write;
use tgsi_exec::Numerics;
use tgsi_ir::opcode::Opcode;
use tgsi_jit::Engine;
use tgsi_vulkan::{Device, Dispatch};

/// The opcodes whose results a Vulkan device must give bit for bit.
pub fn exact_pool() -> Vec<Opcode> {
    const DEVICE_PRECISION: &[&str] = &[
        "SIN", "COS", "EX2", "LG2", "POW", "RSQ", "SQRT", "EXP", "LOG", "LIT", "DST", "RCP", "FMA",
        "DFMA",
    ];
    pool()
        .into_iter()
        .filter(|op| {
            let info = op.info();
            !DEVICE_PRECISION.contains(&info.name)
                && info.category != tgsi_ir::opcode::Category::InterLane
        })
        .collect()
}

/// The case `seed` of the Vulkan fuzzer.
pub fn generate(seed: u64) -> Case {
    generate_with(seed, &exact_pool(), false)
}

/// Runs case `seed` on the interpreter and on `device`; compares the output.
pub fn check(device: &Device, seed: u64) -> Verdict {
    check_case(device, generate(seed), seed)
}

/// Runs `text` with the inputs of case `seed` (to reduce a finding).
pub fn check_text(device: &Device, text: &str, seed: u64) -> Verdict {
    let mut case = generate(seed);
    case.text = text.to_string();
    check_case(device, case, seed)
}

fn check_case(device: &Device, case: Case, seed: u64) -> Verdict {
    let shader = match crate::fuzz::assembled(&case) {
        Ok(shader) => shader,
        Err(invalid) => return invalid,
    };
    let (want, _) = run_engine(&case, &shader, Engine::Interp);
    if let Err(e) = &want.run {
        return Verdict::NotCompiled(format!("the machine stops: {e}"));
    }
    let got = match run_device(device, &case, &shader) {
        Ok(g) => g,
        Err(e) => return Verdict::NotCompiled(e),
    };
    compare(&case, &want, &got, seed, device.name())
}

fn run_device(
    device: &Device,
    case: &Case,
    shader: &tgsi_ir::ir::Shader,
) -> Result<Vec<Vec<u8>>, String> {
    let n = (case.groups * super::fuzz::BLOCK) as usize;
    let mut res = tgsi_exec::Resources {
        constants: vec![case.consts.clone()],
        buffers: vec![
            case.input.iter().flat_map(|w| w.to_le_bytes()).collect(),
            vec![0; n * super::fuzz::OUT_WORDS as usize * 4],
            (0..160u32).flat_map(|w| w.to_le_bytes()).collect(),
        ],
        ..tgsi_exec::Resources::default()
    };
    let d = Dispatch {
        shader,
        direct3d: case.numerics == Numerics::Direct3D,
        groups: [case.groups, 1, 1],
        timeout_ms: 20_000,
    };
    device.dispatch(&d, &mut res).map_err(|e| e.to_string())?;
    Ok(res.buffers)
}

fn compare(case: &Case, want: &Outcome, got: &[Vec<u8>], seed: u64, name: &str) -> Verdict {
    let words = |v: &[u8]| -> Vec<u32> {
        v.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let (a, b) = (words(&want.buffers[1]), words(&got[1]));
    // Vulkan leaves the sign and payload of a NaN result open (the machine
    // has one rule: docs/numerics.md): two NaNs agree, and two double NaNs
    // in a channel pair (xy or zw: an even word and the next) agree word
    // for word
    let nan = |w: u32| f32::from_bits(w).is_nan();
    // (a high word of all ones is a comparison's mask far more often than
    // a NaN's: no tolerance there)
    let double_nan = |v: &[u32], i: usize| {
        let lo = v.get(i & !1).copied().unwrap_or(0) as u64;
        let hi = v.get(i | 1).copied().unwrap_or(0) as u64;
        hi != 0xffff_ffff && f64::from_bits(hi << 32 | lo).is_nan()
    };
    let agree = |i: usize| {
        a[i] == b[i] || (nan(a[i]) && nan(b[i])) || (double_nan(&a, i) && double_nan(&b, i))
    };
    let Some(i) = (0..a.len()).find(|&i| !agree(i)) else {
        return Verdict::Same;
    };
    let out = super::fuzz::OUT_WORDS as usize;
    let mut d = format!("seed {seed:#x}: the machine and {name} differ\n");
    let _ = writeln!(
        d,
        "BUFFER[1] word {i}: machine {:#010x}, device {:#010x} (invocation {}, temp {}, channel {}; the channel pair's words: machine {:08x?}, device {:08x?})",
        a[i],
        b[i],
        i / out,
        (i % out) / 4,
        i % 4,
        &a[i & !1..(i | 1) + 1],
        &b[i & !1..(i | 1) + 1]
    );
    d.push_str(&case.text);
    Verdict::Differ(d)
}
