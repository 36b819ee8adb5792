#!/usr/bin/env bash
# The suite's mutation check: breaks the code on purpose, one change at a time, in a copy of this checkout,
# and expects at least one of the tests named beside each change to fail. A mutation that no named test
# catches is a hole in the suite (a test that cannot fail). Each estimator the suite guards has one here.
#
# usage: scripts/mutation-check.sh [--busy] [NAME...]
#   --busy   runs everything beside one `yes > /dev/null` per core (the load CI may see)
#   NAME     only these mutations (default: all); --list prints them
# Output: one line per mutation: name, the tests that failed (or MISSED), the wall time; exit 1 if any was
# missed or did not apply (the code it names moved: update the table). Needs scripts/install-deps.sh's
# packages; builds RelWithDebInfo without sanitizers in $VKOCC_MUTATION_DIR (default: a temporary folder),
# about 3 minutes, then rebuilds one file per mutation.
set -euo pipefail
cd "$(dirname "$0")/.."

# name @ file @ text as it is @ text as the mutation makes it @ tests (ctest -R) that must catch it
# (perl string escapes in the texts: \n newline)
MUTATIONS=$(cat <<'EOF'
unmodified-P1@probes/unmodified.c@  P = pr->bisect_min;@  P = 1;@^test_shader_unmod$
bisect-never-establishes@probes/bisect.c@  out->P = lo;\n  out->certain = true;@  return vkocc_fail(VKOCC_ERROR_RUNTIME, "bisect: could not establish P (mutation)");@^test_probe_lvp_threads|^test_shader_lvp$
bisect-off-by-one@probes/bisect.c@  out->P = lo;\n  out->certain = true;@  out->P = lo + 1;\n  out->certain = true;@^test_probe_lvp_threads|^test_shader_lvp$
comb-overcounts@probes/comb.c@    if (at_least >= min_dwell) { out->P = l; break; }@    if (at_least >= min_dwell) { out->P = l + 1; break; }@^test_probe_lvp_threads|^test_comb$
clock-8-percent-off@calibrate/calibrate.c@    cal->ns_per_tick = a;\n    cal->from_starts = true;@    cal->ns_per_tick = 1.08 * a;\n    cal->from_starts = true;@^test_calibrate_lvp$
calibration-accepts-poor-fits@calibrate/calibrate.c@  return line && f->r2 >= 0.999 &&@  return line || f->r2 >= 0.999 ||@^test_fit$|^test_calibrate_lvp$
barrier-bound-refused-by-calibration@persistent/barrier.c@  if (!(ticks <= 2147483647.0)) ticks = 2147483647.0, out->clamped = true;@  if (!(ticks <= 2147483647.0)) return vkocc_fail(VKOCC_ERROR_USAGE, "--bound-ms: at most 2^31 - 1 ticks");@^test_barrier_lvp$
tune-validation-off-shipped@tune/harness/buffers.c@bool tu_validated(const harness *h, uint32_t i) { return h->expect && h->expect[i]; }@bool tu_validated(const harness *h, uint32_t i) { (void)h, (void)i; return false; }@^test_tune_lvp$
shipped-reference-hook-off@tune/results/builtin.c@  b->k->reference(in, b->n, b->f32, dst);@  memset(dst, 0, shape->bytes);@^test_tune$|^test_tune_lvp$
tune-validation-off-T1@tune/harness/buffers.c@bool tu_validated(const harness *h, uint32_t i) { return h->expect && h->expect[i]; }@bool tu_validated(const harness *h, uint32_t i) { (void)h, (void)i; return false; }@^test_tune_spec_lvp$
histogram-bins-wrongly@kernels/histogram/histogram.comp@    if (idx < pc.n) atomicAdd(hist.bins[inp.data[idx] >> 24], 1u);@    if (idx < pc.n) atomicAdd(hist.bins[(inp.data[idx] >> 24) ^ 1u], 1u);@^test_tune_lvp$
race-never-stops@tune/search/race.c@  v.behind = n >= TU_RACE_MIN_RUNS && isfinite(v.fastest_ns) && v.fastest_ns > r->best_ns * v.bias * (1 + v.margin);@  v.behind = false;@^test_race$|^test_race_lvp$
race-stops-everything@tune/search/race.c@  v.behind = n >= TU_RACE_MIN_RUNS && isfinite(v.fastest_ns) && v.fastest_ns > r->best_ns * v.bias * (1 + v.margin);@  v.behind = n >= 1;@^test_race$
constant-cluster-id@fingerprint/normalize.c@(unsigned long long)(h >> 16)@(unsigned long long)(h >> 16) * 0ull@^test_signature$|^test_fingerprint$|^test_arch_bench$|^test_one_id$|^test_cli_fingerprint$
c3-drops-fp64-ratio@fingerprint/signature.c@VKOCC_SIG_COUNT && n < len; i++) {\n    const vkocc_sig_value *v = &g->v[i];@VKOCC_SIG_COUNT && n < len; i++) {\n    if (i == VKOCC_SIG_FP64_RATIO) continue;\n    const vkocc_sig_value *v = &g->v[i];@^test_signature$
fleet-takes-forged-results@tune/fleet/coordinator.c@  if (tu_record_check(&rv, &first, 0, "", why, sizeof why)) return true;@  if (true) return true;@^test_fleet_lvp$
stop-rule-after-two-runs@tune/harness/decide.c@  if (runs >= min_runs && sum.median > 0 && sum.mad / sum.median <= target) return true;@  if (runs >= 2) return true;@^test_stop_rule$|^test_tune_spec_lvp$
stop-rule-ignores-spread@tune/harness/decide.c@  if (runs >= min_runs && sum.median > 0 && sum.mad / sum.median <= target) return true;@  if (runs >= min_runs) return true;@^test_stop_rule$
validation-tolerance-1000x-host@tune/harness/validate.c@    double lim = m == T1_SIDE_BY_SIDE_REL ? th * fabs(y) : th;@    double lim = 1000 * (m == T1_SIDE_BY_SIDE_REL ? th * fabs(y) : th);@^test_tune_spec_lvp$
validation-skips-last-host@tune/harness/validate.c@  for (uint64_t k = 0; k < n; k++) {\n    double x = core_elem_value(out, k, cd.elem)@  for (uint64_t k = 0; k + 1 < n; k++) {\n    double x = core_elem_value(out, k, cd.elem)@^test_tune_spec_lvp$
validation-tolerance-1000x-device@shaders/compare.comp@      lim = th * abs(y.v);@      lim = 1000.0 * th * abs(y.v);@^test_tune_spec_lvp$|^test_gpucheck_lvp$
validation-skips-last-device@shaders/compare.comp@k < pc.n; k += stride@k + 1u < pc.n; k += stride@^test_tune_spec_lvp$|^test_gpucheck_lvp$
comb-second-tooth-as-P@probes/comb.c@  free(starts); free(ends); free(len); free(dwell);\n  return VKOCC_OK;@  if (out->teeth >= 2) out->P = out->tooth_heights[1];\n  free(starts); free(ends); free(len); free(dwell);\n  return VKOCC_OK;@^test_comb$|^test_probe_lvp_threads
header-identifier-lets-star-slash@policy/header.c@name[i] == '_' || name[i] == '-')@name[i] == '_' || name[i] == '-' || name[i] == '*' || name[i] == '/')@^test_policy_header$
P-condition-error-as-true@tune/spec/t1_space.c@    if (!texpr_eval(s->conds[c].e, &env, &v, err, sizeof err)) return cond_fail(s, &s->conds[c], coord, err);\n    if (!texpr_truthy(&v)) {@    if (!texpr_eval(s->conds[c].e, &env, &v, err, sizeof err)) continue;\n    if (!texpr_truthy(&v)) {@^test_t1$
calibrate-o-writes-refused@cli/cmd_calibrate.c@  if (c.output && !cal.poor_fit && (w = vkocc_calibration_save(d, &cal, c.output)))@  if (c.output && (w = vkocc_calibration_save(d, &cal, c.output)))@^test_cli_devices$
batched-combs-never-establish@probes/probe.c@  if (!ctx->device_clock || ps->dispatch || !n ||@  if (1 || !ctx->device_clock || ps->dispatch || !n ||@^test_surface_lvp$
EOF
)

busy=0
only=()
for a in "$@"; do
  case "$a" in
    --busy) busy=1 ;;
    --list) cut -d'@' -f1 <<<"$MUTATIONS"; exit 0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "mutation-check: unknown option '$a'" >&2; exit 2 ;;
    *) only+=("$a") ;;
  esac
done

work=${VKOCC_MUTATION_DIR:-$(mktemp -d /tmp/vkocc-mutation.XXXXXX)}
mkdir -p "$work/src"
# the working tree as it is (tracked and untracked, not ignored), not only what is committed
git ls-files -co --exclude-standard -z | tar --null -cf - -T - | tar -xf - -C "$work/src"
hogs=()
cleanup() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
if [ "$busy" = 1 ]; then
  for _ in $(seq "$(nproc)"); do yes >/dev/null & hogs+=($!); done
  echo "mutation-check: beside ${#hogs[@]} CPU hogs"
fi
# ninja and gold where installed: each mutation relinks the ~110 test programs twice
gen=(); keep=(-k); command -v ninja >/dev/null && gen=(-GNinja) && keep=(-k 0)
# past a step that fails (-k): a mutant that stops the build still gets its named tests run on everything else
build() { cmake --build "$work/build" -j"$(nproc)" -- "${keep[@]}" >"$work/build.log" 2>&1; }
link=()
if echo 'int main(void){return 0;}' | cc -x c -fuse-ld=gold -o /dev/null - 2>/dev/null; then
  link=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=gold -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=gold)
