/* vkocc/fleet.h: tuning on several devices and ranks; part of <vkocc.h>. */
#ifndef VKOCC_API_FLEET_H
#define VKOCC_API_FLEET_H

#include "common.h"
#include "device.h"
#include "fingerprint.h"
#include "tune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ tuning on several devices and ranks (docs/fleet.md)
 * One T1 spec tuned on many devices at once. Members whose fingerprints share a cluster ID share one search:
 * the strategy proposes, whichever member is free measures (each on a thread of its own with its own harness),
 * results are told to the strategy in the order they arrive. Members of another cluster run their own search of
 * the same spec. One results document per cluster names every device that measured in it ($.devices) and each
 * result its device ($.results[].device, an index into $.devices); it is written every 10 s, each result is also
 * appended to a journal beside it (OUTPUT.journal), so a run killed and continued with resume loses at most the
 * configurations that were being measured. Under MPI (vkocc_mpi_launched) every rank measures on its members and
 * rank 0 coordinates: it refuses ranks whose vkocc version or spec hash differ from its own (naming both) before
 * anything is measured, searches, and writes the documents; the other ranks write nothing. */
typedef struct vkocc_tune_fleet_member {
  vkocc_context *ctx;        /* opened by the caller, one per member (two members may share a physical device only
                                for tests: VKOCC_TEST_SAME_DEVICE=1); closed by the caller after the call */
  const char *device;        /* its vkocc_context_options.device, to reopen it after a lost device */
  const char *queue;         /* its vkocc_context_options.queue */
  const vkocc_fingerprint *fp;              /* its fingerprint: the cluster ID (NULL: cluster "unknown") */
  const vkocc_fingerprint_details *details; /* the fingerprint's details (may be NULL) */
} vkocc_tune_fleet_member;

typedef struct vkocc_tune_fleet_cluster {
  char cluster_id[24];
  char output[1100];         /* its results document */
  uint32_t devices;          /* members of all ranks in it */
  uint32_t measured, valid, resumed;
  double best_ns;            /* INFINITY: no valid configuration */
  char best_key[1024];
  char stopped[700];         /* why its search ended before the budget ("" : it did not) */
  /* a search shared by several devices: each device's factor against the first (the common reference's time
   * on it over the first's) with its spread, and what the final round decided ("" : one device) */
  char normalization[1200];
  /* the same: per device, the reference timed most often again and how far its medians lie apart, the clocks'
   * drift check that a lone device's sentinel makes ("" : none timed twice); drifted as the sentinel's rule */
  char clocks[600];
  bool drifted;
  /* one device: its sentinel, as vkocc_tune_sentinel_get gives one device's (this rank's devices only) */
  bool has_sentinel;
  vkocc_tune_sentinel sentinel;
} vkocc_tune_fleet_cluster;

typedef struct vkocc_tune_fleet_report {
  uint32_t nclusters;
  vkocc_tune_fleet_cluster *clusters; /* malloc'd: vkocc_tune_fleet_report_free */
  uint32_t ranks, workers;   /* MPI ranks (1 without MPI) and members of all ranks */
  bool coordinator;          /* false on MPI ranks other than 0: they measured and wrote nothing */
  double wall_ms;
} vkocc_tune_fleet_report;
void vkocc_tune_fleet_report_free(vkocc_tune_fleet_report *r);

/* Tunes spec_path (name: as vkocc_tune_open_spec) on members[0..n). o as vkocc_tune_run (output required on the
 * coordinator; with several clusters each document is OUTPUT with "-CLUSTER" before ".json"; t4_output, confirm
 * and progress are not used). resume: continue the documents (and journals) at those paths. Errors: USAGE for a
 * spec that does not fit, a rank that disagrees (version, spec) or a device named twice; RUNTIME when every
 * member failed or on options->stop (what was measured is written). */
vkocc_status vkocc_tune_fleet(const char *spec_path, const char *name, const vkocc_tune_fleet_member *members, uint32_t n,
                              bool resume, const vkocc_tune_options *o, vkocc_tune_fleet_report *out);
/* Under an MPI launch (vkocc_mpi_launched), for a rank that cannot take part in vkocc_tune_fleet (its devices or
 * fingerprints failed before it was called): tells the coordinator why (rank 0: tells every other rank), so that
 * every rank stops at once and the coordinator's error names this rank and its reason. Returns once the job has
 * heard it (bounded by VKOCC_FLEET_SILENT_S, default 30 s); nothing without an MPI launch. */
void vkocc_tune_fleet_refuse(const char *why);
/* Whether this vkocc was built with MPI. */
bool vkocc_mpi_built(void);
/* Whether mpirun/mpiexec or srun started this process as one of several ranks (read from the environment, before
 * any MPI call); *rank, *local_rank (on this host) may be NULL. */
bool vkocc_mpi_launched(int *rank, int *local_rank);

#ifdef __cplusplus
}
#endif
#endif
