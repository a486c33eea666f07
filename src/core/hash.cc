#include "core/hash.h"

#include <cmath>
#include <cstring>

namespace parley {

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state) {
  for (unsigned char c : bytes) {
    state ^= c;
    state *= 0x100000001b3ULL;
  }
  return state;
}

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

HashBuilder& HashBuilder::add(std::string_view s) {
  // Length first so that ("ab","c") and ("a","bc") differ.
  state_ = mix64(state_ ^ s.size());
  state_ = mix64(state_ ^ fnv1a64(s));
  return *this;
}

HashBuilder& HashBuilder::add(std::uint64_t v) {
  state_ = mix64(state_ ^ mix64(v));
  return *this;
}

HashBuilder& HashBuilder::add(double v) {
  std::uint64_t bits = 0;
  static_assert(sizeof bits == sizeof v);
  std::memcpy(&bits, &v, sizeof bits);
  return add(bits);
}

std::uint64_t HashBuilder::value() const { return mix64(state_); }

std::string hash_hex128(std::string_view bytes) {
  const std::uint64_t a = mix64(fnv1a64(bytes));
  const std::uint64_t b = mix64(fnv1a64(bytes, 0x84222325cbf29ce4ULL) ^ bytes.size());
  static const char* digits = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[static_cast<std::size_t>(15 - i)] = digits[(a >> (4 * i)) & 0xf];
    out[static_cast<std::size_t>(31 - i)] = digits[(b >> (4 * i)) & 0xf];
  }
  return out;
}

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) {
    seed = mix64(seed);
    word = seed;
  }
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

double Rng::normal() {
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

UniformIndex::UniformIndex(std::uint64_t n)
    : n_(n), limit_(Rng::max() - Rng::max() % n), reciprocal_(Rng::max() / n) {}

std::uint64_t Rng::below(std::uint64_t n) { return UniformIndex(n)(*this); }

// Marsaglia–Tsang for shape >= 1, boosted for shape < 1.
double Rng::gamma(double shape) {
  if (shape < 1.0) {
    double u = uniform();
    while (u <= 0.0) u = uniform();
    return gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (u > 0.0 && std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

double Rng::beta(double a, double b) {
  const double x = gamma(a);
  const double y = gamma(b);
  return x / (x + y);
}

}  // namespace parley
