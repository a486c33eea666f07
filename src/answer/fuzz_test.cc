// Robustness: parse_answer and friends on random bytes, random fragments of answer-like text
// and truncated replies (cut mid-UTF-8 too). Inputs live in exact-size heap buffers so that
// AddressSanitizer catches any read past the end. Fixed seeds: failures reproduce.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "parley/answer.h"
#include "parley/self_critique.h"

namespace parley {
namespace {

const std::vector<std::string> kOptions = {"Mars", "Jupiter", "Venus", "Earth"};

Task task_of(AnswerType type) {
  Task task;
  task.answer_type = type;
  task.options = type == AnswerType::kChoice ? kOptions : std::vector<std::string>{};
  task.answer = type == AnswerType::kChoice ? "B" : type == AnswerType::kNumber ? "42" : "Paris";
  return task;
}

// Runs every entry point on `bytes` and checks the invariants that hold for any input.
void check_any_input(const std::string& bytes) {
  const std::size_t n = bytes.size();
  std::unique_ptr<char[]> buffer(new char[n == 0 ? 1 : n]);
  std::copy(bytes.begin(), bytes.end(), buffer.get());
  const std::string_view text(buffer.get(), n);

  if (const auto forecast = parse_forecast(text)) {
    ASSERT_TRUE(std::isfinite(*forecast));
  }
  for (AnswerType type : {AnswerType::kChoice, AnswerType::kNumber, AnswerType::kText}) {
    const Task task = task_of(type);
    const Answer answer = parse_answer(text, task);
    if (answer.confidence) {
      ASSERT_GE(*answer.confidence, 0.0);
      ASSERT_LE(*answer.confidence, 1.0);
    }
    for (const auto& belief : answer.beliefs) {
      ASSERT_FALSE(belief.label.empty());
      ASSERT_GE(belief.probability, 0.0);
      ASSERT_LE(belief.probability, 1.0);
    }
    if (!answer.value) continue;
    if (type == AnswerType::kChoice) {
      ASSERT_EQ(answer.value->size(), 1u);
      ASSERT_GE((*answer.value)[0], 'A');
      ASSERT_LE((*answer.value)[0], 'D');
    } else if (type == AnswerType::kNumber) {
      const auto reparsed = parse_number(*answer.value);
      ASSERT_TRUE(reparsed) << *answer.value;
      ASSERT_EQ(canonical_number(*reparsed), *answer.value);
    } else {
      ASSERT_FALSE(answer.value->empty());
    }
    ASSERT_TRUE(answers_match(task, *answer.value) || !answers_match(task, *answer.value));
  }
  for (AnswerType type : {AnswerType::kChoice, AnswerType::kNumber, AnswerType::kText}) {
    const SelfCritique critique = parse_self_critique(text, task_of(type));
    for (const auto& c : {critique.initial.confidence, critique.critique_confidence, critique.final.confidence}) {
      if (!c) continue;
      ASSERT_GE(*c, 0.0);
      ASSERT_LE(*c, 1.0);
    }
    ASSERT_EQ(critique.complete(), critique.problem().empty());
    ASSERT_LE(critique.missing.size(), 7u);
  }
  const std::string normalized = normalize_text(text);
  ASSERT_EQ(normalized.find("  "), std::string::npos);
  if (!normalized.empty()) {
    ASSERT_NE(normalized.front(), ' ');
    ASSERT_NE(normalized.back(), ' ');
  }
}

TEST(AnswerFuzz, RandomBytes) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 3000; ++i) {
    std::string bytes(rng() % 200, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 256);
    ASSERT_NO_FATAL_FAILURE(check_any_input(bytes));
  }
}

TEST(AnswerFuzz, RandomFragments) {
  const std::vector<std::string> fragments = {
      "Answer", "answer is ", "Final answer: ", ":", " ", "\n", "(", ")", "[", "]", "{", "}",
      "A", "B", "E", "a ", "I ", "**", "\\boxed{", "\\frac{", "\\dfrac", "\\text{", "####", "#",
      "-", "+", "$", "\\$", "1,000", ",", ".", "%", "\\%", "/", "=", "0", "7", "3/4", "0.5", "1e",
      "e-", "1e308", "99999999999999999999", "Confidence", "confidence: ", "confident", "sure",
      "out of ", "level", "Option ", "option", "Jupiter", "mars", "the ", "Dengue ", "60%", " and ",
      ";", "P(", "- ", "\xE2", "\xE2\x88", "\xE2\x88\x92", "\xE2\x80\x94", "\xE2\x89\x88", "\xC2",
      "\xC2\xA0", "\xC3\xA9", "\t", "'", "\"", "`", "_", "\\", "0/0", "1/0", ".5", "5.",
      "Initial answer:", "Self-critique:", "Critique confidence: ", "Final confidence:", "1. ", "## ",
      "<think>", "</think>", "\\times 10^{", "^", "k", "M", "{,}", "\\,", "\xE2\x81\xBB", "\xC2\xB3", "\xC3\x97",
      "not sure", " said ", "'s answer", "> ", "Impact:", "**Impact:**", "Reasoning:", " | ", "Confidence in the critique:",
      "### Step 1: ", " or ", "between ", "not ", "I agree", "sure", "% sure", "after 3 days", "\\approx"};
  std::mt19937 rng(777);
  for (int i = 0; i < 4000; ++i) {
    std::string text;
    const int pieces = static_cast<int>(rng() % 40);
    for (int p = 0; p < pieces; ++p) text += fragments[rng() % fragments.size()];
    ASSERT_NO_FATAL_FAILURE(check_any_input(text));
  }
}

TEST(AnswerFuzz, TruncatedReplies) {
  const std::vector<std::string> replies = {
      "Let me think \xE2\x80\x94 Jupiter is largest.\n**Answer:** (B) Jupiter\nConfidence: 85%",
      "Dengue 60%, Chikungunya 25%, Zika 15%\nFinal answer: $\\boxed{\\frac{3}{4}}$ \xE2\x88\x92 done",
      "Caf\xC3\xA9 costs $1,234.50 \xE2\x89\x88 1234.5\n#### 1,234.5\nI am 90% confident",
      "A: 0.6, B: 0.3, C: 0.1\nThe answer is (C).\n(confidence 85)",
  };
  for (const auto& reply : replies) {
    for (std::size_t cut = 0; cut <= reply.size(); ++cut) {
      ASSERT_NO_FATAL_FAILURE(check_any_input(reply.substr(0, cut))) << "cut at " << cut;
    }
  }
}

TEST(AnswerFuzz, LongInputs) {
  // Many markers and numbers: must stay linear-ish and correct.
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "Answer: " + std::to_string(i) + "\n";
  text += "Confidence: 50%";
  EXPECT_EQ(parse_number(text), 1999.0);
  EXPECT_DOUBLE_EQ(*parse_confidence(text), 0.5);
  // Many markers on one long line: payloads are capped, so this stays fast.
  std::string one_line;
  for (int i = 0; i < 5000; ++i) one_line += "Answer: \\boxed{ #### 1 ";
  ASSERT_NO_FATAL_FAILURE(check_any_input(one_line));
  ASSERT_NO_FATAL_FAILURE(check_any_input(std::string(20000, '(')));
  ASSERT_NO_FATAL_FAILURE(check_any_input(std::string(20000, '9')));
  ASSERT_NO_FATAL_FAILURE(check_any_input(std::string(5000, '\n')));
}

}  // namespace
}  // namespace parley
