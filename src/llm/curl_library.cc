#include "curl_library.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace parley {
namespace {

// Resolves `name` into `function`; false (with `missing` set) when the library lacks it.
template <class Function>
bool resolve(void* library, const char* name, Function& function, std::string& missing) {
  void* symbol = ::dlsym(library, name);
  if (symbol == nullptr) {
    missing = name;
    return false;
  }
  function = reinterpret_cast<Function>(symbol);
  return true;
}

}  // namespace

Result<std::unique_ptr<CurlLibrary>> load_curl_library(const char* soname) {
  void* library = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    return Error{std::string("cannot load libcurl (") + soname + "): " + (why != nullptr ? why : "unknown error")};
  }
  auto curl = std::make_unique<CurlLibrary>();
  std::string missing;
  const bool complete = resolve(library, "curl_global_init", curl->global_init, missing) &&
                        resolve(library, "curl_easy_init", curl->easy_init, missing) &&
                        resolve(library, "curl_easy_cleanup", curl->easy_cleanup, missing) &&
                        resolve(library, "curl_easy_setopt", curl->easy_setopt, missing) &&
                        resolve(library, "curl_easy_getinfo", curl->easy_getinfo, missing) &&
                        resolve(library, "curl_easy_strerror", curl->easy_strerror, missing) &&
                        resolve(library, "curl_multi_init", curl->multi_init, missing) &&
                        resolve(library, "curl_multi_cleanup", curl->multi_cleanup, missing) &&
                        resolve(library, "curl_multi_setopt", curl->multi_setopt, missing) &&
                        resolve(library, "curl_multi_add_handle", curl->multi_add_handle, missing) &&
                        resolve(library, "curl_multi_remove_handle", curl->multi_remove_handle, missing) &&
                        resolve(library, "curl_multi_assign", curl->multi_assign, missing) &&
                        resolve(library, "curl_multi_socket_action", curl->multi_socket_action, missing) &&
                        resolve(library, "curl_multi_info_read", curl->multi_info_read, missing) &&
                        resolve(library, "curl_multi_strerror", curl->multi_strerror, missing) &&
                        resolve(library, "curl_slist_append", curl->slist_append, missing) &&
                        resolve(library, "curl_slist_free_all", curl->slist_free_all, missing);
  if (!complete) {
    ::dlclose(library);
    return Error{std::string(soname) + " is not a usable libcurl: it has no " + missing};
  }
  return curl;
}

const CurlLibrary& curl_library() {
  // Function-local statics are initialised once, thread-safely; a failure is remembered.
  static const Result<std::unique_ptr<CurlLibrary>> loaded = [] {
    auto curl = load_curl_library("libcurl.so.4");
    if (curl) (*curl)->global_init(CURL_GLOBAL_DEFAULT);
    return curl;
  }();
  if (!loaded) throw std::runtime_error(loaded.error().message + " (https://, proxies and host names need it)");
  return *loaded.value();
}

}  // namespace parley
