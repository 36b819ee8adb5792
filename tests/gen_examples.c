/* Writes the example files under tests/data (synthetic fingerprints and a policy database) through the
 * library, so they are what vkocc itself writes. usage: gen_examples DIR */
#include "io.h"
#include "synth.h"
#include <stdio.h>
#include <string.h>

static json_t *fp_doc(const vkocc_fingerprint *fp) {
  json_t *doc = io_fingerprint_json(fp);
  json_object_set_new(doc, "schema", json_string("vkocc.fingerprint/1"));
  json_object_set_new(doc, "tool_version", json_string(vkocc_version()));
  json_object_set_new(doc, "device", json_pack("{s:s, s:s}", "name", fp->device_name, "driver_info", "synthetic"));
  return doc;
}

/* "noisy" in the name: one normalized value off by one workgroup per SM, as a fingerprint measured where
 * the model could not correct it (or edited by hand) would hold; it gets its own ID. */
static int write_fp(const char *dir, const char *name, const synth_arch *a, uint32_t sms, uint32_t noise,
                    vkocc_fingerprint *fp) {
  char path[512];
  if (synth_fingerprint(a, sms, noise, fp)) return 1;
  if (strstr(name, "noisy")) {
    fp->normalized[3][1] += 1;
    vkocc_cluster_id(fp, fp->cluster_id);
  }
  snprintf(path, sizeof path, "%s/%s", dir, name);
  json_t *doc = fp_doc(fp);
  vkocc_status s = util_json_write(doc, path);
  json_decref(doc);
  return s != VKOCC_OK;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: gen_examples DIR\n"); return 2; }
  vkocc_fingerprint h132, h114, hn, amp, rdna;
  if (write_fp(argv[1], "fp-hopper-132.json", &SYNTH_HOPPER, 132, 0, &h132) ||
      write_fp(argv[1], "fp-hopper-114.json", &SYNTH_HOPPER, 114, 0, &h114) ||
      write_fp(argv[1], "fp-hopper-noisy.json", &SYNTH_HOPPER, 114, 0, &hn) ||
      write_fp(argv[1], "fp-ampere-82.json", &SYNTH_AMPERE, 82, 0, &amp) ||
      write_fp(argv[1], "fp-rdna-40.json", &SYNTH_RDNA, 40, 0, &rdna))
    return 1;
  /* a policy database: a sort kernel tuned on Hopper (two problem-size ranges) and on Ampere */
  json_t *clusters = json_object();
  const vkocc_fingerprint *known[] = {&h132, &amp};
  const char *names[] = {"NVIDIA Hopper (synthetic)", "NVIDIA Ampere GA102 (synthetic)"};
  for (int i = 0; i < 2; i++) {
    json_t *c = io_fingerprint_json(known[i]);
    json_object_del(c, "cluster_id");
    json_object_set_new(c, "name", json_string(names[i]));
    json_object_set_new(clusters, known[i]->cluster_id, c);
  }
  json_t *db = json_pack(
      "{s:s, s:o, s:{s:{s:{s:{s:i, s:i}}, s:[{s:s, s:{s:{s:i, s:i}, s:s}, s:{s:i, s:i}}, "
      "{s:s, s:{s:{s:i}, s:{s:[s, s]}}, s:{s:i, s:i}}, {s:s, s:{s:s}, s:{s:i, s:i}}]}}}",
      "schema", "vkocc.policy-db/1", "clusters", clusters, "kernels", "radix_sort", "default", "params", "wg_size", 256,
      "elements_per_thread", 8, "entries",
      "cluster", h132.cluster_id, "when", "problem_size", "min", 0, "max", 1048576, "element_type", "u32", "params",
      "wg_size", 512, "elements_per_thread", 14,
      "cluster", h132.cluster_id, "when", "problem_size", "min", 1048577, "element_type", "in", "u32", "f32", "params",
      "wg_size", 256, "elements_per_thread", 15,
      "cluster", amp.cluster_id, "when", "element_type", "u32", "params", "wg_size", 512, "elements_per_thread", 8);
  char path[512];
  snprintf(path, sizeof path, "%s/policy-db.json", argv[1]);
  vkocc_status s = util_json_write(db, path);
  json_decref(db);
  return s != VKOCC_OK;
}
