/* Reflection through SPIRV-Cross (C API): descriptor bindings with their Vulkan descriptor types, the
 * push-constant block size, and the specialization constants with IDs, types and defaults. */
#include "compile.h"
#include "array.h"
#include "util.h"
#include <vulkan/vulkan.h> /* the types of the module contract and reflection: no device here */
#include <spirv_cross_c.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

static vkocc_status add_list(spvc_compiler comp, spvc_resources res, spvc_resource_type rt, util_array *bindings,
                             compile_reflection *out) {
  const spvc_reflected_resource *list;
  size_t n;
  if (spvc_resources_get_resource_list_for_type(res, rt, &list, &n) != SPVC_SUCCESS) return VKOCC_OK;
  for (size_t i = 0; i < n; i++) {
    compile_reflect_binding b = {0};
    b.set = spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationDescriptorSet);
    b.binding = spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationBinding);
    spvc_type t = spvc_compiler_get_type_handle(comp, list[i].type_id);
    uint64_t count = 1;
    for (unsigned d = 0; d < spvc_type_get_num_array_dimensions(t); d++) {
      if (!spvc_type_array_dimension_is_literal(t, d) || spvc_type_get_array_dimension(t, d) == 0)
        return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "descriptor '%s' (set %u, binding %u) is an array sized at run "
                          "time or by a specialization constant; vkocc binds fixed-size arrays only",
                          list[i].name, b.set, b.binding);
      count *= spvc_type_get_array_dimension(t, d);
      if (count > UINT32_MAX) /* [65536][65536] would read as 0 in 32 bits */
        return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "descriptor '%s' (set %u, binding %u) is an array of more than "
                          "2^32 descriptors", list[i].name, b.set, b.binding);
    }
    b.count = (uint32_t)count;
    spvc_type base = spvc_compiler_get_type_handle(comp, list[i].base_type_id);
    bool is_image = rt == SPVC_RESOURCE_TYPE_STORAGE_IMAGE || rt == SPVC_RESOURCE_TYPE_SAMPLED_IMAGE ||
                    rt == SPVC_RESOURCE_TYPE_SEPARATE_IMAGE;
    bool texel = false;
    if (is_image) {
      b.image_dim = spvc_type_get_image_dimension(base);
      b.image_format = spvc_type_get_image_storage_format(base);
      b.arrayed = spvc_type_get_image_arrayed(base);
      b.multisampled = spvc_type_get_image_multisampled(base);
      spvc_type st = spvc_compiler_get_type_handle(comp, spvc_type_get_image_sampled_type(base));
      spvc_basetype bt = spvc_type_get_basetype(st);
      b.sampled_type = bt == SPVC_BASETYPE_INT32 ? 1 : bt == SPVC_BASETYPE_UINT32 ? 2 : 0;
      texel = b.image_dim == SpvDimBuffer;
    }
    switch (rt) {
    case SPVC_RESOURCE_TYPE_UNIFORM_BUFFER: b.type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER; break;
    case SPVC_RESOURCE_TYPE_STORAGE_BUFFER: b.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER; break;
    case SPVC_RESOURCE_TYPE_STORAGE_IMAGE:
      b.type = texel ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
      break;
    case SPVC_RESOURCE_TYPE_SAMPLED_IMAGE:
      b.type = texel ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
      break;
    case SPVC_RESOURCE_TYPE_SEPARATE_IMAGE:
      b.type = texel ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
      break;
    case SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS: b.type = VK_DESCRIPTOR_TYPE_SAMPLER; break;
    default:
      return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "descriptor '%s' (set %u, binding %u) is of a kind vkocc cannot "
                        "bind a dummy for (acceleration structure, subpass input, ...)", list[i].name, b.set,
                        b.binding);
    }
    if (rt == SPVC_RESOURCE_TYPE_UNIFORM_BUFFER || rt == SPVC_RESOURCE_TYPE_STORAGE_BUFFER) {
      size_t sz = 0;
      if (spvc_compiler_get_declared_struct_size_runtime_array(comp, base, 1, &sz) != SPVC_SUCCESS)
        spvc_compiler_get_declared_struct_size(comp, base, &sz);
      b.size = sz > UINT32_MAX ? UINT32_MAX : (uint32_t)sz; /* saturated: above every buffer range */
    }
    util_array_append(bindings, compile_reflect_binding, b);
    out->nbindings++;
  }
  return VKOCC_OK;
}

