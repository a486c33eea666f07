#pragma once
// Synthetic training sets for the trigger tests: 41 features (the paper's count) of which the
// first is the LLM confidence; the label follows a linear rule in a few features plus the
// confidence's logit, with a margin (examples with |rule| < margin are redrawn), so the set is
// separable.

#include <cmath>
#include <string>
#include <vector>

#include "core/hash.h"
#include "parley/trigger_model.h"

namespace parley::trigger_test {

inline TrainingSet synthetic_set(int examples, std::uint64_t seed, int features = 41, double margin = 1.0) {
  Rng rng(seed);
  TrainingSet set;
  set.feature_names.push_back("FinalConfidence");
  for (int j = 1; j < features; ++j) set.feature_names.push_back("f" + std::to_string(j));
  while (static_cast<int>(set.rows.size()) < examples) {
    std::vector<double> row(static_cast<std::size_t>(features));
    const double c = rng.uniform(0.02, 0.98);
    row[0] = c;
    for (int j = 1; j < features; ++j) row[static_cast<std::size_t>(j)] = 3.0 * rng.normal() + j;
    // Linear rule: the first three hesitation features (when present) and the confidence's logit.
    double s = std::log(c / (1.0 - c));
    const double weights[] = {0.6, -0.5, 0.4};
    for (int j = 1; j < features && j <= 3; ++j) s += weights[j - 1] * (row[static_cast<std::size_t>(j)] - j);
    if (std::abs(s) < margin) continue;
    set.rows.push_back(std::move(row));
    set.labels.push_back(s > 0.0 ? 1 : 0);
  }
  return set;
}

// A small network (2 blocks of 16, dropout 0.1) trained for `epochs` epochs: fast enough for tests.
inline TrainOptions small_options(int epochs) {
  TrainOptions o;
  o.shape = MlpShape{2, 16, 0.1};
  o.epochs = epochs;
  return o;
}

}  // namespace parley::trigger_test
