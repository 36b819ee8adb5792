#include "cli.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char last_message[1200];

int cli_error(const char *cmd, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  fprintf(stderr, "vkocc %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return status;
}

const char *cli_last_message(void) { return last_message; }

int cli_fail(const char *cmd, vkocc_status s) { return cli_error(cmd, (int)s, "%s", vkocc_last_error()); }

/* Out of memory ends the process with one line, as the library's own allocations do (util/error.c). */
static void *checked(void *p, size_t n) {
  if (!p && n) {
    fprintf(stderr, "vkocc: out of memory (allocating %zu bytes)\n", n);
    abort();
  }
  return p;
}
void *cli_xmalloc(size_t n) { return checked(malloc(n ? n : 1), n ? n : 1); }
void *cli_xcalloc(size_t n, size_t size) {
  if (!n || !size) n = size = 1;
  return checked(calloc(n, size), n * size);
}
void *cli_xrealloc(void *p, size_t n) { return checked(realloc(p, n ? n : 1), n ? n : 1); }
char *cli_xstrdup(const char *s) { return checked(strdup(s), strlen(s) + 1); }

bool cli_parse_u32(const char *s, bool allow_units, uint32_t *out) {
  if (!s || !isdigit((unsigned char)*s)) return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return false;
  unsigned long long mul = 1;
  if (allow_units && *end) {
    if (!strcasecmp(end, "k") || !strcasecmp(end, "kib") || !strcasecmp(end, "kb")) mul = 1024, end += strlen(end);
    else if (!strcasecmp(end, "m") || !strcasecmp(end, "mib") || !strcasecmp(end, "mb")) mul = 1024 * 1024, end += strlen(end);
  }
  if (*end || v > UINT32_MAX / mul) return false; /* divided, so 17592186044416m cannot wrap to 0 */
  *out = (uint32_t)(v * mul);
  return true;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

bool cli_parse_list(const char *s, bool allow_units, uint32_t **out, uint32_t *n) {
  char *copy = cli_xstrdup(s), *save = NULL;
  if (!copy) return false;
  uint32_t cap = 64, m = 0, *v = cli_xmalloc(cap * sizeof *v);
  bool ok = *s != 0;
  for (char *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
    char *dash = strchr(tok, '-'), *colon = strchr(tok, ':');
    uint32_t a, b, step = 1;
    if (dash) {
      *dash = 0;
      if (colon) *colon = 0;
      ok = cli_parse_u32(tok, allow_units, &a) && cli_parse_u32(dash + 1, allow_units, &b) && a <= b &&
           (!colon || (cli_parse_u32(colon + 1, allow_units, &step) && step > 0)) && (b - a) / step < 100000;
      for (uint64_t x = a; ok && x <= b; x += step) {
        if (m == cap) v = cli_xrealloc(v, (cap *= 2) * sizeof *v);
        v[m++] = (uint32_t)x;
      }
    } else {
      ok = !colon && cli_parse_u32(tok, allow_units, &a);
      if (ok) {
        if (m == cap) v = cli_xrealloc(v, (cap *= 2) * sizeof *v);
        v[m++] = a;
      }
    }
  }
  free(copy);
  if (!ok || m == 0) { free(v); return false; }
  qsort(v, m, sizeof *v, cmp_u32);
  uint32_t k = 0;
  for (uint32_t i = 0; i < m; i++)
    if (i == 0 || v[i] != v[k - 1]) v[k++] = v[i];
  *out = v;
  *n = k;
  return true;
}

bool cli_is_tty(void) { return isatty(STDERR_FILENO); }

/* Ctrl-C during a wait: the handler only sets a flag, which the next call of the hook (every 10 ms) reads;
 * while no wait lasts, the signal's own disposition (the default, or tune's) is in place. */
static volatile sig_atomic_t wait_interrupted;
static pthread_mutex_t wait_mu = PTHREAD_MUTEX_INITIALIZER;
static int waits_told;
static struct sigaction wait_old_int;
static void on_wait_sigint(int sig) { (void)sig; wait_interrupted = 1; }

bool cli_wait_note(void *user, const vkocc_wait_info *w) {
  (void)user;
  static _Thread_local bool telling;
  if (!telling && !w->done) {
    telling = true;
    char holder[48] = "another vkocc process";
    if (w->holder_pid) snprintf(holder, sizeof holder, "pid %ld", w->holder_pid);
    fprintf(stderr, "vkocc: waiting for %s %s held by %s (up to %.0f s), before %s; Ctrl-C stops\n", w->lock, w->path,
            holder, w->bound_s, w->what);
    fflush(stderr);
    pthread_mutex_lock(&wait_mu);
    if (!waits_told++) {
      wait_interrupted = 0;
      struct sigaction sa = {.sa_handler = on_wait_sigint};
      sigemptyset(&sa.sa_mask);
      sigaction(SIGINT, &sa, &wait_old_int);
    }
    pthread_mutex_unlock(&wait_mu);
  }
  bool go_on = !wait_interrupted;
  if (telling && w->done) {
    telling = false;
    if (go_on) fprintf(stderr, "vkocc: got the %s after %.1f s\n", w->lock, w->waited_s);
    pthread_mutex_lock(&wait_mu);
    if (!--waits_told) {
      sigaction(SIGINT, &wait_old_int, NULL);
      /* Ctrl-C meant the command: the handler that was in place (tune's stops the run) hears of it too */
      if (wait_interrupted && wait_old_int.sa_handler != SIG_DFL && wait_old_int.sa_handler != SIG_IGN &&
          !(wait_old_int.sa_flags & SA_SIGINFO))
        wait_old_int.sa_handler(SIGINT);
    }
    pthread_mutex_unlock(&wait_mu);
  }
  return go_on;
}

vkocc_context_options cli_context_options(const cli_common *c, const char *device) {
  return (vkocc_context_options){.device = device ? device : c->device, .disable_shader_clock = c->no_clock,
                                 .queue = c->queue, .wait = cli_wait_note};
}

int cli_open(const char *cmd, const cli_common *c, vkocc_context **ctx) {
  cli_run *run = c->run;
  if (!run || !run->device) /* the command table says this command needs no device: a bug, not a user's error */
    return cli_error(cmd, 1, "internal: a device opened by a command whose table row says it needs none");
  if (run->ctx) { *ctx = run->ctx; return 0; }
  vkocc_context_options o = cli_context_options(c, NULL);
  vkocc_status s = vkocc_context_create(&o, ctx);
  if (s) return cli_fail(cmd, s);
  run->ctx = *ctx;
  /* asked for a compute-only family and got graphics+compute: say so (the shared memory may differ) */
  const vkocc_device_info *d = vkocc_context_device(*ctx);
  const char *env = getenv("VKOCC_QUEUE");
  if ((c->queue || (env && *env)) && !strcmp(d->queue_choice, "compute") &&
      !strcmp(vkocc_queue_kind_name(d->compute_queue_flags), "graphics+compute"))
    fprintf(stderr, "vkocc %s: note: %s has no compute-only queue family with timestamps; measuring on queue "
            "family %u (graphics+compute)\n", cmd, d->name, d->compute_queue_family);
  return 0;
}

void cli_queue_text(const vkocc_device_info *d, char *out, size_t len) {
  if (d->compute_queue_family == UINT32_MAX || !d->compute_queue_flags)
    snprintf(out, len, "queue family unknown (not recorded)");
  else
    snprintf(out, len, "queue family %u (%s%s%s)", d->compute_queue_family, vkocc_queue_kind_name(d->compute_queue_flags),
             d->queue_choice[0] ? ", --queue " : "", d->queue_choice);
}

/* The message when output `out` (of `flag`) is the file input `in` names: both named, exit 2. */
static int same_file(const char *cmd, const char *flag, const char *out, const char *in, const struct stat *so) {
  struct stat si;
  if (!in || !strcmp(in, "-") || stat(in, &si) || si.st_dev != so->st_dev || si.st_ino != so->st_ino) return 0;
  if (!strcmp(in, out))
    return cli_error(cmd, 2, "%s %s: the same file as the input %s, which writing it would destroy; write to another file",
                     flag, out, in);
  struct stat lo, li;
  bool link = (!lstat(out, &lo) && S_ISLNK(lo.st_mode)) || (!lstat(in, &li) && S_ISLNK(li.st_mode));
  return cli_error(cmd, 2, "%s %s: the same file as the input %s (%s), which writing it would destroy; write to another "
                   "file", flag, out, in, link ? "through a link" : "by another path or a hard link");
}

/* The process's command line (main), which cli_check_output reads for the files the command was given. */
static int cl_argc;
static char **cl_argv;
void cli_command_line(int argc, char **argv) { cl_argc = argc, cl_argv = argv; }

/* An option whose value is an output (-o, --output, --t4, --raw, --screenshot, --plot, or getopt's unique
 * abbreviations of them): its value is written, not read. */
static bool output_flag(const char *a, size_t n) {
  static const char *const names[] = {"output", "t4", "raw", "screenshot", "plot"};
  if (n == 2 && !strncmp(a, "-o", 2)) return true;
  if (n < 4 || strncmp(a, "--", 2)) return false;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (n - 2 <= strlen(names[i]) && !strncmp(names[i], a + 2, n - 2)) return true;
  return false;
}

/* Every file the command line names that is not an output's value, against output `out` by device and inode
 * (through links): writing an input would destroy it. `out` itself (getopt's pointer into argv) is skipped. */
static int not_an_argument(const char *cmd, const char *flag, const char *out) {
  struct stat so;
  if (!cl_argv || stat(out, &so)) return 0; /* an output that does not exist yet is no input */
  for (int i = 1; i < cl_argc; i++) {
    const char *a = cl_argv[i], *v = a;
    if (out >= a && out <= a + strlen(a)) continue;
    if (output_flag(cl_argv[i - 1], strlen(cl_argv[i - 1]))) continue; /* "-o FILE": another output */
    if (a[0] == '-' && a[1] == '-') {
      const char *eq = strchr(a, '=');
      if (!eq || output_flag(a, (size_t)(eq - a))) continue;
      v = eq + 1; /* --from=FILE */
    } else if (a[0] == '-' && a[1]) {
      continue; /* a short option (-oFILE is an output; -dNAME no file) */
    }
    int rc = same_file(cmd, flag, out, v, &so);
    if (rc) return rc;
  }
  return 0;
}

int cli_check_output(const char *cmd, const char *flag, const char *path) {
  if (!path || !strcmp(path, "-")) return 0; /* "-": stdout (cli_json_write) */
  vkocc_status s = vkocc_output_check(path);
  if (s) return cli_error(cmd, (int)s, "%s: %s", flag, vkocc_last_error());
  return not_an_argument(cmd, flag, path);
}

/* As every vkocc document is written: two-space indent, 10 significant digits, a final newline; "-" is
 * standard output (flushed here, so a full disk or a closed pipe is reported now), else a file written whole
 * (vkocc_write_file_atomic). */
vkocc_status cli_json_write(json_t *doc, const char *path) {
  char *dump = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
  if (!dump) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot serialize JSON");
  size_t len = strlen(dump);
  char *text = cli_xmalloc(len + 2);
  memcpy(text, dump, len);
  free(dump);
  text[len++] = '\n';
  text[len] = 0;
  vkocc_status s = VKOCC_OK;
  if (strcmp(path, "-") == 0) {
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0 || ferror(stdout))
      s = vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot write to standard output: %s", strerror(errno));
  } else {
    s = vkocc_write_file_atomic(path, text, len);
  }
  free(text);
  return s;
}

int cli_emit_json(const char *cmd, json_t *doc, const char *path) {
  vkocc_status s = cli_json_write(doc, path ? path : "-");
  json_decref(doc);
  return s ? cli_fail(cmd, s) : 0;
}

/* "1:05" or "1:02:05" */
static void clock_text(double s, char *out, size_t len) {
  unsigned t = s > 0 && s < 3.6e6 ? (unsigned)(s + 0.5) : 0;
  if (t >= 3600) snprintf(out, len, "%u:%02u:%02u", t / 3600, t / 60 % 60, t % 60);
  else snprintf(out, len, "%u:%02u", t / 60, t % 60);
}

void cli_progress_line(const char *phase, uint32_t done, uint32_t total, const char *extra) {
  /* elapsed time per phase: a new phase (or a restart at 0) starts the clock again */
  static char last[32];
  static double t0;
  double now = vkocc_now_ms();
  if (strncmp(last, phase, sizeof last - 1) || done == 0 || t0 == 0) {
    snprintf(last, sizeof last, "%s", phase);
    t0 = now;
  }
  double el = (now - t0) / 1e3;
  char e[16], eta[16] = "-";
  clock_text(el, e, sizeof e);
  if (done > 0 && done < total) clock_text(el / done * (total - done), eta, sizeof eta);
  fprintf(stderr, "\r%-14s %5u/%-5u  elapsed %s  ETA %s%s%s\033[K", phase, done, total, e, done >= total ? "0:00" : eta,
          extra && *extra ? "  " : "", extra ? extra : "");
  if (done == total) {
    fputc('\n', stderr);
    t0 = 0;
  }
}

void cli_tune_note(void *user, const char *line) {
  (void)user;
  fprintf(stderr, "%s\n", line);
}

void cli_progress(void *user, const char *phase, uint32_t done, uint32_t total) {
  (void)user;
  cli_progress_line(phase, done, total, NULL);
}

bool cli_parse_double(const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || *end || errno || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

void cli_print_vendor_check(const char *label, json_t *vc) {
  if (!json_is_object(vc)) return;
  json_t *sm = json_object_get(vc, "sm_count"), *sg = json_object_get(vc, "subgroups_per_sm");
  bool bound = json_is_true(json_object_get(sg, "measured_is_lower_bound"));
  printf("%s%s reports %lld SMs, %lld subgroups per SM; measured %lld SMs (%s), %lld%s subgroups per SM (%s)\n",
         label, json_string_value(json_object_get(vc, "source")),
         json_integer_value(json_object_get(sm, "reported")), json_integer_value(json_object_get(sg, "reported")),
         json_integer_value(json_object_get(sm, "measured")),
         json_is_true(json_object_get(sm, "agree")) ? "agree" : "DIFFERS",
         json_integer_value(json_object_get(sg, "measured")), bound ? " or more" : "",
         json_is_true(json_object_get(sg, "agree")) ? (bound ? "consistent" : "agree") : "DIFFERS");
}

int cli_common_option(const char *cmd, int ch, const char *arg, cli_common *c) {
  switch (ch) {
  case 'd': c->device = arg; return 0;
  case CLI_OPT_QUEUE: c->queue = arg; return 0;
  case CLI_OPT_JSON: c->json = true; return 0;
  case CLI_OPT_NO_CLOCK: c->no_clock = true; return 0;
  case 'o': c->output = arg; return 0;
  case CLI_OPT_METHOD: {
    vkocc_status s = vkocc_method_parse(arg, "--method", &c->method);
    if (s) return cli_fail(cmd, s);
    c->have_method = true;
    return 0;
  }
  default: return -1;
  }
}

int cli_usage_error(const char *help) {
  fputs(help, stderr);
  return 2;
}

void cli_print_derived(const char *label, const vkocc_derived *d, const char *from) {
  vkocc_derived_write_text(stdout, label, d, from);
}

/* ---- the device's fingerprint for fingerprint, policy and --device all (through the library) */

void cli_fingerprint_cache_path(const vkocc_device_info *d, char *out, size_t len) {
  vkocc_fingerprint_cache_path(d, out, len);
}

/* The cache entry of the device c names, looked up from the device list alone (an instance, no device
 * opened); false when the device or queue choice does not resolve (measuring reports it). */
static bool cached_without_device(const cli_common *c, vkocc_fingerprint *fp, vkocc_fingerprint_details *det) {
  vkocc_device_info *d;
  uint32_t n, idx, fam;
  bool fell_back, hit = false;
  if (vkocc_enumerate_devices(&d, &n)) { vkocc_clear_error(); return false; }
  const char *spec = c->device ? c->device : getenv("VKOCC_DEVICE");
  const char *q = c->queue ? c->queue : getenv("VKOCC_QUEUE");
  if (!vkocc_select_device_from(d, n, spec, c->device ? "--device" : "VKOCC_DEVICE", &idx) &&
      !vkocc_select_queue_family(&d[idx], q, "--queue", &fam, &fell_back)) {
    char choice[16] = "compute";
    if (q && *q) snprintf(choice, sizeof choice, "%s", q);
    for (char *p = choice; *p; p++) *p = (char)tolower((unsigned char)*p);
    vkocc_device_use_queue_family(&d[idx], fam, choice);
    hit = vkocc_fingerprint_from_cache(&d[idx], c->method, fp, det);
  }
  vkocc_clear_error();
  free(d);
  return hit;
}

int cli_fingerprint_measure(const char *cmd, const cli_common *c, bool fresh, vkocc_fingerprint *fp,
                            vkocc_fingerprint_details *det) {
  vkocc_status st = VKOCC_OK;
  if (fresh || c->no_clock || !cached_without_device(c, fp, det)) {
    vkocc_context *ctx;
    int rc = cli_open(cmd, c, &ctx);
    if (rc) return rc;
    vkocc_fingerprint_options o = {.fresh = fresh, .method = c->method, .progress = cli_is_tty() && !c->quiet ? cli_progress : NULL};
    st = vkocc_fingerprint_measure(ctx, &o, fp, det);
  }
  if (st) return cli_fail(cmd, st);
  if (det->from_cache && cli_is_tty()) /* progress and notes only on a terminal (DESIGN.md) */
    fprintf(stderr, "vkocc %s: using the cached fingerprint %s (vkocc fingerprint --fresh measures again)\n", cmd,
            det->cache_path);
  return 0;
}

void cli_fingerprint_registers(const cli_common *c, bool fresh, vkocc_fingerprint_details *det) {
  vkocc_context_options co = cli_context_options(c, NULL);
  vkocc_fingerprint_register_options o = {.fresh = fresh, .progress = !c->quiet && cli_is_tty() ? cli_progress : NULL};
  /* the context the fingerprint was measured with, where this run opened one: no second device start-up */
  vkocc_fingerprint_registers(c->run ? c->run->ctx : NULL, &co, &o, det, NULL);
}

int cli_fingerprint_device(const char *cmd, const cli_common *c, bool fresh, bool registers, json_t **doc,
                           vkocc_fingerprint *fp) {
  vkocc_fingerprint_details det;
  int rc = cli_fingerprint_measure(cmd, c, fresh, fp, &det);
  if (rc) return rc;
  if (registers) cli_fingerprint_registers(c, fresh, &det);
  *doc = json_incref(vkocc_fingerprint_details_json(&det));
  vkocc_fingerprint_details_free(&det);
  return 0;
}

/* A fingerprint file must have been measured on the device this command measures (deviceUUID and driver
 * version), or its cluster ID would label this device's results; --allow-other-device overrides. */
static int same_device(const cli_common *c, const char *fp_path, vkocc_context *ctx) {
  vkocc_device_identity id;
  vkocc_status st = vkocc_document_device(fp_path, &id);
  if (st) return cli_fail("tune", st);
  const vkocc_device_info *d = vkocc_context_device(ctx);
  static const uint8_t zero[16];
  bool same = memcmp(id.uuid, zero, 16) && !memcmp(id.uuid, d->uuid, 16) && id.driver_version == d->driver_version;
  if (same || c->allow_other_device) return 0;
  char fu[37], du[37], fv[32], dv[32];
  vkocc_format_uuid(id.uuid, fu), vkocc_format_uuid(d->uuid, du);
  vkocc_format_driver_version(id.vendor_id, id.driver_version, fv), vkocc_format_driver_version(d->vendor_id, d->driver_version, dv);
  return cli_error("tune", 2, "--fingerprint %s: measured on %s (uuid %s, driver %s), not on this device %s (uuid %s, "
                   "driver %s): its cluster ID would label this device's results. Leave --fingerprint out (this device's "
                   "is measured or taken from the cache), or pass --allow-other-device to use it anyway", fp_path,
                   id.name, memcmp(id.uuid, zero, 16) ? fu : "not recorded", id.driver_version ? fv : "not recorded",
                   d->name, du, dv);
}

int cli_tune_device(const cli_common *c, const char *fp_path, vkocc_tune_session *s, vkocc_context **ctx) {
  vkocc_status st;
  int rc;
  if (fp_path) {
    if ((st = vkocc_tune_fingerprint_file(s, fp_path))) return cli_fail("tune", st);
    if ((rc = cli_open("tune", c, ctx))) return rc;
    if ((rc = same_device(c, fp_path, *ctx))) {
      *ctx = NULL; /* the runner closes the device it opened */
      return rc;
    }
    return 0;
  } else {
    vkocc_fingerprint fp;
    vkocc_fingerprint_details det;
    if ((rc = cli_fingerprint_measure("tune", c, false, &fp, &det))) return rc;
    st = vkocc_tune_fingerprint(s, &fp, &det);
    vkocc_fingerprint_details_free(&det);
    if (st) return cli_fail("tune", st);
  }
  return cli_open("tune", c, ctx);
}

void cli_run_close(cli_run *run) {
  if (run->ctx) vkocc_context_destroy(run->ctx);
  run->ctx = NULL;
}

const cli_command *cli_find_command(const cli_command *table, size_t n, const char *name) {
  for (size_t i = 0; name && i < n; i++)
    if (!strcmp(name, table[i].name)) return &table[i];
  return NULL;
}

int cli_dispatch(const cli_command *cmd, const char *parent, int argc, char **argv) {
  /* getopt names argv[0] in its messages: "vkocc policy build: unrecognized option '--x'" */
  char prog[64];
  snprintf(prog, sizeof prog, "vkocc%s%s %s", parent ? " " : "", parent ? parent : "", cmd->name);
  argv[0] = prog;
  cli_run run = {.name = cmd->name, .device = cmd->device == CLI_DEVICE};
  int rc = cmd->fn(&run, argc, argv);
  cli_run_close(&run);
  return rc;
}

int cli_check_not_input(const char *cmd, const char *flag, const char *out, const char *const *inputs, uint32_t n) {
  struct stat so;
  if (!out || !strcmp(out, "-") || stat(out, &so)) return 0; /* an output that does not exist yet is no input */
  for (uint32_t i = 0; i < n; i++) {
    int rc = same_file(cmd, flag, out, inputs[i], &so);
    if (rc) return rc;
  }
  return 0;
}

static char lock_path[4200];
static void unlock_output(void) {
  if (lock_path[0]) unlink(lock_path);
}

int cli_lock_output(const char *cmd, const char *out) {
  if (!out || !strcmp(out, "-") || lock_path[0]) return 0;
  char path[sizeof lock_path];
  int fd;
  vkocc_status s = vkocc_output_lock(out, path, sizeof path, &fd);
  if (s) return cli_error(cmd, (int)s, "-o %s", vkocc_last_error());
  if (fd < 0) return 0; /* a folder that takes no lock file: the atomic write still checks the output */
  snprintf(lock_path, sizeof lock_path, "%s", path);
  atexit(unlock_output);
  return 0; /* fd stays open: the lock is held until exit */
}

void cli_sentinel_line(const vkocc_tune_sentinel *sen, char *out, size_t len) {
  double lo = sen->lo_ns, hi = sen->hi_ns;
  snprintf(out, len, "sentinel %s timed %u times: medians %.2f..%.2f us (range %.2f%%, largest spread %.2f%%)", sen->key,
           sen->times, lo / 1e3, hi / 1e3, 100 * (hi - lo) / lo, 100 * sen->max_spread);
  if (sen->drifted)
    fprintf(stderr, "vkocc tune: warning: the sentinel's medians drifted %.1f%% during the run: times measured at different "
            "moments are not comparable (raise --warmup-ms or --warmup-ratio; see docs/tune.md)\n", 100 * (hi - lo) / lo);
}
