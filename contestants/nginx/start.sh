#!/bin/sh
# Usage: start.sh PORT THREADS WORKDIR [HOST] — renders nginx.conf.template into WORKDIR and runs
# nginx, listening on HOST (default 127.0.0.1), in the foreground there (its prefix, pid and temp
# paths), never touching /etc/nginx or /var.
set -eu
port=$1 threads=$2 workdir=$3 host=${4:-127.0.0.1}
here=$(dirname "$0")
# nginx wants an IPv6 address in brackets: listen [::1]:PORT.
case $host in *:*) host="[$host]" ;; esac
sed -e "s|{port}|$port|g" -e "s|{threads}|$threads|g" -e "s|{workdir}|$workdir|g" \
  -e "s|{host}|$host|g" \
  "$here/nginx.conf.template" > "$workdir/nginx.conf"
# -e: the error log before the configuration is read (the compiled-in one is under /var/log).
exec nginx -p "$workdir/" -c "$workdir/nginx.conf" -e stderr
