// NameIndex and KgText (wm/kg_text.h). A line's fields are split as the JavaScript's tripleFields splits
// them: the line without its surrounding blanks; at its tabs where it has one (each field trimmed), else
// at runs of blanks. Blank lines are skipped.
#include "wm/kg_text.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <numeric>

#include "wm/hash.h"
#include "wm/status.h"

namespace wm {
namespace host {

namespace {

constexpr int64_t kMaxNames = 2147483647;  // ids are int32
constexpr size_t kMaxLine = size_t{256} << 20;
constexpr size_t kBatch = 256;  // lines whose lookups are fetched for together

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void trim(const char*& b, const char*& e) {
  while (b < e && isBlank(*b)) ++b;
  while (e > b && isBlank(e[-1])) --e;
}

void growTo(PageArray& a, size_t bytes, const char* what) {
  if (bytes > a.capacity()) a.reserve(std::max({bytes, 2 * a.capacity(), size_t{1} << 20}), what);
  a.resize(bytes);
}

std::string quoted(const char* b, const char* e) {
  const size_t n = static_cast<size_t>(e - b);
  return "'" + std::string(b, std::min<size_t>(n, 200)) + (n > 200 ? "…" : "") + "'";
}

}  // namespace

NameIndex::NameIndex(std::string noun, std::string nouns) : noun_(std::move(noun)), nouns_(std::move(nouns)) {}

uint64_t NameIndex::hashOf(const char* b, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, b + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  uint64_t w = 0;
  std::memcpy(&w, b + i, n - i);
  return splitmix64(h ^ w);
}

void NameIndex::fetchSlot(uint64_t h) const {
  if (!slots_.empty()) __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
}

void NameIndex::fetchStart(uint64_t h) const {
  if (slots_.empty()) return;
  const uint64_t v = slots_[h & (slots_.size() - 1)];
  if (v != 0 && (v >> 32) == (h >> 32)) __builtin_prefetch(static_cast<const int64_t*>(starts_.data()) + (v & 0xffffffffu) - 1);
}

void NameIndex::fetchBytes(uint64_t h) const {
  if (slots_.empty()) return;
  const uint64_t v = slots_[h & (slots_.size() - 1)];
  if (v != 0 && (v >> 32) == (h >> 32))
    __builtin_prefetch(static_cast<const char*>(bytes_.data()) + static_cast<const int64_t*>(starts_.data())[(v & 0xffffffffu) - 1]);
}

int32_t NameIndex::find(const char* b, size_t n, uint64_t h) const {
  if (slots_.empty()) return -1;
  const uint64_t mask = slots_.size() - 1, tag = h >> 32;
  const auto* starts = static_cast<const int64_t*>(starts_.data());
  const auto* bytes = static_cast<const char*>(bytes_.data());
  for (uint64_t s = h & mask;; s = (s + 1) & mask) {
    const uint64_t v = slots_[s];
    if (v == 0) return -1;
    if ((v >> 32) != tag) continue;
    const int64_t id = static_cast<int64_t>(v & 0xffffffffu) - 1;
    const int64_t at = starts[id], len = starts[id + 1] - at - 1;
    if (static_cast<size_t>(len) == n && std::memcmp(bytes + at, b, n) == 0) return static_cast<int32_t>(id);
  }
}

void NameIndex::grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(std::max<size_t>(1024, old.size() * 2), 0);
  const uint64_t mask = slots_.size() - 1;
  const auto* starts = static_cast<const int64_t*>(starts_.data());
  const auto* bytes = static_cast<const char*>(bytes_.data());
  for (uint64_t v : old) {
    if (v == 0) continue;
    const int64_t id = static_cast<int64_t>(v & 0xffffffffu) - 1;
    const uint64_t h = hashOf(bytes + starts[id], static_cast<size_t>(starts[id + 1] - starts[id] - 1));
    uint64_t s = h & mask;
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = v;
  }
}

int32_t NameIndex::add(const char* b, size_t n, uint64_t h, const std::string& where) {
  if (count_ == kMaxNames) fail(where + ": more than 2^31 - 1 " + noun_ + " names");
  if (static_cast<size_t>(count_ + 1) * 4 > slots_.size() * 3) grow();
  const size_t used = count_ == 0 ? 0 : static_cast<size_t>(static_cast<const int64_t*>(starts_.data())[count_]);
  growTo(bytes_, used + n + 1, "the names read");
  growTo(starts_, static_cast<size_t>(count_ + 2) * sizeof(int64_t), "the names read");
  auto* bytes = static_cast<char*>(bytes_.data());
  std::memcpy(bytes + used, b, n);
  bytes[used + n] = '\n';
  auto* starts = static_cast<int64_t*>(starts_.data());
  starts[count_] = static_cast<int64_t>(used);
  starts[count_ + 1] = static_cast<int64_t>(used + n + 1);
  const uint64_t mask = slots_.size() - 1;
  uint64_t s = h & mask;
  while (slots_[s] != 0) s = (s + 1) & mask;
  slots_[s] = ((h >> 32) << 32) | static_cast<uint64_t>(count_ + 1);
  return static_cast<int32_t>(count_++);
}

PageArray NameIndex::copyBytes() const {
  const size_t n = count_ == 0 ? 0 : static_cast<size_t>(static_cast<const int64_t*>(starts_.data())[count_]);
  PageArray out = PageArray::allocate(n, "the names' bytes");
  if (n) std::memcpy(out.data(), bytes_.data(), n);
  return out;
}

PageArray NameIndex::copyStarts() const {
  PageArray out = PageArray::allocate(static_cast<size_t>(count_ + 1) * sizeof(double), "the names' offsets");
  auto* d = static_cast<double*>(out.data());
  const auto* s = static_cast<const int64_t*>(starts_.data());
  d[0] = 0;
  for (int64_t i = 1; i <= count_; ++i) d[i] = static_cast<double>(s[i]);
  return out;
}

std::string NameIndex::name(int32_t id) const {
  WM_REQUIRE(id >= 0 && id < count_, "NameIndex.name: no id " + std::to_string(id));
  const auto* s = static_cast<const int64_t*>(starts_.data());
  return std::string(static_cast<const char*>(bytes_.data()) + s[id], static_cast<size_t>(s[id + 1] - s[id] - 1));
}

KgText::KgText() : entities_("entity", "entities"), relations_("relation", "relations") {}

std::string KgText::at() const { return file_ + ":" + std::to_string(lineNo_); }

void KgText::failAt(const std::string& what) const { fail(at() + ": " + what); }

void KgText::begin(const std::string& name, KgFile kind) {
  WM_REQUIRE(!open_, name + ": a file is begun while " + file_ + " is read");
  file_ = name;
  kind_ = kind;
  open_ = true;
  tail_.clear();
  batch_.clear();
  lineNo_ = rows_ = 0;
  for (int k = 0; k < 3; ++k) {
    columns_[k] = PageArray();
    taken_[k] = false;
  }
  if (kind != KgFile::kTriples) {
    NameIndex& target = index(kind == KgFile::kEntityDictionary);
    WM_REQUIRE(target.size() == 0, name + ": a dictionary of " + target.nouns() + " is read into names already held");
    read_ = NameIndex(target.noun(), target.nouns());
    givenIds_.clear();
    givenLines_.clear();
  }
}

void KgText::push(const char* p, size_t n) {
  WM_REQUIRE(open_, "KgText.push: no file begun");
  const char* e = p + n;
  if (!tail_.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', n));
    if (!nl) {
      if (tail_.size() + n > kMaxLine) {
        ++lineNo_;
        failAt("a line longer than 256 MiB");
      }
      tail_.append(p, n);
      return;
    }
    tail_.append(p, static_cast<size_t>(nl - p));
    ++lineNo_;
    line(tail_.data(), tail_.data() + tail_.size());
    flush();
    tail_.clear();
    p = nl + 1;
  }
  for (;;) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(e - p)));
    if (!nl) break;
    ++lineNo_;
    line(p, nl);
    if (batch_.size() == kBatch) flush();
    p = nl + 1;
  }
  flush();
  if (static_cast<size_t>(e - p) > kMaxLine) {
    ++lineNo_;
    failAt("a line longer than 256 MiB");
  }
  tail_.assign(p, e);
}

