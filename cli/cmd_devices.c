#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc devices [--json] [-o FILE] [--device INDEX|NAME|UUID|all]\n"
    "Lists every Vulkan physical device: index, name, vendor, type, driver, API version, subgroup size,\n"
    "maxComputeSharedMemorySize (bytes), maxComputeWorkGroupInvocations, compute-queue timestamps (valid\n"
    "bits), timestampPeriod (ns per tick) and shader clock support (subgroup/device). -o FILE writes the\n"
    "JSON document (schema vkocc.devices/1). The device the other commands use without\n"
    "--device is marked with '*' ($VKOCC_DEVICE, else the first discrete GPU, integrated, virtual, then CPU).\n"
    "Where the driver reports its cores through VK_NV_shader_sm_builtins, VK_AMD_shader_core_properties(2)\n"
    "or VK_ARM_shader_core_builtins, a second line (JSON: vendor_reported) gives them.\n"
    "Then every queue family: its flags, queue count and timestamp bits, and which family --queue compute\n"
    "(the default: a family without graphics where one exists) and --queue graphics pick (JSON:\n"
    "queue_families[].chosen_by). On NVIDIA the shared memory a pipeline gets per SM depends on the family.\n"
    "--device D lists only the device D names (as the other commands pick it); --device all (the default)\n"
    "lists every device.\n";

/* PCI vendor IDs (and Khronos vendor IDs for those without one) of Vulkan drivers seen in practice. */
static const char *vendor_name(uint32_t id) {
  switch (id) {
  case 0x10de: return "NVIDIA";
  case 0x1002: return "AMD";
  case 0x8086: return "Intel";
  case 0x13b5: return "ARM";
  case 0x5143: return "Qualcomm";
  case 0x1010: return "ImgTec";
  case 0x106b: return "Apple";
  case 0x14e4: return "Broadcom";
  case 0x10005: return "Mesa";
  case 0x10002: return "VeriSilicon";
  default: return NULL;
  }
}

/* Which --queue choices pick family k: a JSON array of "compute"/"graphics", and the same as text. */
static json_t *chosen_by(const vkocc_device_info *d, uint32_t k, char *text) {
  static const char *choices[] = {"compute", "graphics"};
  json_t *a = json_array();
  size_t off = 0;
  if (text) text[0] = 0;
  for (int c = 0; c < 2; c++) {
    uint32_t f;
    bool fell_back;
    if (vkocc_select_queue_family(d, choices[c], "--queue", &f, &fell_back) != VKOCC_OK) {
      vkocc_clear_error(); /* no such family: nothing picks it */
      continue;
    }
    if (f != k) continue;
    json_array_append_new(a, json_string(choices[c]));
    if (text)
      off += (size_t)snprintf(text + off, 160 - off, "%s--queue %s%s", off ? ", " : "  <- ", choices[c],
                              c == 0 ? (fell_back ? " (default; no compute-only family)" : " (default)") : "");
  }
  return a;
}

