// Bun.serve with Bun's built-in PostgreSQL client (Bun.SQL) for /users/:id.

import { SQL } from "bun";

// Bun.SQL's own default `max`, written out: docs/contestants.md and the manifest rely on it.
const POOL_SIZE = 10;
const MAX_INT4 = 2147483647n;
const MAX_INT8 = 9223372036854775807n;

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a port number (1-65535), got '${process.env.PORT ?? ""}'`);
  process.exit(2);
}
// Statements are prepared (Bun.SQL's default).
const sql = new SQL({ url: process.env.DATABASE_URL, max: POOL_SIZE });

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

const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
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
  sql.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 3000).unref();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
