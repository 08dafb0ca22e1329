"""A small HTTP/2 client over a plain socket, for tests that need to see frames: Debian's
python3-h2 for the protocol, with every wait bounded. `raw` sends bytes h2 would never write."""
import socket
import time

import h2.config
import h2.connection
import h2.events
import h2.settings


class Stream:
    def __init__(self):
        self.headers = {}
        self.body = b""
        self.ended = False
        self.reset = None  # the RST_STREAM error code, when the server reset it


class H2Client:
    def __init__(self, port, host="127.0.0.1", timeout=10.0, send_preface=True):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.conn = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.streams = {}
        self.remote_settings = {}
        self.goaway = None  # (error code, last stream id)
        self.closed = False
        if send_preface:
            self.conn.initiate_connection()
            self.flush()

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.closed:
            try:
                self.sock.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                self.closed = True  # what the server said before it closed is still to be read

    def raw(self, data):
        self.sock.sendall(data)

    def request(self, path, method="GET", headers=(), body=None, authority="test", flush=True):
        stream_id = self.conn.get_next_available_stream_id()
        fields = [(":method", method), (":scheme", "http"), (":authority", authority),
                  (":path", path), *headers]
        self.conn.send_headers(stream_id, fields, end_stream=body is None)
        if body is not None:
            self.conn.send_data(stream_id, body, end_stream=True)
        self.streams[stream_id] = Stream()
        if flush:
            self.flush()
        return stream_id

    def pump(self):
        """Reads once and handles what came; False once the server closed."""
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            self.closed = True
            return False
        if self.goaway is not None:
            return True  # after GOAWAY h2 takes nothing more; read on until the close
        for event in self.conn.receive_data(data):
            self._handle(event)
        self.flush()
        return True

    def _handle(self, event):
        if isinstance(event, h2.events.ResponseReceived):
            self.streams[event.stream_id].headers = dict(event.headers)
        elif isinstance(event, h2.events.DataReceived):
            self.streams[event.stream_id].body += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            self.streams[event.stream_id].ended = True
        elif isinstance(event, h2.events.StreamReset):
            if event.stream_id in self.streams:
                self.streams[event.stream_id].reset = event.error_code
        elif isinstance(event, h2.events.RemoteSettingsChanged):
            for key, change in event.changed_settings.items():
                self.remote_settings[key] = change.new_value
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.goaway = (event.error_code, event.last_stream_id)

    def wait(self, predicate, what):
        deadline = time.monotonic() + self.timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {self.timeout}s")
            if not self.pump() and not predicate():
                raise AssertionError(f"the server closed before {what}")

    def done(self, stream_id):
        stream = self.streams[stream_id]
        return stream.ended or stream.reset is not None

    def get(self, path, **kwargs):
        stream_id = self.request(path, **kwargs)
        self.wait(lambda: self.done(stream_id), f"answer to {path}")
        return self.streams[stream_id]

    def wait_closed(self):
        """Reads until the server closes the connection (bounded)."""
        self.wait(lambda: self.closed, "close")
