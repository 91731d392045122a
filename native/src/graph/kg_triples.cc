// Knowledge graphs shaped like Freebase, drawn in parallel from counter-based hashes: triple t's
// relation follows a Zipf law over the relations (relation r drawn with weight 1 / (r + 1)^exponent),
// its head and tail a power law over the entities (an entity's rank is floor(n u^skew), so low ranks
// are the hubs; ranks scattered over the ids by an affine bijection), the tail never the head. Any
// range of triples is drawn alone (first, count), the same values whatever the chunking or thread count.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/parallel.h"
#include "wm/hash.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {
namespace {

double unit(uint64_t h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }

}  // namespace

void kgTriples(int64_t entities, int64_t relations, int64_t first, int64_t count, uint64_t seed, double skew, double exponent,
               int32_t* heads, int32_t* rels, int32_t* tails) {
  // Cumulative relation weights (Zipf), and the bijection rank -> id: id = (rank * a + b) mod n with gcd(a, n) = 1.
  std::vector<double> cumulative(static_cast<size_t>(relations));
  double total = 0;
  for (int64_t r = 0; r < relations; ++r) cumulative[static_cast<size_t>(r)] = total += std::pow(static_cast<double>(r + 1), -exponent);
  uint64_t a = (splitmix64(seed ^ 0x51ed270b27u) % static_cast<uint64_t>(entities)) | 1u;
  while (std::gcd(a, static_cast<uint64_t>(entities)) != 1) a += 2;
  const uint64_t b = splitmix64(seed ^ 0x2545f4914f6cdd1dull) % static_cast<uint64_t>(entities);
  const auto entity = [&](uint64_t h) {
    const auto rank = std::min<uint64_t>(static_cast<uint64_t>(static_cast<double>(entities) * std::pow(unit(h), skew)), entities - 1);
    return static_cast<int32_t>((static_cast<unsigned __int128>(rank) * a + b) % static_cast<uint64_t>(entities));
  };
  parallelFor(count, 1 << 14, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const uint64_t t = static_cast<uint64_t>(first + i), h0 = splitmix64(splitmix64(seed) + t * 0xd1b54a32d192ed03ull);
      const double u = unit(splitmix64(h0 ^ 1)) * total;
      rels[i] = static_cast<int32_t>(
          std::min<int64_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin(), relations - 1));
      heads[i] = entity(splitmix64(h0 ^ 2));
      int32_t tail = entity(splitmix64(h0 ^ 3));
      if (tail == heads[i] && entities > 1) tail = static_cast<int32_t>((tail + 1) % entities);
      tails[i] = tail;
    }
  });
}

}  // namespace host
}  // namespace wm

// kgTriples(numEntities, numRelations, first, count, seed, skew, exponent, heads, relations, tails)
WM_OP(kgTriples, Host, a) {
  const int64_t entities = a.count(0, "numEntities"), relations = a.count(1, "numRelations"), first = a.count(2, "first"),
                count = a.count(3, "count");
  if (entities < 1 || entities > 2147483647) a.reject(0, "numEntities", "must be in [1, 2^31), got " + std::to_string(entities));
  if (relations < 1 || relations > 100000000) a.reject(1, "numRelations", "must be in [1, 10^8], got " + std::to_string(relations));
  const double skew = a.number(5, "skew"), exponent = a.number(6, "exponent");
  if (!(std::isfinite(skew) && skew >= 1)) a.reject(5, "skew", "must be a finite number >= 1 (1: uniform entities)");
  if (!(std::isfinite(exponent) && exponent >= 0)) a.reject(6, "exponent", "must be a finite number >= 0 (0: uniform relations)");
  wm::host::kgTriples(entities, relations, first, count, static_cast<uint64_t>(a.count(4, "seed")), skew, exponent,
                      a.ints(7, "heads", count), a.ints(8, "relations", count), a.ints(9, "tails", count));
}
