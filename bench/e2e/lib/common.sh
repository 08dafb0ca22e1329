# shellcheck shell=bash
# Shared helpers for the bench/e2e scripts: messages, tool checks, ports, readiness, and a
# registry of the processes a script started so that one trap can stop them all.
# Source it; it defines functions only and keeps its state in BENCH_* globals.

BENCH_PIDS=()     # every long-lived process we started, oldest first
BENCH_TMP=""      # scratch directory, removed on exit
PYTHON=${PYTHON:-python3}

log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# require_tool NAME HINT: fail early, naming the fix, instead of dying mid-run on "command not found".
require_tool() {
  command -v "$1" >/dev/null 2>&1 || die "$1 not found: $2"
}

# Ask the kernel for a free port: bind port 0, read it back, release it. The window between the
# release and the server's bind is tiny, and wait_ready would catch a lost race.
free_port() {
  "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# is_running PID: true while PID lives. Not `kill -0`: that also succeeds for a child that has
# exited but is not yet reaped (a zombie), so a dead server would look alive until we wait for it.
is_running() {
  local stat
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  stat=${stat##*) }
  [[ ${stat%% *} != Z ]]
}

# wait_ready PID URL [SECONDS]: poll until URL answers 2xx; a bare sleep would either waste time or
# race a slow start. Fails fast if the process dies first.
wait_ready() {
  local pid=$1 url=$2 limit=${3:-10}
  local deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    is_running "$pid" || return 1
    curl -fsS --max-time 1 -o /dev/null "$url" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

track_pid() { BENCH_PIDS+=("$1"); }

untrack_pid() {
  local kept=() p
  for p in "${BENCH_PIDS[@]}"; do [[ $p == "$1" ]] || kept+=("$p"); done
  BENCH_PIDS=("${kept[@]}")
}

# wait_tracked PID: wait for a client started with `&`, tracked meanwhile so that the cleanup trap
# stops it; returns its status. In the background and then `wait` because bash runs the Ctrl-C trap
# at once only while it sits in the wait builtin: a foreground wrk catches SIGINT itself and exits
# 0, and bash would then carry on as if nothing had happened.
wait_tracked() {
  local status=0
  track_pid "$1"
  wait "$1" || status=$?
  untrack_pid "$1"
  return "$status"
}

# stop_pid PID: SIGTERM, give it 5 s to drain, then SIGKILL; reap it so no zombie skews /proc scans.
stop_pid() {
  local pid=$1 i
  if kill -TERM "$pid" 2>/dev/null; then
    for ((i = 0; i < 100; i++)); do
      is_running "$pid" || break
      sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  untrack_pid "$pid"
}

# Newest first, so helpers (samplers) go before the servers they watch.
cleanup() {
  local i
  for ((i = ${#BENCH_PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${BENCH_PIDS[i]}"; done
  if [[ -n $BENCH_TMP && -d $BENCH_TMP ]]; then rm -rf "$BENCH_TMP"; fi
  return 0
}

# install_cleanup_trap: run cleanup on any exit; on Ctrl-C or SIGTERM exit with the usual code so
# the caller sees the interruption. The ERR trap names the command that `set -e` stops on, which
# would otherwise end the script without a word.
install_cleanup_trap() {
  set -o errtrace
  trap 'log "error: \"$BASH_COMMAND\" failed (line $LINENO)"' ERR
  trap cleanup EXIT
  trap 'log "interrupted, stopping servers"; exit 130' INT
  trap 'log "terminated, stopping servers"; exit 143' TERM
}
