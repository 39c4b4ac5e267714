#include "CMallocTuning.h"
#include <stdlib.h> // defines __GLIBC__ on glibc
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// `convos` with ten thousand conversations reads a 3.6 MB answer, then writes a 1 MB cache
// file and a 600 KB table. By default glibc gives each block over 128 KiB its own mapping
// and unmaps it when freed, and returns the heap's free top to the kernel: every one of
// those buffers met fresh pages, a page fault each 4 KiB (4,000 a run), and the heap grew
// one brk at a time. Kept instead, the freed answer's pages hold the cache file and the
// table: 800 faults fewer and 5 to 10 % of the command's time. A command exits
// soon after, so nothing is held for long; `tail -f` holds what its largest page took.
void nexus_malloc_tune_for_commands(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
#endif
}
