#!/usr/bin/env bash
# doc_check.sh GEN_DOC SRCDIR - doc/hints.md and doc/stats.md equal what the tables generate.
set -u
fail=0
for d in hints stats; do
    if ! "$1" $d | diff -u "$2/doc/$d.md" - >/dev/null; then
        echo "doc/$d.md is stale: regenerate with build/gen_doc $d > doc/$d.md"; fail=1
    fi
done
[ $fail = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
