#pragma once
// Argument checks shared by the UDPO functions (parley/udpo.h): a failed check throws
// std::invalid_argument naming the function and the reason. Internal to src/udpo.

#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>

namespace parley::udpo::detail {

inline void require(bool condition, std::string_view function, std::string_view reason) {
  if (!condition) throw std::invalid_argument("udpo::" + std::string(function) + ": " + std::string(reason));
}

// Finite and ≥ 0: a coefficient, a weight, an uncertainty.
inline bool non_negative(double value) { return std::isfinite(value) && value >= 0.0; }

}  // namespace parley::udpo::detail
