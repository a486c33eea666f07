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

}  // namespace
}  // namespace parley
