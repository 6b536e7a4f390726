/* glibc's allocator tuning, which Swift's Glibc module does not export (malloc.h). Used only by the
 * jwtverify executable, never by the library. */
#ifndef CMALLOCTUNING_SHIM_H
#define CMALLOCTUNING_SHIM_H

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>

/* Keep freed memory for reuse instead of returning it to the kernel: large blocks stay on the heap
 * (mmap threshold 32 MiB) and the heap top is trimmed only past 256 MiB. Returns 1 on success. */
static inline int cmalloc_keep_freed_memory(void) {
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1;
}
#else
static inline int cmalloc_keep_freed_memory(void) { return 0; }
#endif

#endif
