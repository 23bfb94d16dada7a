//! A draw's instruction budget ([`crate::Limits::max_draw_instructions`]):
//! the instructions of every batch of every stage, summed. The stages
//! before the fragments are checked whole as each ends; the fragment
//! stage's threads add what they shade as they go ([`BudgetShare`]), so a
//! draw over a huge target stops soon after it runs out.
//!
//! Each share adds all it ran by the end of its band, so the sum reaches
//! the draw's whole count when nothing else fails, and passes the budget
//! exactly when that count does; once it has, every share's next step
//! fails, and a band that starts after that stops at once
//! ([`DrawBudget::check`]). The count is the batches' instructions: the
//! same for any thread count where the batches are (a full-target draw's
//! tiles); the pipeline's batches gather quads band by band and chunk by
//! chunk of primitives, and on one thread its bands are taller and its
//! chunks smaller, so there a count can differ between thread counts by
//! the batches left partly filled at the bands' ends.

use crate::ExecError;
use std::sync::atomic::{AtomicU64, Ordering};

/// Instructions a share keeps to itself before adding them to the sum
/// (one atomic add per that many, not per batch).
const SHARE_STEP: u64 = 1 << 20;

/// The budget of one draw and what its batches have spent of it.
pub struct DrawBudget {
    limit: u64,
    spent: AtomicU64,
}

impl DrawBudget {
    /// A budget of `limit` instructions of which `spent` are gone.
    pub fn new(limit: u64, spent: u64) -> DrawBudget {
        DrawBudget {
            limit,
            spent: AtomicU64::new(spent),
        }
    }

    /// Adds `n` instructions; past the budget, the draw's error.
    pub fn spend(&self, n: u64) -> Result<(), ExecError> {
        let total = self.spent.fetch_add(n, Ordering::Relaxed).saturating_add(n);
        if total > self.limit {
            return Err(ExecError::general(format!(
                "the draw ran more than its budget of {} instructions (summed over the batches of all its stages; --draw-budget)",
                self.limit
            )));
        }
        Ok(())
    }

    /// The draw's error when the budget has run out already.
    pub fn check(&self) -> Result<(), ExecError> {
        self.spend(0)
    }

    /// A thread's share, adding to this budget in steps.
    pub fn share(&self) -> BudgetShare<'_> {
        BudgetShare {
            budget: self,
            kept: 0,
        }
    }
}

/// One thread's running count of a draw's instructions.
pub struct BudgetShare<'a> {
    budget: &'a DrawBudget,
    kept: u64,
}

impl BudgetShare<'_> {
    /// Counts `n` instructions, adding the count to the draw's sum once it
    /// is large.
    #[inline]
    pub fn spend(&mut self, n: u64) -> Result<(), ExecError> {
        self.kept += n;
        if self.kept >= SHARE_STEP {
            self.settle()?;
        }
        Ok(())
    }

    /// Adds everything counted so far to the draw's sum.
    pub fn settle(&mut self) -> Result<(), ExecError> {
        let n = std::mem::take(&mut self.kept);
        self.budget.spend(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The budget runs out exactly past its limit, whether the count comes
    /// whole or in a share's steps, and a spent start counts.
    #[test]
    fn runs_out_exactly_past_the_limit() {
        let b = DrawBudget::new(10, 4);
        assert!(b.spend(6).is_ok());
        let e = b.spend(1).unwrap_err();
        assert!(e.message.contains("budget of 10 instructions"), "{e:?}");

        let b = DrawBudget::new(3 * SHARE_STEP, 0);
        let mut share = b.share();
        for _ in 0..3 * SHARE_STEP / 1000 {
            share.spend(1000).unwrap();
        }
        share.spend(3 * SHARE_STEP % 1000).unwrap();
        assert!(share.settle().is_ok());
        let mut more = b.share();
        more.spend(1).unwrap();
        assert!(more.settle().is_err());
    }
}
