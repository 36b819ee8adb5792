/* A fingerprint file read with the device details it holds (device, derived limits), for the exact-device
 * policy rule. */
#include "internal.h"
#include "io.h"
#include <string.h>

vkocc_status vkocc_fingerprint_load_details(const char *path, vkocc_fingerprint *fp, vkocc_fingerprint_details *details,
                                            bool *has_device) {
  vkocc_clear_error();
  memset(details, 0, sizeof *details);
  if (has_device) *has_device = false;
  vkocc_status s = vkocc_fingerprint_load(path, fp);
  if (s) return s;
  json_t *doc;
  if ((s = io_doc_load(path, VKOCC_DOC_FINGERPRINT, &doc))) return s;
  details->document = doc;
  json_t *dev = json_object_get(doc, "device"), *der = json_object_get(doc, "derived");
  if (dev && !json_is_null(dev)) {
    if ((s = io_device_info_from_json(dev, path, "$.device", &details->device))) return s;
    if (has_device) *has_device = true;
  }
  if (der && !json_is_null(der) && (s = vkocc_derived_from_json(der, path, "$.derived", &details->derived))) return s;
  return VKOCC_OK;
}
