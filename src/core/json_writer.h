#pragma once
// JsonWriter: compact JSON appended straight to a string, for the hot paths that write one
// record per debate (the store's transcript rows). It writes exactly the bytes
// nlohmann::json::dump() writes for the same values — numbers as nlohmann formats them,
// strings escaped as it does and invalid UTF-8 replaced by U+FFFD (error_handler_t::replace) —
// so switching a writer over changes no stored or exported byte. The caller keeps the shape
// right (a key before each value in an object); nothing is checked. Not thread-safe; cheap.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parley {

// Whether a byte goes into a JSON string as it is: printable ASCII other than '"' and '\\'.
constexpr bool is_plain_json_byte(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

// An object key written in the source, checked when the program is compiled to need no escaping
// (is_plain_json_byte), so writing it only copies bytes. Keys known only at run time go through
// JsonWriter::key_text.
class JsonKey {
 public:
  template <std::size_t N>
  consteval JsonKey(const char (&name)[N]) : name_(name, N - 1) {  // NOLINT: implicit by design
    for (char c : name_) {
      if (!is_plain_json_byte(static_cast<unsigned char>(c))) throw "a JsonKey literal must need no escaping";
    }
  }
  std::string_view name() const { return name_; }

 private:
  std::string_view name_;
};

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(JsonKey name);
  JsonWriter& key_text(std::string_view name);  // escaped as a string is, when it needs it

  JsonWriter& string(std::string_view text);
  JsonWriter& number(std::int64_t value);
  JsonWriter& number(std::uint64_t value);
  JsonWriter& number(int value) { return number(static_cast<std::int64_t>(value)); }
  JsonWriter& number(double value);  // non-finite values are written as null, as nlohmann does
  JsonWriter& boolean(bool value);
  JsonWriter& null();

 private:
  void separate();  // the comma before a value or key that is not its container's first
  void plain_key(std::string_view name);  // `name` needs no escaping

  std::string& out_;
  std::vector<unsigned char> first_;  // per open container: no element written yet (1)
  bool after_key_ = false;
};

// `text` as a JSON string literal, quotes included (JsonWriter::string's bytes).
void append_json_string(std::string& out, std::string_view text);

// `value` as nlohmann::json writes a double (JsonWriter::number's bytes): shortest round trip,
// ".0" on integral values, null when not finite.
void append_json_double(std::string& out, double value);

}  // namespace parley
