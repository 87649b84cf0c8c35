"""Helpers for muster's end-to-end tests against a real kube-apiserver (../shared/k8s).

Standard library only. Waiting is polling for a condition with a deadline: these tests talk to
real processes, so there is no virtual clock to drive.
"""

import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import faultproxy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77  # ctest's SKIP_RETURN_CODE


def k8s_dir():
    for d in (os.environ.get("MUSTER_K8S_DIR"), os.path.join(REPO, "..", "shared", "k8s"),
              "/work/shared/k8s"):
        if d and os.path.exists(os.path.join(d, "start-apiserver.sh")):
            return os.path.abspath(d)
    return None


def wait_until(what, predicate, timeout=30.0, interval=0.1):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


class ApiServer:
    """etcd and kube-apiserver on loopback, for the life of a `with` block (at most max_seconds:
    start-apiserver.sh stops them then)."""

    def __init__(self, max_seconds=900, keep_alive=False, extra_args=()):
        """extra_args: more kube-apiserver flags (an audit log's)."""
        self.max_seconds = max_seconds
        self.keep_alive = keep_alive
        self.extra_args = extra_args

    def __enter__(self):
        d = k8s_dir()
        if d is None:
            print("SKIP: no ../shared/k8s/start-apiserver.sh (set MUSTER_K8S_DIR)")
            sys.exit(SKIP)
        self.out = tempfile.NamedTemporaryFile("w+", suffix=".apiserver.log", delete=False)
        env = dict(os.environ)
        if self.extra_args:
            env["APISERVER_EXTRA_ARGS"] = " ".join(self.extra_args)
        self.proc = subprocess.Popen([os.path.join(d, "start-apiserver.sh"), str(self.max_seconds)],
                                     stdout=self.out, stderr=subprocess.STDOUT,
                                     start_new_session=True, env=env)
        values = {}

        def ready():
            if self.proc.poll() is not None:
                raise AssertionError("start-apiserver.sh exited:\n" + open(self.out.name).read())
            text = open(self.out.name).read()
            for line in text.splitlines():
                if "=" in line and not line.startswith("["):
                    k, _, v = line.partition("=")
                    values[k] = v
            return "READY" in text.splitlines()

        wait_until("the API server", ready, timeout=120)
        self.kubeconfig = values["KUBECONFIG"]
        self.url = values["APISERVER_URL"]
        self.token = values["TOKEN"]
        self.client = Client(self.url, self.token, keep_alive=self.keep_alive)
        self.client.apply_file(os.path.join(REPO, "deploy", "crd-podgroups.yaml"))
        wait_until("the PodGroup API",
                   lambda: self.client.get("/apis/scheduling.x-k8s.io/v1alpha1")[0] == 200)
        return self

    def __exit__(self, *exc):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)
        os.unlink(self.out.name)


class Client:
    """keep_alive: one connection per thread, reused (a benchmark creating thousands of objects);
    otherwise one per request."""

    def __init__(self, url, token, keep_alive=False):
        self.url = url
        self.token = token
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE
        self.keep_alive = keep_alive
        self.local = threading.local()

    def request(self, method, path, body=None, content_type="application/json"):
        if self.keep_alive:
            return self._request_kept(method, path, body, content_type)
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return e.code, json.loads(text or b"null")
            except ValueError:
                return e.code, text.decode(errors="replace")

    def _request_kept(self, method, path, body, content_type):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in range(2):
            conn = getattr(self.local, "conn", None)
            if conn is None:
                u = urllib.parse.urlparse(self.url)
                conn = http.client.HTTPSConnection(u.hostname, u.port, context=self.ctx,
                                                   timeout=30)
                self.local.conn = conn
            try:
                conn.request(method, path, body=data, headers=headers)
                r = conn.getresponse()
                text = r.read()
                break
            except (http.client.HTTPException, OSError):
                conn.close()
                self.local.conn = None
                if attempt == 1:
                    raise
        try:
            return r.status, json.loads(text or b"null")
        except ValueError:
            return r.status, text.decode(errors="replace")

    def events(self, field_selector=None, namespace="default"):
        """events.k8s.io/v1 Events, optionally by a field selector ("regarding.uid=...")."""
        path = f"/apis/events.k8s.io/v1/namespaces/{namespace}/events"
        if field_selector:
            path += "?fieldSelector=" + urllib.parse.quote(field_selector)
        return self.must("GET", path)["items"]

    def get(self, path):
        return self.request("GET", path)

    def must(self, method, path, body=None, content_type="application/json"):
        status, obj = self.request(method, path, body, content_type)
        if status >= 300:
            raise AssertionError(f"{method} {path}: {status} {obj}")
        return obj

    # The collection each kind of the project's manifests (deploy/) is posted to.
    PATHS = {
        "CustomResourceDefinition": "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        "ServiceAccount": "/api/v1/namespaces/{ns}/serviceaccounts",
        "ConfigMap": "/api/v1/namespaces/{ns}/configmaps",
        "ClusterRole": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        "ClusterRoleBinding": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    }

    def apply_file(self, path):
        """Creates each document of a YAML file (of the kinds in PATHS), posted as
        application/yaml (the API server reads YAML, so no YAML library is needed here);
        those that exist already are left as they are."""
        with open(path) as f:
            docs = [d for d in f.read().split("\n---\n") if "\nkind:" in "\n" + d]
        for doc in docs:
            kind = next(l.split(":", 1)[1].strip() for l in doc.splitlines()
                        if l.startswith("kind:"))
            ns = next((l.split(":", 1)[1].strip() for l in doc.splitlines()
                       if l.startswith("  namespace:")), "default")
            req = urllib.request.Request(self.url + self.PATHS[kind].format(ns=ns),
                                         data=doc.encode(), method="POST")
            req.add_header("Authorization", "Bearer " + self.token)
            req.add_header("Content-Type", "application/yaml")
            try:
                urllib.request.urlopen(req, context=self.ctx, timeout=30).read()
            except urllib.error.HTTPError as e:
                if e.code != 409:
                    raise AssertionError(f"apply {path} ({kind}): {e.code} {e.read()}")

    def service_account_token(self, name, namespace="default"):
        """A token of the ServiceAccount (TokenRequest), which is created if missing."""
        status, _ = self.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts",
                                 {"apiVersion": "v1", "kind": "ServiceAccount",
                                  "metadata": {"name": name}})
        assert status in (201, 409), status
        review = self.must("POST",
                           f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
                           {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                            "spec": {"expirationSeconds": 3600}})
        return review["status"]["token"]

    def kubeconfig_for(self, token):
        """A kubeconfig file for this server with the given bearer token."""
        f = tempfile.NamedTemporaryFile("w", suffix=".kubeconfig", delete=False)
        f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {{server: "{self.url}", insecure-skip-tls-verify: true}}
