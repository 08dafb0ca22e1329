#!/usr/bin/env bash
# Instructions `ringside serve` executes per request, per function, counted by callgrind. Counts are
# deterministic (unlike time), so they mean something on a busy machine and compare across commits:
# the figure to watch when working on the hot path (parser, router, response writer).
#
#   bench/cpu/instructions_per_request.sh [options]     # after scripts/build release
#     --bin PATH       the ringside binary (default build/release/apps/ringside)
#     --path PATH      request path (default /plaintext)
#     --pipeline N     requests per connection in flight, so per write (default 16)
#     --http2 N        HTTP/2 (h2c) instead, N streams per connection in flight (ringside load
#                      --http2 --streams N); --pipeline is then unused
#     --headers SET    minimal: ringside load's own head (Host, User-Agent);
#                      browser: the set wrk scripts and TechEmpower's toolset send (Host,
#                      User-Agent, Accept, Accept-Language, Connection: keep-alive) (default minimal)
#     -n N             requests (default 160000)
#     --top N          functions to list (default 15)
#     --keep DIR       keep the callgrind files in DIR (default: a temporary folder, removed)
#
# It starts one server worker under callgrind, dumps its counts after start-up and idling, loads it
# with `ringside load -c 10` (outside callgrind), dumps again, and prints the second dump's self cost
# per function divided by the requests (bench/cpu/callgrind_self.py: callgrind_annotate credits
# everything to `clone` for this statically linked binary). Valgrind slows the server about 50x:
# 160,000 requests take about a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=build/release/apps/ringside path=/plaintext pipeline=16 headers=minimal requests=160000 top=15
keep="" http2=""
usage() { echo "instructions_per_request: $1 (see the top of bench/cpu/instructions_per_request.sh)" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=${2:?}; shift 2 ;;
    --path) path=${2:?}; shift 2 ;;
    --pipeline) pipeline=${2:?}; shift 2 ;;
    --http2) http2=${2:?}; shift 2 ;;
    --headers) headers=${2:?}; shift 2 ;;
    -n) requests=${2:?}; shift 2 ;;
    --top) top=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown option '$1'" ;;
  esac
done
case "$headers" in
  minimal) header_flags=() ;;
  browser)
    header_flags=(-H "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
                  -H "Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7"
                  -H "Accept-Language: en-US,en;q=0.5"
                  -H "Connection: keep-alive") ;;
  *) usage "--headers must be minimal or browser, not '$headers'" ;;
esac
if [ -n "$http2" ]; then
  shape_flags=(--http2 --streams "$http2") shape="HTTP/2, $http2 streams per connection"
else
  shape_flags=(--pipeline "$pipeline") shape="pipeline $pipeline"
fi
[ -x "$bin" ] || usage "no binary at $bin: build first (scripts/build release)"
command -v valgrind >/dev/null || usage "needs valgrind (scripts/setup installs it)"

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$keep
else
  work=$(mktemp -d)
fi
server=""
cleanup() {
  if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

out=$work/callgrind.out
valgrind --tool=callgrind --compress-strings=no --compress-pos=no --callgrind-out-file="$out" \
  "$bin" serve --port 0 --threads 1 --db none >"$work/serve.out" 2>"$work/serve.err" &
server=$!
port=""
for _ in $(seq 1 600); do
  port=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.out" 2>/dev/null | head -1 | cut -d: -f3 || true)
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
[ -n "$port" ] || { echo "instructions_per_request: the server did not start: $(cat "$work/serve.err")" >&2; exit 1; }
# Dump 1 holds start-up and the idle tick; dump 2 only the requests.
sleep 1
callgrind_control --dump=idle "$server" >/dev/null
"$bin" load -t 1 -c 10 "${shape_flags[@]}" -n "$requests" "${header_flags[@]}" \
  "http://127.0.0.1:$port$path" >"$work/load.out" 2>&1 || {
  echo "instructions_per_request: ringside load failed: $(tail -3 "$work/load.out")" >&2; exit 1; }
callgrind_control --dump=run "$server" >/dev/null
kill -TERM "$server"
wait "$server" || true
server=""

echo "ringside serve, $path, $shape, $headers headers, $requests requests"
grep -E '^ *(2xx|Status|Requests|Errors|non-2xx)' "$work/load.out" || true
python3 bench/cpu/callgrind_self.py "$out.2" "$requests" --top "$top"
