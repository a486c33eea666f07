// maci: MACI (Chang & Chang, "Multi-Agent Collaborative Intelligence: Dual-Dial Control for
// Reliable LLM Reasoning"), Algorithm 1. Before round 1 (§3.4, App. F): evidence is retrieved,
// every agent gives a single-pass belief, and (Q_0, D_JS,0) set the behaviour dial CL^(1). Each
// round the agents argue at CL^(t) and state their distributions; the CRIT panel rates every
// argument; the moderator (parley/maci.h) admits arguments through the dual gate, weighs the
// agents by reliability, measures the round and moves the dials, until eq. (10) or another stop.
// The output is the final mixture p^(t) (its argmax the answer), the curated record ψ and an
// acquisition plan. Choices the paper leaves open: docs/protocols.md ("maci").
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "parley/evidence.h"
#include "parley/judge.h"
#include "parley/maci.h"
#include "parley/maci_scheduler.h"
#include "protocols/maci_context.h"
#include "protocols/maci_outcome.h"
#include "protocols/maci_reply.h"
#include "protocols/prompts.h"
#include "protocols/protocols.h"

namespace parley {
namespace {

using Json = nlohmann::json;
using maci::EvidenceContext;

struct Settings {
  int agents = 2;
  std::optional<maci::SchedulerSettings> scheduler;  // App. L's bandit instead of the schedule
  maci::ControllerSettings controller;
  maci::InitialBins bins;
  std::optional<double> held_contentiousness;  // Table 3's "no schedule" ablations
  std::optional<maci::Dispersion> dispersion;  // none: by the task (W̃_1 on an ordered scale)
  ContextBudget context;
  std::size_t candidates = 100;                // BM25 candidates before the rerank
};

// ---- The debate ----------------------------------------------------------------------------

struct Debater {
  Agent agent;
  std::vector<ChatMessage> history;
  std::optional<maci::Reply> latest;  // its latest valid reply
  std::string position;               // the named outcome its latest belief favours ("" = none)
};

// The named outcome (not "other") with the most mass; ties to the first. "" when none has any.
std::string favoured(const maci::Distribution& belief, const maci::OutcomeSpace& space) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i + 1 < belief.size(); ++i)
    if (belief[i] > 0.0 && (!best || belief[i] > belief[*best])) best = i;
  return best ? space.name(*best) : std::string();
}

Json ranked(const maci::Distribution& p, const maci::OutcomeSpace& space) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] > 0.0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  Json out = Json::array();
  for (std::size_t i : order) out.push_back({{"label", space.name(i)}, {"probability", p[i]}});
  return out;
}

Json optional_number(const std::optional<double>& x) { return x ? Json(*x) : Json(nullptr); }

// An admitted argument of ψ.
struct RecordEntry {
  int round = 0;
  std::string agent;
  std::string position;  // what its author favoured when making it
  int index = 0;         // its place among the author's arguments of the round
  maci::Argument argument;
  double evidence_score = 0.0;
  double crit = 0.0;
};

// App. L's bandit, shared by every debate of the entry (a debate has too few rounds to learn
// in, M-29 (viii)): debates using it run one at a time, in the order they start (FifoLock), so
// that its statistics are a function of the seed and the plan; a resume replays the stored
// debates' updates first (Protocol::replay).
struct SharedScheduler {
  explicit SharedScheduler(const maci::SchedulerSettings& settings) : scheduler(settings) {}
  FifoLock turn;
  maci::DialScheduler scheduler;
};

// One bandit step as `maci_schedule` records it, and as a resume replays it.
maci::SchedulerContext context_from(const Json& detail) {
  maci::SchedulerContext c;
  const Json& x = detail.at("context");
  c.dispersion = x.at("dispersion");
  c.dispersion_change = x.at("dispersion_change");
  c.quality = x.at("quality");
  c.quality_change = x.at("quality_change");
  c.information_gain = x.at("information_gain");
  c.information_gain_change = x.at("information_gain_change");
  c.budget_fraction = x.at("budget_fraction");
  return c;
}

Json context_json(const maci::SchedulerContext& c) {
  return {{"dispersion", c.dispersion},
          {"dispersion_change", c.dispersion_change},
          {"quality", c.quality},
          {"quality_change", c.quality_change},
          {"information_gain", c.information_gain},
          {"information_gain_change", c.information_gain_change},
          {"budget_fraction", c.budget_fraction}};
}

class Maci final : public Protocol {
 public:
  explicit Maci(Settings settings) : settings_(std::move(settings)) {
    if (settings_.scheduler) shared_ = std::make_shared<SharedScheduler>(*settings_.scheduler);
  }

  bool keeps_state() const override { return shared_ != nullptr; }

