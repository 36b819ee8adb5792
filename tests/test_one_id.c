/* One GPU, one ID, and P as written, on the measured documents of docs/results: an H100's surfaces on its compute-only family
 * (100 KiB of shared memory per SM) and on its graphics+compute family (48 KiB) get one cluster ID under recipe c2
 * (they got two under c1), and an H100 and an H200 still share it. No device: the files are read. */
#include "check.h"
#include "internal.h"
#include "vkocc.h"
#include "model.h" /* fingerprint_derive_fixed, the cluster recipes */
#include <glob.h>
#include <jansson.h>
#include <stdlib.h>

/* P of the pipeline as written on measured statistics: the H100 runs of a pointer-chase kernel whose augmented
 * pipeline got 17 registers where the written one has 16 (docs/results/h100/user-shader/unmodified-chase). With no
 * register model the rule must still give the measured P, by the bound (the augmented pipeline uses no less, and
 * its P is already the written pipeline's own slot or shared-memory limit). */
static void written_on_h100(const char *results, const vkocc_derived *d) {
  char pattern[1024];
  snprintf(pattern, sizeof pattern, "%s/h100/user-shader/unmodified-chase/*-aug.json", results);
  glob_t g;
  CHECK(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc >= 12, "%s: %zu files", pattern, g.gl_pathc);
  uint32_t bounded = 0;
  for (size_t f = 0; f < g.gl_pathc; f++) {
    json_t *doc = json_load_file(g.gl_pathv[f], 0, NULL);
    json_t *st = json_object_get(doc, "statistics");
    const char *names[24];
    double w[24], a[24];
    uint32_t n = 0;
    for (size_t i = 0; i < json_array_size(st) && n < 24; i++, n++) {
      json_t *x = json_array_get(st, i);
      names[n] = json_string_value(json_object_get(x, "name"));
      w[n] = json_is_number(json_object_get(x, "value")) ? json_number_value(json_object_get(x, "value")) : NAN;
      a[n] = json_number_value(json_object_get(x, "augmented"));
    }
    json_t *sh = json_object_get(doc, "shader");
    vkocc_written_input in = {.nstats = n, .names = names, .written = w, .augmented = a,
                              .wg_size = (uint32_t)json_integer_value(json_object_get(sh, "wg_size")),
                              .shared_bytes = (uint32_t)json_integer_value(json_object_get(sh, "shared_bytes")),
                              .augmented_P = (uint32_t)json_integer_value(json_object_get(json_object_get(doc, "probe"), "P")),
                              .derived = d};
    vkocc_written_answer o;
    vkocc_status s = vkocc_written_decide(&in, &o);
    CHECK(s == VKOCC_OK && o.P == in.augmented_P && o.evidence == VKOCC_WRITTEN_BOUNDED, "%s: %s (P %u, evidence %d)",
          g.gl_pathv[f], s ? vkocc_last_error() : o.reason, o.P, o.evidence);
    CHECK(o.written_registers == 16 && o.augmented_registers == 17, "registers %u / %u", o.written_registers,
          o.augmented_registers);
    bounded += s == VKOCC_OK && o.evidence == VKOCC_WRITTEN_BOUNDED;
    json_decref(doc);
  }
  printf("H100, 16 registers written / 17 augmented: %u of %zu points settled by the bound\n", bounded, g.gl_pathc);
  globfree(&g);
}

static void fp_of_surface(const char *path, vkocc_fingerprint *fp, uint32_t *shared) {
  vkocc_surface s;
  vkocc_derived d;
  CHECK(vkocc_surface_load(path, &s) == VKOCC_OK, "%s: %s", path, vkocc_last_error());
  CHECK(vkocc_derive(s.points, s.count, s.subgroup_size, &d) == VKOCC_OK, "%s: derive", path);
  CHECK(vkocc_fingerprint_from_surface(&s, &d, fp) == VKOCC_OK, "%s: %s", path, vkocc_last_error());
  *shared = d.shared_per_sm;
  vkocc_surface_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s DOCS_RESULTS_DIR\n", argv[0]); return 2; }
  char p[1024];
  vkocc_fingerprint q2, q0, h100, h200, again;
  uint32_t m2, m0;
  snprintf(p, sizeof p, "%s/h100/queue-family/surface-compute.json", argv[1]);
  fp_of_surface(p, &q2, &m2);
  snprintf(p, sizeof p, "%s/h100/queue-family/surface-graphics.json", argv[1]);
  fp_of_surface(p, &q0, &m0);
  CHECK(m2 == 102400 && m0 == 49152, "the families grant %u and %u shared bytes per SM", m2, m0);
  CHECK(!strcmp(q2.cluster_id, q0.cluster_id), "one H100, two queue families: %s and %s", q2.cluster_id, q0.cluster_id);
  char c1a[24], c1b[24];
  fingerprint_cluster_id_c1(&q2, c1a);
  fingerprint_cluster_id_c1(&q0, c1b);
  CHECK(strcmp(c1a, c1b) != 0, "recipe c1 gave them two IDs (%s, %s)", c1a, c1b);
  /* the committed fingerprints (recipe c1, compute-only family): their surfaces under c2 */
  snprintf(p, sizeof p, "%s/h100/fingerprint/fingerprint-1.json", argv[1]);
  CHECK(vkocc_fingerprint_load(p, &h100) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(!strcmp(h100.cluster_id, "c1-dace7ddcd2e0"), "a c1 document reads with its c1 ID: %s", h100.cluster_id);
  snprintf(p, sizeof p, "%s/h200/fingerprint-1.json", argv[1]);
  CHECK(vkocc_fingerprint_load(p, &h200) == VKOCC_OK, "%s", vkocc_last_error());
  vkocc_cluster_id(&h100, h100.cluster_id);
  vkocc_cluster_id(&h200, h200.cluster_id);
  CHECK(!strcmp(h100.cluster_id, h200.cluster_id), "H100 %s, H200 %s", h100.cluster_id, h200.cluster_id);
  CHECK(!strcmp(h100.cluster_id, q2.cluster_id), "fingerprint %s, surface %s", h100.cluster_id, q2.cluster_id);
  /* and the fingerprint re-derived from the H200's measured surface */
  uint32_t m;
  snprintf(p, sizeof p, "%s/h200/surface.json", argv[1]);
  fp_of_surface(p, &again, &m);
  CHECK(!strcmp(again.cluster_id, h100.cluster_id), "H200 surface %s", again.cluster_id);
  printf("H100 and H200 on both queue families: %s\n", h100.cluster_id);
  /* the compute-only family's model (the chase runs were measured there) */
  vkocc_surface s;
  vkocc_derived d;
  snprintf(p, sizeof p, "%s/h100/queue-family/surface-compute.json", argv[1]);
  CHECK(vkocc_surface_load(p, &s) == VKOCC_OK && vkocc_derive(s.points, s.count, s.subgroup_size, &d) == VKOCC_OK, "model");
  vkocc_surface_free(&s);
  written_on_h100(argv[1], &d);
  return check_report();
}
