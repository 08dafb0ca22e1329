// Deno's own HTTP server, run by `deno serve --parallel` (one isolate per DENO_JOBS), with the
// `postgres` package from the npm registry (installed in ../node_modules) for /users/:id.

import postgres from "postgres";

// postgres's own default `max`, written out: docs/contestants.md and the manifest rely on it.
const POOL_SIZE = 10;
const MAX_INT4 = 2147483647n;
const MAX_INT8 = 9223372036854775807n;

// Each isolate of --parallel has its own pool. Statements are prepared (postgres's default).
const sql = postgres(Deno.env.get("DATABASE_URL"), { max: POOL_SIZE });

function json(status, body) {
  return Response.json(body, { status });
}

// A positive decimal integer that fits in 63 bits: no sign, no leading zero. null otherwise.
function parseUserId(text) {
  if (!/^[1-9][0-9]{0,18}$/.test(text)) return null;
  const id = BigInt(text);
  return id <= MAX_INT8 ? id : null;
}

async function user(text) {
  const id = parseUserId(text);
  if (id === null) return json(400, { error: "the user id must be a positive integer" });
  const notFound = () => json(404, { error: `no user with id ${id}` });
  // users.id is an integer column: a larger id has no row (and PostgreSQL would refuse it).
  if (id > MAX_INT4) return notFound();
  try {
    const rows = await sql`SELECT id, name, email,
      to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at
      FROM users WHERE id = ${Number(id)}`;
    return rows.length === 0 ? notFound() : json(200, rows[0]);
  } catch (error) {
    console.error(`database: ${error.message}`);
    return json(500, { error: "database error" });
  }
}

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
  sql.end({ timeout: 1 }).finally(() => Deno.exit(0));
});
