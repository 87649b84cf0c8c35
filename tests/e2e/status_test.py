"""Status that tells the truth (issue 29): a PodGroup of minMember 4 whose pods arrive one by one,
as `kubectl apply` of each would send them. Each arrival before the fourth is a failed group
cycle that writes PodScheduled=False on the members; the fourth binds them all. A failure
decided before the binding must never land after it: no bound pod may end with
PodScheduled=False. Repeated over several groups, with the arrivals spaced differently."""

import os
import time

import kube

CONFIG = os.path.join(kube.REPO, "examples", "config", "coscheduling.yaml")


def test(binary, server):
    c = server.client
    for i in range(4):
        c.create_node(f"n{i}", cpu="8")
    m = kube.Muster(binary, server.kubeconfig, config_path=CONFIG)
    groups = [f"g{i}" for i in range(6)]
    try:
        for i, g in enumerate(groups):
            c.create_pod_group(g, 4)
            for j in range(4):
                c.create_pod(f"{g}-{j}", cpu="500m", group=g)
                time.sleep(0.05 * (i % 3))  # apart: 0, 50 and 100 ms

        names = [f"{g}-{j}" for g in groups for j in range(4)]

        kube.wait_until("every member bound", lambda: c.all_bound(names), timeout=60)
        time.sleep(2)  # any write still queued lands by now
        wrong = []
        for p in c.pods():
            cond = kube.pod_scheduled_condition(p) or {}
            if p["spec"].get("nodeName") and cond.get("status") == "False":
                wrong.append((p["metadata"]["name"], cond.get("message")))
        assert not wrong, f"bound pods reporting PodScheduled=False: {wrong}"
    except BaseException:
        print(m.text())
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"


if __name__ == "__main__":
    kube.main(test)
