/* Shared by the CLI commands: option parsing, device opening, output. */
#ifndef VKOCC_CLI_H
#define VKOCC_CLI_H
#include "vkocc.h"
#include "vkocc_plot.h" /* declarations only: the plots link where cairo is built (VKOCC_HAVE_CAIRO) */
#include <stdbool.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

/* One run of a command: its name, whether its table row lets it use a device, and the device it opened (through
 * cli_open, on first use): the runner (cli_dispatch) closes it when the command returns, so no command does. */
typedef struct cli_run {
  const char *name;
  bool device;           /* the command table's say: this command may open a device */
  vkocc_context *ctx;    /* opened by cli_open; NULL until then */
} cli_run;

/* A row of a command table (main.c's commands, policy's subcommands): the one dispatch of every subcommand. */
typedef enum { CLI_NO_DEVICE = 0, CLI_DEVICE = 1 } cli_device_use;
typedef struct cli_command {
  const char *name;
  int (*fn)(cli_run *run, int argc, char **argv);
  const char *what;
  cli_device_use device; /* CLI_DEVICE: may open a device (cli_open), which the runner closes */
} cli_command;
/* Runs the row of table whose name is argv[0] with argv[0] renamed "vkocc PARENT NAME" (getopt's messages): a
 * run of its own, closed after it. NULL when no row has that name. */
const cli_command *cli_find_command(const cli_command *table, size_t n, const char *name);
int cli_dispatch(const cli_command *cmd, const char *parent, int argc, char **argv);
/* Closes what the run opened. */
void cli_run_close(cli_run *run);

typedef struct cli_common {
  cli_run *run;          /* the command's run: where cli_open keeps the device */
  const char *device;    /* --device (else VKOCC_DEVICE) */
  const char *queue;     /* --queue compute|graphics|INDEX (else VKOCC_QUEUE, else compute) */
  bool json;             /* --json */
  bool no_clock;         /* --no-shader-clock */
  const char *output;    /* -o/--output FILE: where the command's data document goes */
  vkocc_method method;   /* --method (0: auto) */
  bool have_method;
  bool quiet;            /* no progress lines (the threads of --device all share the terminal) */
  bool allow_other_device; /* --allow-other-device: a --fingerprint FILE of another device is used anyway */
} cli_common;

/* The option table every command shares, so each option is spelled, parsed and worded once: entries for
 * getopt_long's table (short 'd' and 'o' go into the optstring as "d:o:"), handled by cli_common_option. */
#define CLI_OPT_QUEUE 2000
enum { CLI_OPT_JSON = 2101, CLI_OPT_NO_CLOCK, CLI_OPT_METHOD };
#define CLI_QUEUE_OPTION {"queue", required_argument, 0, CLI_OPT_QUEUE}
#define CLI_DEVICE_OPTIONS                                                                                  \
  {"device", required_argument, 0, 'd'}, CLI_QUEUE_OPTION, {"no-shader-clock", no_argument, 0, CLI_OPT_NO_CLOCK}
#define CLI_JSON_OPTION {"json", no_argument, 0, CLI_OPT_JSON}
#define CLI_OUTPUT_OPTION {"output", required_argument, 0, 'o'}
#define CLI_METHOD_OPTION {"method", required_argument, 0, CLI_OPT_METHOD}
/* Handles one of the shared options: 0 when taken, an exit code on a bad value, -1 when not ours. */
int cli_common_option(const char *cmd, int ch, const char *arg, cli_common *c);
/* getopt's '?' (it has printed "vkocc CMD: unrecognized option ..."): the usage on stderr, exit 2. */
int cli_usage_error(const char *help);
/* "queue family 2 (compute-only, --queue compute)" for the text outputs */
void cli_queue_text(const vkocc_device_info *d, char *out, size_t len);