  void replay(const Transcript& stored) const override {
    if (!shared_) return;
    for (const EventRecord& event : stored.events) {
      if (event.kind != "maci_schedule") continue;
      const Json detail = Json::parse(event.detail, nullptr, false);
      if (!detail.is_object() || !detail.contains("move") || !detail.contains("reward")) continue;
      shared_->scheduler.update(detail["move"].get<std::size_t>(), context_from(detail), detail["reward"].get<double>(),
                                detail["cost"].get<double>());
    }
  }

  Async<std::optional<std::string>> run(Debate& debate) const override {
    std::optional<FifoLock::Guard> turn;
    if (shared_) turn.emplace(co_await shared_->turn.acquire(debate.loop()));
    const Task& task = debate.task();
    auto space_or = maci::OutcomeSpace::of(task);
    if (!space_or) throw DebateHalt{DebateStatus::kFailed, "maci: " + space_or.error().message};
    const maci::OutcomeSpace space = std::move(space_or.value());
    const std::string query = question_with_options(task);

    // Pre-debate (§3.4): retrieval, Q_0, single-pass beliefs, D_JS,0, CL^(1).
    const EvidenceContext evidence = co_await maci::gather_evidence(debate, settings_.context, settings_.candidates, query);
    std::vector<Debater> debaters;
    for (Agent& agent : debate.agents(static_cast<std::size_t>(settings_.agents))) {
      Debater d;
      d.agent = std::move(agent);
      d.history.push_back({"user", maci::opening_prompt(task, evidence, static_cast<std::size_t>(settings_.agents))});
      debaters.push_back(std::move(d));
    }
    co_await ask_round(debate, 0, std::nullopt, debaters, space, evidence);
    maci::InitialState initial;
    for (const Debater& d : debaters) initial.beliefs.push_back(belief_of(d, space));
    initial.evidence_quality = maci::evidence_quality(evidence.embeddings, evidence.prototype);
    initial.prototype = evidence.prototype;
    maci::ControllerSettings controller_settings = settings_.controller;
    controller_settings.dispersion = settings_.dispersion.value_or(
        task.labels && task.labels->ordered() ? maci::Dispersion::kWasserstein : maci::Dispersion::kJensenShannon);
    // τ_Q is a threshold on a dense encoder's cosines; the lexical encoder's word overlap and an
    // empty context give Q nothing to gate on: Q is measured, but the gate is off.
    std::string gate_off;
    if (evidence.documents->empty()) gate_off = "no evidence in the context";
    else if (evidence.encoder == "lexical") gate_off = "no embedding model (lexical encoder)";
    if (!gate_off.empty()) controller_settings.quality_gate = false;
    Progress state{maci::Controller(controller_settings, initial, settings_.bins), std::move(debaters)};
    if (settings_.held_contentiousness)
      state.controller.set_dials(*settings_.held_contentiousness, state.controller.quality_gate(),
                                 state.controller.crit_gate());
    state.initial_quality = initial.evidence_quality;
    state.position = {state.controller.contentiousness(), 0.0};  // (α_0, γ_0) from §3.4
    record_start(debate, evidence, initial, state, space, gate_off);

    std::optional<DebateHalt> halted;
    try {
      while (state.stop == maci::StopReason::kNone) {
        if (!shared_) {
          co_await argue(debate, state, space, evidence);
          continue;
        }
        // App. L: the bandit sets the dials for the round, then learns from what it brought.
        const ScheduleStep step = schedule(debate, state);
        const std::int64_t spent_before = debate.transcript().prompt_tokens() + debate.transcript().completion_tokens();
        co_await argue(debate, state, space, evidence);
        learn(debate, state, step, spent_before);
      }
    } catch (DebateHalt& halt) {
      if (halt.status != DebateStatus::kBudget) throw;
      halted = std::move(halt);  // Alg. 1 returns p^(t) on budget exhaustion too
    }
    std::optional<std::string> answer =
        finish(debate, state, space, halted ? std::string("budget") : std::string(maci::stop_reason_name(state.stop)));
    if (halted) {
      halted->answer = std::move(answer);
      throw *halted;
    }
    co_return answer;
  }

 private:
  struct Dials {
    double contentiousness = 0.0;
    double quality_gate = 0.0;
    double crit_gate = 0.0;
  };

  // A debate in progress: the moderator, the agents, ψ and what the last round decided.
  struct Progress {
    maci::Controller controller;
    std::vector<Debater> debaters;
    std::vector<RecordEntry> record;                 // ψ
    std::vector<RecordEntry> admitted_last;          // what the last round added to ψ
    std::map<std::string, int> rejected_last;        // agent → its arguments the last round did not admit
    maci::StopReason stop = maci::StopReason::kNone;
    std::optional<double> initial_quality;           // Q_0
    maci::DialPosition position;                     // the scheduler's (α, γ), App. L
  };

