#pragma once
// The character classes and the word tokenizer shared by the text features (tokens, sentences,
// readability, lexicons, entities, syntax chunking). Internal to parley_features.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace parley::features {

// What one UTF-8 character is, for tokenizing. Invalid bytes are kSpace (ignored).
enum class CharKind { kSpace, kLetter, kDigit, kApostrophe, kHyphen, kPunct };

struct Char {
  CharKind kind;
  std::size_t length;  // bytes, >= 1
};

// The character starting at byte `i` (< text.size()).
Char char_at(std::string_view text, std::size_t i);

// A word token as a byte range [begin, end) of the text it came from.
struct TokenSpan {
  std::size_t begin;
  std::size_t end;
};

// The tokens of word_tokens(), as spans.
std::vector<TokenSpan> token_spans(std::string_view text);

// Whether a token holds a letter or digit (a word, as opposed to a punctuation token).
bool is_word(std::string_view token);

// Lower-cased ASCII, with the typographic apostrophe (U+2019) folded to '.
std::string fold_token(std::string_view token);

}  // namespace parley::features
