#pragma once
// Test helpers for parley_data: a scratch directory removed at the end of the test, and a
// reader runner that collects the tasks and issues from one text.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

#include "data/readers.h"

namespace parley::data {

class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("parley-data-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes `bytes` exactly (binary) and returns the file's path.
  std::filesystem::path write(const std::string& name, std::string_view bytes) const {
    const auto file = path_ / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

template <class Reader>
Dataset read_with(Reader reader, std::string_view text, std::optional<std::size_t> limit = std::nullopt) {
  DatasetBuilder builder(limit);
  reader(text, builder);
  return builder.take();
}

}  // namespace parley::data
