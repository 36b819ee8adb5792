/* Internal to libvkocc (and the CLI and tests that name the cache): the characterization room, the top
 * floor of the library. It owns calibrate -> surface (characterize/surface.c, over the probes) -> derive ->
 * normalize -> fingerprint -> cache (characterize/fingerprint.c); the pure steps live in fingerprint/ and
 * the documents in io/, both below it. */
#ifndef VKOCC_CHARACTERIZE_H
#define VKOCC_CHARACTERIZE_H
#include "vkocc.h"
#include <stddef.h>

/* fingerprint.c: vkocc_fingerprint_measure and its cache (vkocc_fingerprint_cache_path: include/vkocc.h). */
#endif
