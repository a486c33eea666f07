// End-to-end runs of the parley binary against a scripted OpenAI-compatible server on
// loopback, through the real HTTP client: injected faults, record/replay, API key hygiene.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "integration/cli_support.h"
#include "support/fake_openai_server.h"

namespace parley::testing {
namespace {

using Json = nlohmann::json;

constexpr int kTasks = 10;
constexpr const char* kDoomed = "DOOMED";  // every request about this task gets HTTP 500

void write_tasks(const std::filesystem::path& path) {
  std::string rows;
  for (int i = 1; i <= kTasks; ++i) {
    const std::string question = i == 4 ? std::string(kDoomed) + " question" : "Question number " + std::to_string(i);
    rows += Json{{"id", "t" + std::to_string(i)}, {"question", question}, {"options", {"w", "x", "y", "z"}},
                 {"answer", "B"}}
                .dump() +
            "\n";
  }
  write_file(path, rows);
}

std::string experiment(const std::string& base_url, const std::string& extra_model_keys = "") {
  return "models:\n"
         "  - {name: local, backend: openai, base_url: \"" + base_url + "\", model: fake, max_concurrency: 16,\n"
         "     timeout_s: 0.5, max_retries: 3, retry_base_delay_s: 0.01, retry_max_delay_s: 0.05" +
         extra_model_keys + "}\n"
         "agents:\n  - {name: a1, model: local}\n  - {name: a2, model: local, temperature: 0.3}\n"
         "dataset: {path: tasks.jsonl}\n"
         "protocols:\n  - {name: single}\n  - {name: self_consistency, samples: 3}\n"
         "  - {name: debate, agents: 3, rounds: 2}\n"
         "seeds: [1, 2]\n"
         "concurrency: 32\n";
}

// An experiment of one model served at `base_url` (with `model_keys` added to its entry), the
// given agents and one protocol, over tasks.jsonl.
std::string one_model_experiment(const std::string& base_url, const std::string& model_keys,
                                 const std::string& agents, const std::string& protocol, int concurrency) {
  return "models:\n  - {name: local, backend: openai, base_url: \"" + base_url + "\", model: fake" + model_keys +
         "}\nagents:\n" + agents + "dataset: {path: tasks.jsonl}\nprotocols:\n  - " + protocol +
         "\nconcurrency: " + std::to_string(concurrency) + "\n";
}

std::vector<Json> read_transcripts(const std::filesystem::path& dir) {
  std::vector<Json> lines;
  std::istringstream in(read_file(dir / "transcripts.jsonl"));
  for (std::string line; std::getline(in, line);) lines.push_back(Json::parse(line));
  return lines;
}

// The transcripts without their measured times.
std::vector<Json> transcripts_without_timing(const std::filesystem::path& dir) {
  std::vector<Json> lines = read_transcripts(dir);
  for (auto& line : lines) {
    line.erase("wall_ms");
    line.erase("latency_ms");
    for (auto& m : line["messages"]) m.erase("latency_ms");
  }
  return lines;
}

Json summary_without_latency(const std::filesystem::path& dir) {
  auto summary = Json::parse(read_file(dir / "summary.json"));
  for (auto& p : summary["protocols"]) p.erase("latency_ms_mean");
  return summary;
}

// Two runs' transcripts and summaries are equal, timings aside.
void expect_same_results(const std::filesystem::path& expected, const std::filesystem::path& got) {
  const std::vector<Json> want = transcripts_without_timing(expected);
  const std::vector<Json> have = transcripts_without_timing(got);
  ASSERT_EQ(have.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(have[i], want[i]) << want[i]["protocol"] << " " << want[i]["task_id"] << " seed " << want[i]["seed"]
                                << ": " << Json::diff(want[i], have[i]).dump().substr(0, 1500);
  }
  EXPECT_EQ(summary_without_latency(got), summary_without_latency(expected));
}

TEST(HttpRun, InjectedFaultsEndEveryDebateCompletedOrFailedNoneLostNoneDuplicated) {
  FaultPlan plan;
  plan.every_500 = 7;
  plan.every_429 = 11;
  plan.retry_after_s = 1;
  plan.every_slow = 13;
  plan.slow_ms = 1500;  // past the 0.5 s timeout
  plan.every_reset = 17;
  plan.every_invalid_json = 19;
  plan.every_empty_choices = 23;
  plan.every_no_usage = 5;
  const Handler faulty = faulty_handler(plan);
  FakeOpenAiServer server([&faulty](const FakeRequest& request) {
    if (request.body.find(kDoomed) != std::string::npos) return status_reply(500);
    return faulty(request);
  });

  const auto dir = scratch_dir("http-faults");
  write_tasks(dir / "tasks.jsonl");
  write_file(dir / "exp.yaml", experiment(server.base_url()));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out"}, dir);
  ASSERT_EQ(r.exit_code, 3) << r.err;  // the doomed task's debates failed
  EXPECT_EQ(r.out.find("SIMULATED"), std::string::npos);

  const auto transcripts = read_transcripts(dir / "out");
  ASSERT_EQ(transcripts.size(), 3u * kTasks * 2);  // protocols × tasks × seeds
  std::set<std::tuple<std::string, std::string, std::uint64_t>> units;
  std::int64_t calls = 0, failed = 0, estimated = 0, retried = 0;
  for (const auto& t : transcripts) {
    units.insert({t["task_id"].get<std::string>(), t["protocol"].get<std::string>(), t["seed"].get<std::uint64_t>()});
    const std::string status = t["status"];
    ASSERT_TRUE(status == "completed" || status == "failed") << t.dump();
    if (t["task_id"] == "t4") {
      EXPECT_EQ(status, "failed") << t.dump();
      EXPECT_NE(t["status_reason"].get<std::string>().find("500"), std::string::npos) << t.dump();
    }
    if (status == "failed") {
      ++failed;
      EXPECT_FALSE(t["status_reason"].get<std::string>().empty());
      EXPECT_FALSE(t["correct"].get<bool>());
    }
    for (const auto& m : t["messages"]) {
      ++calls;
      if (m["tokens_estimated"].get<bool>()) ++estimated;
      if (m["attempts"].get<int>() > 1) ++retried;
      if (!m.contains("error")) {
        EXPECT_TRUE(m["answer"].is_string()) << m.dump();
      }
    }
  }
  EXPECT_EQ(units.size(), transcripts.size()) << "a unit was stored twice";
  EXPECT_GE(failed, 6);       // the doomed task under 3 protocols × 2 seeds
  EXPECT_GT(estimated, 0);    // replies without usage were counted by estimate
  EXPECT_GT(retried, 0);      // faults were retried and then succeeded
  EXPECT_GT(static_cast<std::int64_t>(server.requests()), calls);

  const auto summary = Json::parse(read_file(dir / "out" / "summary.json"));
  EXPECT_FALSE(summary["simulated"].get<bool>());
  std::int64_t summary_failed = 0;
  for (const auto& p : summary["protocols"]) summary_failed += p["failed"].get<std::int64_t>();
  EXPECT_EQ(summary_failed, failed);
}

TEST(HttpRun, CacheReplaysARunWithoutTheServer) {
  FakeOpenAiServer server(answer_reply);
  const auto dir = scratch_dir("http-cache");
  write_tasks(dir / "tasks.jsonl");
  write_file(dir / "exp.yaml", experiment(server.base_url()));
  // The doomed task is answered like any other here.
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "first", "--cache", "cache", "--quiet"}, dir).exit_code, 0);
  const auto requests_after_first = server.requests();
  ASSERT_GT(requests_after_first, 0u);
  const auto replay = run_parley({"run", "exp.yaml", "--out", "second", "--cache", "cache"}, dir);
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(server.requests(), requests_after_first) << "a cached request reached the server";

  // Identical requests (single's call and self-consistency's first sample) share one cache
  // entry, so replayed latencies may come from the other call; everything else is identical.
  expect_same_results(dir / "first", dir / "second");
}

