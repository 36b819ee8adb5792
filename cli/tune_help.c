/* tune's --help list of every parameter value and its progress line with the best so far (cmd_tune.c). */
#include "cli.h"
#include "tune_help.h"
#include <stdlib.h>

/* The kernels and every value each parameter takes: what --only accepts. */
void cli_tune_print_params(FILE *f) {
  static const char *const names[] = {"histogram", "reduce"};
  fprintf(f, "Kernels, and the values of each parameter (--only PARAM=V1,V2 takes these):\n");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const tune_kernel_def *k = vkocc_kernel_find(names[i]);
    if (!k) continue;
    uint32_t n = k->space(NULL);
    tune_config *all = cli_xmalloc((n ? n : 1) * sizeof *all);
    k->space(all);
    fprintf(f, "  %s: %s%s\n  %s parameters:", k->name, k->what, k->has_f32 ? " (--type u32|f32)" : "", k->name);
    for (uint32_t p = 0; p < k->nparams; p++) {
      fprintf(f, " %s=", k->params[p].name);
      uint32_t shown = 0;
      for (uint32_t c = 0; c < n; c++) { /* distinct values in the order the space lists them */
        if (!(all[c].mask & (1u << p))) continue;
        uint32_t v = all[c].v[p];
        bool seen = false;
        for (uint32_t d = 0; d < c && !seen; d++) seen = (all[d].mask & (1u << p)) && all[d].v[p] == v;
        if (seen) continue;
        if (k->params[p].names && v < k->params[p].nnames) fprintf(f, "%s%s", shown ? "," : "", k->params[p].names[v]);
        else fprintf(f, "%s%u", shown ? "," : "", v);
        shown++;
      }
    }
    fputc('\n', f);
    free(all);
  }
}

/* The progress line with the best valid configuration measured so far. */
void cli_tune_progress(const tune_run *run, const char *phase, uint32_t done, uint32_t total) {
  char best[320] = "";
  int b = -1;
  for (uint32_t i = 0; run && i < run->count; i++)
    if (run->r[i].measured && run->r[i].valid && (b < 0 || run->r[i].median_ns < run->r[b].median_ns))
      b = (int)i;
  if (b >= 0) snprintf(best, sizeof best, "best %.1f us %.120s", run->r[b].median_ns / 1e3, run->r[b].key);
  cli_progress_line(phase, done, total, best);
}

