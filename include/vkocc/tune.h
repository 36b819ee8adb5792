/* vkocc/tune.h: tuning a kernel; part of <vkocc.h>. */
#ifndef VKOCC_API_TUNE_H
#define VKOCC_API_TUNE_H

#include <signal.h> /* sig_atomic_t: the stop flag of a tuning run */
#include "common.h"
#include "device.h"
#include "fingerprint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ tuning (docs/tune.md)
 * A tuning session measures every configuration a search proposes of one kernel: a shipped one (histogram,
 * reduce at n elements, through its built-in T1 spec, each answer checked against a CPU reference; its results
 * are the vkocc.tune-results/1 document policies read) or the user's own from a T1 spec (Kernel
 * Tuner / KTT's format: parameters as specialization constants or -D defines, outputs validated on poisoned
 * buffers, T4 results). The order of the calls: open, optionally fingerprint and resume, then prepare on a
 * context (options.only restricts the space), run, and read the results or write their documents; close. The documents are
 * `struct json_t *` of jansson (include <jansson.h> to use them; json_decref each). Usage:
 *
 *   vkocc_tune_session *s = NULL;
 *   const char *only[] = {"TILE_X=8,16"};              // --only: two values of one parameter
 *   vkocc_tune_options o = {.only = only, .nonly = 1, .output = "results.json"};
 *   int64_t best;
 *   if (vkocc_tune_open_spec("examples/tune/transpose/transpose.json", NULL, &s) == VKOCC_OK &&
 *       vkocc_tune_prepare(s, ctx, &o) == VKOCC_OK && vkocc_tune_run(s, &ctx, &o) == VKOCC_OK &&
 *       (best = vkocc_tune_best(s)) >= 0) {               // -1: no configuration was correct
 *     vkocc_tune_result r;
 *     vkocc_tune_result_get(s, (uint32_t)best, &r);
 *     printf("best %s: %.1f us\n", r.key, r.rank_ns / 1e3);
 *   }
 *   vkocc_tune_close(s);                                  // NULL is fine
 */
struct json_t;
typedef struct vkocc_tune_session vkocc_tune_session;

/* A T1 spec: reads the file and enumerates its space less its conditions (no device). name: the kernel's name in
 * results and policies (NULL: the file's stem). VKOCC_ERROR_USAGE naming the file and JSON path for a spec
 * outside the subset vkocc reads (docs/tune.md). */
vkocc_status vkocc_tune_open_spec(const char *spec_path, const char *name, vkocc_tune_session **out);
/* A shipped kernel ("histogram", "reduce") of element type type ("u32", "f32"; NULL: u32) at n elements (checked
 * against the device by vkocc_tune_prepare). VKOCC_ERROR_USAGE for an unknown kernel or type. */
vkocc_status vkocc_tune_open_kernel(const char *kernel, const char *type, uint64_t n, vkocc_tune_session **out);
/* Frees the session and all it holds (NULL: nothing). */
void vkocc_tune_close(vkocc_tune_session *s);
/* The shipped kernels, what each computes and every value of each parameter (what options.only takes), as lines
 * of text ("  histogram: ...\n  histogram parameters: variant=... wg_size=...\n"); free() it. */
char *vkocc_tune_kernels_text(void);

/* Who measures, as the documents record it: the device's fingerprint (cluster ID and normalized surface, from
 * vkocc_fingerprint_measure; details may be NULL), or a fingerprint file. Without one the documents carry the
 * device alone. VKOCC_ERROR_USAGE naming the file and JSON path for a bad file. */
vkocc_status vkocc_tune_fingerprint(vkocc_tune_session *s, const vkocc_fingerprint *fp,
                                    const vkocc_fingerprint_details *details);
vkocc_status vkocc_tune_fingerprint_file(vkocc_tune_session *s, const char *path);
/* Before vkocc_tune_prepare: continues a results document written before (vkocc_tune_write, options.output): its
 * configurations are not measured again. A path that does not exist is nothing to resume. A shipped kernel's
 * file is read now (VKOCC_ERROR_USAGE for another kernel, type or size), a T1 session's by vkocc_tune_prepare
 * (another spec hash); both are refused by vkocc_tune_prepare when measured on another device. */
vkocc_status vkocc_tune_resume(vkocc_tune_session *s, const char *path);
/* The configurations taken from the resumed file (after vkocc_tune_prepare). */
uint32_t vkocc_tune_resumed(const vkocc_tune_session *s);

