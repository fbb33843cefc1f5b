//! What orders the fake device's work: a vector clock per agent (the host, and each stream), the
//! uses of each allocation that later work must be ordered after, and the ranges of an
//! allocation that were ever written. The device runs work when it is issued, so the data is
//! always there; these say whether a GPU, which runs streams at once, would have had it there.
//!
//! Work on an agent is ordered after that agent's earlier work, after everything the host did
//! before issuing it, and after what its stream waited for (an event, the legacy default
//! stream's implicit synchronisation); the host is ordered after what it synchronised with. A
//! use of memory by one agent that an earlier use by another is not ordered before is a hazard,
//! when either writes.

use std::collections::BTreeMap;
use std::sync::Arc;

/// For each agent, by index, how much of its work is ordered before the holder of the clock.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Clock(Vec<u64>);

impl Clock {
    /// The count of `agent`'s work this clock has seen.
    pub(crate) fn of(&self, agent: usize) -> u64 {
        self.0.get(agent).copied().unwrap_or(0)
    }

    /// This clock after `other` too: what either has seen.
    pub(crate) fn join(&mut self, other: &Clock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            *mine = (*mine).max(*theirs);
        }
    }

    /// One more piece of `agent`'s own work; its count.
    pub(crate) fn tick(&mut self, agent: usize) -> u64 {
        if self.0.len() <= agent {
            self.0.resize(agent + 1, 0);
        }
        self.0[agent] += 1;
        self.0[agent]
    }
}

/// One piece of work that uses memory: its agent, its count there, the clock it runs after, and
/// how a message names it ("cuMemcpyDtoHAsync (call 9) on stream 0xc000…").
#[derive(Clone, Debug)]
pub(crate) struct Issued {
    pub(crate) agent: usize,
    pub(crate) at: u64,
    pub(crate) clock: Clock,
    pub(crate) name: Arc<str>,
    /// The agent's name alone ("stream 0xc000…", "the host"), for the advice.
    pub(crate) agent_name: Arc<str>,
}

/// An earlier use of an allocation.
#[derive(Clone, Debug)]
struct Use {
    agent: usize,
    at: u64,
    name: Arc<str>,
    agent_name: Arc<str>,
    /// What it did: "writes", "reads", "allocates", "frees".
    verb: &'static str,
}

impl Use {
    fn is(&self, work: &Issued) -> bool {
        self.agent == work.agent && self.at == work.at
    }
}

/// The uses of one range of bytes that later work must be ordered after: its last writes (one,
/// or the latest of each agent where ranges were joined, see [`Uses`]), and the reads since (the
/// latest of each agent).
#[derive(Clone, Debug, Default)]
struct Last {
    writes: Vec<Use>,
    reads: Vec<Use>,
}

impl Last {
    /// Whether `work` touched this range already as it touches it now, so that touching it again
    /// changes nothing.
    fn has(&self, work: &Issued, write: bool) -> bool {
        let wrote = self.writes.len() == 1 && self.writes[0].is(work);
        if write {
            wrote && self.reads.is_empty()
        } else {
            wrote || self.reads.iter().any(|u| u.is(work))
        }
    }

    /// Whether the two hold the same uses (neighbouring ranges that can be one).
    fn same(&self, other: &Last) -> bool {
        let same = |a: &[Use], b: &[Use]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.agent == y.agent && x.at == y.at && x.verb == y.verb)
        };
        same(&self.writes, &other.writes) && same(&self.reads, &other.reads)
    }

    /// Both ranges' uses: the latest of each agent's writes and reads.
    fn absorb(&mut self, other: Last) {
        for (mine, theirs) in [
            (&mut self.writes, other.writes),
            (&mut self.reads, other.reads),
        ] {
            for u in theirs {
                match mine.iter_mut().find(|m| m.agent == u.agent) {
                    Some(m) if m.at < u.at => *m = u,
                    Some(_) => {}
                    None => mine.push(u),
                }
            }
        }
    }

    /// Records `work`'s use, and returns the earlier use not ordered before it (a write against
    /// any use, a read against a write).
    fn touch(&mut self, work: &Issued, write: bool, verb: &'static str) -> Option<Use> {
        let unordered = |u: &Use| u.agent != work.agent && work.clock.of(u.agent) < u.at;
        let earlier = self
            .writes
            .iter()
            .find(|u| unordered(u))
            .or_else(|| {
                if write {
                    self.reads.iter().find(|u| unordered(u))
                } else {
                    None
                }
            })
            .cloned();
        let now = Use {
            agent: work.agent,
            at: work.at,
            name: work.name.clone(),
            agent_name: work.agent_name.clone(),
            verb,
        };
        if write {
            self.reads.clear();
            self.writes = vec![now];
        } else {
            self.reads.retain(|u| u.agent != work.agent);
            self.reads.push(now);
        }
        earlier
    }
}

/// How many ranges of one allocation [`Uses`] keeps apart; past it, it joins them into one that
/// keeps every agent's latest write and read, so no hazard is missed (two streams' disjoint
/// ranges may then be reported as one).
const MOST_RANGES: usize = 256;

