/* vkocc — portable GPU occupancy through Vulkan microbenchmarks.
 *
 * The public API, one header per area under vkocc/, included below in the order the data flows: errors
 * (common.h), devices and a context (device.h), numbers, the clock calibration, the probes (P of one pipeline
 * at one point: how many workgroups are resident at once), the surface of P over workgroup size x shared
 * memory and the per-SM limits derived from it, the register file, the calculator, the fingerprint and its
 * cluster, the user's own pipeline, persistent threads, tuning (one device, then a fleet), tuned policies,
 * and last the documents as jansson objects. Include <vkocc.h>; each part also stands alone. Plots are in
 * <vkocc_plot.h> (libvkocc-plot, the only part that links cairo).
 *
 *   #include <stdio.h>
 *   #include <vkocc.h>
 *
 *   int main(void) {
 *     vkocc_context *ctx;
 *     vkocc_fingerprint fp;
 *     vkocc_fingerprint_details det;
 *     vkocc_occupancy occ;
 *     if (vkocc_context_create(NULL, &ctx))                  // the default device (VKOCC_DEVICE)
 *       return fprintf(stderr, "%s\n", vkocc_last_error()), 1;
 *     if (vkocc_fingerprint_measure(ctx, NULL, &fp, &det) == VKOCC_OK) {  // cached after the first run
 *       vkocc_occupancy_compute(&det.derived, 256, 16384, &occ);  // 256 threads, 16 KiB shared memory
 *       printf("%s: %u SMs, %u workgroups at once, cluster %s\n", det.device.name, det.derived.sm_count,
 *              occ.wgs, fp.cluster_id);
 *     } else {
 *       fprintf(stderr, "%s\n", vkocc_last_error());
 *     }
 *     vkocc_fingerprint_details_free(&det);
 *     vkocc_context_destroy(ctx);
 *   }
 *
 * Conventions. Every function that can fail returns a vkocc_status (the others are pure lookups,
 * formatters and free functions); on failure vkocc_last_error() holds one line naming what failed and with
 * what (device, flag, file and JSON path, VkResult name); every call that returns a status clears it first,
 * so after a success it is "". Results go through out-parameters. Out of memory ends the process with one
 * line on stderr (the allocations are small bookkeeping). Times are in nanoseconds unless a name says
 * otherwise. Not thread-safe per context. The header includes no Vulkan header: Vulkan values appear as
 * plain integers (VkPhysicalDeviceType, VkQueueFlags) and handles as void *.
 */
#ifndef VKOCC_H
#define VKOCC_H

/* Every part, in the order the data flows (each part includes the parts it needs). */
#include "vkocc/common.h"
#include "vkocc/device.h"
#include "vkocc/numbers.h"
#include "vkocc/calibrate.h"
#include "vkocc/probe.h"
#include "vkocc/surface.h"
#include "vkocc/registers.h"
#include "vkocc/calc.h"
#include "vkocc/fingerprint.h"
#include "vkocc/pipeline.h"
#include "vkocc/persistent.h"
#include "vkocc/tune.h"
#include "vkocc/fleet.h"
#include "vkocc/policy.h"
#include "vkocc/documents.h"

#endif
