// Knowledge graphs in the benchmarks' text files, read natively: triple files (`head<TAB>relation<TAB>tail`
// a line) and dictionaries (`id<TAB>name` a line), fed in chunks of any size (a file read or inflated piece
// by piece), each name interned once in a NameIndex: its bytes kept in one block in id order, found again
// through an open-addressing table. Freebase's 86M entity names take about a gigabyte here, where strings
// of a JavaScript heap would take several. Every error names the file and line.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "wm/page_array.h"

namespace wm {
namespace host {

// Names to ids 0, 1, ... in the order added.
class NameIndex {
 public:
  // `noun` and `nouns` ("entity", "entities") word the errors.
  NameIndex(std::string noun, std::string nouns);

  int64_t size() const { return count_; }
  const std::string& noun() const { return noun_; }
  const std::string& nouns() const { return nouns_; }
  // The hash find and add take (of the name's bytes).
  static uint64_t hashOf(const char* b, size_t n);
  // The id of the name [b, b + n) of hash h, or -1.
  int32_t find(const char* b, size_t n, uint64_t h) const;
  // A new id for a name not held; `where` ("file:line") starts the error past 2^31 - 1 names.
  int32_t add(const char* b, size_t n, uint64_t h, const std::string& where);
  // Hints for a batch of finds (memory fetched ahead, nothing changed): the name's first slot; then the
  // offsets of the name it holds; then that name's bytes. Each stage reads what the one before fetched.
  void fetchSlot(uint64_t h) const;
  void fetchStart(uint64_t h) const;
  void fetchBytes(uint64_t h) const;
  // Whether names can still be added (a dictionary fixes them).
  bool fixed = false;

  // Every name followed by '\n', in id order; and where each starts (size() + 1 offsets, the last the
  // byte count), as float64 (exact below 2^53).
  PageArray copyBytes() const;
  PageArray copyStarts() const;
  std::string name(int32_t id) const;

 private:
  void grow();
  std::string noun_, nouns_;
  int64_t count_ = 0;
  PageArray bytes_;   // names, each then '\n'
  PageArray starts_;  // int64 offsets, count_ + 1 used
  // Slots of (hash's high 32 bits << 32 | id + 1); 0 is empty. A power of two, at most 3/4 full.
  std::vector<uint64_t> slots_;
};

enum class KgFile { kTriples, kEntityDictionary, kRelationDictionary };

class KgText {
 public:
  KgText();

  // Starts a file (`name` starts its errors): triples map names through the indexes (adding names
  // unless a dictionary fixed them); a dictionary fills its index and fixes it. One file at a time.
  void begin(const std::string& name, KgFile kind);
  // Parses the complete lines of [p, p + n); a partial last line waits for the next call.
  void push(const char* p, size_t n);
  // Parses what is left; a dictionary's ids are checked (0..n-1, each once) and its index filled.
  void finish();
  // The triple file's rows and its columns (0 heads, 1 relations, 2 tails: int32), each taken once.
  int64_t rows() const { return rows_; }
  PageArray takeColumn(int k);

  NameIndex& index(bool entities) { return entities ? entities_ : relations_; }

 private:
  // A line's fields, held until its batch is resolved (the bytes stay valid until then).
  struct Line {
    int64_t no;
    int fields;  // as many as the line has; the first three kept
    const char* b[3];
    const char* e[3];
    uint64_t h[3];
  };
  void line(const char* b, const char* e);
  // Names of the held lines looked up in order (their memory fetched ahead first), then the batch emptied.
  void flush();
  void triple(const Line& l);
  void entry(const Line& l);
  [[noreturn]] void failAt(const std::string& what) const;
  std::string at() const;

  NameIndex entities_, relations_;
  std::string file_;
  KgFile kind_ = KgFile::kTriples;
  bool open_ = false;
  std::string tail_;
  int64_t lineNo_ = 0, rows_ = 0;
  PageArray columns_[3];
  bool taken_[3] = {false, false, false};
  std::vector<Line> batch_;
  // A dictionary being read: its names in file order, the id each line gave and the line.
  NameIndex read_{"", ""};
  std::vector<int32_t> givenIds_;
  std::vector<int64_t> givenLines_;
};

}  // namespace host
}  // namespace wm
