// Stopping a run and sharing a run directory, against the real binary: SIGINT and SIGTERM
// cancel the calls in flight (simulated, HTTP, retry back-off) and exit 130 at once, keeping
// only finished debates; a second signal exits even while the process is blocked; a second
// run on the same directory is refused while readers keep working.
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "integration/cli_support.h"
#include "support/fake_openai_server.h"

namespace parley::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Five tasks; `single` and `self_consistency` answer on a fast model, `debate` on a slow one,
// all fifteen debates in flight at once. `--set models.1.delay_ms=0` makes the slow model instant (the delay is not
// part of the experiment's fingerprint).
std::string simulator_experiment() {
  return "models:\n"
         "  - {name: fast, backend: simulator, delay_ms: 20}\n"
         "  - {name: slow, backend: simulator, delay_ms: 600000}\n"
         "agents:\n  - {name: quick, model: fast}\n  - {name: s1, model: slow}\n  - {name: s2, model: slow}\n"
         "  - {name: s3, model: slow}\n"
         "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 5}\n"
         "protocols:\n  - {name: single, agents: [quick]}\n  - {name: self_consistency, agents: [quick], samples: 3}\n"
         "  - {name: debate, agents: [s1, s2, s3]}\n"
         "seeds: [1]\nconcurrency: 15\n";
}

// (protocol, status) -> number of stored debates.
std::map<std::pair<std::string, std::string>, int> stored(const std::filesystem::path& db) {
  std::map<std::pair<std::string, std::string>, int> rows;
  sqlite3* handle = nullptr;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(handle, 1000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(handle, "SELECT protocol, status, COUNT(*) FROM debates GROUP BY protocol, status", -1,
                           &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        rows[{reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
              reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1))}] = sqlite3_column_int(stmt, 2);
      }
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(handle);
  return rows;
}