TEST(HttpRun, ProtocolsShareTheirPreDebateRepliesAndEmbedOverHttp) {
  // Every chat reply is different (it carries the arrival index), and replies take 20 ms, so
  // the four protocols' identical first requests are in flight together: only the cache's
  // sharing of in-flight requests can give them one reply (SVR-MAD §5's shared pre-debate
  // responses; without --cache all 30 first requests get different replies). s2_mad embeds the
  // replies through the same server's /embeddings.
  std::mutex mutex;
  std::vector<std::string> embedding_models;
  FakeOpenAiServer server([&](const FakeRequest& request) {
    if (request.path == "/v1/embeddings") {
      const Json body = Json::parse(request.body);
      std::vector<std::vector<double>> vectors;
      for (const auto& text : body["input"]) vectors.push_back({1.0, static_cast<double>(text.get<std::string>().size() % 5)});
      std::lock_guard lock(mutex);
      embedding_models.push_back(body["model"]);
      return embedding_reply(vectors, 7);
    }
    CompletionSpec spec;
    spec.content = "Reply number " + std::to_string(request.index) + ".\nAnswer: " +
                   std::string(1, "ABCD"[request.index % 4]) + "\nConfidence: 70%";
    spec.token_logprobs = {-0.1 * static_cast<double>(request.index % 5 + 1), -0.05};
    FakeResponse response = ok_reply(spec);
    response.delay_ms = 20;
    return response;
  });
  const auto dir = scratch_dir("http-shared");
  write_tasks(dir / "tasks.jsonl");
  write_file(dir / "exp.yaml",
             "models:\n"
             "  - {name: local, backend: openai, base_url: \"" + server.base_url() + "\", model: fake}\n"
             "  - {name: emb, backend: openai, base_url: \"" + server.base_url() + "\", model: fake-embed}\n"
             "agents:\n"
             "  - {name: a1, model: local, logprobs: true}\n"
             "  - {name: a2, model: local, logprobs: true}\n"
             "  - {name: a3, model: local, logprobs: true}\n"
             "dataset: {path: tasks.jsonl}\n"
             "protocols:\n"
             "  - {name: self_consistency, samples: 3, one_per_agent: true}\n"
             "  - {name: debate, agents: 3, rounds: 1}\n"
             "  - {name: s2_mad, agents: 3, rounds: 1, consensus: 0, embeddings: emb}\n"
             "  - {name: svr_mad, agents: 3}\n"
             "concurrency: 64\n");
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--cache", "cache", "--quiet"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  std::map<std::string, std::set<std::string>> first_replies;  // task/agent -> round-0 texts
  std::map<std::string, int> protocols_seen;
  int embedding_calls = 0;
  for (const auto& t : read_transcripts(dir / "out")) {
    ASSERT_EQ(t["status"], "completed") << t["status_reason"];
    for (const auto& m : t["messages"]) {
      if (m["round"] == 0 && m["role"] == "answer") {
        const std::string key = t["task_id"].get<std::string>() + "/" + m["agent"].get<std::string>();
        first_replies[key].insert(m["text"].get<std::string>());
        ++protocols_seen[key];
      }
      if (m["role"] == "embedding") {
        ++embedding_calls;
        EXPECT_EQ(m["agent"], "emb");
        EXPECT_EQ(m["prompt_tokens"], 7);
        EXPECT_FALSE(m.contains("error"));
      }
    }
    if (t["protocol"] == "s2_mad") {
      bool similarity = false;
      for (const auto& e : t["events"]) similarity |= e["kind"] == "similarity";
      EXPECT_TRUE(similarity) << t["task_id"];
    }
  }
  ASSERT_EQ(first_replies.size(), 3u * kTasks);
  for (const auto& [key, texts] : first_replies) {
    EXPECT_EQ(protocols_seen[key], 4) << key;
    EXPECT_EQ(texts.size(), 1u) << key << ": the protocols got different pre-debate replies";
  }
  EXPECT_EQ(embedding_calls, kTasks);  // one per s2_mad debate: one round
  std::lock_guard lock(mutex);
  EXPECT_EQ(embedding_models, std::vector<std::string>(kTasks, "fake-embed"));
}