  // One round (Alg. 1 lines 3–16): the agents argue, the panel judges, the moderator decides.
  Async<void> argue(Debate& debate, Progress& state, const maci::OutcomeSpace& space,
                    const EvidenceContext& evidence) const {
    const int round = state.controller.next_round();
    const Dials dials{state.controller.contentiousness(), state.controller.quality_gate(), state.controller.crit_gate()};
    const std::vector<Debater> before = state.debaters;  // each agent sees its opponents' previous replies
    for (std::size_t u = 0; u < state.debaters.size(); ++u)
      state.debaters[u].history.push_back({"user", round_prompt(round, dials, state, before, u, space)});
    const std::vector<bool> valid = co_await ask_round(debate, round, dials.contentiousness, state.debaters, space,
                                                       evidence, &before, &state.admitted_last);

    // The round's candidate arguments, judged (line 7).
    std::vector<JudgedArgument> judged;
    maci::RoundInput input;
    std::vector<std::vector<std::string>> unresolved;
    for (std::size_t u = 0; u < state.debaters.size(); ++u) {
      const Debater& debater = state.debaters[u];
      maci::AgentRound agent_round;
      agent_round.belief = belief_of(debater, space);
      for (std::size_t i = 0; valid[u] && i < debater.latest->arguments.size(); ++i) {
        const maci::Argument& argument = debater.latest->arguments[i];
        JudgedArgument j{debater.agent.name, argument.claim, argument.justification, {}, static_cast<int>(i),
                         debater.position};
        maci::CandidateArgument candidate;
        candidate.agent = u;
        unresolved.emplace_back();
        for (const std::string& id : argument.evidence) {
          agent_round.cited.push_back(id);
          const auto at = evidence.find(id);
          if (!at) {
            unresolved.back().push_back(id);
            continue;
          }
          j.spans.push_back({id, (*evidence.documents)[*at].text});
          candidate.spans.push_back({id, evidence.embeddings[*at]});
        }
        judged.push_back(std::move(j));
        input.arguments.push_back(std::move(candidate));
      }
      input.agents.push_back(std::move(agent_round));
    }
    if (!judged.empty()) {
      const std::vector<CritVerdict> verdicts = co_await Judge(debate).crit(judged, round);
      for (std::size_t i = 0; i < verdicts.size(); ++i) input.arguments[i].judge_scores = verdicts[i].composites;
    }
    const maci::RoundRecord result = state.controller.observe(input);  // lines 8–16

    state.admitted_last.clear();
    state.rejected_last.clear();
    for (std::size_t i = 0; i < result.arguments.size(); ++i) {
      const Debater& author = state.debaters[input.arguments[i].agent];
      if (!result.arguments[i].admitted) {
        ++state.rejected_last[author.agent.name];
        continue;
      }
      const maci::Argument& argument = author.latest->arguments.at(static_cast<std::size_t>(judged[i].index));
      state.admitted_last.push_back({round, author.agent.name, judged[i].position, judged[i].index, argument,
                                     result.arguments[i].evidence_score.value_or(0.0),
                                     result.arguments[i].crit.value_or(0.0)});
    }
    state.record.insert(state.record.end(), state.admitted_last.begin(), state.admitted_last.end());
    record_round(debate, result, judged, unresolved, state.debaters, valid, space);
    state.stop = result.stop;
  }

  static maci::Distribution belief_of(const Debater& d, const maci::OutcomeSpace& space) {
    if (d.latest) return d.latest->belief;
    // No valid reply yet: no information, every outcome alike (docs/protocols.md).
    return maci::Distribution(space.size(), 1.0 / static_cast<double>(space.size()));
  }

  struct ScheduleStep {
    std::optional<std::size_t> move;  // none when no move fits the remaining budget
    maci::SchedulerContext context;
    double gain_before = 0.0;
    double dispersion_before = 0.0;
  };

