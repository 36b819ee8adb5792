/* vkocc policy header DB -o tuned.h: a C header of the database's tuned parameter sets, keyed by cluster ID
 * (Kernel Tuner's create_device_targets writes one block per device name; these blocks are per measured
 * architecture). For each kernel: compile-time blocks selected by defining VKOCC_CLUSTER_<id> (the cluster ID
 * with '-' as '_'), a default block, and a run-time table of every cluster entry to match against
 * vkocc_fingerprint's cluster_id. */
#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc policy header (DB | --db STORE) -o FILE\n"
    "Writes a C header of the policy database's parameter sets per cluster ID: for each kernel, #if blocks\n"
    "selected by defining VKOCC_CLUSTER_<cluster id with '-' as '_'> (else the kernel's default), and a table\n"
    "{cluster_id, problem_size_min, problem_size_max, parameters} of every cluster entry for run-time lookup by\n"
    "the cluster ID of the device's fingerprint. Parameters must be integers, numbers, booleans or strings, and\n"
    "names identifiers (letters, digits, '_', '-'; 1 to 63 characters): a database that gives anything else is\n"
    "refused, never written as C it could change. -o - writes the header to standard output. --db STORE: the\n"
    "policy database of a policy store (vkocc policy add, docs/policy-store.md).\n";

int cmd_policy_header(cli_run *run, int argc, char **argv) {
  const char *out = NULL, *store = NULL;
  static const struct option opts[] = {{"output", required_argument, 0, 'o'}, {"db", required_argument, 0, 'b'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
    switch (ch) {
    case 'o': out = optarg; break;
    case 'b': store = optarg; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (store && optind < argc) return cli_error("policy", 2, "header: give a database or --db STORE, not both");
  if (!store && optind >= argc) return cli_error("policy", 2, "header: expected a policy database (see vkocc policy header --help)");
  if (optind + 1 < argc) return cli_error("policy", 2, "header: unexpected argument '%s'", argv[optind + 1]);
  if (!out) return cli_error("policy", 2, "header: -o FILE is required");
  const char *path = store ? store : argv[optind];
  int rc = cli_check_output("policy", "-o", out);
  if (rc || (rc = cli_check_not_input("policy", "-o", out, &path, 1))) return rc;
  char *text = NULL;
  vkocc_status st = store ? vkocc_policy_store_header(store, &text) : vkocc_policy_header(path, &text);
  if (st) return cli_fail("policy", st);
  if (!strcmp(out, "-")) { /* standard output, as everywhere */
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0;
    free(text);
    return ok ? 0 : cli_error("policy", 1, "cannot write to standard output");
  }
  st = vkocc_write_file_atomic(out, text, strlen(text));
  free(text);
  if (st) return cli_fail("policy", st);
  if (cli_is_tty()) fprintf(stderr, "written:   %s\n", out); /* stdout stays quiet: the header went to -o */
  return 0;
}
