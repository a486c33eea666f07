#include "core/files.h"

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

}  // namespace parley
