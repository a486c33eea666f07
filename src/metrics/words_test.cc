// DebateWords against a plain reading of the same text: split at every byte that is no ASCII
// letter, lower-case, keep the distinct words of three or more letters as strings. Random texts
// put words of 1 to 20 letters at every offset of the 16-byte blocks and 64-bit masks, next to
// the bytes that border the letters in ASCII ('@', '[', '`', '{') and bytes above 0x7F.
#include "metrics/words.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace parley {
namespace {

struct Reference {
  std::set<std::string> tokens;
  bool takes_stance = false;
};

Reference read_plainly(const std::string& text) {
  static const std::set<std::string> kStance = {
      "agree",     "agrees",     "agreed",     "agreeing",    "disagree",  "disagrees",
      "disagreed", "disagreeing", "challenge", "challenges",  "challenged", "challenging",
      "support",   "supports",   "supported",  "supporting"};
  Reference out;
  std::string word;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ' ';
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      word += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      continue;
    }
    if (word.size() >= 3) out.tokens.insert(word);
    if (kStance.count(word) != 0) out.takes_stance = true;
    word.clear();
  }
  return out;
}

class RandomText {
 public:
  explicit RandomText(std::uint64_t seed) : state_(seed) {}
  std::string next(std::size_t words) {
    static const std::vector<std::string> kWords = {
        "a",         "an",        "the",        "THE",         "Agree",        "disagreeing",  "support",
        "supports",  "answer",    "Because",    "eighteen",    "nineteenx",    "abcdefghijklmnop",
        "ABCDEFGHIJKLMNOPQRST",   "abcdefghijklmnopqrst",      "zz",           "Zyx",          "challenged",
        "agreed",    "disagreee", "supportive", "qwertyuiopas"};
    static const std::vector<std::string> kGaps = {" ", "  ", "@", "[", "`", "{", "\xE2\x80\x94", "3", "\n", "'", ""};
    std::string text;
    for (std::size_t k = 0; k < words; ++k) {
      text += kGaps[below(kGaps.size())];
      if (below(2) == 0) {
        text += kWords[below(kWords.size())];
        continue;
      }
      // A made-up word from a small alphabet: some repeat, most are new to the debate.
      const std::size_t length = 1 + below(12);
      for (std::size_t i = 0; i < length; ++i) text += "abcdeXYZ"[below(8)];
    }
    return text;
  }

 private:
  std::size_t below(std::size_t n) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((state_ >> 33) % n);
  }
  std::uint64_t state_;
};

double plain_jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 1.0;
  std::size_t common = 0;
  for (const auto& word : a) common += b.count(word);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

// Debates of up to 12 turns of up to 100 words, half of them made up: hundreds of distinct words
// per debate, so that token ids span several words of the bit sets, later turns' sets are
// longer than earlier ones', and the vocabulary's table grows (past 128 tokens) mid-debate.
TEST(DebateWords, AgreeWithAPlainReadingOnRandomText) {
  RandomText random(7);
  std::size_t most_distinct = 0;
  for (int debate = 0; debate < 300; ++debate) {
    DebateWords words;
    std::vector<Reference> plain;
    std::vector<std::string> texts;
    const std::size_t turns = static_cast<std::size_t>(debate % 12) + 1;
    for (std::size_t t = 0; t < turns; ++t) {
      texts.push_back(random.next((static_cast<std::size_t>(debate) * 7 + t * 13) % 100));
      words.add_turn(texts.back());
      plain.push_back(read_plainly(texts.back()));
    }
    ASSERT_EQ(words.turns(), turns);
    std::set<std::string> vocabulary;
    for (const Reference& turn : plain) vocabulary.insert(turn.tokens.begin(), turn.tokens.end());
    most_distinct = std::max(most_distinct, vocabulary.size());
    for (std::size_t a = 0; a < turns; ++a) {
      ASSERT_EQ(words.argument_tokens(a), plain[a].tokens.size()) << texts[a];
      ASSERT_EQ(words.takes_stance(a), plain[a].takes_stance) << texts[a];
      for (std::size_t b = 0; b < turns; ++b) {
        ASSERT_EQ(words.jaccard(a, b), plain_jaccard(plain[a].tokens, plain[b].tokens))
            << texts[a] << " | " << texts[b];
      }
    }
  }
  EXPECT_GT(most_distinct, 256u);  // the table grew twice (at 128 and 256 tokens) in some debate
}

TEST(DebateWords, EachWordTheSameInEveryCaseAndAtEveryOffset) {
  for (std::size_t offset = 0; offset < 70; ++offset) {
    const std::string pad(offset, '.');
    DebateWords words;
    words.add_turn(pad + "agree with the abcdefghijklmnopq");
    words.add_turn(pad + "AGREE WITH THE ABCDEFGHIJKLMNOPQ");
    EXPECT_EQ(words.argument_tokens(0), 4u) << offset;
    EXPECT_EQ(words.jaccard(0, 1), 1.0) << offset;
    EXPECT_TRUE(words.takes_stance(1)) << offset;
  }
  DebateWords words;
  words.add_turn("x Disagreeing");  // a word ending the text, with no byte after it to read
  words.add_turn("disagreeing is all");
  words.add_turn("disagreement, agreeable, supporter");  // not the lexicon's forms
  words.add_turn("");
  words.add_turn("a b c");
  EXPECT_EQ(words.argument_tokens(0), 1u);
  EXPECT_TRUE(words.takes_stance(0));
  EXPECT_DOUBLE_EQ(words.jaccard(0, 1), 1.0 / 2.0);  // {disagreeing} and {disagreeing, all}
  EXPECT_FALSE(words.takes_stance(2));
  EXPECT_EQ(words.jaccard(3, 4), 1.0);  // no tokens on either side
  EXPECT_EQ(words.jaccard(0, 3), 0.0);
}

TEST(WordHash, OneToOneOnShortWords) {
  std::set<std::uint64_t> seen;
  std::string word = "aaa";
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y)
      for (char z = 'a'; z <= 'z'; ++z) {
        word = {x, y, z};
        seen.insert(word_hash(word));
        seen.insert(word_hash(word + "aaaaa"));  // eight letters: one whole chunk
        seen.insert(word_hash(word + "aaaaaa"));  // nine: a second chunk of one letter
      }
  EXPECT_EQ(seen.size(), 3u * 26 * 26 * 26);
  EXPECT_EQ(word_hash("Agree"), word_hash("agree"));
  EXPECT_NE(word_hash("ab"), word_hash("abc"));
}

}  // namespace
}  // namespace parley
