// viewer_bench: how fast the web viewer's data layer (parley/run_browser.h) answers on a run's
// store: opening it, the first page, a page deep in, each filter and sort, a text search, one
// debate. Each query is run --runs times on one RunBrowser (as a server thread would keep it);
// the first run reads from a page cache the others have warmed. Prints one JSON line per query
// and a markdown table (docs/performance.md, "Viewer").
//
//   viewer_bench DIR [--runs N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "parley/run_browser.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Timing {
  std::string label;
  std::vector<double> ms;
  std::int64_t total = -1;  // the list's total, where it has one

  double median() const {
    std::vector<double> v = ms;
    std::sort(v.begin(), v.end());
    const auto n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
};

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "viewer_bench: %s\n", message.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: viewer_bench DIR [--runs N]");
  const std::string dir = argv[1];
  int runs = 5;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--runs") runs = std::atoi(argv[i + 1]);
  }
  std::vector<Timing> timings;

  // Opening: the browser and the run's facts (what GET /api/run answers), each time afresh.
  Timing open{"open the store", {}}, facts_timing{"run facts (/api/run)", {}}, both{"open + run facts", {}};
  parley::RunFacts facts;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    auto browser = parley::RunBrowser::open(dir);
    if (!browser) die(browser.error().message);
    open.ms.push_back(ms_since(start));
    auto mid = Clock::now();
    auto f = (*browser)->facts();
    if (!f) die(f.error().message);
    facts_timing.ms.push_back(ms_since(mid));
    both.ms.push_back(ms_since(start));
    facts = *f;
  }
  timings.push_back(open);
  timings.push_back(facts_timing);
  timings.push_back(both);
  if (facts.protocols.empty() || facts.seeds.empty()) die("the run has no debates");

  auto browser = parley::RunBrowser::open(dir);
  if (!browser) die(browser.error().message);
  parley::RunBrowser& b = **browser;
  const std::int64_t middle = facts.debates / 2;
  // A metric every debate has, if any (the tokens by role are), for the range and the sort.
  const std::string metric =
      std::find(facts.metrics.begin(), facts.metrics.end(), "tokens_debaters") != facts.metrics.end()
          ? "tokens_debaters"
          : (facts.metrics.empty() ? "" : facts.metrics.front());
  const std::string sparse = std::find(facts.metrics.begin(), facts.metrics.end(), "u_sys") != facts.metrics.end()
                                 ? "u_sys"
                                 : metric;

  using Q = parley::DebateQuery;
  using S = parley::DebateSort;
  std::vector<std::pair<std::string, std::function<void(Q&)>>> queries = {
      {"first page (by task)", [](Q&) {}},
      {fmt::format("page at offset {} (by task)", middle), [&](Q& q) { q.offset = middle; }},
      {"last page (by task, descending)", [](Q& q) { q.descending = true; }},
      {"filter protocol", [&](Q& q) { q.protocol = facts.protocols.back(); }},
      {"filter seed", [&](Q& q) { q.seed = facts.seeds.back(); }},
      {"filter correct=1", [](Q& q) { q.correct = true; }},
      {"filter correct=0", [](Q& q) { q.correct = false; }},
      {"filter status=completed", [](Q& q) { q.status = parley::DebateStatus::kCompleted; }},
      {"filter status=failed", [](Q& q) { q.status = parley::DebateStatus::kFailed; }},
      {"filter flipped=1", [](Q& q) { q.flipped = true; }},
      {fmt::format("filter range {} in [0.5, 1]", sparse), [&](Q& q) { q.ranges = {{sparse, 0.5, 1.0}}; }},
      {"filter protocol + correct=0 + flipped=0", [&](Q& q) {
         q.protocol = facts.protocols.back();
         q.correct = false;
         q.flipped = false;
       }},
      {"search a task id (q=t012345)", [](Q& q) { q.text = "t012345"; }},
      {"search a word of 1 question in 10 (q=glacier)", [](Q& q) { q.text = "glacier"; }},
      {"search text nothing has (q=zzzz)", [](Q& q) { q.text = "zzzz"; }},
      {"sort protocol", [](Q& q) { q.sort = S::kProtocol; }},
      {"sort seed, descending", [](Q& q) {
         q.sort = S::kSeed;
         q.descending = true;
       }},
      {"sort correct", [](Q& q) { q.sort = S::kCorrect; }},
      {"sort tokens, descending", [](Q& q) {
         q.sort = S::kTokens;
         q.descending = true;
       }},
      {fmt::format("sort tokens, offset {}", middle), [&](Q& q) {
         q.sort = S::kTokens;
         q.offset = middle;
       }},
      {"sort calls", [](Q& q) { q.sort = S::kCalls; }},
      {"sort rounds, descending", [](Q& q) {
         q.sort = S::kRounds;
         q.descending = true;
       }},
      {"sort latency, descending", [](Q& q) {
         q.sort = S::kLatency;
         q.descending = true;
       }},
      {fmt::format("sort metric {}, descending", metric), [&](Q& q) {
         q.sort = S::kMetric;
         q.sort_metric = metric;
         q.descending = true;
       }},
      {fmt::format("sort metric {} (some debates lack it)", sparse), [&](Q& q) {
         q.sort = S::kMetric;
         q.sort_metric = sparse;
       }},
      {fmt::format("sort metric {}, offset {}", metric, middle), [&](Q& q) {
         q.sort = S::kMetric;
         q.sort_metric = metric;
         q.offset = middle;
       }},
      {"filter protocol + sort tokens, descending", [&](Q& q) {
         q.protocol = facts.protocols.back();
         q.sort = S::kTokens;
         q.descending = true;
       }},
      {"filter flipped=1 + sort metric", [&](Q& q) {
         q.flipped = true;
         q.sort = S::kMetric;
         q.sort_metric = sparse;
       }},
      {"search q=glacier + sort latency", [](Q& q) {
         q.text = "glacier";
         q.sort = S::kLatency;
       }},
  };
  parley::UnitKey one;
  for (auto& [label, shape] : queries) {
    Timing t{label, {}};
    for (int r = 0; r < runs; ++r) {
      Q q;
      q.limit = 50;
      shape(q);
      const auto start = Clock::now();
      auto page = b.list(q);
      t.ms.push_back(ms_since(start));
      if (!page) die(label + ": " + page.error().message);
      t.total = page->total;
      if (one.task_id.empty() && !page->rows.empty()) {
        one = {page->rows.front().task_id, page->rows.front().protocol, page->rows.front().seed};
      }
    }
    timings.push_back(t);
  }

  Timing debate{"one debate (/api/debate: transcript + other protocols)", {}};
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    auto json = b.transcript_json(one);
    auto others = b.others(one);
    debate.ms.push_back(ms_since(start));
    if (!json || !*json || !others) die("one debate: not found");
  }
  timings.push_back(debate);

  for (const Timing& t : timings) {
    std::string runs_ms;
    for (double ms : t.ms) runs_ms += fmt::format("{}{:.2f}", runs_ms.empty() ? "" : ", ", ms);
    std::printf("{\"label\": \"%s\", \"median_ms\": %.2f, \"total\": %lld, \"runs_ms\": [%s]}\n", t.label.c_str(),
                t.median(), static_cast<long long>(t.total), runs_ms.c_str());
  }
  std::printf("\n| query | median ms | first run ms | matching |\n|---|---|---|---|\n");
  for (const Timing& t : timings) {
    std::printf("| %s | %.1f | %.1f | %s |\n", t.label.c_str(), t.median(), t.ms.front(),
                t.total >= 0 ? fmt::format("{:L}", t.total).c_str() : "");
  }
  return 0;
}
