// group_debate: GroupDebate (Liu et al. 2025, "GroupDebate: Enhancing the Efficiency of
// Multi-Agent Debate Using Group Discussion", arXiv 2409.14051). The agents are split into
// groups; after the initial answers the debate runs in stages of R rounds. Within a stage a
// group debates as in Du et al. (every agent reads its group-mates' full solutions) and sees
// nothing of the other groups; at the end of a stage each group's discussion is condensed into a
// summary by one of its members (or only its members' final answers are passed on), and the
// next stage opens with the other groups' reports in context. The final answer is the majority
// vote over all agents. Flow, defaults and the choices the paper leaves open: docs/protocols.md.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>

#include "core/hash.h"
#include "parley/result.h"
#include "protocols/debate.h"
#include "protocols/ordered_rounds.h"
#include "protocols/prompts.h"
#include "protocols/protocols.h"

namespace parley {
namespace {

constexpr std::int64_t kMaxAgents = 64;  // as for debate

// "3-3" -> {3, 3}: the group sizes, at least two groups of at least two agents each (a group
// of one has no one to debate with; a single group is the plain debate protocol).
Result<std::vector<int>> parse_group_sizes(std::string_view text) {
  std::vector<int> sizes;
  std::int64_t total = 0;
  for (std::size_t start = 0;;) {
    const std::size_t end = std::min(text.find('-', start), text.size());
    int size = 0;
    const auto [stop, error] = std::from_chars(text.data() + start, text.data() + end, size);
    if (error != std::errc() || stop != text.data() + end) {
      return Error{
          fmt::format("expected group sizes joined by '-', like \"3-3\" or \"2-2-2\"; got \"{}\"", text)};
    }
    if (size < 2)
      return Error{fmt::format("\"{}\" has a group of {}; every group needs at least 2 agents", text, size)};
    sizes.push_back(size);
    total += size;
    if (end == text.size()) break;
    start = end + 1;
  }
  if (sizes.size() < 2) return Error{fmt::format("\"{}\" is one group; group_debate needs at least 2", text)};
  if (total > kMaxAgents)
    return Error{fmt::format("\"{}\" adds up to {} agents; at most {}", text, total, kMaxAgents)};
  return sizes;
}

enum class Exchange { kSummary, kAnswers };

std::optional<Exchange> parse_exchange(std::string_view text) {
  if (text == "summary") return Exchange::kSummary;
  if (text == "answers") return Exchange::kAnswers;
  return std::nullopt;
}

// Seat indices of one group, in the group's order; its first member writes its summaries.
using Group = std::vector<std::size_t>;

// Splits seats 0..N-1 into groups of the given sizes: at random (Liu et al. and SVR-MAD use
// random subgroups), or in seat order.
std::vector<Group> split_into_groups(const std::vector<int>& sizes, bool at_random, Rng& rng) {
  const auto seat_count = static_cast<std::size_t>(std::accumulate(sizes.begin(), sizes.end(), 0));
  std::vector<std::size_t> order(seat_count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (at_random) order = shuffled_order(rng, seat_count);
  std::vector<Group> groups;
  auto next = order.begin();
  for (int size : sizes) {
    groups.emplace_back(next, next + size);
    next += size;
  }
  return groups;
}

// "group 1: a3, a1, a5; group 2: a2, a6, a4", the detail of the "groups" event.
std::string describe_groups(const std::vector<Group>& groups, const std::vector<Seat>& seats) {
  std::string out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out += fmt::format("{}group {}:", g == 0 ? "" : "; ", g + 1);
    for (std::size_t k = 0; k < groups[g].size(); ++k)
      out += (k == 0 ? " " : ", ") + seats[groups[g][k]].agent.name;
  }
  return out;
}

// Who is shown what in an in-group round: every agent its group-mates' latest solutions and,
// when the round opens a stage, the other groups' reports before them.
std::vector<RevisionInput> in_group_inputs(const std::vector<Group>& groups,
                                           const std::vector<GroupReport>& reports, std::size_t seat_count) {
  std::vector<RevisionInput> inputs(seat_count);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    RevisionInput from_others;
    std::vector<GroupReport> others;
    for (const GroupReport& report : reports) {
      if (report.number == static_cast<int>(g) + 1) continue;  // a group reads only the others' reports
      others.push_back(report);
      from_others.briefed.insert(from_others.briefed.end(), report.members.begin(), report.members.end());
    }
    if (!others.empty()) from_others.briefing = other_groups_briefing(others);
    for (std::size_t self : groups[g]) {
      inputs[self] = from_others;
      for (std::size_t mate : groups[g]) {
        if (mate != self) inputs[self].peers.push_back(mate);
      }
    }
  }
  return inputs;
}

// A summary may say anything but nothing.
std::string problem_if_empty(std::string_view reply) {
  return reply.find_first_not_of(" \t\r\n") == std::string_view::npos ? "it was empty" : "";
}

class GroupDebate final : public Protocol {
 public:
  GroupDebate(std::vector<int> group_sizes, int stages, int rounds, Exchange exchange, bool random_groups,
              int consensus)
      : group_sizes_(std::move(group_sizes)),
        stages_(stages),
        rounds_(rounds),
        exchange_(exchange),
        random_groups_(random_groups),
        consensus_(consensus) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    const auto agent_count =
        static_cast<std::size_t>(std::accumulate(group_sizes_.begin(), group_sizes_.end(), 0));
    std::vector<Seat> seats = take_seats(debate, agent_count);
    const std::vector<Group> groups = split_into_groups(group_sizes_, random_groups_, debate.rng());
    debate.event(0, "groups", describe_groups(groups, seats));

    // Initial thinking: every agent answers the question on its own.
    co_await answer_independently(debate, seats);

