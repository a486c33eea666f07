#pragma once
// The parley executable's heap in 2 MiB pages. A run makes and frees millions of strings; in
// 4 KiB pages the heap's first-touch page faults and TLB misses took about a quarter of a
// simulated run on the development machine (docs/performance.md). Linux backs memory advised
// with MADV_HUGEPAGE by transparent huge pages when its THP mode is "always" or "madvise" (the
// default of most distributions).

#include <string>

namespace parley::cli {

// Grows glibc's heap once by a reserve of address space and advises it for huge pages; called
// first in main. It leaves glibc's allocator with a high trim threshold (freed memory is kept
// for reuse rather than returned) and a 4 MiB mmap threshold; later growths of the heap take
// what they need, as before. It does nothing where it could cost a run its memory or gain
// nothing: THP "never", a limit on the address space or the data segment (RLIMIT_AS,
// RLIMIT_DATA), strict overcommit (vm.overcommit_memory = 2), or an allocator other than
// glibc's. If the heap does not grow, the pad and thresholds are set back to glibc's
// documented defaults (fixed from then on: an explicit mallopt ends glibc's adaptive mmap
// threshold).
void reserve_heap_in_huge_pages();

// What the reserve depends on, read from the system: the first lines of
// /sys/kernel/mm/transparent_hugepage/enabled and /proc/sys/vm/overcommit_memory, and whether
// RLIMIT_AS or RLIMIT_DATA limits the process's memory.
struct HeapSystem {
  std::string transparent_huge_pages;  // e.g. "always [madvise] never"
  std::string overcommit;              // "0", "1" or "2"
  bool memory_limited = false;
};
HeapSystem read_heap_system();
// Whether a reserve can gain anything and cost nothing there.
bool reserve_pays(const HeapSystem& system);

}  // namespace parley::cli
