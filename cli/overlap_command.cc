// neardup overlap
#include "commands.h"

namespace neardup_cli {

Command AddOverlapCommand(CLI::App* app) {
  Command c;
  c.app = app->add_subcommand("overlap", "(in progress)");
  c.run = [] { return 2; };
  return c;
}

}  // namespace neardup_cli
