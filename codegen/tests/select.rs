//! The files that pick a release by its feature, and the feature lists `check` compares.

use cuda_driver_table_codegen::emit::{
    declared_features, default_features, select_files, unforwarded_features, SELECT_PATHS,
};

#[test]
fn each_release_is_selected_by_its_feature_and_the_newest_enabled_wins() {
    let files = select_files(&[12090, 11080, 13000]);
    let paths: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    assert_eq!(paths, SELECT_PATHS);
    let macros = &files[1].1;
    // Oldest first; each excludes every newer release, the newest stands alone.
    let a = macros
        .find(r#"#[cfg(all(feature = "cuda-11080", not(any(feature = "cuda-12090", feature = "cuda-13000"))))]"#)
        .expect("11.8 is selected unless a newer release is enabled");
    let b = macros
        .find(
            "#[cfg(feature = \"cuda-13000\")]\nmod selected {\n    pub const RELEASE: u32 = 13000;",
        )
        .expect("the newest release needs only its own feature");
    assert!(a < b);
    assert!(macros.contains(
        "    pub const RELEASE: u32 = 11080;\n    pub const RELEASE_NAME: &str = \"11.8\";\n}"
    ));
    assert!(
        macros.contains(r#"#[cfg(not(any(feature = "cuda-11080", feature = "cuda-12090", feature = "cuda-13000")))]"#),
        "release 0 when no release is enabled, so the macro can say so"
    );
}

#[test]
fn the_bindings_need_exactly_one_feature_and_every_other_count_is_one_clear_error() {
    let files = select_files(&[12090, 11080, 13000]);
    let sys = &files[0].1;
    // Included only when exactly one feature is on, so two releases' items never meet.
    let gate = sys
        .find("#[cfg(any(\n    all(feature = \"cuda-11080\", not(any(feature = \"cuda-12090\", feature = \"cuda-13000\", feature = \"cuda-local\"))),\n    all(feature = \"cuda-12090\", not(any(feature = \"cuda-11080\", feature = \"cuda-13000\", feature = \"cuda-local\"))),\n    all(feature = \"cuda-13000\", not(any(feature = \"cuda-11080\", feature = \"cuda-12090\", feature = \"cuda-local\"))),\n))]\ninclude!(\"bindings.rs\");")
        .is_some();
    assert!(gate, "{sys}");
    // No feature: one error that says so and names the default.
    // (cuda-local counts as a release: its bindings come from the build script.)
    let none = r#"#[cfg(not(any(feature = "cuda-11080", feature = "cuda-12090", feature = "cuda-13000", feature = "cuda-local")))]"#;
    let at = sys.find(none).expect("an error for no release");
    let message = &sys[at..sys[at..].find(");").map_or(sys.len(), |e| at + e)];
    assert!(message.contains("no CUDA release feature is enabled"));
    // What a library does instead, which enables none: a release for its tests, its local docs
    // and docs.rs (tests/library is set up so).
    assert!(message.contains("A library enables none"), "{message}");
    assert!(
        message.contains("[dev-dependencies] for `cargo test`"),
        "{message}"
    );
    assert!(
        message.contains("`cargo doc --features cuda-driver-table/cuda-13000`"),
        "{message}"
    );
    assert!(
        message.contains(
            r#"[package.metadata.docs.rs] features = [\"cuda-driver-table/cuda-13000\"]"#
        ),
        "{message}"
    );
    // cuda-local with a pinned release: an error per release that names both.
    for v in [11080, 12090, 13000] {
        let cfg = format!(
            "#[cfg(all(feature = \"cuda-local\", feature = \"cuda-{v}\"))]\ncompile_error!("
        );
        let at = sys
            .find(&cfg)
            .unwrap_or_else(|| panic!("no error for cuda-local + {v}"));
        let message = &sys[at..sys[at..].find(");").map_or(sys.len(), |e| at + e)];
        assert!(message.contains(&format!("cuda-local and cuda-{v} are enabled together")));
        // The default is named only where it is the feature enabled.
        assert_eq!(message.contains("default-features = false"), v == 13000);
        assert!(message.contains("cargo tree -e features -i cuda-driver-table"));
    }
    // Two features: an error per pair that names both and says what a library must do.
    for (a, b) in [(11080, 12090), (11080, 13000), (12090, 13000)] {
        let cfg =
            format!("#[cfg(all(feature = \"cuda-{a}\", feature = \"cuda-{b}\"))]\ncompile_error!(");
        let at = sys
            .find(&cfg)
            .unwrap_or_else(|| panic!("no error for {a} + {b}"));
        let message = &sys[at..sys[at..].find(");").map_or(sys.len(), |e| at + e)];
        assert!(message.contains(&format!("cuda-{a} and cuda-{b} are both enabled")));
        assert!(message.contains("must set default-features = false"));
        assert_eq!(message.contains("cuda-13000 is the default"), b == 13000);
    }
}

#[test]
fn declared_features_reads_the_cuda_features_of_a_manifest() {
    let toml = "[features]\ndefault = [\"cuda-13000\"]\ncuda-12090 = [\"x/cuda-12090\"]\ncuda-13000 = []\ngpu = []\n";
    assert_eq!(declared_features(toml), [12090, 13000]);
    assert_eq!(default_features(toml), [13000]);
    assert_eq!(
        default_features("[features]\ncuda-13000 = []\n"),
        Vec::<u32>::new()
    );
}

#[test]
fn release_features_not_passed_on_to_the_local_crate_are_found() {
    let toml = "[features]\ncuda-12090 = [\"cuda-driver-table-local?/cuda-12090\"]\ncuda-13000 = []\ncuda-13010 = [\"cuda-driver-table-local?/cuda-12090\"]\n";
    assert_eq!(unforwarded_features(toml), [13000, 13010]);
    for manifest in ["sys/Cargo.toml", "macros/Cargo.toml"] {
        let text =
            std::fs::read_to_string(cuda_driver_table_codegen::workspace_root().join(manifest))
                .unwrap();
        assert!(declared_features(&text).len() >= 17);
        assert_eq!(unforwarded_features(&text), Vec::<u32>::new(), "{manifest}");
    }
}
