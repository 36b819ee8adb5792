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
  const char *queue;     /* --queue compute|graphics|INDEX (else VKOCC_QUEUE, else compute) */
  bool json;             /* --json */
  bool no_clock;         /* --no-shader-clock */
} cli_common;

/* --queue on every command that opens a device, next to --device: table entry, case label, usage text */
#define CLI_OPT_QUEUE 2000
#define CLI_QUEUE_OPTION {"queue", required_argument, 0, CLI_OPT_QUEUE}
/* "queue family 2 (compute-only, --queue compute)" for the text outputs */
void cli_queue_text(const vkocc_device_info *d, char *out, size_t len);

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
/* shader.c: --shader FILE [--entry NAME] [--spec ID=V]... [--define N=V]... [--vary ID=LIST]... [--from SURFACE]
 * on probe, calc and surface (the user's own pipeline, docs/shader.md). */
enum { CLI_OPT_SHADER = 1000, CLI_OPT_ENTRY, CLI_OPT_SPEC, CLI_OPT_DEFINE, CLI_OPT_VARY, CLI_OPT_FROM, CLI_OPT_UNMODIFIED };
#define CLI_SHADER_OPTIONS                                                                                 \
  {"shader", required_argument, 0, CLI_OPT_SHADER}, {"entry", required_argument, 0, CLI_OPT_ENTRY},       \
      {"spec", required_argument, 0, CLI_OPT_SPEC}, {"define", required_argument, 0, CLI_OPT_DEFINE}
#define CLI_MAX_SPEC 64
typedef struct cli_vary { uint32_t id, n; uint32_t *values; } cli_vary;
typedef struct cli_shader {
  const char *path, *entry, *from;
  vkocc_spec_value spec[CLI_MAX_SPEC];
  uint32_t nspec;
  const char *defines[CLI_MAX_SPEC];
  uint32_t ndefines;
  cli_vary vary[4];
  uint32_t nvary;
  bool unmodified; /* probe --unmodified: the pipeline as written, by bisection on its runtime */
} cli_shader;
/* Handles one of the CLI_OPT_* options: 0 when taken, an exit code on a bad value, -1 when not ours. */
int cli_shader_option(const char *cmd, int ch, const char *arg, cli_shader *o);
void cli_shader_free(cli_shader *o);
/* cmd_fingerprint.c: where cli_fingerprint_device keeps the device's fingerprint ("" without a cache dir). */
void cli_fingerprint_cache_path(const vkocc_device_info *d, char *out, size_t len);
/* probe --shader / calc --shader: P of the pipeline, per SM and the binding limit when o->from names a
 * surface or fingerprint. */
int cli_probe_shader(const char *cmd, const cli_common *c, cli_shader *o, const vkocc_probe_options *po, bool use_cache);
int cli_surface_shader(const char *cmd, const cli_common *c, cli_shader *o, const vkocc_probe_options *po,
                       const char *out_path);
/* multi_device.c: --device all (issue 13): every device on its own thread; out_path PREFIX[.json] or NULL. */
int cli_all_devices(const char *cmd, const cli_common *c, const vkocc_surface_options *o, const char *out_path);
int cli_all_fingerprints(const cli_common *c, bool fresh, const char *out_path);
#endif
