/* Internal to libvkocc: T1 tuning specifications (Kernel Tuner / KTT's input format) for Vulkan kernels,
 * the subset of docs/tune.md ("T1 subset"): reader and space enumeration. Every error is
 * VKOCC_ERROR_USAGE with "FILE: $.JSON.PATH: what" (exit 2 in the CLI). */
#ifndef VKOCC_TUNE_T1_H
#define VKOCC_TUNE_T1_H
#include "expr.h"
#include "search.h"
#include <jansson.h>

typedef enum { T1_INT, T1_UINT, T1_FLOAT, T1_BOOL, T1_STRING } t1_ptype;

typedef struct t1_param {
  char *name;
  t1_ptype type;
  texpr_value *values;
  uint32_t nvalues;
  int32_t def;               /* index of Default in values, -1 none */
} t1_param;

typedef struct t1_cond {
  char *text;
  texpr *e;
  bool uses_P;               /* evaluated once P of the configuration's pipeline is measured */
  bool uses_device;          /* names a device limit (texpr_device_names): needs t1_spec.has_device */
  char path[96];
} t1_cond;

/* T1_FILL_HOOK: no FillType of a file; a built-in spec's data computed by a C function (tune/results/builtin.c) */
typedef enum { T1_FILL_NONE, T1_FILL_CONSTANT, T1_FILL_RANDOM, T1_FILL_BINARY, T1_FILL_GENERATOR, T1_FILL_HOOK } t1_fill;
struct t1_spec;
struct t1_arg;
typedef enum { T1_RO, T1_WO, T1_RW } t1_access;
typedef enum { T1_ABS_DIFF, T1_SIDE_BY_SIDE, T1_SIDE_BY_SIDE_REL } t1_validation;

/* Scalar element types of arguments; vector types (float2, double4 ...) are `comps` of one of them. */
typedef enum { T1E_BOOL, T1E_I8, T1E_U8, T1E_I16, T1E_U16, T1E_I32, T1E_U32, T1E_I64, T1E_U64, T1E_F32, T1E_F64,
               T1E_CUSTOM } t1_etype;

typedef struct t1_data {     /* how an argument or a reference is filled */
  t1_fill fill;
  double value;              /* Constant */
  uint64_t seed;             /* Random */
  char *source;              /* BinaryRaw: resolved path; Generator: the expression text */
  texpr *gen;                /* Generator: an expression of the element index i */
  /* Hook: fills dst (shape->bytes) for spec s; USAGE or RUNTIME naming what failed */
  vkocc_status (*hook)(const struct t1_spec *s, const struct t1_arg *shape, void *dst, const void *user);
  const void *hook_user;
} t1_data;

typedef struct t1_arg {
  char *name;
  char path[64];             /* $.KernelSpecification.Arguments[N] */
  bool vector;               /* MemoryType Vector (a storage buffer) or Scalar (a push-constant member) */
  t1_etype type;
  uint32_t comps;            /* components per element (float4: 4) */
  uint32_t comp_bytes;       /* bytes per component */
  uint64_t count;            /* elements (Vector) */
  uint64_t bytes;            /* count * comps * comp_bytes */
  t1_data data;
  t1_access access;
  bool output;
  int32_t binding;           /* Vector: its binding in set 0 (set when the shader is reflected) */
  uint32_t push_offset;      /* Scalar: its offset in the push-constant block */
} t1_arg;

typedef struct t1_ref {
  char *name;
  char path[64];
  uint32_t target;           /* index into args */
  t1_data data;
  t1_validation method;
  double threshold;
} t1_ref;

typedef struct t1_spec {
  char file[1024], dir[1024];
  char hash[40];             /* "fnv1a64:<hex>" of the file's bytes */
  t1_param *params;
  uint32_t nparams;
  texpr_var *vars;           /* the parameters as expression variables (min/max of their values) */
  t1_cond *conds;
  uint32_t nconds;
  char kernel_file[1024];    /* resolved */
  const char *kernel_text;   /* a built-in spec's kernel source in memory (kernel_file then only names it) */
  bool has_device;           /* device: the limits its expressions may name (texpr_device_names), once known */
  int64_t device[TEXPR_NDEVICE];
  char kernel_name[128];
  vkocc_shader_lang lang;
  char **defines;            /* from CompilerOptions "-DNAME=VALUE" */
  uint32_t ndefines;
  texpr *local[3], *global[3];
  char local_text[3][256], global_text[3][256];
  bool global_is_invocations; /* GlobalSizeType OpenCL */
  int64_t problem[3];
  uint32_t nproblem;
  t1_arg *args;
  uint32_t nargs;
  t1_ref *refs;
  uint32_t nrefs;
  tune_budget budget;
  char search[64];
  json_t *search_attrs;      /* Search.Attributes as an object {Name: Value} (NULL none) */
  bool uses_P;               /* some condition or size names P */
  bool uses_device;          /* some condition or size names a device limit: t1_enumerate leaves those conditions
                                out until has_device (tu_bind_device) */
} t1_spec;

vkocc_status t1_load(const char *path, t1_spec *out);
/* The same from text (the fuzz harness); dir resolves relative files; check_files: look the kernel and
 * data files up (off in the fuzzer, which has none). */
vkocc_status t1_parse(const char *text, size_t len, const char *file, const char *dir, bool check_files, t1_spec *out);
void t1_free(t1_spec *s);

/* The parameters' values of configuration coord (nparams value indices) as an environment. slots holds
 * nparams values; P < 0: not known. */
void t1_env(const t1_spec *s, const uint32_t *coord, texpr_value *slots, int64_t P, texpr_env *env);

typedef struct t1_space {
  uint64_t total;            /* the cartesian product */
  uint32_t count;            /* configurations kept by the conditions that do not name P */
  uint32_t *coord;           /* count * nparams */
  uint64_t constrained;      /* left out by those conditions */
  uint64_t *by_cond;         /* per condition: the configurations it was the first to leave out */
  bool none;                 /* t1_enumerate failed (USAGE) because no configuration satisfies the conditions */
} t1_space;
#define T1_MAX_SPACE (1ull << 26)
#define T1_MAX_KEPT (1u << 22)
/* Enumerates the space in row-major order (the last parameter fastest). Conditions naming P are left for
 * t1_check_P. Errors (USAGE) name the file, the JSON path and the configuration. */
vkocc_status t1_enumerate(const t1_spec *s, t1_space *out);
void t1_space_free(t1_space *sp);
/* After P is known: true when every condition holds; why names the first that fails. Errors (USAGE) name
 * the condition's path. */
vkocc_status t1_check_P(const t1_spec *s, const uint32_t *coord, int64_t P, bool *ok, char *why, size_t len);
/* Workgroup size and count of a configuration (P < 0: unknown, an error if a size names P). */
vkocc_status t1_sizes(const t1_spec *s, const uint32_t *coord, int64_t P, uint32_t local[3], uint32_t groups[3]);
/* The configuration as a JSON object {name: value} in parameter order, and its compact text (identity). */
json_t *t1_config_json(const t1_spec *s, const uint32_t *coord);
void t1_config_key(const t1_spec *s, const uint32_t *coord, char *out, size_t len);
/* Fills dst (arg->bytes) as the argument's data says; USAGE naming the file and path on a bad file. */
vkocc_status t1_fill_data(const t1_spec *s, const t1_data *d, const char *path, const t1_arg *shape, void *dst);
const char *t1_etype_name(t1_etype t);
#endif
