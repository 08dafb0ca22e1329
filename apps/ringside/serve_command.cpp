// `ringside serve`: flags, signals and the start-up line around server::Server.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include "cli_support.hpp"
#include "commands.hpp"
#include "core/resolve.hpp"
#include "core/socket.hpp"
#include "db/database_url.hpp"
#include "db/open_database.hpp"
#include "routes/database_routes.hpp"
#include "server/config.hpp"
#include "server/hello_routes.hpp"
#include "server/server.hpp"

namespace ringside::apps {
namespace {

struct DatabaseFlags {
  std::string url;
  db::DatabaseSettings settings;
};

void parse_serve_flags(CLI::App& app, server::ServerConfig& config, DatabaseFlags& database) {
  app.description("Run the ringside HTTP/1.1 and HTTP/2 server.");
  app.add_option("--host", config.host,
                 "IP address to listen on (0.0.0.0, ::1, ...), or a name: resolved once at start, "
                 "the server listens on its first address")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& host) {
            return core::is_ip_literal(host) || core::is_host_name(host)
                       ? std::string()
                       : "not an IP address or a host name: " + host;
          },
          "HOST", "IP address or host name"));
  app.add_option("--port", config.port, "TCP port; 0 picks a free one (printed at start-up)")
      ->capture_default_str()
      ->check(count_in(0, 65535));
  app.add_option(
         "--tls-port", config.tls_port,
         "Also serve HTTPS (TLS 1.2 and 1.3, ALPN h2 and http/1.1) on this port, beside --port's "
         "plain HTTP; 0 picks a free one (printed at start-up). Needs --tls-cert and "
         "--tls-key, or --tls-self-signed")
      ->check(count_in(0, 65535));
  auto* cert = app.add_option("--tls-cert", config.tls_cert,
                              "PEM file: the server's certificate, then any intermediates")
                   ->check(CLI::ExistingFile);
  auto* key = app.add_option("--tls-key", config.tls_key, "PEM file: the certificate's private key")
                  ->check(CLI::ExistingFile);
  app.add_flag("--tls-self-signed", config.tls_self_signed,
               "Make an ECDSA P-256 certificate for localhost, 127.0.0.1 and ::1 at start (its "
               "SHA-256 fingerprint is printed) instead of --tls-cert/--tls-key")
      ->excludes(cert)
      ->excludes(key);
  app.add_flag("--ktls", config.ktls,
               "Kernel TLS: after a TLS 1.3 handshake the kernel encrypts what the connection "
               "sends (one writev, no userspace cipher); receiving stays in OpenSSL. Needs the "
               "kernel's TLS ULP (`modprobe tls`): without it serve says so at start and keeps "
               "TLS in userspace. Needs --tls-port");
  app.add_flag("--no-http2{false}", config.http2,
               "Speak HTTP/1.1 only: no h2c on --port (a client opening with HTTP/2's preface), no "
               "h2 by ALPN on --tls-port");
  app.add_option(
         "--h2-max-streams", config.h2_max_streams,
         "HTTP/2: concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS); more "
         "are refused with REFUSED_STREAM")
      ->capture_default_str()
      ->check(count_in(1, server::kMaxH2Streams));
  app.add_option(
         "--h2-max-header-list", config.h2_max_header_list,
         "HTTP/2: bytes of a request's fields (SETTINGS_MAX_HEADER_LIST_SIZE); more get 431")
      ->capture_default_str()
      ->check(count_in(server::kMinH2HeaderList, server::kMaxH2HeaderList));
  app.add_option("--h2-initial-window", config.h2_initial_window,
                 "HTTP/2: bytes of request body a stream may send before the server opens its "
                 "window further (SETTINGS_INITIAL_WINDOW_SIZE)")
      ->capture_default_str()
      ->check(count_in(1, server::kMaxH2Window));
  app.add_option(
         "--h2-reset-burst", config.h2_reset_burst,
         "HTTP/2: streams that may be reset at once, by the client (RST_STREAM: rapid reset) "
         "or by the server because the client broke a stream's rules (MadeYouReset), before "
         "--h2-reset-rate applies; beyond both the connection ends with GOAWAY "
         "ENHANCE_YOUR_CALM")
      ->capture_default_str()
      ->check(count_in(1, 1'000'000));
  app.add_option("--h2-reset-rate", config.h2_reset_rate,
                 "HTTP/2: streams that may be reset per second after --h2-reset-burst")
      ->capture_default_str()
      ->check(count_in(1, 1'000'000));
  app.add_option_function<std::string>(
         "--h2-codec",
         [&config](const std::string& codec) { config.h2_nghttp2_codec = codec == "nghttp2"; },
         "HTTP/2: the framing, ringside's own or libnghttp2's (to compare against) "
         "[default: ringside]")
      ->check(CLI::IsMember({"ringside", "nghttp2"}));
  app.add_flag("--reuse-port", config.share_port,
               "Share --port with a server already listening on it (SO_REUSEPORT), for a rolling "
               "restart: start the new server, then SIGTERM the old one");
  app.add_option("--threads", config.threads, "Worker threads, one event loop each")
      ->capture_default_str()
      ->check(count_in(1, server::kMaxThreads));
  app.add_option("--max-connections", config.max_connections, "Open connections at most")
      ->capture_default_str()
      ->check(count_in(1, server::kMaxConnections));
  app.add_option("--header-timeout", config.header_timeout_s,
                 "Seconds (or 500ms, 1m, ...) a client has to send a whole request head")
      ->capture_default_str()
      ->transform(duration_to_seconds(server::kMinTimeoutS, server::kMaxHeaderTimeoutS));
  app.add_option("--idle-timeout", config.idle_timeout_s,
                 "Seconds a keep-alive connection may wait for its next request")
      ->capture_default_str()
      ->transform(duration_to_seconds(server::kMinTimeoutS, server::kMaxIdleTimeoutS));
  app.add_option("--drain-timeout", config.drain_timeout_s,
                 "Seconds a graceful shutdown (SIGTERM, SIGINT, SIGHUP) gives requests in flight")
      ->capture_default_str()
      ->transform(duration_to_seconds(0, server::kMaxDrainTimeoutS));
  app.add_option("--max-body", config.max_body, "Largest request body in bytes (k, m, g suffixes)")
      ->capture_default_str()
      ->transform(size_to_bytes(0, server::kMaxBodyLimit));
  app.add_option("--db", database.url,
                 "Database of /users/:id, /db, /queries, /fortunes, /updates: sqlite:PATH or a "
                 "PostgreSQL URL (postgres://...), or none; default sqlite:./ringside.db, created on first use")
      ->check(CLI::Validator(
          [](std::string& text) {
            std::string error;
            return db::parse_database_url(text, error) ? std::string() : error;
          },
          "URL", "database URL"));
  app.add_option("--db-pool", database.settings.pool,
                 "PostgreSQL connections per worker (queries are pipelined on each)")
      ->capture_default_str()
      ->check(count_in(1, db::kMaxPool));
  app.add_option("--db-timeout", database.settings.timeout_s,
                 "Seconds a query may take before its request gets 503")
      ->capture_default_str()
      ->transform(duration_to_seconds(db::kMinDbTimeoutS, db::kMaxDbTimeoutS));
}