// Debates start whenever the loop would otherwise wait: against a server that holds every
// answer, all `concurrency` debates are in flight at once, each with both of its agents' calls
// pending, and never more.
TEST(HttpRun, ConcurrencyDebatesWaitOnTheServerAtOnce) {
  FaultPlan plan;
  plan.base_delay_ms = 150;
  FakeOpenAiServer server(faulty_handler(plan));
  const auto dir = scratch_dir("http-in-flight");
  write_tasks(dir / "tasks.jsonl");
  write_file(dir / "exp.yaml", one_model_experiment(server.base_url(), ", max_concurrency: 64",
                                                    "  - {name: a1, model: local}\n  - {name: a2, model: local}\n",
                                                    "{name: debate, agents: 2, rounds: 1}", 4));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_transcripts(dir / "out").size(), static_cast<std::size_t>(kTasks));
  EXPECT_EQ(server.peak_pending(), 8u);  // 4 debates × 2 agents
}

TEST(HttpRun, SelfConsistencyAsksOneRequestPerTurnWhereTheServerTakesN) {
  std::map<std::string, std::vector<std::int64_t>> prompt_tokens;  // task -> per sample, batched run
  for (const bool rejects : {false, true}) {
    SCOPED_TRACE(rejects ? "server rejecting n" : "server taking n");
    FaultPlan plan;
    plan.reject_n = rejects;
    const Handler handler = faulty_handler(plan);
    std::mutex mutex;
    std::vector<int> ns;
    FakeOpenAiServer server([&](const FakeRequest& request) {
      std::lock_guard lock(mutex);
      ns.push_back(Json::parse(request.body).value("n", 1));
      return handler(request);
    });
    const auto dir = scratch_dir(rejects ? "http-n-rejected" : "http-n");
    write_tasks(dir / "tasks.jsonl");
    write_file(dir / "exp.yaml", one_model_experiment(server.base_url(), "", "  - {name: a1, model: local}\n",
                                                      "{name: self_consistency, samples: 5}", 4));
    const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;

    const auto transcripts = read_transcripts(dir / "out");
    ASSERT_EQ(transcripts.size(), static_cast<std::size_t>(kTasks));
    for (const auto& t : transcripts) {
      ASSERT_EQ(t["messages"].size(), 5u) << t.dump();
      std::int64_t prompt = 0;
      for (std::size_t i = 0; i < 5; ++i) {
        const Json& m = t["messages"][i];
        EXPECT_EQ(m["role"], "sample");
        EXPECT_FALSE(m["tokens_estimated"].get<bool>());
        // Each choice's share of the reply's completion tokens is its own count here, as the
        // fake model bills ceil(bytes / 4) per choice.
        EXPECT_EQ(m["completion_tokens"], (m["text"].get<std::string>().size() + 3) / 4);
        prompt += m["prompt_tokens"].get<std::int64_t>();
        if (!rejects) prompt_tokens[t["task_id"]].push_back(m["prompt_tokens"]);
      }
      EXPECT_EQ(t["prompt_tokens"], prompt);
      if (rejects) {
        // Five requests, each billing the prompt the one request billed once.
        const std::vector<std::int64_t>& batched = prompt_tokens[t["task_id"]];
        ASSERT_EQ(batched.size(), 5u);
        EXPECT_GT(batched[0], 0);
        EXPECT_EQ(batched, (std::vector<std::int64_t>{batched[0], 0, 0, 0, 0}));
        for (const auto& m : t["messages"]) EXPECT_EQ(m["prompt_tokens"], batched[0]);
      }
    }
    std::lock_guard lock(mutex);
    if (rejects) {
      // One probe, rejected; then every sample alone.
      EXPECT_EQ(ns.size(), 1u + 5u * kTasks);
      EXPECT_EQ(std::count(ns.begin(), ns.end(), 5), 1);
    } else {
      EXPECT_EQ(ns, std::vector<int>(kTasks, 5));
    }
  }
}

