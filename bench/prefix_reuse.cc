// prefix_reuse: how much of each prompt a server's prefix cache (vLLM, SGLang) could reuse.
// Runs every registered protocol on the built-in simulator over generated tasks, renders each
// request with the ChatML chat template ("<|im_start|>{role}\n{content}<|im_end|>\n" per
// message, then the generation prompt "<|im_start|>assistant\n"), and reports the share of
// rendered prompt bytes that is an exact prefix of the same agent's previous request in the same
// conversation (src/protocols/prompt_layout.h says which requests those are): the longest common
// prefix of the two rendered strings over the length of the later one, summed over requests
// (sum of prefix bytes / sum of bytes); "not a prefix" is what a cache would still prefill.
// Markdown tables on stdout: per protocol, then per protocol, turn kind and round.
//
//   prefix_reuse [--tasks N] [--seed S] [--trigger-model FILE] [--protocol NAME]...
//
// Each protocol runs with its registry defaults and its default best_of (the drafts of one turn
// are identical requests, so the second is all prefix), no budget, the simulator's default
// parameters (re-asks included), agents a1..a3.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "parley/simulator.h"
#include "protocols/prompt_layout.h"
#include "protocols/simulated_runs.h"

namespace {

using parley::layout::PrefixShare;

int usage() {
  std::cerr << "usage: prefix_reuse [--tasks N] [--seed S] [--trigger-model FILE] [--protocol NAME]...\n";
  return 2;
}

std::string percent(const PrefixShare& s) { return fmt::format("{:.1f} %", 100.0 * s.share()); }

std::string kib(std::int64_t bytes) { return fmt::format("{:.1f}", static_cast<double>(bytes) / 1024.0); }

struct ProtocolFigures {
  PrefixShare all;        // every request
  PrefixShare continued;  // requests with a predecessor in their conversation
  std::map<std::tuple<std::string, int>, PrefixShare> by_turn;  // (turn kind, round)
};

}  // namespace

int main(int argc, char** argv) {
  int tasks = 36;
  std::uint64_t seed = 1;
  std::string trigger_model = parley::simulated::bundled_trigger_model(PARLEY_SOURCE_DIR);
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    if (arg == "--tasks") tasks = std::atoi(argv[++i]);
    else if (arg == "--seed") seed = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--trigger-model") trigger_model = argv[++i];
    else if (arg == "--protocol") only.push_back(argv[++i]);
    else return usage();
  }
  if (tasks < 1) return usage();

  std::vector<std::pair<std::string, ProtocolFigures>> figures;
  for (const parley::ProtocolInfo& info : parley::protocol_registry()) {
    if (!only.empty() && std::find(only.begin(), only.end(), info.name) == only.end()) continue;
    const parley::ProtocolParams params = parley::simulated::default_params(info, trigger_model);
    const auto protocol = info.make(params);
    ProtocolFigures f;
    for (int t = 0; t < tasks; ++t) {
      parley::EventLoop loop;
      parley::simulated::RecordingSimulator client(loop, *parley::default_simulator_params());
      parley::simulated::run_on(client, loop, info, params, *protocol, parley::simulated::generated_task(t), seed,
                                {info.default_best_of, std::nullopt});
      const auto shares = parley::layout::prefix_shares(client.chats);
      const auto previous = parley::layout::previous_requests(client.chats);
      for (std::size_t i = 0; i < shares.size(); ++i) {
        const parley::Annotations& note = client.chats[i].request.note;
        f.all.add(shares[i]);
        if (previous[i]) f.continued.add(shares[i]);
        f.by_turn[{note.turn, note.round}].add(shares[i]);
      }
    }
    figures.emplace_back(info.name, std::move(f));
  }

  std::cout << fmt::format("Prefix reuse on the simulator: {} generated tasks per protocol, seed {}, ChatML-rendered "
                           "bytes.\n\n",
                           tasks, seed);
  std::cout << "| protocol | requests | prompt KiB | not a prefix, KiB | prefix share, all requests | requests "
               "continuing a conversation | their prefix share |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [name, f] : figures) {
    std::cout << fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", name, f.all.requests, kib(f.all.bytes),
                             kib(f.all.bytes - f.all.prefix_bytes), percent(f.all), f.continued.requests,
                             percent(f.continued));
  }
  std::cout << "\n| protocol | turn | round | requests | prompt KiB | prefix share |\n|---|---|---:|---:|---:|---:|\n";
  for (const auto& [name, f] : figures) {
    for (const auto& [key, s] : f.by_turn) {
      const auto& [turn, round] = key;
      std::cout << fmt::format("| {} | {} | {} | {} | {} | {} |\n", name, turn, round, s.requests, kib(s.bytes),
                               percent(s));
    }
  }
  return 0;
}
