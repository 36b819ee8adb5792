/* Internal to libvkocc: tuning the user's own Vulkan kernel from a T1 specification (docs/tune.md).
 *
 * tu_prepare reads the spec and enumerates its space; tu_tune runs a search strategy (tune/search/search.h) over it:
 * every configuration proposed is compiled (one compile per distinct set of -D defines; parameters that are
 * specialization constants never recompile), its pipeline created, P of that pipeline measured when an
 * expression needs it, its output validated on poisoned buffers, then timed with queue timestamps under the
 * stopping rule of the shipped kernels. A configuration that fails is recorded with its T4 invalidity and
 * never chosen. */
#ifndef VKOCC_TUNE_USER_H
#define VKOCC_TUNE_USER_H
#include "t1.h"
#include "internal.h"
#include <signal.h>

enum { TU_P_OWN, TU_P_SAME_PIPELINE, TU_P_SAME_RESOURCES };
typedef enum { TU_CORRECT, TU_COMPILE, TU_RUNTIME, TU_TIMEOUT, TU_CORRECTNESS, TU_CONSTRAINTS } tu_invalidity;
/* The T4 invalidity value: "correct", "compile", "runtime", "timeout", "correctness", "constraints". */
const char *tu_invalidity_name(tu_invalidity v);
bool tu_invalidity_parse(const char *name, tu_invalidity *out);

/* The phases of one configuration's measurement (tune/harness/measure.c tu_measure_config), each timed: prepare (compile,
 * pipeline, P), validate (the first run, checked), warm (untimed runs), trials (the timed runs), summary. */
typedef enum { TU_PHASE_PREPARE, TU_PHASE_VALIDATE, TU_PHASE_WARM, TU_PHASE_TRIALS, TU_PHASE_SUMMARY, TU_NPHASES } tu_phase;
/* "prepare", "validate", "warm", "trials", "summary": the members of a result's "cost" object */
const char *tu_phase_name(tu_phase p);

typedef struct tu_result {
  bool measured;
  tu_invalidity inv;
  char error[600];
  int64_t P;                 /* occupancy of the configuration's pipeline, -1 when not measured */
  bool P_model;              /* P is the device model's (tu_P_model), not a measurement */
  /* P taken from another configuration's measurement in this run (P_from, its index): TU_P_SAME_PIPELINE, the
   * same module and specialization (so the same pipeline); TU_P_SAME_RESOURCES, another pipeline with the same
   * workgroup size and the same statistics that bound occupancy (registers, shared memory) */
  uint8_t P_memo;
  int64_t P_from;
  uint32_t local[3], groups[3];
  double median_ns, spread, min_ns, max_ns;
  uint32_t runs;
  /* racing (tune/search/race.h): 1 when its runs put it behind the best and it stopped before the full rule ("stopped:
   * behind the best"; its median, spread and runs are those of the runs it had); race_best_ns and race_margin: the
   * incumbent's median it was held against and the whole margin then (the early runs' bias included). A byte, not a bool: journals copy results as bytes */
  uint8_t stopped;
  double race_best_ns, race_margin;
  double *times_ns;          /* runs entries */
  /* the final round (tu_options.confirm): the best configurations re-timed in interleaved rounds, so that
   * the load of the host falls on all of them alike; 0 runs: not among them */
  double confirm_ns, confirm_spread;
  uint32_t confirm_runs;
  double warmup_ms;          /* GPU time of untimed dispatches before the timed ones */
  double compile_ms;         /* the compile this configuration needed (0 when its module was compiled before) */
  double pipeline_ms, occupancy_ms, measure_ms, other_ms, total_ms;
  double phase_ms[TU_NPHASES]; /* host time of each phase (prepare holds compile, pipeline and P) */
  double wait_ms;            /* of compile + pipeline, what the measuring thread waited for (0: built ahead in time) */
  double gpu_ms;             /* device time of its dispatches (validation, warm-up, timed runs) */
  double device_ms;          /* device time of its batches as a whole: the dispatches and the restores, compares
                              * and clock probes around them (the time the device was busy with it) */
  uint32_t submissions;      /* batches submitted and waited for (validation, warm-up, trials, a readback) */
  /* clock evidence (a probe beside each batch; 0 without one): the lowest and highest readings of its timed
   * batches, the steady estimate then, batches measured again for a low clock, and kept low (retries spent) */
  double clock_min, clock_max, clock_steady;
  uint32_t clock_again, clock_kept;
  char when[24];             /* UTC, ISO 8601 */
} tu_result;

