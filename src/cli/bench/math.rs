//! `tgsi bench ulp` and `tgsi bench math`: the accuracy and the speed of the
//! machine's transcendental kernels (`tgsi::exec::math`).
//!
//! * `ulp` runs every one of the 2^32 f32 inputs through SIN, COS, EX2 and LG2
//!   (16-lane rows, the way the machine calls them) and a deterministic
//!   sample of (x, y) pairs through POW, against the `libm` crate's f64
//!   functions, and prints the largest error in ulps, where it happens, how
//!   many results are not the correctly rounded f32, and every special value
//!   that differs from the documented one. Where the AVX-512 builds of the
//!   kernels run, every row also goes through the portable build, and every
//!   result whose bits differ is counted (the run fails on any).
//! * `math` times each kernel over rows of 16 lanes: nanoseconds per lane,
//!   beside the frozen reference kernels of `benches/baseline/math.rs` (the
//!   earlier all-f64 kernels) and the speed-up, with one call per row
//!   and (SIN, COS) with one call for all the rows.
//!
//! The reference: `libm`'s f64 `sin`, `cos`, `exp2`, `log2` and `pow` are
//! within one f64 ulp (relative error ≤ 2^-52) of the exact value, 2^29
//! times finer than an f32 ulp, so the errors printed are exact to about
//! 10^-8 ulp. Whether a result is the correctly rounded one is decided by
//! rounding the f64 reference to f32; where the reference lies within
//! 2^-50 (relative) of the midpoint between two f32 values that rounding is
//! not trustworthy, and those inputs are counted apart ("undecided").

use anyhow::{Result, bail};
use rayon::prelude::*;
use std::process::ExitCode;
use std::time::Instant;
use tgsi::exec::math;
use tgsi::rng::{Rng, edge_f32_and};

/// The frozen reference kernels (the earlier all-f64 kernels, `math.rs` at
/// commit 6248a72) `bench math` compares against.
#[path = "../../../benches/baseline/math.rs"]
mod baseline;

/// The kernels `bench ulp` and `bench math` measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MathFunc {
    Sin,
    Cos,
    Ex2,
    Lg2,
    Pow,
    All,
}

impl MathFunc {
    /// The single functions `self` names (`All`: every one).
    fn expand(self) -> Vec<MathFunc> {
        match self {
            MathFunc::All => vec![
                MathFunc::Sin,
                MathFunc::Cos,
                MathFunc::Ex2,
                MathFunc::Lg2,
                MathFunc::Pow,
            ],
            f => vec![f],
        }
    }

    fn name(self) -> &'static str {
        match self {
            MathFunc::Sin => "SIN",
            MathFunc::Cos => "COS",
            MathFunc::Ex2 => "EX2",
            MathFunc::Lg2 => "LG2",
            MathFunc::Pow => "POW",
            MathFunc::All => "all",
        }
    }
}

const LANES: usize = 16;
type Row = [u32; LANES];

/// A unary row kernel.
type UnaryKernel = fn(&Row, &mut Row);

/// The machine's kernel for a unary function, over one row, and its
/// portable build (the same function where the CPU lacks AVX-512).
fn unary_kernel(f: MathFunc) -> (UnaryKernel, UnaryKernel) {
    match f {
        MathFunc::Sin => (math::sin_lanes, math::sin_lanes_portable),
        MathFunc::Cos => (math::cos_lanes, math::cos_lanes_portable),
        MathFunc::Ex2 => (math::ex2_lanes, math::ex2_lanes_portable),
        _ => (math::lg2_lanes, math::lg2_lanes_portable),
    }
}

/// The f64 reference of a unary function.
fn unary_reference(f: MathFunc) -> fn(f64) -> f64 {
    match f {
        MathFunc::Sin => libm::sin,
        MathFunc::Cos => libm::cos,
        MathFunc::Ex2 => libm::exp2,
        _ => libm::log2,
    }
}

