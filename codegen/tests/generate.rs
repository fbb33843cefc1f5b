//! `generate --root DIR` (`write` and `write_readme`): into a workspace it writes the files and the
//! README's table of releases; into a folder without a README (an empty folder the benchmark of
//! the generator writes into and compares) it writes the files alone. Synthetic releases, no
//! headers.

use cuda_driver_table_codegen::add::{README_END, README_START};
use cuda_driver_table_codegen::manifest::Manifest;
use cuda_driver_table_codegen::pipeline::{BindingItem, ParsedRelease, Source};
use cuda_driver_table_codegen::{emit, files, write, write_readme};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn release(version: u32) -> ParsedRelease {
    ParsedRelease {
        source: Source::Local {
            version,
            include: format!("/include/{version}").into(),
        },
        bindings: String::new(),
        items: vec![BindingItem {
            name: "CUx".into(),
            text: "pub type CUx = u64;\n".into(),
        }],
        sys_paths: BTreeMap::new(),
        manifest: Manifest::default(),
    }
}

/// A fresh empty folder, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("cdt-generate-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Folder(dir)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn generate_into_an_empty_folder_writes_the_files_and_no_readme() {
    let parsed = [release(12000), release(13000)];
    let generated = files(&parsed);
    let root = Folder::new("empty");
    write(&root.0, &generated).unwrap();
    assert_eq!(write_readme(&root.0, &parsed), Ok(false));
    assert!(!root.0.join("README.md").exists());
    for (rel, text) in &generated {
        assert_eq!(&std::fs::read_to_string(root.0.join(rel)).unwrap(), text);
    }
    assert!(root.0.join(emit::BINDINGS_PATH).is_file());
}

#[test]
fn generate_into_a_workspace_writes_the_readme_table() {
    let parsed = [release(12000), release(13000)];
    let root = Folder::new("workspace");
    let readme = root.0.join("README.md");
    std::fs::write(
        &readme,
        format!("# x\n{README_START}old\n{README_END}tail\n"),
    )
    .unwrap();
    assert_eq!(write_readme(&root.0, &parsed), Ok(true));
    let text = std::fs::read_to_string(&readme).unwrap();
    assert!(
        text.contains("| 12.0 | local (/include/12000) | 0 | 0 | 0 |\n"),
        "{text}"
    );
    assert!(
        text.contains("| 13.0 | local (/include/13000) | 0 | 0 | 0 |\n"),
        "{text}"
    );
    assert!(text.ends_with(&format!("{README_END}tail\n")), "{text}");
    // A README without the table's markers is an error, not left as it was.
    std::fs::write(&readme, "# no table\n").unwrap();
    assert!(write_readme(&root.0, &parsed).is_err());
}