/* How a run searches and measures; zero fields take the defaults. */
typedef struct vkocc_tune_progress {
  const char *phase;         /* "tune" */
  uint32_t done, total;
  double best_ns;            /* the best valid configuration so far (INFINITY: none yet) */
  const char *best_key;      /* its key (NULL: not known to this phase) */
  double eta_s;              /* seconds left (NAN: unknown) */
} vkocc_tune_progress;
typedef struct vkocc_tune_options {
  const char *const *only;   /* "PARAM=V1,V2": keeps the configurations whose PARAM is one of the values (shipped
                                kernels: and those without PARAM; resumed results are kept whatever it says) */
  uint32_t nonly;
  const char *output;        /* the results document, written atomically every 10 s, when the run fails (what was
                                measured, for vkocc_tune_resume) and at the end; NULL: none */
  /* Every session, a shipped kernel's too (it runs through its built-in T1 spec): */
  const char *t4_output;     /* the T4 results, and their metadata at vkocc_tune_t4_metadata_path */
  const char *strategy;      /* the search strategy (vkocc_tune_strategy; NULL: the spec's Search.Name) */
  uint64_t seed;             /* the strategy's seed */
  uint64_t budget_evals;     /* at most this many configurations (0: the spec's Budget) */
  double budget_fraction;    /* at most this fraction of the space (0: the spec's) */
  double budget_seconds;     /* at most this long (0: the spec's) */
  const char *reference;     /* T1: "NAME=VALUE,...": the configuration whose output is the reference (a shipped
                                kernel's is its CPU reference) */
  bool always_occupancy;     /* P of every configuration's pipeline, not only where an expression names it */
  double target_spread;      /* stop repeating when the runs' MAD / median is below (0: 0.02) */
  uint32_t max_runs;         /* at most this many timed runs per configuration (0: 50) */
  /* every configuration timed to the full rule above (false: racing: a configuration whose fastest run so far is
     slower than the best's median by more than the noise measured allows stops after 2 runs, marked stopped) */
  bool full_rule;
  uint32_t threads;          /* host threads that compile and create the next configurations' pipelines while the
                                device measures (strategies that say what comes next); 0 = one per core less one, at most 16 */
  double timeout_s;          /* bound on one dispatch (0: 5 s) */
  double warmup_ms;          /* at most this much device time of untimed dispatches before each configuration
                                is timed (0: 500 ms; < 0: none) */
  double warmup_ratio;       /* the warm-up lasts this many times the GPU's idle time (0: 2; < 0: warmup_ms) */
  int32_t sentinel_every;    /* every N configurations one is timed again (0: 64; < 0: never) */
  int32_t confirm;           /* how many of the best are re-timed in 3 interleaved rounds at the end (0: none) */
  void (*progress)(void *user, const vkocc_tune_progress *p);
  /* reopens the context after a lost device or a timed-out dispatch (NULL: the run stops there) */
  vkocc_status (*reopen)(void *user, vkocc_context **ctx);
  void *user;
  volatile sig_atomic_t *stop; /* set (e.g. by SIGINT): the run ends after the configuration under way */
  /* a note for the user (a journal set aside, a device that left a fleet's search, the final round that did not
     run): one line as `vkocc tune` prints it on stderr, without its newline, called with user (from any of a fleet's
     threads); NULL: none is given. The library itself writes nothing to stdout or stderr. */
  void (*note)(void *user, const char *line);
} vkocc_tune_options;

/* The space on ctx's device: the device's identity, the resumed results (a file of another device:
 * VKOCC_ERROR_USAGE), options->only (VKOCC_ERROR_USAGE for a parameter or value the kernel lacks), for shipped
 * kernels the configurations the device's limits rule out and a size it cannot hold. options may be NULL. A session
 * prepares once: after a failure, close it and open another. */
vkocc_status vkocc_tune_prepare(vkocc_tune_session *s, vkocc_context *ctx, const vkocc_tune_options *options);
/* Measures what the search proposes and is not measured yet. *ctx may be replaced (options->reopen). Errors:
 * VKOCC_ERROR_USAGE or _UNSUPPORTED for a spec that does not fit the kernel (nothing written); otherwise what was
 * measured is kept (and written to options->output, the message saying so: "...; N configurations kept in
 * FILE (--resume continues)"), VKOCC_ERROR_RUNTIME "interrupted" when options->stop was set. A session runs once
 * (a second call, even after a failure: VKOCC_ERROR_USAGE); options->t4_output needs options->output. */
vkocc_status vkocc_tune_run(vkocc_tune_session *s, vkocc_context **ctx, const vkocc_tune_options *options);

