#pragma once
// The viewer API's query parameters read into typed values (internal to src/view): the list's
// filters, sort and page (GET /api/debates) and a debate's unit (GET /api/debate). A bad value is
// a BadParameter naming the parameter, which the server answers with 400. What the store has
// (a metric's name) is checked by the server, not here.

#include <map>
#include <string>
#include <variant>

#include "parley/run_browser.h"
#include "parley/store.h"

namespace parley::view {

// The parameters as the URL carried them, decoded (httplib::Params is this multimap).
using Params = std::multimap<std::string, std::string>;

struct BadParameter {
  std::string parameter;
  std::string message;  // a sentence naming the parameter and what it takes
};

template <class T>
using Parsed = std::variant<T, BadParameter>;

// Maximum lengths the API takes: a search text, and how many ranges one list may have.
inline constexpr std::size_t kMaxTextBytes = 500;
inline constexpr std::size_t kMaxRanges = 16;
inline constexpr int kDefaultLimit = 50;

// protocol, seed, correct (1|0), status, flipped (1|0), range (NAME:MIN:MAX, repeatable), q,
// sort (task|protocol|seed|correct|tokens|calls|rounds|latency|metric:NAME), order (asc|desc),
// offset, limit (0..RunBrowser::kMaxLimit). An empty value is the parameter's absence; any other
// parameter, or one given twice (but range), is bad.
Parsed<DebateQuery> parse_debate_query(const Params& params);

// task, protocol, seed: all three required.
Parsed<UnitKey> parse_unit(const Params& params);

// A seed as the API writes it: decimal digits of an unsigned 64-bit value.
std::optional<std::uint64_t> parse_seed(const std::string& text);

}  // namespace parley::view
