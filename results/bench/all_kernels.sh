#!/usr/bin/env bash
# Cold compile of BGSIM_KERNELS=all (every family a standard two-player run may use), each
# checkout in turn, fresh numba cache, CPU and wall seconds of `bgsim play` to its end.
# BEFORE and AFTER: two checkouts, each with its .venv (pip install -e ".[test]")
set -u
: "${BEFORE:?}" "${AFTER:?}"
for round in 1 2; do
  for tree in $BEFORE $AFTER; do
    cache=$(mktemp -d)
    start=$(date +%s.%N)
    out=$( { cd $tree && NUMBA_CACHE_DIR=$cache BGSIM_KERNELS=all /usr/bin/time -f "%U %S" .venv/bin/bgsim play heuristic+pipdiff nn+pipdiff --games 10 --engine fast --out $cache/out.parquet >/dev/null; } 2>&1 | tail -1)
    end=$(date +%s.%N)
    echo "round $round $(git -C $tree rev-parse --short HEAD) wall $(echo "$end - $start" | bc) cpu_user_sys $out load $(cut -d' ' -f1 /proc/loadavg)"
    rm -rf $cache
  done
done
