// Copyright neardup authors. Licensed under Apache-2.0.
//
// Helpers of the service's wire format shared by the server and the client.
#ifndef NEARDUP_SERVICE_WIRE_H_
#define NEARDUP_SERVICE_WIRE_H_

#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup {

// RFC 4648 base64 (the URL-safe alphabet is accepted too); false on a
// character outside the alphabet.
bool Base64Decode(std::string_view in, std::string* out);
std::string Base64Encode(std::string_view in);

// Whether `s` is valid UTF-8 (JSON strings must be).
bool IsValidUtf8(std::string_view s);

// Appends `s` (valid UTF-8) to *out as a JSON string: quoted, with quotes,
// backslashes and control characters escaped and every other byte as it is.
void AppendJsonString(std::string_view s, std::string* out);

// The bearer token in file `path` (`serve --token-file`, `ingest
// --token-file`), surrounding white space removed. IOError when it cannot
// be read; InvalidArgument when it is shorter than 16 characters.
Result<std::string> ReadTokenFile(const std::string& path);

}  // namespace neardup

#endif  // NEARDUP_SERVICE_WIRE_H_