typedef struct tu_run {
  t1_spec spec;
  t1_space space;
  char name[128];            /* the kernel's name in results and policies (the spec file's stem) */
  tu_result *r;              /* space.count entries, by configuration index */
  uint32_t *order;           /* evaluation order (nevals entries) */
  uint32_t nevals;
  char strategy[64];
  uint64_t seed;
  tune_budget budget;
  bool param_spec[32];       /* the parameter reaches the shader as a specialization constant (else -D) */
  bool param_launch[32];     /* ... or only through LocalSize / GlobalSize (the source never names it) */
  uint32_t compiles, pipelines;
  double compile_ms, pipelines_ms, occupancy_ms, measure_ms, elapsed_ms;
  double device_ms;          /* the device busy with the tuning's batches (configurations, sentinel, final round) */
  double tuning_ms;          /* host wall of the reference, search, sentinel and final round, less setup_ms */
  double search_ms, search_device_ms; /* of it the reference and the search (no sentinel, no final round): the wall
                                       * less setup_ms, and the device busy in it */
  char reference[512];       /* "ReferenceArguments", or the key of the configuration used as reference */
  uint32_t resumed;
  uint32_t filtered;         /* allowed configurations left out by --only */
  double setup_ms;           /* buffers: the arguments' data generated and uploaded (not any configuration's) */
  uint32_t device_losses;
  /* the sentinel: one configuration timed again during the run (tu_options.sentinel_every) */
  int64_t sentinel_config;   /* -1: none */
  struct tu_sentinel { uint32_t after; double median_ns, spread; } *sentinel;
  uint32_t nsentinel;
  double sentinel_ms;        /* host time spent on it (not in the per-configuration costs) */
  json_t *by_key;            /* tu_key_index: key -> configuration index (NULL until first needed) */
  bool validated_on_device;  /* some outputs were compared with the reference by a compare dispatch */
} tu_run;

