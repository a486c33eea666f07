// MACI's structured replies: the outcome space, distributions as models write them (top-k,
// percentages, synonyms, rounding), and one clear problem per malformed reply.

#include <gtest/gtest.h>

#include "protocols/maci_reply.h"

namespace parley::maci {
namespace {

Task clinical_task() {
  Task task;
  task.id = "case-1";
  task.answer_type = AnswerType::kLabel;
  task.answer = "Dengue fever";
  auto set = LabelSet::make({"Dengue fever", "Chikungunya", "Zika virus", "Hepatitis C"}, {{"HCV", "Hepatitis C"}},
                            false);
  task.labels = std::make_shared<const LabelSet>(std::move(*set));
  return task;
}

OutcomeSpace clinical_space() { return *OutcomeSpace::of(clinical_task()); }

std::vector<double> belief_of(std::string_view reply) {
  auto read = read_reply(reply, clinical_space());
  EXPECT_TRUE(read) << read.error().message;
  return read ? read->belief : std::vector<double>{};
}

std::string problem_of(std::string_view reply) {
  auto read = read_reply(reply, clinical_space());
  EXPECT_FALSE(read) << "accepted: " << reply;
  return read ? "" : read.error().message;
}

constexpr std::string_view kOneArgument =
    R"("arguments": [{"claim": "Retro-orbital pain favours dengue", "justification": "It is typical of dengue.", "evidence": ["cdc-7"]}])";

std::string reply_with(std::string_view distribution) {
  return "{" + std::string(kOneArgument) + ", \"distribution\": " + std::string(distribution) + "}";
}

TEST(OutcomeSpace, LabelsOrOptionsThenOther) {
  const OutcomeSpace space = clinical_space();
  ASSERT_EQ(space.size(), 5u);
  EXPECT_EQ(space.name(4), "other");
  EXPECT_EQ(space.other(), 4u);
  EXPECT_EQ(space.index_of("hcv"), 3u);
  EXPECT_EQ(space.index_of("Measles"), 4u);

  Task choice;
  choice.answer_type = AnswerType::kChoice;
  choice.options = {"Dengue fever", "Malaria", "Zika virus"};
  const auto options = OutcomeSpace::of(choice);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->size(), 4u);
  EXPECT_EQ(options->name(1), "B");
  EXPECT_EQ(options->index_of("B"), 1u);
  EXPECT_EQ(options->index_of("(c)"), 2u);
  EXPECT_EQ(options->index_of("Option A"), 0u);
  EXPECT_EQ(options->index_of("malaria"), 1u);
  EXPECT_EQ(options->index_of("D"), 3u);  // past the options: other

  Task number;
  number.id = "n1";
  number.answer_type = AnswerType::kNumber;
  const auto none = OutcomeSpace::of(number);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("task 'n1' has no finite outcome space"), std::string::npos);
  Task unlabelled = clinical_task();
  unlabelled.labels = nullptr;
  EXPECT_FALSE(OutcomeSpace::of(unlabelled));
}

TEST(MaciReply, ReadsTheWholeReplyInsideProseAndAFence) {
  const std::string text =
      "Here is my analysis.\n```json\n"
      R"({"arguments": [{"claim": "Retro-orbital pain favours dengue", "justification": "Typical of dengue.", "evidence": ["cdc-7", "who-2", "cdc-7"]},
                        {"Claim": "Arthralgia suggests chikungunya", "reasoning": "Joint pain is prominent.", "evidence_ids": [12]}],
          "distribution": {"Dengue Fever": 0.6, "Chikungunya": 0.25, "Zika virus": 0.15},
          "acquisition_plan": {"tests": ["NS1 antigen", "IgM serology"], "questions": "Recent travel?"}})"
      "\n```\nThat is all.";
  auto reply = read_reply(text, clinical_space());
  ASSERT_TRUE(reply) << reply.error().message;
  ASSERT_EQ(reply->arguments.size(), 2u);
  EXPECT_EQ(reply->arguments[0].evidence, (std::vector<std::string>{"cdc-7", "who-2"}));  // repeats dropped
  EXPECT_EQ(reply->arguments[1].claim, "Arthralgia suggests chikungunya");
  EXPECT_EQ(reply->arguments[1].justification, "Joint pain is prominent.");
  EXPECT_EQ(reply->arguments[1].evidence, (std::vector<std::string>{"12"}));
  EXPECT_EQ(reply->belief, (std::vector<double>{0.6, 0.25, 0.15, 0.0, 0.0}));
  ASSERT_EQ(reply->plan.size(), 3u);
  EXPECT_EQ(reply->plan[0].kind, "questions");  // keys in nlohmann's (sorted) order
  EXPECT_EQ(reply->plan[0].text, "Recent travel?");
  EXPECT_EQ(reply->plan[2].text, "IgM serology");
}

