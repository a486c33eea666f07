#pragma once
// Sharing a whole number of tokens out in proportion: how the completion tokens one request
// with "n" was billed are given to its choices (openai_json, docs/formats.md "Token counts of
// one request with n"). A pure function; no state.

#include <cstdint>
#include <vector>

namespace parley {

// `total` split into whole parts proportional to `weights` (equal parts when all are 0), summing
// exactly to `total`: each part is rounded down and the remainder goes one by one to the largest
// fractional parts, the earliest first on a tie.
std::vector<std::int64_t> split_tokens(std::int64_t total, const std::vector<std::int64_t>& weights);

}  // namespace parley
