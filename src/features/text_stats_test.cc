// Word tokens, sentences, syllables and the two readability scores, with values worked out by
// hand (the counts are written beside each expectation).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parley/features.h"

namespace parley {
namespace {

using Strings = std::vector<std::string>;

TEST(WordTokens, WordsNumbersAndPunctuation) {
  EXPECT_EQ(word_tokens("Don't use 3.14 or 1,000."), (Strings{"Don't", "use", "3.14", "or", "1,000", "."}));
  EXPECT_EQ(word_tokens("a 45-year-old's $300, 15%"),
            (Strings{"a", "45-year-old's", "$", "300", ",", "15", "%"}));
  EXPECT_EQ(word_tokens("wait... \"yes\""), (Strings{"wait", ".", ".", ".", "\"", "yes", "\""}));
  // Curly apostrophe inside a word, em dash and curly quotes as punctuation, accented letters.
  EXPECT_EQ(word_tokens("it\u2019s \u2014 \u201ccaf\u00e9\u201d"),
            (Strings{"it\u2019s", "\u2014", "\u201c", "caf\u00e9", "\u201d"}));
  EXPECT_EQ(word_tokens("- well -"), (Strings{"-", "well", "-"}));  // hyphens not inside a word
  EXPECT_TRUE(word_tokens("  \n\t ").empty());
  EXPECT_EQ(word_tokens("bad\xff"
                        "byte"),
            (Strings{"bad", "byte"}));  // invalid UTF-8 is a space
}

TEST(Sentences, TerminatorsAndLineBreaks) {
  EXPECT_EQ(sentences("Hi there. How are you? Fine!"), (Strings{"Hi there.", "How are you?", "Fine!"}));
  EXPECT_EQ(sentences("First line\nsecond line"), (Strings{"First line", "second line"}));
  EXPECT_EQ(sentences("He said \"Stop!\" Then he left."), (Strings{"He said \"Stop!\"", "Then he left."}));
  EXPECT_EQ(sentences("Wait... What?!"), (Strings{"Wait...", "What?!"}));
}

TEST(Sentences, AbbreviationsDecimalsAndListMarkers) {
  EXPECT_EQ(sentences("Dr. Smith gave 2.5 mg. It worked."),
            (Strings{"Dr. Smith gave 2.5 mg.", "It worked."}));
  EXPECT_EQ(sentences("Some acids, e.g. HCl, are strong."), (Strings{"Some acids, e.g. HCl, are strong."}));
  EXPECT_EQ(sentences("The answer is B. Option C is wrong."),
            (Strings{"The answer is B.", "Option C is wrong."}));
  EXPECT_EQ(sentences("1. First point.\n2. Second point."), (Strings{"1. First point.", "2. Second point."}));
  // A lower-case word after the '.' continues the sentence.
  EXPECT_EQ(sentences("It costs approx. five dollars."), (Strings{"It costs approx. five dollars."}));
  // Pieces without a letter or digit are dropped.
  EXPECT_EQ(sentences("... ?! Yes."), (Strings{"Yes."}));
  EXPECT_TRUE(sentences("").empty());
}

TEST(Syllables, VowelGroupRule) {
  EXPECT_EQ(syllable_count("the"), 1);        // e
  EXPECT_EQ(syllable_count("make"), 1);       // a, e - silent e
  EXPECT_EQ(syllable_count("table"), 2);      // a, e - consonant + le keeps it
  EXPECT_EQ(syllable_count("tables"), 2);     // a, e - consonant + les keeps it
  EXPECT_EQ(syllable_count("likes"), 1);      // i, e - silent -es after k
  EXPECT_EQ(syllable_count("boxes"), 2);      // o, e - -es after x is voiced
  EXPECT_EQ(syllable_count("places"), 2);     // a, e - -es after c is voiced
  EXPECT_EQ(syllable_count("hoped"), 1);      // o, e - silent -ed after p
  EXPECT_EQ(syllable_count("wanted"), 2);     // a, e - -ed after t is voiced
  EXPECT_EQ(syllable_count("played"), 1);     // "aye" is one group
  EXPECT_EQ(syllable_count("free"), 1);       // ee
  EXPECT_EQ(syllable_count("yellow"), 2);     // e, o - word-initial y is a consonant
  EXPECT_EQ(syllable_count("happy"), 2);      // a, y
  EXPECT_EQ(syllable_count("Reasoning"), 3);  // ea, o, i
  EXPECT_EQ(syllable_count("Jupiter"), 3);    // u, i, e
  EXPECT_EQ(syllable_count("maybe"), 1);      // ay, e - silent e (the rule's known miss)
  EXPECT_EQ(syllable_count("1990"), 1);       // a number is one
  EXPECT_EQ(syllable_count("hmm"), 1);        // at least one for a word
  EXPECT_EQ(syllable_count("?"), 0);          // punctuation
}

TEST(Readability, EmptyTextIsZero) {
  EXPECT_EQ(flesch_reading_ease(""), 0.0);
  EXPECT_EQ(coleman_liau_index(""), 0.0);
  EXPECT_EQ(flesch_reading_ease(" ...?! "), 0.0);
  EXPECT_EQ(coleman_liau_index(" ...?! "), 0.0);
}

TEST(Readability, CatOnTheMat) {
  // 6 words, 1 sentence, 6 syllables, 17 letters.
  // FRE = 206.835 - 1.015*6 - 84.6*1 = 116.145.
  // CLI: L = 1700/6 = 283.333, S = 100/6 = 16.667 -> 16.66 - 4.9333 - 15.8 = -4.07333.
  EXPECT_NEAR(flesch_reading_ease("The cat sat on the mat."), 116.145, 1e-9);
  EXPECT_NEAR(coleman_liau_index("The cat sat on the mat."), -4.0733333333, 1e-9);
}

TEST(Readability, TwoSentences) {
  // Jupiter(3) is(1) the(1) largest(2) planet(2) / It(1) has(1) many(2) moons(1):
  // 9 words, 2 sentences, 14 syllables; letters 7+2+3+7+6+2+3+4+5 = 39.
  // FRE = 206.835 - 1.015*4.5 - 84.6*14/9 = 206.835 - 4.5675 - 131.6 = 70.6675.
  // CLI: L = 3900/9 = 433.333 -> 25.48; S = 200/9 = 22.222 -> 6.57778; 25.48 - 6.57778 - 15.8 = 3.10222.
  const char* text = "Jupiter is the largest planet. It has many moons!";
  EXPECT_NEAR(flesch_reading_ease(text), 70.6675, 1e-9);
  EXPECT_NEAR(coleman_liau_index(text), 3.1022222222, 1e-9);
}

TEST(Readability, NumbersAreWordsWithoutLetters) {
  // In(1) 2020(1) 15(1) of(1) 300(1) patients(2: a, ie) recovered(3: e, o, e, e less silent -ed):
  // 7 words ("," "%" "." are not), 1 sentence, 10 syllables; letters 2+2+8+9 = 21.
  // FRE = 206.835 - 7.105 - 84.6*10/7 = 78.872857; CLI = 0.0588*300 - 0.296*100/7 - 15.8 = -2.388571.
  const char* text = "In 2020, 15% of 300 patients recovered.";
  EXPECT_NEAR(flesch_reading_ease(text), 78.8728571429, 1e-9);
  EXPECT_NEAR(coleman_liau_index(text), -2.3885714286, 1e-9);
}

}  // namespace
}  // namespace parley
