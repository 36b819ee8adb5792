/* Fingerprints: one architecture at several SM counts gives one cluster ID; different per-SM limits give
 * different IDs; noisy copies keep their cluster by distance; the reader checks schema, types, the grid and
 * the stored ID. */
#include "check.h"
#include "io.h"
#include "internal.h"
#include "synth.h"
#include "model.h" /* fingerprint_derive_fixed, the cluster recipes */
#include <stdlib.h>

int main(void) {
  const synth_arch *archs[] = {&SYNTH_HOPPER, &SYNTH_AMPERE, &SYNTH_RDNA, &SYNTH_GCN, &SYNTH_XE};
  const uint32_t sms[] = {132, 114, 78, 28, 46, 1};
  char ids[5][24];
  for (int a = 0; a < 5; a++) {
    vkocc_fingerprint ref;
    CHECK(synth_fingerprint(archs[a], sms[0], 0, &ref) == VKOCC_OK, "%s: %s", archs[a]->name, vkocc_last_error());
    snprintf(ids[a], sizeof ids[a], "%s", ref.cluster_id);
    CHECK(!strncmp(ref.cluster_id, "c2-", 3) && strlen(ref.cluster_id) == 15, "id format %s", ref.cluster_id);
    CHECK(vkocc_cluster_id_recipe(ref.cluster_id) == VKOCC_RECIPE_C2, "recipe of %s", ref.cluster_id);
    for (int k = 1; k < 6; k++) {
      vkocc_fingerprint fp;
      CHECK(synth_fingerprint(archs[a], sms[k], 0, &fp) == VKOCC_OK, "%s at %u SMs", archs[a]->name, sms[k]);
      CHECK(!strcmp(fp.cluster_id, ref.cluster_id), "%s: %u SMs gives %s, %u SMs %s", archs[a]->name, sms[k],
            fp.cluster_id, sms[0], ref.cluster_id);
      CHECK(vkocc_fingerprint_distance(&fp, &ref) == 0, "same architecture, distance 0");
    }
    /* two isolated noisy points: the model's values replace them, the ID stays */
    vkocc_fingerprint noisy;
    CHECK(synth_fingerprint(archs[a], 114, 2, &noisy) == VKOCC_OK, "noisy");
    CHECK(!strcmp(noisy.cluster_id, ref.cluster_id), "%s: 2 isolated noisy points must keep the ID", archs[a]->name);
    int replaced = 0;
    for (int i = 0; i < VKOCC_CANON_WG; i++)
      for (int j = 0; j < VKOCC_CANON_SHARED; j++) replaced += noisy.source[i][j] == VKOCC_CANON_MODEL_NOISY;
    CHECK(replaced == 2, "%s: %d points replaced, expected 2", archs[a]->name, replaced);
    /* a perturbed normalized surface (as a database or another tool may hold): another ID, within the threshold */
    vkocc_fingerprint pert = ref;
    pert.normalized[3][0] += 1;
    vkocc_cluster_id(&pert, pert.cluster_id);
    double d = vkocc_fingerprint_distance(&pert, &ref);
    CHECK(strcmp(pert.cluster_id, ref.cluster_id) != 0, "%s: a changed value must change the ID", archs[a]->name);
    CHECK(d > 0 && d <= VKOCC_CLUSTER_THRESHOLD, "%s: perturbed distance %g", archs[a]->name, d);
  }
  for (int a = 0; a < 5; a++)
    for (int b = a + 1; b < 5; b++) {
      CHECK(strcmp(ids[a], ids[b]) != 0, "%s and %s share an ID", archs[a]->name, archs[b]->name);
      vkocc_fingerprint x, y;
      synth_fingerprint(archs[a], 100, 0, &x);
      synth_fingerprint(archs[b], 100, 0, &y);
      CHECK(vkocc_fingerprint_distance(&x, &y) > 5 * VKOCC_CLUSTER_THRESHOLD, "%s vs %s distance %g", archs[a]->name,
            archs[b]->name, vkocc_fingerprint_distance(&x, &y));
    }
  /* one GPU, one ID: the shared memory a queue family grants (an H100: 100 KiB compute-only, 48 KiB
   * graphics+compute) is an attribute, not part of the ID; the surfaces differ, so the distance does */
  synth_arch h2 = SYNTH_HOPPER;
  h2.M = 49152;
  vkocc_fingerprint f1, f2;
  synth_fingerprint(&SYNTH_HOPPER, 132, 0, &f1);
  synth_fingerprint(&h2, 132, 0, &f2);
  CHECK(!strcmp(f1.cluster_id, f2.cluster_id), "the shared memory per SM must not change the ID: %s %s", f1.cluster_id,
        f2.cluster_id);
  CHECK(vkocc_fingerprint_distance(&f1, &f2) > 0, "the surfaces differ");
  /* ... but the slots do: a workgroup slot count of 16 (Ampere GA10x) is another ID */
  synth_arch h3 = SYNTH_HOPPER;
  h3.W = 16;
  synth_fingerprint(&h3, 132, 0, &f2);
  CHECK(strcmp(f1.cluster_id, f2.cluster_id) != 0, "W 16 vs 32 must change the ID");
  /* the recipe c1 of the same surface is still what a c1 document's ID is checked against */
  char c1[24];
  fingerprint_cluster_id_c1(&f1, c1);
  CHECK(!strcmp(c1, "c1-dace7ddcd2e0"), "synthetic Hopper under recipe c1: %s", c1);

  /* clustering: 5 architectures x 6 SM counts, plus perturbed copies (other IDs) -> 5 clusters */
  vkocc_fingerprint fps[60];
  uint32_t n = 0, of[60];
  double dist[60];
  for (int a = 0; a < 5; a++)
    for (int k = 0; k < 6; k++) {
      synth_fingerprint(archs[a], sms[k], 0, &fps[n++]);
      if (k < 2) {
        fps[n] = fps[n - 1];
        fps[n].normalized[2 + k][0] += 1 + k; /* the ID covers the column without shared memory */
        vkocc_cluster_id(&fps[n], fps[n].cluster_id);
        n++;
      }
    }
  uint32_t nc;
  CHECK(vkocc_cluster(fps, n, VKOCC_CLUSTER_THRESHOLD, of, dist, &nc) == VKOCC_OK, "cluster");
  CHECK_EQ_U(nc, 5);
  for (uint32_t i = 0; i < n; i++)
    CHECK(strstr(fps[i].device_name, "") && !strncmp(fps[of[i]].device_name, fps[i].device_name,
                                                      strcspn(fps[i].device_name, " ")),
          "%s clustered with %s", fps[i].device_name, fps[of[i]].device_name);
  CHECK(vkocc_cluster(fps, n, 0, of, dist, &nc) == VKOCC_OK && nc == 15, "threshold 0 keeps perturbed copies apart: %u", nc);

  /* the reader: a written document reads back to the same ID; bad documents name the path */
  json_t *doc = io_fingerprint_json(&f1);
  json_object_set_new(doc, "schema", json_string("vkocc.fingerprint/1"));
  char *text = json_dumps(doc, 0);
  vkocc_fingerprint back;
  CHECK(vkocc_fingerprint_parse(text, strlen(text), "mem.json", &back) == VKOCC_OK, "parse: %s", vkocc_last_error());
  CHECK(!strcmp(back.cluster_id, f1.cluster_id) && vkocc_fingerprint_distance(&back, &f1) == 0, "round trip");
  free(text);
  json_object_set_new(doc, "cluster_id", json_string("c1-000000000000"));
  text = json_dumps(doc, 0);
  CHECK(vkocc_fingerprint_parse(text, strlen(text), "mem.json", &back) == VKOCC_ERROR_USAGE, "tampered ID");
  CHECK_CONTAINS(vkocc_last_error(), "mem.json: $.cluster_id: \"c1-000000000000\" does not match");
  free(text);
  json_object_set_new(doc, "cluster_id", json_string(f1.cluster_id));
  json_array_set_new(json_array_get(json_object_get(json_object_get(doc, "normalized"), "workgroups_per_sm"), 3), 2,
                     json_string("many"));
  text = json_dumps(doc, 0);
  CHECK(vkocc_fingerprint_parse(text, strlen(text), "mem.json", &back) == VKOCC_ERROR_USAGE, "bad value");
  CHECK_CONTAINS(vkocc_last_error(), "$.normalized.workgroups_per_sm[3][2]: expected a number");
  free(text);
  json_object_set_new(doc, "schema", json_string("vkocc.fingerprint/4"));
  text = json_dumps(doc, 0);
  CHECK(vkocc_fingerprint_parse(text, strlen(text), "mem.json", &back) == VKOCC_ERROR_USAGE, "version 4");
  CHECK_CONTAINS(vkocc_last_error(), "$.schema: version 4");
  free(text);
  json_decref(doc);
  CHECK(vkocc_fingerprint_parse("[1,2", 4, "x.json", &back) == VKOCC_ERROR_USAGE, "broken JSON");
  /* the recipes by their prefixes, in one place */
  CHECK(vkocc_cluster_id_recipe("c1-dace7ddcd2e0") == VKOCC_RECIPE_C1, "c1");
  CHECK(vkocc_cluster_id_recipe("c3-0123456789ab") == VKOCC_RECIPE_C3, "c3");
  CHECK(vkocc_cluster_id_recipe("c3p-0123456789ab") == VKOCC_RECIPE_C3_PARTIAL, "c3p");
  CHECK(vkocc_cluster_id_recipe("c4-0") == VKOCC_RECIPE_NONE && vkocc_cluster_id_recipe(NULL) == VKOCC_RECIPE_NONE,
        "no recipe");
  CHECK(!strcmp(vkocc_cluster_recipe_name(VKOCC_RECIPE_C3_PARTIAL), "c3") && !vkocc_cluster_recipe_name(0), "names");
  CHECK_CONTAINS(vkocc_last_error(), "x.json:1:");
  return check_report();
}