TEST(HttpRun, ImplausibleUsageIsEstimatedMarkedAndDoesNotSpendTheBudget) {
  // Every reply claims 1e30 or -7 prompt tokens and every choice carries a byte that is not
  // UTF-8. Believed, the first stops each debate at its first call (budget) and the second is a
  // negative count.
  FakeOpenAiServer server([](const FakeRequest& request) {
    FakeResponse reply = answer_reply(request);
    Json body = Json::parse(reply.body);
    for (auto& choice : body["choices"])
      choice["message"]["content"] = choice["message"]["content"].get<std::string>() + " @BAD@";
    body["usage"]["prompt_tokens"] = "@COUNT@";
    reply.body = body.dump();
    for (std::size_t at = reply.body.find("@BAD@"); at != std::string::npos; at = reply.body.find("@BAD@"))
      reply.body.replace(at, 5, "\xFF");
    reply.body.replace(reply.body.find("\"@COUNT@\""), 9, request.index % 2 == 0 ? "1e30" : "-7");
    return reply;
  });
  const auto dir = scratch_dir("http-usage");
  write_tasks(dir / "tasks.jsonl");
  write_file(dir / "exp.yaml", experiment(server.base_url()) + "budget_tokens_per_task: 20000\n");
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--set", "dataset.limit=3", "--quiet"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto transcripts = read_transcripts(dir / "out");
  ASSERT_EQ(transcripts.size(), 3u * 3 * 2);
  for (const auto& t : transcripts) {
    EXPECT_EQ(t["status"], "completed") << t["status_reason"];
    EXPECT_GT(t["prompt_tokens"].get<std::int64_t>(), 0);
    EXPECT_LT(t["prompt_tokens"].get<std::int64_t>(), 20000);
    for (const auto& m : t["messages"]) {
      EXPECT_TRUE(m["tokens_estimated"].get<bool>()) << m.dump();
      EXPECT_NE(m["text"].get<std::string>().find(" \xEF\xBF\xBD"), std::string::npos) << m.dump();
      ASSERT_EQ(m["warnings"].size(), 2u) << m.dump();
      EXPECT_EQ(m["warnings"][0], "invalid UTF-8 in the reply replaced by U+FFFD");
      EXPECT_EQ(m["warnings"][1].get<std::string>().rfind("usage not believed, tokens estimated: usage.prompt_tokens ", 0), 0u)
          << m.dump();
    }
  }
  const auto summary = Json::parse(read_file(dir / "out" / "summary.json"));
  for (const auto& p : summary["protocols"]) {
    EXPECT_EQ(p["budget"], 0) << p.dump();
    EXPECT_EQ(p["tokens_estimated"], 6) << p.dump();  // every debate: 3 tasks x 2 seeds
    EXPECT_GT(p["tokens_in_mean"].get<double>(), 0.0) << p.dump();
  }
}

