/* Shared by the CLI commands: option parsing, device opening, output. */
#ifndef VKOCC_CLI_H
#define VKOCC_CLI_H
#include "jsonio.h"
#include "vkocc.h"
#include <stdbool.h>
#include <stdio.h>
#include "internal.h"

typedef struct cli_common {
  const char *device;    /* --device (else VKOCC_DEVICE) */
  bool json;             /* --json */
  bool no_clock;         /* --no-shader-clock */
} cli_common;

/* Every command: int cmd_NAME(int argc, char **argv) returning the exit code. */
int cmd_devices(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_surface(int argc, char **argv);
int cmd_calc(int argc, char **argv);
int cmd_fingerprint(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* Prints "vkocc CMD: message" on stderr and returns the status as exit code. */
int cli_error(const char *cmd, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Same with vkocc_last_error(). */
int cli_fail(const char *cmd, vkocc_status s);
/* Strict unsigned parsing: whole string, decimal, optional K/KiB/M suffix when allow_units. */
bool cli_parse_u32(const char *s, bool allow_units, uint32_t *out);
/* Whole-string decimal number within [lo, hi]. */
bool cli_parse_double(const char *s, double lo, double hi, double *out);
/* Comma list and/or ranges A-B[:STEP] of unsigned values; sorted, duplicates removed. */
bool cli_parse_list(const char *s, bool allow_units, uint32_t **out, uint32_t *n);
bool cli_is_tty(void);
/* Progress callback for the library (stderr; set only when stderr is a terminal). */
void cli_progress(void *user, const char *phase, uint32_t done, uint32_t total);
/* Opens the context per --device / VKOCC_DEVICE; on error prints and returns the exit code (>0). */
int cli_open(const char *cmd, const cli_common *c, vkocc_context **ctx);
/* cmd_fingerprint.c: the device's fingerprint, measured or from the cache; used by policy too. */
int cli_fingerprint_device(const cli_common *c, bool fresh, json_t **doc, vkocc_fingerprint *fp);
void cli_print_fingerprint(json_t *doc, const vkocc_fingerprint *fp);
/* One line "LABEL<source> reports ... ; measured ..." from a "vendor_reported" object (nothing if absent). */
void cli_print_vendor_check(const char *label, json_t *vendor_check);
/* Checks, before any measurement, that FLAG's output PATH (NULL: none) can be written as
 * vkocc_write_file_atomic would; on error prints and returns the exit code (>0). */
int cli_check_output(const char *cmd, const char *flag, const char *path);
/* Prints or writes JSON; returns exit code. */
int cli_emit_json(const char *cmd, json_t *doc, const char *path);
#endif
