#pragma once
// Errors that reach the user. A UsageError names the bad value and what is allowed; the CLI
// prints its one-line message and exits with code 2.

#include <stdexcept>
#include <string>

namespace wl {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A run whose outputs differ from the CPU reference: the CLI exits with code 1, not 2.
struct VerificationFailure : UsageError {
  using UsageError::UsageError;
};

} // namespace wl
