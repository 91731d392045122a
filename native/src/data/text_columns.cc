// TextColumns (wm/text_columns.h). A chunk's complete lines are cut into as
// many parts as there are threads (at line breaks); each part parses into its
// own vectors and counts its lines, and the parts are appended in order, so
// rows keep the file's order and errors name the file's line.
#include "wm/text_columns.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "runtime/parallel.h"
#include "wm/status.h"

namespace wm {
namespace host {

namespace {

constexpr int64_t kMaxId = 2147483646;  // ids index int32 arrays of ids + 1 vertices
constexpr size_t kMaxLine = size_t{256} << 20;
constexpr size_t kMaxComments = 64, kMaxCommentBytes = 4096;
constexpr size_t kPartBytes = size_t{1} << 18;

bool isSeparator(char c) { return c == ' ' || c == '\t' || c == ','; }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The line [b, e) without its surrounding blanks.
void trim(const char*& b, const char*& e) {
  while (b < e && isSpace(*b)) ++b;
  while (e > b && isSpace(e[-1])) --e;
}

// The field starting at q (separators skipped first); q moves past it.
bool nextField(const char*& q, const char* e, const char*& fb, const char*& fe) {
  while (q < e && isSeparator(*q)) ++q;
  if (q == e) return false;
  fb = q;
  while (q < e && !isSeparator(*q)) ++q;
  fe = q;
  return true;
}

int64_t countFields(const char* q, const char* e) {
  int64_t n = 0;
  const char *fb, *fe;
  while (nextField(q, e, fb, fe)) ++n;
  return n;
}

std::string quoted(const char* b, const char* e) {
  const size_t n = static_cast<size_t>(e - b);
  return "\"" + std::string(b, std::min<size_t>(n, 200)) + (n > 200 ? "…" : "") + "\"";
}

// Decimals as most tables write them ("-0.1234", "17", "3.5"): at most 15 significant digits and no
// exponent are exact in a double's mantissa, so one division by a power of ten rounds once, as
// from_chars does. Anything else (exponents, long mantissas, nan) goes to from_chars.
bool parsePlainDecimal(const char* b, const char* e, double& out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const bool negative = b < e && *b == '-';
  if (negative) ++b;
  if (b == e) return false;
  uint64_t m = 0;
  int digits = 0, fraction = 0;
  bool point = false, anyDigit = false;
  for (; b < e; ++b) {
    const char c = *b;
    if (c >= '0' && c <= '9') {
      anyDigit = true;
      if (m == 0 && c == '0' && !point) continue;  // leading zeros carry nothing
      m = m * 10 + static_cast<uint64_t>(c - '0');
      if (++digits > 15) return false;
      fraction += point;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return false;
    }
  }
  if (!anyDigit) return false;  // "." or "-.": from_chars refuses them
  const double x = static_cast<double>(m) / kPow10[fraction];
  out = negative ? -x : x;
  return true;
}

std::string idCountWords(int n) { return n == 1 ? "a vertex id" : n == 2 ? "two vertex ids" : std::to_string(n) + " vertex ids"; }

void growTo(PageArray& a, size_t bytes, const std::string& what) {
  if (bytes > a.capacity()) a.reserve(std::max({bytes, 2 * a.capacity(), size_t{1} << 20}), what);
  a.resize(bytes);
}

}  // namespace

struct TextColumns::Part {
  std::vector<std::vector<int32_t>> ids;
  std::vector<float> floats;
  std::vector<double> doubles;
  int64_t lines = 0, rows = 0;
  int64_t maxId = -1, maxIdLine = 0;
  int64_t extraRows = 0, extraLine = 0;  // rows with fields past the columns (extraFields), and the first one's line
  int64_t errorLine = 0;                 // 0: no error
  std::string error;
  std::vector<std::pair<int64_t, std::string>> comments;

