//! ringside contestant: hyper 0.14 (HTTP/1.1, and HTTP/2 over TLS) on tokio's multi-thread runtime, with a fixed set
//! of tokio-postgres connections for /users/:id.
//!
//! Usage: rust-hyper --port N --threads N --db URL [--pool N] [--tls-cert PEM --tls-key PEM]
//!
//! `--db none` (the harness's {db_url} when a scenario has no database): no connections; `/` and
//! `/json` are served, and /users/:id answers 503, as `ringside serve --db none` does.
//!
//! `--tls-cert` and `--tls-key` (the harness's {tls_cert} and {tls_key}: both files on an https
//! start, both empty on a plain one): TLS 1.2 and 1.3 with rustls, ALPN h2 then http/1.1 (hyper's
//! HTTP/2 on Debian's h2 crate for a client that agrees on h2), sessions resumed from its cache or
//! from tickets.

use std::convert::Infallible;
use std::fs::File;
use std::io::BufReader;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::Http;
use hyper::service::service_fn;
use hyper::{Body, Method, Request, Response, StatusCode};
use serde::Serialize;
use tokio::net::TcpSocket;
use tokio::signal::unix::{signal, SignalKind};
use tokio_postgres::{Client, NoTls, Statement};
use tokio_rustls::rustls::{self, Certificate, PrivateKey, ServerConfig};
use tokio_rustls::TlsAcceptor;

const USER_SQL: &str = "SELECT id, name, email, \
     to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') \
     FROM users WHERE id = $1";
// net.core.somaxconn caps it; tokio's default (1024) overflows under a 10,000-connection burst.
const LISTEN_BACKLOG: u32 = 65535;
const DEFAULT_POOL: usize = 10;
const NO_DATABASE: &str = "none";

struct Options {
    host: IpAddr,
    port: u16,
    threads: usize,
    db: String,
    pool: usize,
    tls_cert: String,
    tls_key: String,
}

fn usage_error(message: &str) -> ! {
    eprintln!(
        "rust-hyper: {message} \
         (usage: rust-hyper [--host IP] --port N --threads N --db URL|none [--pool N] \
         [--tls-cert PEM --tls-key PEM])"
    );
    std::process::exit(2);
}

fn number<T: std::str::FromStr>(flag: &str, text: &str, min: T) -> T
where
    T: PartialOrd,
{
    match text.parse::<T>() {
        Ok(n) if n >= min => n,
        _ => usage_error(&format!("{flag} wants a positive integer, got '{text}'")),
    }
}

fn parse_options() -> Options {
    let mut options = Options {
        host: IpAddr::from([127, 0, 0, 1]),
        port: 0,
        threads: 1,
        db: String::new(),
        pool: DEFAULT_POOL,
        tls_cert: String::new(),
        tls_key: String::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| usage_error(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--host" => {
                options.host = value.parse().unwrap_or_else(|_| {
                    usage_error(&format!("--host wants an IPv4 or IPv6 address, got '{value}'"))
                })
            }
            "--port" => options.port = number("--port", &value, 1),
            "--threads" => options.threads = number("--threads", &value, 1),
            "--db" => options.db = value,
            "--pool" => options.pool = number("--pool", &value, 1),
            "--tls-cert" => options.tls_cert = value,
            "--tls-key" => options.tls_key = value,
            _ => usage_error(&format!("unknown flag {flag}")),
        }
    }
    if options.port == 0 || options.db.is_empty() {
        usage_error("--port and --db are required");
    }
    if options.tls_cert.is_empty() != options.tls_key.is_empty() {
        usage_error("--tls-cert and --tls-key go together (both empty: plain HTTP)");
    }
    options
}

