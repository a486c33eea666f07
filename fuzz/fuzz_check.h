#pragma once
// FUZZ_CHECK: an invariant of a fuzz target. A violation prints the condition and aborts, which
// libFuzzer reports as a crash with the input that caused it (and the replay driver as a
// failed test).
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition)                                                                   \
  do {                                                                                          \
    if (!(condition)) {                                                                         \
      std::fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                             \
    }                                                                                           \
  } while (false)
