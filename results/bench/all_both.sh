#!/usr/bin/env bash
# BGSIM_KERNELS=all, fresh numba cache: a standard run, then a nackgammon run on the same cache
# (a machine that plays both, as the test suite does); CPU seconds of each.
# BEFORE and AFTER: two checkouts, each with its .venv (pip install -e ".[test]")
set -u
: "${BEFORE:?}" "${AFTER:?}"
for tree in $BEFORE $AFTER; do
  cache=$(mktemp -d)
  line="$(git -C $tree rev-parse --short HEAD)"
  for variant in standard nackgammon; do
    out=$( { cd $tree && NUMBA_CACHE_DIR=$cache BGSIM_KERNELS=all /usr/bin/time -f "%U %S" .venv/bin/bgsim play heuristic+pipdiff nn+pipdiff --games 10 --engine fast --variant $variant --out $cache/$variant.parquet >/dev/null; } 2>&1 | tail -1)
    line="$line $variant: $out"
  done
  echo "$line load $(cut -d' ' -f1 /proc/loadavg)"
  rm -rf $cache
done
