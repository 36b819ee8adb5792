/* Stand-ins for shaderc and the SPIR-V validator in a GPU-run build that compiles no user GLSL (its shaders are
 * SPIR-V): every compile fails with a message; validation passes. */
#include <shaderc/shaderc.h>
typedef void *spv_validator_options, *spv_context, *spv_diagnostic;
typedef const void *spv_const_context, *spv_const_validator_options, *spv_const_binary;
typedef int spv_result_t, spv_target_env;
#include <stdbool.h>
#include <stdlib.h>
struct shaderc_compilation_result { int dummy; };
static struct shaderc_compilation_result failed;
shaderc_compiler_t shaderc_compiler_initialize(void) { return (shaderc_compiler_t)&failed; }
void shaderc_compiler_release(shaderc_compiler_t c) { (void)c; }
shaderc_compile_options_t shaderc_compile_options_initialize(void) { return (shaderc_compile_options_t)&failed; }
void shaderc_compile_options_release(shaderc_compile_options_t o) { (void)o; }
void shaderc_compile_options_set_target_env(shaderc_compile_options_t o, shaderc_target_env t, uint32_t v) { (void)o, (void)t, (void)v; }
void shaderc_compile_options_set_source_language(shaderc_compile_options_t o, shaderc_source_language l) { (void)o, (void)l; }
void shaderc_compile_options_set_optimization_level(shaderc_compile_options_t o, shaderc_optimization_level l) { (void)o, (void)l; }
void shaderc_compile_options_set_include_callbacks(shaderc_compile_options_t o, shaderc_include_resolve_fn r,
                                                   shaderc_include_result_release_fn f, void *u) { (void)o, (void)r, (void)f, (void)u; }
void shaderc_compile_options_add_macro_definition(shaderc_compile_options_t o, const char *n, size_t nl, const char *v,
                                                  size_t vl) { (void)o, (void)n, (void)nl, (void)v, (void)vl; }
shaderc_compilation_result_t shaderc_compile_into_spv(const shaderc_compiler_t c, const char *s, size_t l,
                                                      shaderc_shader_kind k, const char *f, const char *e,
                                                      const shaderc_compile_options_t o) {
  (void)c, (void)s, (void)l, (void)k, (void)f, (void)e, (void)o; return &failed; }
shaderc_compilation_result_t shaderc_compile_into_preprocessed_text(const shaderc_compiler_t c, const char *s, size_t l,
                                                      shaderc_shader_kind k, const char *f, const char *e,
                                                      const shaderc_compile_options_t o) {
  (void)c, (void)s, (void)l, (void)k, (void)f, (void)e, (void)o; return &failed; }
void shaderc_result_release(shaderc_compilation_result_t r) { (void)r; }
size_t shaderc_result_get_length(const shaderc_compilation_result_t r) { (void)r; return 0; }
size_t shaderc_result_get_num_warnings(const shaderc_compilation_result_t r) { (void)r; return 0; }
const char *shaderc_result_get_bytes(const shaderc_compilation_result_t r) { (void)r; return ""; }
const char *shaderc_result_get_error_message(const shaderc_compilation_result_t r) { (void)r; return "this build has no GLSL compiler (give SPIR-V)"; }
shaderc_compilation_status shaderc_result_get_compilation_status(const shaderc_compilation_result_t r) { (void)r; return shaderc_compilation_status_internal_error; }
spv_validator_options spvValidatorOptionsCreate(void) { return (spv_validator_options)&failed; }
void spvValidatorOptionsDestroy(spv_validator_options o) { (void)o; }
void spvValidatorOptionsSetScalarBlockLayout(spv_validator_options o, bool v) { (void)o, (void)v; }
void spvValidatorOptionsSetRelaxBlockLayout(spv_validator_options o, bool v) { (void)o, (void)v; }
spv_context spvContextCreate(spv_target_env e) { (void)e; return (spv_context)&failed; }
void spvContextDestroy(spv_context c) { (void)c; }
void spvDiagnosticDestroy(spv_diagnostic d) { (void)d; }
spv_result_t spvValidateWithOptions(const spv_const_context c, const spv_const_validator_options o, const spv_const_binary b,
                                    spv_diagnostic *d) { (void)c, (void)o, (void)b; if (d) *d = NULL; return 0; }
