/* vkocc policy select and the kind of queue family, on lavapipe (one graphics+compute family): a database with an
 * entry of the device's cluster tuned on each kind gives the graphics+compute one and says so (JSON queue_kind and
 * entry_queue_kind, text "queue:"); with only a compute-only entry, that one, and the note says the kinds differ.
 * argv: the vkocc binary. */
#include "check.h"
#include "run.h"
#include <jansson.h>
#include <unistd.h>

static void write_db(const char *path, const char *cluster, bool both) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "{\"schema\":\"vkocc.policy-db/2\",\"kernels\":{\"k\":{\"entries\":["
             "{\"cluster\":\"%s\",\"queue_family\":{\"kind\":\"compute-only\",\"shared_bytes_per_sm\":102400},"
             "\"params\":{\"wg\":1024}}%s],\"default\":{\"params\":{\"wg\":64}}}}}",
          cluster, both ? ",{\"cluster\":\"CLUSTER\",\"queue_family\":{\"kind\":\"graphics+compute\"},\"params\":{\"wg\":256}}" : "");
  fclose(f);
  if (both) { /* the second entry's cluster */
    char *out;
    run_fmt(&out, "sed -i 's/CLUSTER/%s/' '%s'", cluster, path);
    free(out);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s VKOCC\n", argv[0]); return 2; }
  const char *bin = argv[1];
  char dir[] = "/tmp/vkocc-polq-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  setenv("XDG_CACHE_HOME", dir, 1);
  setenv("LP_NUM_THREADS", "2", 1);
  char *out, fp[600], db[600];
  snprintf(fp, sizeof fp, "%s/fp.json", dir);
  snprintf(db, sizeof db, "%s/db.json", dir);
  int rc = run_fmt(&out, "%s fingerprint --no-registers -o '%s' --json 2>/dev/null", bin, fp);
  CHECK(rc == 0, "fingerprint exit %d", rc);
  json_error_t e;
  json_t *doc = json_loads(out, 0, &e);
  free(out);
  const char *cluster = json_string_value(json_object_get(doc, "cluster_id"));
  const char *kind = json_string_value(json_object_get(json_object_get(json_object_get(doc, "device"), "queue_family"), "kind"));
  CHECK(cluster && kind && !strcmp(kind, "graphics+compute"), "lavapipe's family: %s", kind ? kind : "?");
  if (cluster) {
    write_db(db, cluster, true);
    rc = run_fmt(&out, "%s policy select --db '%s' --kernel k --fingerprint '%s' --json", bin, db, fp);
    CHECK(rc == 0, "select exit %d: %s", rc, out);
    json_t *c = json_loads(out, 0, &e);
    CHECK(c && !strcmp(json_string_value(json_object_get(c, "queue_kind")), "graphics+compute") &&
              !strcmp(json_string_value(json_object_get(c, "entry_queue_kind")), "graphics+compute") &&
              json_integer_value(json_object_get(json_object_get(c, "params"), "wg")) == 256,
          "the graphics+compute entry: %s", out);
    json_decref(c);
    free(out);
    rc = run_fmt(&out, "%s policy select --db '%s' --kernel k --fingerprint '%s'", bin, db, fp);
    CHECK_CONTAINS(out, "queue:   tuned on a graphics+compute queue family; this device's fingerprint: graphics+compute");
    CHECK_CONTAINS(out, "as this one");
    free(out);
    write_db(db, cluster, false);
    rc = run_fmt(&out, "%s policy select --db '%s' --kernel k --fingerprint '%s' --json", bin, db, fp);
    CHECK(rc == 0 && strstr(out, "\"entry_queue_kind\": \"compute-only\"") && strstr(out, "\"wg\": 1024"),
          "only compute-only: that entry (%s)", out);
    CHECK_CONTAINS(out, "tuned on a compute-only queue family, this one is graphics+compute");
    free(out);
  }
  json_decref(doc);
  run_fmt(&out, "rm -rf '%s'", dir);
  free(out);
  return check_report();
}
