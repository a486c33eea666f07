#pragma once
// What the store's SQLite code shares (internal to src/store): a prepared statement that is
// finalized with its scope, and the seed's storage form. Used from the thread that owns the
// connection.

#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace parley {

// Seeds are uint64; SQLite integers are int64. Stored bit-for-bit.
inline std::int64_t seed_to_sql(std::uint64_t seed) {
  std::int64_t v;
  std::memcpy(&v, &seed, sizeof v);
  return v;
}
inline std::uint64_t seed_from_sql(std::int64_t v) {
  std::uint64_t seed;
  std::memcpy(&seed, &v, sizeof seed);
  return seed;
}

// A prepared statement, finalized on scope exit. One kept for reuse is reset after each use.
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  Statement(sqlite3* db, const std::string& sql) : Statement(db, sql.c_str()) {}
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}
  Statement& operator=(Statement&& other) noexcept {
    std::swap(stmt_, other.stmt_);
    return *this;
  }
  sqlite3_stmt* get() const { return stmt_; }
  explicit operator bool() const { return stmt_ != nullptr; }
  void bind(int i, std::string_view text) { sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT); }
  // Binds without a copy: `text` must outlive the statement's next step().
  void bind_borrowed(int i, std::string_view text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
  void bind(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void bind_null(int i) { sqlite3_bind_null(stmt_, i); }
  int step() { return sqlite3_step(stmt_); }
  // Ready for the next use: bindings cleared, so no borrowed text is referenced after it.
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string text(int column) const { return std::string(view(column)); }
  // Valid until the next step() or reset().
  std::string_view view(int column) const {
    const auto* p = sqlite3_column_text(stmt_, column);
    return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string_view();
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace parley
