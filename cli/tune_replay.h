/* vkocc tune --replay / --list-strategies (cli/tune_replay.c): search strategies over recorded spaces. */
#ifndef VKOCC_CLI_TUNE_REPLAY_H
#define VKOCC_CLI_TUNE_REPLAY_H
#include <stdbool.h>
/* Whether argv asks for a replay or the strategy list (then cmd_tune hands over to cli_tune_replay). */
bool cli_tune_replay_wanted(int argc, char **argv);
int cli_tune_replay(int argc, char **argv);
#endif
