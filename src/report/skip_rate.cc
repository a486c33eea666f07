// tune_skip_rate: SVR-MAD App. A, Algorithm 2 — SID-ET's skip rate chosen against SVR-MAD,
// replayed offline from one run in which sid_et debated every unit, on the paper's evaluation
// set: the units whose pre-debate answers were not unanimous (App. A).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "parley/report.h"
#include "report/difficulty.h"

namespace parley {
namespace {

struct Unit {
  // sid_et debates a unit whose single answer did not parse or had no min-LL, whatever its
  // threshold: such a unit keeps its debate at every skip rate.
  bool always_debated = false;
  double min_ll = 0.0;
  bool single_correct = false;
  double single_tokens = 0.0;
  bool debate_correct = false;
  double debate_tokens = 0.0;
};

double tokens_of(const Transcript& t) {
  return static_cast<double>(t.prompt_tokens() + t.completion_tokens());
}

// The single stage's tokens: the transcript's first call and its re-asks.
double single_stage_tokens(const Transcript& t) {
  const MessageRecord& first = t.messages.front();
  double tokens = static_cast<double>(first.prompt_tokens + first.completion_tokens);
  for (std::size_t i = 1; i < t.messages.size(); ++i) {
    const MessageRecord& m = t.messages[i];
    if (m.repeats && *m.repeats == first.id) tokens += static_cast<double>(m.prompt_tokens + m.completion_tokens);
  }
  return tokens;
}

}  // namespace

Result<SkipRateTuning> tune_skip_rate(const std::vector<Transcript>& transcripts, const std::string& sid_et,
                                      const std::string& reference) {
  // App. A evaluates on the units whose pre-debate answers were not unanimous, as svr_mad
  // recorded them; the reference's record first.
  const PreDebateRecord pre_debate = pre_debate_record(transcripts, {reference});
  std::map<UnitKey, Unit> units;
  for (const Transcript& t : transcripts) {
    if (t.protocol != sid_et || pre_debate.unanimous.count({t.task_id, t.seed})) continue;
    for (const EventRecord& e : t.events) {
      if (e.kind != "trigger") continue;
      const auto detail = nlohmann::json::parse(e.detail, nullptr, false);
      if (!detail.is_object())
        return Error{fmt::format("{} on {} seed {}: unreadable trigger event", sid_et, t.task_id, t.seed)};
      if (detail.value("decision", "") != "debate")
        return Error{
            fmt::format("{} kept the single answer on {} seed {}: run it with threshold: 0 so that every "
                        "unit debates, then tune",
                        sid_et, t.task_id, t.seed)};
      if (t.messages.empty()) break;
      Unit unit;
      unit.always_debated =
          detail.contains("forced") || !detail.contains("min_logprob") || !detail["min_logprob"].is_number();
      unit.min_ll = unit.always_debated ? 0.0 : detail["min_logprob"].get<double>();
      unit.single_correct = detail.value("single_correct", false);
      unit.single_tokens = single_stage_tokens(t);
      unit.debate_correct = t.correct;
      unit.debate_tokens = tokens_of(t);
      units[{t.task_id, t.seed}] = unit;
      break;
    }
  }
  if (std::none_of(units.begin(), units.end(), [](const auto& u) { return !u.second.always_debated; }))
    return Error{fmt::format("no {} debate with a single-agent min log-likelihood in the run", sid_et)};
  double reference_correct = 0.0, reference_tokens = 0.0;
  std::int64_t matched = 0;
  for (const Transcript& t : transcripts) {
    if (t.protocol != reference || !units.count({t.task_id, t.seed})) continue;
    ++matched;
    reference_correct += t.correct ? 1.0 : 0.0;
    reference_tokens += tokens_of(t);
  }
  if (matched == 0) return Error{fmt::format("no {} debate on the units {} ran", reference, sid_et)};

  // Units in order of falling min-LL: skipping rate r keeps the first ⌈r·n⌉ single answers of
  // the n units, out of those that sid_et can skip at all (the rest are debated at any rate).
  std::vector<Unit> order, debated;
  for (const auto& [key, unit] : units) (unit.always_debated ? debated : order).push_back(unit);
  std::stable_sort(order.begin(), order.end(),
                   [](const Unit& a, const Unit& b) { return a.min_ll > b.min_ll; });
  SkipRateTuning tuning;
  tuning.units = static_cast<std::int64_t>(units.size());
  tuning.always_debated = static_cast<std::int64_t>(debated.size());
  tuning.pre_debate_source = pre_debate.source;
  for (const Transcript& t : transcripts)
    if (t.protocol == sid_et && pre_debate.unanimous.count({t.task_id, t.seed})) ++tuning.unanimous;
  tuning.reference_accuracy = reference_correct / static_cast<double>(matched);
  tuning.reference_tokens = reference_tokens / static_cast<double>(matched);
  const double n = static_cast<double>(units.size());
  double debated_correct = 0.0, debated_tokens = 0.0;
  for (const Unit& unit : debated) {
    debated_correct += unit.debate_correct ? 1.0 : 0.0;
    debated_tokens += unit.debate_tokens;
  }
  bool chosen = false;
  for (int percent = 90; percent >= 10; percent -= 10) {  // Algorithm 2, lines 3–12
    const double rate = percent / 100.0;
    const auto skipped = std::min(order.size(), static_cast<std::size_t>(std::ceil(rate * n - 1e-9)));
    SkipRateRow row;
    row.skip_rate = rate;
    // sid_et keeps a single answer whose min-LL is above its threshold: the first debated unit's
    // min-LL keeps exactly the units before it (and debates any tied with it); when every unit
    // is skipped, any value below the lowest.
    row.threshold = skipped < order.size() ? order[skipped].min_ll : std::floor(order.back().min_ll) - 1.0;
    row.skipped = static_cast<std::int64_t>(skipped);
    double correct = debated_correct, tokens = debated_tokens;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const bool skip = i < skipped;
      correct += (skip ? order[i].single_correct : order[i].debate_correct) ? 1.0 : 0.0;
      tokens += skip ? order[i].single_tokens : order[i].debate_tokens;
    }
    row.accuracy = correct / n;
    row.tokens = tokens / n;
    tuning.rows.push_back(row);
    if (chosen) continue;
    if (row.accuracy >= tuning.reference_accuracy) {
      tuning.selected = rate;
      tuning.why = "the first rate whose accuracy reaches the reference's";
      chosen = true;
    } else if (row.tokens > tuning.reference_tokens) {
      tuning.selected = rate;
      tuning.why = "the first rate whose tokens exceed the reference's";
      chosen = true;
    }
  }
  if (!chosen) {
    tuning.selected = 0.1;  // line 13
    tuning.why = "no rate reached the reference's accuracy or exceeded its tokens";
  }
  return tuning;
}

