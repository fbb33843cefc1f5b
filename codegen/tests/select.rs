//! The files that pick a release by its feature, and the feature lists `check` compares.

use cuda_driver_table_codegen::emit::{declared_features, select_files, SELECT_PATHS};

#[test]
fn each_release_is_selected_by_its_feature_and_the_newest_enabled_wins() {
    let files = select_files(&[12090, 11080, 13000]);
    let paths: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    assert_eq!(paths, SELECT_PATHS);
    let sys = &files[0].1;
    // Oldest first; each excludes every newer release, the newest stands alone.
    let a = sys
        .find(r#"#[cfg(all(feature = "cuda-11080", not(any(feature = "cuda-12090", feature = "cuda-13000"))))]"#)
        .expect("11.8 is selected unless a newer release is enabled");
    let b = sys
        .find("#[cfg(feature = \"cuda-13000\")]\ninclude!(\"bindings_13000.rs\");")
        .expect("the newest release needs only its own feature");
    assert!(a < b);
    assert!(sys.contains("pub const RELEASE: u32 = 12090;"));
    assert!(
        sys.contains("SELECTED == 1"),
        "the bindings insist on exactly one feature"
    );
    assert!(files[1].1.contains("include!(\"abis_12090.rs\");"));
    let macros = &files[2].1;
    assert!(macros.contains("include!(\"manifest_11080.rs\");"));
    assert!(
        macros.contains(r#"#[cfg(not(any(feature = "cuda-11080", feature = "cuda-12090", feature = "cuda-13000")))]"#),
        "an empty manifest when no release is enabled, so the macro can say so"
    );
}

#[test]
fn declared_features_reads_the_cuda_features_of_a_manifest() {
    let toml = "[features]\ndefault = [\"cuda-13000\"]\ncuda-12090 = [\"x/cuda-12090\"]\ncuda-13000 = []\ngpu = []\n";
    assert_eq!(declared_features(toml), [12090, 13000]);
}