    int round = 0;
    std::vector<GroupReport> reports;  // what the groups passed on at the end of the last stage
    for (int stage = 1; stage <= stages_; ++stage) {
      // Intra-group debate, opened by the other groups' reports.
      for (int stage_round = 1; stage_round <= rounds_; ++stage_round) {
        ++round;
        std::vector<RevisionInput> inputs = in_group_inputs(groups, reports, seats.size());
        reports.clear();  // the stage's later rounds keep them in the conversation
        co_await revise_in_parallel(debate, round, seats, std::move(inputs));
        // SVR-MAD §5's setting: stop after a round (not the last) once enough agents agree.
        if (round < stages_ * rounds_ && stop_on_consensus(debate, round, seats, consensus_))
          co_return vote_of_latest(debate, round, seats);
      }
      // Inter-group exchange; after the last stage nobody would read it.
      if (stage < stages_) reports = co_await report_stage(debate, round, seats, groups);
    }
    co_return vote_of_latest(debate, round, seats);
  }

 private:
  // Each group's report at the end of the stage that ended with `round`: its members' answers
  // and, with summaries, what its first member wrote about the group's latest solutions (all
  // groups' summaries in parallel). A summary answers nothing, so it is a structured call: not
  // parsed as an answer, and asked for once more only if it came back empty.
  Async<std::vector<GroupReport>> report_stage(Debate& debate, int round, const std::vector<Seat>& seats,
                                               const std::vector<Group>& groups) const {
    std::vector<GroupReport> reports(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
      reports[g].number = static_cast<int>(g) + 1;
      for (std::size_t member : groups[g]) reports[g].members.push_back(peer_view(seats[member].latest));
    }
    if (exchange_ == Exchange::kAnswers) co_return reports;

    std::vector<Async<StructuredReply>> calls;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      std::vector<PeerSolution> solutions;
      for (std::size_t member : groups[g])
        solutions.push_back({seats[member].agent.name, seats[member].latest.text});
      std::vector<ChatMessage> messages = {
          ChatMessage{"user", group_summary_prompt(debate.task(), solutions)}};
      TurnInfo info;
      info.round = round;
      info.turn = "summary";
      info.shown = reports[g].members;  // the author's own solution is one of those summarised
      StructuredAsk any_text;
      any_text.check = problem_if_empty;
      any_text.format_reminder = "Reply with the summary of your group's discussion.";
      any_text.reasks = 1;
      const Agent& author = seats[groups[g].front()].agent;
      reports[g].author = author.name;
      calls.push_back(
          debate.ask_structured(author, std::move(messages), std::move(info), std::move(any_text)));
    }
    std::vector<StructuredReply> summaries = co_await when_all(std::move(calls));
    for (std::size_t g = 0; g < groups.size(); ++g) reports[g].summary = std::move(summaries[g].text);
    co_return reports;
  }

  std::vector<int> group_sizes_;
  int stages_;
  int rounds_;
  Exchange exchange_;
  bool random_groups_;
  int consensus_;
};

std::string check_groups(const ParamValue& value) {
  const auto sizes = parse_group_sizes(std::get<std::string>(value));
  return sizes ? "" : sizes.error().message;
}

std::string check_exchange(const ParamValue& value) {
  const auto& text = std::get<std::string>(value);
  return parse_exchange(text) ? "" : fmt::format("expected summary or answers, got \"{}\"", text);
}

}  // namespace

ProtocolInfo group_debate_protocol() {
  std::vector<ParamSpec> params = {
      {.name = "groups",
       .kind = ParamKind::kString,
       .default_value = std::string("3-3"),
       .help = "group sizes joined by '-'; their sum is the number of agents",
       .check = check_groups},
      {"stages", ParamKind::kInt, std::int64_t{2}, 1, 10,
       "discussion stages; the groups report to each other between stages"},
      {"rounds", ParamKind::kInt, std::int64_t{1}, 1, 10, "in-group debate rounds per stage"},
      {.name = "exchange",
       .kind = ParamKind::kString,
       .default_value = std::string("summary"),
       .help = "what groups pass on between stages: summary | answers",
       .check = check_exchange},
      {.name = "random_groups",
       .kind = ParamKind::kBool,
       .default_value = true,
       .help = "split the agents into groups at random per debate (false: in agent order)"},
      {"consensus", ParamKind::kInt, std::int64_t{0}, 0, 64,
       "stop after a round (not the last) when this many agents agree (SVR-MAD §5: 5 of 6); 0 = never"}};
  ProtocolInfo info{
      "group_debate",
      "agents debate in groups; between stages the groups exchange summaries (or answers); majority vote",
      "Liu et al. 2025, GroupDebate: Enhancing the Efficiency of Multi-Agent Debate Using Group Discussion",
      std::move(params), [](const ProtocolParams& p) {
        auto sizes = parse_group_sizes(p.text("groups"));
        const auto exchange = parse_exchange(p.text("exchange"));
        // The config layer ran the checks above, so an invalid value here is a caller's bug.
        if (!sizes) throw std::logic_error("group_debate groups: " + sizes.error().message);
        if (!exchange) throw std::logic_error("group_debate exchange: " + p.text("exchange"));
        return std::make_unique<GroupDebate>(std::move(sizes).value(), static_cast<int>(p.integer("stages")),
                                             static_cast<int>(p.integer("rounds")), *exchange,
                                             p.flag("random_groups"), static_cast<int>(p.integer("consensus")));
      }};
  info.debaters = [](const ProtocolParams& p) {
    const auto sizes = parse_group_sizes(p.text("groups"));
    if (!sizes) throw std::logic_error("group_debate groups: " + sizes.error().message);
    return static_cast<std::size_t>(std::accumulate(sizes->begin(), sizes->end(), 0));
  };
  return info;
}

}  // namespace parley