  // x_t from the last round (the pre-debate state before round 1), the budget left, the move.
  ScheduleStep schedule(Debate& debate, Progress& state) const {
    maci::DialScheduler& bandit = shared_->scheduler;
    const auto& history = state.controller.history();
    ScheduleStep step;
    maci::SchedulerContext& c = step.context;
    if (history.empty()) {
      c.dispersion = state.controller.initial_disagreement();
      c.quality = state.initial_quality.value_or(0.0);
    } else {
      const maci::RoundRecord& last = history.back();
      c.dispersion = last.dispersion;
      c.quality = last.evidence_quality.value_or(0.0);
      c.information_gain = last.information_gain;
      if (history.size() >= 2) {
        const maci::RoundRecord& before = history[history.size() - 2];
        c.dispersion_change = last.dispersion - before.dispersion;
        c.quality_change = c.quality - before.evidence_quality.value_or(0.0);
        c.information_gain_change = last.information_gain - before.information_gain;
      }
    }
    const std::optional<std::int64_t> left = debate.budget_remaining();
    const std::optional<std::int64_t> total = debate.budget_total();
    c.budget_fraction = left && total && *total > 0 ? std::clamp(static_cast<double>(*left) / *total, 0.0, 1.0) : 1.0;
    step.gain_before = c.information_gain;
    step.dispersion_before = c.dispersion;
    step.move = bandit.choose(c, left ? static_cast<double>(*left) : std::numeric_limits<double>::infinity());
    if (step.move) {
      state.position = maci::apply_move(state.position, bandit.moves()[*step.move]);
      const maci::ControllerSettings& s = state.controller.settings();
      // γ raises both gates from their starting values, no higher than τ_max (eq. 9's cap).
      state.controller.set_dials(state.position.contentiousness,
                                 std::min(s.gate_max, s.initial_quality_gate + state.position.gate_offset),
                                 std::min(s.gate_max, s.initial_crit_gate + state.position.gate_offset));
    }
    return step;
  }

  // Algorithm 2's reward for the round just observed, the bandit's update and its record.
  void learn(Debate& debate, const Progress& state, const ScheduleStep& step, std::int64_t spent_before) const {
    maci::DialScheduler& bandit = shared_->scheduler;
    const maci::RoundRecord& round = state.controller.history().back();
    const double cost = static_cast<double>(debate.transcript().prompt_tokens() +
                                            debate.transcript().completion_tokens() - spent_before);
    Json detail{{"context", context_json(step.context)}, {"cost", cost}};
    if (step.move) {
      const double reward = bandit.reward(step.gain_before, round.information_gain, step.dispersion_before,
                                          round.dispersion, cost);
      bandit.update(*step.move, step.context, reward, cost);
      const maci::DialMove& move = bandit.moves()[*step.move];
      detail["move"] = *step.move;
      detail["contentiousness_change"] = move.contentiousness_change;
      detail["gate_change"] = move.gate_change;
      detail["reward"] = reward;
    } else {
      detail["move"] = nullptr;  // nothing fitted the budget: the dials stayed
    }
    detail["policy"] = maci::scheduler_policy_name(bandit.settings().policy);
    detail["contentiousness"] = state.position.contentiousness;
    detail["gate_offset"] = state.position.gate_offset;
    detail["steps"] = bandit.steps();
    debate.event(round.round, "maci_schedule", detail.dump());
  }

  // A round's user turn: the dials, ψ's additions of the last round, each opponent's belief and
  // how many of its arguments the gates turned away. Rejected arguments are discarded (Alg. 1
  // line 8): an agent sees what ψ admitted, never the rest (docs/protocols.md, "maci").
  std::string round_prompt(int round, const Dials& dials, const Progress& state, const std::vector<Debater>& before,
                           std::size_t self, const maci::OutcomeSpace& space) const {
    const bool quality_gate = state.controller.settings().quality_gate;
    std::string out = fmt::format("Round {}. Contentiousness CL = {:.1f}. {}\n", round, dials.contentiousness,
                                  maci::behaviour_instruction(dials.contentiousness));
    out += quality_gate ? fmt::format("An argument enters the debate record only if the evidence it cites has quality of "
                                      "at least τ_Q = {:.2f} and the judges' score is at least τ_CRIT = {:.2f}.\n\n",
                                      dials.quality_gate, dials.crit_gate)
                        : fmt::format("An argument enters the debate record only if the judges' score is at least "
                                      "τ_CRIT = {:.2f}.\n\n",
                                      dials.crit_gate);
    if (round > 1) {
      out += fmt::format("Admitted to the record in round {}:", round - 1);
      if (state.admitted_last.empty()) out += " nothing.";
      for (const RecordEntry& entry : state.admitted_last) out += "\n- (" + entry.agent + ") " + maci::render_argument(entry.argument);
      out += "\n\n";
    }
    const bool one = before.size() == 2;
    out += one ? "Your opponent's latest position:" : "Your opponents' latest positions:";
    for (std::size_t v = 0; v < before.size(); ++v) {
      if (v == self) continue;
      out += "\n" + before[v].agent.name + ": ";
      out += before[v].latest ? maci::render_distribution(before[v].latest->belief, space) : std::string("(no valid reply)");
      if (const auto r = state.rejected_last.find(before[v].agent.name); r != state.rejected_last.end())
        out += fmt::format(" ({} of its arguments not admitted)", r->second);
    }
    out += fmt::format(
        "\n\nCounter-argue {} position and strengthen your own arguments at this contentiousness, then update your "
        "distribution. Reply with the JSON object as before.",
        one ? "your opponent's" : "your opponents'");
    return out;
  }

