"""A nomination goes with its pod, through `muster run` on a real API server (issue 30, item 1).
One node with room for one 2-CPU pod runs a low-priority pod; a priority-1000 pod preempts it,
is nominated to the node and bound there. When that pod finishes (is deleted), a low-priority
replacement created meanwhile must get the node: the preemptor's nomination must not outlive
its binding and keep the room for a pod that is gone."""

import kube

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 2
"""


def pod(name, priority_class=None):
    spec = {"schedulerName": "default-scheduler",
            "containers": [{"name": "c", "image": "nginx",
                            "resources": {"requests": {"cpu": "2", "memory": "100Mi"}}}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def test(binary, server):
    c = server.client
    c.create_node("n1", cpu="2")
    c.must("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
           {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000})
    m = kube.Muster(binary, server.kubeconfig, config=CONFIG)
    try:
        c.must("POST", "/api/v1/namespaces/default/pods", pod("low-1"))
        kube.wait_until("low-1 bound", lambda: c.node_of("low-1") == "n1")

        c.must("POST", "/api/v1/namespaces/default/pods", pod("urgent", "high"))
        # Preemption deletes the victim; no kubelet runs here to finish the deletion.
        kube.wait_until("low-1 evicted",
                        lambda: (c.pod("low-1") or {}).get("metadata", {})
                        .get("deletionTimestamp") or c.pod("low-1") is None)
        c.force_delete_pod("low-1")
        kube.wait_until("urgent bound", lambda: c.node_of("urgent") == "n1")
        # The victim's Preempted event: about the victim, related to the preemptor, whose name
        # (not uid) the note gives.
        urgent = c.pod("urgent")
        preempted = kube.wait_until("the Preempted event", lambda: [
            e for e in c.events() if e["reason"] == "Preempted"])
        assert len(preempted) == 1, preempted
        e = preempted[0]
        assert e["regarding"]["name"] == "low-1" and e["regarding"].get("uid"), e
        assert e["related"]["uid"] == urgent["metadata"]["uid"], e
        assert e["related"]["name"] == "urgent", e
        assert e["note"] == "Preempted by default/urgent on node n1", e
        assert e["action"] == "Preempting" and e["reportingController"] == "default-scheduler", e

        # The replacement a ReplicaSet would create: no room while urgent runs.
        c.must("POST", "/api/v1/namespaces/default/pods", pod("low-2"))
        kube.wait_until(
            "low-2 unschedulable",
            lambda: (kube.pod_scheduled_condition(c.pod("low-2") or {}) or {})
            .get("status") == "False")
        assert not c.node_of("low-2")

        # urgent finishes: its node is free, and no nomination may keep it.
        c.force_delete_pod("urgent")
        kube.wait_until("low-2 bound where urgent ran", lambda: c.node_of("low-2") == "n1",
                        timeout=30)
    except BaseException:
        print(m.text())
        for p in c.pods():
            print(p["metadata"]["name"], p["spec"].get("nodeName"),
                  p.get("status", {}).get("nominatedNodeName"),
                  kube.pod_scheduled_condition(p))
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"


if __name__ == "__main__":
    kube.main(test)
