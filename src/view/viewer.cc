// Viewer::open: the server with the front end built into the binary.
#include "view/server.h"

namespace parley {

Result<std::unique_ptr<Viewer>> Viewer::open(const std::filesystem::path& run_dir, const IndexProgress& progress) {
  // The front end's files arrive with src/web (parley_web); until then the API alone is served.
  return view::open_viewer(run_dir, progress, [](std::string_view) -> const view::Asset* { return nullptr; });
}

}  // namespace parley
