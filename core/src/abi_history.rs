//! Every ABI version of every driver function across all supported CUDA releases.
//!
//! Used only to decide whether the unversioned `cudaGetDriverEntryPoint` of an old libcudart
//! (11.x, 12.0–12.4) would return exactly the pinned ABI. Read from the generated ABI list of every
//! pinned release (`generated/abis.rs`, whose lines of the selected release are `manifest`'s list,
//! also under `cuda-local`): the versions of all of a function's lines; nothing here may restate
//! them by hand.

include!("generated/abis.rs");

use std::collections::BTreeSet;
use std::sync::OnceLock;

/// One function of the history: its name, and its legacy and per-thread ABI versions, ascending.
type Entry = (&'static str, Vec<u32>, Vec<u32>);

/// Every function of [`FUNCTIONS_TEXT`] with the versions of all its lines, read once per
/// process (sorted by name, as generated).
fn history() -> &'static [Entry] {
    static HISTORY: OnceLock<Vec<Entry>> = OnceLock::new();
    HISTORY.get_or_init(|| read(FUNCTIONS_TEXT))
}

/// The history of the lines of `text` (`<releases> <name> <default> <version>:<export>[/<version>:<export>] ...`),
/// which give one function's lines one after another.
fn read(text: &'static str) -> Vec<Entry> {
    let mut out: Vec<(&'static str, BTreeSet<u32>, BTreeSet<u32>)> = Vec::new();
    for line in text.lines() {
        let mut fields = line.split(' ');
        let (Some(_releases), Some(name), Some(_default)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if out.last().is_none_or(|(last, _, _)| *last != name) {
            out.push((name, BTreeSet::new(), BTreeSet::new()));
        }
        let Some((_, legacy, per_thread)) = out.last_mut() else {
            continue;
        };
        let version = |field: &str| {
            field
                .split_once(':')
                .and_then(|(v, _)| v.parse::<u32>().ok())
        };
        for field in fields {
            let (abi, twin) = field
                .split_once('/')
                .map_or((field, None), |(a, t)| (a, Some(t)));
            legacy.extend(version(abi));
            per_thread.extend(twin.and_then(version));
        }
    }
    out.into_iter()
        .map(|(name, legacy, per_thread)| {
            (
                name,
                legacy.into_iter().collect(),
                per_thread.into_iter().collect(),
            )
        })
        .collect()
}

/// ABI versions as the history lists them: ascending.
#[derive(Clone, Copy)]
#[cfg_attr(test, derive(Debug))]
pub(crate) struct Versions(&'static [u32]);

impl Versions {
    /// The versions, oldest first.
    pub(crate) fn iter(self) -> impl Iterator<Item = u32> {
        self.0.iter().copied()
    }
}

/// The legacy and per-thread ABI versions of `name`, or `None` if the history does not know the
/// function.
pub(crate) fn abis(name: &str) -> Option<(Versions, Versions)> {
    let history = history();
    let i = history.binary_search_by(|(n, _, _)| (*n).cmp(name)).ok()?;
    let (_, legacy, per_thread) = &history[i];
    Some((Versions(legacy), Versions(per_thread)))
}

/// The newest version in `versions` that is `<= at`: the ABI a lookup at version `at` returns.
pub(crate) fn newest_at_or_below(versions: Versions, at: u32) -> Option<u32> {
    versions.iter().take_while(|&v| v <= at).last()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_sorted_and_ascending() {
        let history = history();
        assert!(history.len() > 400, "{} functions", history.len());
        for w in history.windows(2) {
            assert!(w[0].0 < w[1].0, "not sorted: {} then {}", w[0].0, w[1].0);
        }
        for (name, legacy, per_thread) in history {
            for list in [legacy, per_thread] {
                assert!(
                    list.windows(2).all(|w| w[0] < w[1]),
                    "{name}: not ascending"
                );
            }
            assert!(!legacy.is_empty(), "{name}: no legacy ABI");
        }
    }

    /// A function's versions are those of all its lines, whichever releases have them.
    #[test]
    fn the_history_is_the_union_of_a_function_s_lines() {
        let history = read(
            "11070-12040 cuA 2000 2000:cuA 3000:cuA_v2/7000:cuA_ptsz\n12050-13050 cuA 12050 3000:cuA_v2/7000:cuA_ptsz 12050:cuA_v3\n13000 cuB 13000 13000:cuB\n",
        );
        assert_eq!(
            history,
            [
                ("cuA", vec![2000, 3000, 12050], vec![7000]),
                ("cuB", vec![13000], vec![])
            ]
        );
    }

    #[test]
    fn lookup_and_newest() {
        let (legacy, pt) = abis("cuCtxCreate").unwrap();
        assert_eq!(pt.iter().count(), 0);
        assert_eq!(newest_at_or_below(legacy, 11030), Some(3020));
        assert_eq!(newest_at_or_below(legacy, 11040), Some(11040));
        assert_eq!(newest_at_or_below(legacy, 13000), Some(12050));
        assert_eq!(newest_at_or_below(legacy, 1000), None);
        assert!(abis("cuNoSuchFunction").is_none());
        let (_, pt) = abis("cuLaunchKernel").unwrap();
        assert_eq!(newest_at_or_below(pt, 11080), Some(7000));
    }
}
