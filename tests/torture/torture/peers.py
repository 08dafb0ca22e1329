"""Real HTTP/1.1 servers to hold ringside's framing against (attack 4): nginx and node:http, each
answering every request it accepts with 200 after reading its body to the end, so that how each
frames a byte stream shows in how many responses it writes for it.

nginx reads a body only when something needs it: `return 200` alone discards it (and answers
before the body arrives). So the front server block proxies every request, with request buffering
on (nginx's default: the whole body, chunked or not, is read and checked before anything is sent
upstream), to a second server block of the same nginx listening on a Unix socket, which answers
200. The front block's answers are what the client sees; the upstream block only makes them 200.
"""
import os
import socket
import subprocess

from .framework import AttackError, wait_until

NGINX_CONF = """\
daemon off;
master_process off;
worker_processes 1;
pid {scratch}/nginx.pid;
error_log {scratch}/nginx-error.log error;

events {{
    worker_connections 8192;
}}

http {{
    access_log off;
    server_tokens off;
    keepalive_timeout 30s;
    keepalive_requests 100000;
    client_max_body_size 1m;
    client_body_temp_path {scratch}/nginx-client-body;
    proxy_temp_path {scratch}/nginx-proxy;
    fastcgi_temp_path {scratch}/nginx-fastcgi;
    uwsgi_temp_path {scratch}/nginx-uwsgi;
    scgi_temp_path {scratch}/nginx-scgi;

    server {{
        listen 127.0.0.1:{port} backlog=4096;
        location / {{
            # The client half-closes after sending (how the attack marks the end of its bytes):
            # without this nginx takes the FIN for an abort and drops the request it is proxying.
            proxy_ignore_client_abort on;
            proxy_pass http://unix:{scratch}/nginx-upstream.sock:;
        }}
    }}

    server {{
        listen unix:{scratch}/nginx-upstream.sock;
        location / {{
            default_type text/plain;
            return 200 "ok\\n";
        }}
    }}
}}
"""

NODE_SERVER = """\
// node:http answering 200 to every request it accepts, once it has read its body to the end.
//
// node's own answer to a parse error (the default 'clientError') writes 400 and destroys the
// socket at once, losing the answers still due to the requests before the bad bytes in the same
// read: node would seem to have seen fewer requests than it did. So parse errors wait here for
// those answers (the requests whose message was complete) and then answer 400 and close.
'use strict';
const http = require('http');
const server = http.createServer({ keepAliveTimeout: 30000 }, (req, res) => {
  const socket = req.socket;
  socket.exchanges = socket.exchanges || new Set();
  const exchange = { req, res };
  socket.exchanges.add(exchange);
  res.on('finish', () => {
    socket.exchanges.delete(exchange);
    settle(socket);
  });
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '3' });
    res.end('ok\\n');
  });
});

function due(socket) {
  let n = 0;
  for (const { req, res } of socket.exchanges || []) if (req.complete && !res.writableFinished) n++;
  return n;
}

function settle(socket) {
  if (socket.refusal && due(socket) === 0 && !socket.refused) {
    socket.refused = true;
    socket.end(socket.refusal);
  }
}

server.on('clientError', (error, socket) => {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large'
                                                      : '400 Bad Request';
  socket.refusal = 'HTTP/1.1 ' + status + '\\r\\nConnection: close\\r\\n\\r\\n';
  settle(socket);
});

server.listen(0, '127.0.0.1', 4096, () => {
  console.log('listening on port ' + server.address().port);
});
"""


def free_port():
    """A port nothing listens on now (nginx needs its port in its configuration file)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            s.settimeout(2)
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def start_nginx(ctx):
    """Starts nginx (one worker); returns (child, port)."""
    ctx.need_tools("nginx")
    for attempt in range(3):
        port = free_port()
        conf = os.path.join(ctx.scratch, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX_CONF.format(scratch=ctx.scratch, port=port))
        socket_path = os.path.join(ctx.scratch, "nginx-upstream.sock")
        if os.path.exists(socket_path):
            os.unlink(socket_path)
        child = ctx.spawn(["nginx", "-c", conf, "-p", ctx.scratch], name="nginx")
        if wait_until(lambda: answers(port) or not child.alive(), 20) and child.alive():
            return child, port
        child.stop()
    raise AttackError(f"nginx did not start: {child.errors()[-400:]}")


def start_node(ctx):
    """Starts the node:http server; returns (child, port)."""
    node = "/usr/bin/node" if os.access("/usr/bin/node", os.X_OK) else "node"
    if node == "node":
        ctx.need_tools("node")
    script = os.path.join(ctx.scratch, "node-server.js")
    with open(script, "w") as f:
        f.write(NODE_SERVER)
    child = ctx.spawn([node, script], name="node")

    def port():
        text = child.output().decode(errors="replace")
        if "listening on port " in text:
            return int(text.split("listening on port ")[1].split()[0])
        return None if child.alive() else -1

    found = wait_until(port, 20)
    if not found or found < 0:
        raise AttackError(f"node did not start: {child.errors()[-400:]}")
    return child, found


def versions():
    """'nginx/1.22.1, node v20.20.2': what the peers were, for the attack's notes."""
    found = []
    for argv in (["nginx", "-v"], ["/usr/bin/node", "--version"]):
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
            found.append((done.stdout + done.stderr).strip().replace("nginx version: ", ""))
        except OSError:
            found.append(f"{argv[0]} ?")
    return f"{found[0]}, node {found[1]}"
