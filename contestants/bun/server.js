// Bun.serve with Bun's built-in PostgreSQL client (Bun.SQL) for /users/:id.

import { SQL } from "bun";
import { json, NO_DATABASE, userRoute } from "lib/fetch_users.mjs";

// Bun.SQL's own default `max`, written out: docs/contestants.md and the manifest rely on it.
const POOL_SIZE = 10;

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a port number (1-65535), got '${process.env.PORT ?? ""}'`);
  process.exit(2);
}
// HOST is the harness's {host} (127.0.0.1, or the scenario's server_address); Bun takes IPv6
// literals unbracketed ("::1").
const hostname = process.env.HOST || "127.0.0.1";
// TLS_CERT and TLS_KEY are the harness's {tls_cert} and {tls_key} (PEM files): both given on an
// https start, when Bun.serve listens with TLS, both empty on a plain one.
const certFile = process.env.TLS_CERT || "";
const keyFile = process.env.TLS_KEY || "";
if ((certFile === "") !== (keyFile === "")) {
  console.error("TLS_CERT and TLS_KEY go together: both files for https, neither for http");
  process.exit(2);
}
const tls = certFile === "" ? undefined : { cert: Bun.file(certFile), key: Bun.file(keyFile) };
// Statements are prepared (Bun.SQL's default). Without a database (DATABASE_URL=none) there is
// no pool: /users/:id answers 503.
const sql =
  process.env.DATABASE_URL === NO_DATABASE
    ? null
    : new SQL({ url: process.env.DATABASE_URL, max: POOL_SIZE });

const user = userRoute(sql);

const server = Bun.serve({
  port,
  hostname,
  tls,
  routes: {
    "/": () => new Response("Hello World!", { headers: { "content-type": "text/plain" } }),
    "/json": () => json(200, { message: "Hello, World!" }),
    "/users/:id": (request) => user(request.params.id),
  },
  fetch() {
    return new Response("no route for this path\n", { status: 404 });
  },
});

function stop() {
  server.stop(true);
  (sql === null ? Promise.resolve() : sql.close()).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 3000).unref();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