  // Every debater's turn of `round`, in parallel; returns which replies were valid. A valid reply
  // becomes the debater's latest; an invalid one (after re-asks) leaves its previous belief.
  Async<std::vector<bool>> ask_round(Debate& debate, int round, std::optional<double> contentiousness,
                                     std::vector<Debater>& debaters, const maci::OutcomeSpace& space,
                                     const EvidenceContext& evidence, const std::vector<Debater>* before = nullptr,
                                     const std::vector<RecordEntry>* admitted = nullptr) const {
    std::vector<Async<StructuredReply>> calls;
    for (std::size_t u = 0; u < debaters.size(); ++u) {
      TurnInfo info;
      info.round = round;
      info.turn = round == 0 ? "maci_belief" : "maci_argue";
      info.contentiousness = contentiousness;
      info.evidence = evidence.documents;
      if (before != nullptr) {
        for (std::size_t v = 0; v < before->size(); ++v) {
          if (v == u || !(*before)[v].latest) continue;
          const maci::Reply& peer = *(*before)[v].latest;
          const std::string top = (*before)[v].position;
          const auto at = top.empty() ? space.other() : space.index_of(top);
          info.shown.push_back(PeerView{(*before)[v].agent.name, top, top.empty() ? std::nullopt : std::optional(peer.belief[at]),
                                        "", std::nullopt});
        }
        // The arguments the last round admitted, as references the simulator can score.
        for (const RecordEntry& entry : *admitted)
          if (entry.agent != debaters[u].agent.name)
            info.shown.push_back(
                PeerView{entry.agent, entry.position, std::nullopt, "admitted", ArgumentRef{entry.round, entry.index}});
      }
      StructuredAsk ask;
      ask.check = [&space](std::string_view reply) {
        auto read = maci::read_reply(reply, space);
        return read ? std::string() : read.error().message;
      };
      ask.format_reminder = maci::reply_format();
      ask.answer = [&space](std::string_view reply) {
        Answer answer;
        auto read = maci::read_reply(reply, space);
        if (!read) return answer;
        const maci::Distribution& p = read.value().belief;
        const std::string top = favoured(p, space);
        if (!top.empty()) {
          answer.value = top;
          answer.confidence = p[space.index_of(top)];
        }
        for (std::size_t i = 0; i < p.size(); ++i)
          if (p[i] > 0.0) answer.beliefs.push_back({space.name(i), p[i]});
        return answer;
      };
      calls.push_back(debate.ask_structured(debaters[u].agent, debaters[u].history, std::move(info), std::move(ask)));
    }
    const std::vector<StructuredReply> replies = co_await when_all(std::move(calls));
    std::vector<bool> valid(debaters.size(), false);
    for (std::size_t u = 0; u < debaters.size(); ++u) {
      debaters[u].history.push_back({"assistant", replies[u].text});
      if (!replies[u].valid()) continue;
      debaters[u].latest = maci::read_reply(replies[u].text, space).value();
      debaters[u].position = favoured(debaters[u].latest->belief, space);
      valid[u] = true;
    }
    co_return valid;
  }

  void record_start(Debate& debate, const EvidenceContext& evidence, const maci::InitialState& initial,
                    const Progress& state, const maci::OutcomeSpace& space, const std::string& gate_off) const {
    const maci::Controller& controller = state.controller;
    const std::vector<Debater>& debaters = state.debaters;
    Json documents = Json::array();
    for (std::size_t i = 0; i < evidence.selected.size(); ++i) {
      const SelectedEvidence& s = evidence.selected[i];
      documents.push_back({{"id", (*evidence.documents)[i].id},
                           {"bm25", s.bm25},
                           {"similarity", optional_number(s.similarity)},
                           {"tokens", s.tokens}});
    }
    Json agents = Json::array();
    for (std::size_t u = 0; u < debaters.size(); ++u)
      agents.push_back({{"agent", debaters[u].agent.name},
                        {"valid", debaters[u].latest.has_value()},
                        {"distribution", ranked(initial.beliefs[u], space)}});
    debate.event(0, "maci_start",
                 Json{{"encoder", evidence.encoder},
                      {"evidence", documents},
                      {"evidence_quality", optional_number(initial.evidence_quality)},
                      {"disagreement", controller.initial_disagreement()},
                      {"contentiousness", controller.contentiousness()},
                      {"quality_gate", controller.quality_gate()},
                      {"quality_gate_off", gate_off.empty() ? Json(nullptr) : Json(gate_off)},
                      {"crit_gate", controller.crit_gate()},
                      {"held", settings_.held_contentiousness.has_value()},
                      {"too_large", evidence.too_large},
                      {"agents", agents}}
                     .dump());
  }