// The TLS flags go together: one line naming what is missing, or "".
std::string tls_flags_problem(const server::ServerConfig& config) {
  const bool files = !config.tls_cert.empty() || !config.tls_key.empty();
  if (!config.tls && (files || config.tls_self_signed)) {
    return std::string(config.tls_self_signed ? "--tls-self-signed" : "--tls-cert/--tls-key") +
           " needs --tls-port: the port the HTTPS listener takes (0 picks a free one)";
  }
  if (config.ktls && !config.tls) {
    return "--ktls needs --tls-port: kernel TLS is for the HTTPS listener's connections";
  }
  if (config.tls && !config.tls_self_signed && config.tls_cert.empty()) {
    return "--tls-port needs --tls-cert FILE and --tls-key FILE (PEM), or --tls-self-signed";
  }
  if (config.tls && !config.tls_self_signed && config.tls_key.empty()) {
    return "--tls-cert needs --tls-key FILE: the certificate's private key (PEM)";
  }
  return "";
}

// "--host api.internal: 127.0.0.1 of 127.0.0.1, ::1; " for the start-up line.
std::string describe_host(const std::string& name, const core::Resolution& resolution) {
  std::string text = "--host " + name + ": " + core::address_text(resolution.addresses.front());
  if (resolution.addresses.size() > 1) {
    text += " of ";
    for (std::size_t i = 0; i < resolution.addresses.size(); ++i) {
      text += (i == 0 ? "" : ", ") + core::address_text(resolution.addresses[i]);
    }
  }
  return text + "; ";
}

// Waits for SIGINT, SIGTERM or SIGHUP: the first drains, a second one stops at once.
void wait_for_signals(server::Server& server, const sigset_t& signals) {
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::fprintf(stderr, "ringside serve: %s, draining (up to %gs; signal again to stop now)\n",
               strsignal(signal_number), server.config().drain_timeout_s);
  server.stop(false);
  timespec tick{0, 50'000'000};
  while (!server.finished()) {
    if (sigtimedwait(&signals, nullptr, &tick) > 0) server.stop(true);
  }
}

}  // namespace

