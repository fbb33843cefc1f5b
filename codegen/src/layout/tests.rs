//! The matching of names and the comparison of numbers, on small made-up inputs (the real headers
//! and compilers: `tests/layout.rs`).

use super::bindings::{RustRecord, View};
use super::*;

fn named(path: &[&str]) -> Vec<Segment> {
    path.iter().map(|s| Segment::Named(s.to_string())).collect()
}

fn fields(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect()
}

/// `struct P { int type; union { int a; float b; }; struct { int x; } pos; }` and bindgen's view of
/// it.
fn p_header() -> Header {
    Header {
        records: vec![Record {
            name: "P".into(),
            c_type: "struct P".into(),
            union: false,
            complete: true,
            members: vec![
                named(&["type"]),
                vec![Segment::Anonymous(1), Segment::Named("a".into())],
                vec![Segment::Anonymous(1), Segment::Named("b".into())],
                named(&["pos"]),
                named(&["pos", "x"]),
            ],
        }],
        ..Header::default()
    }
}

fn p_view() -> View {
    let mut view = View::default();
    view.records.insert(
        "P".into(),
        RustRecord {
            union: false,
            opaque: false,
            fields: fields(&[
                ("type_", "::core::ffi::c_int"),
                ("__bindgen_anon_1", "P__bindgen_ty_1"),
                ("pos", "P__bindgen_ty_2"),
            ]),
        },
    );
    view.records.insert(
        "P__bindgen_ty_1".into(),
        RustRecord {
            union: true,
            opaque: false,
            fields: fields(&[("a", "::core::ffi::c_int"), ("b", "f32")]),
        },
    );
    view.records.insert(
        "P__bindgen_ty_2".into(),
        RustRecord {
            union: false,
            opaque: false,
            fields: fields(&[("x", "::core::ffi::c_int")]),
        },
    );
    view
}

#[test]
fn c_paths_become_bindgen_s_paths() {
    let (plan, counts, problems) = plan(&p_header(), &p_view());
    assert!(problems.is_empty(), "{problems:?}");
    let paths: Vec<(&str, &str, &str)> = plan
        .fields
        .iter()
        .map(|f| {
            (
                f.c_path.as_str(),
                f.rust_path.as_str(),
                f.rust_type.as_str(),
            )
        })
        .collect();
    assert_eq!(
        paths,
        [
            ("type", "type_", "::core::ffi::c_int"),
            ("a", "__bindgen_anon_1.a", "::core::ffi::c_int"),
            ("b", "__bindgen_anon_1.b", "f32"),
            ("pos", "pos", "P__bindgen_ty_2"),
            ("pos.x", "pos.x", "::core::ffi::c_int"),
        ]
    );
    assert_eq!((counts.records, counts.fields), (1, 5));
}

#[test]
fn a_name_on_one_side_only_is_a_difference() {
    let mut view = p_view();
    // A field renamed, an extra field in an anonymous member, a record of no C type.
    view.records.get_mut("P").unwrap().fields[0].0 = "kind".into();
    view.records
        .get_mut("P__bindgen_ty_1")
        .unwrap()
        .fields
        .push(("c".into(), "u8".into()));
    view.records.insert("Q".into(), RustRecord::default());
    let (_, _, problems) = plan(&p_header(), &view);
    assert_eq!(
        problems,
        [
            "field P.type of cuda.h is not in the bindings (type_)",
            "field P.kind is in the bindings but not in cuda.h",
            "field P__bindgen_ty_1.c is in the bindings but not in cuda.h",
            "struct Q is in the bindings but not in cuda.h",
        ]
    );
}

#[test]
fn kinds_opaqueness_enums_and_typedefs_are_matched() {
    let header = Header {
        records: vec![
            Record {
                name: "U".into(),
                c_type: "union U".into(),
                union: true,
                complete: true,
                members: Vec::new(),
            },
            Record {
                name: "Handle_st".into(),
                c_type: "struct Handle_st".into(),
                union: false,
                complete: false,
                members: Vec::new(),
            },
        ],
        enums: vec![Enum {
            name: "E_enum".into(),
            c_type: "enum E_enum".into(),
            constants: vec!["E_A".into(), "E_B".into()],
        }],
        typedefs: vec![Typedef { name: "E".into() }, Typedef { name: "T".into() }],
        ..Header::default()
    };
    let mut view = View::default();
    view.records.insert("U".into(), RustRecord::default());
    view.records.insert(
        "Handle_st".into(),
        RustRecord {
            fields: fields(&[("x", "u8")]),
            ..RustRecord::default()
        },
    );
    view.enums.insert(
        "E_enum".into(),
        ["E_A".to_string(), "E_C".to_string()].into(),
    );
    view.aliases.insert("E".into());
    let (plan, counts, problems) = plan(&header, &view);
    assert_eq!(
        problems,
        [
            "U is a union in cuda.h and a struct in the bindings",
            "Handle_st is only declared in cuda.h (opaque) but has fields in the bindings",
            "enumerator E_enum::E_B of cuda.h is not in the bindings",
            "enumerator E_enum::E_C is in the bindings but not in cuda.h",
            "typedef T of cuda.h is not in the bindings",
        ]
    );
    assert_eq!(plan.enumerators, [("E_enum".into(), "E_A".into())]);
    assert_eq!(
        (
            counts.enums,
            counts.enumerators,
            counts.typedefs,
            counts.opaque
        ),
        (1, 1, 1, 1)
    );
}

