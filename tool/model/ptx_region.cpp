// Which bytes of a region are unknown (ptx_state.h): pages of 4 KiB, each with the epoch its bits
// are from. taint_all bumps the region's epoch, so every page becomes all unknown at once; a page
// is rebuilt (all ones) only when a known value is stored into it afterwards.

#include "model/ptx_state.h"

#include <algorithm>
#include <limits>

namespace wl::ptx_detail {
namespace {

// Sets (or clears) bits [first, first + n) of `words`.
void set_bits(std::vector<std::uint64_t>& words, std::uint64_t first, std::uint64_t n, bool on) {
  std::uint64_t at = first;
  const std::uint64_t end = first + n;
  while (at < end) {
    const std::uint64_t bit = at & 63, take = std::min<std::uint64_t>(64 - bit, end - at);
    const std::uint64_t mask = (take == 64 ? ~0ull : ((1ull << take) - 1)) << bit;
    std::uint64_t& word = words[static_cast<std::size_t>(at >> 6)];
    word = on ? word | mask : word & ~mask;
    at += take;
  }
}

bool any_bit(const std::vector<std::uint64_t>& words, std::uint64_t first, std::uint64_t n) {
  std::uint64_t at = first;
  const std::uint64_t end = first + n;
  while (at < end) {
    const std::uint64_t bit = at & 63, take = std::min<std::uint64_t>(64 - bit, end - at);
    const std::uint64_t mask = (take == 64 ? ~0ull : ((1ull << take) - 1)) << bit;
    if (words[static_cast<std::size_t>(at >> 6)] & mask)
      return true;
    at += take;
  }
  return false;
}

} // namespace

template <class Each> void Region::each_page(std::uint64_t offset, std::uint64_t n, Each each) {
  const std::uint64_t end = std::min<std::uint64_t>(offset + n, size());
  for (std::uint64_t at = offset; at < end;) {
    const std::uint64_t page = at >> kPageShift;
    const std::uint64_t page_end = std::min<std::uint64_t>((page + 1) << kPageShift, end);
    each(static_cast<std::size_t>(page), at, page_end - at);
    at = page_end;
  }
}

void Region::make_pages() {
  if (!m_page_epoch.empty() || size() == 0)
    return;
  m_page_epoch.assign(((size() - 1) >> kPageShift) + 1, 0);
  m_bits.assign((size() + 63) / 64, 0);
}

void Region::refresh(std::size_t page) {
  const std::uint64_t first = static_cast<std::uint64_t>(page) << kPageShift;
  const std::uint64_t n = std::min<std::uint64_t>(std::uint64_t(1) << kPageShift, size() - first);
  set_bits(m_bits, first, n, true);
  m_page_epoch[page] = m_epoch;
}

bool Region::unknown_at(std::uint64_t offset, std::uint64_t n) const {
  if (!any_unknown())
    return false;
  if (m_page_epoch.empty())
    return m_epoch != 0;
  if (n > 0 && n <= 16 && (offset & 63) + n <= 64 && offset + n <= size()) {
    // the common case, one aligned access: one page, one word
    if (stale(static_cast<std::size_t>(offset >> kPageShift)))
      return true;
    const std::uint64_t mask = ((1ull << n) - 1) << (offset & 63);
    return (m_bits[static_cast<std::size_t>(offset >> 6)] & mask) != 0;
  }
  bool unknown = false;
  const_cast<Region*>(this)->each_page(
      offset, n, [&](std::size_t page, std::uint64_t at, std::uint64_t count) {
        unknown = unknown || stale(page) || any_bit(m_bits, at, count);
      });
  return unknown;
}

void Region::set_known(std::uint64_t offset, std::uint64_t n) {
  if (!any_unknown())
    return;
  make_pages();
  each_page(offset, n, [&](std::size_t page, std::uint64_t at, std::uint64_t count) {
    if (stale(page))
      refresh(page);
    set_bits(m_bits, at, count, false);
  });
}

void Region::set_unknown(std::uint64_t offset, std::uint64_t n, Origin why) {
  if (!any_unknown())
    origin = why;
  m_dirty = true;
  make_pages();
  each_page(offset, n, [&](std::size_t page, std::uint64_t at, std::uint64_t count) {
    if (!stale(page))
      set_bits(m_bits, at, count, true);
  });
}

void Region::taint_all(Origin why) {
  if (!any_unknown())
    origin = why;
  if (m_epoch == std::numeric_limits<std::uint32_t>::max()) { // never in practice: start over
    reset(bytes.size(), true, origin);
    return;
  }
  ++m_epoch;
}

void Region::make_lazy(std::uint64_t size, Filler filler) {
  bytes.clear();
  m_size = size;
  m_filler = std::move(filler);
  m_pages.clear();
}

std::byte* Region::lazy_at(std::uint64_t offset) {
  const std::uint64_t piece = offset >> kLazyShift;
  std::unique_ptr<std::byte[]>& held = m_pages[piece];
  if (!held) {
    const std::uint64_t first = piece << kLazyShift;
    const std::uint64_t n = std::min<std::uint64_t>(std::uint64_t(1) << kLazyShift, m_size - first);
    held = std::make_unique<std::byte[]>(std::size_t(1) << kLazyShift);
    m_filler(first, std::span<std::byte>(held.get(), static_cast<std::size_t>(n)));
  }
  return held.get() + (offset & ((std::uint64_t(1) << kLazyShift) - 1));
}

void Region::reset(std::size_t size, bool all_unknown, Origin why) {
  m_filler = nullptr;
  m_pages.clear();
  bytes.assign(size, std::byte{0});
  m_page_epoch.clear();
  m_bits.clear();
  m_epoch = all_unknown ? 1 : 0;
  m_dirty = false;
  origin = why;
}

} // namespace wl::ptx_detail
