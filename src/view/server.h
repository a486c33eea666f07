#pragma once
// The viewer's server with its parts named (internal to src/view): where its static assets come
// from. parley::Viewer::open serves the assets built into the binary (web::find_asset); a test
// may give its own.

#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>

#include "parley/viewer.h"
#include "web/assets.h"

namespace parley::view {

// A static file of the viewer's front end, as it is served (src/web: built into the binary).
using Asset = web::Asset;

// The asset named `name` ("viewer.html", "viewer.js", ...), or nullptr: the fixed table of what
// the server sends under / and /assets/NAME.
using AssetLookup = std::function<const Asset*(std::string_view name)>;

Result<std::unique_ptr<Viewer>> open_viewer(const std::filesystem::path& run_dir, const IndexProgress& progress,
                                            AssetLookup assets);

}  // namespace parley::view