  void record_round(Debate& debate, const maci::RoundRecord& r, const std::vector<JudgedArgument>& judged,
                    const std::vector<std::vector<std::string>>& unresolved, const std::vector<Debater>& debaters,
                    const std::vector<bool>& valid, const maci::OutcomeSpace& space) const {
    Json arguments = Json::array();
    for (std::size_t i = 0; i < judged.size(); ++i) {
      Json cited = Json::array();
      for (const auto& span : judged[i].spans) cited.push_back(span.id);
      arguments.push_back({{"agent", judged[i].agent},
                           {"index", judged[i].index},
                           {"claim", judged[i].claim},
                           {"cited", cited},
                           {"unresolved", unresolved[i]},
                           {"evidence_score", optional_number(r.arguments[i].evidence_score)},
                           {"crit", optional_number(r.arguments[i].crit)},
                           {"admitted", r.arguments[i].admitted}});
    }
    Json agents = Json::array();
    for (std::size_t u = 0; u < debaters.size(); ++u)
      agents.push_back({{"agent", debaters[u].agent.name},
                        {"valid", static_cast<bool>(valid[u])},
                        {"favours", debaters[u].position},
                        {"reliability", r.reliability[u]},
                        {"weight", r.weights[u]}});
    debate.event(r.round, "maci_round",
                 Json{{"contentiousness", r.contentiousness},
                      {"quality_gate", r.quality_gate},
                      {"crit_gate", r.crit_gate},
                      {"evidence_quality", optional_number(r.evidence_quality)},
                      {"disagreement", r.disagreement},
                      {"dispersion", r.dispersion},
                      {"overlap", r.overlap},
                      {"crit_mean", optional_number(r.crit_mean)},
                      {"crit_variance", optional_number(r.crit_variance)},
                      {"information_gain", r.information_gain},
                      {"information_ratio", r.information_ratio},
                      {"dispersion_ratio", r.dispersion_ratio},
                      {"information_plateau", r.information_plateau},
                      {"dispersion_plateau", r.dispersion_plateau},
                      {"update_rejected", r.update_rejected},
                      {"next_contentiousness", r.next_contentiousness},
                      {"next_quality_gate", r.next_quality_gate},
                      {"next_crit_gate", r.next_crit_gate},
                      {"stop", maci::stop_reason_name(r.stop)},
                      {"mixture", ranked(r.mixture, space)},
                      {"agents", agents},
                      {"arguments", arguments}}
                     .dump());
  }

  // Each agent's plan items from its last valid reply.
  static std::vector<maci::Proposals> proposals_of(const std::vector<Debater>& debaters) {
    std::vector<maci::Proposals> out;
    for (const Debater& d : debaters)
      if (d.latest) out.push_back({d.agent.name, d.latest->plan});
    return out;
  }

  // The final distribution, ψ and the acquisition plan (docs/protocols.md, "maci").
  std::optional<std::string> finish(Debate& debate, const Progress& state, const maci::OutcomeSpace& space,
                                    const std::string& stop) const {
    const maci::Controller& controller = state.controller;
    const std::vector<RecordEntry>& record = state.record;
    const std::vector<Debater>& debaters = state.debaters;
    const maci::Distribution& p = controller.mixture();
    const std::string prediction = favoured(p, space);
    Json psi = Json::array();
    for (const RecordEntry& entry : record)
      psi.push_back({{"round", entry.round},
                     {"agent", entry.agent},
                     {"claim", entry.argument.claim},
                     {"justification", entry.argument.justification},
                     {"evidence", entry.argument.evidence},
                     {"evidence_score", entry.evidence_score},
                     {"crit", entry.crit}});
    debate.event(controller.history().empty() ? 0 : controller.history().back().round, "maci_final",
                 Json{{"stop", stop},
                      {"rounds", controller.history().size()},
                      {"prediction", prediction},
                      {"distribution", ranked(p, space)},
                      {"record", psi},
                      {"acquisition_plan", maci::acquisition_plan(p, proposals_of(debaters), space)},
                      {"scores", maci::final_scores(debate.task(), controller)}}
                     .dump());
    if (prediction.empty()) return std::nullopt;
    return prediction;
  }

  Settings settings_;
  std::shared_ptr<SharedScheduler> shared_;  // with `scheduler: ucb | linucb`
};

