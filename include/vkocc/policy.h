/* vkocc/policy.h: tuned policies and their store; part of <vkocc.h>. */
#ifndef VKOCC_API_POLICY_H
#define VKOCC_API_POLICY_H

#include "common.h"
#include "fingerprint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ tuned policies (docs/policy.md, docs/tune.md)
 * A policy database maps (kernel, device or cluster, variables such as the problem size) to tuned
 * parameters; selection takes the most specific entry that applies. */

typedef struct vkocc_policy_db vkocc_policy_db;

typedef enum vkocc_policy_rule {
  VKOCC_POLICY_CLUSTER = 1,  /* an entry for the device's own cluster ID */
  VKOCC_POLICY_NEAREST = 2,  /* an entry for the nearest known cluster within the threshold */
  VKOCC_POLICY_DEFAULT = 3,  /* the kernel's default */
  VKOCC_POLICY_DEVICE = 4,   /* an entry for the exact device (its device key; policy-db/2) */
  VKOCC_POLICY_EXACT = VKOCC_POLICY_CLUSTER, /* the earlier name of VKOCC_POLICY_CLUSTER */
} vkocc_policy_rule;
/* The rule's name: "device", "cluster", "nearest", "default". */
const char *vkocc_policy_rule_name(vkocc_policy_rule r);

typedef struct vkocc_policy_var { const char *name, *value; } vkocc_policy_var;

typedef struct vkocc_policy_choice {
  vkocc_policy_rule rule;
  char cluster_id[24];   /* the cluster whose entry was used ("" for the default) */
  double distance;       /* to that cluster (0 for exact) */
  int entry;             /* index in the kernel's entries; -1 for the default */
  char *params_json;     /* the tuned parameters as JSON text (malloc'd; free with vkocc_policy_choice_free) */
  char note[512];        /* what the rule assumed or why earlier rules found nothing ("" when nothing to say):
                          * a variable the entries name that was not given, with the values the database has
                          * ("no problem_size given (the database has 1M..128M): ..."), the nearest bucket */
  char queue_kind[24];   /* the kind of queue family the entry was tuned on ("compute-only", "graphics+compute";
                          * "unknown" for results that predate the record; "" for the default) */
} vkocc_policy_choice;
void vkocc_policy_choice_free(vkocc_policy_choice *c);

/* Loads a vkocc.policy-db/2 (or /1) document; errors name the file and JSON path. */
vkocc_status vkocc_policy_db_load(const char *path, vkocc_policy_db **db);
void vkocc_policy_db_free(vkocc_policy_db *db);

/* Exact cluster match, else the nearest cluster of the database within threshold (<= 0: the default
 * VKOCC_CLUSTER_THRESHOLD), else the kernel's default. An entry's conditions apply to the variables given:
 * a given value must meet them (a problem size outside every bucket takes the nearest bucket), a variable
 * not given rules nothing out (problem_size missing: the entry tuned at the largest size); out->note names
 * each such assumption. fp may be NULL (only the default can match). VKOCC_ERROR_USAGE for an unknown
 * kernel, VKOCC_ERROR_RUNTIME when nothing matches and the kernel has no default. */
vkocc_status vkocc_policy_select(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                 const vkocc_policy_var *vars, uint32_t nvars, double threshold,
                                 vkocc_policy_choice *out);
/* vkocc_policy_select with the exact device first: an entry whose "device" equals device_key (as
 * vkocc_device_key writes it; NULL or "": skipped), else the cluster, nearest and default rules. */
vkocc_status vkocc_policy_select_device(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                        const char *device_key, const vkocc_policy_var *vars, uint32_t nvars,
                                        double threshold, vkocc_policy_choice *out);
/* The same in one call from a fingerprint: the device key taken from details (vkocc_device_key of
 * details->device and details->derived.sm_count, as vkocc_fingerprint_measure's details and a whole
 * fingerprint file carry them) when details is not NULL and names a device; without it the cluster, nearest
 * and default rules. out->note says what was assumed (a variable not given) or why a rule found nothing. */
vkocc_status vkocc_policy_select_fingerprint(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                             const vkocc_fingerprint_details *details, const vkocc_policy_var *vars,
                                             uint32_t nvars, double threshold, vkocc_policy_choice *out);

