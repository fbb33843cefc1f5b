//! `manifest::typedef_parts`, the generator's one place that reads a version out of a `PFN_` name.
//! Pure string tests: no headers, no libclang.

use cuda_driver_table_codegen::manifest::typedef_parts;

#[test]
fn legacy_typedefs() {
    assert_eq!(
        typedef_parts("PFN_cuCtxCreate_v12050"),
        Some(("cuCtxCreate", 12050, false))
    );
    assert_eq!(
        typedef_parts("PFN_cuInit_v2000"),
        Some(("cuInit", 2000, false))
    );
    assert_eq!(
        typedef_parts("PFN_cuMemAlloc_v3020"),
        Some(("cuMemAlloc", 3020, false))
    );
}

#[test]
fn per_thread_typedefs() {
    assert_eq!(
        typedef_parts("PFN_cuStreamGetCaptureInfo_v11030_ptsz"),
        Some(("cuStreamGetCaptureInfo", 11030, true))
    );
    assert_eq!(
        typedef_parts("PFN_cuMemcpyHtoD_v7000_ptds"),
        Some(("cuMemcpyHtoD", 7000, true))
    );
    assert_eq!(
        typedef_parts("PFN_cuLaunchKernel_v7000_ptsz"),
        Some(("cuLaunchKernel", 7000, true))
    );
}

#[test]
fn names_with_digits_and_capitals_keep_their_base() {
    // Only the last `_v<digits>` is the version; capital `V` and inner digits are part of the name.
    assert_eq!(
        typedef_parts("PFN_cuMemcpy3DPeerAsync_v7000_ptsz"),
        Some(("cuMemcpy3DPeerAsync", 7000, true))
    );
    assert_eq!(
        typedef_parts("PFN_cuGraphicsVDPAURegisterVideoSurface_v3000"),
        Some(("cuGraphicsVDPAURegisterVideoSurface", 3000, false))
    );
    assert_eq!(
        typedef_parts("PFN_cuStreamWaitValue32_v11070_ptsz"),
        Some(("cuStreamWaitValue32", 11070, true))
    );
}

#[test]
fn unversioned_names_are_not_abis() {
    // The 12.x alias names, and the unversioned typedefs 12.4 ... 12.9 spell before the alias
    // renames them (`PFN_cuModuleGetFunctionCount`).
    assert_eq!(typedef_parts("PFN_cuCtxCreate"), None);
    assert_eq!(typedef_parts("PFN_cuModuleGetFunctionCount"), None);
    assert_eq!(typedef_parts("PFN_cuLaunchKernel_ptsz"), None);
    assert_eq!(typedef_parts("PFN_cuMemcpyHtoD_ptds"), None);
}

#[test]
fn malformed_names_are_rejected() {
    // Not a PFN typedef.
    assert_eq!(typedef_parts("cuCtxCreate_v12050"), None);
    assert_eq!(typedef_parts("pfn_cuCtxCreate_v12050"), None);
    assert_eq!(typedef_parts(""), None);
    assert_eq!(typedef_parts("PFN_"), None);
    // No base name.
    assert_eq!(typedef_parts("PFN__v12050"), None);
    assert_eq!(typedef_parts("PFN__v7000_ptsz"), None);
    // No digits, or not only digits, after `_v`.
    assert_eq!(typedef_parts("PFN_cuCtxCreate_v"), None);
    assert_eq!(typedef_parts("PFN_cuCtxCreate_v12a50"), None);
    assert_eq!(typedef_parts("PFN_cuCtxCreate_vX"), None);
    assert_eq!(typedef_parts("PFN_cuCtxCreate_v-1"), None);
    assert_eq!(typedef_parts("PFN_cuCtxCreate_v12050_"), None);
    // A per-thread suffix that is neither `_ptds` nor `_ptsz`.
    assert_eq!(typedef_parts("PFN_cuLaunchKernel_v7000_pt"), None);
    // A version that does not fit in u32.
    assert_eq!(typedef_parts("PFN_cuCtxCreate_v99999999999"), None);
}
