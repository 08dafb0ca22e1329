// /users/:id for the contestants whose runtime answers with web Responses (Deno, Bun) and whose
// PostgreSQL client takes tagged templates (postgres.js, Bun.SQL): the id rule, the query and the
// answers that lib/users.js gives the Node servers, so each server file shows only its runtime.

const MAX_INT4 = 2147483647n;
const MAX_INT8 = 9223372036854775807n;

export function json(status, body) {
  return Response.json(body, { status });
}

// A positive decimal integer that fits in 63 bits: no sign, no leading zero. null otherwise.
function parseUserId(text) {
  if (!/^[1-9][0-9]{0,18}$/.test(text)) return null;
  const id = BigInt(text);
  return id <= MAX_INT8 ? id : null;
}

// The harness's {db_url} when a scenario has no database (database = "none"): the server runs
// its other routes, and /users/:id answers 503, as `ringside serve --db none` does.
export const NO_DATABASE = "none";

// The handler of /users/:id over `sql` (prepared statements are both clients' default); `sql`
// null: no database, a 503 for every id.
export function userRoute(sql) {
  return async function user(text) {
    const id = parseUserId(text);
    if (id === null) return json(400, { error: "the user id must be a positive integer" });
    const notFound = () => json(404, { error: `no user with id ${id}` });
    // users.id is an integer column: a larger id has no row (and PostgreSQL would refuse it).
    if (id > MAX_INT4) return notFound();
    if (sql === null) return json(503, { error: "no database (started with DATABASE_URL=none)" });
    try {
      const rows = await sql`SELECT id, name, email,
        to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at
        FROM users WHERE id = ${Number(id)}`;
      return rows.length === 0 ? notFound() : json(200, rows[0]);
    } catch (error) {
      console.error(`database: ${error.message}`);
      return json(500, { error: "database error" });
    }
  };
}
