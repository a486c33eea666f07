#include "llm/token_split.h"

#include <algorithm>
#include <cstddef>

namespace parley {

std::vector<std::int64_t> split_tokens(std::int64_t total, const std::vector<std::int64_t>& weights) {
  std::vector<std::int64_t> parts(weights.size(), 0);
  if (weights.empty()) return parts;
  std::vector<std::int64_t> shares = weights;
  std::int64_t sum = 0;
  for (std::int64_t share : shares) sum += share;
  if (sum <= 0) {
    std::fill(shares.begin(), shares.end(), 1);
    sum = static_cast<std::int64_t>(shares.size());
  }
  // total · share / sum, computed as q · share + r · share / sum so that nothing overflows
  // for weights summing below 2^31.
  const std::int64_t quotient = total / sum;
  const std::int64_t rest = total % sum;
  std::vector<std::int64_t> remainders(shares.size());
  std::int64_t handed = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    parts[i] = quotient * shares[i] + rest * shares[i] / sum;
    remainders[i] = rest * shares[i] % sum;
    handed += parts[i];
  }
  std::vector<std::size_t> order(shares.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&remainders](std::size_t a, std::size_t b) { return remainders[a] > remainders[b]; });
  for (std::size_t k = 0; handed < total; ++k, ++handed) ++parts[order[k]];
  return parts;
}

}  // namespace parley
