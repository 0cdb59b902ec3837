#!/usr/bin/env bash
# Runs a command with the clock of every process it starts moved by OFFSET (libfaketime's form:
# +400d, -30d, +8h), PostgreSQL's processes included, to find a test that holds only on some days
# (docs/testing.md, "The date"). Nothing in the code moves the clock: libfaketime is preloaded for
# every program in a private mount namespace, so the cluster, which gets none of the server's
# environment and runs as another account, sees the same day as the tests.
#
#   sudo scripts/at-another-date.sh +400d npm run test:node
#
# Needs root (mount namespaces) and Debian's libfaketime (apt-get install faketime).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OFFSET COMMAND...   (OFFSET such as +400d or -30d)" >&2
  exit 2
fi
offset=$1
shift
lib=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -n 1 || true)
if [ -z "$lib" ]; then
  echo "$0 needs libfaketime: apt-get install faketime" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "$0 needs root: it preloads libfaketime for every account in a mount namespace of its own" >&2
  exit 2
fi
work=$(mktemp -d)
# libfaketime leaves a segment in /dev/shm for each process of the cluster's account, which gets no
# FAKETIME_DISABLE_SHM: the run's own go with it.
trap 'find /dev/shm -maxdepth 1 \( -name "faketime_shm_*" -o -name "sem.faketime_sem_*" \) -newer "$work" -delete; rm -rf "$work"' EXIT
echo "$lib" >"$work/preload"
echo "$offset" >"$work/faketimerc"
# The bind mounts need files to cover; empty ones change nothing outside the namespace.
[ -e /etc/ld.so.preload ] || : >/etc/ld.so.preload
[ -e /etc/faketimerc ] || : >/etc/faketimerc
# Without shared memory each process keeps its own offset: a root process's segment would be
# unreadable to the cluster's account.
export FAKETIME_DISABLE_SHM=1
unshare --mount --propagation private -- bash -c '
  mount --bind "$1/preload" /etc/ld.so.preload
  mount --bind "$1/faketimerc" /etc/faketimerc
  shift
  echo "The clock here reads $(date -u "+%Y-%m-%d %H:%M UTC")."
  exec "$@"' bash "$work" "$@"
