/* Internal to the fleet's room (tune/fleet/): what its files share, from the bottom up. fleet_mpi.c is the MPI
 * transport; journal.c keeps each result as it arrives (--resume after a kill); worker.c is a device's host thread
 * around its harness; commands.c sends the devices their commands and gives a failed one up; normalize.c ranks a
 * shared search by times normalized to common references, and its final round; ranks.c is the protocol of the MPI
 * ranks; coordinator.c hands out the search's configurations and takes their results; fleet.c sets a run up and
 * runs it (vkocc_tune_fleet). */
#ifndef VKOCC_TUNE_FLEET_INTERNAL_H
#define VKOCC_TUNE_FLEET_INTERNAL_H
#include "fleet.h"
#include "user_results.h"
#include "builtin.h"
#include "io.h"
#include "jsonio.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages: worker -> coordinator (results, failures), coordinator -> worker (commands) */
enum { MSG_RESULT = 1, MSG_FAILED };
enum { TAG_HELLO = 11, TAG_WELCOME, TAG_CMD, TAG_MSG, TAG_BYE, TAG_BEAT };
/* Under MPI each side says it is alive every second (TAG_BEAT, beside its other messages). A rank silent for
 * longer than VKOCC_FLEET_SILENT_S seconds (default 30) is lost: the coordinator hands its configurations in
 * flight to the others; a rank whose coordinator is silent for twice as long (and a beat) stops. Open MPI ends
 * the whole job when a rank dies unless mpirun runs with --enable-recovery --mca orte_abort_on_non_zero_status 0
 * (docs/fleet.md). */
#define BEAT_MS 1000.0
enum { CMD_GO = 1, CMD_MEASURE, CMD_STOP, CMD_AGAIN, CMD_AHEAD };
/* why a configuration is measured: for the search, or again on a device that may have measured it before: the
 * cluster's common reference (each device's speed against the others') or the final round (the best re-timed) */
enum { FOR_SEARCH = 0, FOR_REFERENCE, FOR_FINAL };

typedef struct msg {
  int32_t kind, purpose;
  uint32_t worker, config;   /* global worker index; the configuration (the merged space's index) */
  char reference[512];       /* RESULT: the worker's reference once known */
  char error[700];           /* FAILED */
  uint32_t compiles;         /* RESULT: the modules its harness compiled so far (the others were another's copies) */
  double setup_ms;           /* ... and the time it spent on the arguments' data so far (generated or shared, uploaded) */
  tu_result r;               /* RESULT: times_ns owned */
  struct msg *next;
} msg;

typedef struct cmd {
  int32_t kind, purpose;     /* purpose: AGAIN's FOR_*; GO's 1 where the group normalizes (no sentinel of its own) */
  uint32_t worker, config;
  char reference[512];
} cmd;

/* ---- a worker on this rank */
/* Configurations a worker holds at once, at most. Brute force hands out runs of consecutive configurations, whose
 * modules and pipelines the worker's pool builds while its device measures (tu_prefetch: a held configuration is
 * one it can build ahead; with 8 held, Kernel Tuner's matmul, a compile of 47 ms per configuration, kept two H200s
 * waiting for the compiler); other strategies one at a time. */
#define CHUNK 32
/* measurements again (the reference, the final round's rounds) a worker holds at once; they go first */
#define AGAIN_MAX 128
/* configurations the search will hand out next, to whichever device (CMD_AHEAD): a worker's pool builds them after
 * its own, so that their modules, compiled once for the process, are ready for whichever device measures them (a
 * space whose compiles outweigh its measurements, Kernel Tuner's matmul, kept two H200s waiting for the compiler) */
#define AHEAD 16
typedef struct worker {
  struct fleet *f;
  uint32_t gid;              /* global index */
  vkocc_context *ctx;
  const char *device, *queue;
  tu_run run;
  pthread_t thread;
  bool started;
  /* inbox (f->mu) */
  bool go, stop;
  bool no_sentinel;          /* its group normalizes: the references, timed again through the run and at its end, show a
                              * drift, so its own sentinel (which nothing reads in a fleet) is not timed */
  uint32_t todo[CHUNK], head, ntodo; /* configurations handed to it, measured in order */
  tu_options to;             /* its harness's options (worker_main); measure_again changes min_runs for a reference */
  const json_t *fp_doc;      /* its member's fingerprint document (NULL: none) */
  uint32_t again[AGAIN_MAX], again_head, nagain;
  int32_t again_for[AGAIN_MAX];
  uint32_t ahead[AHEAD], ahead_head, nahead; /* CMD_AHEAD's, newest kept */
  char reference[512];
  pthread_cond_t cond;
  /* tests: VKOCC_TEST_FLEET_FAIL / _KILL "W:N,...": worker W fails (returns an error) / kills its process with
   * SIGKILL once it has measured N configurations */
  int64_t fail_after, kill_after, forge_at;
  uint32_t done;
  /* tests: VKOCC_TEST_FLEET_SLOW "W:PERCENT": worker W's times scaled (a board of another speed);
   * VKOCC_TEST_FLEET_SYNTH=C: every valid time replaced by a known one, 100 us x (1 + 5% x |c - C|) (the best: C) */
  double scale;
  int64_t synth;
  /* tests: VKOCC_TEST_FLEET_DELAY "W:MS": worker W waits MS ms before each configuration for the search (a slower
   * board) */
  int64_t delay_ms;
} worker;