/* Every command: int cmd_NAME(cli_run *run, int argc, char **argv) returning the exit code (main.c's table). */
int cmd_devices(cli_run *run, int argc, char **argv);
int cmd_calibrate(cli_run *run, int argc, char **argv);
int cmd_probe(cli_run *run, int argc, char **argv);
int cmd_surface(cli_run *run, int argc, char **argv);
int cmd_calc(cli_run *run, int argc, char **argv);
int cmd_fingerprint(cli_run *run, int argc, char **argv);
int cmd_cluster(cli_run *run, int argc, char **argv);
int cmd_policy(cli_run *run, int argc, char **argv);
int cmd_plot(cli_run *run, int argc, char **argv);
int cmd_view(cli_run *run, int argc, char **argv);
int cmd_tune(cli_run *run, int argc, char **argv);
int cmd_tune_spec(cli_run *run, int argc, char **argv);     /* vkocc tune SPEC.json: a user kernel from a T1 file */
/* tune_fleet.c: --device all or a list, or under mpirun/srun: one spec on several devices and ranks */
/* A tune's sentinel as its "clocks:" line says it (without the label), and on stderr the warning where it drifted */
void cli_sentinel_line(const vkocc_tune_sentinel *sen, char *out, size_t len);
bool cli_tune_fleet_wanted(const char *device);
/* What a tune does with its results documents at its end: --policy DB, the policy database of the results (and its
 * transfer report, DB.transfer.json); --db STORE, the results added to the SQLite policy store. NULL: not asked. */
typedef struct cli_tune_after {
  const char *policy, *store;
} cli_tune_after;
int cli_tune_fleet(cli_common *c, const char *spec, const char *name, const char *fp_path, bool resume, const char *t4,
                   const cli_tune_after *after, vkocc_tune_options *o);
/* Before anything is measured: neither file is one of the n inputs and outputs (NULL entries skipped). */
int cli_tune_after_check(const cli_tune_after *after, const char *const *files, uint32_t n);
/* At the end, on the results documents written (rank 0 alone under MPI). */
int cli_tune_after_run(const cli_tune_after *after, const char *const *results, uint32_t n);
int cmd_policy_header(cli_run *run, int argc, char **argv); /* vkocc policy header DB -o tuned.h */
int cmd_barrier_test(cli_run *run, int argc, char **argv);

/* `vkocc surface --registers` (cli/registers.c): its options, from cmd_surface's one parse */
typedef struct cli_surface_registers_args {
  bool registers;        /* --registers */
  uint32_t *wg, nwg;     /* --wg (owned by the caller) */
  uint32_t *live, nlive; /* --live */
  const char *from;      /* --from: the other limits */
} cli_surface_registers_args;
extern const char cli_surface_registers_help[];
int cli_surface_registers(cli_common *c, const cli_surface_registers_args *a);

