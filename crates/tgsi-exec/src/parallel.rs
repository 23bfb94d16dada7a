//! Running the parts of a stage at once. The calling thread takes the
//! first part itself and the others go to rayon's pool of waiting threads:
//! starting a thread costs 50-90 µs on the 2-core Xeon and EPYC virtual
//! machines measured (a frame of a draw starts nine stages), waking a
//! pool thread much less, and the caller, already running, starts at
//! once instead of sleeping until the others are done. Which part computes what never depends on the thread
//! that runs it, so results are the same for any pool size. Having done
//! its own part, the caller watches for the others' ends for a while
//! before it sleeps: a sleeping caller woken by the last part's end
//! started its next stage 50-100 µs late on the Intel Xeon measured (a
//! draw of a million triangles forks some sixty times). After a stage,
//! as many pool threads as took its parts stay awake a while for the
//! next one (a sleeping one woke 20-40 µs after its part was handed over).

use crate::ExecError;
use std::panic::resume_unwind;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a caller done with its part watches for the others' ends.
const WATCH: Duration = Duration::from_micros(500);

/// How long a pool thread stays awake after a stage for the next one.
const KEEP_WARM: Duration = Duration::from_micros(300);

/// Stages started so far (a pool thread kept awake leaves when it moves).
static STAGES: AtomicUsize = AtomicUsize::new(0);

/// `f(item)` for every item, the first on the calling thread and the
/// others on the pool's threads; the results in item order. A part that
/// panics makes this panic once every part has ended.
pub fn each<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let mut items = items.into_iter();
    let Some(first) = items.next() else {
        return Vec::new();
    };
    let f = &f;
    let others: Vec<T> = items.collect();
    if !others.is_empty() {
        STAGES.fetch_add(1, Ordering::Release);
    }
    let mut slots: Vec<Option<std::thread::Result<R>>> = (0..others.len()).map(|_| None).collect();
    let count = others.len();
    let ended = AtomicUsize::new(0);
    let ended = &ended;
    let first_result = rayon::in_place_scope(|s| {
        for (item, slot) in others.into_iter().zip(slots.iter_mut()) {
            s.spawn(move |_| {
                *slot = Some(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                    || f(item),
                )));
                ended.fetch_add(1, Ordering::Release);
            });
        }
        let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(first)));
        watch_for(|| ended.load(Ordering::Acquire) == count);
        mine
    });
    keep_warm(count);
    let mut results = Vec::with_capacity(slots.len() + 1);
    results.push(first_result.unwrap_or_else(|e| resume_unwind(e)));
    for slot in slots {
        results.push(
            slot.expect("every part ran")
                .unwrap_or_else(|e| resume_unwind(e)),
        );
    }
    results
}

/// Keeps `threads` pool threads awake for the next stage (a sleeping one
/// woke 20-40 µs after its part was handed over): each spins until
/// another stage starts or [`KEEP_WARM`] has passed, then goes back to
/// the pool, where the new stage's part waits for it. Not from a pool
/// thread (an embedder's own parallel work, or a stage inside another):
/// there the spinning job would wait in that thread's own queue.
fn keep_warm(threads: usize) {
    if rayon::current_thread_index().is_some() {
        return;
    }
    let stage = STAGES.load(Ordering::Acquire);
    for _ in 0..threads {
        rayon::spawn(move || {
            spin_until(|| STAGES.load(Ordering::Acquire) != stage, KEEP_WARM, None);
        });
    }
}

/// Spins until `done()` or [`WATCH`] has passed (the scope's own wait
/// follows either way); past its first fifth, offering the core to other
/// threads now and then (where there are more threads than cores, a part
/// may be waiting for it).
fn watch_for(done: impl Fn() -> bool) {
    spin_until(done, WATCH, Some(WATCH / 5));
}

/// Spins until `done()` or `most` has passed, offering the core to other
/// threads now and then once `offer_after` has passed (None: never).
fn spin_until(done: impl Fn() -> bool, most: Duration, offer_after: Option<Duration>) {
    let start = Instant::now();
    let mut spins = 0u32;
    while !done() {
        std::hint::spin_loop();
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(256) {
            let waited = start.elapsed();
            if waited > most {
                return;
            }
            if offer_after.is_some_and(|after| waited > after) {
                std::thread::yield_now();
            }
        }
    }
}

/// `f()`, or the error "a worker thread panicked" when it panics: for a
/// part whose stage reports a failed part as an error rather than
/// panicking the caller.
pub fn caught<R>(f: impl FnOnce() -> R) -> Result<R, ExecError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| ExecError::general("a worker thread panicked"))
}

/// [`each`] over the parts numbered `0..count`.
pub fn parts<R: Send>(count: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    each((0..count).collect(), f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_come_in_item_order_and_the_caller_takes_the_first() {
        let caller = std::thread::current().id();
        let out = each(vec![3, 1, 4, 1, 5], |x| {
            (x * 10, std::thread::current().id())
        });
        let values: Vec<i32> = out.iter().map(|(v, _)| *v).collect();
        assert_eq!(values, vec![30, 10, 40, 10, 50]);
        assert_eq!(out[0].1, caller);
        assert!(out[1..].iter().all(|(_, id)| *id != caller));
        assert!(each(Vec::<u8>::new(), |x| x).is_empty());
    }

    #[test]
    fn every_part_runs_once_and_mutable_shares_stay_apart() {
        let ran = AtomicUsize::new(0);
        let mut cells = vec![0u32; 1000];
        let shares: Vec<&mut [u32]> = cells.chunks_mut(300).collect();
        each(shares, |share| {
            ran.fetch_add(1, Ordering::Relaxed);
            share.iter_mut().for_each(|c| *c += 1);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 4);
        assert!(cells.iter().all(|&c| c == 1));
        assert_eq!(parts(3, |k| k * k), vec![0, 1, 4]);
    }

    #[test]
    fn watching_ends_when_the_parts_end_or_after_a_while() {
        let calls = AtomicUsize::new(0);
        watch_for(|| calls.fetch_add(1, Ordering::Relaxed) == 1000);
        assert_eq!(calls.load(Ordering::Relaxed), 1001);
        // never done: it gives up (the scope's own wait follows)
        calls.store(0, Ordering::Relaxed);
        watch_for(|| {
            calls.fetch_add(1, Ordering::Relaxed);
            false
        });
        assert!(calls.load(Ordering::Relaxed) > 256);
    }

    #[test]
    fn stages_after_kept_awake_threads_run_every_part() {
        // threads kept awake leave for the next stage's parts (or after a
        // while): many stages in a row each get all their results
        for round in 0..200u32 {
            keep_warm(2);
            let out = parts(4, |k| k as u32 * round);
            assert_eq!(out, (0..4).map(|k| k * round).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_panicking_part_panics_the_caller_after_the_others_end() {
        let ended = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(|| {
            parts(3, |k| {
                if k == 2 {
                    panic!("part {k}");
                }
                ended.fetch_add(1, Ordering::Relaxed);
            })
        });
        assert!(result.is_err());
        assert_eq!(ended.load(Ordering::Relaxed), 2);
        let failed = caught(|| -> u8 { panic!("a part") }).unwrap_err();
        assert_eq!(failed.message, "a worker thread panicked");
        assert_eq!(caught(|| 7).unwrap(), 7);
    }
}
