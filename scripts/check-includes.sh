#!/usr/bin/env bash
# Rejects #include edges that leave the module DAG (STYLE: folder = module =
# node). Each src/<module> and apps/<module> may include only the public
# headers, itself, and the modules listed for it below; nothing under src/
# may include an application (apps/); cli/ may include only include/neardup
# and the applications' headers apps/<name>/<name>.h; the Python module
# (python/src) only include/neardup and its own headers.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
  [base]=""
  [io]="base"
  [output]="base io text"
  [text]="base"
  [fingerprint]="base text"
  [overlap]="base"
  [sketch]="base fingerprint"
  [cluster]="base"
  [evaluation]="base text output"
  [analysis]="base text output"
  [index]="base sketch cluster"
  [engine]="base io output text fingerprint sketch cluster index overlap"
  [synth]="base io text"
  [crawls]="base io output text fingerprint sketch cluster analysis engine synth"
  [service]="base io output text engine"
  [partition]="base io text"
)
fail=0
apps=" analysis synth crawls service partition "
for module in "${!allowed[@]}"; do
  dir=src/$module
  [[ "$apps" == *" $module "* ]] && dir=apps/$module
  [ -d "$dir" ] || continue
  while IFS= read -r line; do
    file=${line%%:*}
    dep=$(printf '%s' "$line" | sed -E 's/.*#include "([a-z_]+)\/.*/\1/')
    [ "$dep" = "neardup" ] && continue
    [ "$dep" = "$module" ] && continue
    ok=0
    for a in ${allowed[$module]}; do [ "$a" = "$dep" ] && ok=1; done
    if [ $ok = 0 ]; then
      echo "check-includes: $file includes $dep/, which $dir may not use" >&2
      fail=1
    fi
  done < <(grep -HE '^#include "[a-z_]+/' -r "$dir" || true)
done
if grep -HE '^#include "' -r cli | grep -vE "#include \"(neardup/|analysis/analysis.h|synth/synth.h|crawls/crawls.h|service/service.h|partition/partition.h|cli_util.h|commands.h|dedup_command.h)" >&2; then
  echo "check-includes: cli/ may include only neardup/ public headers, the applications' headers and its own cli_util.h, commands.h, dedup_command.h" >&2
  fail=1
fi
if grep -HE '^#include "' -r mpi | grep -vE "#include \"(neardup/|partition/partition.h|cli_util.h|dedup_command.h)" >&2; then
  echo "check-includes: mpi/ may include only neardup/ public headers, partition/partition.h and the CLI's cli_util.h, dedup_command.h" >&2
  fail=1
fi
if grep -HE '^#include "' -r python/src | grep -vE "#include \"(neardup/|documents.h|errors.h|options.h)" >&2; then
  echo "check-includes: python/src may include only neardup/ public headers and its own headers" >&2
  fail=1
fi
[ $fail = 0 ] && echo "check-includes: module dependency graph respected"
exit $fail
