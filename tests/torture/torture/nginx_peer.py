"""nginx beside ringside on the same attack: one process (master_process off, so its peak RSS is
the whole server's), one worker, everything it writes under the attack's scratch directory. By
default it answers "Hello World!" like `ringside serve`'s /; an attack may give its own server
blocks (attack 4's proxies every request to a second block of the same nginx, to read bodies)."""
import os
import socket

from .framework import AttackError, Served, accepts, wait_until

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
{servers}
}}
"""

HELLO_SERVER = """\
    server {{
        listen 127.0.0.1:{port} backlog=65535;
        location / {{
            default_type text/plain;
            return 200 "Hello World!";
        }}
    }}
"""


def free_port():
    """A port nothing listens on now (nginx takes its port from its configuration file)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(ctx, *, worker_connections=8192, directives=(), servers=HELLO_SERVER,
                name="nginx", core="server", start_timeout=20.0):
    """Starts nginx with `directives` (lines for its http block, e.g. timeouts) and `servers` (its
    server blocks, formatted with {port} and {scratch}), pinned to the server core unless core is
    None, and waits (bounded) until it accepts connections; returns a Served with its port. A port
    taken between choosing it and nginx binding it gets another try."""
    ctx.need_tools("nginx")
    if core == "server":
        core = ctx.server_core
    served = None
    for _ in range(3):
        port = free_port()
        path = os.path.join(ctx.scratch, f"{name}.conf")
        with open(path, "w") as f:
            f.write(CONFIG.format(
                scratch=ctx.scratch, worker_connections=worker_connections,
                open_files=worker_connections + 1024,
                directives="".join(f"    {line};\n" for line in directives),
                servers=servers.format(port=port, scratch=ctx.scratch)))
        child = ctx.spawn(["nginx", "-e", "stderr", "-p", ctx.scratch, "-c", path], name=name,
                          core=core)
        served = Served(child.name, child.argv, child.process, child.out_path, child.err_path)
        ctx.children[-1] = served
        if wait_until(lambda: accepts(port) or not served.alive(), start_timeout) and \
                served.alive():
            served.port = port
            return served
        served.stop()
    raise AttackError(f"nginx did not start within {start_timeout:.0f}s "
                      f"(exit {served.process.poll()}): {served.errors()[-500:]}")
