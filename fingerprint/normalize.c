/* Normalization onto the canonical grid and the cluster ID. */
#include "util.h"
#include "model.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

const uint32_t vkocc_canonical_wg[VKOCC_CANON_WG] = {32, 64, 96, 128, 160, 192, 224, 256,
                                                     320, 384, 448, 512, 640, 768, 896, 1024};
const uint32_t vkocc_canonical_shared[VKOCC_CANON_SHARED] = {0, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 49152};

vkocc_status vkocc_fingerprint_from_surface(const vkocc_surface *s, const vkocc_derived *d, vkocc_fingerprint *fp) {
  vkocc_clear_error();
  memset(fp, 0, sizeof *fp);
  if (!d->sm_count) return vkocc_fail(VKOCC_ERROR_RUNTIME, "fingerprint: no SM count was derived");
  fp->subgroup_size = d->subgroup_size;
  snprintf(fp->device_name, sizeof fp->device_name, "%s", s->has_device ? s->device.name : "");
  snprintf(fp->driver_info, sizeof fp->driver_info, "%s", s->has_device ? s->device.driver_info : "");
  /* what the device can run: its limits, else the largest measured point */
  uint32_t maxwg = 0, maxsh = 0;
  for (uint32_t i = 0; i < s->count; i++) {
    if (s->points[i].wg_size > maxwg) maxwg = s->points[i].wg_size;
    if (s->points[i].shared_bytes > maxsh) maxsh = s->points[i].shared_bytes;
  }
  if (s->has_device && s->device.max_invocations) maxwg = s->device.max_invocations;
  if (s->has_device && s->device.max_shared_bytes) maxsh = s->device.max_shared_bytes;
  /* Isolated measurement errors (at most 5% of the points disagree with the model the rest agree on) take
   * the model's value, so one mis-measured point does not change the ID; they stay listed in the derived
   * limits' "unexplained". More disagreement is kept as measured: it is the device, not noise. */
  bool replace_noisy = d->total && 20 * (d->total - d->explained) <= d->total;
  for (int a = 0; a < VKOCC_CANON_WG; a++)
    for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
      uint32_t wg = vkocc_canonical_wg[a], sh = vkocc_canonical_shared[b];
      if (wg > maxwg || sh > maxsh) { fp->normalized[a][b] = NAN; continue; }
      bool found = false;
      for (uint32_t i = 0; i < s->count && !found; i++)
        if (s->points[i].wg_size == wg && s->points[i].shared_bytes == sh) {
          fp->normalized[a][b] = (double)s->points[i].P / d->sm_count;
          fp->source[a][b] = s->points[i].predicted ? VKOCC_CANON_MODEL : VKOCC_CANON_MEASURED; /* adaptive */
          found = true;
          bool unexplained = false;
          for (uint32_t k = 0; k < d->n_unexplained; k++) unexplained |= d->unexplained[k] == i;
          if (unexplained && replace_noisy) {
            vkocc_occupancy oc;
            vkocc_occupancy_compute(d, wg, sh, &oc);
            fp->normalized[a][b] = oc.wg_per_sm;
            fp->source[a][b] = VKOCC_CANON_MODEL_NOISY;
          }
        }
      if (!found) {
        vkocc_occupancy oc;
        vkocc_occupancy_compute(d, wg, sh, &oc);
        fp->normalized[a][b] = oc.wg_per_sm;
        fp->source[a][b] = VKOCC_CANON_MODEL;
      }
    }
  vkocc_fingerprint_set_ids(fp);
  return VKOCC_OK;
}

/* The cluster IDs' prefixes, by recipe: the one table that writes and reads them */
static const char *const id_prefix[] = {[VKOCC_RECIPE_C1] = "c1-",
                                        [VKOCC_RECIPE_C2] = "c2-",
                                        [VKOCC_RECIPE_C3] = "c3-",
                                        [VKOCC_RECIPE_C3_PARTIAL] = "c3p-"};

vkocc_cluster_recipe vkocc_cluster_id_recipe(const char *id) {
  for (int r = VKOCC_RECIPE_C1; r <= VKOCC_RECIPE_C3_PARTIAL; r++)
    if (id && !strncmp(id, id_prefix[r], strlen(id_prefix[r]))) return (vkocc_cluster_recipe)r;
  return VKOCC_RECIPE_NONE;
}

const char *vkocc_cluster_recipe_name(vkocc_cluster_recipe r) {
  static const char *const name[] = {
      [VKOCC_RECIPE_C1] = "c1", [VKOCC_RECIPE_C2] = "c2", [VKOCC_RECIPE_C3] = "c3", [VKOCC_RECIPE_C3_PARTIAL] = "c3"};
  return r > VKOCC_RECIPE_NONE && r <= VKOCC_RECIPE_C3_PARTIAL ? name[r] : NULL;
}

/* An ID: the recipe's prefix and the hash's top 48 bits in hex */
static void id_format(vkocc_cluster_recipe r, uint64_t h, char out[24]) {
  snprintf(out, 24, "%s%012llx", id_prefix[r], (unsigned long long)(h >> 16));
}

/* Recipe c1 (fingerprints written before c2, still read): "vkocc-fp/1;sg=G;" then for each canonical (wg, shared)
 * in row order "WG,SH=V;" with V the value to 3 decimals ("x" where unrunnable). The ID is "c1-" + the top 48 bits
 * of FNV-1a 64 of it. It depends on the shared memory the queue family grants (100 KiB on an H100's compute-only
 * family, 48 KiB on its graphics+compute one), so one GPU had two IDs. */
