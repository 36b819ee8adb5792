#!/usr/bin/env bash
# Reads the code (library, CLI, benches; not tests/, docs/, examples/ which use the public API only) for three
# things that must not be there, and prints each line found and the counts:
#   - a Vulkan call returning VkResult whose result is ignored (a call that starts a statement);
#   - an unbounded wait (vkDeviceWaitIdle, vkQueueWaitIdle);
#   - an allocation outside core's checked allocator (util/xalloc.c: util_xmalloc, ...): malloc, calloc,
#     realloc, strdup, strndup.
#   scripts/reliability/audit.sh [REPO=.]
# The VkResult functions are read from the installed vulkan_core.h. Exit 0 always (a report, not a gate).
set -uo pipefail
repo=${1:-.}
cd "$repo" || exit 2
hdr=$(find /usr/include/vulkan -name vulkan_core.h | head -1)
[ -n "$hdr" ] || { echo "$0: vulkan_core.h not found" >&2; exit 2; }
fns=$(grep -oE 'VKAPI_ATTR VkResult VKAPI_CALL vk[A-Za-z0-9]+' "$hdr" | awk '{print $4}' | sort -u | paste -sd'|')
mapfile -t src < <(git ls-files '*.c' '*.h' '*.cpp' | grep -v '^tests/\|^docs/\|^examples/')
echo "== VkResult ignored"
ign=$(grep -nE "(^|[;{)]|else)\s*(\(void\)\s*)?[A-Za-z_>.-]*\b($fns)\(" "${src[@]}" |
      grep -vE '(==|!=) VK_SUCCESS' || true)
[ -n "$ign" ] && echo "$ign"
echo "== unbounded waits"
wait_=$(grep -nE '\b(vkDeviceWaitIdle|vkQueueWaitIdle)\(' "${src[@]}" | grep -v '^\S*:\s*/\?\*' || true)
[ -n "$wait_" ] && echo "$wait_"
echo "== allocations outside the checked allocator"
alloc=$(grep -nE '(^|[^A-Za-z0-9_.>])(malloc|calloc|realloc|strdup|strndup|reallocarray)\s*\(' "${src[@]}" |
        grep -v 'vkocc_x\|^\S*:\s*/\?\*\|^util/xalloc.c\|^util/error.c:.*checked(' || true)
[ -n "$alloc" ] && echo "$alloc"
count() { [ -n "$1" ] && printf '%s\n' "$1" | wc -l || echo 0; }
echo "== counts: VkResult ignored $(count "$ign"), unbounded waits $(count "$wait_"), raw allocations $(count "$alloc")"
