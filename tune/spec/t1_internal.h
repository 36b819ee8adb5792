/* Internal to the spec's room (tune/spec/): what the T1 reader (t1.c), the space (t1_space.c) and the arguments'
 * data (t1_data.c) share. */
#ifndef VKOCC_TUNE_T1_INTERNAL_H
#define VKOCC_TUNE_T1_INTERNAL_H
#include "t1.h"
#include "internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd {
  const char *file;
  t1_spec *s;
} rd;

/* a USAGE error naming the file and the JSON path (t1.c) */
vkocc_status t1_bad(rd *r, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
