//! The two measuring programs of one release, written from a [`Plan`], built and run: a C program
//! that includes the release's `cuda.h` and prints `sizeof`, `_Alignof`, `offsetof` and values
//! (built with `cc`, or `$CC`), and a Rust program that prints `size_of`, `align_of`,
//! `offset_of!` and values from the sys crate, built by `rustc` (or `$RUSTC`) from
//! `sys/src/lib.rs` with `--cfg feature="cuda-N"`, as cargo builds it for that feature.
//!
//! Both print the same lines, `key<TAB>value`, with the same keys; the numbers are each
//! compiler's own.

use super::Plan;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate name of the sys crate, as the Rust program imports it.
const SYS_CRATE: &str = "cuda_driver_table_sys";

/// Each program's lines, by key.
pub struct Measured {
    pub c: BTreeMap<String, String>,
    pub rust: BTreeMap<String, String>,
}

/// The workspace's edition (`edition = "..."` of its `Cargo.toml`), which the sys crate is built
/// with.
pub fn edition(root: &Path) -> Result<String, String> {
    let path = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .find_map(|l| {
            let v = l.trim().strip_prefix("edition")?.trim().strip_prefix('=')?;
            Some(v.trim().trim_matches('"').to_string())
        })
        .ok_or_else(|| format!("{} names no edition", path.display()))
}

/// Writes, builds and runs both programs of `version` in a folder of their own (removed after,
/// kept when one fails to build or run).
pub fn measure(
    root: &Path,
    edition: &str,
    include: &Path,
    version: u32,
    plan: &Plan,
) -> Result<Measured, String> {
    // One folder per call: checks of one release may run at once in one process (tests).
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "cuda-driver-table-layout-{}-{version}-{}",
        std::process::id(),
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    match measure_in(&dir, root, edition, include, version, plan) {
        Ok(measured) => {
            let _ = std::fs::remove_dir_all(&dir);
            Ok(measured)
        }
        Err(e) => Err(format!("{e}\n(the programs are kept in {})", dir.display())),
    }
}

