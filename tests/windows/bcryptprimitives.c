/* ProcessPrng, the one function of bcryptprimitives.dll that Rust's standard library imports (for
 * HashMap's random keys). Windows 10 and newer have the DLL; Wine 8 (Debian 12) does not, so
 * scripts/windows.sh builds this with mingw and puts it in the Wine prefix's system folder where
 * Wine lacks one. It fills the buffer from BCryptGenRandom, which Wine has. */

#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