/* Typed access to one parameter of a choice's params: VKOCC_ERROR_USAGE (message naming the parameter and
 * what the choice holds) when it is absent or of another type. An integer reads as a float as well. */
vkocc_status vkocc_policy_param_int(const vkocc_policy_choice *c, const char *name, int64_t *out);
vkocc_status vkocc_policy_param_float(const vkocc_policy_choice *c, const char *name, double *out);
vkocc_status vkocc_policy_param_string(const vkocc_policy_choice *c, const char *name, char *out, size_t len);

/* Policy documents from tuning results (`vkocc policy build` and `transfer`): results are vkocc.tune-results/1
 * files of `vkocc tune` (any kernels, any devices); each configuration stands for itself by its median time,
 * or with use_min by its fastest run (robust to other work on a loaded host, which only ever adds time). The
 * document goes to path (through a temporary file and a rename; "-": stdout; NULL: nowhere) and, where json
 * is not NULL, its text to *json (malloc'd; free()). Errors name the results file and JSON path
 * (VKOCC_ERROR_USAGE): an unreadable or malformed file, results without one valid configuration, one
 * device's results given twice.
 * vkocc_policy_build: a vkocc.policy-db/2 database (vkocc_policy_db_load reads it): an entry per device,
 * one per cluster, problem-size buckets and a default per kernel. */
vkocc_status vkocc_policy_build(const char *const *results, uint32_t n, bool use_min, const char *path, char **json);
/* vkocc_policy_transfer: the transfer report (vkocc.policy-transfer/1): for each result's device, what each
 * rule picks from the other devices' results and its efficiency there, with the performance-portability
 * metric; threshold: the nearest-cluster limit of the "policy" column (<= 0: VKOCC_CLUSTER_THRESHOLD). */
vkocc_status vkocc_policy_transfer(const char *const *results, uint32_t n, bool use_min, double threshold,
                                   const char *path, char **json);
/* vkocc_policy_header: the database at db_path (one vkocc_policy_db_load accepts) as a C header (*text, malloc'd;
 * free()): per kernel, #if blocks selected by VKOCC_CLUSTER_<cluster id with '-' as '_'> (else its default) and a
 * table of every cluster entry. Generated C that data cannot subvert: names become identifiers only when they
 * are ones (letters, digits, '_', '-' as '_'; 1 to 63 characters; no keyword, no reserved name, no table field,
 * no two mapping to one), strings are escaped, nothing from the data goes into a comment, and each parameter
 * has one C type and a value in every set; anything else is VKOCC_ERROR_USAGE naming the file and JSON path. */
vkocc_status vkocc_policy_header(const char *db_path, char **text);

/* ---------------------------------------------------------------- the policy store (docs/policy-store.md)
 * One SQLite file (WAL journal) that many `vkocc policy add` processes fill and every application reads: tuning
 * results (vkocc.tune-results/1, T4 results with vkocc's metadata beside them) and policy databases
 * (vkocc.policy-db/1 and /2), keyed by cluster ID, device and driver, kernel, element type and problem size, with
 * each result's provenance (host, date, vkocc version, spec hash). A result added twice is stored once; a result
 * that contradicts the store (another time for the same configuration, device and size; another spec under the
 * same kernel name) is refused with the reason.
 *
 *   vkocc_policy_store_options o = {0};
 *   const char *files[] = {"h100.json", "h200.json"};
 *   if (vkocc_policy_store_add("fleet.sqlite", files, 2, &o, NULL)) fprintf(stderr, "%s\n", vkocc_last_error());
 *   vkocc_policy_db *db;
 *   if (!vkocc_policy_store_load("fleet.sqlite", "/usr/share/vkocc/policy.sqlite", "reduce", NULL, &db)) { ... select ... }
 */
typedef struct vkocc_policy_store_options {
  uint32_t wait_ms;          /* how long to wait for another writer's lock (0: 60000 ms); past it, an error naming
                              * the store, the wait and the processes that have it open */
  bool allow_network_fs;     /* write a store on NFS, CIFS/SMB, AFS, Ceph, Lustre, 9p, ... (SQLite's locks may not
                              * hold there: docs/policy-store.md) */
} vkocc_policy_store_options;

