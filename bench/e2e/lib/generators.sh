# shellcheck shell=bash
# shellcheck disable=SC2034  # GEN_CMD is read by loaders.sh, which sources this file
# How bench/e2e/loaders.sh runs each load generator: one thread (or one event loop), CONNS
# keep-alive connections, no pipelining, for SECONDS, against URL, with a report on stdout that
# `loaders_report.py parse NAME` reads.
#
# generator_command NAME URL CONNS SECONDS sets GEN_CMD; generator_unavailable NAME prints why NAME
# cannot run on this machine, or nothing when it can. Needs RINGSIDE_BIN, and AUTOCANNON_JS and
# AUTOCANNON_PROBLEM from ensure_autocannon.

GEN_CMD=()

command_ringside() { GEN_CMD=("$RINGSIDE_BIN" load -t1 -c "$2" -d "${3}s" --json "$1"); }
command_wrk() { GEN_CMD=(wrk -t1 -c "$2" -d "${3}s" "$1"); }
# -cpus 1 is GOMAXPROCS=1: the Go scheduler then keeps one thread running Go code, as the others do.
command_hey() { GEN_CMD=(hey -cpus 1 -c "$2" -z "${3}s" "$1"); }
# -t alone caps ab at 50,000 requests, and -n must come after it to lift that cap. ab sizes an array
# by -n up front, so the cap is a rate no single core reaches (1M req/s) rather than a huge number.
command_ab() { GEN_CMD=(ab -q -k -c "$2" -t "$3" -n $(($3 * 1000000)) "$1"); }
command_h2load() { GEN_CMD=(h2load --h1 -t1 -c "$2" -D "$3" "$1"); }
# node on the script itself, not npx: npx would add an npm process and its start-up to the bill.
command_autocannon() { GEN_CMD=(node "$AUTOCANNON_JS" -c "$2" -d "$3" --json "$1"); }

generator_command() { "command_$1" "$2" "$3" "$4"; }

generator_unavailable() {
  case $1 in
    ringside)
      [[ -x $RINGSIDE_BIN ]] ||
        echo "no binary at $RINGSIDE_BIN (build it with scripts/build release, or set RINGSIDE_BIN)" ;;
    wrk) command -v wrk >/dev/null || echo "wrk not found (apt-get install wrk)" ;;
    hey) command -v hey >/dev/null || echo "hey not found (apt-get install hey)" ;;
    ab) command -v ab >/dev/null || echo "ab not found (apt-get install apache2-utils)" ;;
    h2load) command -v h2load >/dev/null || echo "h2load not found (apt-get install nghttp2-client)" ;;
    autocannon) echo "$AUTOCANNON_PROBLEM" ;;
  esac
}

# ensure_autocannon: install the pinned autocannon from bench/e2e/package-lock.json unless it is
# already there; on any failure leave the reason in AUTOCANNON_PROBLEM, so autocannon is skipped
# rather than the whole benchmark failing.
AUTOCANNON_JS=""
AUTOCANNON_PROBLEM=""

ensure_autocannon() {
  AUTOCANNON_JS=$E2E_DIR/node_modules/autocannon/autocannon.js
  if ! command -v node >/dev/null; then
    AUTOCANNON_PROBLEM="node not found (install Node.js 20: scripts/setup)"; return
  fi
  if [[ $(autocannon_installed_version) == "$(autocannon_pinned_version)" ]]; then return; fi
  if ! command -v npm >/dev/null; then
    AUTOCANNON_PROBLEM="npm not found (install Node.js 20 with npm)"; return
  fi
  log "installing autocannon $(autocannon_pinned_version) into bench/e2e/node_modules (npm ci)"
  if ! (cd "$E2E_DIR" && npm ci --no-audit --no-fund --loglevel=error) >&2; then
    AUTOCANNON_PROBLEM="'npm ci' in bench/e2e failed (see the log)"; return
  fi
  [[ -f $AUTOCANNON_JS ]] || AUTOCANNON_PROBLEM="'npm ci' left no $AUTOCANNON_JS"
}

autocannon_pinned_version() {
  node -p 'require(process.argv[1]).devDependencies.autocannon' "$E2E_DIR/package.json"
}

# Empty when it is not installed; a stale one (package.json bumped since) triggers a fresh npm ci.
autocannon_installed_version() {
  local manifest=$E2E_DIR/node_modules/autocannon/package.json
  [[ -f $manifest && -f $AUTOCANNON_JS ]] || return 0
  node -p 'require(process.argv[1]).version' "$manifest"
}
