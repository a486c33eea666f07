// Answer parsing on replies written the way current models write them (GPT-4o, Claude, Llama,
// Qwen, DeepSeek-R1): markdown bold and headings, LaTeX, reasoning first and the answer last,
// hedges, restated options, units, quoted peers, closing confidence sentences. One row per reply
// with the value a careful reader takes from it, worked out by reading the reply (not by running
// the parser); nullptr means the reply states no answer of the agent's own, so it is unparsed
// (and re-asked) rather than guessed. The rules are in docs/formats.md, "How replies are read".
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "parley/answer.h"
#include "parley/self_critique.h"

namespace parley {
namespace {

enum class Kind {
  kPlanets,   // "Which planet is the largest?"  A. Mars  B. Jupiter  C. Venus  D. Earth
  kCapitals,  // "What is the capital of France?"  A. Lyon  B. Paris  C. Marseille  D. Nice
  kNumber,    // a GSM8K-style word problem (mostly Janet's eggs: 16 − 3 − 4 = 9 eggs at $2 → 18)
  kText,      // "What is the capital of Australia?"
  kForecast,  // "What impact on US core CPI next month?" (percent, as written)
};

Task task_of(Kind kind) {
  Task task;
  task.id = "corpus";
  switch (kind) {
    case Kind::kPlanets:
      task.answer_type = AnswerType::kChoice;
      task.options = {"Mars", "Jupiter", "Venus", "Earth"};
      task.answer = "B";
      break;
    case Kind::kCapitals:
      task.answer_type = AnswerType::kChoice;
      task.options = {"Lyon", "Paris", "Marseille", "Nice"};
      task.answer = "B";
      break;
    case Kind::kNumber:
      task.answer_type = AnswerType::kNumber;
      task.answer = "18";
      break;
    case Kind::kText:
      task.answer_type = AnswerType::kText;
      task.answer = "Canberra";
      break;
    case Kind::kForecast:
      task.answer_type = AnswerType::kForecast;
      task.answer = "0.1";
      break;
  }
  return task;
}

constexpr double kUnchecked = -1.0;

struct ReplyCase {
  const char* name;
  Kind kind;
  const char* reply;
  const char* expected;             // canonical answer; nullptr = unparsed
  double confidence = kUnchecked;  // the self-reported confidence, when the row checks it
};

// clang-format off
const ReplyCase kReplies[] = {
    // ---- Numbers: closing confidence sentences and confidence percentages ----
    {"ClosingConfidenceSentence", Kind::kNumber,
     "Janet's ducks lay 16 eggs a day. She uses 3 + 4 = 7 of them, so 9 are left to sell.\nSo we get 18 eggs.\n"
     "I'm 90% sure.", "18", 0.9},
    {"ClosingCertainSentence", Kind::kNumber,
     "She sells 9 eggs at $2 each, so she makes $18.\nI am about 95% certain of this.", "18", 0.95},
    {"ConfidenceInTheAnswerSentence", Kind::kNumber,
     "The discount comes to 25%, and I'm 80% sure of that.", "25", 0.8},
    {"PercentAnswerWithConfidenceInSameSentence", Kind::kNumber,
     "So the probability is 12.5%, and I'm 70% confident.", "12.5", 0.7},
    {"PercentAnswerThenConfidenceLine", Kind::kNumber,
     "Original price $80, sale price $60, so the discount is 20 / 80 = 25%.\n\n**Answer:** 25%\n**Confidence:** 90%",
     "25", 0.9},
    {"CertaintyLabel", Kind::kNumber, "Total: 18 dollars.\nCertainty: 85%", "18", 0.85},
    {"ConfidenceLevelWords", Kind::kNumber, "Therefore, the total is 18.\n\nConfidence level: high (9/10)", "18"},
    {"ConfidenceBeforeTheResult", Kind::kNumber, "I'm 95% confident in this.\nThe total cost is $36.", "36", 0.95},
    {"AnswerWithParentheticalConfidence", Kind::kNumber, "Answer: 64 (I'm about 90% sure)", "64", 0.9},

    // ---- Numbers: how models lay out the result ----
    {"Gpt4oNumberedStepsBoldResult", Kind::kNumber,
     "To find how much Janet makes every day:\n\n1. **Eggs laid per day:** 16\n2. **Eggs eaten for breakfast:** 3\n"
     "3. **Eggs used for muffins:** 4\n4. **Remaining eggs:** \\( 16 - 3 - 4 = 9 \\)\n"
     "5. **Earnings:** \\( 9 \\times 2 = 18 \\)\n\nJanet makes **$18** every day at the farmers' market.", "18"},
    {"QwenBoxedInInlineMath", Kind::kNumber,
     "Janet's ducks lay 16 eggs per day. She eats 3 and bakes with 4, leaving \\(16 - 3 - 4 = 9\\) eggs.\n\n"
     "She sells them at \\$2 each: \\(9 \\times 2 = 18\\).\n\nThe final answer is \\(\\boxed{18}\\).", "18"},
    {"R1ThinkThenBoxed", Kind::kNumber,
     "<think>\nOkay, so the question is about Janet's eggs. Maybe the answer is 20? No wait, 16 - 3 - 4 = 9, and "
     "9 * 2 = 18.\n</think>\n\nJanet has 9 eggs left to sell each day.\n\n**Final Answer**\n\\boxed{18}", "18"},
    {"R1StatementInsideThinkIsNotTheAnswer", Kind::kNumber,
     "<think>\nSo the answer is 20? Wait, she also eats 3. Let me recheck.\n</think>\n16 \xE2\x88\x92 3 \xE2\x88\x92 4 = 9 "
     "eggs, and 9 \xC3\x97 $2 = $18 a day.", "18"},
    {"R1TruncatedInsideThink", Kind::kNumber,
     "<think>\nOkay, Janet has 16 eggs. She eats 3, so 13 are left. Then she bakes with 4, so 9 are left. Each sells "
     "for $2, so 9 times", nullptr},
    {"LlamaTheAnswerIsDollars", Kind::kNumber,
     "Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and bakes 4 into muffins, so she has 16 - 3 - 4 = 9 "
     "eggs left. She sells them for $2 each, so she makes 9 x $2 = $18.\n\nThe answer is $18.", "18"},
    {"Gsm8kHashes", Kind::kNumber, "16 - 3 - 4 = 9 eggs are sold.\n9 * 2 = 18\n#### 18", "18"},
    {"ClaudeBoldLastLine", Kind::kNumber,
     "Let me work through this step by step.\n\nJanet starts with 16 eggs, eats 3, and uses 4 for muffins, leaving 9 "
     "eggs.\n\n9 eggs \xC3\x97 $2 = **$18 per day**", "18"},
    {"MarkdownHeadingAnswer", Kind::kNumber,
     "## Solution\n\nEach box holds 12 eggs, and she fills 3 boxes.\n\n## Answer\n\n**36**", "36"},
    {"BoldItalicLabel", Kind::kNumber, "***Answer:*** *18*", "18"},
    {"StatementWithUnitWord", Kind::kNumber, "The final answer is 42 apples.", "42"},
    {"StatementResultAfterEquals", Kind::kNumber, "Answer: 16 - 3 - 4 = 9", "9"},
    {"StatementUnits", Kind::kNumber, "The tank fills at 8 liters a minute, so 40 liters take 5 minutes.\n\nAnswer: 5 minutes",
     "5"},
    {"StatementDollarsAndCents", Kind::kNumber, "She pays **$4.50** in total.\n\nAnswer: $4.50", "4.5"},
    {"StatementApproximately", Kind::kNumber, "So the answer is approximately 3.14.", "3.14"},
    {"ApproxSymbolFallback", Kind::kNumber, "The ratio is 22/7 \xE2\x89\x88 3.14.", "3.14"},
    {"LatexApproxInStatement", Kind::kNumber, "Answer: \\( \\pi r^2 \\approx 78.5 \\)", "78.5"},
    {"UnicodeMinus", Kind::kNumber, "The temperature falls to \xE2\x88\x92" "7 \xC2\xB0" "C.\n\nAnswer: \xE2\x88\x92" "7",
     "-7"},
    {"LatexFractionInInlineMath", Kind::kNumber, "Answer: \\(\\frac{3}{4}\\)", "0.75"},
    {"NegativeLatexFractionBoxed", Kind::kNumber, "$$\\boxed{-\\frac{1}{2}}$$", "-0.5"},
    {"ENotation", Kind::kNumber, "The probability is about 2.5e-3.", "0.0025"},
    {"DecimalAtSentenceEnd", Kind::kNumber, "The average speed is 52.5 km/h.", "52.5"},
    {"FallbackLastSentenceResult", Kind::kNumber, "So after 3 days, she has 18 eggs.", "18"},
    {"ListNumberingIsNotTheAnswer", Kind::kNumber,
     "Steps:\n1. 16 \xE2\x88\x92 3 \xE2\x88\x92 4 = 9 eggs\n2. 9 \xC3\x97 $2 = $18\n3. Done", "18"},
    {"HedgedButStatedValue", Kind::kNumber, "I'm not sure, but I think it is 18.", "18"},

    // ---- Numbers: magnitudes, separators, scientific notation ----
    {"SuffixK", Kind::kNumber, "Monthly visitors grow from 1,200 to about 1.5k after the campaign.\n\nAnswer: 1.5k",
     "1500"},
    {"SuffixMWithCurrency", Kind::kNumber, "The startup's valuation is $2.4M after the round.\n**Answer:** $2.4M",
     "2400000"},
    {"MagnitudeWord", Kind::kNumber, "Answer: about 7.9 billion people", "7900000000"},
    {"ThousandsCommas", Kind::kNumber, "Answer: 1,250,000", "1250000"},
    {"LatexBracedComma", Kind::kNumber, "\\boxed{1{,}250}", "1250"},
    {"LatexThinSpaceThousands", Kind::kNumber, "The total is \\(12\\,500\\) dollars.\n\nAnswer: \\(12\\,500\\)", "12500"},
    {"LatexTimesTenToThe", Kind::kNumber,
     "The population is approximately \\(3.2 \\times 10^{5}\\).\n\n**Answer:** \\(3.2 \\times 10^{5}\\)", "320000"},
    {"BoxedScientific", Kind::kNumber, "$$\\boxed{2.5 \\times 10^{8}}$$", "250000000"},
    {"UnicodeSuperscriptExponent", Kind::kNumber, "Answer: 1.2 \xC3\x97 10\xE2\x81\xBB\xC2\xB3 mol", "0.0012"},
    {"CaretExponentWithStar", Kind::kNumber, "Answer: 1.5*10^6", "1500000"},
    {"BoxedPower", Kind::kNumber,
     "There are 2 choices for each of 10 bits, so \\(2^{10}\\) strings.\n\n\\boxed{2^{10}}", "1024"},

    // ---- Numbers: the answer and its own computation in parentheses ----
    {"ComputationInParenthesesAfterTheResult", Kind::kNumber,
     "Janet makes $18 every day (16 \xE2\x88\x92 3 \xE2\x88\x92 4 = 9 eggs at $2 each).", "18"},
    {"EqualsInsideParentheses", Kind::kNumber, "**Answer: 18** (= 9 \xC3\x97 2)", "18"},
    {"RestatementInParentheses", Kind::kNumber, "It takes her 45 minutes (0.75 hours) to finish.", "45"},
    {"ProductInParentheses", Kind::kNumber, "Answer: 540 (3 sprints \xC3\x97 3 times a week \xC3\x97 60 meters)", "540"},
    {"AnswerThenBecauseEquation", Kind::kNumber, "Answer: 18, because 16 \xE2\x88\x92 3 \xE2\x88\x92 4 = 9 eggs remain",
     "18"},

    // ---- Numbers: an answer clause after a lead-in ----
    {"LeadInClause", Kind::kNumber, "The answer is: after 3 days she has 18 eggs", "18"},
    {"LeadInClauseWithDuration", Kind::kNumber, "Final answer: after selling for 5 days, Tom has 40 apples left.", "40"},
    {"DurationAfterTheResult", Kind::kNumber, "She will have 18 eggs after 3 days.", "18"},
    {"ClauseAnswerFirst", Kind::kNumber, "Answer: She has 18 eggs left after 3 days.", "18"},

    // ---- Numbers: hedges, alternatives, negations and peers ----
    {"NotSureBetweenTwo", Kind::kNumber, "I'm not sure. It could be 12 or 15.", nullptr},
    {"NotEnoughInformation", Kind::kNumber,
     "I don't have enough information to say how many eggs remain after 3 days.", nullptr},
    {"AnswerStatementDeclinesToAnswer", Kind::kNumber,
     "She starts with 16 eggs and uses some for muffins.\nAnswer: I'm not sure without knowing how many she eats.",
     nullptr},
    {"AlternativesInStatement", Kind::kNumber, "Answer: 12 or 15", nullptr},
    {"RangeInStatement", Kind::kNumber, "Answer: 10-15 eggs", nullptr},
    {"BetweenRange", Kind::kNumber, "Most likely between 12 and 15 eggs.", nullptr},
    {"NegatedStatementThenValue", Kind::kNumber, "The answer is not 12; it is 15.", "15"},
    {"PeerQuotedThenOwnComputation", Kind::kNumber,
     "Agent a2 said the answer is 20. I disagree: 16 \xE2\x88\x92 3 \xE2\x88\x92 4 = 9 eggs, and 9 \xC3\x97 $2 = $18.",
     "18"},
    {"PeerQuotedNoOwnAnswer", Kind::kNumber, "Agent a3 claims the answer is 20.\nI disagree with that.", nullptr},
    {"PeerQuotedAndAgreed", Kind::kNumber, "Agent a2 says the answer is 18, and I agree.", "18"},
    {"NoNumberAtAll", Kind::kNumber, "I need more information to answer this question.", nullptr},
    {"StatementSaysTheQuestionHasNoAnswer", Kind::kNumber,
     "The farm has 3 hens and some ducks.\nAnswer: The number of eggs cannot be determined.", nullptr},
    {"StatementUnknown", Kind::kNumber, "Answer: unknown", nullptr},

    // ---- Choices: quoted peers ----
    {"PeerQuotedThenOptionText", Kind::kPlanets,
     "Agent a2 said the answer is C. I disagree; the largest planet is Jupiter.", "B"},
    {"PeerAccordingTo", Kind::kPlanets, "According to Agent 3, the answer is D.", nullptr},
    {"PeerPossessiveAnswer", Kind::kPlanets, "Agent a1's final answer is A, but Mars is smaller than Earth.", nullptr},
    {"PeerInBlockQuote", Kind::kPlanets, "Agent a1 wrote:\n> The answer is A.\n\nI disagree with this reasoning.",
     nullptr},
    {"PeerTextAnswerQuoted", Kind::kPlanets, "Agent a2 said the answer is Venus. I disagree.", nullptr},
    {"YouSaid", Kind::kPlanets, "You said the answer is C, but Venus is smaller than Earth.", nullptr},
    {"AffirmativeSideArgues", Kind::kPlanets, "The affirmative side argues that the answer is A.", nullptr},
    {"PeerThenOwnStatement", Kind::kPlanets, "Agent a2 argued that the answer is C, but I believe the answer is B.", "B"},
    {"PeerConclusionAdopted", Kind::kPlanets, "Agent a3 concluded the answer is B. I agree.", "B"},
    {"IAgreeWithPeerThat", Kind::kPlanets, "I agree with Agent a2 that the answer is B.", "B"},
    {"NegativeDebaterAnswersAfterQuoting", Kind::kPlanets,
     "The affirmative side argues that the answer is A, because Mars is the red planet. However, size is what "
     "matters here.\n\nMy answer: B", "B"},

    // ---- Choices: restated options and layouts ----
    {"RestatedInParentheses", Kind::kPlanets, "The answer is (B) Jupiter.", "B"},
    {"BoldLetterParenText", Kind::kPlanets, "**Answer: B) Jupiter**", "B"},
    {"BoldLetterDotTextThenReason", Kind::kPlanets,
     "The correct answer is **B. Jupiter**, since it is more than twice as massive as all the other planets combined.",
     "B"},
    {"OptionTextThenLetter", Kind::kPlanets, "Jupiter (B) is the largest planet in our solar system.\n\nConfidence: 99%",
     "B"},
    {"Gpt4oBoldTextThenAnswer", Kind::kPlanets,
     "The largest planet in our solar system is **Jupiter**.\n\n**Answer: B**", "B"},
    {"ListedOptionsThenAnswer", Kind::kPlanets,
     "After considering each option:\n- A. Mars \xE2\x80\x94 small and rocky\n- B. Jupiter \xE2\x80\x94 a gas giant\n"
     "- C. Venus \xE2\x80\x94 similar in size to Earth\n- D. Earth \xE2\x80\x94 our home\n\nThe answer is B.", "B"},
    {"BoxedInInlineMath", Kind::kPlanets, "\\(\\boxed{B}\\)", "B"},
    {"BoxedTextWithOption", Kind::kPlanets, "$\\boxed{\\text{(B) Jupiter}}$", "B"},
    {"R1ThinkThenFinal", Kind::kPlanets,
     "<think>\nHmm, Mars? No, Mars is small. The answer is B.\n</think>\n\n**Final Answer:** B", "B"},
    {"R1ThinkTruncated", Kind::kPlanets,
     "<think>\nOkay, the options are Mars, Jupiter, Venus and Earth. I think the answer is B, but let me double-check "
     "the mass of", nullptr},
    {"R1ThinkDisagreesWithFinal", Kind::kPlanets,
     "<think>\nThe answer is A? Mars is red... no.\n</think>\nJupiter is the largest planet.\n\nAnswer: B", "B"},
    {"NegatedOnly", Kind::kPlanets, "The answer is not C.", nullptr},
    {"NegatedThenOwn", Kind::kPlanets,
     "The answer is not A, because Mars is smaller than Earth. The answer must be B.", "B"},
    {"HedgeBetweenLetters", Kind::kPlanets, "It's either B or C; I'm not sure.", nullptr},
    {"NotSure", Kind::kPlanets, "I'm not sure.", nullptr},
    {"CannotDetermine", Kind::kPlanets, "I cannot determine this from the information given.", nullptr},
    {"AnswerWithTextAndConfidence", Kind::kPlanets, "Answer: B (Jupiter) (confidence: 95%)", "B", 0.95},
    {"LlamaCorrectAnswerIsLetterDotText", Kind::kPlanets, "The correct answer is B. Jupiter.", "B"},
    {"OptionWordWithDashes", Kind::kPlanets, "Option B \xE2\x80\x94 Jupiter \xE2\x80\x94 is the largest.", "B"},
    {"ClaudeReasoningThenAnswerAndConfidence", Kind::kPlanets,
     "Looking at the options, Jupiter is the largest planet in our solar system by both mass and volume.\n\n"
     "Answer: B\nConfidence: 99%", "B", 0.99},
    {"MyFinalAnswerBoldParen", Kind::kPlanets, "My final answer is **(B)**.", "B"},
    {"IllGoWith", Kind::kPlanets, "Both B and C seem possible, but I'll go with B.", "B"},
    {"OptionTextNotOther", Kind::kPlanets, "Answer: Jupiter, not Mars.", "B"},
    {"HeadingThenCorrectOption", Kind::kPlanets, "### Final Answer\n\nThe correct option is **B** (Jupiter).", "B"},
    {"LetterBeyondOptions", Kind::kPlanets, "Answer: E", nullptr},
    {"TwoLettersInStatement", Kind::kPlanets, "Answer: B or C", nullptr},
    {"CapitalsRestated", Kind::kCapitals, "The answer is (B) Paris", "B"},
    {"CapitalsOptionTextStatement", Kind::kCapitals, "Paris is the capital of France.\n\n**Answer:** Paris", "B"},
    {"CapitalsBoldLetterDashText", Kind::kCapitals, "Answer: **B** \xE2\x80\x94 Paris", "B"},
    {"CapitalsTwoOptionsInProse", Kind::kCapitals, "The capital of France is Paris, not Lyon.", nullptr},

    // ---- Free text ----
    {"TextSentenceThenAnswer", Kind::kText, "The capital of Australia is Canberra.\n\nAnswer: Canberra", "Canberra"},
    {"TextBoldLabels", Kind::kText, "**Answer:** Canberra\n**Confidence:** 95%", "Canberra", 0.95},
    {"TextNotSure", Kind::kText, "I'm not sure.", nullptr},
    {"TextDontKnow", Kind::kText, "I don't know the answer to this question.", nullptr},
    {"TextClosingConfidenceSentence", Kind::kText,
     "Sydney is the largest city, but not the capital.\nCanberra.\nI'm 90% sure.", "Canberra", 0.9},
    {"TextLatexText", Kind::kText, "Answer: \\text{Canberra}", "Canberra"},
    {"TextPeerQuoted", Kind::kText, "Agent a2 said the answer is Sydney. I disagree.", nullptr},
    {"TextParentheticalRemark", Kind::kText, "The answer is: Canberra (not Sydney).", "Canberra"},
    {"TextParentheticalConfidence", Kind::kText, "Answer: Canberra (about 90% sure)", "Canberra", 0.9},
    {"TextBoldFinal", Kind::kText, "Final answer: **Canberra**.", "Canberra"},
    {"TextR1Think", Kind::kText, "<think>\nIs it Sydney? No, the capital is Canberra.\n</think>\nCanberra", "Canberra"},
    {"TextR1Truncated", Kind::kText,
     "<think>\nThe capital of Australia... Sydney is the biggest city, but the capital", nullptr},
    {"TextAnswerDeclines", Kind::kText, "Answer: I'm not sure, possibly Sydney.", nullptr},
    {"TextHeadingAnswer", Kind::kText, "## Answer\n\nCanberra", "Canberra"},
    {"TextUnanswerableIsACommittedAnswer", Kind::kText,
     "Records from that period are lost.\n\nAnswer: It cannot be determined", "It cannot be determined"},
    {"TextStanceOnlyAfterQuote", Kind::kText, "Agent a2 said the answer is Sydney.\nI disagree.", nullptr},

    // ---- Forecasts (protocols paper §2.3: the Impact: line, else the first signed percentage) ----
    {"ForecastBoldLabel", Kind::kForecast,
     "Energy prices dominate the headline figure, but core is sticky.\n\n**Impact:** +0.2%", "0.2"},
    {"ForecastBoldLabelUnsignedZero", Kind::kForecast, "Core CPI should barely move.\n\n**Impact:** 0%", "0"},
    {"ForecastUnicodeMinus", Kind::kForecast, "Impact: \xE2\x88\x92" "0.1%", "-0.1"},
    {"ForecastProseImpactBeforeTheLine", Kind::kForecast,
     "The energy shock has a large impact: headline CPI jumps +1.5%, but core moves less.\nImpact: +0.1%", "0.1"},
    {"ForecastHeadingLayout", Kind::kForecast, "### Impact\n+0.3%", "0.3"},
    {"ForecastBoldColonOutside", Kind::kForecast, "**Impact**: -0.2%", "-0.2"},
    {"ForecastImpactOnLabel", Kind::kForecast, "Impact on core CPI: +0.25%", "0.25"},
    {"ForecastZeroPointZero", Kind::kForecast, "Impact: 0.0%", "0"},
    {"ForecastUnsignedZeroSpacedPercent", Kind::kForecast, "Core CPI should be unchanged.\nImpact: 0 %", "0"},
    {"ForecastBoldValueUnicodeMinus", Kind::kForecast, "Impact: **\xE2\x88\x92" "0.3%**", "-0.3"},
    {"ForecastBulletBoldPercentagePoints", Kind::kForecast, "- **Impact:** +0.1 percentage points", "0.1"},
    {"ForecastNoLabelSignedPercentage", Kind::kForecast,
     "The policy's impact is limited; I forecast -0.1% for core CPI.", "-0.1"},
    {"ForecastBareAnswerIsNotAForecast", Kind::kForecast, "Answer: 0.3", nullptr},
    {"ForecastWithConfidence", Kind::kForecast, "Impact: +0.2%\nConfidence: 60%", "0.2", 0.6},
    {"ForecastProseImpactColonOnly", Kind::kForecast, "Its impact: modest. Expect +0.1% on core.", "0.1"},
    {"ForecastUnsignedPositive", Kind::kForecast, "Impact: 0.2%", "0.2"},
    {"ForecastLaterImpactLineWins", Kind::kForecast,
     "Impact: +0.3%\n\nOn reflection, the base effect dominates.\nImpact: +0.1%", "0.1"},
    {"ForecastUnicodeMinusWithoutLabel", Kind::kForecast, "I expect core CPI to move \xE2\x88\x92" "0.2% next month.",
     "-0.2"},
    // The Impact line (inline or a heading with its value below) wins over an earlier figure;
    // without '%' a signed number is no forecast.
    {"ForecastInlineLineAfterAnEarlierFigure", Kind::kForecast, "Last month was -0.1%.\nImpact: +0.3%", "0.3"},
    {"ForecastHeadingAfterAnEarlierFigure", Kind::kForecast, "Last month: -0.1%.\n\n### Impact\n+0.2%", "0.2"},
    {"ForecastSignedNumberWithoutPercentIsNot", Kind::kForecast, "Core CPI moves by -0.2 next month, I think.",
     nullptr},
    // An Impact value in words that means zero.
    {"ForecastNoChange", Kind::kForecast, "Impact: no change (0.0%)", "0"},
    {"ForecastBoldNoChange", Kind::kForecast, "Core goods prices are flat.\n\n**Impact:** No change", "0"},
    {"ForecastUnchangedOnLabel", Kind::kForecast, "Impact on core CPI: unchanged (0.0%)", "0"},
    {"ForecastNoChangeBeforeASignedFigure", Kind::kForecast, "- **Impact:** no change from last month's +0.2% pace",
     "0"},
    // Unicode vulgar fractions, alone and after a whole number.
    {"VulgarFractionAfterAWholeNumber", Kind::kNumber, "The answer is 2\xC2\xBD hours, i.e. 2.5 hours.", "2.5"},
    {"VulgarFractionSpaced", Kind::kNumber, "Each pie is cut in quarters, so she eats 1 \xC2\xBE pies.\n\nAnswer: 1 \xC2\xBE",
     "1.75"},
    {"VulgarFractionAlone", Kind::kNumber, "**Final answer:** \xE2\x85\x93 of the cake", "0.333333"},
    // A choice left open between two answers is a hedge: unparsed (re-asked), not guessed.
    {"EitherOrHedge", Kind::kPlanets, "It's either B or C; I can't decide between Jupiter and Venus.", nullptr},
    {"EitherOrHedgeWithOptionText", Kind::kPlanets,
     "Either B or C could be right; Jupiter is heavier but Venus looks brighter.", nullptr},
    {"TornBetweenNumbers", Kind::kNumber, "I'm torn between 18 and 20 here; it depends on the muffins.", nullptr},
    // Revisions: the earlier answer is called wrong in the same sentence as the new one.
    {"RevisionInOneSentence", Kind::kNumber,
     "I initially said the answer is 20. Upon reflection I see that was wrong and the answer is 18.", "18"},
    {"RevisionBoxedAfterIncorrect", Kind::kNumber, "I got 20 earlier but that was incorrect, the answer is \\boxed{18}.",
     "18"},
    {"RevisionCorrectAnswerIs", Kind::kNumber,
     "Upon reviewing, I realize my initial answer was wrong and the correct answer is 18.", "18"},
    {"RevisionChoiceItsB", Kind::kPlanets, "Upon reviewing, I realize I was wrong and the correct answer is B.", "B"},
    {"RevisionPreviousAnswerOf", Kind::kNumber,
     "Therefore my previous answer of 20 was incorrect and the correct answer is \\boxed{18}.", "18"},
    {"EitherWayIsNoHedge", Kind::kNumber, "Whether she sells them at the market or at home, either way she makes $18.",
     "18"},
};
// clang-format on

void PrintTo(const ReplyCase& c, std::ostream* out) { *out << c.name; }

class ReplyCorpus : public testing::TestWithParam<ReplyCase> {};

TEST_P(ReplyCorpus, ParsesAsAReaderWould) {
  const ReplyCase& c = GetParam();
  const Answer answer = parse_answer(c.reply, task_of(c.kind));
  if (c.expected == nullptr) {
    EXPECT_FALSE(answer.parsed()) << "guessed " << *answer.value << " from:\n" << c.reply;
  } else {
    EXPECT_EQ(answer.value, std::optional<std::string>(c.expected)) << c.reply;
  }
  if (c.confidence != kUnchecked) {
    ASSERT_TRUE(answer.confidence) << c.reply;
    EXPECT_DOUBLE_EQ(*answer.confidence, c.confidence) << c.reply;
  }
}

INSTANTIATE_TEST_SUITE_P(Realistic, ReplyCorpus, testing::ValuesIn(kReplies),
                         [](const testing::TestParamInfo<ReplyCase>& row) { return std::string(row.param.name); });

// ---- Self-critique replies (iMAD §4.1, App. A.1) in the layouts models write ----

constexpr double kMissing = -1.0;  // the confidence is really absent

struct CritiqueCase {
  const char* name;
  Kind kind;
  const char* reply;
  const char* initial;         // canonical initial answer; nullptr = none
  double initial_confidence;   // kMissing = none
  const char* reasoning_has;   // a phrase of the initial reasoning; nullptr = no reasoning
  const char* critique_has;    // a phrase of the critique; nullptr = no critique
  double critique_confidence;  // kMissing = none
  const char* final_answer;    // canonical final answer; nullptr = none
  double final_confidence;     // kMissing = none
  const char* final_text;      // the final answer as written, which AnswerToken counts
  std::vector<CritiqueSection> missing;
};

using S = CritiqueSection;

// clang-format off
const CritiqueCase kCritiques[] = {
    {"BoldLabelsWithBareConfidenceLines", Kind::kPlanets,
     "**Initial Answer:** B\n**Reasoning:** Jupiter is a gas giant with a radius about 11 times Earth's.\n"
     "**Confidence:** 85%\n\n**Self-Critique:** Perhaps the question means the largest terrestrial planet, which "
     "would be Earth (D).\n**Confidence:** 20%\n\n**Final Answer:** B\n**Confidence:** 90%",
     "B", 0.85, "radius about 11 times", "largest terrestrial planet", 0.20, "B", 0.90, "B", {}},
    {"AnswerReasoningAndConfidenceOnOneLine", Kind::kPlanets,
     "Initial answer: B \xE2\x80\x94 Jupiter is by far the largest planet, over 300 Earth masses. Confidence: 85%\n"
     "Self-critique: Venus is sometimes called Earth's twin, but that is about similarity to Earth, not size. "
     "Confidence: 10%\nFinal answer: B \xE2\x80\x94 the critique does not hold. Confidence: 90%",
     "B", 0.85, "over 300 Earth masses", "Earth's twin", 0.10, "B", 0.90, "B", {}},
    {"MarkdownHeadings", Kind::kPlanets,
     "## Initial Answer\nB\n\n## Initial Reasoning\nJupiter's radius is about 69,911 km, the largest of any planet.\n\n"
     "## Initial Confidence\n85%\n\n## Self-Critique\nIf the question meant the brightest planet in the night sky, "
     "Venus would be the answer.\n\n## Alternative Answer\nC\n\n## Critique Confidence\n15%\n\n## Final Answer\nB (Jupiter)\n\n"
     "## Final Confidence\n90%",
     "B", 0.85, "69,911 km", "brightest planet", 0.15, "B", 0.90, "B (Jupiter)", {}},
    {"StepHeadingsCombiningAnswerAndReasoning", Kind::kPlanets,
     "### Step 1: Initial answer and reasoning\n**B. Jupiter.** It has more than twice the mass of all the other "
     "planets combined.\n\n*Confidence: 80%*\n\n### Step 2: Self-critique\nIf the question meant the largest rocky "
     "planet, Earth (D) would be right.\n\n*Confidence in the critique: 25%*\n\n### Step 3: Final answer\n**B**\n\n"
     "*Final confidence: 85%*",
     "B", 0.80, "twice the mass", "largest rocky planet", 0.25, "B", 0.85, "B", {}},
    {"NumberedLabelsWithQualifiers", Kind::kPlanets,
     "1. Initial answer (option letter): B\n2. Initial reasoning: Jupiter is a gas giant about 11 times wider than "
     "Earth.\n3. Initial confidence score: 80%\n4. Self-critique: The question could be read as the largest planet "
     "visible to the naked eye, which might suggest Venus (C).\n5. Critique confidence score: 30%\n6. Final answer: B\n"
     "7. Final confidence score: 85%",
     "B", 0.80, "11 times wider", "naked eye", 0.30, "B", 0.85, "B", {}},
    {"FinalConfidenceInsideTheFinalAnswerLine", Kind::kPlanets,
     "Initial answer: B\nInitial reasoning: Jupiter is the largest planet by volume.\nInitial confidence: 80%\n"
     "Self-critique: Someone might pick Earth because it is the largest rocky planet.\nCritique confidence: 25%\n"
     "Final answer: B (confidence: 88%)",
     "B", 0.80, "largest planet by volume", "largest rocky planet", 0.25, "B", 0.88, "B", {}},
    {"CritiqueReallyMissing", Kind::kPlanets,
     "Initial answer: B\nReasoning: Jupiter is the largest planet by mass and volume.\nConfidence: 90%\n"
     "Final answer: B\nConfidence: 90%",
     "B", 0.90, "mass and volume", nullptr, kMissing, "B", 0.90, "B", {S::kSelfCritique, S::kCritiqueConfidence}},
    {"PipeSeparatedCompact", Kind::kPlanets,
     "Initial answer: B | Reasoning: Jupiter has 318 Earth masses, far more than any other planet | Confidence: 90%\n"
     "Critique: Saturn is nearly as wide, but it is not an option, so nothing here beats Jupiter | Confidence: 15%\n"
     "Final: B | Confidence: 92%",
     "B", 0.90, "318 Earth masses", "Saturn is nearly as wide", 0.15, "B", 0.92, "B", {}},
    {"NoLayoutAtAll", Kind::kPlanets, "Jupiter is the largest planet.\nAnswer: B\nConfidence: 95%",
     "B", 0.95, nullptr, nullptr, kMissing, nullptr, kMissing, "B",
     {S::kInitialReasoning, S::kSelfCritique, S::kCritiqueConfidence, S::kFinalAnswer, S::kFinalConfidence}},
    {"ConfidencesInWords", Kind::kPlanets,
     "Initial answer: B\nInitial reasoning: Jupiter is the biggest planet by far.\nInitial confidence: high (about 80%)\n"
     "Self-critique: One might confuse size with brightness and pick Venus.\nCritique confidence: low, roughly 10%\n"
     "Final answer: B\nFinal confidence: very high \xE2\x80\x94 95%",
     "B", 0.80, "biggest planet", "brightness", 0.10, "B", 0.95, "B", {}},
    {"QwenBoldLabelsColonOutside", Kind::kPlanets,
     "**Initial answer**: B\n\n**Initial reasoning**:\n1. Jupiter's radius is about 69,911 km.\n2. Earth's is about "
     "6,371 km.\n\n**Initial confidence**: 85%\n\n**Self-critique**:\nThe question might be about the largest rocky "
     "planet.\n\n**Critique confidence**: 20%\n\n**Final answer**: B\n\n**Final confidence**: 88%",
     "B", 0.85, "6,371 km", "largest rocky", 0.20, "B", 0.88, "B", {}},
    {"ConfidenceInPhrasing", Kind::kPlanets,
     "Initial Answer: B\nInitial Reasoning: Jupiter is a gas giant, the largest by volume.\n"
     "Confidence in initial answer: 85%\nCounter-argument: If the question were about density, Earth (D) would win.\n"
     "Confidence in counter-argument: 20%\nFinal Answer: B. Jupiter\nConfidence in final answer: 90%",
     "B", 0.85, "gas giant", "density", 0.20, "B", 0.90, "B. Jupiter", {}},
    {"StoppedBeforeTheFinalAnswer", Kind::kPlanets,
     "Initial answer: D\nInitial reasoning: Earth is where we live, so it seems large.\nInitial confidence: 60%\n"
     "Self-critique: However, Jupiter is a gas giant and is certainly larger.\nAlternative answer: B\n"
     "Critique confidence: 70%",
     "D", 0.60, "where we live", "gas giant", 0.70, nullptr, kMissing, "D", {S::kFinalAnswer, S::kFinalConfidence}},
    {"NumericCompactWithParentheticalConfidences", Kind::kNumber,
     "**Initial answer:** 18 \xE2\x80\x94 16 \xE2\x88\x92 3 \xE2\x88\x92 4 = 9 eggs sold at $2 gives $18. "
     "(Confidence: 85%)\n**Self-critique:** Maybe she also sells the muffins, which would change the total to 20. "
     "(Confidence: 15%)\n**Final answer:** 18 (Confidence: 90%)",
     "18", 0.85, "9 eggs sold", "muffins", 0.15, "18", 0.90, "18", {}},
};
// clang-format on

std::optional<std::string> expected_answer(const char* value) {
  return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

void expect_confidence(const std::optional<double>& actual, double expected, const char* what) {
  if (expected == kMissing) {
    EXPECT_FALSE(actual.has_value()) << what << " read as " << *actual;
  } else {
    ASSERT_TRUE(actual.has_value()) << what << " not read";
    EXPECT_DOUBLE_EQ(*actual, expected) << what;
  }
}

void expect_phrase(const std::string& text, const char* phrase, const char* what) {
  if (phrase == nullptr) {
    EXPECT_EQ(text, "") << what;
  } else {
    EXPECT_NE(text.find(phrase), std::string::npos) << what << " is \"" << text << "\"";
  }
}

void PrintTo(const CritiqueCase& c, std::ostream* out) { *out << c.name; }

class CritiqueCorpus : public testing::TestWithParam<CritiqueCase> {};

TEST_P(CritiqueCorpus, ReadsEverySectionTheReplyHas) {
  const CritiqueCase& c = GetParam();
  const SelfCritique critique = parse_self_critique(c.reply, task_of(c.kind));
  EXPECT_EQ(critique.initial.value, expected_answer(c.initial));
  expect_confidence(critique.initial.confidence, c.initial_confidence, "initial confidence");
  expect_phrase(critique.initial_reasoning, c.reasoning_has, "initial reasoning");
  expect_phrase(critique.critique, c.critique_has, "critique");
  expect_confidence(critique.critique_confidence, c.critique_confidence, "critique confidence");
  EXPECT_EQ(critique.final.value, expected_answer(c.final_answer));
  expect_confidence(critique.final.confidence, c.final_confidence, "final confidence");
  EXPECT_EQ(critique.final_answer_text, c.final_text);
  EXPECT_EQ(critique.missing, c.missing) << critique.problem();
  // The turn's answer: the final one, else the initial one.
  EXPECT_EQ(critique.answer.value, expected_answer(c.final_answer != nullptr ? c.final_answer : c.initial));
}

INSTANTIATE_TEST_SUITE_P(Realistic, CritiqueCorpus, testing::ValuesIn(kCritiques),
                         [](const testing::TestParamInfo<CritiqueCase>& row) { return std::string(row.param.name); });

}  // namespace
}  // namespace parley
