#include "core/hash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace parley {
namespace {

TEST(Hash, Fnv1aMatchesPublishedVectors) {
  // Reference values of 64-bit FNV-1a (Fowler/Noll/Vo test suite).
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(Hash, BuilderSeparatesFieldBoundaries) {
  EXPECT_NE(HashBuilder().add("ab").add("c").value(), HashBuilder().add("a").add("bc").value());
  EXPECT_EQ(HashBuilder().add("x").add(3).value(), HashBuilder().add("x").add(3).value());
}

TEST(Hash, Hex128IsStableAndWellFormed) {
  const auto h = hash_hex128("hello");
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h, hash_hex128("hello"));
  EXPECT_NE(h, hash_hex128("hello!"));
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(Rng, IsDeterministicPerSeed) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 10; ++i) {
    auto x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
  }
}

TEST(Rng, MomentsAreRight) {
  Rng rng(7);
  const int n = 200000;
  double sum_u = 0, sum_n = 0, sum_n2 = 0, sum_b = 0;
  for (int i = 0; i < n; ++i) {
    sum_u += rng.uniform();
    double z = rng.normal();
    sum_n += z;
    sum_n2 += z * z;
    sum_b += rng.beta(2.0, 6.0);
  }
  EXPECT_NEAR(sum_u / n, 0.5, 0.005);
  EXPECT_NEAR(sum_n / n, 0.0, 0.01);
  EXPECT_NEAR(sum_n2 / n, 1.0, 0.01);
  EXPECT_NEAR(sum_b / n, 0.25, 0.005);  // a / (a + b)
}

TEST(Rng, BelowCoversRangeUniformly) {
  Rng rng(1);
  int counts[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 50000; ++i) ++counts[rng.below(5)];
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
}

// UniformIndex takes the remainder through a reciprocal: it must equal the plain rejection-then-`%`
// draw on the same stream, for sizes at every edge of the estimate (powers of two, 2^64 - 1, ...).
TEST(UniformIndex, EqualsRejectionThenRemainder) {
  const std::uint64_t max = ~std::uint64_t{0};
  for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{7}, std::uint64_t{2000},
                                std::uint64_t{1} << 32, (std::uint64_t{1} << 32) + 1, std::uint64_t{1000000007},
                                std::uint64_t{1} << 63, (std::uint64_t{1} << 63) + 1, max / 3, max - 1, max}) {
    Rng drawn(n), raw(n);
    const UniformIndex index(n);
    const std::uint64_t limit = max - max % n;
    for (int i = 0; i < 20000; ++i) {
      std::uint64_t x = raw.next();
      while (x >= limit) x = raw.next();
      ASSERT_EQ(index(drawn), x % n) << "n = " << n << ", draw " << i;
    }
  }
}

}  // namespace
}  // namespace parley
