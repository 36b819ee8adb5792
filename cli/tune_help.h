/* cli/tune_help.c: what `vkocc tune --help` lists of the shipped kernels, and tune's progress line. */
#ifndef VKOCC_CLI_TUNE_HELP_H
#define VKOCC_CLI_TUNE_HELP_H
#include "../tune/tune.h"
#include <stdio.h>
/* The kernels and every value of each parameter: what --only PARAM=V1,V2 takes. */
void cli_tune_print_params(FILE *f);
/* The progress line (cli_progress_line) with the best valid configuration of run measured so far. */
void cli_tune_progress(const tune_run *run, const char *phase, uint32_t done, uint32_t total);
#endif
