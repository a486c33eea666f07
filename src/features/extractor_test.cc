// FeatureExtractor: 41 features named as in Table 5, and all 41 values pinned for one small input
// (readability worked out by hand; syntax as link-grammar parses it, see syntax_test.cc).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parley/features.h"

namespace parley {
namespace {

TEST(TriggerFeatureNames, Table5Order) {
  const std::vector<std::string>& names = trigger_feature_names();
  ASSERT_EQ(names.size(), 41u);
  EXPECT_EQ(names.front(), "QuestionToken");
  EXPECT_EQ(names[13], "qtype_other");
  EXPECT_EQ(names[14], "QSyntacticDepth");
  EXPECT_EQ(names[20], "InitialConfidence");
  EXPECT_EQ(names[30], "NegativeConfidence");
  EXPECT_EQ(names[34], "FinalConfidence");
  EXPECT_EQ(names.back(), "NegativeReason_num_adjs");
}

TEST(FeatureExtractor, PinnedValues) {
  FeatureInput input;
  input.question = "What is the largest planet?";
  input.final_answer = "(B) Jupiter";
  input.initial_reasoning = "Jupiter is the largest planet.";
  input.critique_reasoning = "Maybe Saturn is larger, but it is not.";
  input.initial_confidence = 0.9;
  input.negative_confidence = 1.7;  // clamped to 1
  // final_confidence missing -> 0.5

  const FeatureExtractor extractor;
  const std::vector<double> f = extractor.extract(input);
  ASSERT_EQ(f.size(), 41u);
  const std::vector<double> expected = {
      6,   // QuestionToken: What is the largest planet ?
      4,   // AnswerToken: ( B ) Jupiter
      0,   // question_named_entity_count: "What" is a common sentence-initial word
      1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // qtype_what
      // (S what (S (VP is.v (NP the (ADJP largest.a-s) planet.n))) ?) -> depth 5.
      5,
      83.32,    // 5 words, 7 syllables, 1 sentence: 206.835 - 5.075 - 84.6*1.4
      4.152,    // 22 letters: 0.0588*440 - 0.296*20 - 15.8
      1, 1, 1,  // planet; is; largest
      0.9,      // InitialConfidence
      0, 0, 0,  // no cues in "Jupiter is the largest planet."
      4,        // depth, see syntax_test.cc
      49.48,    // 5 words, 9 syllables: 206.835 - 5.075 - 84.6*1.8
      7.68,     // 25 letters: 0.0588*500 - 0.296*20 - 15.8
      2, 1, 1,  // Jupiter planet; is; largest
      1.0,      // NegativeConfidence, clamped
      1, 0, 1,  // hedge "Maybe", contrast "but"
      0.5,      // FinalConfidence, missing
      // (S (S (NP maybe.e Saturn.m) (VP is.v (ADJP larger.a-c))) , but.ij (S (NP it) (VP is.v not.e)) .)
      4,
      92.965,   // 8 words, 10 syllables (Maybe counts 1): 206.835 - 8.12 - 84.6*1.25
      1.815,    // 29 letters: 0.0588*362.5 - 0.296*12.5 - 15.8
      1, 2, 1,  // Saturn; is is; larger
  };
  ASSERT_EQ(expected.size(), 41u);
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_NEAR(f[i], expected[i], 1e-9) << trigger_feature_names()[i];
  }
}

TEST(FeatureExtractor, EmptyInputGivesDefaults) {
  const FeatureExtractor extractor;
  const std::vector<double> f = extractor.extract(FeatureInput{});
  ASSERT_EQ(f.size(), 41u);
  for (std::size_t i = 0; i < f.size(); ++i) {
    const std::string& name = trigger_feature_names()[i];
    const bool confidence = name.ends_with("Confidence");
    const double want = confidence ? 0.5 : (name == "qtype_other" ? 1.0 : 0.0);
    EXPECT_EQ(f[i], want) << name;
  }
}

}  // namespace
}  // namespace parley
