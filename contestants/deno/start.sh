#!/bin/sh
# Usage: start.sh HOST PORT BUNDLED — `deno serve --parallel` (DENO_JOBS isolates) on HOST:PORT,
# with the deno and the import map of the bundled contestants folder BUNDLED (the manifest's
# {bundled}), so a copy of this folder anywhere runs the same way. deno serve takes an IPv6
# address only in brackets (--host [::1]; a bare ::1 is an "invalid empty host").
set -eu
host=$1 port=$2 bundled=$3
case $host in *:*) host="[$host]" ;; esac
here=$(dirname "$0")
exec "$bundled/node_modules/.bin/deno" serve --parallel --host "$host" --port "$port" \
  --import-map "$bundled/lib/deno_imports.json" \
  --allow-net --allow-env --allow-read --no-prompt "$here/server.js"
