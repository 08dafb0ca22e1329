'use strict';
// What every Node.js contestant shares for /users/:id, so that each server file shows only its
// framework: the id rule, the query, and pg's pool at a fixed, documented size.

const { isIP } = require('node:net');
const { Pool } = require('pg');

// pg's own default `max`, written out: docs/contestants.md and the manifests rely on it.
const POOL_SIZE = 10;
// The listen backlog every Node contestant passes (net.core.somaxconn caps it). Node's default,
// 511, overflowed in a seed at 10,000 connections.
const BACKLOG = 65535;

const USER_SQL =
  'SELECT id, name, email, ' +
  `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at ` +
  'FROM users WHERE id = $1';
const MAX_INT4 = 2147483647n;
const MAX_INT8 = 9223372036854775807n;

// A positive decimal integer that fits in 63 bits: no sign, no leading zero. null otherwise.
function parseUserId(text) {
  if (!/^[1-9][0-9]{0,18}$/.test(text)) return null;
  const id = BigInt(text);
  return id <= MAX_INT8 ? id : null;
}

// The harness's {db_url} when a scenario has no database (database = "none"): the server runs
// its other routes, and /users/:id answers 503, as `ringside serve --db none` does.
const NO_DATABASE = 'none';

function createUsers(url = process.env.DATABASE_URL) {
  const pool = url === NO_DATABASE ? null : new Pool({ connectionString: url, max: POOL_SIZE });
  // An idle client's connection dying must not take the server down; the next query reconnects.
  if (pool) pool.on('error', (error) => console.error(`database: ${error.message}`));

  // Resolves to { status, body } with body an object for the framework to serialise.
  async function find(text) {
    const id = parseUserId(text);
    if (id === null) {
      return { status: 400, body: { error: 'the user id must be a positive integer' } };
    }
    const notFound = { status: 404, body: { error: `no user with id ${id}` } };
    // users.id is an integer column: a larger id has no row (and PostgreSQL would refuse it).
    if (id > MAX_INT4) return notFound;
    if (!pool) return { status: 503, body: { error: 'no database (started with DATABASE_URL=none)' } };
    try {
      // A named query is prepared once per pooled connection, then only executed.
      const result = await pool.query({ name: 'user-by-id', text: USER_SQL, values: [id.toString()] });
      return result.rows.length === 0 ? notFound : { status: 200, body: result.rows[0] };
    } catch (error) {
      console.error(`database: ${error.message}`);
      return { status: 500, body: { error: 'database error' } };
    }
  }

  return { find, end: () => (pool ? pool.end() : Promise.resolve()) };
}

// Stops on SIGTERM/SIGINT: `close` stops accepting and ends idle keep-alive connections; a
// connection still busy after the grace is cut by the exit.
function stopOn(close, graceMs = 3000) {
  const stop = () => {
    setTimeout(() => process.exit(0), graceMs).unref();
    Promise.resolve()
      .then(close)
      .then(() => process.exit(0), () => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function portFromEnv() {
  const port = Number(process.env.PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`PORT must be a port number (1-65535), got '${process.env.PORT ?? ''}'`);
    process.exit(2);
  }
  return port;
}

// The address to listen on: HOST (the harness's {host}: 127.0.0.1, or the scenario's
// server_address when the load comes from other machines), 127.0.0.1 when unset.
function hostFromEnv() {
  const host = process.env.HOST || '127.0.0.1';
  if (isIP(host) === 0) {
    console.error(`HOST must be an IP address (127.0.0.1, ::1, 10.0.0.10), got '${host}'`);
    process.exit(2);
  }
  return host;
}

module.exports = {
  BACKLOG, POOL_SIZE, USER_SQL, createUsers, hostFromEnv, parseUserId, portFromEnv, stopOn,
};
