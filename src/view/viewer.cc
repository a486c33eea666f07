// Viewer::open: the server with the front end built into the binary.
#include "view/server.h"
#include "web/assets.h"

namespace parley {

Result<std::unique_ptr<Viewer>> Viewer::open(const std::filesystem::path& run_dir, const IndexProgress& progress) {
  return view::open_viewer(run_dir, progress, web::find_asset);
}

}  // namespace parley
