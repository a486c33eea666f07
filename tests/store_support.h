#pragma once
// Stores made behind parley's back, for store and viewer tests: a store as a version-2 parley
// wrote it (no debate index), and one SQL statement run on a store's file.

#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "parley/store.h"

namespace parley::testing {

// Runs `sql` (one or more statements) on the file at `path`.
inline void tamper(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

// The rows `sql` gives on the file at `path`, each column as text ("NULL" for a null).
inline std::vector<std::vector<std::string>> query(const std::filesystem::path& path, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  while (stmt && sqlite3_step(stmt) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const auto* text = sqlite3_column_text(stmt, i);
      row.push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

// The store a version-2 parley wrote for `transcripts`: meta and debates only, stamped 2.
inline void write_version_2_store(const std::filesystem::path& path, const std::vector<Transcript>& transcripts) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* schema =
      "PRAGMA journal_mode=WAL;"
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE debates (task_id TEXT NOT NULL, protocol TEXT NOT NULL, seed INTEGER NOT NULL,"
      " status TEXT NOT NULL, correct INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,"
      " completion_tokens INTEGER NOT NULL, calls INTEGER NOT NULL, transcript TEXT NOT NULL,"
      " PRIMARY KEY (task_id, protocol, seed));"
      "INSERT INTO meta VALUES ('schema_version', '2');";
  ASSERT_EQ(sqlite3_exec(db, schema, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_stmt* insert = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO debates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &insert, nullptr),
            SQLITE_OK);
  for (const Transcript& t : transcripts) {
    const std::string json = transcript_to_json(t);
    sqlite3_bind_text(insert, 1, t.task_id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 2, t.protocol.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 3, static_cast<sqlite3_int64>(t.seed));
    sqlite3_bind_text(insert, 4, debate_status_name(t.status), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(insert, 5, t.correct ? 1 : 0);
    sqlite3_bind_int64(insert, 6, t.prompt_tokens());
    sqlite3_bind_int64(insert, 7, t.completion_tokens());
    sqlite3_bind_int64(insert, 8, t.calls());
    sqlite3_bind_text(insert, 9, json.c_str(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(insert), SQLITE_DONE) << sqlite3_errmsg(db);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  sqlite3_close(db);
}

}  // namespace parley::testing
