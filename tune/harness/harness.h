/* Internal to the harness's room (tune/harness/): what its files share, from the bottom up. options.c takes the
 * public options and hands notes back; build.c makes the modules and their specialization; pool.c is the pool that
 * builds ahead; buffers.c holds the device's buffers, the batches that run on them and the recovery from a lost
 * device. One configuration is measured as a recipe of phases (measure.c), a file each: prepare.c (sizes, module,
 * pipeline, P), validate.c (the first run checked), time.c (warm-up, the timed trials), decide.c (the stopping rule
 * and its defaults, racing, the summary). ahead.c is the pool's jobs, final.c the final round and the sentinel,
 * run.c the run (tu_tune). */
#ifndef VKOCC_TUNE_HARNESS_H
#define VKOCC_TUNE_HARNESS_H
#include "user.h"
#include "compile.h"
#include "exec.h"
#include "gpu_validate.h"
#include "clock_rule.h"
#include "race.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCH 16
#define POISON 0xffffffffu /* -1 for integers, NaN for floats: a value no correct output keeps everywhere */
#define POISON2 0x5a5a5a5au /* the reference's second run: an element that keeps both poisons was never written */

/* ------------------------------------------------------------------ SPIR-V: names of constants, workgroup size */

typedef struct spv_consts {
  struct { uint32_t spec_id; char name[64]; } c[64];
  uint32_t n;
  int32_t wg_spec[3];        /* the SpecId of each workgroup-size component, -1 when a literal */
} spv_consts;

/* ------------------------------------------------------------------ modules (one per define set) */

typedef struct module {
  uint32_t *spv;
  size_t words;
  char error[560];
  bool failed;
  spv_consts consts;
  compile_reflection refl;
  bool checked;              /* interface checked against the arguments */
  bool ready;                /* compiled (or failed); until then the thread compiling it owns it */
} module;

typedef struct config config;

/* The prebuilding threads (prebuild_queue): the configurations the strategy will propose next, whose modules and
 * pipelines a pool of host threads makes while the device measures another. A configuration's build is two jobs,
 * its compile and then its pipeline (once the buffers exist); a free thread starts the runnable job of the
 * configuration the measuring thread needs soonest, so the next one is never queued behind those further ahead,
 * and the measuring thread builds the one it needs itself rather than wait for a job not yet started. */
typedef struct prebuilder {
  pthread_t *thread;
  uint32_t nthreads, started, busy;
  uint32_t compiling, building;     /* the pool's jobs of each kind running now */
  uint32_t max_compiling, max_building; /* at most so many of each kind at once */
  bool quit;
  bool hold;                 /* a CPU device times: the pool starts nothing (pool_hold) */
  bool pipelines_ok;         /* the buffers exist: pipelines can be built (set under lock by make_buffers) */
  bool wait_only;            /* VKOCC_TEST_POOL_WAIT=1: the measuring thread waits for the pool (its tests) */
  bool uncached;             /* VKOCC_TEST_POOL_UNCACHED=1: the pool's pipelines without the context's cache */
  FILE *trace;               /* VKOCC_TEST_POOL_TRACE: each job's start, in order (its tests) */
  uint32_t slow_ms;          /* VKOCC_TEST_POOL_SLOW: each job's work starts so many ms late (its tests) */
  pthread_mutex_t lock;      /* the jobs, busy, each config's prebuilt state */
  pthread_cond_t wake, done;
  pthread_mutex_t modules;   /* the module table (get_module) */
  pthread_cond_t compiled;   /* a module's compile ended */
  config **job;              /* the configurations handed to the pool and not yet taken, cap at most */
  uint32_t njobs, cap;
} prebuilder;