/// The uses of one allocation that later work must be ordered after, per range of bytes
/// (`start -> (end, uses)`): work on disjoint bytes of one allocation never conflicts.
/// Neighbouring ranges with the same uses are kept as one, so work that writes an allocation
/// in pieces (a kernel, element by element) leaves one range.
#[derive(Clone, Debug, Default)]
pub(crate) struct Uses(BTreeMap<usize, (usize, Last)>);

/// Two uses of an allocation that nothing orders.
#[derive(Clone, Debug)]
pub(crate) struct Hazard {
    /// The earlier use's name, and what it did ("writes", "allocates", ...).
    pub(crate) earlier: Arc<str>,
    pub(crate) earlier_verb: &'static str,
    /// What would order the two.
    pub(crate) advice: String,
}

impl Uses {
    /// Records `work`'s use of the `len` bytes at `start` (a write, or a read; `verb` says what
    /// it is), and returns the hazard when an earlier use of any of them by another agent is not
    /// ordered before it (a write against any use, a read against a write).
    pub(crate) fn touch(
        &mut self,
        start: usize,
        len: usize,
        work: &Issued,
        write: bool,
        verb: &'static str,
    ) -> Option<Hazard> {
        if len == 0 {
            return None;
        }
        let end = start.saturating_add(len);
        // Work touching again what it touched already (a kernel's loop) changes nothing.
        if let Some((_, (e, last))) = self.0.range(..=start).next_back() {
            if *e >= end && last.has(work, write) {
                return None;
            }
        }
        self.split(start);
        self.split(end);
        // The bytes no range holds yet are a range with no uses.
        let mut at = start;
        let held: Vec<(usize, usize)> = self
            .0
            .range(start..end)
            .map(|(&s, &(e, _))| (s, e))
            .collect();
        for (s, e) in held {
            if at < s {
                self.0.insert(at, (s, Last::default()));
            }
            at = e;
        }
        if at < end {
            self.0.insert(at, (end, Last::default()));
        }
        let mut earlier = None;
        for (_, (_, last)) in self.0.range_mut(start..end) {
            let found = last.touch(work, write, verb);
            earlier = earlier.or(found);
        }
        self.join_around(start, end);
        if self.0.len() > MOST_RANGES {
            self.join_all();
        }
        earlier.map(|u| Hazard {
            advice: advice(&u.agent_name, &work.agent_name),
            earlier: u.name,
            earlier_verb: u.verb,
        })
    }

    /// Makes `at` the start of a range, if a range holds it.
    fn split(&mut self, at: usize) {
        let Some((&s, (e, last))) = self.0.range(..at).next_back() else {
            return;
        };
        if *e > at {
            let (e, last) = (*e, last.clone());
            self.0.insert(s, (at, last.clone()));
            self.0.insert(at, (e, last));
        }
    }

    /// Joins the neighbouring ranges with the same uses from the one before `start` to the one
    /// at `end`.
    fn join_around(&mut self, start: usize, end: usize) {
        let from = self.0.range(..start).next_back().map_or(start, |(&s, _)| s);
        let starts: Vec<usize> = self.0.range(from..=end).map(|(&s, _)| s).collect();
        let mut keep = from;
        for s in starts.into_iter().skip(1) {
            let joinable = match (self.0.get(&keep), self.0.get(&s)) {
                (Some((ke, kept)), Some((_, this))) => *ke == s && kept.same(this),
                _ => false,
            };
            if !joinable {
                keep = s;
                continue;
            }
            if let Some((e, _)) = self.0.remove(&s) {
                if let Some(k) = self.0.get_mut(&keep) {
                    k.0 = e;
                }
            }
        }
    }

    /// Joins every range into one.
    fn join_all(&mut self) {
        let mut ranges = std::mem::take(&mut self.0).into_iter();
        let Some((start, (mut end, mut last))) = ranges.next() else {
            return;
        };
        for (_, (e, other)) in ranges {
            end = end.max(e);
            last.absorb(other);
        }
        self.0.insert(start, (end, last));
    }
}

/// What orders work of `first` before work of `then`.
fn advice(first: &str, then: &str) -> String {
    if then == "the host" {
        format!(
            "synchronize {first} before the host goes on (cuStreamSynchronize, or \
             cuEventSynchronize of an event recorded after the work)"
        )
    } else if first == "the host" {
        "issue the work after the host's (the host's own writes and frees come before what it \
         issues next)"
            .to_owned()
    } else {
        format!(
            "record an event on {first} after the first and make {then} wait for it \
             (cuEventRecord, cuStreamWaitEvent), or synchronize {first} first"
        )
    }
}

/// The byte ranges of an allocation that were written, merged: `start -> end`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Written(BTreeMap<usize, usize>);

impl Written {
    /// All of `[0, len)`: memory a test asked to be zeroed.
    pub(crate) fn all(len: usize) -> Self {
        let mut w = Self::default();
        w.insert(0, len);
        w
    }

