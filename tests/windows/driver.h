/* The driver functions the stand-in nvcuda.dll and cudart64_*.dll hand out, each with the C
 * signature cuda.h declares for the ABI it is handed out at, and the lookup both libraries answer
 * through. Included by nvcuda.c and cudart.c: each stand-in is one self-contained DLL that loads
 * nothing by name, so that which file was loaded is the only thing a test observes.
 *
 * The driver's behaviour, kept to what the runtime relies on: a lookup at a version older than
 * the function's first ABI reports "version not sufficient", an unknown name "symbol not found",
 * a version newer than this driver CUDA_ERROR_INVALID_VALUE, and a stream flag other than legacy
 * or per-thread CUDA_ERROR_INVALID_VALUE (the runtime never asks with the default flag). */

#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long cuuint64_t;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_NOT_FOUND = 500,
};

/* CUdriverProcAddressQueryResult (and libcudart's cudaDriverEntryPointQueryResult). */
enum { LOOKUP_SUCCESS = 0, LOOKUP_SYMBOL_NOT_FOUND = 1, LOOKUP_VERSION_NOT_SUFFICIENT = 2 };

/* CUdriverProcAddress_flags: the runtime asks with one of these two, never the default (0). */
enum { LEGACY_STREAM = 1, PER_THREAD_DEFAULT_STREAM = 2 };

/* What cuDriverGetVersion writes: CUDA 12.8. */
#define STAND_IN_DRIVER_VERSION 12080

static int initialised;

/* CUresult cuInit(unsigned int Flags), ABI 2000. */
static CUresult cuInit(unsigned int flags) {
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    initialised = 1;
    return CUDA_SUCCESS;
}

/* CUresult cuDriverGetVersion(int *driverVersion), ABI 2020. */
static CUresult cuDriverGetVersion(int *version) {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = STAND_IN_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

/* CUresult cuDeviceGetCount(int *count), ABI 2000: one device, after cuInit. */
static CUresult cuDeviceGetCount(int *count) {
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    *count = 1;
    return CUDA_SUCCESS;
}

/* CUresult cuDeviceGet(CUdevice *device, int ordinal), ABI 2000: ordinal 0 only. */
static CUresult cuDeviceGet(CUdevice *device, int ordinal) {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

/* CUresult cuDeviceGetName(char *name, int len, CUdevice dev), ABI 2000. */
static CUresult cuDeviceGetName(char *name, int len, CUdevice device) {
    static const char stand_in[] = "Stand-in GPU";
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
    size_t n = (size_t)len - 1 < sizeof stand_in - 1 ? (size_t)len - 1 : sizeof stand_in - 1;
    memcpy(name, stand_in, n);
    name[n] = 0;
    return CUDA_SUCCESS;
}

/* CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev), ABI 2000:
 * compute capability 9.0 (CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76). */
static CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
    switch (attribute) {
    case 75: *value = 9; return CUDA_SUCCESS;
    case 76: *value = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

/* CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev), ABI 3020: 80 GiB. */
static CUresult cuDeviceTotalMem(size_t *bytes, CUdevice device) {
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = (size_t)80 << 30;
    return CUDA_SUCCESS;
}

static const struct { CUresult code; const char *name, *text; } errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
};

static CUresult error_text(CUresult code, const char **out, int want_name) {
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        if (errors[i].code == code) {
            *out = want_name ? errors[i].name : errors[i].text;
            return CUDA_SUCCESS;
        }
    }
    *out = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

/* CUresult cuGetErrorName(CUresult error, const char **pStr), ABI 6000. */
static CUresult cuGetErrorName(CUresult code, const char **name) {
    return error_text(code, name, 1);
}

/* CUresult cuGetErrorString(CUresult error, const char **pStr), ABI 6000. */
static CUresult cuGetErrorString(CUresult code, const char **text) {
    return error_text(code, text, 0);
}

static const struct { const char *name; int abi; void *fn; } functions[] = {
    {"cuInit", 2000, (void *)cuInit},
    {"cuDriverGetVersion", 2020, (void *)cuDriverGetVersion},
    {"cuDeviceGetCount", 2000, (void *)cuDeviceGetCount},
    {"cuDeviceGet", 2000, (void *)cuDeviceGet},
    {"cuDeviceGetName", 2000, (void *)cuDeviceGetName},
    {"cuDeviceGetAttribute", 2000, (void *)cuDeviceGetAttribute},
    /* Only its ABI 3020 (size_t); the 32-bit ABI 2000 is not handed out. */
    {"cuDeviceTotalMem", 3020, (void *)cuDeviceTotalMem},
    {"cuGetErrorName", 6000, (void *)cuGetErrorName},
    {"cuGetErrorString", 6000, (void *)cuGetErrorString},
};

/* The lookup: `symbol` at ABI `version` with stream flag `flags`. */
static CUresult lookup(const char *symbol, void **fn, int version, cuuint64_t flags, int *status) {
    if (!symbol || !fn) return CUDA_ERROR_INVALID_VALUE;
    *fn = NULL;
    if (version > STAND_IN_DRIVER_VERSION) return CUDA_ERROR_INVALID_VALUE;
    if (flags != LEGACY_STREAM && flags != PER_THREAD_DEFAULT_STREAM)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        if (strcmp(functions[i].name, symbol) == 0) {
            if (version < functions[i].abi) {
                *status = LOOKUP_VERSION_NOT_SUFFICIENT;
                return CUDA_SUCCESS;
            }
            *fn = functions[i].fn;
            *status = LOOKUP_SUCCESS;
            return CUDA_SUCCESS;
        }
    }
    *status = LOOKUP_SYMBOL_NOT_FOUND;
    return CUDA_SUCCESS;
}
