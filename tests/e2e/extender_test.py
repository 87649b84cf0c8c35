"""A scheduler extender written for kube-scheduler, unchanged, with muster: the GPU-sharing
extender of examples/extender (seed 001) filters nodes by GPU memory only it tracks, binpacks
with prioritize, and binds the pods it manages.
 - simulate: examples/extender's cluster with the extender running; the training pods are
   binpacked two to a GPU node, the one that fits nowhere is Pending with the extender's reasons
   in the FitError, and the web pod never reaches the extender;
 - run, against the real API server: the extender posts the Binding itself, muster does not."""

import json
import os
import subprocess
import sys
import tempfile
import urllib.request

import kube

EXAMPLE = os.path.join(kube.REPO, "examples", "extender")


class Extender:
    """examples/extender/gpushare.py as a child process, on a free port."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(EXAMPLE, "gpushare.py"), "--port", "0", *args],
            stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert "listening on 127.0.0.1:" in line, line
        self.port = int(line.rsplit(":", 1)[1])

    def config(self):
        """examples/extender/scheduler.yaml, pointed at this extender's port."""
        text = open(os.path.join(EXAMPLE, "scheduler.yaml")).read()
        text = text.replace("127.0.0.1:8888", f"127.0.0.1:{self.port}")
        f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
        f.write(text)
        f.close()
        return f.name

    def bound(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/gpushare/state") as r:
            return json.load(r)["bound"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def simulate(binary):
    extender = Extender()
    try:
        out = subprocess.run([binary, "simulate", "-f", os.path.join(EXAMPLE, "cluster.yaml"),
                              "--config", extender.config(), "-o", "json"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        result = json.loads(out.stdout)
        nodes = {p["name"]: p["nodeName"] for p in result["pods"]}
        # Binpacked: 8 + 8 on one GPU node, 12 + 4 on the other.
        assert nodes["train-a"] == nodes["train-b"], nodes
        assert nodes["train-c"] == nodes["infer"], nodes
        assert {nodes["train-a"], nodes["train-c"]} == {"gpu-1", "gpu-2"}, nodes
        big = next(p for p in result["pods"] if p["name"] == "train-big")
        assert big["status"] == "Pending", big
        # The extender's reasons, then DynamicResources' and preemption's verdicts (nothing of
        # lower priority runs).
        assert big["message"].startswith(
            "0/3 nodes are available: 1 gpushare: node has no GPU, 2 gpushare: node has no GPU "
            "memory. no new claims to deallocate, preemption: "), big
        assert nodes["web"] != "", nodes
        # The extender bound the four it placed (and was never asked about the web pod).
        assert len(extender.bound()) == 4, extender.bound()
        (stats,) = result["extenders"]
        assert stats["name"].endswith("/gpushare"), stats
        assert stats["bind"]["calls"] == 4 and stats["bind"]["errors"] == 0, stats
        assert stats["filter"]["calls"] >= 5, stats
        assert stats["filter"]["errors"] == 0, stats
    finally:
        extender.stop()


def run(binary, server):
    c = server.client
    c.create_node("cpu-1")
    for name in ("gpu-1", "gpu-2"):
        c.create_node(name, extended={"example.com/gpu-mem": "16"})
    extender = Extender("--server", server.url, "--token", server.token, "--insecure")
    m = kube.Muster(binary, server.kubeconfig, config_path=extender.config())
    try:
        for name, gib in (("train-a", 8), ("train-b", 8), ("train-c", 12)):
            c.must("POST", "/api/v1/namespaces/default/pods", {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"containers": [{
                    "name": "trainer", "image": "pytorch/pytorch",
                    "resources": {"requests": {"cpu": "100m", "example.com/gpu-mem": str(gib)},
                                  "limits": {"example.com/gpu-mem": str(gib)}}}]}})
            kube.wait_until(f"{name} bound", lambda: c.node_of(name), timeout=60)
        assert c.node_of("train-a") == c.node_of("train-b")
        assert c.node_of("train-c") != c.node_of("train-a")
        # The extender wrote each Binding (a second one, muster's, would have been refused).
        assert len(extender.bound()) == 3, extender.bound()
        events = [e for e in c.events() if e.get("reason") == "Scheduled"]
        assert len(events) == 3, events
    except BaseException:
        print(m.text())
        raise
    finally:
        extender.stop()
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(kube.REPO, "build", "release",
                                                                 "muster")
    simulate(binary)
    if kube.k8s_dir() is None:
        print("simulate passed; run skipped: no ../shared/k8s (set MUSTER_K8S_DIR)")
        print("PASS")
        return
    kube.main(run)


if __name__ == "__main__":
    main()
