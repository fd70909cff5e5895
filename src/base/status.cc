#include "neardup/status.h"

namespace neardup {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kNotFound: name = "NotFound"; break;
    case Code::kCorruption: name = "Corruption"; break;
    case Code::kInvalidArgument: name = "Invalid argument"; break;
    case Code::kIOError: name = "IO error"; break;
    case Code::kNotSupported: name = "Not supported"; break;
    case Code::kResourceExhausted: name = "Resource exhausted"; break;
    case Code::kFailedPrecondition: name = "Failed precondition"; break;
    case Code::kCancelled: name = "Cancelled"; break;
  }
  return std::string(name) + ": " + message_;
}

}  // namespace neardup
