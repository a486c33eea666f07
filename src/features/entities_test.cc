// Named-entity heuristic on fixed texts (each expected span listed beside the case).

#include <gtest/gtest.h>

#include "parley/features.h"

namespace parley {
namespace {

TEST(NamedEntities, CapitalisedRuns) {
  EXPECT_EQ(named_entity_count("Paris is the capital of France."), 2);  // Paris, France
  // The Eiffel Tower (leading "The" dropped), 1889 (year), Gustave Eiffel.
  EXPECT_EQ(named_entity_count("The Eiffel Tower was built in 1889 by Gustave Eiffel."), 3);
  // "Considering" is a lone sentence-initial -ing word; Bank of England; United States of America.
  EXPECT_EQ(named_entity_count(
                "Considering the Bank of England and the United States of America, which is bigger?"),
            2);
}

TEST(NamedEntities, SentenceInitialCommonWordsPronounsAndLetters) {
  EXPECT_EQ(named_entity_count("However, the answer is B. I think Option C is wrong."), 0);
  EXPECT_EQ(named_entity_count("What is the boiling point of water?"), 0);
  EXPECT_EQ(named_entity_count("Answer: Jupiter"), 1);  // a label, then a name
}

TEST(NamedEntities, DatesAndQuantities) {
  // 45-year-old, 3 days, 39 C, $300, March 12, 2020.
  EXPECT_EQ(named_entity_count(
                "A 45-year-old man presents with 3 days of fever at 39 C and $300 bill on March 12, 2020."),
            5);
  // "May I" is a modal at the start; "In May the WHO" is one run (WHO is an acronym); Monday.
  EXPECT_EQ(named_entity_count("May I ask? In May the WHO met on Monday."), 2);
  EXPECT_EQ(named_entity_count("About 15% of cases occur in the 1990s."), 2);  // 15%, 1990s
  EXPECT_EQ(named_entity_count(""), 0);
}

}  // namespace
}  // namespace parley