/* The T4 validity of a configuration (T4's names: vkocc_tune_validity_name). */
typedef enum vkocc_tune_validity {
  VKOCC_TUNE_CORRECT, VKOCC_TUNE_COMPILE, VKOCC_TUNE_RUNTIME, VKOCC_TUNE_TIMEOUT, VKOCC_TUNE_CORRECTNESS,
  VKOCC_TUNE_CONSTRAINTS
} vkocc_tune_validity;
/* "correct", "compile", "runtime", "timeout", "correctness", "constraints" */
const char *vkocc_tune_validity_name(vkocc_tune_validity v);

/* What a session holds (after vkocc_tune_prepare; figures of the measured configurations after vkocc_tune_run). */
typedef struct vkocc_tune_summary {
  bool spec;                 /* a T1 session (else a shipped kernel) */
  const char *kernel;        /* the shipped kernel's name, or the T1 session's name */
  const char *kernel_file, *entry; /* T1: the spec's KernelFile and KernelName ("" for shipped kernels) */
  const char *element_type;  /* shipped: "u32" or "f32" ("" for T1) */
  uint64_t problem_size;     /* shipped: elements (0 for T1) */
  uint64_t space_total;      /* the cartesian product of the parameters */
  uint64_t ruled_out;        /* T1: by the conditions; shipped: by the device's limits */
  const char *ruled_out_note;/* shipped: how many per reason ("" none) */
  uint32_t filtered;         /* left out by options->only */
  uint32_t count;            /* configurations in the session: the indices of vkocc_tune_result_get */
  uint32_t measured, resumed, valid, invalid;
  uint32_t validity[6];      /* T1: measured configurations per vkocc_tune_validity */
  const char *strategy;      /* T1: the strategy that ran ("" shipped) */
  const char *reference;     /* T1: "ReferenceArguments" or the key of the reference configuration */
  const char *device_key, *cluster_id; /* who measured ("" before vkocc_tune_prepare / without a fingerprint) */
  double pipelines_ms, measure_ms; /* shipped: pipeline creation and measurement, resumed runs included */
  double resumed_pipelines_ms, resumed_measure_ms; /* shipped: of the resumed runs */
  double cost_ms[5];         /* T1: summed over the measured: compile, pipeline, occupancy, measurement, other */
  uint32_t compiles, pipelines;
  double setup_ms;           /* T1: the arguments' data generated and uploaded (once) */
} vkocc_tune_summary;
void vkocc_tune_summarize(const vkocc_tune_session *s, vkocc_tune_summary *out);

/* One configuration of the session, by index below vkocc_tune_summary.count. */
typedef struct vkocc_tune_result {
  char key[512];             /* the configuration as compact JSON with sorted keys: its identity */
  bool measured;
  vkocc_tune_validity validity; /* shipped kernels: correct or correctness (error says why) */
  bool ranked;               /* correct with timings: a candidate for the best */
  const char *error;         /* why it is invalid ("" none) */
  double median_ns, spread, min_ns, max_ns; /* spread: MAD / median of the runs */
  uint32_t runs;
  double rank_ns;            /* the time the ranking uses */
  double final_ns;           /* T1: the final round's median (options->confirm), with final_runs runs (0: none) */
  uint32_t final_runs;
  int64_t P;                 /* T1: occupancy of the configuration's pipeline (-1: not measured) */
  bool stopped;              /* the race stopped it, behind the best, after runs runs (options->full_rule: never) */
} vkocc_tune_result;
/* VKOCC_ERROR_USAGE for an index out of range. */
vkocc_status vkocc_tune_result_get(const vkocc_tune_session *s, uint32_t index, vkocc_tune_result *out);
/* The best ranked configuration (lowest rank_ns; the first of equals), -1 when none. */
int64_t vkocc_tune_best(const vkocc_tune_session *s);
/* The indices of the up to max best ranked configurations, best first, into out; returns how many. */
uint32_t vkocc_tune_ranking(const vkocc_tune_session *s, uint32_t max, uint32_t *out);
/* T1: the sentinel, one configuration timed again during the run: false without 2 of its medians. drifted:
 * the range (hi - lo) / lo above 5% and above 4 times its largest spread (the device drifted, not noise). */
typedef struct vkocc_tune_sentinel {
  char key[512];
  uint32_t times;            /* how often it was timed */
  double lo_ns, hi_ns, max_spread;
  bool drifted;
} vkocc_tune_sentinel;
bool vkocc_tune_sentinel_get(const vkocc_tune_session *s, vkocc_tune_sentinel *out);

