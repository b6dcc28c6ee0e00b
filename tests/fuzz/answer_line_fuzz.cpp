// Fuzzes the GUI's reader of the worker's answers (tool/protocol/worker_client.cpp,
// WorkerClient::on_line): each line of the input through parse_json_text with kMaxAnswerLineBytes
// and, when it is an object, response_from_json. The client turns any exception into an error
// answer, which would hide a reader bug; here only UsageError counts as a refusal.

#include "base/json_input.h"
#include "fuzz_support.h"
#include "protocol/protocol.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wl::fuzz::each_line(wl::fuzz::as_text(data, size), [](std::string_view text) {
    wl::fuzz::read_or_refuse([&] {
      const nlohmann::json line = wl::parse_json_text(text, "worker line", wl::kMaxAnswerLineBytes);
      if (line.is_object()) // anything else is the worker's stray output, kept for the log
        wl::response_from_json(line);
    });
  });
  return 0;
}
