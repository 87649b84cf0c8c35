#!/usr/bin/env python3
"""A GPU-sharing scheduler extender, as seed 001 describes one: a webhook kube-scheduler (or
muster) calls to filter, prioritize and bind pods that ask for GPU memory.

Nodes advertise their GPU memory as the extended resource example.com/gpu-mem (in GiB). The
scheduler configuration marks it ignoredByScheduler, so NodeResourcesFit leaves it alone and this
extender decides: it remembers what it bound where, turns away nodes without enough free GPU
memory, and binpacks (the fullest node that still fits scores highest). With --server it binds
through the API server as kube-scheduler's extenders do (POST pods/binding); without, it only
records the binding (muster simulate applies it to its in-memory cluster).

Standard library only:
    python3 examples/extender/gpushare.py --port 8888
    muster simulate -f examples/extender/cluster.yaml --config examples/extender/scheduler.yaml

The wire format is k8s.io/kube-scheduler/extender/v1, whose structs have no json tags: the
fields go by their Go names. ExtenderArgs in ({"Pod": ..., "Nodes": {"items": [...]}}: full
nodes, as nodeCacheCapable is false), ExtenderFilterResult ("Nodes", "FailedNodes",
"FailedAndUnresolvableNodes"), a HostPriorityList ("Host", "Score") and an ExtenderBindingResult
("Error") out.
"""

import argparse
import json
import ssl
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RESOURCE = "example.com/gpu-mem"
MAX_PRIORITY = 10  # extenderv1.MaxExtenderPriority


def quantity(text):
    """A whole-number quantity ("16", "16Gi" read as 16): GPU memory is counted in GiB."""
    text = str(text)
    for suffix in ("Gi", "G"):
        if text.endswith(suffix):
            text = text[: -len(suffix)]
    return int(text)


def gpu_request(pod):
    """The GPU memory a pod asks for: its containers' requests (or limits), as the scheduler sums
    them, and the largest init container's when that is more."""
    def of(container):
        resources = container.get("resources") or {}
        value = (resources.get("requests") or {}).get(RESOURCE)
        if value is None:
            value = (resources.get("limits") or {}).get(RESOURCE)
        return quantity(value) if value is not None else 0

    spec = pod.get("spec") or {}
    app = sum(of(c) for c in spec.get("containers") or [])
    init = max([of(c) for c in spec.get("initContainers") or []] or [0])
    return max(app, init)


def pod_key(pod):
    meta = pod["metadata"]
    return meta.get("uid") or f'{meta.get("namespace", "default")}/{meta["name"]}'


class GpuShare:
    def __init__(self, server=None, token=None, insecure=False):
        self.lock = threading.Lock()
        self.capacity = {}  # node -> GiB, from the nodes the scheduler sends
        self.bound = {}     # pod UID (or namespace/name) -> (node, GiB)
        self.pending = {}   # pod -> GiB asked for at its last filter, until its bind
        self.server, self.token, self.insecure = server, token, insecure

    def used(self, node):
        return sum(gib for n, gib in self.bound.values() if n == node)

    def learn(self, args):
        names = []
        for node in ((args.get("Nodes") or {}).get("items") or []):
            name = node["metadata"]["name"]
            status = node.get("status") or {}
            amount = (status.get("allocatable") or status.get("capacity") or {}).get(RESOURCE, "0")
            self.capacity[name] = quantity(amount)
            names.append(name)
        return names

    def filter(self, args):
        with self.lock:
            self.learn(args)
            need = gpu_request(args["Pod"])
            self.pending[pod_key(args["Pod"])] = need
            kept, failed, unresolvable = [], {}, {}
            for node in (args.get("Nodes") or {}).get("items") or []:
                name = node["metadata"]["name"]
                capacity = self.capacity.get(name, 0)
                if capacity == 0:
                    unresolvable[name] = "gpushare: node has no GPU"
                elif capacity - self.used(name) < need:
                    failed[name] = "gpushare: node has no GPU memory"
                else:
                    kept.append(node)
            return {"Nodes": {"items": kept}, "FailedNodes": failed,
                    "FailedAndUnresolvableNodes": unresolvable}

    def prioritize(self, args):
        with self.lock:
            names = self.learn(args)
            need = gpu_request(args["Pod"])
            scores = []
            for name in names:
                capacity = self.capacity.get(name, 0)
                after = self.used(name) + need
                score = MAX_PRIORITY * after // capacity if 0 < capacity and after <= capacity else 0
                scores.append({"Host": name, "Score": score})
            return scores

    def bind(self, args):
        namespace, name, node = args["PodNamespace"], args["PodName"], args["Node"]
        key = args.get("PodUID") or f"{namespace}/{name}"
        if self.server:
            binding = {"apiVersion": "v1", "kind": "Binding",
                       "metadata": {"name": name, "namespace": namespace,
                                    "uid": args.get("PodUID", "")},
                       "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
            path = f"/api/v1/namespaces/{namespace}/pods/{name}/binding"
            req = urllib.request.Request(self.server + path, data=json.dumps(binding).encode(),
                                         method="POST")
            req.add_header("Content-Type", "application/json")
            if self.token:
                req.add_header("Authorization", "Bearer " + self.token)
            context = ssl._create_unverified_context() if self.insecure else None
            try:
                urllib.request.urlopen(req, context=context, timeout=10).read()
            except urllib.error.HTTPError as e:
                return {"Error": f"binding {namespace}/{name}: "
                                 f"{e.code} {e.read().decode(errors='replace')}"}
            except OSError as e:
                return {"Error": f"binding {namespace}/{name}: {e}"}
        with self.lock:
            self.bound[key] = (node, self.pending.pop(key, 0))
        return {}


class Handler(BaseHTTPRequestHandler):
    share = None

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        verb = self.path.rstrip("/").rsplit("/", 1)[-1]
        args = json.loads(body or b"{}")
        if verb == "filter":
            answer = self.share.filter(args)
        elif verb == "prioritize":
            answer = self.share.prioritize(args)
        elif verb == "bind":
            answer = self.share.bind(args)
        else:
            self.send_error(404, f"no verb {verb}")
            return
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        """GET .../state: what the extender bound where (pod -> [node, GiB])."""
        if not self.path.rstrip("/").endswith("/state"):
            self.send_error(404)
            return
        with self.share.lock:
            data = json.dumps({"bound": self.share.bound}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8888, help="0 picks a free port")
    parser.add_argument("--server", help="the API server to bind through (muster run)")
    parser.add_argument("--token", help="a bearer token for --server")
    parser.add_argument("--insecure", action="store_true",
                        help="do not check --server's certificate")
    options = parser.parse_args()
    Handler.share = GpuShare(options.server, options.token, options.insecure)
    httpd = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    print(f"gpushare listening on 127.0.0.1:{httpd.server_address[1]}", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
