// question_type: the first word of the last sentence ending with '?', else of the text.

#include <gtest/gtest.h>

#include "parley/features.h"

namespace parley {
namespace {

TEST(QuestionType, EachType) {
  EXPECT_EQ(question_type("What is the capital of France?"), "what");
  EXPECT_EQ(question_type("Where is Rome?"), "where");
  EXPECT_EQ(question_type("  \"Why do birds sing?\""), "why");
  EXPECT_EQ(question_type("how many legs does a spider have?"), "how");
  EXPECT_EQ(question_type("When did WWII end?"), "when");
  EXPECT_EQ(question_type("Who's there?"), "who");  // cut at the apostrophe
  EXPECT_EQ(question_type("Is the sky blue?"), "is");
  EXPECT_EQ(question_type("Are we there yet?"), "are");
  EXPECT_EQ(question_type("Does it work?"), "does");
  EXPECT_EQ(question_type("Do you know?"), "do");
  EXPECT_EQ(question_type("Which planet is largest?"), "other");
  EXPECT_EQ(question_type(""), "other");
}

TEST(QuestionType, ContextBeforeTheQuestion) {
  EXPECT_EQ(question_type("A 45-year-old man presents with chest pain. What is the most likely diagnosis?"),
            "what");
  EXPECT_EQ(question_type("Is it raining? Explain why the sky is blue."), "is");   // last sentence with '?'
  EXPECT_EQ(question_type("Question: How many legs does a spider have?"), "how");  // label skipped
  EXPECT_EQ(question_type("Complete the sentence: the sky is ___."), "other");     // no '?': first word
  EXPECT_EQ(question_type("Why is the sky blue"), "why");                          // no '?': first word
}

}  // namespace
}  // namespace parley