typedef struct harness {
  vkocc_context **ctxp;
  tu_run *run;
  const tu_options *o;
  t1_spec *s;
  module **mods;
  uint32_t nmods, capmods;
  json_t *mod_index;         /* a define set's key -> its index in mods */
  config **cfg;              /* per configuration of the space: materialized on its first evaluation (config_of) */
  prebuilder pb;
  char *source;              /* the kernel's text (source kernels) for the define and constant checks */
  /* device resources */
  core_buffer *dev, *pristine, *readback; /* per argument */
  core_copy *restore;       /* per restored argument: pristine -> dev by a compute copy (NULL, the default:
                              * vkCmdCopyBuffer) */
  uint8_t push[256];
  uint32_t push_bytes;
  bool buffers_ready;
  bool push_filled;          /* fill_push done (after the first module's check, under pb.modules) */
  bool readback_made;        /* make_readback done for these buffers */
  bool trace_setup;          /* VKOCC_TRACE_SETUP=1: each argument's set-up costs on stderr */
  /* validation */
  void **expect;             /* per argument: the reference output (NULL: not validated) */
  bool *expect_borrowed;     /* per argument: expect[i] is tu_options.shared's, not freed here */
  const t1_ref **ref_of;     /* per argument: the reference entry giving the method (NULL: exact / default) */
  bool have_reference;
  /* validation on the device (tune/harness/gpu_validate.h): per validated output its expected values on the device and
   * a compare dispatch after the last run of a batch; only the compare's answer comes back. gpu_check 0: not set
   * up yet, 1: on, -1: off (a CPU device, the device lacks what a compare needs, or VKOCC_TEST_CPU_COMPARE=1): the outputs are
   * then read back and compared on the host */
  core_buffer *want;
  core_compare *cmp;
  int gpu_check;
  int64_t reference_config;  /* forced by --reference: evaluated first */
  vkocc_calibration cal;
  bool have_cal;
  double last_cp;
  uint32_t done;
  double t0;
  json_t *P_memo;            /* P_keys -> [P, the configuration measured]: P measured once per pipeline, resources */
  int64_t last_P;
  bool global_P;             /* a global size names P: a configuration's workgroup count is known once P is */
  bool model_read, have_derived, have_registers; /* the device's model (model_known) */
  vkocc_derived derived;
  vkocc_register_model registers;
  uint32_t lose_at, batches; /* VKOCC_TEST_DEVICE_LOSS */
  int32_t spec_id[32];       /* per parameter: its SpecId (param_spec), from the source or the module's names */
  double gpu_end_ms;         /* when the last batch of dispatches ended (0: none yet: the GPU is cold) */
  double idle_ms;            /* host time the GPU sat idle since the last warm-up (-1: cold, nothing run yet) */
  int64_t sentinel;          /* the configuration re-timed to watch the clocks (-1: none yet) */
  uint32_t since_sentinel;
  bool in_sentinel;
  uint32_t poison;           /* the poison of the next run's outputs (0: POISON) */
  /* inputs restored only where a module may write them; the SM clock read beside every batch (core/gpucheck.h) */
  uint64_t written;          /* set 0 bindings some module checked so far may write (bit b: binding b) */
  uint32_t nchecked;         /* modules whose interface was checked */
  core_clock_probe probe;   /* 2 slots: before the batch's first dispatch, after its last */
  bool probe_on, probe_tried;
  tu_clock_state clk;
  double clock_before, clock_after; /* the last batch's readings (0: none) */
  double last_span_ms;       /* the device's whole span of the last batch run_batch waited for (core_batch.span_ns) */
  double late_setup_ms;      /* the run's setup done by run_batch (expected outputs uploaded, compares and the probe
                              * made) and not yet taken off a configuration's costs */
  /* racing (tune/search/race.h): the incumbent and the noise of the configurations measured to the full rule; racing_now
   * while a configuration of the search is measured (never the reference run first, the sentinel or the final round) */
  tu_race race;
  bool racing_now;
} harness;

static inline vkocc_context *CTX(harness *h) { return *h->ctxp; }

/* A configuration materialized once, on its first evaluation: its values, its key, its workgroup size and the
 * -D defines that name its module; the sentinel and the final round measure or build it again from here. */
struct config {
  uint32_t index;            /* in the space */
  const uint32_t *coord;     /* nparams value indices */
  char *key;                 /* t1_config_key: its identity in documents */
  bool sized;                /* local (and groups unless they name P) known */
  uint32_t local[3], groups[3];
  char **defs;               /* NULL until first compiled */
  uint32_t ndefs;
  char *defs_key;            /* the defines joined: the key of its module */
  int32_t module;            /* index into the harness's modules, -1 before its module is found */
  struct prebuilt *pre;      /* its module and pipeline made ahead (prebuild_ahead), until measure_config takes them */
};

/* ------------------------------------------------------------------ specialization */

typedef struct specs {
  vkocc_spec_value v[64];
  uint32_t n;
} specs;

/* What a phase says: go on to the next phase; the configuration is invalid (r->inv and r->error say why; the
 * tuning goes on unless t->st says it cannot, after a device that did not come back); or the tuning stops with
 * nothing recorded (t->st: a spec that does not fit the kernel, or a failure no configuration survives). */
typedef enum { TU_GO, TU_INVALID, TU_STOP } tu_outcome;

/* One configuration under measurement: what its phases hand on to each other. */
typedef struct trial {
  uint32_t c;                /* its index in the space */
  config *x;
  const uint32_t *coord;     /* x's */
  tu_result *r;
  module *m;
  specs sp;
  compile_spirv_info info;
  core_kernel k;
  double first_ns;           /* the validated run: it sizes the batches */
  bool first_counts;         /* ... and counts as the first timed run (racing, tu_race_validation_counts) */
  double timeout_s;          /* the bound on one dispatch */
  double late_setup_ms;      /* the run's set-up made by its dispatches (run_batch): taken off the phase that ran them */
  bool ahead;                /* prepared on the prebuilding thread: nothing shared is touched but the modules */
  double compiled_ahead_ms;  /* its module compiled on the prebuilding thread */
  vkocc_status st;
} trial;

