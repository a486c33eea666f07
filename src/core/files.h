#pragma once
// Reading an input file (an experiment, a dataset, a parameter or model file) whole. Only a
// regular file is read: a directory, FIFO, device or socket is refused before it is opened, so
// a wrong path cannot hang a run or fill its memory. Errors are one line without the path, for
// the caller to prefix: "file not found", "is a directory, not a file", ...

#include <filesystem>
#include <string>

#include "parley/result.h"

namespace parley {

Result<std::string> read_input_file(const std::filesystem::path& path);

}  // namespace parley
