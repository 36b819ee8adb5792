/* Internal to libvkocc: the one reader of tuning results (schema vkocc.tune-results/1, docs/tune.md) for
 * `vkocc tune --resume`, --replay and `vkocc policy build/transfer`: the results document every run writes
 * ("kind": "user"; a shipped kernel's adds its element type and names only the parameters of each variant),
 * and, imported into the same tune_doc, the older documents of the shipped kernels (no kind). */
#ifndef VKOCC_TUNE_RESULTS_H
#define VKOCC_TUNE_RESULTS_H
#include "kernels.h"
#include "util.h"
#include <jansson.h>


/* A measured configuration as the reader gives it (policies, replay, an older document's --resume). */
typedef struct tune_result {
  tune_config cfg;
  char key[256];             /* the configuration as compact JSON with sorted keys: its identity */
  bool measured, valid;
  double median_ns, spread;  /* spread: median absolute deviation / median over the runs */
  double min_ns, max_ns;
  /* a fleet's shared search (docs/fleet.md): the median in the speed of the cluster's base device, where the device
   * that measured it had a normalization factor applied (normalized_ns in the document); 0 otherwise */
  double normalized_ns;
  uint32_t runs;
  char error[600];           /* why it is invalid (wrong answer, pipeline failed) */
} tune_result;

/* JSON of a configuration (names for enumerated values, absent parameters left out) and back. */
json_t *tune_config_json(const tune_kernel_def *k, const tune_config *c);
vkocc_status tune_config_from_json(const tune_kernel_def *k, json_t *o, const char *file, const char *path,
                                   tune_config *c);
void tune_config_key(const tune_kernel_def *k, const tune_config *c, char *out, size_t len);
/* "u32"/"f32" */
vkocc_status tune_parse_type(const tune_kernel_def *k, const char *type, bool *f32);

/* Who measured: the device and its fingerprint summary. */
typedef struct tune_device_id {
  vkocc_device_identity id;  /* name, ids, driver, the SM count the fingerprint derived, the exact-device key */
  char cluster_id[24];
  bool has_fp;
  vkocc_fingerprint fp;      /* the normalized surface, for the nearest cluster */
  /* The kind of queue family tuned on ("compute-only", "graphics+compute"; "unknown" in documents written
   * before vkocc recorded it) and the shared capacity per SM it grants (0 unknown): on NVIDIA the two kinds
   * grant other capacities, so a policy tuned on one is preferred for applications on the same kind. */
  char queue_kind[24];
  uint32_t shared_per_sm;
} tune_device_id;

/* Fills id from a device and a fingerprint document (as cli_fingerprint_device returns it; may be NULL). */
void tune_device_id_fill(tune_device_id *id, const vkocc_device_info *d, json_t *fp_doc, const vkocc_fingerprint *fp);
/* {"kind": .., "shared_bytes_per_sm": N or null}: the device's "queue_family" member in tuning results. */
json_t *tune_device_queue_json(const tune_device_id *id);

typedef struct tune_doc {
  char file[1024];
  const tune_kernel_def *k;
  bool f32;
  uint64_t n;
  tune_device_id dev;
  tune_result *r;            /* measured configurations, in file order */
  uint32_t count;
  double pipelines_ms, measure_ms;
  bool imported;             /* an older document of a shipped kernel (no kind): no times, no spec to resume by */
  json_t *parameters;        /* the document's $.parameters ([{name, values}], the space's values), NULL: none */
} tune_doc;

/* Whether doc is a shipped kernel's results document ("kind": "user" with element_type, a kernel of kernels/). */
bool tune_results_shipped(json_t *doc);
/* Reads and checks a whole document; VKOCC_ERROR_USAGE naming the file and JSON path. kernel, when not
 * NULL, must match (a file of another kernel is refused). */
vkocc_status tune_results_load(const char *path, const char *kernel, tune_doc *out);
void tune_doc_free(tune_doc *d);
#endif
