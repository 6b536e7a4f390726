/* glibc's allocator tuning and statistics, which Swift's Glibc module does not export (malloc.h).
 * Used only by the jwtverify executable and the benchmark, never by the library. */
#ifndef CMALLOCTUNING_SHIM_H
#define CMALLOCTUNING_SHIM_H

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>

/* Keep freed memory for reuse instead of returning it to the kernel: large blocks stay on the heap
 * (mmap threshold 32 MiB) and the heap top is trimmed only past 256 MiB. Returns 1 on success. */
static inline int cmalloc_keep_freed_memory(void) {
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1;
}

/* Heap octets in use, mmapped blocks included (glibc's mallinfo2: uordblks + hblkhd). */
static inline size_t cmalloc_heap_in_use(void) { struct mallinfo2 info = mallinfo2(); return info.uordblks + info.hblkhd; }
#else
static inline int cmalloc_keep_freed_memory(void) { return 0; }
static inline size_t cmalloc_heap_in_use(void) { return 0; }
#endif

#endif
