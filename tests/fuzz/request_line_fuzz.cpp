// Fuzzes the worker's request reader (`warplens worker`'s stdin): the input is cut into lines of
// at most kMaxRequestLineBytes by a LineReader fed in blocks of an odd size (so lines straddle
// blocks), and each line goes through parse_json_text and request_from_json, as
// tool/engine/worker.cpp reads them. An accepted request is then resolved into a kernel launch as
// the worker does, and written and read again: the GUI writes every request with request_to_json,
// so what one side reads the other must write the same.

#include "base/json_input.h"
#include "fuzz_support.h"
#include "protocol/protocol.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace {

[[noreturn]] void fail(const std::string& why, const nlohmann::json& written) {
  std::fprintf(stderr, "request written back %s:\n%s\n", why.c_str(), written.dump().c_str());
  std::abort();
}

void check_round_trip(const wl::WorkerRequest& request) {
  const nlohmann::json written = wl::request_to_json(request);
  try {
    if (wl::request_to_json(wl::request_from_json(written)) != written)
      fail("reads as another request", written);
  } catch (const wl::UsageError& e) {
    fail(std::string("is refused (") + e.what() + ")", written);
  }
}

void read_line(const std::string& text) {
  const nlohmann::json line = wl::parse_json_text(text, "request line", wl::kMaxRequestLineBytes);
  const wl::WorkerRequest request = wl::request_from_json(line);
  check_round_trip(request);
  if (request.type == wl::RequestType::model || request.type == wl::RequestType::run ||
      request.type == wl::RequestType::sweep)
    wl::request_kernel(request);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = wl::fuzz::as_text(data, size);
  std::size_t at = 0;
  wl::LineReader lines(
      [&](char* into, std::size_t room) {
        const std::size_t n = std::min({room, input.size() - at, std::size_t{4093}});
        input.copy(into, n, at);
        at += n;
        return n;
      },
      wl::kMaxRequestLineBytes);
  std::string text;
  for (wl::LineStatus status; (status = lines.next(text)) != wl::LineStatus::end;)
    if (status == wl::LineStatus::line && text.find_first_not_of(" \t\r") != std::string::npos)
      wl::fuzz::read_or_refuse([&] { read_line(text); });
  return 0;
}
