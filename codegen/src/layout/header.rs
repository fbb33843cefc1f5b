//! The C side's list of what to measure: every struct, union, enum and typedef that `cuda.h`
//! declares, with the members of each record, read from libclang's syntax tree of the header
//! (not from bindgen, whose output is what is being checked). libclang only names things here;
//! the numbers come from the C compiler (see `programs`).

use super::{Enum, Header, Record, Segment, Typedef};
use clang_sys::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::path::Path;

/// Reads `cuda.h` in `include` as bindgen does (the same defines), and lists what it declares.
pub fn read(include: &Path) -> Result<Header, String> {
    if !clang_sys::is_loaded() {
        crate::parse::check_libclang("the layout check reads cuda.h through clang-sys")?;
    }
    let header = include.join("cuda.h");
    let mut args: Vec<CString> = vec![
        CString::new("-x").unwrap_or_default(),
        CString::new("c").unwrap_or_default(),
        CString::new(format!("-I{}", include.display()))
            .map_err(|_| format!("{} holds a NUL byte", include.display()))?,
    ];
    for define in crate::parse::CLANG_DEFINES {
        args.push(CString::new(*define).unwrap_or_default());
    }
    let arg_ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    let file = CString::new(header.display().to_string())
        .map_err(|_| format!("{} holds a NUL byte", header.display()))?;
    // SAFETY: libclang is loaded on this thread (above); every pointer passed lives until the
    // translation unit is parsed (`args`, `arg_ptrs`, `file`), and there are no unsaved files.
    let index = unsafe { clang_createIndex(0, 0) };
    // SAFETY: as above; `index` is the index just created.
    let tu = unsafe {
        clang_parseTranslationUnit(
            index,
            file.as_ptr(),
            arg_ptrs.as_ptr(),
            arg_ptrs.len() as c_int,
            std::ptr::null_mut(),
            0,
            CXTranslationUnit_None,
        )
    };
    if tu.is_null() {
        // SAFETY: `index` was created above and is disposed once.
        unsafe { clang_disposeIndex(index) };
        return Err(format!("libclang could not parse {}", header.display()));
    }
    let result = errors(tu).map(|()| {
        // SAFETY: `tu` is a parsed translation unit, disposed only below.
        let root = unsafe { clang_getTranslationUnitCursor(tu) };
        walk(root)
    });
    // SAFETY: both were created above; the cursors read from them are not used after this.
    unsafe {
        clang_disposeTranslationUnit(tu);
        clang_disposeIndex(index);
    }
    let mut header_view = result.map_err(|e| format!("{}: {e}", header.display()))?;
    let text = std::fs::read_to_string(&header)
        .map_err(|e| format!("cannot read {}: {e}", header.display()))?;
    header_view.undefined = undefined_macros(&text);
    Ok(header_view)
}

/// The names a header `#undef`s.
pub fn undefined_macros(text: &str) -> std::collections::BTreeSet<String> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix('#')?.trim_start();
            let name = rest.strip_prefix("undef")?.split_whitespace().next()?;
            Some(name.to_string())
        })
        .collect()
}

/// The errors libclang found in the header, as one message (none: `Ok`).
fn errors(tu: CXTranslationUnit) -> Result<(), String> {
    let mut found = Vec::new();
    // SAFETY: `tu` is a live translation unit; each diagnostic is disposed after it is read.
    unsafe {
        for i in 0..clang_getNumDiagnostics(tu) {
            let d = clang_getDiagnostic(tu, i);
            if clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error {
                found.push(string(clang_formatDiagnostic(
                    d,
                    clang_defaultDiagnosticDisplayOptions(),
                )));
            }
            clang_disposeDiagnostic(d);
        }
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("libclang: {}", found.join("; ")))
    }
}

/// Takes a libclang string, returns it as Rust text, and frees it.
fn string(s: CXString) -> String {
    // SAFETY: `s` came from libclang and is disposed once, after its text is copied.
    unsafe {
        let p = clang_getCString(s);
        let text = if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        };
        clang_disposeString(s);
        text
    }
}

extern "C" fn collect(
    cursor: CXCursor,
    _parent: CXCursor,
    data: CXClientData,
) -> CXChildVisitResult {
    // SAFETY: `children` passes a pointer to its own `Vec<CXCursor>`, alive and not otherwise
    // borrowed while libclang calls this.
    let out = unsafe { &mut *data.cast::<Vec<CXCursor>>() };
    out.push(cursor);
    CXChildVisit_Continue
}

