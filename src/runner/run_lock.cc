#include "runner/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace parley {
namespace {

// The holder's process id as it wrote it ("" if it has not yet, or the file is unreadable).
std::string holder_pid(int fd) {
  char buffer[32] = {};
  const ssize_t read = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string pid(buffer, read > 0 ? static_cast<std::size_t>(read) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

Result<RunLock> RunLock::acquire(const std::filesystem::path& dir, std::string_view elsewhere) {
  const auto path = dir / "run.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error{fmt::format("{}: cannot create the run's lock file: {}", path.string(), std::strerror(errno))};
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string pid = holder_pid(fd);
    ::close(fd);
    if (error != EWOULDBLOCK) {
      return Error{fmt::format("{}: cannot lock the run directory: {}", path.string(), std::strerror(error))};
    }
    return Error{fmt::format("{} is in use by another parley process{}; wait for it to end, or {}", dir.string(),
                             pid.empty() ? "" : fmt::format(" (process {})", pid), elsewhere)};
  }
  // The id is for the message above only; the lock itself is the flock.
  const std::string pid = std::to_string(::getpid()) + "\n";
  const bool noted =
      ::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
  (void)noted;  // without the id the lock still excludes other writers; only the message loses it
  return RunLock(fd);
}

RunLock::RunLock(RunLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace parley
