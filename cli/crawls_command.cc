// neardup evolve, neardup connected
#include "commands.h"

namespace neardup_cli {

Command AddEvolveCommand(CLI::App* app) {
  Command c;
  c.app = app->add_subcommand("evolve", "(in progress)");
  c.run = [] { return 2; };
  return c;
}

Command AddConnectedCommand(CLI::App* app) {
  Command c;
  c.app = app->add_subcommand("connected", "(in progress)");
  c.run = [] { return 2; };
  return c;
}


Command AddSynthWebCommand(CLI::App* app) {
  Command c;
  c.app = app->add_subcommand("synth-web", "(in progress)");
  c.run = [] { return 2; };
  return c;
}
}  // namespace neardup_cli
