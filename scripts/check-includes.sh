#!/usr/bin/env bash
# Rejects #include edges that leave the module DAG (STYLE: folder = module =
# node). Each src/<module> may include only the public headers, itself, and
# the modules listed for it below; cli/ may include only include/neardup.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
  [base]=""
  [io]="base"
  [output]="base io"
  [text]="base"
  [fingerprint]="base text"
  [overlap]="base"
  [sketch]="base fingerprint"
  [cluster]="base"
  [evaluation]="base text output"
  [analysis]="base text output"
  [index]="base sketch"
  [engine]="base io output text fingerprint sketch cluster index overlap"
  [synth]="base io text"
  [crawls]="base io output text fingerprint sketch cluster analysis engine synth"
)
fail=0
for module in "${!allowed[@]}"; do
  [ -d "src/$module" ] || continue
  while IFS= read -r line; do
    file=${line%%:*}
    dep=$(printf '%s' "$line" | sed -E 's/.*#include "([a-z_]+)\/.*/\1/')
    [ "$dep" = "neardup" ] && continue
    [ "$dep" = "$module" ] && continue
    ok=0
    for a in ${allowed[$module]}; do [ "$a" = "$dep" ] && ok=1; done
    if [ $ok = 0 ]; then
      echo "check-includes: $file includes $dep/, which src/$module may not use" >&2
      fail=1
    fi
  done < <(grep -HE '^#include "[a-z_]+/' -r "src/$module" || true)
done
if grep -HE '^#include "' -r cli | grep -vE "#include \"(neardup/|cli_util.h|commands.h)" >&2; then
  echo "check-includes: cli/ may include only neardup/ public headers and its own cli_util.h, commands.h" >&2
  fail=1
fi
[ $fail = 0 ] && echo "check-includes: module dependency graph respected"
exit $fail
