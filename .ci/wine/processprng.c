/* Wine 8 lacks bcryptprimitives.dll!ProcessPrng, which Rust's std imports on Windows.
 * This stand-in forwards to RtlGenRandom (advapi32's SystemFunction036). */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) { return SystemFunction036(data, (ULONG)len); }
