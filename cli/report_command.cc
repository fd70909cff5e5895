// neardup report, neardup mirrors
#include "commands.h"

namespace neardup_cli {

Command AddReportCommand(CLI::App* app) {
  Command c;
  c.app = app->add_subcommand("report", "(in progress)");
  c.run = [] { return 2; };
  return c;
}

Command AddMirrorsCommand(CLI::App* app) {
  Command c;
  c.app = app->add_subcommand("mirrors", "(in progress)");
  c.run = [] { return 2; };
  return c;
}

}  // namespace neardup_cli