/// The NaN invalid operations give (documented in `docs/numerics.md`).
const INVALID_NAN: u32 = 0xffc0_0000;

/// The documented result when it is not a finite nonzero number: a NaN
/// input made quiet, [`INVALID_NAN`] for an invalid operation, otherwise the
/// reference's infinity or zero exactly. `None` for ordinary results.
fn exact_special(inputs_nan: Option<u32>, reference: f64) -> Option<u32> {
    if let Some(bits) = inputs_nan {
        return Some(bits | 0x0040_0000);
    }
    if reference.is_nan() {
        return Some(INVALID_NAN);
    }
    if reference.is_infinite() || reference == 0.0 {
        return Some((reference as f32).to_bits());
    }
    None
}

use tgsi::exec::math::ulp_error;

/// True when rounding the f64 reference to f32 cannot be trusted: it lies
/// within 2^-50 (relative) of the midpoint between two f32 values.
fn undecided(want: f64) -> bool {
    let r = want as f32;
    if r.is_infinite() {
        return false;
    }
    let neighbour = if (r as f64) < want {
        r.next_up()
    } else {
        r.next_down()
    };
    let mid = (r as f64 + neighbour as f64) * 0.5;
    (want - mid).abs() <= want.abs() * 2f64.powi(-50)
}

/// What one pass over a set of inputs found.
#[derive(Clone, Debug, Default)]
struct Tally {
    inputs: u64,
    max_error: f64,
    /// (x, y) bits where `max_error` occurs (y unused for unary functions)
    worst: (u32, u32),
    not_correctly_rounded: u64,
    undecided: u64,
    special_mismatches: u64,
    /// (x, y, got, want) of the first special-value mismatch
    first_mismatch: Option<(u32, u32, u32, u32)>,
    /// results where the portable build of the kernel gives other bits
    /// (0 unless the AVX-512 build runs: then it is what was scored)
    build_mismatches: u64,
    /// (x, y) of the first of them
    first_build_mismatch: Option<(u32, u32)>,
}

impl Tally {
    /// Scores one result. `nan_input` is the bits of the NaN the documented
    /// result propagates, if any.
    fn add(&mut self, x: u32, y: u32, got: u32, want: f64, nan_input: Option<u32>) {
        self.inputs += 1;
        if let Some(expected) = exact_special(nan_input, want) {
            if got != expected {
                self.special_mismatches += 1;
                self.first_mismatch.get_or_insert((x, y, got, expected));
            }
            return;
        }
        let g = f32::from_bits(got);
        let e = ulp_error(g, want);
        if e > self.max_error {
            self.max_error = e;
            self.worst = (x, y);
        }
        if undecided(want) {
            self.undecided += 1;
        } else if got != (want as f32).to_bits() {
            self.not_correctly_rounded += 1;
        }
    }

    fn merge(mut self, o: Tally) -> Tally {
        self.inputs += o.inputs;
        if o.max_error > self.max_error {
            self.max_error = o.max_error;
            self.worst = o.worst;
        }
        self.not_correctly_rounded += o.not_correctly_rounded;
        self.undecided += o.undecided;
        self.special_mismatches += o.special_mismatches;
        if self.first_mismatch.is_none() {
            self.first_mismatch = o.first_mismatch;
        }
        self.build_mismatches += o.build_mismatches;
        if self.first_build_mismatch.is_none() {
            self.first_build_mismatch = o.first_build_mismatch;
        }
        self
    }

    /// Counts the lanes where the portable build's row `portable` differs
    /// from the scored row `out`.
    fn compare_builds(&mut self, x: &Row, y: &Row, out: &Row, portable: &Row) {
        for l in 0..LANES {
            if out[l] != portable[l] {
                self.build_mismatches += 1;
                self.first_build_mismatch.get_or_insert((x[l], y[l]));
            }
        }
    }
}

