#pragma once
// A one-line progress bar on stderr, redrawn at most ten times a second; silent when stderr
// is not a terminal or --quiet is given.

#include <chrono>
#include <cstdint>

#include "parley/runner.h"

namespace parley::cli {

class ProgressBar {
 public:
  explicit ProgressBar(bool wanted = true);  // wanted = false: never draw (--quiet)
  void update(const RunProgress& progress);
  void finish();

 private:
  void draw(const RunProgress& progress);
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace parley::cli