int run_serve(int argc, char** argv) {
  server::ServerConfig config;
  DatabaseFlags database;
  CLI::App app("ringside serve", "ringside serve");
  parse_serve_flags(app, config, database);
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;
  config.tls = app.count("--tls-port") > 0;
  if (std::string problem = tls_flags_problem(config); !problem.empty()) {
    std::fprintf(stderr, "ringside serve: %s\n", problem.c_str());
    return 2;
  }
  std::string url_error;
  database.settings.target = *db::parse_database_url(database.url, url_error);  // checked above

  // A name: the first of its addresses, in the resolver's order, like most servers given a name
  // (Go's net.Listen, Node's listen): one listener per worker, and the line below says which.
  std::string host_name;
  if (!core::is_ip_literal(config.host)) {
    core::Resolution resolution = core::resolve_host(config.host, config.port);
    if (!resolution.error.empty()) {
      std::fprintf(stderr, "ringside serve: --host: %s\n", resolution.error.c_str());
      return 2;
    }
    host_name = describe_host(config.host, resolution);
    config.host = core::address_text(resolution.addresses.front());
  }

  const sigset_t signals = take_shutdown_signals();

  std::uint64_t file_limit = core::raise_open_file_limit();
  if (file_limit != 0 && config.max_connections + 64 > file_limit) {
    std::fprintf(stderr,
                 "ringside serve: warning: --max-connections %zu exceeds the open-file limit %llu; "
                 "raise it with 'ulimit -n' or lower --max-connections\n",
                 config.max_connections, static_cast<unsigned long long>(file_limit));
  }

  // The database file must be usable before anything listens: a bad one is the user's to fix.
  try {
    db::prepare_database(database.settings);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ringside serve: --db: %s\n", error.what());
    return 2;
  }

  server::Router router;
  server::add_hello_routes(router);
  routes::add_database_routes(router);
  auto make_worker_database = [&database](core::EventLoop& loop, unsigned worker_index)
      -> std::unique_ptr<server::WorkerExtension> {
    std::unique_ptr<db::Database> worker_database = db::open_database(database.settings, loop);
    if (!worker_database) return nullptr;  // --db none: the database routes answer 503
    return std::make_unique<routes::DatabaseWorker>(std::move(worker_database), worker_index);
  };
  try {
    server::Server server(config, std::move(router), make_worker_database);
    server.start();
    std::printf("ringside serve: listening on http://%s (%s%u threads, max %zu connections, db %s)\n",
                core::host_port(config.host, server.port()).c_str(), host_name.c_str(), config.threads,
                config.max_connections, db::describe(database.settings.target).c_str());
    if (const core::TlsContext* tls = server.tls()) {
      std::printf("ringside serve: listening on https://%s (TLS 1.2 and 1.3, %s certificate%s, "
                  "SHA-256 fingerprint %s)\n",
                  core::host_port(config.host, server.tls_port()).c_str(),
                  tls->key_description().c_str(), config.tls_self_signed ? " made at start" : "",
                  tls->fingerprint().c_str());
      if (config.ktls && server.ktls_unavailable().empty()) {
        std::printf("ringside serve: --ktls: on: the kernel encrypts what TLS 1.3 connections "
                    "send (TLS 1.2 stays in userspace)\n");
      } else if (config.ktls) {
        std::printf("ringside serve: --ktls: off: %s; TLS stays in userspace\n",
                    server.ktls_unavailable().c_str());
      }
    }
    if (config.http2) {
      std::printf(
          "ringside serve: HTTP/2: h2c with prior knowledge on --port%s, up to %u streams "
          "per connection (--no-http2 turns it off)\n",
          config.tls ? ", h2 by ALPN on --tls-port" : "", config.h2_max_streams);
    }
    std::fflush(stdout);
    wait_for_signals(server, signals);
    server.wait();
    if (config.ktls && server.ktls_unavailable().empty()) {
      std::fprintf(stderr, "ringside serve: --ktls: the kernel sent for %llu TLS connections, "
                   "userspace for %llu (TLS 1.2, a cipher the kernel lacks, or refused)\n",
                   static_cast<unsigned long long>(server.tls()->kernel_tls_connections()),
                   static_cast<unsigned long long>(server.tls()->userspace_tls_connections()));
    }
  } catch (const std::system_error& error) {
    std::fprintf(stderr, "ringside serve: %s\n", error.what());
    return 1;
  } catch (const std::invalid_argument& error) {  // the certificate or key cannot be used
    std::fprintf(stderr, "ringside serve: %s\n", error.what());
    return 2;
  } catch (const std::runtime_error& error) {  // a worker's database would not open
    std::fprintf(stderr, "ringside serve: --db: %s\n", error.what());
    return 2;
  }
  std::fprintf(stderr, "ringside serve: stopped\n");
  return 0;
}

}  // namespace ringside::apps
