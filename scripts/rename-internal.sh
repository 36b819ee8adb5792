#!/usr/bin/env bash
# Renames the library's internal functions, types and variables from vkocc_NAME to ROOM_NAME (docs/architecture.md,
# "Names"): a vkocc_ name is public and declared under include/. The mapping at the end (old new, one pair a line)
# is the whole change; every tracked text file but docs/results/ (records of their day) and this script is
# rewritten with word-bounded sed, so the script can run again on a tree that moved files or merged a branch.
# Idempotent: a pair whose old name is gone and whose new name is there counts as done. It fails, before writing
# anything, when a pair finds neither name (the mapping is stale) or both (a half-applied or colliding rename).
# Prints, per pair, how often the old and the new name occur, and the totals.
# usage: scripts/rename-internal.sh [--dry-run]
set -euo pipefail
cd "$(dirname "$0")/.."
dry=0
[ "${1:-}" = --dry-run ] && dry=1
self=scripts/rename-internal.sh
pairs=$(sed -n '/^# ---- mapping/,$p' "$self" | grep -E '^vkocc_')
# Generated names follow their generators (cmake/embed_spirv.cmake, cmake/kernels.cmake): a prefix, no end bound
prefix_rules='s/\bvkocc_spv_/shaders_spv_/g
s/\bvkocc_\$\{part\}_/kernels_${part}_/g
s/\bvkocc_(glsl|t1)_</kernels_\1_</g'

# the tracked text files (what is counted) and those naming vkocc_ (what is rewritten)
mapfile -t texts < <(git ls-files | grep -vE '^(docs/results/|scripts/rename-internal\.sh$)' |
                     xargs -d '\n' grep -Il '' -- 2>/dev/null || true)
