#include "integration/cli_support.h"
#include "scratch_files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace parley::testing {

// Both paths are compiled in by tests/integration/CMakeLists.txt.
std::filesystem::path parley_binary() { return PARLEY_BINARY; }

std::filesystem::path source_dir() { return PARLEY_SOURCE_DIR; }

std::filesystem::path scratch_dir(const std::string& name) { return fresh_scratch_dir("parley-it", name); }

std::string read_file(const std::filesystem::path& path) { return file_text(path); }

void write_file(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

namespace {

// Starts `parley args...` in `cwd` with stdin from /dev/null, stderr to `err_path` and stdout to
// `out_path` or as `stdout_to` says.
pid_t spawn_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd, StdoutTo stdout_to,
                   const std::filesystem::path& out_path, const std::filesystem::path& err_path) {
  int pipe_ends[2] = {-1, -1};
  if (stdout_to == StdoutTo::kClosedPipe || stdout_to == StdoutTo::kClosedPipeSigpipeIgnored) {
    if (::pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
    ::close(pipe_ends[0]);  // nobody will ever read: every write gets SIGPIPE / EPIPE
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) ::_exit(127);
    const int in = ::open("/dev/null", O_RDONLY);
    int out = -1;
    switch (stdout_to) {
      case StdoutTo::kCapture: out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644); break;
      case StdoutTo::kFullDisk: out = ::open("/dev/full", O_WRONLY); break;
      case StdoutTo::kClosedPipeSigpipeIgnored: ::signal(SIGPIPE, SIG_IGN); [[fallthrough]];  // kept across exec
      case StdoutTo::kClosedPipe: out = pipe_ends[1]; break;
    }
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    const std::string binary = parley_binary().string();
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  if (pipe_ends[1] >= 0) ::close(pipe_ends[1]);
  return pid;
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

CommandResult wait_for_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                              StdoutTo stdout_to, const std::function<bool()>& kill_when) {
  const pid_t pid = spawn_parley(args, cwd, stdout_to, cwd / ".stdout", cwd / ".stderr");
  int status = 0;
  if (!kill_when) {
    ::waitpid(pid, &status, 0);
  } else {
    while (::waitpid(pid, &status, WNOHANG) != pid) {
      if (kill_when()) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  CommandResult result;
  result.exit_code = exit_code_of(status);
  if (stdout_to == StdoutTo::kCapture) result.out = read_file(cwd / ".stdout");
  result.err = read_file(cwd / ".stderr");
  return result;
}

}  // namespace

pid_t start_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd, const std::string& name) {
  return spawn_parley(args, cwd, StdoutTo::kCapture, cwd / (name + ".stdout"), cwd / (name + ".stderr"));
}

std::optional<int> wait_parley(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return exit_code_of(status);
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return std::nullopt;
}

CommandResult run_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                         StdoutTo stdout_to) {
  return wait_for_parley(args, cwd, stdout_to, nullptr);
}

CommandResult run_parley_killed_when(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                                     const std::function<bool()>& kill_when) {
  return wait_for_parley(args, cwd, StdoutTo::kCapture, kill_when);
}

}  // namespace parley::testing