TEST(HttpRun, ApiKeyIsSentButNeverWritten) {
  const std::string key = "sk-test-7f3a9c1e5b2d4f6a";
  std::mutex mutex;
  std::set<std::string> authorizations;
  FakeOpenAiServer server([&](const FakeRequest& request) {
    {
      std::lock_guard lock(mutex);
      auto it = request.headers.find("authorization");
      authorizations.insert(it == request.headers.end() ? "" : it->second);
    }
    return answer_reply(request);
  });
  ::setenv("PARLEY_TEST_API_KEY", key.c_str(), 1);
  const auto dir = scratch_dir("http-key");
  write_tasks(dir / "tasks.jsonl");
  write_file(dir / "exp.yaml", experiment(server.base_url(), ", api_key_env: PARLEY_TEST_API_KEY"));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--cache", "cache"}, dir);
  ::unsetenv("PARLEY_TEST_API_KEY");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(authorizations, (std::set<std::string>{"Bearer " + key}));
  EXPECT_EQ(r.out.find(key), std::string::npos);
  EXPECT_EQ(r.err.find(key), std::string::npos);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    EXPECT_EQ(read_file(entry.path()).find(key), std::string::npos) << entry.path();
  }
}

TEST(HttpRun, MissingApiKeyVariableIsAConfigurationError) {
  const auto dir = scratch_dir("http-no-key");
  write_tasks(dir / "tasks.jsonl");
  ::unsetenv("PARLEY_TEST_ABSENT_KEY");
  write_file(dir / "exp.yaml", experiment("http://127.0.0.1:9/v1", ", api_key_env: PARLEY_TEST_ABSENT_KEY"));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("PARLEY_TEST_ABSENT_KEY"), std::string::npos) << r.err;
}

