/* Internal to libvkocc (and the CLI and tests that name the cache): the characterization room, the top
 * floor of the library. It owns calibrate -> surface (characterize/surface.c, over the probes) -> derive ->
 * normalize -> fingerprint -> cache (characterize/fingerprint.c); the pure steps live in fingerprint/ and
 * the documents in io/, both below it. */
#ifndef VKOCC_CHARACTERIZE_H
#define VKOCC_CHARACTERIZE_H
#include "vkocc.h"
#include <stddef.h>

/* fingerprint.c: vkocc_fingerprint_measure and its cache (vkocc_fingerprint_cache_path: include/vkocc.h). */
/* The key the entry is sealed with (core/cache.c's vkocc_cache_key) and the sealed write of a fingerprint
 * document to the device's cache path (what vkocc_fingerprint_measure does after a measurement). */
struct json_t;
void vkocc_fingerprint_cache_key(const vkocc_device_info *d, char *out, size_t len);
vkocc_status vkocc_fingerprint_cache_store(const vkocc_device_info *d, struct json_t *doc);
#endif
