/* The calculator in the library: every row says where its P comes from and what its occupancy is (exact or a
 * bound, never above 100%), from the documents vkocc writes and a hand-made CSV; one emitter for three formats. */
#include "check.h"
#include "vkocc.h"
#include <jansson.h>
#include <stdlib.h>

static const char *data;

static bool load(const char *name, vkocc_calc_model *m) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", data, name);
  vkocc_status st = vkocc_calc_model_load(path, 0, m);
  CHECK(st == VKOCC_OK, "%s: %s", path, vkocc_last_error());
  return st == VKOCC_OK;
}

static char *written(const vkocc_calc_report *r, vkocc_calc_format f) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  vkocc_status st = vkocc_calc_write(r, f, mem);
  fclose(mem);
  CHECK(st == VKOCC_OK, "vkocc_calc_write: %s", vkocc_last_error());
  return text;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]); return 2; }
  data = argv[1];
  vkocc_calc_model m;
  vkocc_calc_row r;

  /* H100: subgroup slots seen binding, so the thread maximum (2048) is exact; a measured point and a model one */
  if (load("h100-grid.csv", &m)) {
    vkocc_calc_point(&m, 96, 8192, 0, &r);
    CHECK(r.source == VKOCC_CALC_MEASURED && r.bound == VKOCC_CALC_EXACT, "96/8K: source %d bound %d", r.source, r.bound);
    CHECK_NEAR(r.occupancy.occupancy_pct, 56.25, 1e-9);
    CHECK_EQ_U(r.occupancy.wgs, 1584);
    CHECK_EQ_U(r.limits.shared_memory, 12);
    vkocc_calc_point(&m, 160, 6000, 0, &r);
    CHECK(r.source == VKOCC_CALC_MODEL && r.bound == VKOCC_CALC_EXACT, "160/6000: source %d bound %d", r.source, r.bound);
    CHECK_EQ_U(r.occupancy.wg_per_sm, 12);
    /* exact everywhere: the documents carry no occupancy_bound, the CSV no such column */
    vkocc_calc_row *rows;
    uint32_t n;
    CHECK(vkocc_calc_table(&m, VKOCC_CALC_FILE_POINTS, 0, &rows, &n) == VKOCC_OK && n == 70, "table: %u rows", n);
    vkocc_calc_report rep = {.model = &m, .from = "h100-grid.csv", .kind = VKOCC_CALC_TABLE, .rows = rows, .count = n};
    char *csv = written(&rep, VKOCC_CALC_CSV), *txt = written(&rep, VKOCC_CALC_TEXT);
    CHECK(csv && !strncmp(csv, "wg_size,shared_bytes,occupancy_pct,workgroups,", 46), "CSV header: %.80s", csv);
    CHECK(txt && strstr(txt, "\n32       4096        39.06%     25      25      800     3300         shared memory"),
          "text table: %.300s", txt);
    json_t *doc = vkocc_calc_document(&rep);
    char *dump = json_dumps(doc, 0);
    CHECK(dump && !strstr(dump, "occupancy_bound") && strstr(dump, "\"schema\": \"vkocc.calc/1\""), "%.200s", dump);
    free(dump), json_decref(doc), free(csv), free(txt), free(rows);
    vkocc_calc_model_free(&m);
  }

  /* lavapipe's adaptive surface: predicted points are no measurements; one workgroup per thread never shows the
   * subgroup slots binding, so 1024 threads per SM is a lower bound and every percentage an upper one */
  if (load("lvp-adaptive.json", &m)) {
    CHECK(!m.derived.subgroups_bound_seen && m.derived.threads_per_sm == 1024, "lavapipe: %u threads, seen %d",
          m.derived.threads_per_sm, m.derived.subgroups_bound_seen);
    vkocc_calc_point(&m, 256, 0, 0, &r);
    CHECK(r.source == VKOCC_CALC_PREDICTED, "256/0 is predicted in the file: source %s", vkocc_calc_source_name(r.source));
    CHECK(r.bound == VKOCC_CALC_AT_MOST, "256/0: bound %s", vkocc_calc_bound_name(r.bound));
    CHECK_NEAR(r.occupancy.occupancy_pct, 25.0, 1e-9);
    vkocc_calc_point(&m, 8, 0, 0, &r);
    CHECK(r.source == VKOCC_CALC_MEASURED && r.bound == VKOCC_CALC_AT_MOST, "8/0: %d %d", r.source, r.bound);
    vkocc_calc_report rep = {.model = &m, .from = "lvp-adaptive.json", .kind = VKOCC_CALC_POINT, .rows = &r, .count = 1};
    vkocc_calc_point(&m, 256, 0, 0, &r);
    char *txt = written(&rep, VKOCC_CALC_TEXT), *csv = written(&rep, VKOCC_CALC_CSV);
    CHECK_CONTAINS(txt, "(predicted)");
    CHECK_CONTAINS(txt, "occupancy: at most 25.00% of 1024 or more threads per SM");
    CHECK_CONTAINS(csv, ",occupancy_pct,occupancy_bound,");
    CHECK_CONTAINS(csv, "\n256,0,25.00,at_most,");
    json_t *doc = vkocc_calc_document(&rep);
    json_t *row = json_array_get(json_object_get(doc, "rows"), 0);
    CHECK(!strcmp(json_string_value(json_object_get(row, "source")), "predicted") &&
          !strcmp(json_string_value(json_object_get(row, "occupancy_bound")), "at_most"), "JSON row source/bound");
    json_decref(doc), free(txt), free(csv);
    vkocc_calc_suggestion s;
    CHECK(vkocc_calc_suggest(&m, 0, 0, 0, 0, &s) == VKOCC_OK && s.row.wg_size == 1024, "suggestion %u", s.row.wg_size);
    CHECK(s.row.bound == VKOCC_CALC_AT_MOST, "suggestion bound %d", s.row.bound);
    vkocc_calc_model_free(&m);
  }

  /* a hand-made CSV whose wg 256 point holds twice the threads the other points allow: 100%, an upper bound */
  if (load("overfull.csv", &m)) {
    vkocc_calc_point(&m, 256, 0, 0, &r);
    CHECK(r.source == VKOCC_CALC_MEASURED, "source %d", r.source);
    CHECK_NEAR(r.occupancy.occupancy_pct, 100.0, 0);
    CHECK(r.bound == VKOCC_CALC_AT_MOST, "bound %d", r.bound);
    CHECK_EQ_U(r.occupancy.threads_per_sm, 512); /* what was measured stays as measured */
    vkocc_calc_row *rows;
    uint32_t n;
    CHECK(vkocc_calc_table(&m, 0, 0, &rows, &n) == VKOCC_OK && n > 0, "table");
    for (uint32_t i = 0; i < n; i++)
      CHECK(rows[i].occupancy.occupancy_pct <= 100.0, "wg %u: %.2f%%", rows[i].wg_size, rows[i].occupancy.occupancy_pct);
    free(rows);
    vkocc_calc_model_free(&m);
  }

  /* the register file as a fourth limit */
  char path[1024];
  snprintf(path, sizeof path, "%s/registers-synthetic-h100.json", data);
  if (vkocc_calc_model_load_registers(path, &m) == VKOCC_OK) {
    vkocc_calc_point(&m, 256, 0, 64, &r);
    CHECK(r.registers == 64 && r.limits.registers != VKOCC_NO_LIMIT, "registers limit %u", r.limits.registers);
    CHECK(r.occupancy.occupancy_pct <= 100.0, "%.2f", r.occupancy.occupancy_pct);
    vkocc_calc_report rep = {.model = &m, .kind = VKOCC_CALC_POINT, .rows = &r, .count = 1, .registers = 64};
    CHECK(vkocc_calc_write(&rep, VKOCC_CALC_CSV, stdout) == VKOCC_ERROR_USAGE, "CSV with registers is refused");
    vkocc_calc_model_free(&m);
  } else {
    CHECK(0, "%s: %s", path, vkocc_last_error());
  }
  snprintf(path, sizeof path, "%s/h100-grid.csv", data);
  CHECK(vkocc_calc_model_load_registers(path, &m) == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), "no register axis"),
        "a CSV has no register axis: %s", vkocc_last_error());
  return check_report();
}
