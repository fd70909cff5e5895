// Copyright neardup authors. Licensed under Apache-2.0.
//
// TSV field escaping shared by every table neardup writes. Fields never
// contain a raw tab, CR or LF: those bytes (and '%' itself, so the encoding
// can be undone) are percent-encoded as in URLs (%09, %0D, %0A, %25). Any
// other byte, including non-ASCII UTF-8, is written as it is.
#ifndef NEARDUP_BASE_TSV_H_
#define NEARDUP_BASE_TSV_H_

#include <string>
#include <string_view>
#include <vector>

namespace neardup {

// Appends `field` to *out, escaped. '%' is escaped only when `escape_percent`
// (URLs keep their own percent-encoding untouched: a URL has no raw tab).
void AppendTsvField(std::string_view field, std::string* out, bool escape_percent = false);

// Splits one TSV line (without its newline) into fields.
void SplitTsvLine(std::string_view line, std::vector<std::string_view>* fields);

}  // namespace neardup

#endif  // NEARDUP_BASE_TSV_H_
