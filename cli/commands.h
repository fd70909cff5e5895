// The subcommands defined outside main.cc. Each Add*Command registers its
// subcommand (flags, help) on `app` and returns what main calls when that
// subcommand was chosen; the returned function gives the exit code
// (cli_util.h: 0 done, 1 nothing usable or an output not written, 2 usage).
#ifndef NEARDUP_CLI_COMMANDS_H_
#define NEARDUP_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace neardup_cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command AddKeepCommand(CLI::App* app);       // keep_command.cc: the kept pages as JSON Lines or WARC
Command AddOverlapCommand(CLI::App* app);    // overlap_command.cc: chunk overlap table
Command AddReportCommand(CLI::App* app);     // report_command.cc: report.html, report.json
Command AddMirrorsCommand(CLI::App* app);    // report_command.cc: mirrors.tsv
Command AddEvolveCommand(CLI::App* app);     // crawls_command.cc: evolution across crawls
Command AddConnectedCommand(CLI::App* app);  // crawls_command.cc: connected vs disconnected pages
Command AddSynthWebCommand(CLI::App* app);   // crawls_command.cc: successive crawls of one synthetic web
Command AddPartitionPlanCommand(CLI::App* app);  // partition_command.cc: Zhu et al.'s length partitioning
Command AddServeCommand(CLI::App* app);      // service_command.cc: the incremental service over HTTP
Command AddIngestCommand(CLI::App* app);     // service_command.cc: stream inputs to a running service
Command AddExportCommand(CLI::App* app);     // service_command.cc: a store's groups as dedup's output

}  // namespace neardup_cli

#endif  // NEARDUP_CLI_COMMANDS_H_
