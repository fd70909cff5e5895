#!/usr/bin/env bash
# The contract of bench/tokenizer_digest: the same files give the same
# digest, and a change to what the tokenizer yields for one file changes
# the digest and that file's line of --per-file, and only that line.
#
#   tests/tokenizer_digest_check.sh TOKENIZER_DIGEST HTML_DIR
set -euo pipefail
tool=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/a"
cp -r "$src" "$work/b"

first=$("$tool" "$work/a")
again=$("$tool" "$work/a")
[ "$first" = "$again" ] || { echo "FAIL: two runs over the same files differ: $first / $again"; exit 1; }
copy=$("$tool" "$work/b")
[ "${first%%  files*}" = "${copy%%  files*}" ] || { echo "FAIL: a copy of the folder gives another digest"; exit 1; }
case "$first" in
  "digest "*"  files "*"  terms "*) ;;
  *) echo "FAIL: unexpected summary line: $first"; exit 1 ;;
esac

# One word more in the text of one page: its terms change.
victim=$(find "$work/b" -name '*.html' | sort | head -n 1)
printf '<p>zyzzyva</p>\n' >> "$victim"
changed=$("$tool" "$work/b")
[ "${first%%  files*}" != "${changed%%  files*}" ] || { echo "FAIL: a page with one more word gives the same digest"; exit 1; }

# --per-file: exactly the page changed differs.
"$tool" --per-file "$work/a" | sed '$d' | sed "s|$work/a/||" > "$work/per-a"
"$tool" --per-file "$work/b" | sed '$d' | sed "s|$work/b/||" > "$work/per-b"
diff "$work/per-a" "$work/per-b" > "$work/diff" || true
differing=$(grep -c '^<' "$work/diff" || true)
[ "$differing" = 1 ] || { echo "FAIL: $differing files' digests differ, expected 1"; exit 1; }
grep -q "$(basename "$victim")" "$work/diff" || { echo "FAIL: the differing line is not the changed page's"; exit 1; }

# A missing folder: a clear error and a non-zero status.
if "$tool" "$work/none" > "$work/out" 2>&1; then echo "FAIL: a missing folder exits 0"; exit 1; fi
grep -q "cannot read" "$work/out" || { echo "FAIL: no message naming the missing folder: $(cat "$work/out")"; exit 1; }
echo "ok: $first"