/* ---- every worker of every rank, as the coordinator sees it */
/* candidates of a shared search's final round, and its rounds (interleaved: c1..ck, c1..ck, ...): each a full
 * measurement of each candidate on each device */
#define FINAL_MAX 4
/* reference configurations of a shared search */
#define NREF 4
#define FINAL_ROUNDS 1
enum { PH_SEARCH, PH_LAST_REF, PH_FINAL, PH_DONE };

typedef struct fleet_slot {
  int rank;
  uint32_t group;
  tune_device_id dev;
  int64_t limits[TEXPR_NDEVICE];     /* its device's limits as a spec's conditions name them */
  char host[64];
  uint32_t inflight[CHUNK], ninflight; /* configurations handed to it, not yet measured */
  bool started, dead;
  uint32_t measured;
  char error[700];
  /* when (ms since the fleet began, the coordinator's clock) it was told to start, and its first and last results
   * for the search: what each device spent before it measured, and where it ended */
  double go_ms, first_ms, last_ms;
  uint32_t stolen;           /* configurations it took from another device's queue (steal) */
  bool end_ref;              /* its end-of-search reference asked already (idle while another device finishes) */
  uint32_t compiles;         /* what its worker last said it compiled, and spent on the arguments' data */
  double setup_ms;
  /* a shared search: measurements again in flight, configurations since its last reference point, the common
   * reference's points, and per final-round candidate its times on this device */
  uint32_t again_inflight, since_ref, ref_turn;
  fleet_point *pts;
  uint32_t npts;
  double *fin[FINAL_MAX];
  uint32_t nfin[FINAL_MAX];
} fleet_slot;

typedef struct group {
  char cluster_id[24];
  tu_run run;                /* the merged record */
  tune_device_id dev;        /* the document's device: its first member */
  const char *names[32];
  uint32_t nvals[32];
  tune_space sp;
  tune_search *ts;
  char output[1100], journal[1120];
  FILE *jf;
  int32_t *who;              /* per configuration: the slot that measured it, -1 none or resumed */
  uint8_t *told;             /* per configuration: told to the workers as coming next (tell_ahead) */
  json_t *prev_devices;      /* a resumed document's devices, and per configuration its device there */
  json_t *attrib;            /* resumed: configuration key -> index into prev_devices */
  int32_t *prev_who;
  bool ref_known, finished;
  char reference[512];
  char stopped[700];
  uint32_t nslots, resumed;
  uint32_t chunk;            /* configurations a worker holds at once (CHUNK for brute force, else 1) */
  double last_cp;
  /* Boards of one model differ, and by how much depends on the configuration (two H100s: 0.6% at the median; two
   * H200s: -2.5% to +5%), more than a median's spread: a search shared by several devices ranks by times
   * normalized to reference configurations that every device measures (reference_due, slot_factor). Where the
   * factors' spread could change the ranking, the candidates are timed again on every device (the final round) and
   * the answer is one device's raw time. */
  bool norm;
  uint32_t refs[NREF], nrefs; /* the reference configurations (reference_due) */
  int64_t win_best;          /* the fastest valid result of the current window (-1: none yet), and its valid results */
  uint32_t win_n;
  uint32_t every;            /* 0: at the start and the end only */
  int phase;                 /* PH_* */
  uint32_t cand[FINAL_MAX], ncand;
  int32_t final_slot;        /* the device whose final round is the answer (-1: none) */
  char note[700];
} group;

typedef struct fleet {
  const vkocc_tune_options *o;
  const char *spec_path, *name;
  bool resume;
  int rank, nranks;
  bool mpi;
  bool peer_lost;            /* a rank died or was given up: MPI_Finalize would wait for it for good */
  /* local workers */
  worker *w;
  uint32_t nw;
  pthread_mutex_t mu;
  pthread_cond_t out_cond;
  msg *out_head, *out_tail;
  /* coordinator */
  fleet_slot *slots;
  uint32_t nslots;
  group *g;
  uint32_t ng;
  uint32_t *coord;           /* MPI: the merged spaces' coordinates sent to a rank (per group) */
  double *heard;             /* MPI, coordinator: when each rank was last heard from (ms) */
  bool *lost;                /* ... and whether it is given up */
  double silent_ms, last_beat;
  double t0;                 /* when vkocc_tune_fleet began (ms) */
  /* where the process's part outside the search goes (ms since t0): the coordinator's loop began and ended, and every
   * worker had returned (its harness closed: buffers, pipelines, its pool) */
  double loop_ms, loop_end_ms, joined_ms;
  tu_shared *shared;         /* this rank's workers' data and modules, made once (tu_options.shared) */
} fleet;

