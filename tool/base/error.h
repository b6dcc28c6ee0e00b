#pragma once
// Errors that reach the user, each one line. Code that reports a failure to the user catches
// Error; code that must tell them apart catches the kind it handles. The CLI prints the message
// and exits with code 2 (1 for a VerificationFailure).

#include <stdexcept>
#include <string>

namespace wl {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A value the user gave (an option, a file, a field, a request) that WarpLens cannot use: the
// message names it and what is allowed.
struct UsageError : Error {
  using Error::Error;
};

// The GPU or its libraries failed a call that was right to make (a CUDA or CUPTI error, a kernel
// that faulted): the message names the call and the driver's reason.
struct DeviceError : Error {
  using Error::Error;
};

// A run whose outputs differ from the CPU reference: the CLI exits with code 1, not 2.
struct VerificationFailure : UsageError {
  using UsageError::UsageError;
};

} // namespace wl
