/* Internal to libvkocc: tuning one T1 spec on several devices and MPI ranks at once (tune/fleet/,
 * docs/fleet.md).
 *
 * Devices whose fingerprints share a cluster ID share one search (tune/search/search.h, ask/tell): a coordinator asks
 * the strategy for a configuration whenever a device of the cluster is free and tells it the result when it
 * arrives, in whatever order. Each device is a worker: a host thread with its own context and its own harness
 * (tu_tune with tu_options.drive), which measures the configurations it is handed, so the seam to the
 * measurement is "measure configuration c on worker w -> tu_result". With MPI every rank's workers report to
 * rank 0, which alone searches, writes the documents and checkpoints. */
#ifndef VKOCC_TUNE_FLEET_H
#define VKOCC_TUNE_FLEET_H
#include "user.h"
#include <stddef.h>
#include <stdio.h>

/* The journal beside a results document (OUTPUT.journal): each result appended as it arrives. Applies the
 * results of the journal at path to run (those not measured there yet; counted in run->resumed and *applied),
 * each one's device to devices (a JSON array of {key, uuid, rank, host, measured}: found there or appended) and attrib
 * (configuration key -> index in devices). A journal of another spec or vkocc build is set aside (*set_aside true,
 * where given: the caller notes it); one cut short (a kill while a record was written) is read up to that record. A whole record that is not
 * one vkocc writes (tu_record_check: its median not that of its times, a time not positive, a configuration outside
 * the space or twice) is USAGE naming the journal and the record, and then nothing of it is to be resumed. */
vkocc_status fleet_journal_read(const char *path, tu_run *run, json_t *devices, json_t *attrib, uint32_t *applied,
                                bool *set_aside);
/* Its parts as the coordinator writes them: the header (FLEET_JOURNAL_HEADER bytes: the layout of a result, the
 * vkocc version, the spec's hash) and one record (run->r[c] with the device that measured it). */
#define FLEET_JOURNAL_HEADER 84
void fleet_journal_header(const tu_run *run, void *out);
void fleet_journal_record(FILE *f, const tu_run *run, uint32_t c, const char *device_key, const char *uuid, int32_t rank,
                          const char *host);
/* A result that came as bytes (the journal, another rank): strings terminated, its pointer cleared; false when
 * it cannot be one (not measured, an unknown invalidity, a valid one without runs or a positive median). */
bool fleet_result_sane(tu_result *r);
/* From sizeof(tu_result) bytes, checked before they are loaded as one: its strings, flags, kind and count of runs
 * (its times and median are the journal reader's tu_record_check). */
bool fleet_result_from_bytes(const void *bytes, tu_result *r);

/* A shared search's reference configuration `ref` as one device measured it, after `after` of its configurations,
 * in `runs` runs. */
typedef struct fleet_point { uint32_t ref, after; double median_ns, spread; uint32_t runs; } fleet_point;
/* A device's time of one reference from its points: the median of their medians; *spread (relative): the larger of
 * the medians' MAD over that and the points' median spread over sqrt(n) (one point: its own spread, so that two
 * equal points do not claim an exact time). False without a point. Pure. */
bool fleet_reference_of(const fleet_point *p, uint32_t n, double *ref_ns, double *spread);
/* A device's factor against another from n references both measured (ratio[i]: its time over the other's; noise[i]:
 * that ratio's measurement spread): the median ratio; *spread: how far one configuration's ratio may stray from it,
 * the larger of the ratios' MAD over the factor (the boards' difference depends on the configuration) and their
 * median noise. False without a ratio. Pure. */
bool fleet_factor_of(const double *ratio, const double *noise, uint32_t n, double *factor, double *spread);
/* Whether a known factor is applied: only where it differs from 1 by more than its spread (within it, dividing by
 * it adds the references' configuration-dependence as noise). Pure. */
bool fleet_factor_applies(bool known, double factor, double spread);

/* A drift of a device's clocks from its points: of every reference with two points or more, the widest relative
 * range of their medians (*range), the largest spread among that reference's points (*spread), which reference
 * (*ref) and how many points (*npoints). False when no reference has two points. Pure. */
bool fleet_drift_of(const fleet_point *p, uint32_t n, uint32_t *ref, uint32_t *npoints, double *range, double *spread);

/* The MPI transport (tune/fleet/fleet_mpi.c when vkocc is built with MPI; otherwise every call fails or is false). */
bool fleet_mpi_built(void);
/* MPI_Init_thread (funneled) and the communicator's rank and size. */
vkocc_status fleet_mpi_init(int *rank, int *size);
/* MPI_Finalize, left out when a rank was lost and bounded by limit_ms otherwise (then a note and _exit(code)) */
void fleet_mpi_finalize(bool lost, double limit_ms, int code, void (*note)(void *user, const char *line), void *user);
/* Ends every rank (a coordinator that cannot go on). */
void fleet_mpi_abort(int code);
/* Sends, waiting at most limit_ms for the message to leave (a rank that died takes nothing). */
vkocc_status fleet_mpi_send(int to, int tag, const void *buf, size_t len, double limit_ms);
/* A message waiting from any rank: true with *buf (malloc'd, *len bytes), *from and *tag; false when none. */
bool fleet_mpi_poll(int *from, int *tag, void **buf, size_t *len);
#endif