TEST(HttpRun, ApiKeyWithALineBreakIsAConfigurationErrorThatDoesNotShowIt) {
  FakeOpenAiServer server(answer_reply);
  const auto dir = scratch_dir("http-crlf-key");
  write_tasks(dir / "tasks.jsonl");
  ::setenv("PARLEY_TEST_CRLF_KEY", "sk-crlf-4d5e6f\r\nX-Injected: 1", 1);
  write_file(dir / "exp.yaml", experiment(server.base_url(), ", api_key_env: PARLEY_TEST_CRLF_KEY"));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out"}, dir);
  ::unsetenv("PARLEY_TEST_CRLF_KEY");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("model local: the API key in PARLEY_TEST_CRLF_KEY holds a control character"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("sk-crlf"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("sk-crlf"), std::string::npos) << r.out;
  EXPECT_EQ(server.requests(), 0u);
}

TEST(HttpRun, UrlCredentialsEchoedByTheServerAreNeverWritten) {
  // No api_key_env: curl sends the URL's alice:hunter2 as Basic YWxpY2U6aHVudGVyMg==, and the
  // server quotes it in every error body.
  FakeOpenAiServer server([](const FakeRequest& request) {
    const auto it = request.headers.find("authorization");
    FakeResponse reply;
    reply.status = 500;
    reply.body = Json{{"error", {{"message", "bad gateway for " + (it == request.headers.end() ? "" : it->second)}}}}.dump();
    return reply;
  });
  const auto dir = scratch_dir("http-url-credentials");
  write_tasks(dir / "tasks.jsonl");
  std::string url = server.base_url();
  url.insert(std::string("http://").size(), "alice:hunter2@");
  write_file(dir / "exp.yaml", experiment(url));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--set", "dataset.limit=1"}, dir);
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const auto transcripts = read_transcripts(dir / "out");
  ASSERT_FALSE(transcripts.empty());
  EXPECT_NE(transcripts[0]["status_reason"].get<std::string>().find("bad gateway for Basic [redacted]"), std::string::npos)
      << transcripts[0]["status_reason"];
  for (const std::string& secret : {std::string("hunter2"), std::string("YWxpY2U6aHVudGVyMg")}) {
    EXPECT_EQ(r.out.find(secret), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "out")) {
      if (!entry.is_regular_file()) continue;
      EXPECT_EQ(read_file(entry.path()).find(secret), std::string::npos) << entry.path();
    }
  }
}