vkocc_status compile_reflect(const uint32_t *spv, size_t words, const char *entry, compile_reflection *out) {
  memset(out, 0, sizeof *out);
  spvc_context sctx = NULL;
  spvc_parsed_ir ir;
  spvc_compiler comp;
  spvc_resources res;
  if (spvc_context_create(&sctx) != SPVC_SUCCESS) return vkocc_fail(VKOCC_ERROR_RUNTIME, "SPIRV-Cross: no context");
  vkocc_status s = VKOCC_OK;
  if (spvc_context_parse_spirv(sctx, spv, words, &ir) != SPVC_SUCCESS ||
      spvc_context_create_compiler(sctx, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &comp) !=
          SPVC_SUCCESS) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "reflection failed: %s", spvc_context_get_last_error_string(sctx));
    spvc_context_destroy(sctx);
    return s;
  }
  /* the entry point looked up first: spvc_compiler_set_entry_point lets SPIRV-Cross's exception for a missing
   * one escape through the C API (an abort) */
  const spvc_entry_point *eps = NULL;
  size_t neps = 0;
  bool found = false;
  char names[256] = "";
  if (spvc_compiler_get_entry_points(comp, &eps, &neps) == SPVC_SUCCESS)
    for (size_t i = 0; i < neps; i++) {
      if (eps[i].execution_model != SpvExecutionModelGLCompute) continue;
      found |= entry && !strcmp(eps[i].name, entry);
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%.60s'", names[0] ? ", " : "", eps[i].name);
    }
  if (!found) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "no compute entry point '%.200s' in the module (it has: %s)", entry ? entry : "",
                   names[0] ? names : "none");
    spvc_context_destroy(sctx);
    return s;
  }
  if (spvc_compiler_set_entry_point(comp, entry, SpvExecutionModelGLCompute) != SPVC_SUCCESS ||
      spvc_compiler_create_shader_resources(comp, &res) != SPVC_SUCCESS) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "reflection of entry point '%s' failed: %s", entry,
                   spvc_context_get_last_error_string(sctx));
    spvc_context_destroy(sctx);
    return s;
  }
  const spvc_resource_type kinds[] = {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, SPVC_RESOURCE_TYPE_STORAGE_BUFFER,
                                      SPVC_RESOURCE_TYPE_STORAGE_IMAGE, SPVC_RESOURCE_TYPE_SAMPLED_IMAGE,
                                      SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS,
                                      SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE, SPVC_RESOURCE_TYPE_SUBPASS_INPUT};
  util_array bindings = VKOCC_ARRAY_INIT;
  for (size_t k = 0; k < VKOCC_ARRAY_LEN(kinds) && !s; k++) s = add_list(comp, res, kinds[k], &bindings, out);
  out->bindings = util_array_steal(&bindings);
  const spvc_reflected_resource *pc;
  size_t npc;
  if (!s && spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &pc, &npc) ==
                SPVC_SUCCESS && npc) {
    size_t sz = 0;
    spvc_compiler_get_declared_struct_size(comp, spvc_compiler_get_type_handle(comp, pc[0].base_type_id), &sz);
    out->push_bytes = sz > UINT32_MAX ? UINT32_MAX : (uint32_t)sz;
  }
  const spvc_specialization_constant *sc;
  size_t nsc;
  if (!s && spvc_compiler_get_specialization_constants(comp, &sc, &nsc) == SPVC_SUCCESS && nsc) {
    out->specs = util_xcalloc(nsc, sizeof *out->specs);
    for (size_t i = 0; i < nsc; i++) {
      spvc_constant c = spvc_compiler_get_constant_handle(comp, sc[i].id);
      spvc_type t = spvc_compiler_get_type_handle(comp, spvc_constant_get_type(c));
      spvc_basetype bt = spvc_type_get_basetype(t);
      compile_reflect_spec *o = &out->specs[out->nspecs++];
      o->id = sc[i].constant_id;
      o->bytes = spvc_type_get_bit_width(t) == 64 ? 8 : 4;
      o->is_float = bt == SPVC_BASETYPE_FP32 || bt == SPVC_BASETYPE_FP64 || bt == SPVC_BASETYPE_FP16;
      o->is_signed = bt == SPVC_BASETYPE_INT32 || bt == SPVC_BASETYPE_INT64;
      o->is_bool = bt == SPVC_BASETYPE_BOOLEAN;
      o->default_value = spvc_constant_get_scalar_u32(c, 0, 0); /* low word of 64-bit constants */
    }
  }
  spvc_context_destroy(sctx);
  if (s) compile_reflection_free(out);
  return s;
}

void compile_reflection_free(compile_reflection *r) {
  free(r->bindings);
  free(r->specs);
  memset(r, 0, sizeof *r);
}
