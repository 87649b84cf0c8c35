"""A fault-injecting HTTP proxy between muster and the API server.

muster talks plain HTTP to the proxy (its kubeconfig points at http://127.0.0.1:PORT); the proxy
forwards each request over TLS to the API server, except where a fault says otherwise:

  drop_watches_after  seconds after which each watch stream is cut (the connection closed)
  watch_gone          the next N watches are answered with an ERROR event of code 410
  bind_status         a list of statuses (409, 500...) answered to the next binding POSTs
  delay               seconds added before every request is forwarded
  down                while true, every connection is closed at once (no answer at all)

It counts the binding POSTs the server accepted, per pod, so a test can show no pod was bound
twice.
"""

import http.client
import http.server
import json
import socketserver
import ssl
import threading
import time
import urllib.parse


class Faults:
    def __init__(self):
        self.lock = threading.Lock()
        self.drop_watches_after = None
        self.watch_gone = 0
        self.bind_status = []
        self.delay = 0.0
        self.down = False
        # A partition: requests are held unanswered (not refused) while it lasts, then dropped
        # without ever reaching the server. Watches already open keep flowing.
        self.stall = False
        self.bind_requests = []  # time.monotonic() of each binding request received
        self.binds_accepted = {}  # "ns/name" -> count
        self.injected = {"watch_cut": 0, "watch_gone": 0, "bind": 0, "down": 0}


class Proxy:
    def __init__(self, upstream):
        self.upstream = urllib.parse.urlparse(upstream)
        self.faults = Faults()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                proxy.handle(self)

            do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def kubeconfig(self, path, token):
        with open(path, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster: {{server: "{self.url}"}}
users:
- name: admin
  user: {{token: "{token}"}}
contexts:
- name: proxy
  context: {{cluster: proxy, user: admin}}
current-context: proxy
""")
        return path

    def _connect(self):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return http.client.HTTPSConnection(self.upstream.hostname, self.upstream.port,
                                           context=ctx, timeout=700)

    def _reply(self, h, status, body):
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def handle(self, h):
        f = self.faults
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else None
        if h.command == "POST" and h.path.endswith("/binding"):
            with f.lock:
                f.bind_requests.append(time.monotonic())
        with f.lock:
            down = f.down
            delay = f.delay
            stall = f.stall
        if stall:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with f.lock:
                    if not f.stall:
                        break
                time.sleep(0.05)
            h.close_connection = True
            h.connection.close()
            return
        if down:
            with f.lock:
                f.injected["down"] += 1
            h.close_connection = True
            h.connection.close()
            return
        if delay:
            time.sleep(delay)
        query = urllib.parse.parse_qs(urllib.parse.urlparse(h.path).query)
        watch = query.get("watch") == ["1"] or query.get("watch") == ["true"]
        binding = h.command == "POST" and h.path.endswith("/binding")
        if watch:
            with f.lock:
                gone = f.watch_gone > 0
                if gone:
                    f.watch_gone -= 1
                    f.injected["watch_gone"] += 1
            if gone:
                event = {"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1",
                                                     "status": "Failure", "code": 410,
                                                     "reason": "Expired",
                                                     "message": "too old resource version"}}
                data = (json.dumps(event) + "\n").encode()
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Content-Length", str(len(data)))
                h.end_headers()
                h.wfile.write(data)
                return
        if binding:
            with f.lock:
                status = f.bind_status.pop(0) if f.bind_status else None
                if status:
                    f.injected["bind"] += 1
            if status:
                self._reply(h, status, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                        "code": status, "message": "injected by the fault proxy"})
                return
        conn = self._connect()
        headers = {k: v for k, v in h.headers.items()
                   if k.lower() not in ("host", "content-length", "connection",
                                        "accept-encoding")}
        conn.request(h.command, h.path, body=body, headers=headers)
        resp = conn.getresponse()
        if binding and 200 <= resp.status < 300:
            parts = h.path.split("/")  # /api/v1/namespaces/NS/pods/NAME/binding
            key = f"{parts[4]}/{parts[6]}"
            with f.lock:
                f.binds_accepted[key] = f.binds_accepted.get(key, 0) + 1
        if not watch:
            data = resp.read()
            h.send_response(resp.status)
            h.send_header("Content-Type", resp.getheader("Content-Type", "application/json"))
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            conn.close()
            return
        # A watch: relay its lines, chunked, until the server ends it or the fault cuts it.
        h.send_response(resp.status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        with f.lock:
            cut_after = f.drop_watches_after
        cut = threading.Event()

        def cut_now():
            cut.set()
            with f.lock:
                f.injected["watch_cut"] += 1
            for sock in (h.connection, conn.sock):
                try:
                    sock.shutdown(2)  # both ways: muster sees a broken stream
                except OSError:
                    pass

        timer = threading.Timer(cut_after, cut_now) if cut_after is not None else None
        if timer:
            timer.daemon = True
            timer.start()
        try:
            while not cut.is_set():
                line = resp.readline()
                if not line:
                    break
                h.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                h.wfile.flush()
            if not cut.is_set():
                h.wfile.write(b"0\r\n\r\n")
        except (OSError, http.client.HTTPException, ValueError):
            pass
        finally:
            if timer:
                timer.cancel()
            h.close_connection = True
            conn.close()