/// The acceptor of an https start: the certificate chain and key from PEM files, TLS 1.2 and 1.3
/// (rustls' safe defaults), ALPN h2 and http/1.1, and both ways to resume a session: rustls' in-memory
/// cache (its default) and tickets (off by default; on, as a production server has them).
fn tls_acceptor(cert: &str, key: &str) -> Result<TlsAcceptor, Box<dyn std::error::Error>> {
    let certs = rustls_pemfile::certs(&mut BufReader::new(File::open(cert)?))?
        .into_iter()
        .map(Certificate)
        .collect::<Vec<_>>();
    let mut keys = rustls_pemfile::pkcs8_private_keys(&mut BufReader::new(File::open(key)?))?;
    if keys.is_empty() {
        keys = rustls_pemfile::rsa_private_keys(&mut BufReader::new(File::open(key)?))?;
    }
    let key = keys.pop().ok_or_else(|| format!("no private key in {key}"))?;
    let mut config = ServerConfig::builder()
        .with_safe_defaults()
        .with_no_client_auth()
        .with_single_cert(certs, PrivateKey(key))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    config.ticketer = rustls::Ticketer::new()?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// tokio-postgres has no pool of its own: a client pipelines the queries of many tasks over one
/// connection, so a fixed set of clients, each with the statement prepared, taken in turn, is one.
struct Database {
    clients: Vec<(Client, Statement)>,
    next: AtomicUsize,
}

impl Database {
    async fn connect(url: &str, size: usize) -> Result<Database, tokio_postgres::Error> {
        let mut clients = Vec::with_capacity(size);
        for _ in 0..size {
            let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
            tokio::spawn(async move {
                if let Err(error) = connection.await {
                    eprintln!("rust-hyper: database connection ended: {error}");
                }
            });
            let statement = client.prepare(USER_SQL).await?;
            clients.push((client, statement));
        }
        Ok(Database { clients, next: AtomicUsize::new(0) })
    }

    fn pick(&self) -> &(Client, Statement) {
        &self.clients[self.next.fetch_add(1, Ordering::Relaxed) % self.clients.len()]
    }
}

#[derive(Serialize)]
struct Message {
    message: &'static str,
}

#[derive(Serialize)]
struct User {
    id: i32,
    name: String,
    email: String,
    created_at: String,
}

fn reply(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response<Body> {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn json_error(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({ "error": message }).to_string() + "\n";
    reply(status, "application/json", body)
}

/// A positive decimal integer that fits in 63 bits: no sign, no leading zero.
fn parse_user_id(text: &str) -> Option<i64> {
    if text.is_empty() || text.len() > 19 || text.starts_with('0') {
        return None;
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i64>().ok()
}

async fn user(db: Option<&Database>, text: &str) -> Response<Body> {
    let id = match parse_user_id(text) {
        Some(id) => id,
        None => return json_error(StatusCode::BAD_REQUEST, "the user id must be a positive integer"),
    };
    let not_found = || json_error(StatusCode::NOT_FOUND, &format!("no user with id {id}"));
    // users.id is an integer column: a larger id has no row (and PostgreSQL would refuse it).
    let id32 = match i32::try_from(id) {
        Ok(id32) => id32,
        Err(_) => return not_found(),
    };
    let db = match db {
        Some(db) => db,
        None => {
            return json_error(StatusCode::SERVICE_UNAVAILABLE, "no database (started with --db none)")
        }
    };
    let (client, statement) = db.pick();
    match client.query_opt(statement, &[&id32]).await {
        Ok(Some(row)) => {
            let user = User { id: row.get(0), name: row.get(1), email: row.get(2), created_at: row.get(3) };
            reply(StatusCode::OK, "application/json", serde_json::to_vec(&user).unwrap())
        }
        Ok(None) => not_found(),
        Err(error) => {
            eprintln!("rust-hyper: query failed: {error}");
            json_error(StatusCode::INTERNAL_SERVER_ERROR, "database error")
        }
    }
}

async fn route(
    request: Request<Body>,
    db: Arc<Option<Database>>,
) -> Result<Response<Body>, Infallible> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return Ok(reply(StatusCode::METHOD_NOT_ALLOWED, "text/plain", "method not allowed\n"));
    }
    let path = request.uri().path();
    Ok(match path {
        "/" => reply(StatusCode::OK, "text/plain", "Hello World!"),
        "/json" => {
            let body = serde_json::to_vec(&Message { message: "Hello, World!" }).unwrap();
            reply(StatusCode::OK, "application/json", body)
        }
        _ => match path.strip_prefix("/users/") {
            Some(id) => user(db.as_ref().as_ref(), id).await,
            None => reply(StatusCode::NOT_FOUND, "text/plain", "no route for this path\n"),
        },
    })
}

async fn serve(options: Options) -> Result<(), Box<dyn std::error::Error>> {
    let db = Arc::new(if options.db == NO_DATABASE {
        None
    } else {
        Some(Database::connect(&options.db, options.pool).await?)
    });
    let tls = if options.tls_cert.is_empty() {
        None
    } else {
        Some(tls_acceptor(&options.tls_cert, &options.tls_key)?)
    };
    let address = SocketAddr::new(options.host, options.port);
    let socket = if address.is_ipv6() { TcpSocket::new_v6()? } else { TcpSocket::new_v4()? };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    let listener = socket.listen(LISTEN_BACKLOG)?;
    let mut http = Http::new();
    http.http1_only(true).http1_keep_alive(true);
    // A TLS connection that agreed on h2 by ALPN.
    let mut http2 = Http::new();
    http2.http2_only(true);
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(error) => {
                        // Out of descriptors, say: back off rather than spin.
                        eprintln!("rust-hyper: accept: {error}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let http = http.clone();
                let http2 = http2.clone();
                let db = db.clone();
                let tls = tls.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request| route(request, db.clone()));
                    match tls {
                        // A client that fails its handshake is its own problem: drop it.
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(stream).await {
                                if stream.get_ref().1.alpn_protocol() == Some(b"h2".as_slice()) {
                                    let _ = http2.serve_connection(stream, service).await;
                                } else {
                                    let _ = http.serve_connection(stream, service).await;
                                }
                            }
                        }
                        None => {
                            let _ = http.serve_connection(stream, service).await;
                        }
                    }
                });
            }
            _ = terminate.recv() => break,
            _ = interrupt.recv() => break,
        }
    }
    Ok(())
}

fn main() {
    let options = parse_options();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(options.threads)
        .enable_all()
        .build()
        .expect("tokio runtime");
    if let Err(error) = runtime.block_on(serve(options)) {
        eprintln!("rust-hyper: {error}");
        std::process::exit(1);
    }
    // Connections still open are dropped with the runtime.
    runtime.shutdown_timeout(Duration::from_secs(1));
}
