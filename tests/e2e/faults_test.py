"""`muster run` through a fault-injecting proxy: watches cut, 410 Gone on watches, 409 and 500
answered to bindings, delays, the server unreachable for a while. Under every fault no pod is
lost (each ends bound or reported unschedulable), none is bound twice, and muster's cache
converges to the server's state after a relist (a pod deleted while muster was cut off frees its
room for a pending pod). The outage is logged at warning or error level once per informer, and
its end is said."""

import os
import tempfile
import time

import faultproxy
import kube

CONFIG = kube.coscheduling_config("clientConnection:\n  qps: 200\n  burst: 400\n"
                                  "podInitialBackoffSeconds: 1\npodMaxBackoffSeconds: 2\n")


def settled_pods(c, names):
    pods = {p["metadata"]["name"]: p for p in c.pods()}
    out = {}
    for n in names:
        p = pods.get(n)
        if p is None:
            return None
        if p["spec"].get("nodeName"):
            out[n] = "bound"
        elif (kube.pod_scheduled_condition(p) or {}).get("status") == "False":
            out[n] = "unschedulable"
        else:
            return None
    return out


def test(binary, server):
    c = server.client
    proxy = faultproxy.Proxy(server.url)
    f = proxy.faults
    kubeconfig = proxy.kubeconfig(os.path.join(tempfile.mkdtemp(), "kubeconfig"), server.token)
    for i in range(4):
        c.create_node(f"n{i}", cpu="16")
    # A blocker fills n0 (bound by hand, another scheduler's): it is deleted later, while
    # muster's watches are failing, and the room it frees must be seen after the relist.
    c.create_pod("blocker", cpu="16", scheduler="other", node="n0")

    with f.lock:
        f.bind_status = [409, 500, 500, 409]
        f.delay = 0.02
        f.drop_watches_after = 3.0
    m = kube.Muster(binary, kubeconfig, config=CONFIG)
    try:
        names = []
        for i in range(12):
            names.append(f"p{i}")
            c.create_pod(f"p{i}", cpu="2")
        # A gang that fits, and one that cannot: fewer members than its minMember.
        c.create_pod_group("fits", 3)
        c.create_pod_group("too-big", 6)
        for i in range(3):
            names.append(f"fits-{i}")
            c.create_pod(f"fits-{i}", cpu="1", group="fits")
        for i in range(5):
            names.append(f"big-{i}")
            c.create_pod(f"big-{i}", cpu="12", group="too-big")

        first = kube.wait_until("every pod bound or unschedulable",
                                lambda: settled_pods(c, names), timeout=90)
        for i in range(12):
            assert first[f"p{i}"] == "bound", first
        for i in range(3):
            assert first[f"fits-{i}"] == "bound", first
        for i in range(5):
            assert first[f"big-{i}"] == "unschedulable", first

        # The server goes away for a while, and every watch answers 410 once it is back: muster
        # relists. Meanwhile the blocker is deleted and a pod that needs n0 whole is created.
        with f.lock:
            f.down = True
            f.watch_gone = 5
        time.sleep(2)
        # No kubelet confirms a graceful deletion here: delete at once.
        c.must("DELETE", "/api/v1/namespaces/default/pods/blocker?gracePeriodSeconds=0")
        c.create_pod("needs-n0", cpu="16")
        names.append("needs-n0")
        time.sleep(2)
        with f.lock:
            f.down = False
        final = kube.wait_until("needs-n0 bound after the relist",
                                lambda: (lambda s: s if s and s["needs-n0"] == "bound" else None)(
                                    settled_pods(c, names)), timeout=90)
        assert all(final[n] == "bound" for n in names if not n.startswith("big-")), final

        with f.lock:
            twice = {k: v for k, v in f.binds_accepted.items() if v > 1}
            injected = dict(f.injected)
        assert not twice, f"bound twice: {twice}"
        assert injected["bind"] == 4, injected
        assert injected["watch_cut"] > 0, injected
        assert injected["watch_gone"] > 0, injected
        assert injected["down"] > 0, injected
        assert "relisting" in m.text(), "no relist seen in the log"
        # The outage is logged as client-go logs it, at warning or error level (an operator's
        # alerts filter on W and E), once per informer rather than once per retry, and its end
        # is said.
        lines = m.text().splitlines()
        failed = [l for l in lines if l[:1] in ("E", "W") and
                  ("failed to list" in l or "failed to watch" in l or "ended with" in l)]
        assert failed, "the outage left no warning or error in the log"
        assert not [l for l in lines if "retrying in" in l and l[:1] in ("E", "W")], \
            "a retry was logged at warning or error level"
        assert any("succeeded again after" in l for l in lines), "no recovery line in the log"
        # Every bound pod is on a node with room: the server's view, summed.
        pods = c.pods()
        used = {}
        for p in pods:
            node = p["spec"].get("nodeName")
            if node:
                cpu = p["spec"]["containers"][0]["resources"]["requests"]["cpu"]
                used[node] = used.get(node, 0) + float(cpu)
        assert all(v <= 16 for v in used.values()), used
    except BaseException:
        print(m.text())
        raise
    finally:
        code = m.stop()
        proxy.close()
    assert code == 0, f"muster exited {code}"


if __name__ == "__main__":
    kube.main(test)
