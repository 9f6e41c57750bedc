#!/bin/bash
# usage: build_maui_big.sh MAUI_GIT_DIR [BUILD_DIR] [MMAX_JOB]
# Builds Maui 3.3.1 (commit da3b035 of github.com/marc0f/maui) as the reference harness's
# build_maui.sh does (same configure/make work-arounds, explained there), with one change:
# stock 3.3.1 holds at most 4,096 jobs (`#define MMAX_JOB 4096` in include/msched.h), too few
# for thousands of real trace jobs, so that one #define is raised (default 16384) by sed in the
# extracted copy. Nothing of Maui is kept in this repository: the source is extracted into
# BUILD_DIR from the given git dir. Prints MAUI_BIN and FIXTIME_SO.
set -euo pipefail
GITDIR=${1:?bare git dir of a maui-3.3.1 repository}; B=${2:-/tmp/maui-build-big}; MAX=${3:-16384}
H=${HARNESS:-/work/shared/maui-reference/harness}
rm -rf "$B/src"; mkdir -p "$B/src" "$B/spool"
git --git-dir="$GITDIR" archive "${MAUI_COMMIT:-da3b035}" | tar -x -C "$B/src"
cd "$B/src"
sed -i -E "s/^(#define MMAX_JOB[[:space:]]+)4096\$/\1$MAX/" include/msched.h
grep -qE "^#define MMAX_JOB[[:space:]]+$MAX\$" include/msched.h || { echo "MMAX_JOB not changed" >&2; exit 1; }
export rm_config=/dev/null ll_definitions=/dev/null sdr_definitions=/dev/null \
       pbs_definitions=/dev/null sge_definitions=/dev/null lsf_definitions=/dev/null \
       mx_definitions=/dev/null pcre_definitions=/dev/null
./configure --prefix="$B/inst" --with-spooldir="$B/spool" --with-wiki \
    CFLAGS="-O1 -g -fcommon -std=gnu89 -w" > "$B/configure.log" 2>&1
test -s Makefile || { echo "configure produced an empty Makefile" >&2; exit 1; }
make -j1 > "$B/make.log" 2>&1
gcc -shared -fPIC -O2 -o "$B/fixtime.so" "$H/fixtime.c" -ldl
echo "MAUI_BIN=$B/src/bin/maui"
echo "FIXTIME_SO=$B/fixtime.so"