TEST(MaciReply, ATopKListLeavesItsRestToOtherAndALargerTotalIsRenormalised) {
  // MACI App. G.2: Gemini's round-1 list sums to 95%.
  const auto top3 = belief_of(reply_with(R"({"Dengue fever": 60, "Chikungunya": 20, "Zika virus": 15})"));
  ASSERT_EQ(top3.size(), 5u);
  EXPECT_DOUBLE_EQ(top3[0], 0.6);
  EXPECT_NEAR(top3[4], 0.05, 1e-12);
  const auto over = belief_of(reply_with(R"({"Dengue fever": 0.8, "Chikungunya": 0.4})"));
  EXPECT_DOUBLE_EQ(over[0], 0.8 / 1.2);
  EXPECT_DOUBLE_EQ(over[1], 0.4 / 1.2);
  EXPECT_DOUBLE_EQ(over[4], 0.0);
  // Rounded percentages (99%) are renormalised, not topped up.
  const auto rounded = belief_of(reply_with(R"({"Dengue fever": "33%", "Chikungunya": "33%", "Zika virus": "33%"})"));
  EXPECT_DOUBLE_EQ(rounded[0], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(rounded[4], 0.0);
  // A synonym adds to its label; a label outside the set goes to other.
  const auto merged = belief_of(reply_with(R"([{"label": "HCV", "probability": 0.3}, {"label": "Hepatitis C", "probability": 0.2},
                                               {"label": "Measles", "probability": 0.5}])"));
  EXPECT_DOUBLE_EQ(merged[3], 0.5);
  EXPECT_DOUBLE_EQ(merged[4], 0.5);
  // A "60%" string beside a plain probability: each read as written.
  const auto mixed = belief_of(reply_with(R"({"Dengue fever": 0.5, "Chikungunya": "30%"})"));
  EXPECT_DOUBLE_EQ(mixed[0], 0.5);
  EXPECT_DOUBLE_EQ(mixed[1], 0.3);
  EXPECT_DOUBLE_EQ(mixed[4], 0.2);
}

TEST(MaciReply, EachMalformedReplyIsOneProblemInWords) {
  EXPECT_EQ(problem_of("Dengue fever 60%, Chikungunya 40%"), "the reply contains no JSON object");
  EXPECT_EQ(problem_of(R"({"distribution": {"Dengue fever": 1}})"),
            "\"arguments\" must list at least one {\"claim\", \"justification\", \"evidence\"}");
  EXPECT_EQ(problem_of(R"({"arguments": [], "distribution": {"Dengue fever": 1}})"),
            "\"arguments\" must list at least one {\"claim\", \"justification\", \"evidence\"}");
  EXPECT_EQ(problem_of(R"({"arguments": [{"claim": " ", "justification": "x"}], "distribution": {"Dengue fever": 1}})"),
            "argument 1 has no \"claim\" (a non-empty string)");
  EXPECT_EQ(problem_of(R"({"arguments": [{"claim": "c"}], "distribution": {"Dengue fever": 1}})"),
            "argument 1 has no \"justification\" (a non-empty string)");
  EXPECT_EQ(problem_of(R"({"arguments": ["dengue"], "distribution": {"Dengue fever": 1}})"),
            "argument 1 must be an object with \"claim\", \"justification\" and \"evidence\"");
  EXPECT_EQ(problem_of(R"({"arguments": [{"claim": "c", "justification": "j", "evidence": "cdc-7"}], "distribution": {"Dengue fever": 1}})"),
            "argument 1: \"evidence\" must be a list of evidence ids");
  EXPECT_EQ(problem_of(R"({"arguments": [{"claim": "c", "justification": "j", "evidence": [1.5]}], "distribution": {"Dengue fever": 1}})"),
            "argument 1: evidence id 1.5 is not a string or an integer");
  EXPECT_EQ(problem_of(reply_with(R"({"Dengue fever": 0.6, "Chikungunya": 30})")),
            "the distribution mixes fractions (\"Dengue fever\": 0.6) and percentages: use one");
  EXPECT_EQ(problem_of("{" + std::string(kOneArgument) + "}"), "\"distribution\" is missing");
  EXPECT_EQ(problem_of(reply_with("{}")), "\"distribution\" is empty: give your top candidates with probabilities");
  EXPECT_EQ(problem_of(reply_with("0.6")), "\"distribution\" must map each label to its probability");
  EXPECT_EQ(problem_of(reply_with(R"({"Dengue fever": 0, "Zika virus": 0})")),
            "the distribution gives no label any probability");
  EXPECT_EQ(problem_of(reply_with(R"({"Dengue fever": -0.2})")),
            "the probability of \"Dengue fever\" must be between 0 and 1 (or 0% and 100%), got -0.2");
  EXPECT_EQ(problem_of(reply_with(R"({"Dengue fever": 160})")),
            "the probability of \"Dengue fever\" must be between 0 and 1 (or 0% and 100%), got 160");
  EXPECT_EQ(problem_of(reply_with(R"({"Dengue fever": "high"})")),
            "the probability of \"Dengue fever\" is not a number: \"high\"");
  EXPECT_EQ(problem_of(reply_with(R"([{"label": "Dengue fever"}])")),
            "each entry of \"distribution\" must be {\"label\": <label>, \"probability\": <p>}");
  EXPECT_EQ(problem_of(reply_with(R"({"Dengue fever": 1}, "acquisition_plan": 3)")),
            "\"acquisition_plan\" must map kinds (questions, tests, retrieval_queries, ...) to lists");
  EXPECT_EQ(problem_of(reply_with(R"({"Dengue fever": 1}, "acquisition_plan": {"tests": [3]})")),
            "acquisition_plan \"tests\" items must be strings");
}

TEST(MaciReply, LabelsAreReadAsAnswersAreAndOtherIsTheRest) {
  // "Hepatitis C (HCV)" names Hepatitis C, as a stated answer would; "Other" is the rest.
  const auto belief = belief_of(reply_with(R"x({"Hepatitis C (HCV)": 0.6, "Likely zika virus": 0.1, "Other": 0.3})x"));
  EXPECT_EQ(belief, (std::vector<double>{0, 0, 0.1, 0.6, 0.3}));
  auto cited = read_reply(R"({"arguments": [{"claim": "c", "justification": "j", "evidence": [" d1 ", "[d1]", "d2"]}],
                             "distribution": {"Dengue fever": 1}})",
                          clinical_space());
  ASSERT_TRUE(cited) << cited.error().message;
  EXPECT_EQ(cited->arguments[0].evidence, (std::vector<std::string>{"d1", "d2"}));

  Task choice;
  choice.answer_type = AnswerType::kChoice;
  choice.options = {"Mars", "Jupiter", "Venus"};
  const auto options = OutcomeSpace::of(choice);
  ASSERT_TRUE(options);
  for (std::string_view written : {"(B) Jupiter", "B) Jupiter", "Option B", "**B**", "jupiter"}) {
    EXPECT_EQ(options->index_of(written), 1u) << written;
  }

  Task with_other = clinical_task();
  auto set = LabelSet::make({"Dengue fever", "Other"}, {}, false);
  with_other.labels = std::make_shared<const LabelSet>(std::move(*set));
  const auto refused = OutcomeSpace::of(with_other);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("has a label 'other'"), std::string::npos) << refused.error().message;
}

TEST(MaciReply, TheFirstValidObjectWinsOverAnEarlierMalformedOne) {
  const std::string text = "Draft: {\"arguments\": []}\nFinal: " + reply_with(R"({"Zika virus": 1})");
  EXPECT_EQ(belief_of(text), (std::vector<double>{0, 0, 1, 0, 0}));
}

}  // namespace
}  // namespace parley::maci
