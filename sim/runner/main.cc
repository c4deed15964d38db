#include <iostream>

#include "sim/runner/cli.h"

int main(int argc, char** argv) { return kvroute::sim::RunCli(argc, argv, std::cout, std::cerr); }
