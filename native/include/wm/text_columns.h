// Text tables parsed into native columns: lines of vertex ids and numbers
// (TSV, CSV, SNAP edge lists, OGB's csv files), fed in chunks of any size
// (a file read or inflated piece by piece) and parsed in parallel a chunk at a
// time. Every error names the source and line. The columns are PageArrays the
// caller takes, so a 3-billion-line file never passes through JavaScript.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "wm/page_array.h"

namespace wm {
namespace host {

struct TextColumnsSpec {
  int ids = 0;               // leading columns of vertex ids: decimal digits, at most 2^31 - 2
  int values = 0;            // then columns of numbers; -1: as many as the first row holds
  bool doubles = false;      // numbers kept as float64 (else float32)
  bool nanValues = false;    // "nan" reads as NaN (else every number must be finite)
  bool blankRows = false;    // an empty line is a row of NaN (a row per line: OGB's label files)
  bool comments = false;     // lines starting with '#' or '%' are comments (the first 64 are kept)
  bool extraFields = false;  // fields past the columns are allowed and ignored
  int64_t idBound = -1;      // ids must be below this; -1: any id up to 2^31 - 2
};

class TextColumns {
 public:
  // `name` (a file path) starts every error message.
  TextColumns(const TextColumnsSpec& spec, std::string name);
  ~TextColumns();

  // Parses the complete lines of bytes [p, p + n) and keeps a partial last line for the next call.
  void push(const char* p, size_t n);
  // Parses what is left (a last line without a newline). Further pushes are refused.
  void finish();

  int64_t rows() const { return rows_; }
  int64_t lines() const { return lines_; }
  // Numbers per row (-1 before the first row when the spec says "as many as the first row").
  int width() const { return width_; }
  // Whether the numbers are kept as float64 (the spec's doubles).
  bool doubles() const { return spec_.doubles; }
  // The largest id read in any id column and the line it was first seen on (-1, 0 before any).
  int64_t maxId() const { return maxId_; }
  int64_t maxIdLine() const { return maxIdLine_; }
  // Rows holding fields past the columns (read only with extraFields, which ignores them) and the first one's line.
  int64_t extraRows() const { return extraRows_; }
  int64_t extraLine() const { return extraLine_; }
  const std::vector<std::string>& comments() const { return comments_; }

  // The column's pages: rows() int32 ids, or rows() * width() numbers (float32 or float64). Each
  // may be taken once.
  PageArray takeIds(int column);
  PageArray takeValues();

 private:
  struct Part;
  void parseRange(const char* b, const char* e, Part& out) const;
  void append(Part& part, int64_t firstLine);
  void parseSequential(const char* b, const char* e);
  void parseTail();
  const char* firstRowSetsWidth(const char* b, const char* e);
  [[noreturn]] void failAt(int64_t line, const std::string& what) const;

  TextColumnsSpec spec_;
  std::string name_;
  std::string tail_;
  bool finished_ = false;
  int width_;
  int64_t rows_ = 0, lines_ = 0, maxId_ = -1, maxIdLine_ = 0, extraRows_ = 0, extraLine_ = 0;
  std::vector<PageArray> ids_;
  std::vector<bool> taken_;
  PageArray values_;
  bool valuesTaken_ = false;
  std::vector<std::string> comments_;
  std::vector<Part> parts_;
};

}  // namespace host
}  // namespace wm
