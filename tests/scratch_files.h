#pragma once
// Scratch files for tests: a fresh directory per test and a file's whole text.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace parley::testing {

// temp/<prefix>-<pid>-<name>, emptied and created.
inline std::filesystem::path fresh_scratch_dir(const std::string& prefix, const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The file's text; "" when it cannot be read.
inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace parley::testing
