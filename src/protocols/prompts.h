#pragma once
// The prompt texts shared by the baseline protocols. Wording is parley's own; the structure
// follows the papers (Du et al. 2024 as quoted in SVR-MAD §2 for the debate turn; Liu et al.
// 2025 for GroupDebate's summaries).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/chat.h"
#include "parley/task.h"

namespace parley {

// The question with its lettered options and the answer-format instruction.
std::string task_prompt(const Task& task);

// The question with its lettered options only (what a judge is told the task was).
std::string question_with_options(const Task& task);

// The options alone, one per line ("A. Mars"); "" for a task without options.
std::string lettered_options(const Task& task);

// How to state the final answer and confidence, for this task's answer type.
std::string format_instruction(const Task& task);

// Sent after a reply whose final answer could not be parsed.
std::string reask_prompt(const Task& task);

// Views into the turns it was built from, which outlive the prompt built from it.
struct PeerSolution {
  std::string_view agent;
  std::string_view text;
};

// Du et al.'s debate turn: the peers' latest solutions, then the request to update. A
// `briefing`, when given, comes first (GroupDebate: what the other groups reported).
std::string peer_solutions_prompt(const Task& task, const std::vector<PeerSolution>& peers,
                                  std::string_view briefing = {});

// GroupDebate: asks one member to condense its group's latest solutions for the other groups
// (the question and the instruction first, the solutions last).
std::string group_summary_prompt(const Task& task, const std::vector<PeerSolution>& members);

// What one group of a GroupDebate passes on to the other groups at the end of a stage.
struct GroupReport {
  int number = 0;                      // 1-based, as prompts name it ("group 2")
  std::vector<PeerView> members;       // its agents with their end-of-stage answers
  std::string author;                  // who wrote the summary
  std::optional<std::string> summary;  // none when the groups exchange only final answers
};

// The other groups' reports, placed before the group-mates' solutions: each group's summary,
// or its members' final answers when it has none.
std::string other_groups_briefing(const std::vector<GroupReport>& reports);

// An agent's first turn after peers have already answered in the same round (WR).
std::string task_prompt_after_peers(const Task& task, const std::vector<PeerSolution>& peers);

// A later turn that shows no peers (NI): the agent reconsiders its own previous reply.
std::string reconsider_prompt(const Task& task);

}  // namespace parley