std::string one_of(const ParamValue& value, std::initializer_list<const char*> names) {
  const auto* text = std::get_if<std::string>(&value);
  if (text == nullptr) return "must be a string";
  std::string known;
  for (const char* name : names) {
    if (*text == name) return "";
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  return "must be one of " + known;
}

std::vector<ParamSpec> maci_params() {
  const maci::ControllerSettings d;
  const maci::InitialBins bins;
  const ContextBudget context;
  return {
      {"agents", ParamKind::kInt, std::int64_t{2}, 2, 8, "debaters (the paper: 2; more use the generalised D_JS, M-16)"},
      {"max_rounds", ParamKind::kInt, std::int64_t{d.max_rounds}, 1, 50, "round cap T_max (the paper gives none)"},
      {"schedule", ParamKind::kString, std::string("fixed"), {}, {},
       "CL schedule: fixed (−step per round, the main tables) or plateau (eq. 8)",
       [](const ParamValue& v) { return one_of(v, {"fixed", "plateau"}); }},
      {"fixed_step", ParamKind::kDouble, d.fixed_step, 0.0, 1.0, "CL decrement per round under the fixed schedule"},
      {"plateau", ParamKind::kString, std::string("relative"), {}, {},
       "plateau test: relative (eqs. 6–7) or absolute (App. D.5, eqs. 11–12)",
       [](const ParamValue& v) { return one_of(v, {"relative", "absolute"}); }},
      {"dispersion", ParamKind::kString, std::string("auto"), {}, {},
       "D of the dispersion plateau: js, wasserstein (W̃_1), or auto (W̃_1 on an ordered label scale)",
       [](const ParamValue& v) { return one_of(v, {"auto", "js", "wasserstein"}); }},
      {"information_threshold", ParamKind::kDouble, d.relative_information_threshold, 0.0, 1.0,
       "ε_I: plateau threshold on r_I (or ΔÎ under the absolute rule)"},
      {"dispersion_threshold", ParamKind::kDouble, d.relative_dispersion_threshold, 0.0, 1.0,
       "ε_D: plateau threshold on r_D (or |ΔD| under the absolute rule)"},
      {"hold_contentiousness", ParamKind::kDouble, 0.0, 0.0, 1.0,
       "ablation: CL held at this value throughout (Table 3: 0.9 high, 0.3 low); 0 = the schedule runs"},
      {"quality_gate", ParamKind::kBool, true, {}, {}, "the Q gate (false: τ_Q ≡ −∞, Table 3's ablation)"},
      {"uniform_weights", ParamKind::kBool, false, {}, {}, "ablation: ω = 1/m instead of reliability weights"},
      {"monotone", ParamKind::kBool, false, {}, {}, "discard a round whose beliefs raise the dispersion (Lemma 1)"},
      {"crit_compound", ParamKind::kBool, false, {}, {}, "also require App. E.7's CRIT stability to stop"},
      {"stalemate_rounds", ParamKind::kInt, std::int64_t{d.stalemate_rounds}, 0, 50,
       "stop after this many rounds with mean CRIT below τ_CRIT (0 = never)"},
      {"gate_max", ParamKind::kDouble, d.gate_max, 0.0, 1.0, "τ_max of eq. (9) (not given in the paper)"},
      {"quality_low", ParamKind::kDouble, bins.quality_low, 0.0, 1.0, "CL^(1) bins: Q_0 at or below this is low"},
      {"quality_high", ParamKind::kDouble, bins.quality_high, 0.0, 1.0, "CL^(1) bins: Q_0 at or above this is high"},
      {"disagreement_low", ParamKind::kDouble, bins.disagreement_low, 0.0, 1.0, "CL^(1) bins: D_JS,0 at or below this is low"},
      {"disagreement_high", ParamKind::kDouble, bins.disagreement_high, 0.0, 1.0,
       "CL^(1) bins: D_JS,0 at or above this is high"},
      {"percentile_bins", ParamKind::kBool, false, {}, {},
       "the bins are dev-run percentiles (P30/P70, strict comparisons, App. F) rather than App. B.1's absolute values"},
      {"retrieve", ParamKind::kInt, static_cast<std::int64_t>(context.max_documents), 0, 1000, "k_ret: documents kept"},
      {"context_tokens", ParamKind::kInt, context.max_tokens, 0, 1000000, "token budget of the evidence context"},
      {"candidates", ParamKind::kInt, std::int64_t{100}, 1, 10000, "BM25 candidates before the rerank"},
      {"scheduler", ParamKind::kString, std::string("none"), {}, {},
       "App. L's dial scheduler instead of the schedule: none, ucb (Algorithm 2) or linucb; it learns across the "
       "run's debates, which then run one at a time",
       [](const ParamValue& v) { return one_of(v, {"none", "ucb", "linucb"}); }},
      {"scheduler_cost_penalty", ParamKind::kDouble, maci::SchedulerSettings{}.cost_penalty, 0.0, 100.0,
       "λ of the scheduler's reward (cost penalty; the paper tunes it)"},
      {"scheduler_cost_scale", ParamKind::kDouble, maci::SchedulerSettings{}.cost_scale, 1.0, 1e9,
       "C_max: tokens per round that cost one unit in the reward (the paper: P95 of a dev run)"},
      {"scheduler_reward", ParamKind::kString, std::string("change"), {}, {},
       "the reward's information term: change ([IG(t+1) − IG(t)]_+, as written) or level (IG(t+1))",
       [](const ParamValue& v) { return one_of(v, {"change", "level"}); }},
  };
}

Settings settings_from(const ProtocolParams& p) {
  Settings s;
  s.agents = static_cast<int>(p.integer("agents"));
  maci::ControllerSettings& c = s.controller;
  c.max_rounds = static_cast<int>(p.integer("max_rounds"));
  c.schedule = p.text("schedule") == "plateau" ? maci::ContentiousnessSchedule::kPlateau
                                               : maci::ContentiousnessSchedule::kFixed;
  c.fixed_step = p.real("fixed_step");
  c.plateau = p.text("plateau") == "absolute" ? maci::PlateauRule::kAbsolute : maci::PlateauRule::kRelative;
  if (p.text("dispersion") == "js") s.dispersion = maci::Dispersion::kJensenShannon;
  if (p.text("dispersion") == "wasserstein") s.dispersion = maci::Dispersion::kWasserstein;
  c.relative_information_threshold = c.absolute_information_threshold = p.real("information_threshold");
  c.relative_dispersion_threshold = c.absolute_dispersion_threshold = p.real("dispersion_threshold");
  if (p.real("hold_contentiousness") > 0.0) {
    s.held_contentiousness = p.real("hold_contentiousness");
    c.hold_contentiousness = true;
  }
  c.quality_gate = p.flag("quality_gate");
  c.uniform_weights = p.flag("uniform_weights");
  c.monotone = p.flag("monotone");
  c.crit_compound = p.flag("crit_compound");
  c.stalemate_rounds = static_cast<int>(p.integer("stalemate_rounds"));
  c.gate_max = p.real("gate_max");
  s.bins = {p.real("quality_low"), p.real("quality_high"), p.real("disagreement_low"), p.real("disagreement_high"),
            p.flag("percentile_bins")};
  s.context.max_documents = static_cast<std::size_t>(p.integer("retrieve"));
  s.context.max_tokens = p.integer("context_tokens");
  s.candidates = static_cast<std::size_t>(p.integer("candidates"));
  if (p.text("scheduler") != "none") {
    maci::SchedulerSettings scheduler;
    scheduler.policy = p.text("scheduler") == "linucb" ? maci::SchedulerPolicy::kLinUcb : maci::SchedulerPolicy::kUcb;
    scheduler.cost_penalty = p.real("scheduler_cost_penalty");
    scheduler.cost_scale = p.real("scheduler_cost_scale");
    scheduler.reward_information_level = p.text("scheduler_reward") == "level";
    s.scheduler = scheduler;
  }
  return s;
}

}  // namespace

