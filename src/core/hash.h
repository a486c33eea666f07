#pragma once
// Stable hashing and a small deterministic RNG. The simulator derives every random draw from
// hashes of (seed, task, agent, round, ...) so that results do not depend on scheduling order;
// the record/replay cache keys requests by hash. Values are stable across platforms and runs.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace parley {

// 64-bit FNV-1a of bytes, continued from `state`.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state = 0xcbf29ce484222325ULL);

// Mixes several parts into one well-spread 64-bit value (order matters).
class HashBuilder {
 public:
  HashBuilder& add(std::string_view s);
  HashBuilder& add(std::uint64_t v);
  HashBuilder& add(std::int64_t v) { return add(static_cast<std::uint64_t>(v)); }
  HashBuilder& add(int v) { return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  HashBuilder& add(double v);
  std::uint64_t value() const;

 private:
  std::uint64_t state_ = 0x9e3779b97f4a7c15ULL;
};

// splitmix64 finaliser.
std::uint64_t mix64(std::uint64_t x);

// 32 lowercase hex digits from two independent 64-bit hashes of `bytes`.
std::string hash_hex128(std::string_view bytes);

class Rng;

// Uniform draws from [0, n), n > 0, for many draws with the same n: the rejection limit and a
// reciprocal of n are computed once, so a draw needs no division (the bootstrap makes millions).
// Rng::below(n) gives the same stream.
class UniformIndex {
 public:
  explicit UniformIndex(std::uint64_t n);
  std::uint64_t operator()(Rng& rng) const;

 private:
  std::uint64_t n_;
  std::uint64_t limit_;       // rejection sampling avoids modulo bias
  std::uint64_t reciprocal_;  // floor((2^64 - 1) / n): x / n is high64(x * reciprocal_) or one more
};

// Deterministic generator (xoshiro256**), seeded from one 64-bit value.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  double uniform();                 // [0, 1)
  double uniform(double lo, double hi);
  double normal();                  // standard normal (Box–Muller)
  std::uint64_t below(std::uint64_t n);  // [0, n), n > 0
  double beta(double a, double b);  // Beta(a, b), a, b > 0

  // UniformRandomBitGenerator, for std::shuffle.
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() { return next(); }

 private:
  double gamma(double shape);
  std::uint64_t s_[4];
};

// Inline: the bootstrap draws millions of indices.
inline std::uint64_t Rng::next() {
  auto rotl = [](std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

inline std::uint64_t UniformIndex::operator()(Rng& rng) const {
  std::uint64_t x = rng.next();
  while (x >= limit_) x = rng.next();
  // x % n without a division. reciprocal_ falls short of 2^64 / n by at most 1, so the estimated
  // quotient falls short of x / n by less than x / 2^64 < 1: it is the quotient or one less.
  __extension__ using Wide = unsigned __int128;
  const auto quotient = static_cast<std::uint64_t>((static_cast<Wide>(x) * reciprocal_) >> 64);
  const std::uint64_t remainder = x - quotient * n_;
  return remainder >= n_ ? remainder - n_ : remainder;
}

}  // namespace parley
