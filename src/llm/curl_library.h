#pragma once
// libcurl, loaded the first time a transfer needs it. parley speaks plain http:// itself
// (native_http_transport.cc); libcurl serves https, proxies and names to look up. Linked
// normally, it and the thirty libraries it pulls in (TLS, Kerberos, LDAP, SSH, ...) were
// mapped and relocated at every start of every command: about 14 ms, a tenth of a short run.
// Loaded with dlopen instead, only the runs that reach such a URL pay for it.

#include <curl/curl.h>

#include <memory>

#include "parley/result.h"

namespace parley {

// The libcurl functions parley calls, resolved from one loaded library.
struct CurlLibrary {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_multi_setopt) multi_setopt;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_assign) multi_assign;
  decltype(&::curl_multi_socket_action) multi_socket_action;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_multi_strerror) multi_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

// Loads `soname` and resolves every function above; the Error says which could not be.
// The library stays loaded for the life of the process.
Result<std::unique_ptr<CurlLibrary>> load_curl_library(const char* soname);

// The process's libcurl ("libcurl.so.4"), loaded and curl_global_init'ed once, on first use.
// Throws std::runtime_error when it cannot be loaded.
const CurlLibrary& curl_library();

}  // namespace parley