    /// `[start, start + len)` was written.
    pub(crate) fn insert(&mut self, start: usize, len: usize) {
        if len == 0 {
            return;
        }
        let mut start = start;
        let mut end = start.saturating_add(len);
        // Merge with a range that ends at or after `start` and begins before it.
        if let Some((&s, &e)) = self.0.range(..=start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
            }
        }
        // Swallow every range that begins within the new one.
        let inside: Vec<usize> = self.0.range(start..=end).map(|(&s, _)| s).collect();
        for s in inside {
            if let Some(e) = self.0.remove(&s) {
                end = end.max(e);
            }
        }
        self.0.insert(start, end);
    }

    /// The first byte of `[start, start + len)` never written, if any.
    pub(crate) fn first_unwritten(&self, start: usize, len: usize) -> Option<usize> {
        if len == 0 {
            return None;
        }
        match self.0.range(..=start).next_back() {
            Some((_, &e)) if e >= start.saturating_add(len) => None,
            Some((_, &e)) if e > start => Some(e),
            _ => Some(start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(agent: usize, clock: &mut Clock, name: &str) -> Issued {
        let at = clock.tick(agent);
        Issued {
            agent,
            at,
            clock: clock.clone(),
            name: name.into(),
            agent_name: format!("agent {agent}").into(),
        }
    }

    #[test]
    fn a_use_not_ordered_after_another_agents_write_is_a_hazard() {
        let (mut a, mut b) = (Clock::default(), Clock::default());
        let mut uses = Uses::default();
        assert!(uses
            .touch(0, 8, &work(1, &mut a, "write on 1"), true, "writes")
            .is_none());
        // Agent 2 has not seen agent 1's write.
        let hazard = uses
            .touch(0, 8, &work(2, &mut b, "read on 2"), false, "reads")
            .expect("unordered");
        assert_eq!(&*hazard.earlier, "write on 1");
        // Once it has (a wait), its next read is ordered.
        b.join(&a);
        assert!(uses
            .touch(0, 8, &work(2, &mut b, "read on 2"), false, "reads")
            .is_none());
        // Reads of two agents never conflict; a write after an unseen read does.
        assert!(uses
            .touch(0, 8, &work(1, &mut a, "read on 1"), false, "reads")
            .is_none());
        let hazard = uses.touch(
            4,
            1,
            &work(3, &mut Clock::default(), "write on 3"),
            true,
            "writes",
        );
        assert!(hazard.is_some());
    }

    #[test]
    fn disjoint_ranges_never_conflict_and_overlapping_ones_do() {
        let (mut a, mut b) = (Clock::default(), Clock::default());
        let mut uses = Uses::default();
        // Two agents write one half each: nothing to order.
        assert!(uses
            .touch(0, 8, &work(1, &mut a, "low on 1"), true, "writes")
            .is_none());
        assert!(uses
            .touch(8, 8, &work(2, &mut b, "high on 2"), true, "writes")
            .is_none());
        // A read across the middle is unordered with agent 2's write (agent 1's own is not).
        let hazard = uses
            .touch(4, 8, &work(1, &mut a, "middle on 1"), false, "reads")
            .expect("overlaps the high half");
        assert_eq!(&*hazard.earlier, "high on 2");
        // Element-wise writes by one piece of work leave one range.
        let mut c = Clock::default();
        let whole = work(3, &mut c, "whole on 3");
        let mut uses = Uses::default();
        for i in (0..64).rev() {
            uses.touch(i * 4, 4, &whole, true, "writes");
        }
        assert_eq!(uses.0.len(), 1, "{uses:?}");
        assert!(uses.touch(0, 256, &whole, false, "reads").is_none());
    }

    #[test]
    fn past_the_most_ranges_they_join_and_miss_no_hazard() {
        let mut uses = Uses::default();
        let mut clocks = vec![Clock::default(); 3];
        for i in 0..MOST_RANGES + 1 {
            let agent = 1 + i % 2;
            uses.touch(
                i * 2,
                1,
                &work(agent, &mut clocks[agent], "w"),
                true,
                "writes",
            );
        }
        assert!(uses.0.len() <= MOST_RANGES, "{}", uses.0.len());
        // A third agent's read of byte 0 sees both agents' writes.
        let read = work(0, &mut clocks[0], "read on 0");
        assert!(uses.touch(0, 1, &read, false, "reads").is_some());
    }

    #[test]
    fn written_ranges_merge_and_name_the_first_gap() {
        let mut w = Written::default();
        w.insert(0, 4);
        w.insert(8, 4);
        assert_eq!(w.first_unwritten(0, 4), None);
        assert_eq!(w.first_unwritten(0, 12), Some(4));
        assert_eq!(w.first_unwritten(12, 1), Some(12));
        w.insert(4, 4);
        assert_eq!(w.first_unwritten(0, 12), None);
        assert_eq!(w.0.len(), 1, "{w:?}");
        w.insert(2, 20);
        assert_eq!(w.first_unwritten(0, 22), None);
        assert_eq!(w.first_unwritten(0, 0), None);
        assert_eq!(Written::all(16).first_unwritten(3, 13), None);
    }
}