/// The direct children of a cursor, in source order.
fn children(cursor: CXCursor) -> Vec<CXCursor> {
    let mut out: Vec<CXCursor> = Vec::new();
    // SAFETY: `collect` treats the data pointer as this `Vec`, which outlives the call.
    unsafe {
        clang_visitChildren(
            cursor,
            collect,
            (&mut out as *mut Vec<CXCursor>).cast::<c_void>(),
        )
    };
    out
}

fn spelling(c: CXCursor) -> String {
    // SAFETY: a cursor of a live translation unit.
    string(unsafe { clang_getCursorSpelling(c) })
}

/// Whether a declaration has no name of its own (libclang spells those `""` or, since 16,
/// `struct (unnamed at ...)` / `(anonymous ...)`).
fn unnamed(c: CXCursor) -> bool {
    let s = spelling(c);
    s.is_empty() || s.contains('(') || s.contains(' ')
}

fn same(a: CXCursor, b: CXCursor) -> bool {
    // SAFETY: cursors of a live translation unit.
    unsafe { clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b)) != 0 }
}

fn in_header(c: CXCursor) -> bool {
    // SAFETY: a cursor of a live translation unit.
    unsafe { clang_Location_isFromMainFile(clang_getCursorLocation(c)) != 0 }
}

/// The declaration of a field's or typedef's type, looking through arrays (`None` for a
/// builtin, pointer or function type).
fn declaration_of(ty: CXType) -> Option<CXCursor> {
    // SAFETY: a type of a live translation unit.
    unsafe {
        let mut ty = ty;
        while ty.kind == CXType_ConstantArray {
            ty = clang_getArrayElementType(ty);
        }
        let d = clang_getTypeDeclaration(ty);
        (clang_Cursor_isNull(d) == 0 && d.kind != CXCursor_NoDeclFound).then_some(d)
    }
}

fn is_record(c: CXCursor) -> bool {
    c.kind == CXCursor_StructDecl || c.kind == CXCursor_UnionDecl
}

/// Every declaration of the header's file, recursively (records declared inside records are
/// records of their own in C).
fn walk(root: CXCursor) -> Header {
    let top: Vec<CXCursor> = children(root)
        .into_iter()
        .filter(|c| in_header(*c))
        .collect();
    // The typedef that names each unnamed record or enum (bindgen names those after it).
    let typedefs: Vec<(String, CXType)> = top
        .iter()
        .filter(|c| c.kind == CXCursor_TypedefDecl)
        .map(|c| {
            // SAFETY: a typedef cursor of a live translation unit.
            let underlying = unsafe { clang_getTypedefDeclUnderlyingType(*c) };
            (spelling(*c), underlying)
        })
        .collect();
    // A record's or enum's name (bindgen's) and how C names it: the tag (`struct X`), else the
    // typedef that names it. libclang spells an untagged one `""`, `struct (unnamed at ...)` or,
    // since 16, by its typedef's name: a typedef of the spelled name that names this very type
    // is used as its C name, which is right whether or not the type has that tag.
    let name_of = |decl: CXCursor| -> Option<(String, String)> {
        let keyword = if decl.kind == CXCursor_UnionDecl {
            "union"
        } else if decl.kind == CXCursor_EnumDecl {
            "enum"
        } else {
            "struct"
        };
        let typedef = |wanted: Option<&str>| {
            typedefs.iter().find_map(|(name, ty)| {
                // SAFETY: a type of a live translation unit.
                let underlying = unsafe { clang_getTypeDeclaration(*ty) };
                (wanted.is_none_or(|w| w == name) && same(underlying, decl)).then(|| name.clone())
            })
        };
        if unnamed(decl) {
            return typedef(None).map(|name| (name.clone(), name));
        }
        let tag = spelling(decl);
        match typedef(Some(&tag)) {
            Some(name) => Some((tag, name)),
            None => Some((tag.clone(), format!("{keyword} {tag}"))),
        }
    };

    let mut header = Header::default();
    // Each declaration with the name of the record it is declared in: bindgen names a record
    // declared inside another `Outer_Inner` (C declares it at file scope, as `struct Inner`).
    let mut queue: Vec<(CXCursor, Option<String>)> = top.iter().map(|c| (*c, None)).collect();
    while let Some((c, outer)) = queue.pop() {
        if is_record(c) {
            let Some((tag, c_type)) = name_of(c) else {
                // An unnamed record outside any member or typedef: nothing can name it.
                continue;
            };
            let name = match outer {
                Some(o) => format!("{o}_{tag}"),
                None => tag,
            };
            queue.extend(
                children(c)
                    .into_iter()
                    .filter(|k| is_record(*k) && !unnamed(*k))
                    .map(|k| (k, Some(name.clone()))),
            );
            if header.records.iter().any(|r| r.name == name) {
                // Another declaration of a record listed already (through its definition).
                continue;
            }
            // SAFETY: a cursor of a live translation unit.
            let definition = unsafe { clang_getCursorDefinition(c) };
            // SAFETY: as above.
            let r = if unsafe { clang_Cursor_isNull(definition) } != 0 {
                Record {
                    name,
                    c_type,
                    union: c.kind == CXCursor_UnionDecl,
                    complete: false,
                    members: Vec::new(),
                }
            } else {
                record(definition, name, c_type, &mut header.skipped)
            };
            header.records.push(r);
        } else if c.kind == CXCursor_EnumDecl {
            let Some((name, c_type)) = name_of(c) else {
                header.skipped.unnamed_enums += 1;
                continue;
            };
            if header.enums.iter().any(|e| e.name == name) {
                continue;
            }
            let constants = children(c)
                .into_iter()
                .filter(|k| k.kind == CXCursor_EnumConstantDecl)
                .map(spelling)
                .collect();
            header.enums.push(Enum {
                name,
                c_type,
                constants,
            });
        }
    }
    header.records.sort_by(|a, b| a.name.cmp(&b.name));
    header.enums.sort_by(|a, b| a.name.cmp(&b.name));

    for (name, ty) in &typedefs {
        // SAFETY: types of a live translation unit.
        let (canonical, size, direct) = unsafe {
            let canonical = clang_getCanonicalType(*ty);
            (
                canonical,
                clang_Type_getSizeOf(canonical),
                clang_getTypeDeclaration(*ty),
            )
        };
        if canonical.kind == CXType_FunctionProto || canonical.kind == CXType_FunctionNoProto {
            continue;
        }
        // The name of an unnamed record or enum is that type's own name (one item in the
        // bindings), as is `typedef struct X X;`.
        if (is_record(direct) || direct.kind == CXCursor_EnumDecl)
            && name_of(direct).is_some_and(|(n, _)| n == *name)
        {
            continue;
        }
        if size < 0 {
            // A typedef of an incomplete type (an opaque struct): it has no size.
            header.skipped.incomplete_typedefs += 1;
            continue;
        }
        header.typedefs.push(Typedef { name: name.clone() });
    }
    header.typedefs.sort_by(|a, b| a.name.cmp(&b.name));
    header.typedefs.dedup_by(|a, b| a.name == b.name);
    header
}