mapfile -t files < <(printf '%s\n' "${texts[@]}" | xargs -d '\n' grep -lE '\bvkocc_' -- 2>/dev/null || true)
[ ${#files[@]} -gt 0 ] || { echo "rename-internal: no tracked file names vkocc_" >&2; exit 1; }
# every identifier with its count, then each pair's two counts
ids=$(mktemp) sedf=$(mktemp)
trap 'rm -f "$ids" "$sedf"' EXIT
cat -- "${texts[@]}" | grep -oE '\b[A-Za-z_][A-Za-z0-9_]*' | sort | uniq -c >"$ids"
report=$(awk 'NR == FNR { n[$2] = $1; next } { printf "%s %s %d %d\n", $1, $2, n[$1] + 0, n[$2] + 0 }' "$ids" - <<<"$pairs")
stale=$(awk '$3 == 0 && $4 == 0' <<<"$report")
both=$(awk '$3 > 0 && $4 > 0' <<<"$report")
todo=$(awk '$3 > 0 && $4 == 0' <<<"$report")
awk '{ printf "%-40s %-40s old %4d  new %4d\n", $1, $2, $3, $4 }' <<<"$report"
spv=$({ grep -cE '\bvkocc_spv_' -- "${files[@]}" || true; } | awk -F: '{ s += $NF } END { print s + 0 }')
echo "rename-internal: $(wc -l <<<"$pairs") pairs: $(grep -c . <<<"$todo" || true) to rename," \
     "$(awk '$3 == 0 && $4 > 0' <<<"$report" | grep -c . || true) done already; lines naming vkocc_spv_: $spv"
fail=0
if [ -n "$stale" ]; then echo "rename-internal: neither name found (stale pairs):" >&2; echo "$stale" >&2; fail=1; fi
if [ -n "$both" ]; then echo "rename-internal: both names found (half applied, or the new name taken):" >&2; echo "$both" >&2; fail=1; fi
[ $fail = 0 ] || exit 1
[ $dry = 0 ] || exit 0
{ awk '{ printf "s/\\b%s\\b/%s/g\n", $1, $2 }' <<<"$todo"; echo "$prefix_rules"; } >"$sedf"
changed=0
for f in "${files[@]}"; do
  before=$(cksum <"$f")
  sed -i -E -f "$sedf" -- "$f"
  [ "$(cksum <"$f")" = "$before" ] || changed=$((changed + 1))
done
echo "rename-internal: $changed files rewritten"
exit 0

# ---- mapping: old new (the room's name replaces vkocc_; a first word that repeats the room's name goes:
# probes' vkocc_probe_measure is probes_measure, kernels' vkocc_kernel_find kernels_find, calibrate's
# vkocc_calibration_fit_good calibrate_fit_good)
vkocc_calibration_anchor_fit calibrate_anchor_fit
vkocc_calibration_choose_tick calibrate_choose_tick
vkocc_calibration_fit_good calibrate_fit_good
vkocc_calibration_plausible calibrate_plausible
vkocc_clock_anchor calibrate_clock_anchor
vkocc_fingerprint_cache_store characterize_fingerprint_cache_store
vkocc_register_model_open characterize_register_model_open
vkocc_aug_parse compile_aug_parse
vkocc_aug_resolve compile_aug_resolve
vkocc_aug_rounds_scale compile_aug_rounds_scale
vkocc_aug_variant_name compile_aug_variant_name
vkocc_embedded_text compile_embedded_text
vkocc_embedded_text_count compile_embedded_text_count
vkocc_embedded_text_entry compile_embedded_text_entry
vkocc_embedded_texts compile_embedded_texts
vkocc_feature_name compile_feature_name
vkocc_hlsl_numthreads_unknown compile_hlsl_numthreads_unknown
vkocc_module_contract compile_module_contract
vkocc_module_limits compile_module_limits
vkocc_reflect compile_reflect
vkocc_reflect_binding compile_reflect_binding
vkocc_reflect_spec compile_reflect_spec
vkocc_reflection compile_reflection
vkocc_reflection_free compile_reflection_free
vkocc_shader_compile compile_shader_compile
vkocc_shader_lang_of compile_shader_lang_of
vkocc_shader_load_file compile_shader_load_file
vkocc_shader_warm compile_shader_warm
vkocc_shader_warm_wait compile_shader_warm_wait
vkocc_spirv_augment compile_spirv_augment
vkocc_spirv_augment_variant compile_spirv_augment_variant
vkocc_spirv_info compile_spirv_info
vkocc_spirv_inspect compile_spirv_inspect
vkocc_spirv_validate compile_spirv_validate
vkocc_batch core_batch
vkocc_batch_barrier core_batch_barrier
vkocc_batch_begin core_batch_begin
vkocc_batch_bind core_batch_bind
vkocc_batch_copy core_batch_copy
vkocc_batch_create core_batch_create
vkocc_batch_destroy core_batch_destroy
vkocc_batch_dispatch core_batch_dispatch
vkocc_batch_dispatch3 core_batch_dispatch3
vkocc_batch_dispatch_timed core_batch_dispatch_timed
vkocc_batch_fill core_batch_fill
vkocc_batch_image_general core_batch_image_general
vkocc_batch_push core_batch_push
vkocc_batch_record core_batch_record
vkocc_batch_record_of core_batch_record_of
vkocc_batch_restore core_batch_restore
vkocc_batch_run core_batch_run
vkocc_batch_submit core_batch_submit
vkocc_batch_timer_start core_batch_timer_start
vkocc_batch_timer_start_after core_batch_timer_start_after
vkocc_batch_timer_stop core_batch_timer_stop
vkocc_batch_wait core_batch_wait
vkocc_buffer core_buffer
vkocc_buffer_create core_buffer_create
vkocc_buffer_destroy core_buffer_destroy
vkocc_buffer_upload core_buffer_upload
vkocc_buffer_upload_to core_buffer_upload_to
vkocc_clock_probe core_clock_probe
vkocc_clock_probe_create core_clock_probe_create
vkocc_clock_probe_destroy core_clock_probe_destroy
vkocc_clock_probe_read core_clock_probe_read
vkocc_clock_probe_record core_clock_probe_record
vkocc_cmp_mode core_cmp_mode
vkocc_compare core_compare
vkocc_compare_create core_compare_create
vkocc_compare_desc core_compare_desc
vkocc_compare_destroy core_compare_destroy
vkocc_compare_read core_compare_read
vkocc_compare_record core_compare_record
vkocc_compare_result core_compare_result
vkocc_context_batch core_context_batch
vkocc_context_lost core_context_lost
vkocc_copy core_copy
vkocc_copy_create core_copy_create
vkocc_copy_destroy core_copy_destroy
vkocc_copy_record core_copy_record
vkocc_device_exclusive_begin core_device_exclusive_begin
vkocc_device_exclusive_end core_device_exclusive_end
vkocc_device_has_extension core_device_has_extension
vkocc_device_locks_close core_device_locks_close
vkocc_device_shared_release core_device_shared_release
vkocc_device_shared_take core_device_shared_take
vkocc_dispatch_timed core_dispatch_timed
vkocc_dispatch_timed_record core_dispatch_timed_record
vkocc_dummies_destroy core_dummies_destroy
vkocc_dummies_make core_dummies_make
vkocc_dummy core_dummy
vkocc_elem core_elem
vkocc_elem_bytes core_elem_bytes
vkocc_elem_value core_elem_value
vkocc_exec_limits core_exec_limits
vkocc_exec_limits_get core_exec_limits_get
vkocc_feature_chain core_feature_chain
vkocc_fill_device_info core_fill_device_info
vkocc_fn core_fn
vkocc_instance_create core_instance_create
vkocc_kernel core_kernel
vkocc_kernel_bind core_kernel_bind
vkocc_kernel_bind_range core_kernel_bind_range
vkocc_kernel_build core_kernel_build
vkocc_kernel_create core_kernel_create
vkocc_kernel_desc core_kernel_desc
vkocc_kernel_destroy core_kernel_destroy
vkocc_kernel_resource core_kernel_resource
vkocc_kernel_statistics core_kernel_statistics
vkocc_kernel_statistics_of core_kernel_statistics_of
vkocc_load_device_functions core_load_device_functions
vkocc_loader_open core_loader_open
vkocc_loader_use core_loader_use
vkocc_module_contract_ctx core_module_contract_ctx
vkocc_module_limits_of core_module_limits_of
vkocc_restore core_restore
vkocc_restore_add core_restore_add
vkocc_restore_free core_restore_free
vkocc_restore_pair core_restore_pair
vkocc_shader_features_enable core_shader_features_enable
vkocc_spirv_written_bindings core_spirv_written_bindings
vkocc_subgroup_size_range core_subgroup_size_range
vkocc_sync core_sync
vkocc_vk core_vk
vkocc_vk_fail core_vk_fail
vkocc_vk_result_name core_vk_result_name
vkocc_cluster_id_c1 fingerprint_cluster_id_c1
vkocc_cluster_id_other fingerprint_cluster_id_other
vkocc_derive_fixed fingerprint_derive_fixed
vkocc_occupancy_text fingerprint_occupancy_text
vkocc_signature_unstable fingerprint_signature_unstable
vkocc_surface_distance fingerprint_surface_distance
vkocc_calibration_json io_calibration_json
vkocc_device_identity_from_json io_device_identity_from_json
vkocc_device_identity_json io_device_identity_json
vkocc_device_identity_set_sm_count io_device_identity_set_sm_count
vkocc_device_info_from_json io_device_info_from_json
vkocc_doc_check io_doc_check
vkocc_doc_device io_doc_device
vkocc_doc_load io_doc_load
vkocc_doc_schema io_doc_schema
vkocc_doc_schema_of io_doc_schema_of
vkocc_doc_schemas io_doc_schemas
vkocc_fingerprint_cache_key io_fingerprint_cache_key
vkocc_fingerprint_cache_read io_fingerprint_cache_read
vkocc_fingerprint_doc_sm_count io_fingerprint_doc_sm_count
vkocc_fingerprint_document io_fingerprint_document
vkocc_fingerprint_from_json io_fingerprint_from_json
vkocc_fingerprint_json io_fingerprint_json
vkocc_fingerprint_v2 io_fingerprint_v2
vkocc_intervals_json io_intervals_json
vkocc_linfit_json io_linfit_json
vkocc_register_points_json io_register_points_json
vkocc_signature_from_json io_signature_from_json
vkocc_signature_json io_signature_json
vkocc_surface_from_json io_surface_from_json
vkocc_surface_json io_surface_json
vkocc_vendor_check_json io_vendor_check_json
vkocc_vendor_reported_from_json io_vendor_reported_from_json
vkocc_vendor_reported_json io_vendor_reported_json
vkocc_glsl_histogram kernels_glsl_histogram
vkocc_glsl_reduce kernels_glsl_reduce
vkocc_kernel_find kernels_find
vkocc_kernel_histogram kernels_histogram
vkocc_kernel_reduce kernels_reduce
vkocc_t1_histogram kernels_t1_histogram
vkocc_t1_reduce kernels_t1_reduce
vkocc_pk_compile persistent_pk_compile
vkocc_pk_copy persistent_pk_copy
vkocc_pk_dispatch persistent_pk_dispatch
vkocc_pk_measure persistent_pk_measure
vkocc_pk_submit persistent_pk_submit
vkocc_comb_read_records probes_comb_read_records
vkocc_pipeline_occupancy_raw probes_pipeline_occupancy_raw
vkocc_pipeline_warm probes_pipeline_warm
vkocc_probe_first_use probes_first_use
vkocc_probe_first_use_batch probes_first_use_batch
vkocc_probe_kernel_create probes_kernel_create
vkocc_probe_measure probes_measure
vkocc_probe_measure_batch probes_measure_batch
vkocc_probe_params probes_params
vkocc_probe_session probes_session
vkocc_probe_session_create probes_session_create
vkocc_probe_session_destroy probes_session_destroy
vkocc_stat_kind probes_stat_kind
vkocc_user_pipeline_test probes_user_pipeline_test
vkocc_written_apply probes_written_apply
vkocc_written_pick_variant probes_written_pick_variant
vkocc_written_stats_equal probes_written_stats_equal
vkocc_written_variants probes_written_variants
vkocc_array util_array
vkocc_array_append util_array_append
vkocc_array_at util_array_at
vkocc_array_begin util_array_begin
vkocc_array_clear util_array_clear
vkocc_array_fini util_array_fini
vkocc_array_grow util_array_grow
vkocc_array_grow_bytes util_array_grow_bytes
vkocc_array_num util_array_num
vkocc_array_reserve util_array_reserve
vkocc_array_room util_array_room
vkocc_array_room_bytes util_array_room_bytes
vkocc_array_steal util_array_steal
vkocc_cache_dir util_cache_dir
vkocc_cache_doc_fd util_cache_doc_fd
vkocc_cache_doc_read util_cache_doc_read
vkocc_cache_doc_write util_cache_doc_write
vkocc_cache_entry_read util_cache_entry_read
vkocc_cache_entry_write util_cache_entry_write
vkocc_cache_key util_cache_key
vkocc_cache_key_any_family util_cache_key_any_family
vkocc_cmp_double util_cmp_double
vkocc_cmp_u32 util_cmp_u32
vkocc_cmp_u64 util_cmp_u64
vkocc_cores util_cores
vkocc_door_open util_door_open
vkocc_door_openat util_door_openat
vkocc_driver_env_hash util_driver_env_hash
vkocc_fnv1a util_fnv1a
vkocc_fnv1a_str util_fnv1a_str
vkocc_ident_char util_ident_char
vkocc_json_bool util_json_bool
vkocc_json_check_schema util_json_check_schema
vkocc_json_check_schema_versions util_json_check_schema_versions
vkocc_json_f64 util_json_f64
vkocc_json_load util_json_load
vkocc_json_load_versions util_json_load_versions
vkocc_json_number util_json_number
vkocc_json_str util_json_str
vkocc_json_text util_json_text
vkocc_json_u32 util_json_u32
vkocc_json_write util_json_write
vkocc_median util_median
vkocc_now_ns util_now_ns
vkocc_parallel_for util_parallel_for
vkocc_read_cache_file util_read_cache_file
vkocc_read_file util_read_file
vkocc_utc_now util_utc_now
vkocc_word_in util_word_in
vkocc_write_own_file_atomic util_write_own_file_atomic
vkocc_xcalloc util_xcalloc
vkocc_xmalloc util_xmalloc
vkocc_xrealloc util_xrealloc
vkocc_xstrdup util_xstrdup
vkocc_xstrndup util_xstrndup
vkocc_fingerprint_ahead characterize_fingerprint_ahead
vkocc_fingerprint_ahead_start characterize_fingerprint_ahead_start
vkocc_fingerprint_ahead_finish characterize_fingerprint_ahead_finish
vkocc_signature_warm_pipelines characterize_signature_warm_pipelines
vkocc_prebuild_pays probes_prebuild_pays
vkocc_probe_pool probes_pool
vkocc_probe_prebuild_start probes_prebuild_start
vkocc_probe_prebuild_finish probes_prebuild_finish
vkocc_probe_prebuilt_take probes_prebuilt_take
vkocc_probe_kernel_create_now probes_kernel_create_now
