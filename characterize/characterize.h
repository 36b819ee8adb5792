/* Internal to libvkocc (and the CLI and tests that name the cache): the characterization room, the top
 * floor of the library. It owns calibrate -> surface (characterize/surface.c, over the probes) -> derive ->
 * normalize -> fingerprint -> cache (characterize/fingerprint.c); the pure steps live in fingerprint/ and
 * the documents (the cache's reader among them) in io/, both below it. */
#ifndef VKOCC_CHARACTERIZE_H
#define VKOCC_CHARACTERIZE_H
#include "vkocc.h"
#include <pthread.h>
#include <stddef.h>

/* fingerprint.c: vkocc_fingerprint_measure, which writes the cache; its entries' names and reader are below,
 * in io/fingerprint_cache.c (vkocc_fingerprint_cache_path, vkocc_fingerprint_from_cache: include/vkocc.h). */
/* The sealed write of a fingerprint document to the device's cache path (what vkocc_fingerprint_measure does
 * after a measurement; the key it is sealed with: io/io.h's io_fingerprint_cache_key). */
struct json_t;
vkocc_status characterize_fingerprint_cache_store(const vkocc_device_info *d, struct json_t *doc);
/* The register model is open where more points of the sweep could still move it: the fit failed, a point is
 * unexplained, no point was limited by registers, or the register file spans a whole allocation granule (U x Q) or
 * more. vkocc_register_model_measure then measures the whole grid. Pure. */
bool characterize_register_model_open(const vkocc_register_model *m);
/* signature.c: the signature's pipelines into the context's pipeline cache ahead of vkocc_signature_measure
 * (a GPU with the subgroup clock; thread-safe beside measurements on the same context). */
void characterize_signature_warm_pipelines(vkocc_context *ctx);
/* fingerprint.c: what a fresh fingerprint builds ahead while it calibrates, on threads of its own (a GPU): the
 * probe pipelines of the canonical surface's axes (probes/prebuild.c) and the signature's pipelines (into the
 * pipeline cache); _finish once the surface is measured (or on failure), before the context goes. */
typedef struct characterize_fingerprint_ahead { pthread_t warm; bool warming; } characterize_fingerprint_ahead;
void characterize_fingerprint_ahead_start(vkocc_context *ctx, characterize_fingerprint_ahead *a);
void characterize_fingerprint_ahead_finish(vkocc_context *ctx, characterize_fingerprint_ahead *a);
#endif
