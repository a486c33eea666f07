// Black-box tests of `parley view`: it says where it serves, answers there, stops on SIGINT or
// SIGTERM with exit 0, and refuses with a clear message and its exit code a DIR that is not a run
// (2) and an address it cannot listen on (1); an older store is indexed once, saying so.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "integration/cli_support.h"
#include "raw_http.h"
#include "store_support.h"

namespace parley::testing {
namespace {

using namespace std::chrono_literals;

// A small simulated run in `dir`/out.
void make_run(const std::filesystem::path& dir) {
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
             "  - {name: a2, model: sim}\n"
             "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 4}\n"
             "protocols:\n  - {name: single}\n  - {name: debate, agents: 2, rounds: 1}\n"
             "seeds: [1, 2]\n");
  const auto run = run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
}

// Waits for the viewer's "serving" line on its stdout file; the port it names, or 0.
int wait_for_port(const std::filesystem::path& stdout_file) {
  static const std::regex kServing(R"(parley view: serving (\S+) at http://127\.0\.0\.1:(\d+)/\n)");
  for (auto until = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < until;) {
    std::smatch match;
    const std::string out = read_file(stdout_file);
    if (std::regex_search(out, match, kServing)) return std::stoi(match[2].str());
    std::this_thread::sleep_for(10ms);
  }
  return 0;
}

HttpReply get(int port, const std::string& target) {
  return send_raw(port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                            "\r\nConnection: close\r\n\r\n");
}

TEST(ViewCli, ServesTheRunUntilSigintAndExitsZero) {
  const auto dir = scratch_dir("view-serve");
  make_run(dir);
  const pid_t pid = start_parley({"view", "out", "--port", "0"}, dir, "view");
  const int port = wait_for_port(dir / "view.stdout");
  ASSERT_NE(port, 0) << read_file(dir / "view.stdout") << read_file(dir / "view.stderr");
  EXPECT_EQ(read_file(dir / "view.stdout"), "parley view: serving out at http://127.0.0.1:" + std::to_string(port) + "/\n");

  const auto run = nlohmann::json::parse(get(port, "/api/run").body);
  EXPECT_EQ(run["name"], "out");
  EXPECT_EQ(run["debates"], 16);
  EXPECT_EQ(run["protocols"], (nlohmann::json{"single", "debate"}));
  EXPECT_EQ(run["simulated"], true);
  const HttpReply page = get(port, "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<html"), std::string::npos);
  const auto list = nlohmann::json::parse(get(port, "/api/debates?protocol=debate&limit=3").body);
  EXPECT_EQ(list["total"], 8);
  ASSERT_EQ(list["rows"].size(), 3u);
  const std::string task = list["rows"][0]["task_id"];
  const HttpReply debate = get(port, "/api/debate?task=" + task + "&protocol=debate&seed=1");
  EXPECT_EQ(debate.status, 200);
  EXPECT_EQ(nlohmann::json::parse(debate.body)["transcript"]["task_id"], task);

  ::kill(pid, SIGINT);
  const auto code = wait_parley(pid, 5s);
  ASSERT_TRUE(code.has_value()) << "SIGINT did not stop the viewer";
  EXPECT_EQ(*code, 0);
  EXPECT_EQ(read_file(dir / "view.stderr"), "parley view: stopped\n");
}

TEST(ViewCli, SigtermStopsItToo) {
  const auto dir = scratch_dir("view-term");
  make_run(dir);
  const pid_t pid = start_parley({"view", "out", "--port", "0"}, dir, "view");
  ASSERT_NE(wait_for_port(dir / "view.stdout"), 0);
  ::kill(pid, SIGTERM);
  const auto code = wait_parley(pid, 5s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0);
}

TEST(ViewCli, ADirectoryThatIsNotARunIsExitTwoNamingWhy) {
  const auto dir = scratch_dir("view-not-a-run");
  const auto missing = run_parley({"view", "nowhere"}, dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "parley view: nowhere: no such directory\n");
  std::filesystem::create_directories(dir / "empty");
  const auto empty = run_parley({"view", "empty"}, dir);
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err,
            "parley view: empty: not a run directory: it has no results.sqlite (`parley run --out empty` writes "
            "one)\n");
  write_file(dir / "empty" / "results.sqlite", "not a database, but long enough to have a header.............");
  const auto garbage = run_parley({"view", "empty"}, dir);
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_NE(garbage.err.find("not a parley store"), std::string::npos) << garbage.err;
  EXPECT_TRUE(garbage.out.empty());
  const auto bad_port = run_parley({"view", "empty", "--port", "70000"}, dir);
  EXPECT_EQ(bad_port.exit_code, 2);
}

TEST(ViewCli, APortInUseIsExitOne) {
  const auto dir = scratch_dir("view-port");
  make_run(dir);
  const pid_t first = start_parley({"view", "out", "--port", "0"}, dir, "first");
  const int port = wait_for_port(dir / "first.stdout");
  ASSERT_NE(port, 0);
  const auto second = run_parley({"view", "out", "--port", std::to_string(port)}, dir);
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_EQ(second.err, "parley view: cannot listen: 127.0.0.1:" + std::to_string(port) +
                            ": the port is in use (try another with --port)\n");
  EXPECT_TRUE(second.out.empty());
  // The first one still answers, alone.
  EXPECT_EQ(get(port, "/api/run").status, 200);
  ::kill(first, SIGINT);
  EXPECT_EQ(wait_parley(first, 5s), std::optional<int>(0));
}

TEST(ViewCli, AStoreOfAnOlderParleyIsIndexedOnceSayingSo) {
  const auto dir = scratch_dir("view-v2");
  make_run(dir);
  // Back to what a version-2 parley wrote: no index tables, stamped 2.
  tamper(dir / "out/results.sqlite",
         "DROP TABLE debate_index; DROP TABLE debate_task; DROP TABLE debate_metric; DROP TABLE metric_name;"
         " UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  const pid_t pid = start_parley({"view", "out", "--port", "0"}, dir, "view");
  const int port = wait_for_port(dir / "view.stdout");
  ASSERT_NE(port, 0) << read_file(dir / "view.stderr");
  EXPECT_EQ(read_file(dir / "view.stderr"),
            "parley view: indexing 16 debates (once; a store written by an older parley)\n");
  EXPECT_EQ(nlohmann::json::parse(get(port, "/api/debates?flipped=0&limit=0").body)["total"], 16);
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_parley(pid, 5s), std::optional<int>(0));
  // Once: the next viewer says nothing of it.
  const pid_t again = start_parley({"view", "out", "--port", "0"}, dir, "again");
  ASSERT_NE(wait_for_port(dir / "again.stdout"), 0);
  ::kill(again, SIGINT);
  EXPECT_EQ(wait_parley(again, 5s), std::optional<int>(0));
  EXPECT_EQ(read_file(dir / "again.stderr"), "parley view: stopped\n");
}

TEST(ViewCli, ListeningBeyondLoopbackIsWarnedAbout) {
  const auto dir = scratch_dir("view-host");
  make_run(dir);
  const pid_t pid = start_parley({"view", "out", "--port", "0", "--host", "0.0.0.0"}, dir, "view");
  for (auto until = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < until && read_file(dir / "view.stdout").empty();) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(read_file(dir / "view.stdout").starts_with("parley view: serving out at http://0.0.0.0:"));
  EXPECT_EQ(read_file(dir / "view.stderr"),
            "parley view: listening on 0.0.0.0: anyone who can reach this machine can read the run\n");
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_parley(pid, 5s), std::optional<int>(0));
}

}  // namespace
}  // namespace parley::testing
