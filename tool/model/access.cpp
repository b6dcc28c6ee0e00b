#include "model/access.h"

#include "base/error.h"

#include <algorithm>
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

// Sorts the first `count` values and returns how many distinct ones there are. Most warps touch
// addresses in lane order, so one pass often spares the sort.
template <typename T, std::size_t N> int count_distinct(std::array<T, N>& values, int count) {
  if (!std::is_sorted(values.begin(), values.begin() + count))
    std::sort(values.begin(), values.begin() + count);
  return static_cast<int>(std::unique(values.begin(), values.begin() + count) - values.begin());
}

// The 4-byte words one transaction touches: up to 32 lanes of up to 4 words.
struct TransactionWords {
  std::array<std::uint64_t, kWarpSize * 4> words{};
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
// wavefront apiece. Words come in address order for most patterns, so counting distinct words
// (and then per bank) mostly needs no sort.
TransactionCost transaction_cost(TransactionWords t) {
  const int distinct = count_distinct(t.words, t.count);
  std::array<int, kBankCount> per_bank{};
  int most = 0;
  for (int i = 0; i < distinct; ++i)
    most = std::max(most, ++per_bank[t.words[i] % kBankCount]);
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

std::vector<LaneRange> transactions_of(const WarpAccess& access) {
  if (access.width <= 4)
    return {{0, kWarpSize}};
  constexpr int kHalf = kWarpSize / 2, kQuarter = kWarpSize / 4;
  if (access.width == 8)
    return quads_read_in_pairs(access, 0, kWarpSize)
               ? std::vector<LaneRange>{{0, kWarpSize}}
               : std::vector<LaneRange>{{0, kHalf}, {kHalf, kHalf}};
  std::vector<LaneRange> ranges;
  for (int half = 0; half < kWarpSize; half += kHalf) {
    if (quads_read_in_pairs(access, half, kHalf))
      ranges.push_back({half, kHalf});
    else
      ranges.insert(ranges.end(), {{half, kQuarter}, {half + kQuarter, kQuarter}});
  }
  return ranges;
}

GlobalAccess analyse_global(const WarpAccess& access) {
  check_access(access);
  // An aligned access of at most 16 bytes never crosses a sector, so each lane touches one
  // sector and one line, and two lanes' bytes are either the same or disjoint.
  std::array<std::uint64_t, kWarpSize> sectors{}, lines{}, segments{}, addresses{};
  int active = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!access.active(lane))
      continue;
    addresses[active] = access.address[lane];
    sectors[active] = access.address[lane] / kSectorBytes;
    lines[active] = access.address[lane] / kLineBytes;
    segments[active] = access.address[lane] / kDramSegmentBytes;
    ++active;
  }
  GlobalAccess g;
  if (active == 0)
    return g;
  g.requests = 1;
  g.sectors = count_distinct(sectors, active);
  g.lines = count_distinct(lines, active);
  g.bytes_used = count_distinct(addresses, active) * access.width;
  g.ideal_sectors = (g.bytes_used + kSectorBytes - 1) / kSectorBytes;
  g.bytes_fetched = g.sectors * kSectorBytes;
  g.dram_segments = count_distinct(segments, active);
  return g;
}

SharedAccess analyse_shared(const WarpAccess& access) {
  check_access(access);
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