  // Empties the part, keeping its vectors' memory.
  void clear() {
    for (auto& v : ids) v.clear();
    floats.clear();
    doubles.clear();
    lines = rows = 0;
    maxId = -1;
    maxIdLine = errorLine = extraRows = extraLine = 0;
    error.clear();
    comments.clear();
  }
};

TextColumns::~TextColumns() = default;

TextColumns::TextColumns(const TextColumnsSpec& spec, std::string name)
    : spec_(spec), name_(std::move(name)), width_(spec.values), ids_(static_cast<size_t>(std::max(0, spec.ids))), taken_(ids_.size()) {
  WM_REQUIRE(spec.ids >= 0 && spec.ids <= 16, "TextColumns: ids must be in [0, 16]");
  WM_REQUIRE(spec.values >= -1, "TextColumns: values must be -1 (as the first row) or a count");
  WM_REQUIRE(spec.ids > 0 || spec.values != 0, "TextColumns: a row needs at least one column");
  WM_REQUIRE(!spec.blankRows || (spec.ids == 0 && spec.values > 0 && spec.nanValues),
             "TextColumns: blank rows need a fixed count of values, no ids, and NaN allowed");
  WM_REQUIRE(spec.idBound >= -1 && spec.idBound <= kMaxId + 1, "TextColumns: idBound must be in [-1, 2^31 - 1]");
}

void TextColumns::failAt(int64_t line, const std::string& what) const { fail(name_ + ":" + std::to_string(line) + ": " + what); }

void TextColumns::parseRange(const char* b, const char* e, Part& out) const {
  const int nIds = spec_.ids, width = width_;
  out.ids.resize(static_cast<size_t>(nIds));
  const int64_t bound = spec_.idBound < 0 ? kMaxId + 1 : spec_.idBound;
  const auto bad = [&](const std::string& what) {
    out.errorLine = out.lines;
    out.error = what;
  };
  while (b < e) {
    const char* nl = static_cast<const char*>(std::memchr(b, '\n', static_cast<size_t>(e - b)));
    const char* lineEnd = nl ? nl : e;
    const char *lb = b, *le = lineEnd;
    b = nl ? nl + 1 : e;
    ++out.lines;
    trim(lb, le);
    if (lb == le) {
      if (!spec_.blankRows) continue;
      for (int k = 0; k < width; ++k) spec_.doubles ? out.doubles.push_back(NAN) : out.floats.push_back(NAN);
      ++out.rows;
      continue;
    }
    if (spec_.comments && (*lb == '#' || *lb == '%')) {
      if (out.comments.size() < kMaxComments)
        out.comments.emplace_back(out.lines, std::string(lb, std::min<size_t>(static_cast<size_t>(le - lb), kMaxCommentBytes)));
      continue;
    }
    const char* q = lb;
    const char *fb, *fe;
    for (int k = 0; k < nIds; ++k) {
      if (!nextField(q, le, fb, fe)) return bad("expected " + idCountWords(nIds) + " (decimal integers from 0), got " + quoted(lb, le));
      int64_t v = 0;
      const bool digits = std::all_of(fb, fe, [](char c) { return c >= '0' && c <= '9'; });
      if (!digits) return bad("expected " + idCountWords(nIds) + " (decimal integers from 0), got " + quoted(lb, le));
      if (fe - fb > 10) return bad("vertex id " + std::string(fb, fe) + " is past " + std::to_string(kMaxId));
      for (const char* c = fb; c < fe; ++c) v = v * 10 + (*c - '0');
      if (v > kMaxId) return bad("vertex id " + std::string(fb, fe) + " is past " + std::to_string(kMaxId));
      if (v >= bound) return bad("vertex id \"" + std::string(fb, fe) + "\" is not in [0, " + std::to_string(bound) + ")");
      if (v > out.maxId) {
        out.maxId = v;
        out.maxIdLine = out.lines;
      }
      out.ids[static_cast<size_t>(k)].push_back(static_cast<int32_t>(v));
    }
    for (int k = 0; k < width; ++k) {
      if (!nextField(q, le, fb, fe)) {
        const int64_t got = countFields(lb, le) - nIds;
        return bad(std::to_string(got) + " values where " +
                   (spec_.values < 0 ? "the first row had " + std::to_string(width) : std::to_string(width) + " are expected"));
      }
      if (*fb == '+') ++fb;
      double x = 0;
      bool whole = parsePlainDecimal(fb, fe, x);
      if (!whole) {
        const auto r = std::from_chars(fb, fe, x);
        whole = r.ec == std::errc() && r.ptr == fe;
      }
      if (!whole || (!std::isfinite(x) && !(spec_.nanValues && std::isnan(x))))
        return bad("value " + std::to_string(k + 1) + " (" + quoted(fb, fe) + ") is not a " +
                   (spec_.nanValues ? "number (or nan)" : "finite number"));
      spec_.doubles ? out.doubles.push_back(x) : out.floats.push_back(static_cast<float>(x));
    }
    if (nextField(q, le, fb, fe)) {
      if (!spec_.extraFields) {
        const int64_t got = countFields(lb, le) - nIds;
        if (width == 0)
          return bad("expected " + idCountWords(nIds) + ", got " + std::to_string(got + nIds) + " fields in " + quoted(lb, le));
        return bad(std::to_string(got) + " values where " +
                   (spec_.values < 0 ? "the first row had " + std::to_string(width) : std::to_string(width) + " are expected"));
      }
      if (out.extraRows++ == 0) out.extraLine = out.lines;
    }
    ++out.rows;
  }
}

void TextColumns::append(Part& part, int64_t firstLine) {
  if (part.errorLine) failAt(firstLine + part.errorLine, part.error);
  for (auto& [line, text] : part.comments)
    if (comments_.size() < kMaxComments) comments_.push_back(std::move(text));
  if (part.maxId > maxId_) {
    maxId_ = part.maxId;
    maxIdLine_ = firstLine + part.maxIdLine;
  }
  if (part.extraRows > 0 && extraRows_ == 0) extraLine_ = firstLine + part.extraLine;
  extraRows_ += part.extraRows;
  if (part.rows > 0) {
    for (size_t k = 0; k < ids_.size(); ++k) {
      WM_REQUIRE(!taken_[k], name_ + ": the id column was taken before the end");
      growTo(ids_[k], static_cast<size_t>(rows_ + part.rows) * 4, name_);
      std::memcpy(static_cast<int32_t*>(ids_[k].data()) + rows_, part.ids[k].data(), static_cast<size_t>(part.rows) * 4);
    }
    if (width_ > 0) {
      const size_t elem = spec_.doubles ? 8 : 4;
      const size_t at = static_cast<size_t>(rows_) * static_cast<size_t>(width_) * elem;
      const size_t add = static_cast<size_t>(part.rows) * static_cast<size_t>(width_) * elem;
      growTo(values_, at + add, name_);
      std::memcpy(static_cast<uint8_t*>(values_.data()) + at,
                  spec_.doubles ? static_cast<const void*>(part.doubles.data()) : static_cast<const void*>(part.floats.data()), add);
    }
  }
  rows_ += part.rows;
  lines_ = firstLine + part.lines;
}

void TextColumns::parseSequential(const char* b, const char* e) {
  Part part;
  parseRange(b, e, part);
  append(part, lines_);
}

// Lines up to and including the first row, parsed once the row has said how many numbers a row holds.
const char* TextColumns::firstRowSetsWidth(const char* b, const char* e) {
  for (const char* q = b; q < e;) {
    const char* nl = static_cast<const char*>(std::memchr(q, '\n', static_cast<size_t>(e - q)));
    const char* next = nl ? nl + 1 : e;
    const char *lb = q, *le = nl ? nl : e;
    trim(lb, le);
    q = next;
    if (lb == le || (spec_.comments && (*lb == '#' || *lb == '%'))) continue;
    const int64_t fields = countFields(lb, le);
    if (fields <= spec_.ids) {
      const int64_t line = lines_ + std::count(b, next, '\n') + (nl ? 0 : 1);
      failAt(line, spec_.ids ? idCountWords(spec_.ids) + " and at least one value per line" : "no values");
    }
    width_ = static_cast<int>(std::min<int64_t>(fields - spec_.ids, 1 << 20));
    parseSequential(b, next);
    return next;
  }
  parseSequential(b, e);
  return e;
}

// The line kept from the last chunk, completed (or the file's last line), parsed on its own.
void TextColumns::parseTail() {
  std::string line;
  line.swap(tail_);
  if (width_ < 0)
    firstRowSetsWidth(line.data(), line.data() + line.size());
  else
    parseSequential(line.data(), line.data() + line.size());
}

void TextColumns::push(const char* p, size_t n) {
  WM_REQUIRE(!finished_, name_ + ": text pushed after finish");
  const char* e = p + n;
  if (!tail_.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', n));
    if (!nl) {
      if (tail_.size() + n > kMaxLine) failAt(lines_ + 1, "a line longer than 256 MiB");
      tail_.append(p, n);
      return;
    }
    tail_.append(p, static_cast<size_t>(nl + 1 - p));
    parseTail();
    p = nl + 1;
  }
  const char* last = static_cast<const char*>(memrchr(p, '\n', static_cast<size_t>(e - p)));
  if (!last) {
    if (static_cast<size_t>(e - p) > kMaxLine) failAt(lines_ + 1, "a line longer than 256 MiB");
    tail_.assign(p, e);
    return;
  }
  const char* bodyEnd = last + 1;
  tail_.assign(bodyEnd, e);
  if (width_ < 0) p = firstRowSetsWidth(p, bodyEnd);
  if (p >= bodyEnd) return;
  const size_t bytes = static_cast<size_t>(bodyEnd - p);
  const int64_t parts = std::clamp<int64_t>(static_cast<int64_t>(bytes / kPartBytes), 1, ThreadPool::get().workers() + 1);
  std::vector<const char*> cut(static_cast<size_t>(parts) + 1);
  cut[0] = p;
  cut[static_cast<size_t>(parts)] = bodyEnd;
  for (int64_t k = 1; k < parts; ++k) {
    const char* at = std::max(cut[static_cast<size_t>(k) - 1], p + bytes * static_cast<size_t>(k) / static_cast<size_t>(parts));
    const char* nl = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(bodyEnd - at)));
    cut[static_cast<size_t>(k)] = nl ? nl + 1 : bodyEnd;
  }
  // The parts' vectors are kept from push to push: fresh ones would fault in new pages every chunk.
  if (parts_.size() < static_cast<size_t>(parts)) parts_.resize(static_cast<size_t>(parts));
  ThreadPool::get().run(parts, [&](int64_t k) {
    Part& part = parts_[static_cast<size_t>(k)];
    part.clear();
    parseRange(cut[static_cast<size_t>(k)], cut[static_cast<size_t>(k) + 1], part);
  });
  for (int64_t k = 0; k < parts; ++k) append(parts_[static_cast<size_t>(k)], lines_);
}

void TextColumns::finish() {
  WM_REQUIRE(!finished_, name_ + ": finish called twice");
  if (!tail_.empty()) parseTail();
  finished_ = true;
  if (width_ < 0) width_ = 0;
}

PageArray TextColumns::takeIds(int column) {
  WM_REQUIRE(finished_, name_ + ": columns are taken after finish");
  WM_REQUIRE(column >= 0 && column < spec_.ids, name_ + ": no id column " + std::to_string(column));
  WM_REQUIRE(!taken_[static_cast<size_t>(column)], name_ + ": id column " + std::to_string(column) + " was taken already");
  taken_[static_cast<size_t>(column)] = true;
  return std::move(ids_[static_cast<size_t>(column)]);
}

PageArray TextColumns::takeValues() {
  WM_REQUIRE(finished_, name_ + ": columns are taken after finish");
  WM_REQUIRE(!valuesTaken_, name_ + ": the values were taken already");
  valuesTaken_ = true;
  return std::move(values_);
}

}  // namespace host
}  // namespace wm