/* Prints "vkocc CMD: message" on stderr and returns the status as exit code. */
int cli_error(const char *cmd, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The text of the last message cli_error printed (without "vkocc CMD: "), for a caller that passes it on. */
const char *cli_last_message(void);
/* Same with vkocc_last_error(). */
int cli_fail(const char *cmd, vkocc_status s);
/* Strict unsigned parsing: whole string, decimal, optional K/KiB/M suffix when allow_units. */
bool cli_parse_u32(const char *s, bool allow_units, uint32_t *out);
/* Whole-string decimal number within [lo, hi]. */
bool cli_parse_double(const char *s, double lo, double hi, double *out);
/* Comma list and/or ranges A-B[:STEP] of unsigned values; sorted, duplicates removed. */
bool cli_parse_list(const char *s, bool allow_units, uint32_t **out, uint32_t *n);
bool cli_is_tty(void);
/* vkocc_tune_options.note: the tuning's notes, a line each on stderr */
void cli_tune_note(void *user, const char *line);
/* Progress callback for the library (stderr; set only when stderr is a terminal): phase, done/total,
 * the phase's elapsed time and an ETA from its rate so far. */
void cli_progress(void *user, const char *phase, uint32_t done, uint32_t total);
/* The same line with EXTRA after it (e.g. "best 41.2 us"), for commands with their own callback. */
void cli_progress_line(const char *phase, uint32_t done, uint32_t total, const char *extra);
/* The context per --device / VKOCC_DEVICE, opened on first use and kept in c->run (the runner closes it: never
 * destroy it); on error prints and returns the exit code (>0). */
int cli_open(const char *cmd, const cli_common *c, vkocc_context **ctx);
/* The options every command's device opens with: c's --device (or `device` where not NULL), --queue,
 * --no-shader-clock, and cli_wait_note as the wait hook. */
vkocc_context_options cli_context_options(const cli_common *c, const char *device);
/* The wait hook (vkocc_context_options.wait): a wait on another vkocc process that lasts a second says on
 * stderr, at once (terminal or not), what it waits for, the holder's pid and the bound; Ctrl-C stops it. */
bool cli_wait_note(void *user, const vkocc_wait_info *w);
/* common.c: the device's fingerprint through vkocc_fingerprint_measure (measured or from the cache,
 * c->method, notes prefixed with cmd); details freed by the caller. */
int cli_fingerprint_measure(const char *cmd, const cli_common *c, bool fresh, vkocc_fingerprint *fp,
                            vkocc_fingerprint_details *details);
/* The register axis into a measured fingerprint's document (vkocc_fingerprint_registers on c's device; progress on
 * a terminal unless c->quiet). Never fails: an axis that cannot be measured is recorded as unknown, with the reason. */
void cli_fingerprint_registers(const cli_common *c, bool fresh, vkocc_fingerprint_details *det);
/* cli_fingerprint_measure (and with registers, cli_fingerprint_registers), handing out the whole document instead of
 * the details (*doc: json_decref it). */
int cli_fingerprint_device(const char *cmd, const cli_common *c, bool fresh, bool registers, json_t **doc,
                           vkocc_fingerprint *fp);
/* For tune: the session's fingerprint (fp_path, else the device's cached one, measured when absent) and the opened
 * context. Returns an exit code; on failure nothing is left open. */
int cli_tune_device(const cli_common *c, const char *fp_path, vkocc_tune_session *s, vkocc_context **ctx);
/* tune_replay.c: `tune --replay` and `--list-strategies` (no device); cmd_tune hands over to it when its one parse
 * over every form's options (these tables and its own) finds either. */
int cli_tune_replay(cli_run *run, int argc, char **argv);
extern const struct option cli_tune_replay_options[], cli_tune_spec_options[];
/* cmd_fingerprint.c: the human summary of a fingerprint document measured on di. */
void cli_print_fingerprint(json_t *doc, const vkocc_fingerprint *fp, const vkocc_device_info *di);
/* One line "derived: N SMs (ambiguous); per SM: W workgroups, S subgroups of G (T threads), M shared bytes;
 * E/P points explained" for surface, calc and fingerprint alike; `from` names a file the limits were read
 * from (NULL: derived here). */
void cli_print_derived(const char *label, const vkocc_derived *d, const char *from);
/* One line "LABEL<source> reports ... ; measured ..." from a "vendor_reported" object (nothing if absent). */
void cli_print_vendor_check(const char *label, json_t *vendor_check);
/* Checks, before any measurement, that FLAG's output PATH (NULL: none) can be written as
 * vkocc_write_file_atomic would, and that it is none of the files the command line names (by device and inode,
 * through links; the values of -o, --t4, --raw, --screenshot and --plot are outputs, the rest may be inputs):
 * every command's output passes here. On error prints and returns the exit code (>0). */
int cli_check_output(const char *cmd, const char *flag, const char *path);
/* The command line cli_check_output reads (main sets it). */
void cli_command_line(int argc, char **argv);
/* Exit 2 when the output OUT is one of the inputs (the same file by device and inode: a path spelled another
 * way, a link), which writing would destroy; 0 otherwise ("-" is never one). The check cli_check_output makes
 * against the command line, for inputs the command line does not name (a spec's kernel source). */
int cli_check_not_input(const char *cmd, const char *flag, const char *out, const char *const *inputs, uint32_t n);
/* An exclusive lock on OUT (a lock file beside it) held until the process exits, so that two vkocc writing one
 * results file never lose one's runs silently: the second is refused (exit 2) naming the first's pid. */
int cli_lock_output(const char *cmd, const char *out);
/* Prints or writes JSON; returns exit code. */
int cli_emit_json(const char *cmd, json_t *doc, const char *path);
/* shader.c: --shader FILE [--entry NAME] [--spec ID=V]... [--define N=V]... [--vary ID=LIST]... [--from SURFACE]
 * on probe, calc and surface (the user's own pipeline, docs/shader.md). */
enum { CLI_OPT_SHADER = 1000, CLI_OPT_ENTRY, CLI_OPT_SPEC, CLI_OPT_DEFINE, CLI_OPT_VARY, CLI_OPT_FROM, CLI_OPT_UNMODIFIED,
       CLI_OPT_ALLOW_OTHER_DEVICE };
/* --from FILE measured on another device or driver is refused unless this is given */
#define CLI_ALLOW_OTHER_DEVICE_OPTION {"allow-other-device", no_argument, 0, CLI_OPT_ALLOW_OTHER_DEVICE}
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
  bool allow_other_device; /* --allow-other-device: use --from though another device or driver measured it */
} cli_shader;
/* Handles one of the CLI_OPT_* options: 0 when taken, an exit code on a bad value, -1 when not ours. */
int cli_shader_option(const char *cmd, int ch, const char *arg, cli_shader *o);
void cli_shader_free(cli_shader *o);
/* Where vkocc_fingerprint_measure keeps the device's fingerprint ("" without a cache dir). */
void cli_fingerprint_cache_path(const vkocc_device_info *d, char *out, size_t len);
/* probe --shader / calc --shader: P of the pipeline, per SM and the binding limit when o->from names a
 * surface or fingerprint. */
