//! The fake's rooms form layers, as core's modules do: each uses only the rooms below it, so the
//! crate has no import circle, and no room grows past what a reader can hold (about 1,000
//! lines). `docs/ARCHITECTURE.md` draws them. This test reads the sources and fails on an arrow
//! upwards or an oversized file, naming the file and the line.

use std::path::{Path, PathBuf};

/// The rooms, bottom first. A room may use any room of a lower layer. `device` is the device's
/// state and its calls (`device/*.rs`, which use `device` itself, their parent).
const LAYERS: &[&[&str]] = &[
    &["failure", "findings", "profile"],
    &["order"],
    &["memory"],
    &["kernel"],
    &["device"],
];

/// The crate root (`lib.rs`: the fake driver) is above every layer.
const TOP: &[&str] = &["tests"];

/// The most lines a file of the fake may have.
const MOST_LINES: usize = 1_000;

fn layer_of(room: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&room))
}

/// `src/<room>.rs` and everything under `src/<room>/`.
fn files_of(src: &Path, room: &str) -> Vec<PathBuf> {
    let mut files = vec![src.join(format!("{room}.rs"))];
    if let Ok(entries) = std::fs::read_dir(src.join(room)) {
        files.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs")),
        );
    }
    files.retain(|f| f.is_file());
    files
}

/// Every `crate::<room>` a line names, skipping comments and `$crate::`.
fn uses(line: &str) -> Vec<&str> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if !rest[..at].ends_with('$') && !rest[..at].ends_with('_') {
            found.push(&after[..end]);
        }
        rest = &after[end..];
    }
    found
}

/// The arrows of `room`'s files that do not point down, as messages.
fn upward(src: &Path, layer: usize, room: &str) -> Vec<String> {
    let mut found = Vec::new();
    for file in files_of(src, room) {
        let text = std::fs::read_to_string(&file).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            for used in uses(line) {
                let ok = match layer_of(used) {
                    Some(l) => l < layer || used == room,
                    None => false,
                };
                if !ok {
                    found.push(format!(
                        "{}:{}: `{room}` uses `{used}`, which is not below it",
                        file.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn every_room_uses_only_the_rooms_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (layer, rooms) in LAYERS.iter().enumerate() {
        for room in *rooms {
            assert!(
                !files_of(&src, room).is_empty(),
                "no file for the room `{room}`"
            );
            found.extend(upward(&src, layer, room));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The check itself sees an arrow upwards: a planted `use crate::device` in `memory` is one.
#[test]
fn an_arrow_upwards_is_found() {
    let planted = std::env::temp_dir().join(format!("cdt-fake-layers-{}", std::process::id()));
    std::fs::create_dir_all(&planted).expect("temporary folder");
    std::fs::write(
        planted.join("memory.rs"),
        "use crate::findings::Fault;\nuse crate::device::Device; // an upward arrow\n",
    )
    .expect("planted file");
    let found = upward(&planted, 1, "memory");
    std::fs::remove_dir_all(&planted).ok();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("memory.rs:2: `memory` uses `device`, which is not below it"));
}

#[test]
fn every_file_of_the_crate_has_a_room_and_no_file_is_too_long() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("readable source");
            let lines = text.lines().count();
            assert!(
                lines <= MOST_LINES,
                "{} has {lines} lines: split it by concern (at most {MOST_LINES})",
                path.display()
            );
            let room = path
                .strip_prefix(&src)
                .ok()
                .and_then(|p| p.iter().next())
                .and_then(|p| p.to_str())
                .map(|p| p.trim_end_matches(".rs"))
                .unwrap_or_default();
            assert!(
                room == "lib" || TOP.contains(&room) || layer_of(room).is_some(),
                "{} is in no room of this test's LAYERS",
                path.display()
            );
        }
    }
}