users:
- name: u
  user: {{token: "{token}"}}
contexts:
- name: test
  context: {{cluster: test, user: u, namespace: default}}
current-context: test
""")
        f.close()
        return f.name

    # ---- objects ----

    def create_node(self, name, cpu="4", memory="8Gi", pods="110", labels=None, extended=None):
        """extended: more resources the node has ({"example.com/gpu-mem": "16"})."""
        resources = {"cpu": cpu, "memory": memory, "pods": pods, **(extended or {})}
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name,
                             "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
                "status": {"capacity": resources,
                           "allocatable": resources,
                           "conditions": [{"type": "Ready", "status": "True",
                                           "reason": "KubeletReady", "message": "test"}]}}
        self.must("POST", "/api/v1/nodes", node)
        # No node controller runs: lift the not-ready taint added at admission.
        self.must("PATCH", f"/api/v1/nodes/{name}", {"spec": {"taints": None}},
                  "application/merge-patch+json")

    def create_pod(self, name, cpu="100m", memory="100Mi", group=None, scheduler="default-scheduler",
                   namespace="default", node=None, labels=None, priority=None,
                   priority_class=None):
        meta_labels = dict(labels or {})
        if group:
            meta_labels["scheduling.x-k8s.io/pod-group"] = group
        spec = {"schedulerName": scheduler,
                "containers": [{"name": "c", "image": "nginx",
                                "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
        if node:
            spec["nodeName"] = node
        if priority is not None:
            spec["priority"] = priority
        if priority_class:
            spec["priorityClassName"] = priority_class
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": namespace, "labels": meta_labels},
               "spec": spec}
        return self.must("POST", f"/api/v1/namespaces/{namespace}/pods", pod)

    def force_delete_pod(self, name, namespace="default"):
        """What the kubelet does once a pod's containers stop: the deletion completes."""
        self.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/{name}",
                     {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})

    def create_pod_group(self, name, min_member, namespace="default", timeout=None):
        spec = {"minMember": min_member}
        if timeout is not None:
            spec["scheduleTimeoutSeconds"] = timeout
        self.must("POST", f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{namespace}/podgroups",
                  {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                   "metadata": {"name": name, "namespace": namespace}, "spec": spec})

    def pods(self, namespace="default"):
        return self.must("GET", f"/api/v1/namespaces/{namespace}/pods")["items"]

    def pod(self, name, namespace="default"):
        """The pod, or None when it does not exist."""
        status, obj = self.get(f"/api/v1/namespaces/{namespace}/pods/{name}")
        return obj if status == 200 else None

    def node_of(self, name, namespace="default"):
        """The node the pod is bound to, or None (pending, or gone)."""
        p = self.pod(name, namespace)
        return p["spec"].get("nodeName") if p else None

    def all_bound(self, names, namespace="default"):
        pods = {p["metadata"]["name"]: p for p in self.pods(namespace)}
        return all(pods.get(n, {}).get("spec", {}).get("nodeName") for n in names)

    def pod_group(self, name, namespace="default"):
        return self.must(
            "GET", f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{namespace}/podgroups/{name}")

    def set_pod_phase(self, pod, phase, namespace="default"):
        """What a kubelet would do: the pod's phase (Running, Succeeded...)."""
        self.must("PATCH", f"/api/v1/namespaces/{namespace}/pods/{pod}/status",
                  {"status": {"phase": phase}}, "application/merge-patch+json")


def coscheduling_config(settings="", args=None):
    """A KubeSchedulerConfiguration without leader election whose default-scheduler profile adds
    Coscheduling (and its QueueSort): `settings` are more top-level lines, `args` Coscheduling's
    args as YAML flow ("{mode: PerPod}")."""
    text = ("apiVersion: kubescheduler.config.k8s.io/v1\n"
            "kind: KubeSchedulerConfiguration\n"
            "leaderElection:\n"
            "  leaderElect: false\n" + settings +
            "profiles:\n"
            "- schedulerName: default-scheduler\n"
            "  plugins:\n"
            "    multiPoint:\n"
            "      enabled:\n"
            "      - name: Coscheduling\n"
            "    queueSort:\n"
            "      enabled:\n"
            "      - name: Coscheduling\n"
            "      disabled:\n"
            "      - name: \"*\"\n")
    if args is not None:
        text += ("  pluginConfig:\n"
                 "  - name: Coscheduling\n"
                 f"    args: {args}\n")
    return text


def free_port():
    """A TCP port nothing listens on now, on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(url):
    """The samples of a Prometheus text page: {'name{labels}': value}."""
    with urllib.request.urlopen(url, timeout=5) as r:
        text = r.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            series, _, value = line.rpartition(" ")
            samples[series] = float(value)
    return samples


def pod_scheduled_condition(pod):
    for c in pod.get("status", {}).get("conditions", []) or []:
        if c["type"] == "PodScheduled":
            return c
    return None


class Muster:
    """`muster run` as a child process, its log in a temp file."""

    # Every instance started, so that main() stops those a failed test left running.
    started = []

    def __init__(self, binary, kubeconfig, args=(), config=None, config_path=None):
        """config: a KubeSchedulerConfiguration's text; config_path: a file holding one."""
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".muster.log", delete=False)
        cmd = [binary, "run", "--kubeconfig", kubeconfig, "-v", "2", *args]
        # Tests run side by side: no secure port unless the test asks for one.
        if not any(a.startswith("--secure-port") for a in args):
            cmd.append("--secure-port=0")
        if config_path is not None:
            cmd += ["--config", config_path]
        if config is not None:
            self.config = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
            self.config.write(config)
            self.config.close()
            cmd += ["--config", self.config.name]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        Muster.started.append(self)

    def text(self):
        return open(self.log.name).read()

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("muster did not stop within %ss:\n%s" % (timeout, self.text()))


