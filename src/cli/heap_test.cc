// reserve_heap_in_huge_pages: after it, the heap holds a region advised for transparent huge
// pages (the "hg" flag of its VmFlags in /proc/self/smaps), about as big as the reserve, and
// allocations still work.
#include "cli/heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace parley::cli {
namespace {

bool transparent_huge_pages_offered() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  return !text.empty() && text.find("[never]") == std::string::npos;
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
  if (!transparent_huge_pages_offered()) GTEST_SKIP() << "this kernel offers no transparent huge pages";
  EXPECT_EQ(largest_advised_heap_region_kib(), 0);
  reserve_heap_in_huge_pages();
  // The advised range starts at the first 2 MiB boundary of the grown heap: nearly 256 MiB.
  EXPECT_GE(largest_advised_heap_region_kib(), 250 * 1024);
  std::vector<std::unique_ptr<std::string>> strings;
  for (int i = 0; i < 10000; ++i) strings.push_back(std::make_unique<std::string>(1000, 'x'));
  EXPECT_EQ(strings.back()->size(), 1000u);
#endif
}

}  // namespace
}  // namespace parley::cli