/* ---- what a rank says to the coordinator and hears back (ranks.c, fleet.c) */
typedef struct hello {
  char version[64];
  char hash[40];
  uint32_t layout, n;
  char host[64];
  char refused[700];         /* not "": this rank cannot take part, and why (then n is 0) */
} hello; /* followed by n tune_device_id, then n arrays of TEXPR_NDEVICE limits (int64_t) */

typedef struct welcome {
  int32_t ok;
  char error[900];
  uint32_t base;             /* the global index of the rank's first worker */
} welcome; /* followed, per member, by its group's configuration count and coordinates */

/* a device's limits as a rank sends them (ranks.c) */
typedef int64_t limits_t[TEXPR_NDEVICE];

/* ---- what the fleet's files call of each other, from the bottom up (no file calls one above it) */

/* journal.c */
vkocc_status fleet_journal_open(group *g);
void fleet_journal_restart(const fleet *f, group *g);
void fleet_record(fleet *f, group *g, uint32_t sl, uint32_t c, tu_result *r);
vkocc_status fleet_resume_group(const fleet *f, group *g);
bool fleet_bools_ok(const unsigned char *b);
void fleet_attribute_resumed(group *g);
bool fleet_same_device_entry(json_t *p, const char *key, const char *uuid, int64_t rank, const char *host);

/* worker.c */
msg *fleet_take(fleet *f, double wait_ms);
void fleet_msg_free(msg *m);
void fleet_worker_command(fleet *f, worker *w, const cmd *c);
vkocc_status fleet_make_worker(fleet *f, worker *w, const vkocc_tune_fleet_member *m, uint32_t gid, uint32_t count,
                               const uint32_t *coord);
vkocc_status fleet_start_workers(fleet *f);
void fleet_stop_workers(fleet *f);

/* commands.c */
vkocc_status fleet_send_command(fleet *f, const cmd *c);
vkocc_status fleet_send_cmd(fleet *f, uint32_t sl, int kind, uint32_t config, const char *reference);
void fleet_slot_failed(fleet *f, uint32_t s, const char *why);
void fleet_ask_again(fleet *f, uint32_t s, uint32_t c, int32_t purpose);

/* normalize.c */
int32_t fleet_base_slot(const fleet *f, uint32_t gi);
bool fleet_slot_factor(const fleet *f, uint32_t gi, uint32_t s, double *factor, double *spread, uint32_t *nratios);
double fleet_norm_ns(const fleet *f, uint32_t gi, uint32_t s, double raw);
double fleet_result_norm_ns(const fleet *f, uint32_t gi, uint32_t c);
void fleet_ask_references(fleet *f, uint32_t s);
void fleet_again_result(fleet *f, uint32_t s, const msg *m);
void fleet_close_window(fleet *f, uint32_t gi);
uint32_t fleet_end_reference(const group *g);
void fleet_reference_due(fleet *f, uint32_t s, uint32_t c);
void fleet_pick_candidates(fleet *f, uint32_t gi);
void fleet_final_record(fleet *f, uint32_t gi);
int64_t fleet_best(const fleet *f, uint32_t gi, double *ns, int32_t *slot);
json_t *fleet_norm_json(const fleet *f, uint32_t gi, const int32_t *index);

/* ranks.c */
msg *fleet_recv_msg(const void *buf, size_t len);
void fleet_refuse_to_coordinator(fleet *f, const char *why);
vkocc_status fleet_agent(fleet *f, const vkocc_tune_fleet_member *members, const tune_device_id *ids,
                         const limits_t *lims, const char *hash);
vkocc_status fleet_admit(fleet *f, const char *hash, char **hellos, size_t *lens, const char *own);
vkocc_status fleet_welcome_ranks(fleet *f, char **hellos);
void fleet_watch_ranks(fleet *f);
void fleet_host_name(char *out, size_t len);

/* coordinator.c */
bool fleet_needs_reference_run(const tu_run *run, const vkocc_tune_options *o);
vkocc_status fleet_checkpoint(fleet *f, group *g);
void fleet_normalization_line(const fleet *f, uint32_t gi, char *out, size_t len);
void fleet_clocks_line(const fleet *f, uint32_t gi, char *out, size_t len, bool *drifted);
vkocc_status fleet_coordinate(fleet *f);
#endif