void KgText::line(const char* b, const char* e) {
  trim(b, e);
  if (b == e) return;
  Line& l = batch_.emplace_back();
  l.no = lineNo_;
  l.fields = 0;
  const auto field = [&](const char* fb, const char* fe) {
    if (l.fields < 3) {
      l.b[l.fields] = fb;
      l.e[l.fields] = fe;
      l.h[l.fields] = NameIndex::hashOf(fb, static_cast<size_t>(fe - fb));
    }
    ++l.fields;
  };
  if (std::memchr(b, '\t', static_cast<size_t>(e - b))) {
    for (const char* q = b;;) {
      const char* t = static_cast<const char*>(std::memchr(q, '\t', static_cast<size_t>(e - q)));
      const char *fb = q, *fe = t ? t : e;
      trim(fb, fe);
      field(fb, fe);
      if (!t) break;
      q = t + 1;
    }
  } else {
    for (const char* q = b; q < e;) {
      const char* fb = q;
      while (q < e && !isBlank(*q)) ++q;
      field(fb, q);
      while (q < e && isBlank(*q)) ++q;
    }
  }
}

void KgText::flush() {
  // The lookups of a batch miss the cache (tables of millions of names): their memory is fetched for every
  // name at once, in three rounds, before the names are looked up one by one.
  const bool triples = kind_ == KgFile::kTriples;
  const auto each = [&](auto&& f) {
    for (const Line& l : batch_) {
      if (triples && l.fields == 3) {
        for (int k = 0; k < 3; ++k) f(index(k != 1), l.h[k]);
      } else if (!triples && l.fields == 2) {
        f(read_, l.h[1]);
      }
    }
  };
  each([](const NameIndex& m, uint64_t h) { m.fetchSlot(h); });
  each([](const NameIndex& m, uint64_t h) { m.fetchStart(h); });
  each([](const NameIndex& m, uint64_t h) { m.fetchBytes(h); });
  const int64_t read = lineNo_;
  for (const Line& l : batch_) {
    lineNo_ = l.no;  // errors name the line being resolved
    if (triples)
      triple(l);
    else
      entry(l);
  }
  lineNo_ = read;
  batch_.clear();
}

