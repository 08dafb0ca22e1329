"""nginx answering "Hello World!" like `ringside serve`'s /, to put its figures beside ringside's on
the same attack: one process (master_process off, so its peak RSS is the whole server's), pinned
to the server core, everything it writes under the attack's scratch directory."""
import os
import socket

from .framework import AttackError, Served, wait_until

CONFIG = """\
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile {open_files};
pid {scratch}/nginx.pid;
error_log {scratch}/nginx-error.log warn;

events {{
    worker_connections {worker_connections};
}}

http {{
    access_log off;
    server_tokens off;
    keepalive_requests 10000000;
    tcp_nodelay on;
    client_body_temp_path {scratch}/nginx-client-body;
    proxy_temp_path {scratch}/nginx-proxy;
    fastcgi_temp_path {scratch}/nginx-fastcgi;
    uwsgi_temp_path {scratch}/nginx-uwsgi;
    scgi_temp_path {scratch}/nginx-scgi;
{directives}
    server {{
        listen 127.0.0.1:{port} backlog=65535;
        location / {{
            default_type text/plain;
            return 200 "Hello World!";
        }}
    }}
}}
"""


def free_port():
    """A port nothing listens on now (nginx takes its port from its configuration file)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def start_nginx(ctx, *, worker_connections, directives=(), name="nginx", start_timeout=20.0):
    """Starts nginx with `directives` (lines for its http block, e.g. timeouts) and waits
    (bounded) until it accepts connections; returns a Served with its port."""
    ctx.need_tools("nginx")
    port = free_port()
    path = os.path.join(ctx.scratch, f"{name}.conf")
    with open(path, "w") as f:
        f.write(CONFIG.format(scratch=ctx.scratch, port=port, worker_connections=worker_connections,
                              open_files=worker_connections + 1024,
                              directives="".join(f"    {line};\n" for line in directives)))
    child = ctx.spawn(["nginx", "-e", "stderr", "-p", ctx.scratch, "-c", path], name=name,
                      core=ctx.server_core)
    served = Served(child.name, child.argv, child.process, child.out_path, child.err_path)
    ctx.children[-1] = served
    if not wait_until(lambda: accepts(port) or not served.alive(), start_timeout) or \
            not served.alive():
        raise AttackError(f"nginx did not start within {start_timeout:.0f}s "
                          f"(exit {served.process.poll()}): {served.errors()[-500:]}")
    served.port = port
    return served
