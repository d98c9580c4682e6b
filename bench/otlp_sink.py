"""A stand-in OTLP/HTTP collector for bench/telemetry.sh: accepts every
POST to /v1/traces and /v1/metrics with 200 and an empty protobuf body, and
counts requests and bytes (printed on SIGTERM). It decodes nothing: the
benchmark measures what export costs tusk, not what a collector does."""
import http.server
import signal
import sys

stats = {"requests": 0, "bytes": 0}


class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        self.rfile.read(n)
        stats["requests"] += 1
        stats["bytes"] += n
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def done(*_):
    print(f"sink: {stats['requests']} requests, {stats['bytes']} bytes", file=sys.stderr)
    sys.exit(0)


signal.signal(signal.SIGTERM, done)
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink)
server.serve_forever()