void KgText::triple(const Line& l) {
  if (l.fields != 3) failAt("a line must be 'head<TAB>relation<TAB>tail', got " + std::to_string(l.fields) + " fields");
  for (int k = 0; k < 3; ++k)
    if (l.b[k] == l.e[k]) failAt("a field is empty");
  int32_t ids[3];
  for (int k = 0; k < 3; ++k) {
    NameIndex& m = index(k != 1);
    const size_t n = static_cast<size_t>(l.e[k] - l.b[k]);
    int32_t id = m.find(l.b[k], n, l.h[k]);
    if (id < 0) {
      if (m.fixed) failAt(m.noun() + " " + quoted(l.b[k], l.e[k]) + " is not in the " + m.noun() + " dictionary");
      id = m.add(l.b[k], n, l.h[k], at());
    }
    ids[k] = id;
  }
  const size_t bytes = static_cast<size_t>(rows_ + 1) * sizeof(int32_t);
  for (int k = 0; k < 3; ++k) {
    growTo(columns_[k], bytes, "the triples read");
    static_cast<int32_t*>(columns_[k].data())[rows_] = ids[k];
  }
  ++rows_;
}

void KgText::entry(const Line& l) {
  if (l.fields != 2) failAt("a line must be 'id<TAB>name', got " + std::to_string(l.fields) + " fields");
  int64_t id = -1;
  const auto r = std::from_chars(l.b[0], l.e[0], id);
  if (l.b[0] == l.e[0] || r.ec != std::errc() || r.ptr != l.e[0] || id < 0 || id >= kMaxNames)
    failAt("id " + quoted(l.b[0], l.e[0]) + " is not a non-negative integer below 2^31 - 1");
  const size_t n = static_cast<size_t>(l.e[1] - l.b[1]);
  if (read_.find(l.b[1], n, l.h[1]) >= 0) failAt(read_.noun() + " " + quoted(l.b[1], l.e[1]) + " is given twice");
  read_.add(l.b[1], n, l.h[1], at());
  givenIds_.push_back(static_cast<int32_t>(id));
  givenLines_.push_back(lineNo_);
}

void KgText::finish() {
  WM_REQUIRE(open_, "KgText.finish: no file begun");
  if (!tail_.empty()) {
    ++lineNo_;
    std::string last = std::move(tail_);
    tail_.clear();
    line(last.data(), last.data() + last.size());
    flush();
  }
  open_ = false;
  if (kind_ == KgFile::kTriples) return;
  // The dictionary's lines in id order: each id once, 0..n-1.
  std::vector<int32_t> order(givenIds_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return givenIds_[a] < givenIds_[b]; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (givenIds_[order[i]] == givenIds_[order[i - 1]])
      fail(file_ + ":" + std::to_string(givenLines_[order[i]]) + ": id " + std::to_string(givenIds_[order[i]]) + " is given twice");
  }
  for (size_t i = 0; i < order.size(); ++i) {
    if (givenIds_[order[i]] != static_cast<int32_t>(i))
      fail(file_ + ": ids must run from 0 without gaps; " + std::to_string(i) + " is missing");
  }
  if (order.empty()) fail(file_ + ": no " + read_.nouns());
  NameIndex& target = index(kind_ == KgFile::kEntityDictionary);
  for (int32_t k : order) {
    const std::string s = read_.name(k);
    target.add(s.data(), s.size(), NameIndex::hashOf(s.data(), s.size()), file_);
  }
  target.fixed = true;
  read_ = NameIndex("", "");
  givenIds_ = {};
  givenLines_ = {};
}

PageArray KgText::takeColumn(int k) {
  WM_REQUIRE(!open_ && kind_ == KgFile::kTriples, "KgText.takeColumn: columns are taken after a triple file's finish");
  WM_REQUIRE(k >= 0 && k < 3, "KgText.takeColumn: no column " + std::to_string(k));
  WM_REQUIRE(!taken_[k], "KgText.takeColumn: column " + std::to_string(k) + " was taken already");
  taken_[k] = true;
  return std::move(columns_[k]);
}

}  // namespace host
}  // namespace wm