/// Every f32 bit pattern from `start` (a multiple of 16) for `rows` rows.
fn unary_block(f: MathFunc, start: u64, rows: u64) -> Tally {
    let (kernel, portable) = unary_kernel(f);
    let wide = math::wide_kernels();
    let reference = unary_reference(f);
    let mut tally = Tally::default();
    let (mut out, mut port) = ([0u32; LANES], [0u32; LANES]);
    for r in 0..rows {
        let base = start + r * LANES as u64;
        let x: Row = std::array::from_fn(|l| (base + l as u64) as u32);
        kernel(&x, &mut out);
        if wide {
            portable(&x, &mut port);
            tally.compare_builds(&x, &[0; LANES], &out, &port);
        }
        for l in 0..LANES {
            let v = f32::from_bits(x[l]);
            let nan = v.is_nan().then_some(x[l]);
            tally.add(x[l], 0, out[l], reference(v as f64), nan);
        }
    }
    tally
}

fn print_tally(f: MathFunc, t: &Tally, seconds: f64) {
    let (wx, wy) = t.worst;
    let at = if f == MathFunc::Pow {
        format!(
            "x = {:e} [{wx:#010x}], y = {:e} [{wy:#010x}]",
            f32::from_bits(wx),
            f32::from_bits(wy)
        )
    } else {
        format!("x = {:e} [{wx:#010x}]", f32::from_bits(wx))
    };
    println!(
        "{}: {} inputs, max error {:.4} ulp at {at}; {} not correctly rounded ({:.4}%), {} undecided; special-value mismatches: {} ({:.1} s)",
        f.name(),
        t.inputs,
        t.max_error,
        t.not_correctly_rounded,
        100.0 * t.not_correctly_rounded as f64 / t.inputs.max(1) as f64,
        t.undecided,
        t.special_mismatches,
        seconds
    );
    if math::wide_kernels() {
        print!(
            "  AVX-512 build against the portable build: {} differing results",
            t.build_mismatches
        );
        match t.first_build_mismatch {
            Some((x, y)) => println!(" (first at x {x:#010x}, y {y:#010x})"),
            None => println!(),
        }
    }
    if let Some((x, y, got, want)) = t.first_mismatch {
        println!(
            "  first mismatch: x {x:#010x}, y {y:#010x}: got {got:#010x}, documented {want:#010x}"
        );
    }
}

/// Special and edge operands every POW run pairs with each other.
const POW_EDGES: [u32; 30] = edge_f32_and([
    0xff7f_ffff,
    0x3f00_0000,
    0xbf00_0000,
    0x4000_0000,
    0xc000_0000,
    0x4040_0000,
    0xc040_0000,
    0x3fc0_0000,
    0xbfc0_0000,
    0x4b80_0000,
    0x4b80_0001,
    0xcb00_0001,
    0x3f7f_ffff,
    0x3f80_0001,
    0x42fe_0000,
]);

