//! `add-release`'s edits, on the committed files: take each pinned release out of copies of the
//! release table and the three crates' manifests, add it back with the same functions
//! `add-release` uses, and get the committed text again, byte for byte. (The generated files and
//! the README's table come from `generate`, which `check` covers.)

use cuda_driver_table_codegen::{add, emit, releases, workspace_root};

fn without_line(text: &str, starts: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| !l.trim_start().starts_with(starts))
        .collect()
}

#[test]
fn removing_and_adding_back_every_release_gives_the_committed_files() {
    let root = workspace_root();
    let releases_rs = std::fs::read_to_string(root.join("codegen/src/releases.rs")).unwrap();
    let manifests: Vec<(&str, String)> = emit::FEATURE_MANIFESTS
        .iter()
        .map(|m| (*m, std::fs::read_to_string(root.join(m)).unwrap()))
        .collect();
    for r in releases::RELEASES {
        let line = format!("r({},", r.version);
        let removed = without_line(&releases_rs, &line);
        assert_ne!(removed, releases_rs, "{line}");
        assert_eq!(
            add::insert_release(&removed, r.version, r.wheel_version).unwrap(),
            releases_rs,
            "CUDA {}",
            r.name()
        );
        assert_eq!(add::version_of_wheel(r.wheel_version), Ok(r.version));
        assert_eq!(
            add::package_for(r.version / 1000).map(|p| p.1),
            Some(r.package)
        );
        for (path, text) in &manifests {
            let feature = format!("cuda-{} =", r.version);
            let removed = without_line(text, &feature);
            assert_ne!(&removed, text, "{path} {feature}");
            assert_eq!(
                &add::insert_feature(&removed, r.version).unwrap(),
                text,
                "{path}: CUDA {}",
                r.name()
            );
        }
    }
}
