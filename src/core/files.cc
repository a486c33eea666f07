#include "core/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace parley {

Result<std::string> read_input_file(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) return Error{"file not found"};
  if (ec) return Error{"cannot read: " + ec.message()};
  if (status.type() == std::filesystem::file_type::directory) return Error{"is a directory, not a file"};
  if (status.type() != std::filesystem::file_type::regular)
    return Error{"is not a regular file (a FIFO, device or socket cannot be read as input)"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open for reading"};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{"read error"};
  return text.str();
}

namespace {

std::string errno_text(int error) { return std::strerror(error); }

// write(2) until everything is written; EINTR is retried. Returns 0 or the errno.
int write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace

OutputFile::OutputFile(std::filesystem::path path) : path_(std::move(path)) {
  // The output goes to what `path` names: a symlink's target is replaced, not the link; a device
  // or FIFO (`--out /dev/stdout`) is written into directly, as there is nothing to replace.
  std::error_code ec;
  const auto type = std::filesystem::status(path_, ec).type();
  if (type == std::filesystem::file_type::character || type == std::filesystem::file_type::block ||
      type == std::filesystem::file_type::fifo || type == std::filesystem::file_type::socket) {
    direct_ = true;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) error_ = errno;
    return;
  }
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path_, ec))) {
    const auto target = std::filesystem::weakly_canonical(path_, ec);
    if (!ec) path_ = target;
  }
  static std::atomic<unsigned> counter{0};
  temporary_ = path_.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) error_ = errno;
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::append(std::string_view text) {
  constexpr std::size_t kBufferBytes = 1 << 16;
  buffer_.append(text);
  if (buffer_.size() >= kBufferBytes) flush_buffer();
}

void OutputFile::flush_buffer() {
  if (error_ == 0 && fd_ >= 0) error_ = write_all(fd_, buffer_);
  buffer_.clear();
}

Result<Ok> OutputFile::commit() {
  flush_buffer();
  // Data in the page cache can still fail to reach the disk: fsync and close say so.
  if (error_ == 0 && !direct_ && ::fsync(fd_) != 0) error_ = errno;
  if (fd_ >= 0 && ::close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
  if (error_ == 0 && !direct_ && ::rename(temporary_.c_str(), path_.c_str()) != 0) error_ = errno;
  if (error_ != 0) return Error{"cannot write: " + errno_text(error_)};
  temporary_.clear();  // renamed: nothing to remove
  return Ok{};
}

Result<Ok> write_output_file(const std::filesystem::path& path, std::string_view content) {
  OutputFile file(path);
  file.append(content);
  return file.commit();
}

}  // namespace parley