/* ---- prebuilding: the next configurations' modules and pipelines made on a host thread while the device
 * measures the current one, so the device does not wait for the compiler and the driver */

typedef enum { PB_QUEUED, PB_COMPILING, PB_COMPILED, PB_BUILDING, PB_READY } pb_state;

typedef struct prebuilt {
  pb_state state;            /* PB_READY: made (or given up): measure_config may take it */
  uint32_t rank;             /* when the measuring thread needs it: 0 next; UINT32_MAX no longer proposed */
  tu_outcome out;            /* TU_GO: module and pipeline below; else the main thread prepares it itself */
  module *m;
  specs sp;
  compile_spirv_info info;
  core_kernel k;
  double compile_ms, pipeline_ms;
} prebuilt;


/* ---- what the harness's files call of each other, from the bottom up (no file calls one above it) */

/* build.c */
void tu_spv_walk(const uint32_t *w, size_t words, spv_consts *out);
vkocc_status tu_fill_data(harness *h, const char *what, uint32_t i, const t1_data *d, const char *path, const t1_arg *a,
                          size_t bytes, void **out, bool *shared);
void tu_strip_comments(char *t);
bool tu_word_in(const char *text, const char *w);
int32_t tu_declared_spec(const char *text, const char *name);
config *tu_config_of(harness *h, uint32_t c);
void tu_config_free(config *x);
module *tu_get_module(harness *h, config *x, double *compile_ms);
vkocc_status tu_check_interface(harness *h, module *m);
bool tu_specs_of(harness *h, module *m, const uint32_t *coord, const uint32_t local[3], specs *sp, char *err, size_t len);

/* pool.c */
config *tu_pool_pick(prebuilder *b);
void tu_pool_trace(prebuilder *b, const char *job, const config *x, const char *who);
void tu_pool_hold(harness *h, const config *x, bool on);
void tu_pool_test_hooks(prebuilder *b);
uint32_t tu_prebuild_threads(const tu_options *o);
uint32_t tu_prebuild_window(const harness *h);
bool tu_pool_evict(harness *h);
bool tu_prebuilt_take(harness *h, trial *t);
void tu_prebuild_drop(harness *h, config *x);
void tu_prebuild_drain(harness *h);
void tu_prebuild_stop(harness *h);

/* buffers.c */
bool tu_validated(const harness *h, uint32_t i);
void tu_free_buffers(harness *h);
vkocc_status tu_make_buffers(harness *h);
vkocc_status tu_fill_push(harness *h);
vkocc_status tu_run_batch(harness *h, core_kernel *k, const uint32_t groups[3], uint32_t count, bool poison,
                          bool readback, double timeout_s, double *ns, bool *lost, bool *timed_out);
vkocc_status tu_recover(harness *h, tu_result *r, tu_invalidity inv, const char *why, core_kernel *k);
tu_outcome tu_invalid(trial *t, tu_invalidity inv, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
tu_outcome tu_stop(trial *t, vkocc_status st);
tu_outcome tu_failed(harness *h, trial *t, tu_invalidity inv, bool lost, bool timed_out, const char *why);
tu_outcome tu_dispatch(harness *h, trial *t, uint32_t count, bool poison, bool readback, double *ns);

/* prepare.c */
tu_outcome tu_prepare_module(harness *h, trial *t);
tu_outcome tu_prepare_pipeline(harness *h, trial *t);
tu_outcome tu_phase_prepare(harness *h, trial *t);

/* validate.c */
tu_outcome tu_phase_validate(harness *h, trial *t);
bool tu_outputs_right(harness *h, char *why, size_t len);
void tu_final_wrong(tu_result *r, const char *when, const char *why);

/* time.c */
uint32_t tu_batch_size(double per_ns, uint32_t lo, uint32_t left);
tu_outcome tu_phase_warm(harness *h, trial *t);
tu_outcome tu_phase_trials(harness *h, trial *t);

/* decide.c */
bool tu_race_stops(harness *h, tu_result *r);
void tu_phase_summary(harness *h, trial *t, double t_start);

/* measure.c */
vkocc_status tu_measure_config(harness *h, uint32_t c, tu_result *r);

/* ahead.c */
void tu_prebuild_queue(harness *h, const uint32_t *next, uint32_t n);

/* final.c */
vkocc_status tu_confirm_best(harness *h, uint32_t k);
int32_t tu_sentinel_every(const tu_options *o);
vkocc_status tu_sentinel_record(harness *h, uint32_t c, const tu_result *r);
vkocc_status tu_sentinel_again(harness *h);
#endif