/// `typedef enum E_enum { E_A } E;` with the struct named `E` and `pub use self::E as E_enum;`:
/// the C tag finds the struct, which is then in cuda.h, and C measures `enum E_enum` as Rust
/// measures `E_enum` (the same type).
#[test]
fn an_enum_named_by_its_typedef_is_found_by_its_tag() {
    let header = Header {
        enums: vec![Enum {
            name: "E_enum".into(),
            c_type: "enum E_enum".into(),
            constants: vec!["E_A".into()],
        }],
        typedefs: vec![Typedef { name: "E".into() }],
        ..Header::default()
    };
    let mut view = View::default();
    view.enums.insert("E".into(), ["E_A".to_string()].into());
    view.aliases.insert("E_enum".into());
    view.enum_aliases.insert("E_enum".into(), "E".into());
    let (plan, counts, problems) = plan(&header, &view);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(plan.enumerators, [("E_enum".into(), "E_A".into())]);
    assert!(plan
        .types
        .contains(&("E_enum".into(), "enum E_enum".into())));
    assert_eq!(
        (counts.enums, counts.enumerators, counts.typedefs),
        (1, 1, 1)
    );
}

fn map(list: &[(&str, &str)]) -> BTreeMap<String, String> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A known difference, as `KNOWN` lists one (`(~0u)` was one, until the generator gave such
/// macros their C type).
const A_KNOWN: &[(&str, &str)] = &[("constant ANY", "an unsigned int in C, i32 in the bindings")];

#[test]
fn numbers_are_compared_key_by_key() {
    let (known_key, _) = A_KNOWN[0];
    let c = map(&[
        ("S: size, alignment", "16, 8"),
        ("S.a: offset, size", "0, 8"),
        (known_key, "4294967295"),
        ("only C", "1"),
    ]);
    let rust = map(&[
        ("S: size, alignment", "16, 8"),
        ("S.a: offset, size", "0, 4"),
        (known_key, "-1"),
        ("constant GONE", "40"),
        ("constant NEVER", "1"),
    ]);
    let compared = compare(&c, &rust, &["GONE".to_string()].into(), A_KNOWN);
    assert_eq!(
        compared.problems,
        [
            "S.a: offset, size: 0, 8 in C, 0, 4 in the bindings",
            "constant NEVER of the bindings is no macro of cuda.h",
            "only C: measured in C, not in the bindings",
        ]
    );
    assert_eq!((compared.known, compared.undefined), (1, 1));
}

#[test]
fn a_known_difference_that_is_gone_fails() {
    let (known_key, _) = A_KNOWN[0];
    let both = map(&[(known_key, "4294967295")]);
    let compared = compare(&both, &both, &BTreeSet::new(), A_KNOWN);
    assert_eq!(
        compared.problems,
        [format!(
            "{known_key}: 4294967295 in C and in the bindings; remove it from layout::KNOWN"
        )]
    );
}

#[test]
fn the_report_fails_on_any_difference_and_counts_everything() {
    let release = crate::releases::RELEASES[0];
    let counts = Counts {
        records: 2,
        fields: 5,
        ..Counts::default()
    };
    let good = Outcome {
        counts: counts.clone(),
        problems: Vec::new(),
    };
    let bad = Outcome {
        counts,
        problems: vec!["S.a: offset, size: 0, 8 in C, 0, 4 in the bindings".into()],
    };
    let text = report(&[(release, good.clone()), (release, good.clone())]).unwrap();
    assert!(
        text.contains("2 releases, in all: 4 structs/unions (0 opaque, by presence), 10 fields"),
        "{text}"
    );
    let err = report(&[(release, good), (release, bad)]).unwrap_err();
    assert!(
        err.contains("  CUDA 11.7: S.a: offset, size: 0, 8 in C, 0, 4 in the bindings"),
        "{err}"
    );
    assert!(
        err.ends_with("the layouts of 1 release(s) differ between the C compiler and the bindings"),
        "{err}"
    );
}