typedef struct tu_options {
  const char *strategy;      /* NULL: the spec's Search.Name (default brute_force) */
  uint64_t seed;
  tune_budget budget;        /* nonzero fields override the spec's Budget */
  const char *reference;     /* "NAME=VALUE,..." : the configuration whose output is the reference */
  bool always_P;             /* measure P of every configuration, not only when an expression names it */
  double target_spread;      /* 0: the stopping rule's default (tu_enough_runs) */
  uint32_t min_runs, max_runs; /* 0: the stopping rule's defaults (tu_min_runs, tu_max_runs) */
  double max_config_s;       /* timing per configuration, 0: the stopping rule's default */
  /* every configuration to the full rule (no racing: tune/search/race.h); false: a configuration whose runs put it behind
   * the best stops (the search's configurations only: never a reference, the sentinel or the final round) */
  bool full_rule;
  double timeout_s;          /* bound on one dispatch (the first, validated run); 0 = 5 s */
  /* untimed dispatches of each configuration before its timed ones, in GPU time: the host's work between two
   * configurations leaves a GPU idle long enough to lower its clocks (on an H100 the configurations measured after
   * the first ~20 took 2-2.3x longer with 0 or 50 ms; 500 ms brought them back). < 0: none; 0: 500 ms on a GPU,
   * none on a CPU device */
  double warmup_ms;
  /* the warm-up lasts warmup_ratio times the host time the GPU was idle since the previous configuration (at least
   * 20 ms, at most warmup_ms; a cold GPU gets warmup_ms). 0 = 2; < 0: always warmup_ms */
  double warmup_ratio;
  /* every sentinel_every configurations measured, the first correct one is timed again, so a drift of the clocks
   * during the run shows (tu_run.sentinel). 0 = 64; < 0: never */
  int32_t sentinel_every;
  int32_t confirm;           /* how many of the best to re-time in 3 interleaved rounds at the end; 0 = 5, -1 none */
  const vkocc_calibration *cal; /* for P; NULL: a quick calibration when P is first needed */
  /* reopens the context after VK_ERROR_DEVICE_LOST or a timed-out dispatch (NULL: the tuning stops) */
  vkocc_status (*reopen)(void *user, vkocc_context **ctx);
  void (*progress)(void *user, uint32_t done, uint32_t total, double best_ns, double eta_s);
  vkocc_status (*checkpoint)(void *user, const tu_run *run);
  double checkpoint_s;       /* 0 = 10 s */
  void *user;
  volatile sig_atomic_t *stop; /* set (Ctrl-C): the tuning ends after the configuration under way */
  /* Replaces the search (NULL: the strategy within the budget): drive evaluates what it chooses through eval
   * and returns when done. A fleet's worker measures what its coordinator hands out (tune/fleet/). */
  vkocc_status (*drive)(void *drive_user, const tune_space *s, tune_eval_fn eval, void *eval_user);
  void *drive_user;
  /* host threads that compile and create the next configurations' pipelines while the device measures (for a
   * strategy that can say what comes next, tune_strategy_def.peek); 0: one per core less one, at most 16 */
  uint32_t threads;
  /* what the harnesses of one process's devices share (a fleet's workers, tune/fleet/): NULL, each makes its own */
  struct tu_shared *shared;
  /* the fingerprint document given for this device (vkocc_tune_fingerprint[_file], --fingerprint; NULL: none): its
   * per-SM limits serve P where the cache has none and it is this device's (tu_fingerprint_derived) */
  const json_t *fp_doc;
  /* a line for the user (vkocc_tune_options.note), called with note_user; NULL: dropped */
  void (*note)(void *note_user, const char *line);
  void *note_user;
} tu_options;

/* o's fewest and most timed runs of a configuration, the stopping rule's defaults taken (tune/harness/decide.c) */
uint32_t tu_min_runs(const tu_options *o);
uint32_t tu_max_runs(const tu_options *o);

/* The public options of a run (vkocc_tune_options) as the harness takes them: the search (strategy, seed, budget),
 * the reference, what is measured and how (P, the stopping rule, racing, bounds, warm-up, sentinel, final round,
 * threads) and the notes. The caller sets its own callbacks (progress, checkpoint, reopen, drive) and what it
 * overrides. */