TEST(HttpRun, UnreachableServerFailsEveryDebateWithAReason) {
  const auto dir = scratch_dir("http-down");
  write_tasks(dir / "tasks.jsonl");
  // Port 9 (discard) on loopback: nothing listens, connections are refused at once.
  write_file(dir / "exp.yaml", experiment("http://127.0.0.1:9/v1"));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--set", "dataset.limit=2"}, dir);
  // The run finishes and stores every failed debate, but does not claim success (exit 3).
  ASSERT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("parley: 12 of 12 debates failed"), std::string::npos) << r.err;
  const auto quiet = run_parley({"run", "exp.yaml", "--out", "quiet", "--set", "dataset.limit=2", "--quiet"}, dir);
  EXPECT_EQ(quiet.exit_code, 3) << quiet.err;
  const auto transcripts = read_transcripts(dir / "out");
  ASSERT_EQ(transcripts.size(), 3u * 2 * 2);
  for (const auto& t : transcripts) {
    EXPECT_EQ(t["status"], "failed");
    EXPECT_FALSE(t["status_reason"].get<std::string>().empty());
  }
}

TEST(HttpRun, RetryFailedRunsTheFailedDebatesAgainOnceTheServerIsBack) {
  std::atomic<bool> down{true};
  FakeOpenAiServer server([&down](const FakeRequest& request) {
    if (down.load() && request.body.find(kDoomed) != std::string::npos) return status_reply(500);
    return answer_reply(request);
  });
  const auto dir = scratch_dir("http-retry-failed");
  write_tasks(dir / "tasks.jsonl");
  write_file(dir / "exp.yaml", experiment(server.base_url()));
  const auto first = run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir);
  ASSERT_EQ(first.exit_code, 3) << first.err;
  EXPECT_NE(first.err.find("parley: 6 of 60 debates failed"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("run them again with: parley run exp.yaml --out out --resume --retry-failed"),
            std::string::npos)
      << first.err;
  std::vector<Json> kept;  // the completed debates, which a retry must not touch
  for (const auto& t : read_transcripts(dir / "out")) {
    if (t["status"] == "completed") kept.push_back(t);
    else EXPECT_EQ(t["task_id"], "t4") << t.dump();
  }
  ASSERT_EQ(kept.size(), 54u);

  const auto without_resume = run_parley({"run", "exp.yaml", "--out", "out", "--retry-failed"}, dir);
  EXPECT_EQ(without_resume.exit_code, 2);
  EXPECT_NE(without_resume.err.find("--retry-failed requires --resume"), std::string::npos) << without_resume.err;
  // A plain resume counts failed debates as finished.
  const auto plain = run_parley({"run", "exp.yaml", "--out", "out", "--resume"}, dir);
  EXPECT_EQ(plain.exit_code, 3) << plain.err;
  EXPECT_NE(plain.out.find("0 debates run, 60 resumed from the store"), std::string::npos) << plain.out;

  down.store(false);
  const auto retried = run_parley({"run", "exp.yaml", "--out", "out", "--resume", "--retry-failed"}, dir);
  ASSERT_EQ(retried.exit_code, 0) << retried.err;
  EXPECT_NE(retried.out.find("6 debates run (6 failed ones again), 54 resumed from the store"), std::string::npos)
      << retried.out;
  std::vector<Json> completed;
  for (const auto& t : read_transcripts(dir / "out")) {
    EXPECT_EQ(t["status"], "completed") << t.dump();
    if (t["task_id"] != "t4") completed.push_back(t);
  }
  EXPECT_EQ(completed, kept);  // in the store's order, both times

  const auto clean = run_parley({"run", "exp.yaml", "--out", "clean", "--quiet"}, dir);
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(summary_without_latency(dir / "out"), summary_without_latency(dir / "clean"));
}

