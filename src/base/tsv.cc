#include "base/tsv.h"

namespace neardup {

void AppendTsvField(std::string_view field, std::string* out, bool escape_percent) {
  for (char c : field) {
    switch (c) {
      case '\t': out->append("%09"); break;
      case '\n': out->append("%0A"); break;
      case '\r': out->append("%0D"); break;
      case '%':
        if (escape_percent) {
          out->append("%25");
        } else {
          out->push_back(c);
        }
        break;
      default: out->push_back(c);
    }
  }
}

void SplitTsvLine(std::string_view line, std::vector<std::string_view>* fields) {
  fields->clear();
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos) {
      fields->push_back(line.substr(start));
      return;
    }
    fields->push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
}

}  // namespace neardup