ProtocolInfo maci_protocol() {
  ProtocolInfo info{
      "maci",
      "two agents argue under a moderator's dual dial (contentiousness; evidence and CRIT gates) until the "
      "signals plateau; the reliability-weighted belief mixture answers",
      "Chang & Chang, Multi-Agent Collaborative Intelligence: Dual-Dial Control for Reliable LLM Reasoning "
      "(Algorithm 1; evidence via `dataset.evidence` or task documents, φ via `embeddings:` or the lexical encoder)",
      maci_params(), [](const ProtocolParams& p) { return std::make_unique<Maci>(settings_from(p)); }};
  info.uses_embeddings = true;
  info.check_params = [](const ProtocolParams& p) -> std::pair<std::string, std::string> {
    const maci::ControllerSettings defaults;
    const double start = std::max(defaults.initial_quality_gate, defaults.initial_crit_gate);
    if (p.real("gate_max") < start)
      return {"gate_max", fmt::format("is {}, below the gates' starting values ({} and {}): eq. (9) would lower them",
                                      p.real("gate_max"), defaults.initial_quality_gate, defaults.initial_crit_gate)};
    if (p.real("hold_contentiousness") > 0.0 && p.text("scheduler") != "none")
      return {"hold_contentiousness", "cannot hold CL while a scheduler sets it (scheduler: " + p.text("scheduler") + ")"};
    if (p.real("quality_low") > p.real("quality_high"))
      return {"quality_low", fmt::format("{} is above quality_high {}", p.real("quality_low"), p.real("quality_high"))};
    if (p.real("disagreement_low") > p.real("disagreement_high"))
      return {"disagreement_low", fmt::format("{} is above disagreement_high {}", p.real("disagreement_low"),
                                              p.real("disagreement_high"))};
    return {};
  };
  return info;
}

}  // namespace parley
