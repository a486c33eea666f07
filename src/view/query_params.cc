// parse_debate_query, parse_unit: strict readers, so that a front end's mistake is an error that
// names the parameter rather than a list that silently ignores it.
#include "view/query_params.h"

#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace parley::view {
namespace {

const std::set<std::string> kListParameters = {"protocol", "seed", "correct", "status", "flipped", "range",
                                               "q", "sort", "order", "offset", "limit"};
const std::set<std::string> kUnitParameters = {"task", "protocol", "seed"};

BadParameter bad(const std::string& parameter, std::string message) {
  return BadParameter{parameter, fmt::format("{}: {}", parameter, message)};
}

// Every parameter is known and given once (but the repeatable ones); empty values are dropped.
std::variant<std::map<std::string, std::string>, BadParameter> single_values(
    const Params& params, const std::set<std::string>& known, const std::string& repeatable,
    std::vector<std::string>& repeated) {
  std::map<std::string, std::string> values;
  for (const auto& [name, value] : params) {
    if (!known.contains(name)) return bad(name, "unknown parameter");
    if (name == repeatable) {
      if (!value.empty()) repeated.push_back(value);
      continue;
    }
    if (params.count(name) > 1) return bad(name, "given more than once");
    if (!value.empty()) values[name] = value;
  }
  return values;
}

std::optional<bool> parse_flag(const std::string& text) {
  if (text == "1") return true;
  if (text == "0") return false;
  return std::nullopt;
}

std::optional<std::int64_t> parse_count(const std::string& text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

// A finite decimal number ("0.5", "-3", "1e-3").
std::optional<double> parse_number(const std::string& text) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// NAME:MIN:MAX, split at the last two colons (a metric's name may have colons); MIN or MAX empty.
std::variant<MetricRange, BadParameter> parse_range(const std::string& text) {
  const auto second = text.rfind(':');
  const auto first = second == std::string::npos || second == 0 ? std::string::npos : text.rfind(':', second - 1);
  if (first == std::string::npos) {
    return bad("range", fmt::format("\"{}\" is not NAME:MIN:MAX (MIN or MAX may be empty)", text));
  }
  MetricRange range;
  range.name = text.substr(0, first);
  if (range.name.empty()) return bad("range", fmt::format("\"{}\" names no metric", text));
  for (const auto& [part, bound] : {std::pair{text.substr(first + 1, second - first - 1), &range.min},
                                    std::pair{text.substr(second + 1), &range.max}}) {
    if (part.empty()) continue;
    *bound = parse_number(part);
    if (!*bound) return bad("range", fmt::format("\"{}\" in \"{}\" is not a finite number", part, text));
  }
  return range;
}

std::optional<DebateSort> parse_sort_key(const std::string& text) {
  static const std::map<std::string, DebateSort> kKeys = {
      {"task", DebateSort::kTask},       {"protocol", DebateSort::kProtocol}, {"seed", DebateSort::kSeed},
      {"correct", DebateSort::kCorrect}, {"tokens", DebateSort::kTokens},     {"calls", DebateSort::kCalls},
      {"rounds", DebateSort::kRounds},   {"latency", DebateSort::kLatency}};
  const auto found = kKeys.find(text);
  if (found == kKeys.end()) return std::nullopt;
  return found->second;
}

}  // namespace

std::optional<std::uint64_t> parse_seed(const std::string& text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

Parsed<DebateQuery> parse_debate_query(const Params& params) {
  std::vector<std::string> ranges;
  auto checked = single_values(params, kListParameters, "range", ranges);
  if (auto* error = std::get_if<BadParameter>(&checked)) return *error;
  const auto& v = std::get<0>(checked);
  const auto get = [&](const char* name) -> const std::string* {
    const auto found = v.find(name);
    return found == v.end() ? nullptr : &found->second;
  };

  DebateQuery q;
  q.limit = kDefaultLimit;
  if (const auto* p = get("protocol")) q.protocol = *p;
  if (const auto* p = get("seed")) {
    q.seed = parse_seed(*p);
    if (!q.seed) return bad("seed", fmt::format("\"{}\" is not a seed (decimal digits, below 2^64)", *p));
  }
  for (const auto& [name, flag] : {std::pair{"correct", &q.correct}, std::pair{"flipped", &q.flipped}}) {
    if (const auto* p = get(name)) {
      *flag = parse_flag(*p);
      if (!*flag) return bad(name, fmt::format("\"{}\" is not 1 or 0", *p));
    }
  }
  if (const auto* p = get("status")) {
    q.status = parse_debate_status(*p);
    if (!q.status) return bad("status", fmt::format("\"{}\" is not completed, budget or failed", *p));
  }
  if (ranges.size() > kMaxRanges) return bad("range", fmt::format("at most {} ranges", kMaxRanges));
  for (const std::string& text : ranges) {
    auto range = parse_range(text);
    if (auto* error = std::get_if<BadParameter>(&range)) return *error;
    q.ranges.push_back(std::get<MetricRange>(std::move(range)));
  }
  if (const auto* p = get("q")) {
    if (p->size() > kMaxTextBytes) return bad("q", fmt::format("at most {} bytes", kMaxTextBytes));
    q.text = *p;
  }
  if (const auto* p = get("sort")) {
    if (p->starts_with("metric:")) {
      q.sort = DebateSort::kMetric;
      q.sort_metric = p->substr(7);
      if (q.sort_metric.empty()) return bad("sort", "metric: names no metric");
    } else if (auto key = parse_sort_key(*p)) {
      q.sort = *key;
    } else {
      return bad("sort", fmt::format("\"{}\" is not task, protocol, seed, correct, tokens, calls, rounds, latency "
                                     "or metric:NAME",
                                     *p));
    }
  }
  if (const auto* p = get("order")) {
    if (*p != "asc" && *p != "desc") return bad("order", fmt::format("\"{}\" is not asc or desc", *p));
    q.descending = *p == "desc";
  }
  if (const auto* p = get("offset")) {
    const auto offset = parse_count(*p);
    if (!offset) return bad("offset", fmt::format("\"{}\" is not a count (0, 1, 2, ...)", *p));
    q.offset = *offset;
  }
  if (const auto* p = get("limit")) {
    const auto limit = parse_count(*p);
    if (!limit || *limit > RunBrowser::kMaxLimit) {
      return bad("limit", fmt::format("\"{}\" is not a count from 0 to {}", *p, RunBrowser::kMaxLimit));
    }
    q.limit = static_cast<int>(*limit);
  }
  return q;
}

Parsed<UnitKey> parse_unit(const Params& params) {
  std::vector<std::string> none;
  auto checked = single_values(params, kUnitParameters, "", none);
  if (auto* error = std::get_if<BadParameter>(&checked)) return *error;
  const auto& v = std::get<0>(checked);
  UnitKey unit;
  for (const auto& [name, field] : {std::pair{"task", &unit.task_id}, std::pair{"protocol", &unit.protocol}}) {
    const auto found = v.find(name);
    if (found == v.end()) return bad(name, "required");
    *field = found->second;
  }
  const auto seed = v.find("seed");
  if (seed == v.end()) return bad("seed", "required");
  const auto parsed = parse_seed(seed->second);
  if (!parsed) return bad("seed", fmt::format("\"{}\" is not a seed (decimal digits, below 2^64)", seed->second));
  unit.seed = *parsed;
  return unit;
}

}  // namespace parley::view
