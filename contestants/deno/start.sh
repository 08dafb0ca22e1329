#!/bin/sh
# Usage: start.sh HOST PORT — `deno serve --parallel` (DENO_JOBS isolates) on HOST:PORT. deno serve
# takes an IPv6 address only in brackets (--host [::1]; a bare ::1 is an "invalid empty host").
set -eu
host=$1 port=$2
case $host in *:*) host="[$host]" ;; esac
here=$(dirname "$0")
exec "$here/../node_modules/.bin/deno" serve --parallel --host "$host" --port "$port" \
  --allow-net --allow-env --allow-read --no-prompt "$here/server.js"
