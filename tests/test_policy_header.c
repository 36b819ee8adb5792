/* `vkocc policy header`'s identifiers (vkocc_policy_header): a kernel, parameter or cluster name becomes a C
 * identifier only when it is one: letters, digits, '_' and '-' (written '_'), not starting with a digit. Every
 * other byte, alone in an otherwise good name, is refused as a usage error naming the name; the good names are
 * written into the header as identifiers. */
#include "check.h"
#include "run.h"
#include "vkocc.h"
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/vkocc-policy-header-XXXXXX";

/* a database with one kernel and one parameter; `where` 0: the kernel's name, 1: the parameter's, 2: the cluster's */
static vkocc_status header_of(const char *name, int where, char **text) {
  json_t *params = json_pack("{s:i}", where == 1 ? name : "TILE", 4);
  json_t *entry = json_pack("{s:s, s:o}", "cluster", where == 2 ? name : "c3-0123456789ab", "params", params);
  json_t *kernel = json_pack("{s:{s:{s:i}}, s:[o]}", "default", "params", where == 1 ? name : "TILE", 8, "entries", entry);
  json_t *db = json_pack("{s:s, s:{s:o}}", "schema", "vkocc.policy-db/1", "kernels", where == 0 ? name : "k", kernel);
  char path[128];
  snprintf(path, sizeof path, "%s/db.json", dir);
  CHECK(db && json_dump_file(db, path, JSON_INDENT(1)) == 0, "cannot write %s", path);
  json_decref(db);
  *text = NULL;
  return vkocc_policy_header(path, text);
}

int main(void) {
  if (!mkdtemp(dir)) return 2;
  static const char *const what[] = {"kernel", "parameter", "cluster"};
  char *h;
  for (int where = 0; where < 3; where++) {
    /* a good name: written, '-' as '_' */
    CHECK(header_of("ab-9_Z", where, &h) == VKOCC_OK, "%s 'ab-9_Z': %s", what[where], vkocc_last_error());
    CHECK_CONTAINS(h, where == 1 ? "AB_9_Z" : "ab_9_Z");
    free(h);
    /* every other byte between two letters: refused, one by one */
    for (int c = 1; c < 256; c++) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') continue;
      if (c >= 0x80) continue; /* not UTF-8 alone: JSON cannot carry it; a multibyte letter is below */
      char name[8] = {'a', (char)c, 'b', 0};
      vkocc_status s = header_of(name, where, &h);
      CHECK(s == VKOCC_ERROR_USAGE, "%s 'a\\x%02x b': status %d, expected a usage error", what[where], c, (int)s);
      if (s == VKOCC_ERROR_USAGE) CHECK_CONTAINS(vkocc_last_error(), "only letters, digits, '_' and '-' make an identifier");
      free(h);
    }
    const char *const bad[] = {"a\xc3\xa9", "9a", "", "_Reserved", "__x", "int"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      vkocc_status s = header_of(bad[i], where, &h);
      CHECK(s == VKOCC_ERROR_USAGE, "%s '%s': status %d, expected a usage error", what[where], bad[i], (int)s);
      free(h);
    }
  }
  char *out;
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
