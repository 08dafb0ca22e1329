// Subcommands of the `ringside` binary. Each returns the process exit code:
// 0 success, 1 runtime failure, 2 bad usage (a bad flag or value, named in one line).
#pragma once

namespace ringside::apps {

int run_serve(int argc, char** argv);
int run_load(int argc, char** argv);
int run_merge(int argc, char** argv);  // results of several `load` runs as one
int run_db(int argc, char** argv);  // `db temp`, `db init`
int run_compare(int argc, char** argv);  // `compare --validate`, `compare --list`
int run_contestants(int argc, char** argv);  // `contestants install`, `contestants new`

}  // namespace ringside::apps
