// MACI's simulated debaters (simulator_maci.h; docs/simulator.md, "MACI agents", eqs. 21–24).
#include "llm/simulator_maci.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "llm/simulator_answers.h"
#include "llm/simulator_argument.h"
#include "parley/labels.h"

namespace parley::sim {
namespace {

using Json = nlohmann::json;
using Belief = std::map<std::string, double>;  // answer (canonical) → mass

constexpr double kAlternativeShares[] = {0.5, 0.3, 0.2};  // eq. (21): the rest of the mass
constexpr double kPersuasion = 0.6;  // κ_p of eq. (22): pull of an admitted opposing argument
constexpr double kYield = 0.2;       // κ_y of eq. (22): pull of an opponent's stated position
constexpr double kOwnPositionPull = 0.5;  // eq. (24): agents cite what names their answer
constexpr int kArguments = 2;
constexpr double kLeanShift = 0.5;  // κ of eq. (25)
constexpr std::size_t kStatedAnswers = 4;  // top-k written in the distribution

std::string base_turn(const Annotations& note) {
  const std::string& turn = note.turn;
  const std::string suffix = "_reask";
  if (turn.size() > suffix.size() && turn.ends_with(suffix)) return turn.substr(0, turn.size() - suffix.size());
  return turn;
}

void normalise(Belief& belief) {
  double total = 0.0;
  for (const auto& [answer, mass] : belief) total += mass;
  if (total <= 0.0) return;
  for (auto& [answer, mass] : belief) mass /= total;
}

// Eq. (21): the initial decision's answer with its confidence, the rest spread over up to three
// alternatives — the task's wrong answers in their order (nearest first on a scale), and, when
// the answer is wrong, the gold among them with probability σ(4·(a − d) + 1) (the revision
// model's recognition, eq. 9) at a place drawn uniformly.
Belief initial_belief(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                      double temperature, const TaskLatents& task) {
  Annotations initial = note;
  initial.round = 0;
  initial.turn = "maci_belief";
  initial.shown.clear();
  const Decision d = decide(params, profile, initial, temperature, task);
  Belief belief{{d.answer, d.confidence}};
  std::vector<std::string> alternatives;
  for (const auto& wrong : task.answers.wrong)
    if (wrong != d.answer && alternatives.size() < std::size(kAlternativeShares)) alternatives.push_back(wrong);
  Rng rng(stream_seed(params, initial, temperature, "maci_alternatives"));
  const double recognised = logistic(params.recognize_slope * (profile.ability - task.difficulty) + params.recognize_bias);
  if (d.answer != task.answers.gold && rng.uniform() < recognised) {
    const std::size_t slots = std::min(alternatives.size() + 1, std::size(kAlternativeShares));
    const auto at = static_cast<std::ptrdiff_t>(rng.below(slots));
    alternatives.insert(alternatives.begin() + at, task.answers.gold);
    if (alternatives.size() > std::size(kAlternativeShares)) alternatives.pop_back();
  }
  for (std::size_t i = 0; i < alternatives.size(); ++i)
    belief[alternatives[i]] += (1.0 - d.confidence) * kAlternativeShares[i];
  normalise(belief);
  return belief;
}

// The agent's belief as its last reply stated it (the model reads its own words), if any.
std::optional<Belief> stated_belief(const std::vector<ChatMessage>& messages) {
  for (auto m = messages.rbegin(); m != messages.rend(); ++m) {
    if (m->role != "assistant") continue;
    const Json reply = Json::parse(m->content.str(), nullptr, false);
    if (!reply.is_object() || !reply.contains("distribution") || !reply["distribution"].is_object()) continue;
    Belief belief;
    for (const auto& [answer, mass] : reply["distribution"].items())
      if (mass.is_number()) belief[answer] = mass.get<double>();
    if (belief.empty()) continue;
    normalise(belief);
    return belief;
  }
  return std::nullopt;
}

std::string top_of(const Belief& belief) {
  std::string top;
  double best = -1.0;
  for (const auto& [answer, mass] : belief)
    if (mass > best) best = mass, top = answer;
  return top;
}

void pull(Belief& belief, const std::string& answer, double strength) {
  const double s = std::clamp(strength, 0.0, 1.0);
  for (auto& [a, mass] : belief) mass *= 1.0 - s;
  belief[answer] += s;
}

// Eqs. (22)–(23): a debate round's belief.
Belief argued_belief(const SimulatorParams& params, const SimulatorProfile& profile, const ChatRequest& request,
                     double temperature, const TaskLatents& task, double contentiousness) {
  const Annotations& note = request.note;
  Belief belief = stated_belief(request.messages).value_or(initial_belief(params, profile, note, temperature, task));
  const double yielding = 1.0 - contentiousness;
  const std::string held = top_of(belief);
  for (const PeerView& shown : note.shown) {
    // Only an opposing position moves a belief: agreement is restated, not compounded.
    if (shown.answer.empty() || shown.answer == held) continue;
    if (shown.argument) {
      // An opponent's argument the moderator admitted pulls by its quality (eq. 22).
      const int stance = matches_gold(*note.task, shown.answer) ? 1 : -1;
      const ArgumentKey key{note.seed, note.task->id, shown.agent, shown.argument->round, shown.argument->index, stance};
      pull(belief, shown.answer, kPersuasion * yielding * argument_quality(key, task));
    } else {
      pull(belief, shown.answer, kYield * yielding * shown.confidence.value_or(0.5));
    }
  }
  // Eq. (23): on entering the debate (round 1), commitment sharpens a belief at high CL and
  // softens it at low CL; later rounds restate it unless an opponent moved it.
  if (note.round == 1) {
    const double exponent = 0.5 + contentiousness;
    for (auto& [answer, mass] : belief) mass = std::pow(mass, exponent);
  }
  normalise(belief);
  return belief;
}

struct Cited {
  std::string id;
  double score = 0.0;
};

// Eq. (24): the documents an argument draws on, best first: relevance at low CL, the agent's own
// pick (a draw per agent, round and document) at high CL, so that opponents cite alike when they
// cooperate and apart when they fight; a document naming the agent's own answer comes first.
std::vector<Cited> citation_order(const Annotations& note, const TaskLatents& task, double contentiousness,
                                  const std::string& position) {
  std::vector<Cited> order;
  if (!note.evidence) return order;
  for (const EvidenceDocument& doc : *note.evidence) {
    Rng own(HashBuilder().add("maci_cite").add(note.seed).add(note.task->id).add(note.agent).add(note.round).add(doc.id).value());
    const double relevance = evidence_relevance(*note.task, task, doc.text);
    const double supports = text_names(*note.task, doc.text, position) ? kOwnPositionPull : 0.0;
    order.push_back({doc.id, (1.0 - contentiousness) * relevance + contentiousness * own.uniform() + supports});
  }
  std::stable_sort(order.begin(), order.end(), [](const Cited& a, const Cited& b) { return a.score > b.score; });
  return order;
}

Json distribution_json(const Belief& belief) {
  std::vector<std::pair<std::string, double>> order(belief.begin(), belief.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  Json out = Json::object();
  for (std::size_t i = 0; i < order.size() && i < kStatedAnswers; ++i) {
    const double rounded = std::round(order[i].second * 100.0) / 100.0;
    if (rounded > 0.0) out[order[i].first] = rounded;
  }
  return out;
}

// Eq. (25): a partisan reading of an ordered scale — a share κ·|lean| (κ = 0.5) of each label's
// mass moves one step towards the lean's end (lean < 0: the lowest label), the end keeping its
// own. Applied to the single-pass belief only; the debate then moves it like any other.
Belief leaning(Belief belief, const Task& task, double lean) {
  if (lean == 0.0 || !task.labels || !task.labels->ordered()) return belief;
  const std::vector<std::string>& scale = task.labels->labels();
  const double share = kLeanShift * std::min(1.0, std::fabs(lean));
  Belief out;
  for (const auto& [answer, mass] : belief) {
    const std::optional<std::size_t> at = task.labels->find(answer);
    if (!at) {
      out[answer] += mass;
      continue;
    }
    std::size_t to = *at;
    if (lean < 0.0 && to > 0) --to;
    if (lean > 0.0 && to + 1 < scale.size()) ++to;
    out[scale[*at]] += mass * (1.0 - share);
    out[scale[to]] += mass * share;
  }
  return out;
}

}  // namespace

bool is_maci_turn(const Annotations& note) { return note.turn.starts_with("maci_"); }

void apply_lean(Decision& decision, const Task& task, double lean, Rng& rng) {
  if (lean == 0.0 || !task.labels || !task.labels->ordered()) return;
  if (rng.uniform() >= kLeanShift * std::min(1.0, std::fabs(lean))) return;
  const std::optional<std::size_t> at = task.labels->find(decision.answer);
  if (!at) return;
  const std::vector<std::string>& scale = task.labels->labels();
  std::size_t to = *at;
  if (lean < 0.0 && to > 0) --to;
  if (lean > 0.0 && to + 1 < scale.size()) ++to;
  decision.answer = scale[to];
  decision.correct = matches_gold(task, decision.answer);
}

MaciReply write_maci_reply(const SimulatorParams& params, const SimulatorProfile& profile, const ChatRequest& request,
                           double temperature, const TaskLatents& task, bool malformed, double lean) {
  Annotations note = request.note;
  note.turn = base_turn(note);  // a re-ask states what the failed reply meant
  const double contentiousness = note.contentiousness.value_or(0.5);
  ChatRequest modelled = request;
  modelled.note = note;
  const Belief belief = note.round == 0 ? leaning(initial_belief(params, profile, note, temperature, task), *note.task, lean)
                                        : argued_belief(params, profile, modelled, temperature, task, contentiousness);
  const std::string top = top_of(belief);
  MaciReply out;
  out.confidence = belief.at(top);
  if (malformed) {
    out.text = fmt::format("Weighing the findings, {} is the most likely answer (about {:.0f}%), but I would want "
                           "more tests before committing.",
                           top, 100.0 * out.confidence);
    return out;
  }
  std::string second;
  for (const auto& [answer, mass] : belief)
    if (answer != top && (second.empty() || mass > belief.at(second))) second = answer;
  const int stance = matches_gold(*note.task, top) ? 1 : -1;
  const std::vector<Cited> order = citation_order(note, task, contentiousness, top);
  Json arguments = Json::array();
  for (int i = 0; i < kArguments; ++i) {
    const double quality =
        argument_quality(ArgumentKey{note.seed, note.task->id, note.agent, note.round, i, stance}, task);
    Json cited = Json::array();
    const auto at = static_cast<std::size_t>(i);
    if (at < order.size()) cited.push_back(order[at].id);
    if (quality >= 0.6 && at + kArguments < order.size()) cited.push_back(order[at + kArguments].id);
    const std::string claim = i == 0 ? fmt::format("The findings point to {}.", top)
                                     : fmt::format("{} explains the findings less well than {}.",
                                                   second.empty() ? std::string("The alternative") : second, top);
    arguments.push_back({{"claim", claim},
                         {"justification", fmt::format("The cited evidence fits {} in its key features.", top)},
                         {"evidence", cited}});
  }
  Json plan = Json::object();
  if (!second.empty()) {
    plan["tests"] = Json::array({fmt::format("a test that separates {} from {}", top, second)});
    plan["retrieval_queries"] = Json::array({fmt::format("{} vs {} differential", top, second)});
  }
  out.text = Json{{"arguments", arguments}, {"distribution", distribution_json(belief)}, {"acquisition_plan", plan}}.dump();
  return out;
}

}  // namespace parley::sim