/// A record's members: each named field by its path, the fields of anonymous members and of
/// fields of an unnamed type through them.
fn record(def: CXCursor, name: String, c_type: String, skipped: &mut super::Skipped) -> Record {
    let mut members = Vec::new();
    members_of(def, &mut Vec::new(), &mut members, skipped);
    Record {
        name,
        c_type,
        union: def.kind == CXCursor_UnionDecl,
        complete: true,
        members,
    }
}

fn members_of(
    def: CXCursor,
    prefix: &mut Vec<Segment>,
    out: &mut Vec<Vec<Segment>>,
    skipped: &mut super::Skipped,
) {
    let kids = children(def);
    // The unnamed records that type a named field (`union { ... } params;`): not anonymous
    // members.
    let field_types: Vec<CXCursor> = kids
        .iter()
        .filter(|k| k.kind == CXCursor_FieldDecl)
        // SAFETY: a field cursor of a live translation unit.
        .filter_map(|k| declaration_of(unsafe { clang_getCursorType(*k) }))
        .collect();
    let mut anonymous = 0;
    for k in kids {
        if k.kind == CXCursor_FieldDecl {
            // SAFETY: a field cursor of a live translation unit.
            if unsafe { clang_Cursor_isBitField(k) } != 0 {
                skipped.bitfields += 1;
                continue;
            }
            prefix.push(Segment::Named(spelling(k)));
            out.push(prefix.clone());
            // SAFETY: as above.
            let ty = unsafe { clang_getCursorType(k) };
            if let Some(d) = declaration_of(ty).filter(|d| is_record(*d) && unnamed(*d)) {
                if ty.kind == CXType_ConstantArray {
                    // An array of an unnamed record: Rust's `offset_of!` cannot index; the
                    // array itself is checked, its element's fields are not.
                    skipped.in_arrays += count_fields(d);
                } else {
                    members_of(d, prefix, out, skipped);
                }
            }
            prefix.pop();
        } else if is_record(k) && unnamed(k) && !field_types.iter().any(|t| same(*t, k)) {
            anonymous += 1;
            skipped.anonymous_members += 1;
            prefix.push(Segment::Anonymous(anonymous));
            members_of(k, prefix, out, skipped);
            prefix.pop();
        }
    }
}

fn count_fields(def: CXCursor) -> usize {
    let mut out = Vec::new();
    let mut skipped = super::Skipped::default();
    members_of(def, &mut Vec::new(), &mut out, &mut skipped);
    out.len()
}
