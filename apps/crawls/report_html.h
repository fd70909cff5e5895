// Copyright neardup authors. Licensed under Apache-2.0.
//
// The HTML reports of RunEvolve and RunConnected, built with the shared
// report writer (apps/analysis/analysis.h). Internal to apps/crawls.
#ifndef NEARDUP_CRAWLS_REPORT_HTML_H_
#define NEARDUP_CRAWLS_REPORT_HTML_H_

#include <string>

#include "crawls/crawls.h"

namespace neardup::crawls_internal {

// A self-contained HTML page: tables and inline SVG plots of the summary.
std::string EvolveHtml(const EvolveSummary& summary);
std::string ConnectedHtml(const ConnectedSummary& summary);

}  // namespace neardup::crawls_internal

#endif  // NEARDUP_CRAWLS_REPORT_HTML_H_
