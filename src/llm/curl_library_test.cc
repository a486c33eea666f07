// curl_library: libcurl found and usable through the loaded functions; a missing library or one
// that is not libcurl is an error that names it.
#include "curl_library.h"
#include "parley/llm_client.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include <string>

namespace parley {
namespace {

TEST(CurlLibrary, TheSystemLibcurlLoadsAndWorks) {
  const CurlLibrary& curl = curl_library();
  EXPECT_EQ(&curl, &curl_library());  // loaded once
  CURL* easy = curl.easy_init();
  ASSERT_NE(easy, nullptr);
  EXPECT_EQ(curl.easy_setopt(easy, CURLOPT_URL, "http://127.0.0.1:1/"), CURLE_OK);
  EXPECT_EQ(std::string(curl.easy_strerror(CURLE_COULDNT_CONNECT)), "Couldn't connect to server");
  curl_slist* list = curl.slist_append(nullptr, "Expect:");
  ASSERT_NE(list, nullptr);
  EXPECT_STREQ(list->data, "Expect:");
  curl.slist_free_all(list);
  curl.easy_cleanup(easy);
}

TEST(CurlLibrary, AMissingLibraryIsAnErrorNamingIt) {
  auto curl = load_curl_library("libparley-no-such-curl.so.4");
  ASSERT_FALSE(curl);
  EXPECT_NE(curl.error().message.find("cannot load libcurl (libparley-no-such-curl.so.4)"), std::string::npos)
      << curl.error().message;
}

TEST(CurlLibrary, ALibraryThatIsNotLibcurlIsRefused) {
  auto curl = load_curl_library("libm.so.6");
  ASSERT_FALSE(curl);
  EXPECT_EQ(curl.error().message, "libm.so.6 is not a usable libcurl: it has no curl_global_init");
}

TEST(CheckHttpTransport, URLsForEitherTransportAreSendableWhereLibcurlLoads) {
  ::unsetenv("PARLEY_HTTP_TRANSPORT");
  EXPECT_TRUE(check_http_transport_for("http://127.0.0.1:8000/v1"));   // the native transport
  EXPECT_TRUE(check_http_transport_for("https://api.example.com/v1"));  // libcurl, loadable here
  ::setenv("PARLEY_HTTP_TRANSPORT", "carrier-pigeon", 1);
  EXPECT_THROW((void)check_http_transport_for("http://127.0.0.1:8000/v1"), std::invalid_argument);
  ::unsetenv("PARLEY_HTTP_TRANSPORT");
}

}  // namespace
}  // namespace parley
