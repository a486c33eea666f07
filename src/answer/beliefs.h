#pragma once
// The cheap test parse_beliefs (parley/answer.h) runs before reading a reply's entries. Internal
// to src/answer.

#include <string_view>

namespace parley::answer_scan {

// Whether `text` has at least two places where a belief entry could end: a number's last byte
// (a digit or '%'; a LaTeX fraction's closing '}' is a tail byte) followed by tail bytes only
// (" \t\r)]}*_."), up to a separator ('\n', ',', ';'), " and " or the end. Every entry ends at such a place and no two at the same one,
// so where this is false parse_beliefs finds no distribution: most replies, whose only number
// is their confidence, are settled by it.
bool has_two_possible_entry_ends(std::string_view text);

}  // namespace parley::answer_scan