std::size_t lines_of(const std::filesystem::path& path) {
  const std::string text = read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool execute(const std::filesystem::path& db, const char* sql) {
  sqlite3* handle = nullptr;
  const bool done = sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK &&
                    sqlite3_exec(handle, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(handle);
  return done;
}

// Sends `signal` and returns the exit code if the process ends within `limit`.
std::optional<int> signal_and_wait(pid_t pid, int signal, milliseconds limit) {
  ::kill(pid, signal);
  return wait_parley(pid, limit);
}

bool wait_for(const std::function<bool()>& condition, milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!condition()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

constexpr milliseconds kPrompt{3000};  // "within a couple of seconds", with room for a loaded machine

TEST(Stop, SigintCancelsSimulatedCallsInFlightAndTheResumeMatchesAnUninterruptedRun) {
  const auto dir = scratch_dir("stop-sigint");
  write_file(dir / "exp.yaml", simulator_experiment());
  const pid_t pid = start_parley({"run", "exp.yaml", "--out", "out"}, dir, "run");
  // The fast debates take about 20 ms a call; the debates would take ten minutes a call.
  std::this_thread::sleep_for(milliseconds(1500));
  const auto exit_code = signal_and_wait(pid, SIGINT, kPrompt);
  ASSERT_TRUE(exit_code.has_value()) << "SIGINT did not end the run within 3 s";
  EXPECT_EQ(*exit_code, 130);
  const std::string err = read_file(dir / "run.stderr");
  EXPECT_NE(err.find("parley: stopped: 10 debates are stored; 5 cut short and 0 not started run on --resume\n"
                     "parley: continue with: parley run exp.yaml --out out --resume\n"),
            std::string::npos)
      << err;
  // Only the finished debates are stored, and the exports describe exactly those.
  using Rows = std::map<std::pair<std::string, std::string>, int>;
  EXPECT_EQ(stored(dir / "out/results.sqlite"), (Rows{{{"single", "completed"}, 5}, {{"self_consistency", "completed"}, 5}}));
  EXPECT_EQ(lines_of(dir / "out/transcripts.jsonl"), 10U);

  const auto resumed = run_parley({"run", "exp.yaml", "--out", "out", "--resume", "--set", "models.1.delay_ms=0"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("5 debates run, 10 resumed from the store"), std::string::npos) << resumed.out;
  const auto reference = run_parley({"run", "exp.yaml", "--out", "reference", "--set", "models.1.delay_ms=0"}, dir);
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_EQ(read_file(dir / "out/summary.json"), read_file(dir / "reference/summary.json"));
}

// HTTP calls: half the requests are answered after a minute, the other half get 429 with
// Retry-After: 60, so at the signal every call is either a transfer in flight or a back-off.
// Every call stalls (a 429 asking for a 60 s back-off, or a reply 60 s late) until `stalling`
// is cleared, but a server's refusal of "n" comes at once. SIGTERM ends the run at once all the
// same, and a resume completes it.
void expect_sigterm_to_cancel_stalled_http_calls(bool server_takes_n, std::uint64_t requests_in_flight) {
  std::atomic<bool> stalling{true};
  FaultPlan plan;
  plan.reject_n = !server_takes_n;
  const Handler answer = faulty_handler(plan);
  FakeOpenAiServer server([&stalling, &answer](const FakeRequest& request) {
    FakeResponse reply = answer(request);
    if (!stalling || reply.status != 200) return reply;
    if (request.index % 2 == 0) return status_reply(429, 60);
    reply.delay_ms = 60000;
    return reply;
  });
  const auto dir = scratch_dir(server_takes_n ? "stop-sigterm-n" : "stop-sigterm");
  write_file(dir / "exp.yaml",
             "models:\n  - {name: local, backend: openai, base_url: \"" + server.base_url() +
                 "\", model: fake, timeout_s: 120, max_retries: 3}\n"
                 "agents:\n  - {name: a1, model: local}\n"
                 "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 4}\n"
                 "protocols:\n  - {name: single}\n  - {name: self_consistency, samples: 3}\n"
                 "seeds: [1]\nconcurrency: 8\n");
  const pid_t pid = start_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir, "run");
  ASSERT_TRUE(wait_for([&server, requests_in_flight] { return server.requests() >= requests_in_flight; },
                       milliseconds(20000)));
  const auto exit_code = signal_and_wait(pid, SIGTERM, kPrompt);
  ASSERT_TRUE(exit_code.has_value()) << "SIGTERM did not end the run within 3 s";
  EXPECT_EQ(*exit_code, 130);
  const std::string err = read_file(dir / "run.stderr");
  EXPECT_NE(err.find("parley: stopped: 0 debates are stored; 8 cut short and 0 not started run on --resume\n"),
            std::string::npos)
      << err;
  EXPECT_TRUE(stored(dir / "out/results.sqlite").empty());
  EXPECT_EQ(server.requests(), requests_in_flight);  // nothing more was sent

  stalling = false;
  const auto resumed = run_parley({"run", "exp.yaml", "--out", "out", "--resume", "--quiet"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  using Rows = std::map<std::pair<std::string, std::string>, int>;
  EXPECT_EQ(stored(dir / "out/results.sqlite"),
            (Rows{{{"single", "completed"}, 4}, {{"self_consistency", "completed"}, 4}}));
}

TEST(Stop, SigtermCancelsHttpTransfersAndRetryBackoffs) {
  // The server refuses "n": after the refused probe, all 4 + 12 calls of the 8 debates have
  // reached it.
  expect_sigterm_to_cancel_stalled_http_calls(/*server_takes_n=*/false, 1 + 4 + 12);
}

TEST(Stop, SigtermCancelsCallsWaitingForTheProbeOfN) {
  // The 4 single calls and the first self-consistency batch's one request (the probe of "n")
  // stall; the three other batches wait for the probe's answer.
  expect_sigterm_to_cancel_stalled_http_calls(/*server_takes_n=*/true, 4 + 1);
}

// Holds SQLite's write lock on a run's store from this process, so that a resume blocks in
// its first write (for the busy timeout, 5 s) and cannot look at its stop flag.
class StoreWriteLock {
 public:
  explicit StoreWriteLock(const std::filesystem::path& db) {
    sqlite3_open_v2(db.c_str(), &handle_, SQLITE_OPEN_READWRITE, nullptr);
    locked_ = sqlite3_exec(handle_, "BEGIN IMMEDIATE; INSERT INTO meta (key, value) VALUES ('held', '1')", nullptr,
                           nullptr, nullptr) == SQLITE_OK;
  }
  ~StoreWriteLock() {
    sqlite3_exec(handle_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(handle_);
  }
  bool locked() const { return locked_; }

 private:
  sqlite3* handle_ = nullptr;
  bool locked_ = false;
};

TEST(Stop, ASecondSignalExitsAtOnceEvenWhileTheRunIsBlocked) {
  const auto dir = scratch_dir("stop-twice");
  write_file(dir / "exp.yaml", simulator_experiment());
  const auto first = run_parley({"run", "exp.yaml", "--out", "out", "--set", "models.1.delay_ms=0"}, dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto before = stored(dir / "out/results.sqlite");

  std::optional<int> exit_code;
  {
    StoreWriteLock held(dir / "out/results.sqlite");
    ASSERT_TRUE(held.locked());
    const pid_t pid = start_parley({"run", "exp.yaml", "--out", "out", "--resume"}, dir, "run");
    // Let it reach the store, where it waits for the lock: it has the file open (a fixed wait
    // was too short for a sanitizer build on a loaded machine, whose start alone takes a second).
    const auto store_open = [pid] {
      std::error_code ec;
      for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
        if (std::filesystem::read_symlink(fd.path(), ec).filename() == "results.sqlite") return true;
      }
      return false;
    };
    ASSERT_TRUE(wait_for(store_open, milliseconds(20000)));
    std::this_thread::sleep_for(milliseconds(200));
    ::kill(pid, SIGINT);
    ASSERT_TRUE(wait_for([&dir] { return read_file(dir / "run.stderr").find("stopping") != std::string::npos; },
                         milliseconds(2000)));
    const auto sent = Clock::now();
    exit_code = signal_and_wait(pid, SIGINT, milliseconds(1500));
    ASSERT_TRUE(exit_code.has_value()) << "the second SIGINT did not end the run";
    EXPECT_LT(Clock::now() - sent, milliseconds(1500));
  }
  EXPECT_EQ(*exit_code, 130);
  EXPECT_NE(read_file(dir / "run.stderr").find("parley: stopped at once"), std::string::npos);
  EXPECT_EQ(stored(dir / "out/results.sqlite"), before);
  const auto report = run_parley({"report", "out"}, dir);
  EXPECT_EQ(report.exit_code, 0) << report.err;
}

// A store that refuses a write ends the run: the debates still in flight are cancelled at
// once, not awaited (here they would take ten minutes a call).
TEST(Stop, AStoreWriteErrorCancelsTheDebatesInFlight) {
  const auto dir = scratch_dir("stop-store-error");
  write_file(dir / "exp.yaml", simulator_experiment());
  const auto complete = run_parley({"run", "exp.yaml", "--out", "out", "--set", "models.1.delay_ms=0"}, dir);
  ASSERT_EQ(complete.exit_code, 0) << complete.err;
  ASSERT_TRUE(execute(dir / "out/results.sqlite",
                      "DELETE FROM debates; CREATE TRIGGER refuse BEFORE INSERT ON debates WHEN NEW.protocol = "
                      "'single' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;"));
  const pid_t pid = start_parley({"run", "exp.yaml", "--out", "out", "--resume", "--quiet"}, dir, "run");
  const auto exit_code = wait_parley(pid, std::chrono::seconds(20));
  ASSERT_TRUE(exit_code.has_value()) << "the run went on after its store failed";
  EXPECT_EQ(*exit_code, 1);
  const std::string err = read_file(dir / "run.stderr");
  EXPECT_NE(err.find("disk on fire"), std::string::npos) << err;
  EXPECT_NE(err.find("parley: continue with: parley run exp.yaml --out out --resume\n"), std::string::npos) << err;
}

TEST(RunLock, ASecondRunOnTheDirectoryIsRefusedWhileReadersWork) {
  const auto dir = scratch_dir("lock");
  write_file(dir / "exp.yaml", simulator_experiment());
  // A store holding the ten fast debates, as a killed run leaves it.
  const auto complete = run_parley({"run", "exp.yaml", "--out", "out", "--set", "models.1.delay_ms=0"}, dir);
  ASSERT_EQ(complete.exit_code, 0) << complete.err;
  ASSERT_TRUE(execute(dir / "out/results.sqlite", "DELETE FROM debates WHERE protocol = 'debate'"));
  const auto report_before = run_parley({"report", "out", "--json"}, dir);
  ASSERT_EQ(report_before.exit_code, 0) << report_before.err;
  const std::vector<std::string> compare_args = {"compare", "out", "--pairs", "self_consistency:single", "--json"};
  const auto compare_before = run_parley(compare_args, dir);
  ASSERT_EQ(compare_before.exit_code, 0) << compare_before.err;

  // The writer: its debates wait on the slow model.
  const pid_t writer = start_parley({"run", "exp.yaml", "--out", "out", "--resume"}, dir, "writer");
  // It holds the lock once its id is in the lock file (the first run's id was there before).
  const std::string writer_pid = std::to_string(writer) + "\n";
  ASSERT_TRUE(wait_for([&] { return read_file(dir / "out/run.lock") == writer_pid; }, milliseconds(5000)));

  const auto second = run_parley({"run", "exp.yaml", "--out", "out", "--resume"}, dir);
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_EQ(second.err, "parley: out is in use by another parley process (process " + std::to_string(writer) +
                            "); wait for it to end, or choose another --out\n");
  const auto fresh = run_parley({"run", "exp.yaml", "--out", "out"}, dir);  // without --resume: the same
  EXPECT_EQ(fresh.exit_code, 2);
  EXPECT_NE(fresh.err.find("is in use by another parley process"), std::string::npos) << fresh.err;

  // Readers are not writers: they read what is stored while the run goes on.
  const auto report = run_parley({"report", "out", "--json"}, dir);
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.out, report_before.out);
  const auto compare = run_parley(compare_args, dir);
  EXPECT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_EQ(compare.out, compare_before.out);

  // The writer was untouched: it still runs, and stops as any run does.
  EXPECT_EQ(::waitpid(writer, nullptr, WNOHANG), 0);
  EXPECT_EQ(signal_and_wait(writer, SIGINT, kPrompt), std::optional<int>(130));
  const std::string writer_err = read_file(dir / "writer.stderr");
  EXPECT_NE(writer_err.find("parley: stopped: 10 debates are stored; 5 cut short"), std::string::npos) << writer_err;

  // The lock died with its process: the directory takes a writer again.
  const auto after = run_parley({"run", "exp.yaml", "--out", "out", "--resume", "--set", "models.1.delay_ms=0"}, dir);
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

}  // namespace
}  // namespace parley::testing