std::string render_skip_rate(const SkipRateTuning& tuning, const std::string& sid_et,
                             const std::string& reference) {
  std::string out = fmt::format(
      "SID-ET skip-rate tuning (SVR-MAD App. A, Algorithm 2): {} replayed on {} units against "
      "{} (accuracy {:.3f}, {:.0f} tokens per unit)\n",
      sid_et, tuning.units, reference, tuning.reference_accuracy, tuning.reference_tokens);
  out += tuning.pre_debate_source.empty()
             ? "no protocol recorded pre-debate answers (svr_mad's priors), so units unanimous before debate "
               "could not be left out\n"
             : fmt::format("{} units unanimous before debate left out ({}'s pre-debate answers), as in App. A\n",
                           tuning.unanimous, tuning.pre_debate_source);
  if (tuning.always_debated > 0)
    out += fmt::format("{} of the units are debated at every rate: sid_et debates a single answer that did not "
                       "parse or has no min-LL, whatever its threshold\n",
                       tuning.always_debated);
  out += fmt::format("{:>9}  {:>13}  {:>7}  {:>8}  {:>8}\n", "skip rate", "min-LL > ", "skipped", "accuracy",
                     "tokens");
  const SkipRateRow* selected = nullptr;
  for (const SkipRateRow& row : tuning.rows) {
    const bool is_selected = std::fabs(row.skip_rate - tuning.selected) < 1e-9;
    if (is_selected) selected = &row;
    out += fmt::format("{:>8.0f}%  {:>13.4f}  {:>7}  {:>8.3f}  {:>8.0f}{}\n", 100.0 * row.skip_rate, row.threshold,
                       row.skipped, row.accuracy, row.tokens, is_selected ? "  <- selected" : "");
  }
  out += fmt::format("selected skip rate {:.0f}% ({})", 100.0 * tuning.selected, tuning.why);
  if (selected) out += fmt::format("; use threshold: {}", selected->threshold);  // shortest exact form
  return out + "\n";
}

}  // namespace parley
