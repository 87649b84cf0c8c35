"""The seed demo through `muster run` on a real API server: three 4-CPU nodes, a PodGroup of
minMember 3 and six 3-CPU pods. As in `muster simulate`: three pods bound on distinct nodes,
three Pending with the PodScheduled=False condition, the PodGroup Running once its pods run.
Also: a pod of another scheduler is left alone, but its resources are counted."""

import os
import re
import urllib.request

import kube

# The seed's configuration (its placeholder clientConnection.kubeconfig yields to --kubeconfig,
# as kube-scheduler's flag does).
CONFIG = os.path.join(kube.REPO, "examples", "config", "coscheduling.yaml")


def test(binary, server):
    c = server.client
    for i in (1, 2, 3):
        c.create_node(f"node-{i}")
    c.create_node("node-4")
    # node-4 is full of another scheduler's pod: muster must count it and not use node-4.
    c.create_pod("other", cpu="4", scheduler="other-scheduler", node="node-4")
    c.create_pod("unbound-other", cpu="100m", scheduler="other-scheduler")
    c.create_pod_group("nginx", 3, timeout=10)
    for i in range(6):
        c.create_pod(f"nginx-{i}", cpu="3", memory="500Mi", group="nginx")

    port = kube.free_port()
    m = kube.Muster(binary, server.kubeconfig, config_path=CONFIG,
                    args=("--metrics-bind-address", f"127.0.0.1:{port}"))
    try:
        def settled():
            pods = [p for p in c.pods() if p["metadata"]["name"].startswith("nginx-")]
            bound = [p for p in pods if p["spec"].get("nodeName")]
            pending = [p for p in pods if not p["spec"].get("nodeName")
                       and (kube.pod_scheduled_condition(p) or {}).get("status") == "False"]
            return (bound, pending) if len(bound) == 3 and len(pending) == 3 else None

        bound, pending = kube.wait_until("3 bound and 3 unschedulable", settled, timeout=60)
        nodes = sorted(p["spec"]["nodeName"] for p in bound)
        assert nodes == ["node-1", "node-2", "node-3"], nodes
        for p in pending:
            cond = kube.pod_scheduled_condition(p)
            assert cond["reason"] == "Unschedulable", cond
            assert "0/4 nodes are available" in cond["message"], cond
        # The other scheduler's pods: untouched.
        other = {p["metadata"]["name"]: p for p in c.pods()}
        assert other["unbound-other"]["spec"].get("nodeName") is None
        assert kube.pod_scheduled_condition(other["unbound-other"]) is None

        # A kubelet would run the bound pods; the PodGroup controller then says Running.
        kube.wait_until("PodGroup Scheduled",
                        lambda: c.pod_group("nginx").get("status", {}).get("phase") == "Scheduled")
        for p in bound:
            c.set_pod_phase(p["metadata"]["name"], "Running")
        group = kube.wait_until(
            "PodGroup Running",
            lambda: (lambda g: g if g.get("status", {}).get("phase") == "Running" else None)(
                c.pod_group("nginx")))
        assert group["status"]["running"] == 3, group["status"]
        assert group["status"]["scheduled"] == 3, group["status"]
        # The group cycle's own write, a merge patch of the status' conditions alone, beside
        # the controller's counters: Scheduled=True, saying how many members were placed.
        conditions = {c["type"]: c for c in group["status"].get("conditions", [])}
        assert conditions.get("Scheduled", {}).get("status") == "True", group["status"]
        assert re.fullmatch(r"3/\d members placed \(minMember 3\)",
                            conditions["Scheduled"]["message"]), conditions

        # Events: Scheduled for each bound pod, through events.k8s.io/v1, found as `kubectl
        # describe` finds them: by the pod's uid (regarding.uid, and core/v1's
        # involvedObject.uid that describe itself selects on).
        for p in bound + pending:
            uid = p["metadata"]["uid"]
            events = c.events(f"regarding.uid={uid}")
            reasons = {e["reason"] for e in events}
            want = "Scheduled" if p in bound else "FailedScheduling"
            assert want in reasons, (p["metadata"]["name"], events)
            for e in events:
                assert e["regarding"]["name"] == p["metadata"]["name"], e
                assert e["regarding"].get("resourceVersion"), e
                assert e["reportingController"] == "default-scheduler", e
                assert e["reportingInstance"], e
                assert e["action"] == ("Binding" if e["reason"] == "Scheduled" else "Scheduling")
            core = c.must("GET", "/api/v1/namespaces/default/events?fieldSelector="
                          f"involvedObject.uid%3D{uid}")["items"]
            assert want in {e["reason"] for e in core}, core
        scheduled = [e for e in c.events() if e["reason"] == "Scheduled"]
        assert {e["regarding"]["name"] for e in scheduled} == \
            {p["metadata"]["name"] for p in bound}, scheduled
        for e in scheduled:
            assert e["note"] == (f"Successfully assigned default/{e['regarding']['name']} to "
                                 f"{c.node_of(e['regarding']['name'])}"), e

        # /metrics, under kube-scheduler's names: three attempts scheduled, the others turned
        # away; the gang reached quorum once; the three left over wait unschedulable.
        metrics = kube.scrape(f"http://127.0.0.1:{port}/metrics")
        profile = 'profile="default-scheduler"'
        assert metrics[f'scheduler_schedule_attempts_total{{{profile},result="scheduled"}}'] == 3
        assert metrics[f'scheduler_schedule_attempts_total{{{profile},result="unschedulable"}}'] >= 3
        assert metrics[f'muster_podgroup_time_to_quorum_seconds_count{{{profile}}}'] == 1
        assert metrics['scheduler_pending_pods{queue="unschedulable"}'] == 3, metrics
        assert metrics['scheduler_scheduler_cache_size{type="nodes"}'] == 4
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
            assert r.status == 200
    except BaseException:
        print(m.text())
        for p in c.pods():
            print(p["metadata"]["name"], p["spec"].get("nodeName"),
                  kube.pod_scheduled_condition(p))
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"
    assert "stopped" in m.text()


if __name__ == "__main__":
    kube.main(test)
