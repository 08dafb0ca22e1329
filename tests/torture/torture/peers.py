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
import subprocess

from . import nginx_peer
from .framework import AttackError, wait_until

# nginx's server blocks: the front one proxies to the second over a Unix socket (see above).
NGINX_SERVERS = """\
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
"""
NGINX_DIRECTIVES = ("keepalive_timeout 30s", "client_max_body_size 1m")

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


def start_nginx(ctx):
    """Starts nginx (one worker, unpinned); returns (child, port)."""
    socket_path = os.path.join(ctx.scratch, "nginx-upstream.sock")
    if os.path.exists(socket_path):
        os.unlink(socket_path)
    served = nginx_peer.start_nginx(ctx, directives=NGINX_DIRECTIVES, servers=NGINX_SERVERS,
                                    core=None)
    return served, served.port


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
