// One isolate of the deno contestant (main.js starts DENO_JOBS of them): Deno.serve on its own
// SO_REUSEPORT listener, with the `postgres` package from the npm registry (installed in the
// bundled contestants/node_modules) for /users/:id. Both imports go through the bundled import
// map, lib/deno_imports.json (the manifest's start passes it).

import postgres from "postgres";
import { json, NO_DATABASE, userRoute } from "lib/fetch_users.mjs";

// postgres's own default `max`, written out: docs/contestants.md and the manifest rely on it.
const POOL_SIZE = 10;

const port = Number(Deno.env.get("PORT"));
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  throw new Error(`PORT must be a port number (1-65535), got '${Deno.env.get("PORT") ?? ""}'`);
}
// HOST is the harness's {host} (127.0.0.1, or the scenario's server_address); an IPv6 literal
// goes unbracketed ("::1").
const hostname = Deno.env.get("HOST") || "127.0.0.1";

// TLS_CERT and TLS_KEY are the harness's {tls_cert} and {tls_key} (PEM files): both given on an
// https start, when Deno.serve listens with TLS (its ALPN offers h2 and http/1.1; the harness's
// clients ask for http/1.1), both empty on a plain one.
const certFile = Deno.env.get("TLS_CERT") || "";
const keyFile = Deno.env.get("TLS_KEY") || "";
if ((certFile === "") !== (keyFile === "")) {
  throw new Error("TLS_CERT and TLS_KEY go together: both files for https, neither for http");
}
const tls = certFile === ""
  ? {}
  : { cert: Deno.readTextFileSync(certFile), key: Deno.readTextFileSync(keyFile) };

// Each isolate has its own pool. Statements are prepared (postgres's default). Without a
// database (DATABASE_URL=none: postgres() would refuse it as a URL) there is no pool.
const url = Deno.env.get("DATABASE_URL");
const sql = url === NO_DATABASE ? null : postgres(url, { max: POOL_SIZE });

const user = userRoute(sql);

function handle(request) {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("method not allowed\n", { status: 405 });
  }
  const { pathname } = new URL(request.url);
  if (pathname === "/") {
    return new Response("Hello World!", { headers: { "content-type": "text/plain" } });
  }
  if (pathname === "/json") return json(200, { message: "Hello, World!" });
  if (pathname.startsWith("/users/")) return user(pathname.slice("/users/".length));
  return new Response("no route for this path\n", { status: 404 });
}

function listen() {
  Deno.serve({
    hostname,
    port,
    reusePort: true, // every isolate listens; the kernel spreads connections over them
    tcpBacklog: 65535, // net.core.somaxconn caps it
    ...tls,
    onListen: ({ hostname, port }) => self.postMessage({ listening: `${hostname}:${port}` }),
  }, handle);
}

self.onmessage = ({ data }) => {
  if (data.listen) listen();
  if (data.stop) {
    if (sql === null) self.postMessage({ stopped: true });
    else sql.end({ timeout: 1 }).finally(() => self.postMessage({ stopped: true }));
  }
};
// Loaded (its modules compiled, which takes a while on a fresh DENO_DIR): main.js has every
// isolate listen at once when all are, so none is still compiling when the first answers.
self.postMessage({ loaded: true });
