#include "model/access.h"

#include "base/error.h"

#include <algorithm>
#include <bit>
#include <string>
#include <tuple>

namespace wl {

namespace {

void check_access(const WarpAccess& access) {
  const int w = access.width;
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
    throw UsageError("access width " + std::to_string(w) +
                     " B is not supported; allowed 1, 2, 4, 8 or 16");
  const std::uint64_t misaligned = static_cast<std::uint64_t>(w) - 1; // w is a power of two
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (access.active(lane) && (access.address[lane] & misaligned) != 0)
      throw UsageError("lane " + std::to_string(lane) + " address " +
                       std::to_string(access.address[lane]) + " is not aligned to its " +
                       std::to_string(w) + "-byte width");
}

// The 4-byte words one transaction touches: up to 32 lanes of up to 4 words.
struct TransactionWords {
  // Left unset past `count`: the model fills one for every warp it evaluates, and zeroing a
  // kilobyte each time cost more than the analysis.
  std::array<std::uint64_t, kWarpSize * 4> words;
  int count = 0;
};

TransactionWords transaction_words(const WarpAccess& access, int first_lane, int lanes) {
  TransactionWords t;
  const int words_per_lane = std::max(1, access.width / kBankBytes);
  for (int lane = first_lane; lane < first_lane + lanes; ++lane) {
    if (!access.active(lane))
      continue;
    const std::uint64_t first_word = access.address[lane] / kBankBytes;
    for (int i = 0; i < words_per_lane; ++i) {
      t.words[t.count++] = first_word + i;
    }
  }
  return t;
}

struct TransactionCost {
  int wavefronts = 0; // the most distinct words any single bank serves
  int ideal = 0;      // the fewest wavefronts its distinct words fit in: ceil(words / 32)
};

// Lanes reading one word share it (a broadcast); each bank serves its distinct words one
// wavefront apiece. Each word is looked for among the words its bank already serves, a chain of
// at most the conflict degree: cheaper than sorting the words of a transaction out of order.
TransactionCost transaction_cost(const TransactionWords& t) {
  constexpr int kNone = -1;
  std::array<int, kBankCount> served{};   // distinct words per bank
  std::array<int, kBankCount> chain;      // the latest distinct word of each bank, by index
  std::array<int, kWarpSize * 4> earlier; // the bank's distinct word before this one
  chain.fill(kNone);
  int distinct = 0, most = 0;
  for (int i = 0; i < t.count; ++i) {
    const std::uint64_t word = t.words[i];
    const auto bank = static_cast<std::size_t>(word % kBankCount);
    int seen = chain[bank];
    while (seen != kNone && t.words[seen] != word)
      seen = earlier[seen];
    if (seen != kNone)
      continue; // a broadcast: the word is already served
    earlier[i] = chain[bank];
    chain[bank] = i;
    ++distinct;
    most = std::max(most, ++served[bank]);
  }
  return {most, (distinct + kBankCount - 1) / kBankCount};
}

} // namespace

namespace {

// Whether lanes `first` to `first + 3` read at most two distinct addresses.
bool quad_reads_in_pairs(const WarpAccess& access, int first) {
  std::array<std::uint64_t, 4> seen{};
  int distinct = 0;
  for (int lane = first; lane < first + 4; ++lane)
    if (access.active(lane) && std::find(seen.begin(), seen.begin() + distinct,
                                         access.address[lane]) == seen.begin() + distinct)
      seen[distinct++] = access.address[lane];
  return distinct <= 2;
}

} // namespace

// Whether every quad of lanes `first` to `first + lanes - 1` reads at most two distinct addresses.
bool quads_read_in_pairs(const WarpAccess& access, int first, int lanes) {
  for (int quad = first; quad < first + lanes; quad += 4)
    if (!quad_reads_in_pairs(access, quad))
      return false;
  return true;
}

LaneRanges transactions_of(const WarpAccess& access) {
  LaneRanges ranges;
  if (access.width <= 4) {
    ranges.push_back({0, kWarpSize});
    return ranges;
  }
  constexpr int kHalf = kWarpSize / 2, kQuarter = kWarpSize / 4;
  if (access.width == 8) {
    if (quads_read_in_pairs(access, 0, kWarpSize)) {
      ranges.push_back({0, kWarpSize});
    } else {
      ranges.push_back({0, kHalf});
      ranges.push_back({kHalf, kHalf});
    }
    return ranges;
  }
  for (int half = 0; half < kWarpSize; half += kHalf) {
    if (quads_read_in_pairs(access, half, kHalf)) {
      ranges.push_back({half, kHalf});
    } else {
      ranges.push_back({half, kQuarter});
      ranges.push_back({half + kQuarter, kQuarter});
    }
  }
  return ranges;
}

GlobalAccess analyse_global(const WarpAccess& access) {
  check_access(access);
  // An aligned access of at most 16 bytes never crosses a sector, so each lane touches one
  // sector and one line, and two lanes' bytes are either the same or disjoint.
  std::array<std::uint64_t, kWarpSize> addresses{};
  int active = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (access.active(lane))
      addresses[active++] = access.address[lane];
  GlobalAccess g;
  if (active == 0)
    return g;
  // Sectors, lines and segments are addresses divided by a constant, so sorted addresses give
  // them sorted too: one sort (most warps need none) and one pass count every distinct kind.
  if (!std::is_sorted(addresses.begin(), addresses.begin() + active))
    std::sort(addresses.begin(), addresses.begin() + active);
  // Two sorted addresses share a unit of 2^k bytes exactly when their XOR is below 2^k.
  static_assert(std::has_single_bit(unsigned{kSectorBytes}) &&
                std::has_single_bit(unsigned{kDramSegmentBytes}) &&
                std::has_single_bit(unsigned{kLineBytes}));
  int distinct_addresses = 1;
  g.sectors = g.lines = g.dram_segments = 1;
  for (int i = 1; i < active; ++i) {
    const std::uint64_t differing = addresses[i - 1] ^ addresses[i];
    distinct_addresses += differing != 0 ? 1 : 0;
    g.sectors += differing >= kSectorBytes ? 1 : 0;
    g.dram_segments += differing >= kDramSegmentBytes ? 1 : 0;
    g.lines += differing >= kLineBytes ? 1 : 0;
  }
  g.requests = 1;
  g.bytes_used = distinct_addresses * access.width;
  g.ideal_sectors = (g.bytes_used + kSectorBytes - 1) / kSectorBytes;
  g.bytes_fetched = g.sectors * kSectorBytes;
  return g;
}

namespace {

// Lanes served one at a time (WarpAccess::lane_passes): each bank serves every lane that touches
// it, on one word or not, once a pass; the ideal is still the distinct words' wavefronts.
SharedAccess serialised_lanes(const WarpAccess& access) {
  SharedAccess s;
  const TransactionWords t = transaction_words(access, 0, kWarpSize);
  if (t.count == 0)
    return s;
  std::array<int, kBankCount> touches{};
  int most = 0;
  for (int i = 0; i < t.count; ++i)
    most = std::max(most, ++touches[static_cast<std::size_t>(t.words[i] % kBankCount)]);
  s.requests = s.transactions = 1;
  s.wavefronts = most * access.lane_passes;
  s.ideal_wavefronts = transaction_cost(t).ideal;
  s.excess_wavefronts = s.wavefronts - s.ideal_wavefronts;
  s.conflict_degree = (s.wavefronts + s.ideal_wavefronts - 1) / s.ideal_wavefronts;
  return s;
}

} // namespace

SharedAccess analyse_shared(const WarpAccess& access) {
  check_access(access);
  if (access.lane_passes > 0)
    return serialised_lanes(access);
  SharedAccess s;
  for (const LaneRange& range : transactions_of(access)) {
    const TransactionWords t = transaction_words(access, range.first, range.lanes);
    if (t.count == 0)
      continue;
    const TransactionCost cost = transaction_cost(t);
    s.transactions += 1;
    s.wavefronts += cost.wavefronts;
    s.ideal_wavefronts += cost.ideal;
    s.conflict_degree =
        std::max(s.conflict_degree, (cost.wavefronts + cost.ideal - 1) / cost.ideal);
  }
  s.requests = s.transactions > 0 ? 1 : 0;
  s.excess_wavefronts = s.wavefronts - s.ideal_wavefronts;
  return s;
}

std::vector<BankSlot> bank_map(const WarpAccess& access) {
  check_access(access);
  std::vector<BankSlot> slots;
  const int words_per_lane = std::max(1, access.width / kBankBytes);
  int transaction = 0;
  for (const LaneRange& range : transactions_of(access)) {
    const std::size_t begin = slots.size();
    for (int lane = range.first; lane < range.first + range.lanes; ++lane) {
      if (!access.active(lane))
        continue;
      for (int i = 0; i < words_per_lane; ++i) {
        const std::uint64_t word = access.address[lane] / kBankBytes + i;
        slots.push_back(
            BankSlot{lane, transaction, static_cast<int>(word % kBankCount), 0, word, false});
      }
    }
    if (slots.size() == begin)
      continue;
    const auto order = [](const BankSlot& a, const BankSlot& b) {
      return std::tie(a.bank, a.word, a.lane) < std::tie(b.bank, b.word, b.lane);
    };
    std::sort(slots.begin() + begin, slots.end(), order);
    // Number each bank's distinct words in address order and mark words read by several lanes.
    for (std::size_t i = begin; i < slots.size(); ++i) {
      BankSlot& slot = slots[i];
      if (i > begin && slots[i - 1].bank == slot.bank)
        slot.wavefront = slots[i - 1].wavefront + (slots[i - 1].word != slot.word ? 1 : 0);
      const bool same_as_prev = i > begin && slots[i - 1].word == slot.word;
      const bool same_as_next = i + 1 < slots.size() && slots[i + 1].word == slot.word;
      slot.broadcast = same_as_prev || same_as_next;
    }
    ++transaction;
  }
  return slots;
}

} // namespace wl
