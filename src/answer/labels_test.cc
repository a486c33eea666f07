// Label tasks: label_key, LabelSet, and how replies as models write them are read as one label.

#include <gtest/gtest.h>

#include "parley/answer.h"
#include "parley/labels.h"

namespace parley {
namespace {

TEST(LabelKey, FoldsCaseSeparatorsQuotesArticlesAndAPlusSign) {
  EXPECT_EQ(label_key("Hepatitis-C"), "hepatitis c");
  EXPECT_EQ(label_key("  hepatitis_c / "), "hepatitis c");
  EXPECT_EQ(label_key("Crohn's disease"), "crohns disease");
  EXPECT_EQ(label_key("The Common Cold."), "common cold");
  EXPECT_EQ(label_key("Theileriosis"), "theileriosis");  // "the" only as a word
  EXPECT_EQ(label_key("an"), "an");                       // an article alone stays
  EXPECT_EQ(label_key("+1"), "1");
  EXPECT_EQ(label_key("-1"), "-1");
  EXPECT_EQ(label_key("\xE2\x88\x92" "2"), "-2");  // U+2212
  EXPECT_EQ(label_key("non-2"), "non 2");             // a hyphen inside a word is a space
  EXPECT_EQ(label_key("W. Neg."), "w neg");
  EXPECT_EQ(label_key("Ménière's"), "ménières");      // non-ASCII letters kept
  EXPECT_EQ(label_key("?!"), "");
  EXPECT_EQ(label_key("ZIKA A9 z0"), "zika a9 z0");  // the ends of the letter and digit ranges
  EXPECT_EQ(label_key("Stage -"), "stage");          // a sign before no digit is a separator
  EXPECT_EQ(label_key("-"), "");
}

TEST(LabelSetMake, RefusesWhatWouldMakeTwoLabelsOne) {
  EXPECT_FALSE(LabelSet::make({}, {}, false));
  EXPECT_FALSE(LabelSet::make({"Flu", "flu."}, {}, false));
  EXPECT_FALSE(LabelSet::make({"Flu", "--"}, {}, false));
  EXPECT_FALSE(LabelSet::make({"Flu"}, {{"grippe", "Influenza"}}, false));
  EXPECT_FALSE(LabelSet::make({"Flu", "Cold"}, {{"cold", "Flu"}}, false));  // "cold" is Cold
  EXPECT_FALSE(LabelSet::make({"Flu"}, {{"...", "Flu"}}, false));
  // The same synonym twice for one label is harmless.
  EXPECT_TRUE(LabelSet::make({"Flu"}, {{"grippe", "Flu"}, {"Grippe", "Flu"}}, false));
  // A synonym names a label (by key), not another synonym.
  EXPECT_FALSE(LabelSet::make({"Influenza"}, {{"flu", "Influenza"}, {"grippe", "flu"}}, false));
}

std::shared_ptr<const LabelSet> clinical_labels() {
  auto set = LabelSet::make({"Dengue fever", "Chikungunya", "Zika virus", "Hepatitis C", "Hepatitis B", "Malaria",
                             "Cirrhosis", "Obstructive jaundice"},
                            {{"HCV", "Hepatitis C"}, {"HBV", "Hepatitis B"}, {"dengue", "Dengue fever"}}, false);
  return std::make_shared<const LabelSet>(std::move(*set));
}

Task label_task(std::string gold, std::shared_ptr<const LabelSet> labels) {
  Task task;
  task.answer_type = AnswerType::kLabel;
  task.answer = std::move(gold);
  task.labels = std::move(labels);
  return task;
}

std::optional<std::string> label_of(std::string_view reply, const std::shared_ptr<const LabelSet>& labels) {
  return parse_answer(reply, label_task("Dengue fever", labels)).value;
}

TEST(LabelAnswer, ReadsTheStatedAnswerThroughTheSynonyms) {
  const auto labels = clinical_labels();
  EXPECT_EQ(label_of("Fever, retro-orbital pain and rash after travel to Thailand point to dengue.\n\n"
                     "Final answer: Dengue Fever\nConfidence: 70%",
                     labels),
            "Dengue fever");
  EXPECT_EQ(label_of("Answer: HCV", labels), "Hepatitis C");
  EXPECT_EQ(label_of("Answer: Hepatitis C (most likely), given IV drug use", labels), "Hepatitis C");
  EXPECT_EQ(label_of("Answer: Dengue fever, though chikungunya remains possible", labels), "Dengue fever");
  // A label outside the set is an answer (a wrong one), kept by its key.
  EXPECT_EQ(label_of("Answer: Measles (rubeola)", labels), "measles");
  EXPECT_EQ(label_of("Answer: Measles, most likely", labels), "measles");
  // A stated answer wins over the distribution, and a declining one leaves the reply unparsed.
  EXPECT_EQ(label_of("Malaria 50%, Dengue 30%, Zika 20%\nAnswer: Dengue", labels), "Dengue fever");
  EXPECT_EQ(label_of("Dengue 60%, Zika 40%\nAnswer: I'm not sure", labels), std::nullopt);
}

TEST(LabelAnswer, ReadsALabelLineThenTheDistributionAsThePaperPrintsIt) {
  const auto labels = clinical_labels();
  // MACI App. G.2's agent output: a top-3 list and justifications after it.
  const Answer top3 = parse_answer(
      "Top-3 Predictions: Dengue Fever (60%), Chikungunya (25%), and Zika Virus (15%).\n"
      "Justifications: the rash and the retro-orbital pain favour dengue.",
      label_task("Dengue fever", labels));
  EXPECT_EQ(top3.value, "Dengue fever");
  ASSERT_EQ(top3.beliefs.size(), 3u);
  EXPECT_EQ(top3.beliefs[1].label, "Chikungunya");
  EXPECT_EQ(top3.beliefs[2].label, "Zika virus");  // canonical
  EXPECT_EQ(label_of("**Final diagnosis:** HCV\n\nDistribution: HCV 0.40, HBV 0.30, Cirrhosis 0.15", labels),
            "Hepatitis C");
  EXPECT_EQ(label_of("Differential: HBV 0.35, HCV 0.25, Obstructive jaundice 0.20", labels), "Hepatitis B");
  // Equal beliefs: the first stated.
  EXPECT_EQ(label_of("Chikungunya 40%, Dengue 40%, Zika 20%", labels), "Chikungunya");
  // A line that only mentions a rating in a sentence is no label line, unless it names a label.
  EXPECT_EQ(label_of("The patient's pain rating: severe enough to rule out a mild course of the illness.\nMalaria",
                     labels),
            "Malaria");
  EXPECT_EQ(label_of("Dengue 70%, Zika 30%\nMy most likely final diagnosis: Zika virus", labels), "Zika virus");
  EXPECT_EQ(label_of("Most likely diagnosis: Measles\nDengue 70%, Zika 30%", labels), "measles");
  EXPECT_EQ(label_of("Dengue 70%, Zika 30%\nDiagnosis: HCV", labels), "Hepatitis C");  // the marker alone
  // A head that ends in no marker word is no label line.
  EXPECT_EQ(label_of("Top candidates (ranked): Malaria\nDengue 70%, Zika 30%", labels), "Dengue fever");
}

TEST(LabelAnswer, WithASetALastLineMustNameALabel) {
  const auto labels = clinical_labels();
  EXPECT_EQ(label_of("The symptoms fit a mosquito-borne infection.\nMalaria.", labels), "Malaria");
  EXPECT_EQ(label_of("The rash and fever need more tests before anything can be said.", labels), std::nullopt);
  EXPECT_EQ(label_of("I'm 90% sure", labels), std::nullopt);  // a confidence is no label
  // Without a set, the last line is the answer, by its key.
  EXPECT_EQ(label_of("After weighing it all:\nLyme disease", nullptr), "lyme disease");
}

TEST(LabelAnswer, ReadsAnOrdinalScaleBySignedNumbersAndNames) {
  auto set = LabelSet::make({"Negative", "Weakly negative", "Neutral", "Weakly positive", "Positive"},
                            {{"-2", "Negative"}, {"-1", "Weakly negative"}, {"0", "Neutral"},
                             {"+1", "Weakly positive"}, {"+2", "Positive"}},
                            true);
  const auto scale = std::make_shared<const LabelSet>(std::move(*set));
  EXPECT_EQ(label_of("Bias rating: -1\nConfidence: 60%", scale), "Weakly negative");
  EXPECT_EQ(label_of("Answer: +2", scale), "Positive");
  EXPECT_EQ(label_of("Answer: 1 (weakly positive)", scale), "Weakly positive");
  EXPECT_EQ(label_of("Answer: weakly negative", scale), "Weakly negative");
  EXPECT_EQ(label_of("Rating: \xE2\x88\x92" "2", scale), "Negative");
  // A last line naming a label after its colon.
  EXPECT_EQ(label_of("I weighed both framings.\nMy verdict on this article: -1", scale), "Weakly negative");
}

// Replies the outside review found misread (each a wrong answer instead of the right label or a
// re-ask).
TEST(LabelAnswer, ReadsTheReviewsHardCases) {
  const auto labels = clinical_labels();
  // A later differential, ruled-out or confidence line does not override the pick.
  EXPECT_EQ(label_of("**Final diagnosis:** Dengue fever\n**Differential diagnosis:** Chikungunya, Zika virus", labels),
            "Dengue fever");
  EXPECT_EQ(label_of("Diagnosis: Dengue fever\nRuled-out diagnosis: Chikungunya", labels), "Dengue fever");
  EXPECT_EQ(label_of("Diagnosis: Malaria\nConfidence rating: 8/10", labels), "Malaria");
  // The clause ends at a sentence end or a dash.
  EXPECT_EQ(label_of("Answer: Dengue fever. Chikungunya is less likely.", labels), "Dengue fever");
  EXPECT_EQ(label_of("Answer: **Dengue Fever** \xE2\x80\x93 the classic triad points here.", labels), "Dengue fever");
  EXPECT_EQ(label_of("Final diagnosis: Dengue fever \xE2\x80\x94 classic triad", labels), "Dengue fever");
  EXPECT_EQ(label_of("Answer: Dengue fever - most likely", labels), "Dengue fever");
  // One label among other words is that label; a rejected one is not; two are no answer.
  EXPECT_EQ(label_of("Answer: Likely dengue fever", labels), "Dengue fever");
  EXPECT_EQ(label_of("Answer: most likely Hepatitis C", labels), "Hepatitis C");
  EXPECT_EQ(label_of("Answer: not dengue fever", labels), std::nullopt);  // a negated statement states nothing
  EXPECT_EQ(label_of("Final diagnosis: not dengue fever", labels), "not dengue fever");  // outside the set: wrong
  EXPECT_EQ(label_of("Answer: Dengue fever or Chikungunya", labels), std::nullopt);
  EXPECT_EQ(label_of("Answer: Chikungunya is unlikely; Dengue fever", labels), std::nullopt);
  // A line naming two labels leaves the pick to the distribution.
  EXPECT_EQ(label_of("Prediction: Chikungunya (30%), Dengue fever (60%)", labels), "Dengue fever");
  // Unicode marks: a no-break space, a curly apostrophe.
  EXPECT_EQ(label_of("Answer: Dengue\xC2\xA0" "fever", labels), "Dengue fever");
  EXPECT_EQ(label_key("Crohn\xE2\x80\x99s disease"), label_key("Crohn's disease"));
  EXPECT_EQ(label_key("\xE2\x80\x93" "1"), "-1");  // en dash as a minus
}

TEST(LabelKey, ATrailingSignIsPartOfTheLabel) {
  EXPECT_EQ(label_key("HIV+"), "hiv+");
  EXPECT_EQ(label_key("HIV-"), "hiv-");
  EXPECT_TRUE(LabelSet::make({"HIV+", "HIV-", "A+", "A-"}, {}, false));
  EXPECT_EQ(label_key("Gram- rods"), "gram- rods");
  EXPECT_EQ(label_key("Hepatitis-C"), "hepatitis c");  // a hyphen inside a word is still a space
}

TEST(LabelSetMake, ASynonymNamesItsLabelByKey) {
  auto set = LabelSet::make({"Hepatitis C"}, {{"HCV", "hepatitis c"}}, false);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->canonical("hcv"), "Hepatitis C");
  EXPECT_EQ(set->named_in("probably hcv, maybe"), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(set->named_in("hepatitis").empty());
}

TEST(AnswersMatch, LabelsBySetOrByKey) {
  const auto labels = clinical_labels();
  const Task task = label_task("Hepatitis C", labels);
  EXPECT_TRUE(answers_match(task, "Hepatitis C"));
  EXPECT_TRUE(answers_match(task, "hcv"));
  EXPECT_FALSE(answers_match(task, "Hepatitis B"));
  EXPECT_FALSE(answers_match(task, "hepatitis"));
  EXPECT_FALSE(answers_match(task, ""));
  const Task open = label_task("Lyme disease", nullptr);
  EXPECT_TRUE(answers_match(open, "lyme-disease"));
  EXPECT_FALSE(answers_match(open, "lyme"));
  EXPECT_FALSE(answers_match(label_task("?", nullptr), "!"));  // nothing to compare
}

}  // namespace
}  // namespace parley
