#include "cli/heap.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include <sys/resource.h>

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#define PARLEY_HUGE_PAGE_HEAP 1
#endif

namespace parley::cli {
namespace {

std::string first_line(const char* path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

}  // namespace

HeapSystem read_heap_system() {
  HeapSystem system;
  system.transparent_huge_pages = first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  system.overcommit = first_line("/proc/sys/vm/overcommit_memory");
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    system.memory_limited |= getrlimit(resource, &limit) != 0 || limit.rlim_cur != RLIM_INFINITY;
  }
  return system;
}

bool reserve_pays(const HeapSystem& system) {
  // THP "never" (or no THP at all) gains nothing; under strict overcommit the reserve is charged
  // against the commit limit, and under RLIMIT_AS or RLIMIT_DATA against the process's limit.
  const bool huge_pages = system.transparent_huge_pages.find("[always]") != std::string::npos ||
                          system.transparent_huge_pages.find("[madvise]") != std::string::npos;
  return huge_pages && system.overcommit != "2" && !system.memory_limited;
}

void reserve_heap_in_huge_pages() {
#if defined(PARLEY_HUGE_PAGE_HEAP) && defined(MADV_HUGEPAGE)
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  // Address space only: pages are backed when first touched, so RSS is what the run uses.
  constexpr std::size_t kReserve = std::size_t{256} << 20;
  constexpr int kDefaultPadAndThresholds = 128 * 1024;  // glibc's documented defaults (mallopt(3))
  if (!reserve_pays(read_heap_system())) return;

  // glibc's main heap grows by sbrk; with a top pad its next growth takes the reserve at once.
  // A high trim threshold keeps freed memory rather than giving it back to be faulted in again,
  // and blocks up to 4 MiB come from the heap rather than from mmaps of their own.
  if (mallopt(M_TOP_PAD, static_cast<int>(kReserve)) == 0) return;
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * kReserve));
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(2 * kHugePage));
  const auto heap_end = [] { return reinterpret_cast<std::uintptr_t>(sbrk(0)); };
  const std::uintptr_t before = heap_end();
  // Called through a volatile pointer, which the compiler cannot elide as an unused allocation.
  void* (*volatile allocate)(std::size_t) = std::malloc;
  void* growth = allocate(kHugePage);  // larger than the heap's free top: the heap grows
  const std::uintptr_t after = heap_end();
  std::free(growth);
  mallopt(M_TOP_PAD, kDefaultPadAndThresholds);  // later growths take what they need
  const std::uintptr_t start = (before + kHugePage - 1) & ~(kHugePage - 1);
  if (after <= start + kHugePage) {  // the heap did not grow (or not by sbrk): nothing to advise
    mallopt(M_TRIM_THRESHOLD, kDefaultPadAndThresholds);
    mallopt(M_MMAP_THRESHOLD, kDefaultPadAndThresholds);
    return;
  }
  madvise(reinterpret_cast<void*>(start), after - start, MADV_HUGEPAGE);
#endif
}

}  // namespace parley::cli
