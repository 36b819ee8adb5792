/* vkocc <command> [options]: one file per command (cmd_<name>.c), the work in libvkocc. */
#include "cli.h"
#include <errno.h>
#include <string.h>

/* Which commands may open a device: the runner (cli_dispatch) closes it after them. */
static const cli_command commands[] = {
    {"devices", cmd_devices, "list Vulkan devices and what vkocc needs of them", CLI_NO_DEVICE},
    {"calibrate", cmd_calibrate, "calibrate shader clocks against queue timestamps", CLI_DEVICE},
    {"probe", cmd_probe, "occupancy P for one workgroup size and shared-memory size", CLI_DEVICE},
    {"surface", cmd_surface, "P over a grid, with the derived SM count and per-SM limits", CLI_DEVICE},
    {"calc", cmd_calc, "occupancy calculator: one point or a table, live or from saved data", CLI_DEVICE},
    {"fingerprint", cmd_fingerprint, "characterize the device: normalized surface, limits, cluster ID (JSON)", CLI_DEVICE},
    {"cluster", cmd_cluster, "group fingerprints into architecture clusters", CLI_NO_DEVICE},
    {"policy", cmd_policy, "policy databases: build from tuning results, select by device/cluster, transfer report",
     CLI_NO_DEVICE},
    {"tune", cmd_tune, "tune a shipped kernel or a T1 specification's kernel into a results file; --replay offline",
     CLI_DEVICE},
    {"plot", cmd_plot, "plots of surfaces, workgroup-size impact, combs, comparisons (PNG/SVG/PDF)", CLI_NO_DEVICE},
    {"view", cmd_view, "interactive surface viewer with a live calculator readout (GLFW)", CLI_NO_DEVICE},
    {"barrier-test", cmd_barrier_test, "device-wide barrier with P (+K) workgroups: completes, or reports the timeout",
     CLI_DEVICE},
};

static void usage(FILE *f) {
  fprintf(f, "usage: vkocc <command> [options]   (vkocc <command> --help for its options)\n"
             "       vkocc -V|--version   the version;  vkocc --help   this list\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].what);
  fprintf(f, "\nEvery device command takes --device INDEX|NAME|UUID (default: $VKOCC_DEVICE, else the first\n"
             "discrete GPU, integrated, virtual, then CPU). Exit codes: 0 ok, 1 measurement/runtime failure,\n"
             "2 bad usage or input, 3 the device or system lacks what the command needs.\n");
  fprintf(f, "They also take --queue compute|graphics|INDEX (default: $VKOCC_QUEUE, else compute): the queue family\n"
             "measured on; compute prefers a family without graphics, graphics is what most applications use.\n");
}

/* Buffered output fails late: a full disk or a closed stdout shows only when the buffer is flushed, so
 * every exit goes through here (as coreutils' close_stdout does). */
static int finish(int rc) {
  errno = 0;
  bool bad = fflush(stdout) != 0;
  bad = ferror(stdout) || bad;
  int e = errno;
  bad = fclose(stdout) != 0 || bad;
  if (!e) e = errno;
  if (bad && rc == 0) { /* a command that failed has said why already */
    fprintf(stderr, "vkocc: cannot write to standard output: %s\n", e ? strerror(e) : "write error");
    rc = 1;
  }
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) { usage(stderr); return 2; }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) { usage(stdout); return finish(0); }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) { printf("vkocc %s\n", vkocc_version()); return finish(0); }
  const cli_command *cmd = cli_find_command(commands, sizeof commands / sizeof commands[0], argv[1]);
  cli_command_line(argc, argv);
  if (cmd) return finish(cli_dispatch(cmd, NULL, argc - 1, argv + 1));
  fprintf(stderr, "vkocc: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
