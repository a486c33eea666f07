// reserve_heap_in_huge_pages: after it, the heap holds a region advised for transparent huge
// pages (the "hg" flag of its VmFlags in /proc/self/smaps) about as big as the reserve; under a
// limit on the address space it leaves the heap alone.
#include "cli/heap.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace parley::cli {
namespace {

std::string first_line_of(const char* path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// The size in KiB of the largest part of the heap advised with MADV_HUGEPAGE.
long largest_advised_heap_region_kib() {
  std::ifstream smaps("/proc/self/smaps");
  long largest = 0, size = 0;
  bool heap = false;
  for (std::string line; std::getline(smaps, line);) {
    const std::string first = line.substr(0, line.find(' '));
    if (first.find('-') != std::string::npos && first.find(':') == std::string::npos) {
      heap = line.ends_with("[heap]");  // a mapping's first line: its address range, ..., its name
    } else if (line.starts_with("Size:")) {
      size = std::stol(line.substr(5));
    } else if (heap && line.starts_with("VmFlags:") && line.find(" hg") != std::string::npos) {
      largest = std::max(largest, size);
    }
  }
  return largest;
}

TEST(Heap, ReserveIsAdvisedForHugePages) {
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
  GTEST_SKIP() << "the sanitizers' allocator (or a libc other than glibc) keeps its own heap";
#else
  if (!reserve_pays(read_heap_system())) GTEST_SKIP() << "no reserve is taken on this system";
  EXPECT_EQ(largest_advised_heap_region_kib(), 0);
  reserve_heap_in_huge_pages();
  // The advised range starts at the first 2 MiB boundary of the grown heap: nearly 256 MiB.
  EXPECT_GE(largest_advised_heap_region_kib(), 250 * 1024);
  // After the reserve is used up, the heap grows by what it needs again, not by another
  // reserve: 300 MiB in 64 KiB blocks, each growth well under 1 MiB.
  std::vector<std::unique_ptr<char[]>> blocks;
  std::uintptr_t end = reinterpret_cast<std::uintptr_t>(sbrk(0)), largest_growth = 0;
  for (int i = 0; i < 300 * 16; ++i) {
    blocks.push_back(std::make_unique<char[]>(64 * 1024));
    const auto now = reinterpret_cast<std::uintptr_t>(sbrk(0));
    largest_growth = std::max(largest_growth, now - end);
    end = now;
  }
  EXPECT_LT(largest_growth, std::uintptr_t{1} << 20);
#endif
}

// The address space limited to `headroom` beyond what the process holds: the heap is left as
// it was (no region advised) and a run that needs far less than the limit still gets its
// memory. (A failed reserve once kept a 256 MiB top pad that made every later growth fail.)
void allocate_under_a_limit(rlim_t headroom) {
  std::ifstream statm("/proc/self/statm");
  rlim_t pages = 0;
  statm >> pages;
  const rlim_t now = pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
  const rlimit limit{now + headroom, now + headroom};
  if (setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(2);
  reserve_heap_in_huge_pages();
  if (largest_advised_heap_region_kib() != 0) std::_Exit(3);
  std::vector<std::unique_ptr<char[]>> blocks;  // 64 MiB in 64 KiB blocks, from the heap
  for (int i = 0; i < 1024; ++i) {
    blocks.push_back(std::unique_ptr<char[]>(new (std::nothrow) char[64 * 1024]));
    if (!blocks.back()) std::_Exit(1);
    blocks.back()[0] = 1;
  }
  std::_Exit(0);
}

TEST(Heap, AnAddressSpaceLimitLeavesTheHeapAlone) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the sanitizers reserve their shadow memory against the same limit";
#endif
  // A fresh process (not a fork of this one, whose heap may already hold the reserve).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(allocate_under_a_limit(rlim_t{200} << 20), ::testing::ExitedWithCode(0), "");  // less than the reserve
  EXPECT_EXIT(allocate_under_a_limit(rlim_t{1} << 30), ::testing::ExitedWithCode(0), "");    // room for it
}

TEST(Heap, AReservePaysOnlyWithHugePagesAndRoomForIt) {
  EXPECT_TRUE(reserve_pays({"always [madvise] never", "0", false}));
  EXPECT_TRUE(reserve_pays({"[always] madvise never", "1", false}));
  EXPECT_FALSE(reserve_pays({"always madvise [never]", "0", false}));
  EXPECT_FALSE(reserve_pays({"", "0", false}));  // a kernel without THP
  EXPECT_FALSE(reserve_pays({"always [madvise] never", "2", false}));  // strict overcommit
  EXPECT_FALSE(reserve_pays({"always [madvise] never", "0", true}));   // RLIMIT_AS or RLIMIT_DATA
}

TEST(Heap, ReadsTheSystemItRunsOn) {
  const HeapSystem system = read_heap_system();
  EXPECT_EQ(system.transparent_huge_pages, first_line_of("/sys/kernel/mm/transparent_hugepage/enabled"));
  EXPECT_EQ(system.overcommit, first_line_of("/proc/sys/vm/overcommit_memory"));
  rlimit address_space{}, data{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &address_space), 0);
  ASSERT_EQ(getrlimit(RLIMIT_DATA, &data), 0);
  EXPECT_EQ(system.memory_limited, address_space.rlim_cur != RLIM_INFINITY || data.rlim_cur != RLIM_INFINITY);
}

}  // namespace
}  // namespace parley::cli
