#include "core/json_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/hash.h"

namespace parley {
namespace {

std::string written_string(std::string_view text) {
  std::string out;
  JsonWriter(out).string(text);
  return out;
}

std::string nlohmann_string(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string written_number(double value) {
  std::string out;
  JsonWriter(out).number(value);
  return out;
}

TEST(JsonWriter, WritesCompactNestedValues) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("a").begin_array().number(1).number(2.5).null().boolean(true).end_array();
  w.key("b").begin_object().end_object();
  w.key("c").begin_array().end_array();
  w.key("d").begin_array().begin_object().key("x").string("y").end_object().begin_object().end_object().end_array();
  w.key("e").number(std::uint64_t{18446744073709551615ULL});
  w.key("f").number(std::int64_t{-9223372036854775807LL - 1});
  w.key_text("g\"\n\xC3\xA9").number(0.5);  // a key is escaped as a string is
  w.end_object();
  EXPECT_EQ(out,
            R"({"a":[1,2.5,null,true],"b":{},"c":[],"d":[{"x":"y"},{}],"e":18446744073709551615,)"
            "\"f\":-9223372036854775808,\"g\\\"\\n\xC3\xA9\":0.5}");
}

TEST(JsonWriter, KeysOfAnyLengthAreWrittenWhole) {
  for (std::size_t length : {0u, 1u, 59u, 60u, 61u, 200u}) {
    const std::string name(length, 'k');
    std::string out;
    JsonWriter(out).begin_object().key_text(name).null().end_object();
    EXPECT_EQ(out, "{\"" + name + "\":null}") << length;
  }
  // Keys made only of bytes that need escapes are escaped too.
  for (const std::string name : {"\"", "\\", "\"\""}) {
    std::string out;
    JsonWriter(out).begin_object().key_text(name).null().end_object();
    EXPECT_EQ(out, "{" + nlohmann_string(name) + ":null}") << name;
  }
}

TEST(JsonWriter, EscapesAsJsonRequires) {
  EXPECT_EQ(written_string("plain"), R"("plain")");
  EXPECT_EQ(written_string("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(written_string("\b\t\n\f\r"), R"("\b\t\n\f\r")");
  EXPECT_EQ(written_string(std::string_view("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
  EXPECT_EQ(written_string("caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80"), "\"caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80\"");
}

TEST(JsonWriter, ReplacesInvalidUtf8AsNlohmannDoes) {
  // A lone continuation byte, a truncated sequence, an overlong form, a surrogate, a code point
  // above U+10FFFF, and a cut-off sequence at the end: each becomes U+FFFD.
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(written_string("a\x80z"), "\"a" + replacement + "z\"");
  EXPECT_EQ(written_string("\xC0\xAF"), nlohmann_string("\xC0\xAF"));
  EXPECT_EQ(written_string("\xED\xA0\x80"), nlohmann_string("\xED\xA0\x80"));
  EXPECT_EQ(written_string("\xF4\x90\x80\x80"), nlohmann_string("\xF4\x90\x80\x80"));
  EXPECT_EQ(written_string("ok\xE2\x80"), nlohmann_string("ok\xE2\x80"));
  EXPECT_EQ(written_string("\xE2\x28\xA1"), nlohmann_string("\xE2\x28\xA1"));
  // A bad byte inside a sequence is found there, not next to it: a continuation byte before the
  // lead byte, or one after the sequence, does not make it whole.
  EXPECT_EQ(written_string("\xC3\xA9\xC3\x41"), "\"\xC3\xA9" + replacement + "A\"");
  EXPECT_EQ(written_string("\xE2\x80\x41\x80"), nlohmann_string("\xE2\x80\x41\x80"));
  EXPECT_NE(written_string("\xE2\x80\x41\x80").find('A'), std::string::npos);
}

TEST(JsonWriter, StringsMatchNlohmannOnRandomBytes) {
  Rng rng(7);
  for (int n = 0; n < 20000; ++n) {
    std::string text(rng.below(24), '\0');
    // Mostly ASCII with some high bytes, so that valid and invalid sequences both occur.
    for (char& c : text) c = static_cast<char>(rng.uniform() < 0.7 ? rng.below(128) : 0x80 + rng.below(128));
    if (n % 3 == 0 && !text.empty()) {  // and some well-formed multi-byte characters
      const char* samples[] = {"\xC3\xA9", "\xE2\x80\x94", "\xF0\x9F\x98\x80", "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF"};
      text.insert(rng.below(text.size()), samples[rng.below(5)]);
    }
    ASSERT_EQ(written_string(text), nlohmann_string(text)) << "input bytes: " << nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  }
}

// Long plain runs with a rare byte that needs attention at every offset of a 16-byte block:
// the block scan must stop exactly there, and resume after it.
TEST(JsonWriter, StringsMatchNlohmannOnLongPlainTextWithRareSpecials) {
  Rng rng(11);
  const char* specials[] = {"\"", "\\", "\n", "\x01", "\x1F", "\x7F", "\xC3\xA9", "\xE2\x80\x94", "\xF0\x9F\x98\x80",
                            "\xC3", "\xFF"};
  for (int n = 0; n < 5000; ++n) {
    std::string text(rng.below(90), 'x');
    for (char& c : text) c = static_cast<char>(0x20 + rng.below(0x5F));  // printable ASCII, may hit '"' or '\\'
    for (std::uint64_t k = rng.below(3); k > 0; --k) text.insert(rng.below(text.size() + 1), specials[rng.below(std::size(specials))]);
    ASSERT_EQ(written_string(text), nlohmann_string(text)) << nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  }
}

TEST(JsonWriter, NumbersMatchNlohmann) {
  EXPECT_EQ(written_number(0.0), "0.0");
  EXPECT_EQ(written_number(-0.0), "-0.0");
  EXPECT_EQ(written_number(12.0), "12.0");
  EXPECT_EQ(written_number(0.1), "0.1");
  EXPECT_EQ(written_number(1e-7), "1e-07");
  EXPECT_EQ(written_number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(written_number(std::numeric_limits<double>::quiet_NaN()), "null");
  Rng rng(11);
  for (int n = 0; n < 20000; ++n) {
    double value;
    if (n % 2 == 0) {
      const std::uint64_t bits = rng.next();
      std::memcpy(&value, &bits, sizeof value);
    } else {
      value = rng.uniform(-1e6, 1e6);
    }
    ASSERT_EQ(written_number(value), nlohmann::json(value).dump()) << value;
  }
}

}  // namespace
}  // namespace parley
