//! GPU hang accounting as Linux 6.1's i915 keeps it: which context was guilty, when a
//! context is banned, and when a whole client is.
//!
//! - `mark_guilty` (drivers/gpu/drm/i915/gt/intel_reset.c): every hang counts against
//!   the context that ran the hanging batch (GET_RESET_STATS' `batch_active`). A
//!   bannable context (the default; I915_CONTEXT_PARAM_BANNABLE) is banned if it is not
//!   recoverable (I915_CONTEXT_PARAM_RECOVERABLE = 0, which Mesa's iris and crocus set)
//!   or if this is its third hang within 120 seconds (`hang_timestamp[2]`,
//!   CONTEXT_FAST_HANG_JIFFIES). A banned context's execbuffers fail with EIO, which is
//!   how Mesa learns to replace it.
//! - `client_mark_guilty`: a banned context adds 3 (I915_CLIENT_SCORE_CONTEXT_BAN) to its
//!   file's ban score, a hang within 60 seconds of the file's previous one (or of its
//!   opening) adds 1 (I915_CLIENT_SCORE_HANG_FAST, I915_CLIENT_FAST_HANG_JIFFIES); at 9
//!   (I915_CLIENT_SCORE_BANNED) the file can create no more contexts (EIO).
//!
//! Unbannable contexts never add to the client's score. Times are the host's monotonic
//! clock, as the kernel's jiffies.

use std::time::{Duration, Instant};

/// CONTEXT_FAST_HANG_JIFFIES: three hangs within this time ban a context.
const CONTEXT_FAST_HANG: Duration = Duration::from_secs(120);
/// I915_CLIENT_FAST_HANG_JIFFIES.
const CLIENT_FAST_HANG: Duration = Duration::from_secs(60);
/// I915_CLIENT_SCORE_HANG_FAST.
const SCORE_HANG_FAST: u32 = 1;
/// I915_CLIENT_SCORE_CONTEXT_BAN.
const SCORE_CONTEXT_BAN: u32 = 3;
/// I915_CLIENT_SCORE_BANNED.
const SCORE_BANNED: u32 = 9;

/// A context's hang state.
#[derive(Debug, Clone, Default)]
pub struct ContextHangs {
    /// Hangs this context caused (GET_RESET_STATS `batch_active`).
    pub guilty: u32,
    /// Banned: its execbuffers fail with EIO.
    pub banned: bool,
    /// I915_CONTEXT_PARAM_RECOVERABLE was set to 0.
    pub unrecoverable: bool,
    /// I915_CONTEXT_PARAM_BANNABLE was set to 0 (needs CAP_SYS_ADMIN).
    pub unbannable: bool,
    /// The times of its last two hangs (`hang_timestamp[2]`; none yet counts as long
    /// ago, as the kernel's `jiffies - CONTEXT_FAST_HANG_JIFFIES` start).
    last: [Option<Instant>; 2],
}

/// A file's (a client's) ban score.
#[derive(Debug, Clone)]
pub struct ClientScore {
    /// Accumulated score of context bans and fast hangs.
    pub score: u32,
    /// The file's last hang, or its opening (i915_gem_open sets `hang_timestamp`).
    last: Instant,
}

impl ClientScore {
    /// A newly opened file's score.
    pub fn new(now: Instant) -> ClientScore {
        ClientScore {
            score: 0,
            last: now,
        }
    }

    /// `client_is_banned`: the file may create no more contexts.
    pub fn banned(&self) -> bool {
        self.score >= SCORE_BANNED
    }
}

/// Counts a hang against `ctx` (and its file's `client`) at `now`; returns whether the
/// context is banned by it.
pub fn mark_guilty(ctx: &mut ContextHangs, client: &mut ClientScore, now: Instant) -> bool {
    ctx.guilty += 1;
    if ctx.unbannable {
        return false;
    }
    let prev = ctx.last[0];
    ctx.last = [ctx.last[1], Some(now)];
    let fast = prev.is_some_and(|p| now.duration_since(p) < CONTEXT_FAST_HANG);
    let banned = ctx.unrecoverable || fast;
    // client_mark_guilty.
    let mut score = if banned { SCORE_CONTEXT_BAN } else { 0 };
    if now.duration_since(client.last) < CLIENT_FAST_HANG {
        score += SCORE_HANG_FAST;
    }
    client.last = now;
    client.score += score;
    if banned {
        ctx.banned = true;
    }
    banned
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules of intel_reset.c worked by hand: an unrecoverable context is banned at
    /// its first hang (3 + 1 for a hang within a minute of the file's opening); a
    /// recoverable one at its third hang within 120 s; three banned contexts ban the
    /// client (score 3 + 1 each: 4, 8, 12 >= 9).
    #[test]
    fn bans_follow_the_kernel_rules() {
        let t0 = Instant::now();
        let mut client = ClientScore::new(t0);
        let mut c = ContextHangs {
            unrecoverable: true,
            ..Default::default()
        };
        assert!(mark_guilty(
            &mut c,
            &mut client,
            t0 + Duration::from_secs(1)
        ));
        assert_eq!((c.guilty, client.score), (1, 4));
        assert!(!client.banned());

        let mut r = ContextHangs::default();
        let t = t0 + Duration::from_secs(200);
        assert!(!mark_guilty(&mut r, &mut client, t));
        assert_eq!(
            client.score, 4,
            "a slow hang of a recoverable context costs nothing"
        );
        assert!(!mark_guilty(
            &mut r,
            &mut client,
            t + Duration::from_secs(10)
        ));
        assert_eq!(
            client.score, 5,
            "a hang within 60 s of the previous one: +1"
        );
        assert!(mark_guilty(
            &mut r,
            &mut client,
            t + Duration::from_secs(20)
        ));
        assert_eq!(client.score, 9, "third hang within 120 s: banned, +3 +1");
        assert!(client.banned());

        // Hangs spread over more than 120 s never ban a recoverable context.
        let mut s = ContextHangs::default();
        let mut c2 = ClientScore::new(t0);
        for i in 1..=5u64 {
            assert!(!mark_guilty(
                &mut s,
                &mut c2,
                t0 + Duration::from_secs(i * 100)
            ));
        }
        assert_eq!((s.guilty, c2.score), (5, 0));

        // Unbannable contexts are counted, never banned, and cost the client nothing.
        let mut u = ContextHangs {
            unbannable: true,
            unrecoverable: true,
            ..Default::default()
        };
        let mut c3 = ClientScore::new(t0);
        assert!(!mark_guilty(&mut u, &mut c3, t0));
        assert_eq!((u.guilty, c3.score), (1, 0));
    }
}