void tu_options_from(tu_options *to, const vkocc_tune_options *o);
/* A note (printf-like, one line without its newline) to o->note; nothing without one. */
void tu_note(const tu_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same to a public note callback (the fleet's own notes). */
void tu_note_to(void (*note)(void *user, const char *line), void *user, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The per-SM limits of fingerprint document doc where it is dev's (the same UUID, driver and queue family); false
 * otherwise, or where it has none. A file of another device (--allow-other-device) is not used for P: its SM count
 * need not be this device's. */
bool tu_fingerprint_derived(const json_t *doc, const vkocc_device_info *dev, vkocc_derived *out);

/* Made once per process for every device's harness instead of once per device (tu_options.shared): the arguments'
 * data and the reference outputs (generated on the host), the modules' SPIR-V (compiled on the host). The first
 * harness that needs one makes it, the others wait for it; pipelines, buffers and uploads stay per device. Every
 * harness sharing one must tune the same spec. */
typedef struct tu_shared tu_shared;
tu_shared *tu_shared_new(void);
void tu_shared_free(tu_shared *s);
/* For tu_options.drive: the configurations it will hand eval next (in order), whose modules and pipelines the
 * harness's pool (tu_options.threads) then builds while the device measures; eval_user as drive received it. */
void tu_prefetch(void *eval_user, const uint32_t *next, uint32_t n);

/* Reads and enumerates the spec; name NULL: the file's stem. */
vkocc_status tu_prepare(const char *spec_path, const char *name, tu_run *run);
/* The space of run->spec (read, its device and hooks set) enumerated, its results allocated; the spec is freed on
 * error. tu_prepare = t1_load + tu_begin + the name. */
vkocc_status tu_begin(tu_run *run);
/* The device's limits (texpr_device_names' order) for the spec's expressions; a spec whose conditions name them is
 * enumerated again with them (before resume and --only: USAGE once results are in). tu_tune refuses a spec naming
 * them without. */
vkocc_status tu_bind_device(tu_run *run, const int64_t device[TEXPR_NDEVICE]);
/* --only PARAM=V1,V2: keeps the configurations whose PARAM is one of the values (before tu_tune). */
vkocc_status tu_restrict(tu_run *run, const char *only);
/* Keeps configuration c where keep[c] or it was measured (resumed); VKOCC_ERROR_USAGE, without a message, when
 * none is left (the run is then unchanged). */
vkocc_status tu_keep(tu_run *run, const bool *keep);
/* Runs the search. *ctx may be replaced (device loss). VKOCC_ERROR_USAGE (exit 2) for a spec that does not
 * fit the kernel (arguments vs bindings, a parameter that reaches neither a constant nor a define, a
 * literal workgroup size that disagrees with LocalSize, no configuration compiles); stop: VKOCC_ERROR_RUNTIME
 * "interrupted" with what was measured kept in run. */
vkocc_status tu_tune(vkocc_context **ctx, tu_run *run, const tu_options *o);
/* The best valid configuration: the lowest interleaved median among those the final round re-timed, else the
 * lowest median; -1 none. The time it is ranked by: tu_rank_ns. */
double tu_rank_ns(const tu_result *r);
int64_t tu_best(const tu_run *run);
void tu_run_free(tu_run *run);
/* The sentinel's medians: lowest, highest and the largest spread of its runs; false without 2 points. Drift of
 * the device (not noise) when the range (hi - lo) / lo is above 5% and above 4 times that spread. */
bool tu_sentinel_summary(const tu_run *run, double *lo, double *hi, double *max_spread, bool *drifted);
/* The same as the public summary (vkocc_tune_sentinel_get; a fleet's lone device's): false without 2 points. */
bool tu_sentinel_of(const tu_run *run, vkocc_tune_sentinel *out);
/* The clocks drifted when the same configuration's medians lie apart by a relative range of more than 5% and more
 * than 4 times the largest spread among them (a lone device's sentinel, a fleet's references). Pure. */
bool tu_drifted(double range, double max_spread);
/* The stopping rule of one configuration's timed runs: at least min_runs whose spread (MAD / median) is at most
 * target_spread, or at least 3 runs after max_config_s of timing (elapsed_ms). The run cap is the caller's. */
bool tu_enough_runs(const tu_options *o, const double *ns, uint32_t runs, double elapsed_ms);
/* P of a pipeline of wg_size invocations with these statistics (shared bytes, registers per invocation) under
 * the device's per-SM limits d and register model m, where they determine it: the SM count certain, the register
 * file known, and every limit that binds pinned by the measured points (not a lower bound alone). False: P must
 * be measured. Pure. */
bool tu_P_model(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg_size, uint32_t shared_bytes,
                uint32_t registers, uint32_t *P);
/* Index of the configuration whose key is key, -1 none; through tu_key_index, the map of keys (t1_config_key) to
 * indices, built once. */
int64_t tu_find(tu_run *run, const char *key);
json_t *tu_key_index(tu_run *run);
#endif
