#include "cli.h"

int main(int argc, char** argv) { return wl::run_cli(argc, argv); }
