#include "cli/command.h"

int main(int argc, char** argv) { return muster::cli::run_cli(argc, argv); }
