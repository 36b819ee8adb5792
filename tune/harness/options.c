/* The harness's options (tune/harness/user.h): the public vkocc_tune_options as the harness takes them, in one
 * place for the session and the fleet's workers, and the notes it hands back to the caller instead of printing. */
#include "harness.h"
#include <stdarg.h>

void tu_options_from(tu_options *to, const vkocc_tune_options *o) {
  *to = (tu_options){.strategy = o->strategy, .seed = o->seed,
                     .budget = {.max_evals = o->budget_evals, .max_fraction = o->budget_fraction,
                                .max_seconds = o->budget_seconds},
                     .reference = o->reference, .always_P = o->always_occupancy, .target_spread = o->target_spread,
                     .max_runs = o->max_runs, .full_rule = o->full_rule, .timeout_s = o->timeout_s,
                     .warmup_ms = o->warmup_ms, .warmup_ratio = o->warmup_ratio, .sentinel_every = o->sentinel_every,
                     .confirm = o->confirm > 0 ? o->confirm : -1, .stop = o->stop, .threads = o->threads,
                     .note = o->note, .note_user = o->user};
}

static void note_va(void (*note)(void *user, const char *line), void *user, const char *fmt, va_list ap) {
  if (!note) return;
  char line[1400];
  vsnprintf(line, sizeof line, fmt, ap);
  note(user, line);
}

void tu_note(const tu_options *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  note_va(o->note, o->note_user, fmt, ap);
  va_end(ap);
}

void tu_note_to(void (*note)(void *user, const char *line), void *user, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  note_va(note, user, fmt, ap);
  va_end(ap);
}
