#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace parley::cli {

ProgressBar::ProgressBar(bool wanted)
    : enabled_(wanted && isatty(STDERR_FILENO) == 1), started_(std::chrono::steady_clock::now()), last_draw_(started_) {}

void ProgressBar::update(const RunProgress& progress) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (progress.done < progress.total && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  draw(progress);
}

void ProgressBar::draw(const RunProgress& progress) {
  constexpr int kWidth = 30;
  const double fraction = progress.total > 0 ? static_cast<double>(progress.done) / static_cast<double>(progress.total) : 1.0;
  const int filled = static_cast<int>(fraction * kWidth);
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kWidth] = '\0';
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::fprintf(stderr, "\r[%s] %lld/%lld debates  %.1fs%s", bar, static_cast<long long>(progress.done),
               static_cast<long long>(progress.total), elapsed,
               progress.failed > 0 ? "  (some failed)" : "");
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) std::fputs("\n", stderr);
}

}  // namespace parley::cli
