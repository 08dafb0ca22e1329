// Deno's own HTTP server, run by `deno serve --parallel` (one isolate per DENO_JOBS), with the
// `postgres` package from the npm registry (installed in the bundled contestants/node_modules) for
// /users/:id. Both imports go through the bundled import map, lib/deno_imports.json (start.sh).

import postgres from "postgres";
import { json, NO_DATABASE, userRoute } from "lib/fetch_users.mjs";

// postgres's own default `max`, written out: docs/contestants.md and the manifest rely on it.
const POOL_SIZE = 10;

// Each isolate of --parallel has its own pool. Statements are prepared (postgres's default).
// Without a database (DATABASE_URL=none: postgres() would refuse it as a URL) there is no pool.
const url = Deno.env.get("DATABASE_URL");
const sql = url === NO_DATABASE ? null : postgres(url, { max: POOL_SIZE });

const user = userRoute(sql);

export default {
  fetch(request) {
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
  },
};

// `deno serve` stops its server on SIGTERM, but the pool's idle connections would keep the
// isolate alive: end the process (every isolate of --parallel) once the server has stopped.
Deno.addSignalListener("SIGTERM", () => {
  if (sql === null) Deno.exit(0);
  sql.end({ timeout: 1 }).finally(() => Deno.exit(0));
});
