// The built-in lexical encoder: values worked by hand from its definition (hashed counts of
// words and adjacent pairs, unit length), with the slots of the few terms checked distinct.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "parley/chat.h"
#include "parley/evidence.h"

namespace parley {
namespace {

std::size_t slot(std::string_view term) { return fnv1a64(term) % kLexicalDimensions; }

TEST(LexicalEmbedding, SharedWordsGiveTheCosineOfTheirCounts) {
  // "fever rash" has the terms {fever, rash, "fever rash"}; "fever cough" {fever, cough,
  // "fever cough"}: one shared term of three each, so the cosine is 1/3 when the five slots differ.
  const std::set<std::size_t> slots = {slot("fever"), slot("rash"), slot("fever rash"), slot("cough"),
                                       slot("fever cough")};
  ASSERT_EQ(slots.size(), 5u);
  EXPECT_NEAR(cosine_similarity(lexical_embedding("fever rash"), lexical_embedding("fever cough")), 1.0 / 3.0, 1e-12);
  // "fever fever": the word twice (count 2) and the pair once: (2² + 1) → components 2/√5, 1/√5.
  const std::vector<double> twice = lexical_embedding("fever fever");
  EXPECT_NEAR(std::fabs(twice[slot("fever")]), 2.0 / std::sqrt(5.0), 1e-12);
  EXPECT_NEAR(std::fabs(twice[slot("fever fever")]), 1.0 / std::sqrt(5.0), 1e-12);
}

TEST(LexicalEmbedding, CaseAndPunctuationDoNotMatterButWordOrderDoes) {
  EXPECT_NEAR(cosine_similarity(lexical_embedding("Dengue fever"), lexical_embedding("  dengue, FEVER!")), 1.0, 1e-12);
  // Reversed order keeps the words but not the pair: 2 of 3 terms shared.
  ASSERT_NE(slot("dengue fever"), slot("fever dengue"));
  EXPECT_NEAR(cosine_similarity(lexical_embedding("dengue fever"), lexical_embedding("fever dengue")), 2.0 / 3.0, 1e-12);
}

TEST(LexicalEmbedding, UnitLengthOrZeroAndTheRequestedSize) {
  const std::vector<double> v = lexical_embedding("Bilateral small-joint arthralgia favors Chikungunya.");
  ASSERT_EQ(v.size(), kLexicalDimensions);
  double norm = 0.0;
  for (double x : v) norm += x * x;
  EXPECT_NEAR(norm, 1.0, 1e-12);
  const std::vector<double> none = lexical_embedding(" ,.;! ");
  for (double x : none) EXPECT_EQ(x, 0.0);
  EXPECT_EQ(lexical_embedding("a b", 64).size(), 64u);
  // Non-ASCII bytes are word bytes: "fièvre" is one word, not "fi" and "vre".
  EXPECT_NEAR(cosine_similarity(lexical_embedding("fièvre"), lexical_embedding("fi vre")), 0.0, 1e-12);
}

}  // namespace
}  // namespace parley
