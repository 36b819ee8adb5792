#!/usr/bin/env bash
# ctest: the CLI's conventions. -V; a manual page per command that `vkocc --help` lists, made from the
# command's own --help (its usage line is the page's synopsis); bash and zsh completion that parse and
# complete commands, options and tune's parameter names; tune --help lists every value --only takes;
# tune --json prints the document without -o (on the device: lavapipe in the suite).
# usage: test_cli_conventions.sh VKOCC BUILD_DIR SOURCE_DIR
set -euo pipefail
vkocc=$1 build=$2 src=$3
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fail() { echo "FAIL: $*" >&2; exit 1; }

[[ $("$vkocc" -V) == "vkocc "[0-9]* ]] || fail "vkocc -V: $("$vkocc" -V 2>&1)"
[[ $("$vkocc" -V) == $("$vkocc" --version) ]] || fail "-V and --version differ"

# manual pages: one per command, NAME from the command list, SYNOPSIS from the usage line
cmds=$("$vkocc" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }')
[[ $(wc -w <<<"$cmds") -ge 10 ]] || fail "vkocc --help lists $(wc -w <<<"$cmds") commands"
[[ -f $build/man/vkocc.1 ]] || fail "no $build/man/vkocc.1"
for c in $cmds; do
  page=$build/man/vkocc-$c.1
  [[ -f $page ]] || fail "no manual page for $c"
  grep -q '^\.SH SYNOPSIS' "$page" && grep -q '^\.SH DESCRIPTION' "$page" || fail "$page lacks a section"
  grep -q "^vkocc\\\\-$(sed 's/-/\\\\-/g' <<<"$c") \\\\- " "$page" || fail "$page: NAME is not 'vkocc-$c - ...'"
  grep -q "BR vkocc\\\\-$(sed 's/-/\\\\-/g' <<<"$c") (1)" "$build/man/vkocc.1" || fail "vkocc.1 does not refer to vkocc-$c"
  # the synopsis is the usage line: its first option appears in the page as in --help
  first=$("$vkocc" "$c" --help | head -1 | grep -o -- '--[a-z][a-z-]*' | head -1 || true)
  [[ -z $first ]] || grep -q -- "$(sed 's/-/\\\\-/g' <<<"$first")" "$page" || fail "$page lacks $first"
  if command -v groff >/dev/null; then
    w=$(groff -man -Tutf8 -ww -z "$page" 2>&1) && [[ -z $w ]] || fail "groff warns on $page: $w"
  fi
done

# bash completion: commands, options, values, tune's parameter names
bash -n "$src/completions/vkocc.bash" || fail "vkocc.bash does not parse"
dir=$(dirname "$vkocc")
comp() { # WORDS...: what completing the last word offers
  PATH="$dir:$PATH" bash -c 'source "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));
    _vkocc; printf "%s\n" "${COMPREPLY[@]}"' "$src/completions/vkocc.bash" "$(basename "$vkocc")" "$@" 2>/dev/null
}
[[ $(comp su) == surface ]] || fail "completing 'su': $(comp su)"
comp surface --fu | grep -x -- --full >/dev/null || fail "completing 'surface --fu'"
comp surface --method '' | grep -x bisect >/dev/null || fail "completing --method"
comp policy '' | grep -x transfer >/dev/null || fail "completing policy's sub-commands"
comp tune histogram --only '' | grep -x 'wg_size=' >/dev/null || fail "completing tune --only: $(comp tune histogram --only '')"
if command -v zsh >/dev/null; then zsh -n "$src/completions/_vkocc" || fail "_vkocc does not parse"; fi

# tune --help: every parameter and its values
h=$("$vkocc" tune --help)
grep -q '^  histogram parameters: variant=[a-z_,]* wg_size=[0-9,]* ' <<<"$h" || fail "tune --help lacks histogram's parameters"
grep -q '^  reduce parameters: .*elements_per_thread=[0-9,]*' <<<"$h" || fail "tune --help lacks reduce's parameters"

# tune: --json instead of -o prints the document; --resume needs -o
set +e
err=$("$vkocc" tune histogram --size 1K 2>&1 >/dev/null); rc=$?
[[ $rc == 2 && $err == *"-o FILE or --json"* ]] || fail "tune without -o and --json: exit $rc, $err"
err=$("$vkocc" tune histogram --size 1K --json --resume 2>&1 >/dev/null); rc=$?
[[ $rc == 2 && $err == *"--resume needs -o"* ]] || fail "tune --resume without -o: exit $rc, $err"
doc=$("$vkocc" tune histogram --size 64K --only variant=shared_bins --only wg_size=64 --only grain=1 --only copies=1 --json); rc=$?
set -e
[[ $rc == 0 ]] || fail "tune --json exit $rc"
grep -q '"schema": "vkocc.tune-results/1"' <<<"$doc" || fail "tune --json printed no results document"
# policy build --json: the database on stdout without -o
db=$("$vkocc" policy build "$src/docs/results/h100/tune/reduce-u32.json" --json) || fail "policy build --json exit $?"
grep -q '"schema": "vkocc.policy-db/' <<<"$db" || fail "policy build --json printed no database"
echo "ok: -V, $(wc -w <<<"$cmds") manual pages, completion, tune --help and --json"