int cli_probe_shader(const char *cmd, const cli_common *c, cli_shader *o, const vkocc_probe_options *po, bool use_cache);
int cli_surface_shader(const char *cmd, const cli_common *c, cli_shader *o, const vkocc_probe_options *po,
                       const char *out_path);
/* multi_device.c: --device all: every device on its own thread; out_path PREFIX[.json] or NULL. */
int cli_all_devices(const char *cmd, const cli_common *c, const vkocc_surface_options *o, const char *out_path);
int cli_all_fingerprints(const cli_common *c, bool fresh, bool registers, const char *out_path);
/* device_groups.c: the summary of one measurement per device, grouped by cluster ID (no device needed). */
typedef struct cli_device_result {
  uint32_t index;          /* vkocc_enumerate_devices index */
  char name[256], uuid[37];
  char cluster_id[24];     /* "" when none was derived */
  const char *file;        /* the device's document, or NULL */
  int rc;                  /* the measurement's exit code (0 ok) */
  char error[512];
  double wall_ms;          /* the device's thread, context opening included */
} cli_device_result;
/* {"schema": "vkocc.devices-summary/1", "command", "wall_ms", "devices": [...], "clusters": [{"cluster_id",
 * "devices": [index...]}...] (first seen first), "same_cluster": every measured device in one cluster}. */
json_t *cli_device_summary(const char *command, const cli_device_result *r, uint32_t n, double wall_ms);
/* common.c: checked allocations (out of memory ends the process with one line, as in the library) and a
 * cache file's check before it is read (a regular file, opened without blocking: a FIFO never hangs). */
void *cli_xmalloc(size_t n);
void *cli_xcalloc(size_t n, size_t size);
void *cli_xrealloc(void *p, size_t n);
char *cli_xstrdup(const char *s);
/* A document written as the library writes its own (the same text), to path or "-" (standard output). */
vkocc_status cli_json_write(json_t *doc, const char *path);
#endif
