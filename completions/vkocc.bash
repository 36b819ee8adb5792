# bash completion for vkocc. The commands and each command's options are read from `vkocc --help` and
# `vkocc COMMAND --help`, so they stay what the installed vkocc takes. Installed as
# share/bash-completion/completions/vkocc.
_vkocc() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion || return
  else
    cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
  fi
  local exe=${words[0]}
  if ((cword == 1)); then
    local cmds
    cmds=$("$exe" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }')
    COMPREPLY=($(compgen -W "$cmds --help --version -V" -- "$cur"))
    return
  fi
  local cmd=${words[1]} help
  help=$("$exe" "$cmd" --help 2>/dev/null) || return
  case $prev in
    --device|-d)
      COMPREPLY=($(compgen -W "$("$exe" devices 2>/dev/null | awk '/^[0-9]/ { sub(/\*/, "", $1); print $1 }') all" -- "$cur"))
      return ;;
    --queue) COMPREPLY=($(compgen -W "compute graphics" -- "$cur")); return ;;
    --method) COMPREPLY=($(compgen -W "comb bisect both" -- "$cur")); return ;;
    --type) COMPREPLY=($(compgen -W "u32 f32" -- "$cur")); return ;;
    --statistic) COMPREPLY=($(compgen -W "median min" -- "$cur")); return ;;
    --augmentation) COMPREPLY=($(compgen -W "auto compact unrolled small clock-only rolled" -- "$cur")); return ;;
    --only)  # tune: the parameter names its --help lists ("parameters: NAME (...), ...")
      local params
      params=$(printf '%s\n' "$help" | sed -n 's/^ *[a-z]* parameters: //p' | grep -o '[a-z_][a-z_0-9]*=' )
      COMPREPLY=($(compgen -W "$params" -- "$cur"))
      compopt -o nospace 2>/dev/null
      return ;;
    -o|--output|--from|--db|--system-db|--fingerprint|--shader|--raw|--screenshot)
      COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u) --help" -- "$cur"))
    return
  fi
  if ((cword == 2)); then  # sub-commands (policy build|select|transfer, plot surface|wg|..., tune KERNEL)
    local subs
    subs=$(printf '%s\n' "$help" | awk -v c="$cmd" '{ for (i = 1; i < NF; i++) if ($i == "vkocc" && $(i+1) == c && $(i+2) ~ /^[a-z][a-z|]*$/) print $(i+2) }' | tr '|' ' ')
    if [[ -n $subs ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); return; fi
  fi
  COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null
}
complete -F _vkocc vkocc
