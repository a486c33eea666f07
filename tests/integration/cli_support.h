#pragma once
// Helpers for black-box tests that run the real `parley` binary: run a command line, capture
// stdout, stderr and the exit code, or start one and wait for it with a time limit; make a
// scratch directory.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace parley::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::filesystem::path parley_binary();      // the parley executable of this build
std::filesystem::path source_dir();         // the source tree
std::filesystem::path scratch_dir(const std::string& name);  // fresh, empty

// Where the child's stdout goes: captured into CommandResult::out, or somewhere a write fails
// (a full disk; a pipe whose reader has gone, with SIGPIPE at its default or ignored).
enum class StdoutTo { kCapture, kFullDisk, kClosedPipe, kClosedPipeSigpipeIgnored };

// Runs `parley args...` with the working directory `cwd`, stdin from /dev/null.
CommandResult run_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                         StdoutTo stdout_to = StdoutTo::kCapture);
// The same, but SIGKILLed as soon as `kill_when()` (polled every millisecond) returns true; the
// exit code is then 137.
CommandResult run_parley_killed_when(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                                     const std::function<bool()>& kill_when);

// Starts `parley args...` in `cwd` without waiting; its stdout and stderr go to
// cwd/<name>.stdout and cwd/<name>.stderr. Returns its process id.
pid_t start_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd, const std::string& name);
// Waits up to `timeout` for the process: its exit code (128 + signal when killed by one), or
// nothing when it is still running then (it is then killed with SIGKILL and reaped).
std::optional<int> wait_parley(pid_t pid, std::chrono::milliseconds timeout);

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace parley::testing