// The fake model (answer_reply), but a choice naming A says no answer at all (re-asked; a
// reply with one says it used 10 prompt and 5 completion tokens per choice), and every reply is
// delayed by a random 0-30 ms, so concurrent calls complete in random orders. Counts the
// requests whose max_tokens the budget lowered below the agents' 1024 in `capped`.
Handler shuffling_handler(std::uint32_t seed, std::shared_ptr<std::atomic<int>> capped) {
  auto random = std::make_shared<std::mt19937>(seed);  // the server calls its handler serially
  return [random, capped](const FakeRequest& request) {
    if (Json::parse(request.body).value("max_tokens", 1024) < 1024) ++*capped;
    FakeResponse response = answer_reply(request);
    Json body = Json::parse(response.body);
    bool unanswered = false;
    for (auto& choice : body["choices"]) {
      if (choice["message"]["content"].get<std::string>().find("Answer: A\n") == std::string::npos) continue;
      choice["message"]["content"] = "Let me think step by step. It is hard to say.";
      unanswered = true;
    }
    if (unanswered) {
      const std::size_t choices = body["choices"].size();
      body["usage"] = {
          {"prompt_tokens", 10}, {"completion_tokens", 5 * choices}, {"total_tokens", 10 + 5 * choices}};
      response.body = body.dump();
    }
    response.delay_ms = static_cast<int>((*random)() % 31);
    return response;
  };
}

TEST(HttpRun, ARecordedRunWithConcurrencyReplaysAndResumesToTheSameResult) {
  const auto dir = scratch_dir("http-replay-order");
  write_tasks(dir / "tasks.jsonl");
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("latency seed " + std::to_string(seed));
  // Re-asks, a budget that caps max_tokens while calls are in flight, best-of-N judging and
  // parallel rounds: everything the order of completions could change.
  const auto experiment_for = [](const std::string& base_url) {
    return "models:\n  - {name: local, backend: openai, base_url: \"" + base_url + "\", model: fake}\n"
           "agents:\n  - {name: a1, model: local}\n  - {name: a2, model: local, temperature: 0.3}\n"
           "dataset: {path: tasks.jsonl}\n"
           "protocols:\n  - {name: single, best_of: 2}\n  - {name: self_consistency, samples: 3}\n"
           "  - {name: debate, agents: 3, rounds: 2}\n"
           "seeds: [1, 2]\nconcurrency: 16\nbudget_tokens_per_task: 3500\n";
  };

  std::uint64_t recorded_requests = 0;
  auto capped = std::make_shared<std::atomic<int>>(0);
  {
    FakeOpenAiServer server(shuffling_handler(seed, capped));
    write_file(dir / "exp.yaml", experiment_for(server.base_url()));
    const auto r = run_parley({"run", "exp.yaml", "--out", "recorded", "--cache", "cache", "--quiet"}, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    recorded_requests = server.requests();
  }
  std::int64_t reasks = 0;
  for (const auto& t : read_transcripts(dir / "recorded")) {
    for (const auto& m : t["messages"]) reasks += m["role"] == "reask";
  }
  EXPECT_GT(reasks, 10);
  EXPECT_GT(capped->load(), 10);

  // Replay with the server gone: every request must be a hit, and hits complete at once.
  const auto replay = run_parley({"run", "exp.yaml", "--out", "replayed", "--cache", "cache", "--quiet"}, dir);
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  expect_same_results(dir / "recorded", dir / "replayed");

  // Record afresh with other latencies, killed a third of the way, then resumed: in-flight
  // debates are run again with part of their calls answered from the cache.
  FakeOpenAiServer server(shuffling_handler(seed + 1, capped));
  write_file(dir / "exp.yaml", experiment_for(server.base_url()));
  const auto killed = run_parley_killed_when({"run", "exp.yaml", "--out", "resumed", "--cache", "fresh", "--quiet"},
                                             dir, [&] { return server.requests() >= recorded_requests / 3; });
  ASSERT_EQ(killed.exit_code, 137) << killed.err;
  const auto resumed =
      run_parley({"run", "exp.yaml", "--out", "resumed", "--cache", "fresh", "--resume", "--quiet"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_same_results(dir / "recorded", dir / "resumed");
}

}  // namespace
}  // namespace parley::testing