/// The POW sample: row `i` of 16 pairs, in one of six families chosen by
/// `i % 6` (each row from its own seed, so any thread can make any row):
/// 0: x any positive finite f32 (every binade, subnormals), y such that
/// y·log2(x) is uniform in [-160, 140] (the whole result range, overflow and
/// underflow included); 1: x uniform in (0, 64), y uniform in [-24, 24];
/// 2: x = 1 ± up to 2^16 ulps, |y| up to 2^24 (tiny logarithms times huge
/// exponents, the hardest case for the precision of y·log2(x)); 3: x
/// negative, any magnitude, y an integer (odd and even) in range; 4: x any
/// bit pattern, y any bit pattern (every special class); 5: pairs of
/// [`POW_EDGES`], small integers and halves.
fn pow_row(i: u64) -> (Row, Row) {
    let mut rng = Rng(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    rng.next();
    let mut x = [0u32; LANES];
    let mut y = [0u32; LANES];
    for l in 0..LANES {
        let (a, b): (f32, f32) = match i % 6 {
            0 => {
                let a = f32::from_bits((rng.next() as u32) % 0x7f80_0000 + 1);
                let lg = (a as f64).log2();
                let t = rng.uniform(-160.0, 140.0);
                let b = if lg == 0.0 { t as f32 } else { (t / lg) as f32 };
                (a, b)
            }
            1 => (
                rng.uniform(0.0, 64.0) as f32,
                rng.uniform(-24.0, 24.0) as f32,
            ),
            2 => {
                let d = (rng.next() % (1 << 17)) as i32 - (1 << 16);
                let a = f32::from_bits((0x3f80_0000i32 + d) as u32);
                let b = rng.uniform(-1.0, 1.0) * 2f64.powf(rng.uniform(0.0, 24.0));
                (a, b as f32)
            }
            3 => {
                let a = -f32::from_bits((rng.next() as u32) % 0x7f80_0000 + 1);
                let lg = (-a as f64).log2().abs().max(1e-3);
                let b = (rng.uniform(-140.0, 140.0) / lg).round();
                (a, b.clamp(-1e8, 1e8) as f32)
            }
            4 => (
                f32::from_bits(rng.next() as u32),
                f32::from_bits(rng.next() as u32),
            ),
            _ => {
                let pick = |rng: &mut Rng| {
                    let n = rng.next();
                    match n % 3 {
                        0 => f32::from_bits(POW_EDGES[(n >> 8) as usize % POW_EDGES.len()]),
                        1 => ((n >> 8) % 41) as f32 - 20.0,
                        _ => (((n >> 8) % 81) as f32 - 40.0) * 0.5,
                    }
                };
                (pick(&mut rng), pick(&mut rng))
            }
        };
        x[l] = a.to_bits();
        y[l] = b.to_bits();
    }
    (x, y)
}

/// The NaN POW's documented result propagates: none when the result is 1
/// (`pow(x, ±0)`, `pow(1, y)`), else x's, else y's.
fn pow_nan_input(x: u32, y: u32) -> Option<u32> {
    let (a, b) = (f32::from_bits(x), f32::from_bits(y));
    if b == 0.0 || a == 1.0 {
        return None;
    }
    if a.is_nan() {
        Some(x)
    } else if b.is_nan() {
        Some(y)
    } else {
        None
    }
}

fn pow_block(first_row: u64, rows: u64) -> Tally {
    let wide = math::wide_kernels();
    let mut tally = Tally::default();
    let (mut out, mut port) = ([0u32; LANES], [0u32; LANES]);
    for i in first_row..first_row + rows {
        let (x, y) = pow_row(i);
        math::pow_lanes(&x, &y, &mut out);
        if wide {
            math::pow_lanes_portable(&x, &y, &mut port);
            tally.compare_builds(&x, &y, &out, &port);
        }
        for l in 0..LANES {
            let want = libm::pow(f32::from_bits(x[l]) as f64, f32::from_bits(y[l]) as f64);
            tally.add(x[l], y[l], out[l], want, pow_nan_input(x[l], y[l]));
        }
    }
    tally
}

/// `tgsi bench ulp`: the exhaustive accuracy run.
pub fn ulp(func: MathFunc, threads: usize, pow_log2: u32) -> Result<ExitCode> {
    if !(4..=34).contains(&pow_log2) {
        bail!("--pow-samples must be 4 to 34 (log2 of the number of POW pairs)");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()?;
    println!(
        "reference: libm f64 rounded to f32; {} thread(s)",
        threads.max(1)
    );
    let mut worst = 0.0f64;
    let mut mismatches = 0u64;
    for f in func.expand() {
        let start = Instant::now();
        const BLOCK_ROWS: u64 = 1 << 14;
        let tally = if f == MathFunc::Pow {
            let rows = (1u64 << pow_log2) / LANES as u64;
            let blocks = rows.div_ceil(BLOCK_ROWS);
            pool.install(|| {
                (0..blocks)
                    .into_par_iter()
                    .map(|b| {
                        let first = b * BLOCK_ROWS;
                        pow_block(first, BLOCK_ROWS.min(rows - first))
                    })
                    .reduce(Tally::default, Tally::merge)
            })
        } else {
            let rows = (1u64 << 32) / LANES as u64;
            pool.install(|| {
                (0..rows / BLOCK_ROWS)
                    .into_par_iter()
                    .map(|b| unary_block(f, b * BLOCK_ROWS * LANES as u64, BLOCK_ROWS))
                    .reduce(Tally::default, Tally::merge)
            })
        };
        print_tally(f, &tally, start.elapsed().as_secs_f64());
        worst = worst.max(tally.max_error);
        mismatches += tally.special_mismatches + tally.build_mismatches;
    }
    Ok(if mismatches == 0 && worst <= 1.0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The inputs `bench math` times a function on: `rows` rows of 16 lanes
/// drawn from ranges shaders typically give them (no special values): SIN
/// and COS uniform in [-512, 512], EX2 in [-100, 100], LG2 any positive
/// normal float (every binade), POW x in (0, 100) and y in [-8, 8].
fn speed_inputs(f: MathFunc, rows: usize) -> (Vec<Row>, Vec<Row>) {
    let mut rng = Rng(0x5eed_0000_1234_5678);
    let mut gen_rows = |g: &mut dyn FnMut(&mut Rng) -> f32| -> Vec<Row> {
        (0..rows)
            .map(|_| std::array::from_fn(|_| g(&mut rng).to_bits()))
            .collect()
    };
    match f {
        MathFunc::Sin | MathFunc::Cos => {
            (gen_rows(&mut |r| r.uniform(-512.0, 512.0) as f32), vec![])
        }
        MathFunc::Ex2 => (gen_rows(&mut |r| r.uniform(-100.0, 100.0) as f32), vec![]),
        MathFunc::Lg2 => (
            gen_rows(&mut |r| f32::from_bits((r.next() as u32) % 0x7f00_0000 + 0x0080_0000)),
            vec![],
        ),
        _ => {
            let x = gen_rows(&mut |r| r.uniform(1e-6, 100.0) as f32);
            let y = gen_rows(&mut |r| r.uniform(-8.0, 8.0) as f32);
            (x, y)
        }
    }
}

/// `tgsi bench math`: nanoseconds per lane of each kernel over 16-lane rows,
/// beside the frozen reference kernels ([`baseline`]) timed in the same
/// run (one rep of each in turn, so both see the same load), and the ratio:
/// with one call per row, and for SIN and COS also over all the rows in one
/// call ([`slice_kernels`]: the kernel's own cost, as the compiled engine's
/// inline SIN/COS pays it).
pub fn speed(func: MathFunc, reps: usize) -> Result<ExitCode> {
    if reps == 0 {
        bail!("--reps must be at least 1");
    }
    const ROWS: usize = 1024;
    println!(
        "each timing: 256 passes over {ROWS} rows of 16 lanes (in L1/L2); median of {reps}, \
         the kernels ({}) and the frozen reference kernels of benches/baseline/math.rs in turn",
        if math::wide_kernels() {
            "AVX-512 build"
        } else {
            "portable build"
        }
    );
    for f in func.expand() {
        let (x, y) = speed_inputs(f, ROWS);
        time_rows(f, f.name(), &x, &y, reps);
        if let Some(kernels) = slice_kernels(f) {
            let label = format!("{} (one call for all rows)", f.name());
            time_kernels(kernels, &label, &x, &[], reps);
        }
        if matches!(f, MathFunc::Sin | MathFunc::Cos) {
            // rows of close arguments, as neighbouring pixels give: 16
            // consecutive values 10^-3 apart from a base in [-512, 512]
            let mut rng = Rng(0x0c0f_fee0_1234_5678);
            let close: Vec<Row> = (0..ROWS)
                .map(|_| {
                    let base = rng.uniform(-512.0, 512.0);
                    std::array::from_fn(|l| ((base + l as f64 * 1e-3) as f32).to_bits())
                })
                .collect();
            time_rows(f, &format!("{} (close rows)", f.name()), &close, &[], reps);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A row kernel as `bench math` calls it: unary, or binary (POW), one call
/// per row; or unary over all the rows in one call.
#[derive(Clone, Copy)]
enum RowKernel {
    Unary(UnaryKernel),
    Binary(fn(&Row, &Row, &mut Row)),
    Rows(fn(&[Row], &mut [Row])),
}

/// The reference SIN over many rows: its row function inlined into the loop.
fn baseline_sin_rows(x: &[Row], out: &mut [Row]) {
    for (a, o) in x.iter().zip(out) {
        baseline::sin_lanes(a, o);
    }
}

/// The reference COS over many rows, as [`baseline_sin_rows`].
fn baseline_cos_rows(x: &[Row], out: &mut [Row]) {
    for (a, o) in x.iter().zip(out) {
        baseline::cos_lanes(a, o);
    }
}

/// SIN's and COS's kernels (the machine's, the reference) called once for
/// all the rows, so no call per row is timed: the kernel as an inline
/// template or a batch of rows runs it.
fn slice_kernels(f: MathFunc) -> Option<(RowKernel, RowKernel)> {
    match f {
        MathFunc::Sin => Some((
            RowKernel::Rows(math::sin_rows),
            RowKernel::Rows(baseline_sin_rows),
        )),
        MathFunc::Cos => Some((
            RowKernel::Rows(math::cos_rows),
            RowKernel::Rows(baseline_cos_rows),
        )),
        _ => None,
    }
}

/// The machine's kernel for `f` and the frozen reference one.
fn kernels(f: MathFunc) -> (RowKernel, RowKernel) {
    use RowKernel::{Binary, Unary};
    match f {
        MathFunc::Sin => (Unary(math::sin_lanes), Unary(baseline::sin_lanes)),
        MathFunc::Cos => (Unary(math::cos_lanes), Unary(baseline::cos_lanes)),
        MathFunc::Ex2 => (Unary(math::ex2_lanes), Unary(baseline::ex2_lanes)),
        MathFunc::Lg2 => (Unary(math::lg2_lanes), Unary(baseline::lg2_lanes)),
        _ => (Binary(math::pow_lanes), Binary(baseline::pow_lanes)),
    }
}

/// One timing: 256 passes of `kernel` over the rows (`y` for POW), in ns
/// per lane.
fn time_pass(kernel: RowKernel, x: &[Row], y: &[Row], out: &mut [Row]) -> f64 {
    const PASSES: usize = 256;
    let start = Instant::now();
    for _ in 0..PASSES {
        match kernel {
            RowKernel::Unary(k) => {
                for (a, o) in x.iter().zip(out.iter_mut()) {
                    k(std::hint::black_box(a), o);
                }
            }
            RowKernel::Binary(k) => {
                for ((a, b), o) in x.iter().zip(y).zip(out.iter_mut()) {
                    k(std::hint::black_box(a), std::hint::black_box(b), o);
                }
            }
            RowKernel::Rows(k) => k(std::hint::black_box(x), out),
        }
        std::hint::black_box(&mut *out);
    }
    start.elapsed().as_secs_f64() * 1e9 / (PASSES * x.len() * LANES) as f64
}

/// Median, min and max of timings (sorted in place).
fn spread_of(times: &mut [f64]) -> (f64, f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0], times[times.len() - 1])
}

/// Times the machine's kernel and the reference one for `f` over the rows (`y`
/// for POW), `reps` times each in turn after one warm-up of each, and
/// prints the medians (min, max) in ns per lane and the speed-up of the
/// medians.
fn time_rows(f: MathFunc, label: &str, x: &[Row], y: &[Row], reps: usize) {
    time_kernels(kernels(f), label, x, y, reps)
}

/// [`time_rows`] for a given pair of kernels (the machine's, the reference).
fn time_kernels(kernels: (RowKernel, RowKernel), label: &str, x: &[Row], y: &[Row], reps: usize) {
    let (today, before) = kernels;
    let mut out = vec![[0u32; LANES]; x.len()];
    let (mut t_today, mut t_before) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for rep in 0..reps + 1 {
        let a = time_pass(today, x, y, &mut out);
        let b = time_pass(before, x, y, &mut out);
        if rep > 0 {
            t_today.push(a);
            t_before.push(b);
        }
    }
    let (m, lo, hi) = spread_of(&mut t_today);
    let (mb, lob, hib) = spread_of(&mut t_before);
    println!(
        "{label}: median {m:.3} ns per lane (min {lo:.3}, max {hi:.3}); \
         reference {mb:.3} (min {lob:.3}, max {hib:.3}): {:.2}x",
        mb / m
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_error_counts_in_the_binade_of_the_exact_value() {
        assert_eq!(ulp_error(1.0, 1.0), 0.0);
        assert_eq!(ulp_error(1.0f32.next_up(), 1.0), 1.0);
        // half an ulp below 2.0 in the [1, 2) binade
        assert_eq!(ulp_error(2.0, 2.0 - 2f64.powi(-24)), 0.5);
        // subnormal spacing below 2^-126
        assert_eq!(ulp_error(f32::from_bits(3), 2f64.powi(-149)), 2.0);
        // infinity is the value after f32::MAX
        assert_eq!(ulp_error(f32::INFINITY, f32::MAX as f64), 1.0);
        assert_eq!(ulp_error(f32::INFINITY, 1e39), 0.0);
        assert_eq!(ulp_error(f32::NAN, 1.0), f64::INFINITY);
    }

    #[test]
    fn midpoints_are_undecided() {
        let mid = 1.0 + 2f64.powi(-24);
        assert!(undecided(mid));
        assert!(undecided(mid + 2f64.powi(-52)));
        assert!(!undecided(1.0 + 2f64.powi(-25)));
    }

    #[test]
    fn specials_are_exact_bits() {
        assert_eq!(
            exact_special(Some(0x7f80_0001), f64::NAN),
            Some(0x7fc0_0001)
        );
        assert_eq!(exact_special(None, f64::NAN), Some(INVALID_NAN));
        assert_eq!(exact_special(None, -0.0), Some(0x8000_0000));
        assert_eq!(exact_special(None, f64::INFINITY), Some(0x7f80_0000));
        assert_eq!(exact_special(None, 0.5), None);
        let mut t = Tally::default();
        t.add(0, 0, 0x8000_0000, 0.0, None);
        assert_eq!(t.special_mismatches, 1);
        t.add(0x3f80_0000, 0, 0x3f80_0001, 1.0, None);
        assert_eq!((t.max_error, t.not_correctly_rounded), (1.0, 1));
    }

    #[test]
    fn pow_rows_are_deterministic_and_cover_the_families() {
        assert_eq!(pow_row(7), pow_row(7));
        assert_ne!(pow_row(0).0, pow_row(6).0);
        // family 3: negative x, integer y
        let (x, y) = pow_row(3);
        for l in 0..LANES {
            assert!(f32::from_bits(x[l]) < 0.0);
            let b = f32::from_bits(y[l]);
            assert_eq!(b, b.trunc());
        }
        assert_eq!(pow_nan_input(0x7fc0_0000, 0), None);
        assert_eq!(pow_nan_input(0x7fc0_0000, 0x7fc0_0001), Some(0x7fc0_0000));
        assert_eq!(pow_nan_input(0x4000_0000, 0x7fc0_0001), Some(0x7fc0_0001));
    }
}