void fingerprint_cluster_id_c1(const vkocc_fingerprint *fp, char out[24]) {
  uint64_t h = VKOCC_FNV1A_OFFSET;
  char buf[64];
  int n = snprintf(buf, sizeof buf, "vkocc-fp/1;sg=%u;", fp->subgroup_size);
  h = util_fnv1a(h, buf, (size_t)n);
  for (int a = 0; a < VKOCC_CANON_WG; a++)
    for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
      double v = fp->normalized[a][b];
      if (isnan(v)) n = snprintf(buf, sizeof buf, "%u,%u=x;", vkocc_canonical_wg[a], vkocc_canonical_shared[b]);
      else n = snprintf(buf, sizeof buf, "%u,%u=%.3f;", vkocc_canonical_wg[a], vkocc_canonical_shared[b], v);
      h = util_fnv1a(h, buf, (size_t)n);
    }
  id_format(VKOCC_RECIPE_C1, h, out);
}

/* Recipe c2: one GPU, one ID. "vkocc-fp/2;sg=G;" then for each canonical workgroup size "WG=V;", V the resident
 * workgroups per SM without shared memory (3 decimals, "x" where unrunnable): the workgroup and subgroup slots.
 * The shared capacity is the queue family's, not the architecture's: it is a recorded attribute of the
 * fingerprint (docs/fingerprint.md), never part of the ID. */
size_t fingerprint_occupancy_text(const vkocc_fingerprint *fp, char *out, size_t len) {
  size_t n = (size_t)snprintf(out, len, "vkocc-fp/2;sg=%u;", fp->subgroup_size);
  for (int a = 0; a < VKOCC_CANON_WG && n < len; a++) {
    double v = fp->normalized[a][0];
    if (isnan(v)) n += (size_t)snprintf(out + n, len - n, "%u=x;", vkocc_canonical_wg[a]);
    else n += (size_t)snprintf(out + n, len - n, "%u=%.3f;", vkocc_canonical_wg[a], v);
  }
  return n < len ? n : len - 1;
}

void vkocc_cluster_id(const vkocc_fingerprint *fp, char out[24]) {
  char text[VKOCC_OCCUPANCY_TEXT];
  size_t n = fingerprint_occupancy_text(fp, text, sizeof text);
  uint64_t h = util_fnv1a(VKOCC_FNV1A_OFFSET, text, n);
  id_format(VKOCC_RECIPE_C2, h, out);
}

void fingerprint_cluster_id_other(const vkocc_fingerprint *fp, char out[24]) {
  if (vkocc_cluster_id_recipe(fp->cluster_id) != VKOCC_RECIPE_C2) vkocc_cluster_id(fp, out); /* c1 and c3: the c2 ID */
  else fingerprint_cluster_id_c1(fp, out);
}

double fingerprint_surface_distance(const vkocc_fingerprint *a, const vkocc_fingerprint *b) {
  if (a->subgroup_size != b->subgroup_size) return 1.0;
  double sum = 0;
  int n = 0;
  for (int i = 0; i < VKOCC_CANON_WG; i++)
    for (int j = 0; j < VKOCC_CANON_SHARED; j++) {
      double x = a->normalized[i][j], y = b->normalized[i][j];
      if (isnan(x) && isnan(y)) continue;
      n++;
      if (isnan(x) || isnan(y)) { sum += 1; continue; }
      double m = fmax(x, y);
      if (m > 0) sum += fabs(x - y) / m;
    }
  return n ? sum / n : 0;
}

void vkocc_cluster_id_c3(const vkocc_fingerprint *fp, char out[24]) {
  char text[VKOCC_OCCUPANCY_TEXT + 512];
  size_t n = (size_t)snprintf(text, sizeof text, "vkocc-fp/3;");
  n += fingerprint_occupancy_text(fp, text + n, sizeof text - n);
  vkocc_signature_text(&fp->signature, text + n, sizeof text - n);
  n = strlen(text);
  uint64_t h = util_fnv1a(VKOCC_FNV1A_OFFSET, text, n);
  bool partial = false;
  for (int i = 0; i < VKOCC_SIG_COUNT; i++)
    if (fp->signature.v[i].state == VKOCC_SIG_UNAVAILABLE || fp->signature.v[i].state == VKOCC_SIG_NOT_STABLE)
      partial = true;
  id_format(partial ? VKOCC_RECIPE_C3_PARTIAL : VKOCC_RECIPE_C3, h, out);
}

void vkocc_fingerprint_set_ids(vkocc_fingerprint *fp) {
  vkocc_cluster_id(fp, fp->occupancy_id);
  if (fp->signature.present) vkocc_cluster_id_c3(fp, fp->cluster_id);
  else snprintf(fp->cluster_id, sizeof fp->cluster_id, "%s", fp->occupancy_id);
}

/* The surface's distance plus, where both fingerprints carry a signature, the signature's (recipe c3). */
double vkocc_fingerprint_distance_explain(const vkocc_fingerprint *a, const vkocc_fingerprint *b, char *what,
                                          size_t what_len) {
  double ds = fingerprint_surface_distance(a, b);
  if (!a->signature.present || !b->signature.present) {
    if (what && what_len)
      snprintf(what, what_len, "surface %.4f; signature not compared (%s)", ds,
               a->signature.present || b->signature.present ? "one fingerprint predates it" : "neither has one");
    return ds;
  }
  char sw[512];
  double dg = vkocc_signature_distance(&a->signature, &b->signature, sw, sizeof sw);
  if (what && what_len) snprintf(what, what_len, "surface %.4f; signature %.4f%s%s", ds, dg, sw[0] ? ": " : " (equal)", sw);
  return ds + dg > 1 ? 1 : ds + dg;
}

double vkocc_fingerprint_distance(const vkocc_fingerprint *a, const vkocc_fingerprint *b) {
  return vkocc_fingerprint_distance_explain(a, b, NULL, 0);
}
