#pragma once
// Whole-file input and output at the edges of parley.
// Reading: only a regular file is read; a directory, FIFO, device or socket is refused before
// it is opened, so a wrong path cannot hang a run or fill its memory.
// Writing: an output (summary.json, transcripts.jsonl, a trigger model, an examples file) is
// written to a temporary file beside it, synced and renamed over the target, so a full disk or
// an I/O error is reported and never leaves a truncated file where a complete one was. A
// symlink's target is what gets replaced; a device or FIFO is written into directly.
// Errors are one line without the path, for the caller to prefix: "file not found",
// "is a directory, not a file", "No space left on device", ...

#include <filesystem>
#include <string>
#include <string_view>

#include "parley/result.h"

namespace parley {

Result<std::string> read_input_file(const std::filesystem::path& path);

// An output file written in pieces: append() buffers, commit() syncs and renames the
// temporary over `path`. Without commit() (an error, an exception) the temporary is removed and
// `path` is untouched. The first write error is kept and returned by commit().
class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void append(std::string_view text);
  Result<Ok> commit();

 private:
  void flush_buffer();

  std::filesystem::path path_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  int error_ = 0;        // the first errno seen
  bool direct_ = false;  // a device or FIFO, written into as it is
  std::string buffer_;
};

// The whole of `content` as one OutputFile.
Result<Ok> write_output_file(const std::filesystem::path& path, std::string_view content);

}  // namespace parley
