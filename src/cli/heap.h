#pragma once
// The parley executable's heap in 2 MiB pages. A run makes and frees millions of strings; in
// 4 KiB pages the heap's first-touch page faults and TLB misses took about a quarter of a
// simulated run on the development machine (docs/performance.md). Linux backs memory advised
// with MADV_HUGEPAGE by transparent huge pages when its THP mode is "always" or "madvise" (the
// default of most distributions); elsewhere this changes nothing.

namespace parley::cli {

// Grows glibc's heap once by a reserve and advises it for huge pages; called first in main.
// Only speed is at stake: if any step is refused the heap stays as it was.
void reserve_heap_in_huge_pages();

}  // namespace parley::cli