typedef struct vkocc_policy_store_added {
  uint32_t files;            /* files read */
  uint64_t results_added;    /* configurations stored */
  uint64_t results_present;  /* configurations that were there already (the same result added again) */
  uint32_t databases_added;  /* policy databases stored */
  uint32_t databases_present;/* policy databases that were there already */
  uint32_t entries_added;    /* their entries */
  uint32_t kernels_rebuilt;  /* kernels whose policy was built again from the store's results */
} vkocc_policy_store_added;

/* Adds the files (tuning results, T4 results, policy databases) to the store at path (created when absent) in one
 * transaction: all of them or, on any refusal, none. A killed writer loses its own transaction only. out may be
 * NULL. VKOCC_ERROR_USAGE: a file or the store refused (symbolic link, FIFO, not a store, a newer schema, a
 * truncated WAL, a network file system without allow_network_fs), naming the file and the reason;
 * VKOCC_ERROR_RUNTIME: the store stayed locked past wait_ms, or SQLite failed. */
vkocc_status vkocc_policy_store_add(const char *path, const char *const *files, uint32_t n,
                                    const vkocc_policy_store_options *opt, vkocc_policy_store_added *out);
/* Whether vkocc_policy_store_add could write the store at path, looked at without writing or creating anything: a
 * symbolic link, a FIFO or other non-file, no SQLite file, no policy store, a newer schema, a truncated WAL, a network
 * file system without allow_network_fs are VKOCC_ERROR_USAGE with the reason, as the add would say. For a command
 * that adds at its end what it measures first (vkocc tune --db): refused before the measurement, not after. */
vkocc_status vkocc_policy_store_can_add(const char *path, const vkocc_policy_store_options *opt);
/* The policy database of kernel (NULL: every kernel) as vkocc_policy_select reads it, from the store at
 * user_path layered over the store at system_path (either may be NULL, not both; the system store is opened
 * read-only). The user store's entries for a device or cluster (and element type) replace the system store's;
 * the user's default replaces the system's. The choice's note names the store of a chosen entry. device_key (as
 * vkocc_device_key writes it; NULL or "": every device): only that device's entries beside every cluster entry, which
 * is all the rules read for that device (a choice's entry index then counts in that view). */
vkocc_status vkocc_policy_store_load(const char *user_path, const char *system_path, const char *kernel,
                                     const char *device_key, vkocc_policy_db **db);
/* Today's JSON policy database of the store (vkocc.policy-db/2; a store holding one imported database and no
 * results gives that database back byte for byte): to path ("-" stdout, NULL nowhere) and/or *json (malloc'd).
 * use_min: each configuration's fastest run stands for it. */
vkocc_status vkocc_policy_store_export(const char *store, bool use_min, const char *path, char **json);
/* The transfer report (vkocc_policy_transfer) over the store's tuning results. */
vkocc_status vkocc_policy_store_transfer(const char *store, bool use_min, double threshold, const char *path,
                                         char **json);
/* The C header (vkocc_policy_header) of the store's policy database. */
vkocc_status vkocc_policy_store_header(const char *store, char **text);
/* PRAGMA integrity_check and the store's counts as text (*report, malloc'd). VKOCC_ERROR_USAGE when the file is
 * damaged or no store (the report names what SQLite found). */
vkocc_status vkocc_policy_store_check(const char *store, char **report);
/* Whether path is a SQLite file (its first 16 bytes), so a tool can take a store where it took a JSON database. */
bool vkocc_policy_store_is(const char *path);

/* ---------------------------------------------------------------- policy selection by the kind of queue family
 * A policy tuned through a compute-only queue family and one tuned through a graphics+compute family of the same
 * GPU share the cluster ID (the architecture) but not the shared capacity per SM (on NVIDIA 100 KiB against
 * 48 KiB). Selection matches the architecture first (device, cluster, nearest cluster), then prefers among equally
 * matching entries one tuned on the caller's kind of family; out->queue_kind says which kind was used and
 * out->note says so where the kind decided or differs. */

/* vkocc_policy_select_device preferring entries tuned on queue_kind ("compute-only", "graphics+compute", as
 * vkocc_queue_kind_name writes it; NULL, "" or "unknown": no preference). vkocc_policy_select_fingerprint takes
 * the kind from details->device. */
vkocc_status vkocc_policy_select_queue(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                       const char *device_key, const char *queue_kind, const vkocc_policy_var *vars,
                                       uint32_t nvars, double threshold, vkocc_policy_choice *out);

#ifdef __cplusplus
}
#endif
#endif