int cmd_devices(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  static const struct option opts[] = {CLI_JSON_OPTION, CLI_OUTPUT_OPTION, {"device", required_argument, 0, 'd'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch, rc;
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    if (ch == 'h') { fputs(help, stdout); return 0; }
    if ((rc = cli_common_option("devices", ch, optarg, &c)) > 0) return rc;
    if (rc < 0) return cli_usage_error(help);
  }
  if (optind < argc) return cli_error("devices", 2, "unexpected argument '%s'", argv[optind]);
  if ((rc = cli_check_output("devices", "-o", c.output))) return rc;
  vkocc_device_info *d;
  uint32_t n;
  vkocc_status s = vkocc_enumerate_devices(&d, &n);
  if (s) return cli_fail("devices", s);
  /* the mark shows the device the other commands would use: VKOCC_DEVICE's, else the built-in default;
   * a VKOCC_DEVICE that matches nothing is said (the list is what finds the right one) */
  uint32_t def = 0;
  const char *env = getenv("VKOCC_DEVICE");
  if (env && *env && vkocc_select_device_from(d, n, env, "VKOCC_DEVICE", &def) != VKOCC_OK) {
    fprintf(stderr, "vkocc devices: warning: %s (other commands fail with it)\n", vkocc_last_error());
    vkocc_select_device(d, n, NULL, &def);
  } else if (!env || !*env) {
    vkocc_select_device(d, n, NULL, &def);
  }
  /* --device D: only that device (picked as every other command picks it); all: every device */
  uint32_t only = UINT32_MAX;
  if (c.device && strcmp(c.device, "all") && vkocc_select_device_from(d, n, c.device, "--device", &only) != VKOCC_OK) {
    free(d);
    return cli_fail("devices", VKOCC_ERROR_USAGE);
  }
  if (c.json || c.output) {
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++) {
      if (only != UINT32_MAX && i != only) continue;
      json_t *o = vkocc_device_info_json(&d[i]);
      json_t *qf = json_object_get(o, "queue_families");
      for (size_t k = 0; k < json_array_size(qf); k++)
        json_object_set_new(json_array_get(qf, k), "chosen_by", chosen_by(&d[i], (uint32_t)k, NULL));
      json_object_set_new(o, "default", json_boolean(i == def));
      const char *vn = vendor_name(d[i].vendor_id);
      json_object_set_new(o, "vendor", vn ? json_string(vn) : json_null());
      json_array_append_new(a, o);
    }
    json_t *doc = vkocc_doc_stamp(json_pack("{s:o}", "devices", a), VKOCC_DOC_DEVICES);
    vkocc_status st = c.output ? cli_json_write(doc, c.output) : VKOCC_OK;
    if (st || c.json) {
      free(d);
      if (st) { json_decref(doc); return cli_fail("devices", st); }
      return cli_emit_json("devices", doc, NULL);
    }
    json_decref(doc);
  }
  printf("%-3s %-34s %-15s %-10s %-22s %-7s %-4s %-10s %-6s %-14s %-9s %s\n", "#", "name", "vendor", "type",
         "driver", "api", "sg", "shared [B]", "maxinv", "timestamps", "tick [ns]", "clock sg/dev");
  for (uint32_t i = 0; i < n; i++) {
    if (only != UINT32_MAX && i != only) continue;
    char api[32], drv[32], ts[32];
    vkocc_format_api_version(d[i].api_version, api);
    vkocc_format_driver_version(d[i].vendor_id, d[i].driver_version, drv);
    if (d[i].timestamp_valid_bits) snprintf(ts, sizeof ts, "%u bits", d[i].timestamp_valid_bits);
    else snprintf(ts, sizeof ts, "none");
    char driver[300];
    snprintf(driver, sizeof driver, "%s %s", d[i].driver_name[0] ? d[i].driver_name : "?", drv);
    char vendor[32];
    const char *vn = vendor_name(d[i].vendor_id);
    if (vn) snprintf(vendor, sizeof vendor, "%s (0x%04x)", vn, d[i].vendor_id);
    else snprintf(vendor, sizeof vendor, "0x%04x", d[i].vendor_id);
    printf("%u%-2s %-34.34s %-15s %-10s %-22.22s %-7s %-4u %-10u %-6u %-14s %-9g %s/%s\n", i, i == def ? "*" : "",
           d[i].name, vendor, vkocc_device_type_name(d[i].device_type), driver, api, d[i].subgroup_size,
           d[i].max_shared_bytes, d[i].max_invocations, ts, d[i].timestamp_period,
           d[i].shader_subgroup_clock ? "yes" : "no", d[i].shader_device_clock ? "yes" : "no");
    const vkocc_vendor_reported *v = &d[i].vendor;
    if (v->source[0]) /* what the driver reports, for comparison with what vkocc measures */
      printf("    vendor reported (%s): %u %s, %u %s per %s\n", v->source, v->cores,
             v->amd_shader_engines ? "compute units" : d[i].vendor_id == 0x10de ? "SMs" : "cores", v->warps_per_core,
             v->amd_shader_engines ? "wavefronts" : "warps",
             v->amd_shader_engines ? "CU" : d[i].vendor_id == 0x10de ? "SM" : "core");
    for (uint32_t k = 0; k < d[i].queue_family_count; k++) {
      char fl[96], ts[32] = "no timestamps", by[160];
      vkocc_format_queue_flags(d[i].queue_families[k].flags, fl);
      if (d[i].queue_families[k].timestamp_valid_bits)
        snprintf(ts, sizeof ts, "%u-bit timestamps", d[i].queue_families[k].timestamp_valid_bits);
      json_decref(chosen_by(&d[i], k, by));
      printf("    queue family %u: %s, %u queue%s, %s%s\n", k, fl, d[i].queue_families[k].queue_count,
             d[i].queue_families[k].queue_count == 1 ? "" : "s", ts, by);
    }
  }
  free(d);
  return 0;
}