class LeaderElection:
    """`muster run --leader-elect` instances on one server, for the life of a `with` block. Each
    talks through a fault proxy of its own (proxy(name)), which counts the bindings it made and
    injects the test's faults. When the block raises, every instance's log is printed; when it
    ends, a partition is lifted (requests held unanswered end), every instance still running is
    killed and the proxies are closed."""

    def __init__(self, binary, server, config):
        """config: the KubeSchedulerConfiguration's text, with its leaderElection."""
        self.binary = binary
        self.server = server
        self.config = config
        self.dir = tempfile.mkdtemp()
        self.proxies = {}
        self.instances = {}  # by name, in the order started

    def proxy(self, name):
        if name not in self.proxies:
            self.proxies[name] = faultproxy.Proxy(self.server.url)
        return self.proxies[name]

    def start(self, name):
        kubeconfig = self.proxy(name).kubeconfig(os.path.join(self.dir, name), self.server.token)
        m = Muster(self.binary, kubeconfig, ["--leader-elect"], config=self.config)
        self.instances[name] = m
        return m

    def lead(self, name):
        """Starts instance `name`; returns it once it holds the lease."""
        m = self.start(name)
        wait_until(f"{name} to lead", lambda: "took lease" in m.text(), timeout=30)
        return m

    def follow(self, name):
        """Starts instance `name`; returns it once it is trying to take the lease."""
        m = self.start(name)
        wait_until(f"{name} to try", lambda: "trying to take lease" in m.text(), timeout=30)
        return m

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is not None:
                for name, m in self.instances.items():
                    print(f"---- {name} ----\n" + m.text())
        finally:
            for p in self.proxies.values():
                with p.faults.lock:
                    p.faults.stall = False
            for m in self.instances.values():
                if m.proc.poll() is None:
                    m.stop(signal.SIGKILL)
            for p in self.proxies.values():
                p.close()
        return False


def main(test):
    """Runs test(binary, apiserver); prints muster's log on failure."""
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "release", "muster")
    try:
        with ApiServer() as server:
            test(binary, server)
    finally:
        for m in Muster.started:
            if m.proc.poll() is None:
                m.proc.kill()
                m.proc.wait()
    print("PASS")