/* The results document (vkocc.tune-results/1; after a finished run: the one written at its end). */
vkocc_status vkocc_tune_results_document(vkocc_tune_session *s, struct json_t **doc);
/* The T4 results ({"schema_version": "1.0.0", "results": [...]}) and their metadata document. */
vkocc_status vkocc_tune_t4_documents(const vkocc_tune_session *s, struct json_t **results, struct json_t **metadata);
/* Writes the results document to output and, with t4, the T4 results to t4 and their metadata at
 * vkocc_tune_t4_metadata_path(t4), each atomically. */
vkocc_status vkocc_tune_write(vkocc_tune_session *s, const char *output, const char *t4);
/* Where the T4 metadata goes beside t4: "RESULTS.metadata.json" for "RESULTS.json", else t4 + ".metadata.json". */
void vkocc_tune_t4_metadata_path(const char *t4, char *out, size_t len);

/* The search strategies: the i-th one's name (brute force first; NULL past the last) and its one-line summary. */
const char *vkocc_tune_strategy(uint32_t i, const char **summary);
/* The strategy name names (case-insensitive; "Deterministic" is brute force): its own name, NULL if unknown. */
const char *vkocc_tune_strategy_find(const char *name);

/* Replay: search strategies run over a complete recorded space, no device (`vkocc tune --replay`). */
typedef struct vkocc_tune_replay_options {
  const char *fingerprint;   /* occupancy features from this fingerprint (NULL: fingerprint.json beside results) */
  const char *const *strategies; /* by name; NULL: every strategy but brute_force */
  uint32_t nstrategies;
  bool ablation;             /* each strategy also without the occupancy features */
  bool no_occupancy;         /* each strategy only without them */
  const struct json_t *attributes; /* T1 Search.Attributes for the strategies (NULL: none) */
  uint32_t budget;           /* evaluations per run (0: the whole space) */
  uint32_t seeds;            /* runs per strategy (0: 50), with seeds first_seed, first_seed + 1, ... */
  uint64_t first_seed;
  void (*progress)(void *user, const char *label, uint32_t done, uint32_t total); /* before each strategy */
  void *user;
} vkocc_tune_replay_options;
/* Replays over results (a vkocc.tune-results/1 document or T4 results): *report the vkocc.tune-replay/1 document
 * (per strategy: the curve of the fraction of the optimum found after 1, 2, ... evaluations, median and quartiles
 * over the seeds; evaluations to 95%; fractions at budgets of 1, 2, 5, 10% of the space). constrained (may be
 * NULL): the file's records left out as constrained. VKOCC_ERROR_USAGE naming the file and JSON path for a bad
 * document or a space without a valid configuration, or for an unknown strategy or attribute. */
vkocc_status vkocc_tune_replay(const char *results, const vkocc_tune_replay_options *options, struct json_t **report,
                               uint32_t *constrained);

/* A replay's report read back from its document, for printing or plotting it: the numbers vkocc_tune_replay's
 * document holds, with each curve whole again (the document ends a curve where every quartile reached the
 * optimum: the rest is 1). Strings are borrowed from the document, which the report holds a reference to. */
#define VKOCC_TUNE_REPLAY_AT 4 /* the budgets of 1, 2, 5 and 10% of the space */
typedef struct vkocc_tune_replay_run {
  const char *strategy;
  bool occupancy;           /* with the occupancy features */
  uint32_t budget;          /* evaluations */
  double *median, *q1, *q3; /* [budget]: the fraction of the optimum found after 1, 2, ... evaluations */
  double to95[3];           /* evaluations to 95% of the optimum: median, q1, q3; INFINITY: not within budget */
  uint32_t at_evaluations[VKOCC_TUNE_REPLAY_AT]; /* the budgets of 1, 2, 5, 10% of the space */
  double at_median[VKOCC_TUNE_REPLAY_AT];        /* the median fraction of runs with that budget; INFINITY: none */
  uint32_t seeds_finding_optimum;
} vkocc_tune_replay_run;
typedef struct vkocc_tune_replay_report {
  const char *space, *optimum, *fingerprint, *feature_note; /* fingerprint NULL: none */
  uint32_t configurations, valid, budget, nfeatures;
  double optimum_ns;
  vkocc_tune_replay_run *runs;
  uint32_t nruns;
  struct json_t *doc; /* the document (a reference of the report's own) */
} vkocc_tune_replay_report;
/* Reads the vkocc.tune-replay/1 document vkocc_tune_replay made; VKOCC_ERROR_USAGE for another document. */
vkocc_status vkocc_tune_replay_report_read(struct json_t *doc, vkocc_tune_replay_report *out);
void vkocc_tune_replay_report_free(vkocc_tune_replay_report *r);

#ifdef __cplusplus
}
#endif
#endif