fn measure_in(
    dir: &Path,
    root: &Path,
    edition: &str,
    include: &Path,
    version: u32,
    plan: &Plan,
) -> Result<Measured, String> {
    let c_source = dir.join("layout.c");
    let c_exe = dir.join("layout_c");
    write(&c_source, &c_program(plan))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut build = Command::new(&cc);
    build
        .arg("-std=gnu11")
        .arg(format!("-I{}", include.display()))
        .args(crate::parse::CLANG_DEFINES)
        .arg(&c_source)
        .arg("-o")
        .arg(&c_exe);
    run(build, &format!("{cc} (the C program over cuda.h)"))?;
    let c = lines(&run(Command::new(&c_exe), "the C program")?);

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let rlib = dir.join(format!("lib{SYS_CRATE}.rlib"));
    let mut sys = Command::new(&rustc);
    sys.args([
        "--edition",
        edition,
        "--crate-type",
        "lib",
        "--crate-name",
        SYS_CRATE,
    ])
    .args(["--cfg", &format!("feature=\"cuda-{version}\"")])
    .args([
        "-C",
        "opt-level=0",
        "-C",
        "debuginfo=0",
        "--cap-lints",
        "allow",
    ])
    .arg("-o")
    .arg(&rlib)
    .arg(root.join("sys/src/lib.rs"));
    run(
        sys,
        &format!("{rustc} (the sys crate with feature cuda-{version})"),
    )?;
    let rs_source = dir.join("layout.rs");
    let rs_exe: PathBuf = dir.join("layout_rs");
    write(&rs_source, &rust_program(plan))?;
    let mut program = Command::new(&rustc);
    program
        .args(["--edition", edition, "--crate-type", "bin"])
        .args(["-C", "opt-level=0", "-C", "debuginfo=0"])
        .arg("--extern")
        .arg(format!("{SYS_CRATE}={}", rlib.display()))
        .arg("-o")
        .arg(&rs_exe)
        .arg(&rs_source);
    run(
        program,
        &format!("{rustc} (the Rust program over the bindings)"),
    )?;
    let rust = lines(&run(Command::new(&rs_exe), "the Rust program")?);
    Ok(Measured { c, rust })
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Runs a command; its standard output, or an error with its standard error.
fn run(mut command: Command, what: &str) -> Result<String, String> {
    let out = command
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn lines(out: &str) -> BTreeMap<String, String> {
    out.lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A C string literal of a name (names are C identifiers and dots: nothing to escape).
fn c_str(s: &str) -> String {
    format!("\"{s}\"")
}

/// The C program: each table ends with a null key.
pub fn c_program(plan: &Plan) -> String {
    let mut out = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include <cuda.h>\n\n\
         struct type_row { const char *key; size_t size, align; };\n\
         struct field_row { const char *key; size_t offset, size; };\n\
         struct value_row { const char *key; int negative; long long s; unsigned long long u; };\n\n\
         static const struct type_row types[] = {\n",
    );
    for (name, c_type) in &plan.types {
        let _ = writeln!(
            out,
            "    {{{}, sizeof({c_type}), _Alignof({c_type})}},",
            c_str(&format!("{name}: size, alignment"))
        );
    }
    out.push_str("    {0, 0, 0}\n};\n\nstatic const struct field_row fields[] = {\n");
    for f in &plan.fields {
        let _ = writeln!(
            out,
            "    {{{}, offsetof({rec}, {path}), sizeof((({rec} *)0)->{path})}},",
            c_str(&format!("{}.{}: offset, size", f.record, f.c_path)),
            rec = f.c_record,
            path = f.c_path,
        );
    }
    out.push_str("    {0, 0, 0}\n};\n\nstatic const struct value_row values[] = {\n");
    let value = |key: &str, expr: &str| {
        format!(
            "    {{{}, ({expr}) < 0, (long long)({expr}), (unsigned long long)({expr})}},\n",
            c_str(key)
        )
    };
    for (e, c) in &plan.enumerators {
        out.push_str(&value(&format!("{e}::{c}"), c));
    }
    for c in &plan.constants {
        let _ = write!(
            out,
            "#ifdef {c}\n{}#endif\n",
            value(&format!("constant {c}"), c)
        );
    }
    out.push_str(
        "    {0, 0, 0, 0}\n};\n\n\
         int main(void) {\n\
         \x20   for (const struct type_row *t = types; t->key; t++)\n\
         \x20       printf(\"%s\\t%zu, %zu\\n\", t->key, t->size, t->align);\n\
         \x20   for (const struct field_row *f = fields; f->key; f++)\n\
         \x20       printf(\"%s\\t%zu, %zu\\n\", f->key, f->offset, f->size);\n\
         \x20   for (const struct value_row *v = values; v->key; v++) {\n\
         \x20       if (v->negative) printf(\"%s\\t%lld\\n\", v->key, v->s);\n\
         \x20       else printf(\"%s\\t%llu\\n\", v->key, v->u);\n\
         \x20   }\n\
         \x20   return 0;\n\
         }\n",
    );
    out
}

/// The Rust program: the same lines from the sys crate.
pub fn rust_program(plan: &Plan) -> String {
    let mut out = format!(
        "#![allow(warnings)]\nuse {SYS_CRATE}::*;\n\n\
         static LAYOUT_TYPES: &[(&str, usize, usize)] = &[\n"
    );
    for (name, _) in &plan.types {
        let _ = writeln!(
            out,
            "    ({:?}, ::core::mem::size_of::<{name}>(), ::core::mem::align_of::<{name}>()),",
            format!("{name}: size, alignment")
        );
    }
    out.push_str("];\n\nstatic LAYOUT_FIELDS: &[(&str, usize, usize)] = &[\n");
    for f in &plan.fields {
        let _ = writeln!(
            out,
            "    ({:?}, ::core::mem::offset_of!({}, {}), ::core::mem::size_of::<{}>()),",
            format!("{}.{}: offset, size", f.record, f.c_path),
            f.record,
            f.rust_path,
            f.rust_type
        );
    }
    out.push_str("];\n\nstatic LAYOUT_VALUES: &[(&str, i128)] = &[\n");
    for (e, c) in &plan.enumerators {
        let _ = writeln!(out, "    ({:?}, {e}::{c}.0 as i128),", format!("{e}::{c}"));
    }
    for c in &plan.constants {
        let _ = writeln!(out, "    ({:?}, {c} as i128),", format!("constant {c}"));
    }
    out.push_str(
        "];\n\nfn main() {\n\
         \x20   for (key, size, align) in LAYOUT_TYPES { println!(\"{key}\\t{size}, {align}\"); }\n\
         \x20   for (key, offset, size) in LAYOUT_FIELDS { println!(\"{key}\\t{offset}, {size}\"); }\n\
         \x20   for (key, value) in LAYOUT_VALUES { println!(\"{key}\\t{value}\"); }\n\
         }\n",
    );
    out
}