fi
cmake -S "$work/src" -B "$work/build" "${gen[@]}" "${link[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
build || { tail -20 "$work/build.log"; echo "mutation-check: the unmutated tree does not build" >&2; exit 1; }

# perl -0: the whole file as one string; \Q..\E: the text literally (after its \n escapes)
apply() { # file old new -> number of replacements
  perl -0pi -e 'BEGIN { ($o, $n) = (shift, shift); s/\\n/\n/g for ($o, $n); $c = 0 }
                $c += s/\Q$o\E/$n/g; END { print STDERR "$c\n" }' "$2" "$3" "$1" 2>&1 >/dev/null
}
run_tests() { # regex -> prints the failed tests' names; exit status of ctest
  (cd "$work/build" && ctest -R "$1" --timeout 600 >"$work/ctest.log" 2>&1); local rc=$?
  grep -E '\*\*\*(Failed|Timeout|Exception)|\(Failed\)' "$work/ctest.log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/; s/^[[:space:]]*[0-9]+ - ([^ ]+) .*/\1/' | sort -u | tr '\n' ' '
  return $rc
}

missed=0
printf '%-40s %-8s %s\n' mutation result "tests that failed (of those named)"
while IFS='@' read -r name file old new tests; do
  [ -z "$name" ] && continue
  if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$name"; then continue; fi
  t0=$(date +%s)
  # the named tests must pass before the mutation, or their failure afterwards proves nothing
  if ! base=$(run_tests "$tests"); then
    printf '%-40s %-8s %s\n' "$name" BASELINE "the unmutated tree already fails: $base"; missed=1; continue
  fi
  cp "$work/src/$file" "$work/orig"
  n=$(apply "$work/src/$file" "$old" "$new")
  if [ "$n" = 0 ]; then
    printf '%-40s %-8s %s\n' "$name" ABSENT "the text to mutate is not in $file"; missed=1; continue
  fi
  built=1
  build || built=0
  why=$(grep -m1 -E '^vkocc |error:' "$work/build.log" | cut -c1-160 || true) # (none: it built; grep's 1 is no error)
  if failed=$(run_tests "$tests"); then
    if [ "$built" = 1 ]; then printf '%-40s %-8s %s\n' "$name" MISSED "no test of $tests failed"; missed=1
    else printf '%-40s %-8s %s\n' "$name" build "only the build stops it (no test of $tests failed): $why"; missed=1; fi
  elif [ "$built" = 0 ]; then
    printf '%-40s %-8s %s(%ss; the build also stops it: %s)\n' "$name" caught "$failed" "$(( $(date +%s) - t0 ))" "$why"
  else
    printf '%-40s %-8s %s(%ss)\n' "$name" caught "$failed" "$(( $(date +%s) - t0 ))"
  fi
  cp "$work/orig" "$work/src/$file"
  touch "$work/src/$file"
  build || { echo "mutation-check: the tree does not build again after $name" >&2; exit 1; }
done <<<"$MUTATIONS"
[ -z "${VKOCC_MUTATION_DIR:-}" ] && rm -rf "$work"
exit $missed
