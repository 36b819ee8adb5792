/* Fuzz target for the fingerprint reader, then what its consumers run on the result: the writer
 * (round trip), the distance and the clustering that `vkocc cluster` and policy selection use. */
#include "fuzz_util.h"
#include "io.h"
#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static vkocc_fingerprint ref[2];
  static bool have_ref;
  if (!have_ref) {
    fuzz_reference("fp-hopper-132.json", &ref[0]);
    fuzz_reference("fp-rdna-40.json", &ref[1]);
    have_ref = true;
  }
  vkocc_fingerprint fp;
  vkocc_status s = vkocc_fingerprint_parse((const char *)data, size, "fuzz", &fp);
  fuzz_check_status(s, 0); /* bad input is a usage error that says why, nothing else */
  if (s) return 0;
  fuzz_accepted++;
  FUZZ_CHECK(((strncmp(fp.cluster_id, "c1-", 3) == 0 || strncmp(fp.cluster_id, "c2-", 3) == 0 ||
              strncmp(fp.cluster_id, "c3-", 3) == 0) && strlen(fp.cluster_id) == 15) ||
             (strncmp(fp.cluster_id, "c3p-", 4) == 0 && strlen(fp.cluster_id) == 16));
  FUZZ_CHECK(strncmp(fp.cluster_id, "c3", 2) || fp.signature.present); /* a c3 ID only with its signature */

  /* distance: in [0, 1], 0 to itself, symmetric */
  FUZZ_CHECK(vkocc_fingerprint_distance(&fp, &fp) == 0);
  for (int i = 0; i < 2; i++) {
    double d1 = vkocc_fingerprint_distance(&fp, &ref[i]), d2 = vkocc_fingerprint_distance(&ref[i], &fp);
    FUZZ_CHECK(d1 >= 0 && d1 <= 1 && d1 == d2);
  }
  /* clustering with the references: every fingerprint lands in some cluster, itself in its own */
  vkocc_fingerprint all[3] = {fp, ref[0], ref[1]};
  uint32_t of[3], nclusters = 0;
  double dist[3];
  FUZZ_CHECK(vkocc_cluster(all, 3, VKOCC_CLUSTER_THRESHOLD, of, dist, &nclusters) == VKOCC_OK);
  FUZZ_CHECK(nclusters >= 1 && nclusters <= 3);
  for (int i = 0; i < 3; i++) FUZZ_CHECK(of[i] < 3 && dist[i] >= 0 && dist[i] <= VKOCC_CLUSTER_THRESHOLD);

  /* what the writer writes, the reader reads back with the same ID */
  json_t *doc = io_fingerprint_json(&fp);
  json_object_set_new(doc, "schema", json_string("vkocc.fingerprint/1"));
  char *text = json_dumps(doc, 0);
  json_decref(doc);
  vkocc_fingerprint back;
  s = vkocc_fingerprint_parse(text, strlen(text), "round trip", &back);
  if (s) fprintf(stderr, "round trip: %s\n", vkocc_last_error());
  free(text);
  FUZZ_CHECK(s == VKOCC_OK && strcmp(back.cluster_id, fp.cluster_id) == 0);
  return 0;
}
