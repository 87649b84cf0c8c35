"""Gang-aware preemption through `muster run` on a real API server (issue 35). Two nodes of 2 CPU
run a low-priority Coscheduling gang "old" (minMember 2, a 2-CPU pod on each). A gang "new" of
two 1-CPU pods with priority 1000 arrives: it fits only where old runs. Its members do not
preempt one by one, and old is not cut below its quorum: the whole of old is evicted (two
deletions, each with a Preempted event related to new's PodGroup), new's members are nominated
and, once the victims are gone, bound together."""

import kube

CONFIG = kube.coscheduling_config("podInitialBackoffSeconds: 1\npodMaxBackoffSeconds: 2\n")


def being_deleted(c, name):
    p = c.pod(name)
    return p is None or bool(p["metadata"].get("deletionTimestamp"))


def test(binary, server):
    c = server.client
    c.create_node("n1", cpu="2")
    c.create_node("n2", cpu="2")
    c.must("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
           {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "training"}, "value": 1000})
    m = kube.Muster(binary, server.kubeconfig, config=CONFIG)
    try:
        # Both PodGroups first. A pod whose PodGroup the scheduler has not seen yet is scheduled
        # as a lone pod, as scheduler-plugins' Coscheduling does (its PreFilter passes a pod whose
        # group it cannot get), and the PodGroup and pod watches are separate streams: created
        # just before its pods, "new" could arrive after new-0. Created with "old", it is known
        # before old's pods are bound.
        c.create_pod_group("old", 2)
        c.create_pod_group("new", 2)
        for i in range(2):
            c.create_pod(f"old-{i}", cpu="2", group="old")
        kube.wait_until("old bound", lambda: c.all_bound(["old-0", "old-1"]))

        for i in range(2):
            c.create_pod(f"new-{i}", cpu="1", group="new", priority_class="training")
        # The gang's preemption deletes the whole of old: both members, on both nodes.
        kube.wait_until("old evicted whole",
                        lambda: being_deleted(c, "old-0") and being_deleted(c, "old-1"))
        def preempted_events():
            events = [e for e in c.events() if e["reason"] == "Preempted"]
            return events if len(events) == 2 else None

        preempted = kube.wait_until("the two Preempted events", preempted_events)
        for e in preempted:
            assert e["regarding"]["name"] in ("old-0", "old-1"), e
            assert e["related"]["kind"] == "PodGroup" and e["related"]["name"] == "new", e
            assert e["note"].startswith("Preempted by default/new on node n"), e
        # Nothing of new is bound while the room is not free; its members are nominated.
        assert not c.node_of("new-0") and not c.node_of("new-1")
        def nominated(name):
            return (c.pod(name) or {}).get("status", {}).get("nominatedNodeName")

        kube.wait_until("new's members nominated",
                        lambda: nominated("new-0") and nominated("new-1"))
        for n in ("old-0", "old-1"):
            c.force_delete_pod(n)
        kube.wait_until("new bound whole", lambda: c.all_bound(["new-0", "new-1"]), timeout=30)
    except BaseException:
        print(m.text())
        for p in c.pods():
            print(p["metadata"]["name"], p["spec"].get("nodeName"),
                  p["status"].get("nominatedNodeName"), p["metadata"].get("deletionTimestamp"))
        raise
    finally:
        m.stop()


if __name__ == "__main__":
    kube.main(test)
