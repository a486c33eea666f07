#pragma once
// OptionMatcher: recognises which option of a choice task a piece of text names, by letter
// ("B", "(B)", "Option B"; "AA" and beyond when there are more than 26 options) or by the
// option's own text. parse_choice uses it on answer
// statements and lines; parse_answer uses it to canonicalise belief labels. Internal to
// src/answer. Built per call and used on one thread: it normalises the option texts once, the
// first time a text (not a letter) is to be matched; most replies name a letter.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley::answer_scan {

struct OptionPick {
  enum class Kind {
    kNone,     // names no option
    kInvalid,  // names a letter beyond the options ("E" of four); the statement is unusable
    kOption,
  };
  Kind kind = Kind::kNone;
  std::size_t index = 0;  // when kOption

  static OptionPick none() { return {}; }
};

class OptionMatcher {
 public:
  // `options` must outlive the matcher.
  explicit OptionMatcher(const std::vector<std::string>& options);

  // An answer statement's payload: a leading letter ("(B) Paris", "B.", "b"), else the text
  // of an option ("Paris"), else the one option letter it names ("clearly (B)").
  OptionPick read_payload(std::string_view payload) const;

  // A line that is only a letter: "B", "(B)", "**B.**", "Option B".
  OptionPick read_letter_line(std::string_view line) const;

  // A line that mentions the text of exactly one option ("Jupiter is the largest.") and is
  // not an option listing ("B. Jupiter").
  OptionPick read_option_text_line(std::string_view line) const;

  // A belief label: "A", "(A)", "Option A", "A. Mars" or "Mars". Only valid options.
  std::optional<std::size_t> read_label(std::string_view label) const;

 private:
  struct Mention {
    std::size_t option;
    std::size_t begin;  // in the normalised text
    std::size_t length;
  };
  OptionPick letter(std::string_view label) const;
  std::vector<Mention> option_mentions(const std::string& normalized) const;
  OptionPick scan_letters(std::string_view s) const;

  const std::vector<std::string>& normalized_options() const;

  const std::vector<std::string>& options_;
  mutable std::optional<std::vector<std::string>> normalized_options_;  // on first use
  bool wide_;  // more than 26 options: two-capital labels ("AA") are labels too
};

}  // namespace parley::answer_scan
