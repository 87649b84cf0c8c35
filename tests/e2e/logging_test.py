"""Logs an operator can follow, and kube-scheduler's flags (issue 29). At -v=10 the klog lines
say what happened to each pod (attempted, moved between queues, bound with the nodes evaluated
and feasible, or unschedulable), each API request is logged with its credentials masked, and the
bearer token never appears. --logging-format=json writes one JSON object per line. Without
--config muster says once that it schedules default-scheduler pods, and once what the server does
not serve. Flags take `--flag=value`
and `-f=value`; a bad one is refused with exit 2 naming it."""

import json
import subprocess

import kube


def run_muster(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=60)


def test(binary, server):
    c = server.client
    c.create_node("n1", cpu="2")

    # Text, at -v=10, without --config: the default profile schedules default-scheduler pods.
    m = kube.Muster(binary, server.kubeconfig, args=("--leader-elect=false", "--v=10"))
    try:
        c.create_pod("web", cpu="1")
        c.create_pod("huge", cpu="8")
        kube.wait_until("web bound", lambda: c.node_of("web") == "n1")
        kube.wait_until("huge unschedulable", lambda: "Unable to schedule pod" in m.text())
        # Each bound pod deleted brings huge back for another attempt, which fails alike: its
        # FailedScheduling event becomes a series, as client-go counts them.
        fillers = [f"filler-{i}" for i in range(3)]
        for name in fillers:
            c.create_pod(name, cpu="100m")
        kube.wait_until("the fillers bound", lambda: c.all_bound(fillers))
        for name in fillers:
            attempts = m.text().count('"Unable to schedule pod; no fit; waiting" pod="default/huge"')
            c.request("DELETE", f"/api/v1/namespaces/default/pods/{name}",
                      {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
            kube.wait_until("another attempt", lambda: m.text().count(
                '"Unable to schedule pod; no fit; waiting" pod="default/huge"') > attempts)
    except BaseException:
        print(m.text())
        raise
    assert m.stop() == 0, m.text()
    text = m.text()
    lines = text.splitlines()
    assert server.token not in text, "the bearer token was logged"
    assert sum("No --config given" in l for l in lines) == 1, text
    bound = [l for l in lines if '"Successfully bound pod to node" pod="default/web"' in l]
    assert len(bound) == 1, text
    assert bound[0].startswith("I"), bound[0]
    assert bound[0].endswith('] "Successfully bound pod to node" pod="default/web" node="n1" '
                             'evaluatedNodes=1 feasibleNodes=1'), bound[0]
    # A 1.25 server serves neither Kubernetes' gang API nor resource.k8s.io: said once, in one
    # warning line that lists what is missing and what follows; and DynamicResources, which has
    # no API here, says nothing in the pod's message.
    unserved = [l for l in lines if "does not serve" in l]
    assert len(unserved) == 1 and unserved[0].startswith("W"), unserved
    for kind in ("Workload", "PodGroup", "scheduling.k8s.io", "DeviceClass", "ResourceSlice",
                 "ResourceClaim", "ResourceClaimTemplate", "resource.k8s.io"):
        assert kind in unserved[0], unserved[0]
    assert "serves no" not in text, text
    assert "claims to deallocate" not in text, text
    assert any('"Unable to schedule pod; no fit; waiting" pod="default/huge" err="0/1 nodes are '
               'available: 1 Insufficient cpu. preemption: ' in l for l in lines), text
    assert any('"Attempting to schedule pod" pod="default/web"' in l for l in lines), text
    assert any('"Selected node for pod" pod="default/web" node="n1" evaluatedNodes=1 '
               'feasibleNodes=1 algorithmSeconds=' in l for l in lines), text
    assert any('"Pod moved to an internal scheduling queue" pod="default/huge" '
               'queue="Unschedulable"' in l for l in lines), text
    assert any('"HTTP" verb="POST" url="' in l and '/pods/web/binding"' in l and "status=201" in l
               for l in lines), text
    assert any('Authorization="Bearer <masked>"' in l for l in lines), text
    huge = c.pod("huge")["metadata"]["uid"]
    failed = [e for e in c.events(f"regarding.uid={huge}") if e["reason"] == "FailedScheduling"]
    assert any((e.get("series") or {}).get("count", 1) >= 2 for e in failed), failed
    assert len(failed) < 4, failed  # four attempts, fewer events

    # JSON: every line an object; the bind as structured fields.
    c.create_pod("api", cpu="500m")
    m = kube.Muster(binary, server.kubeconfig,
                    args=("--leader-elect=false", "--logging-format=json", "--v=2"))
    try:
        kube.wait_until("api bound", lambda: c.node_of("api") == "n1")
        kube.wait_until("the bind logged", lambda: "default/api" in m.text())
    except BaseException:
        print(m.text())
        raise
    assert m.stop() == 0, m.text()
    records = [json.loads(l) for l in m.text().splitlines()]
    bind = [r for r in records if r["msg"] == "Successfully bound pod to node"]
    assert len(bind) == 1, records
    assert bind[0]["pod"] == "default/api" and bind[0]["node"] == "n1", bind
    assert bind[0]["v"] == 2 and bind[0]["evaluatedNodes"] == 1, bind
    assert all(isinstance(r["ts"], float) for r in records), records
    assert any(r.get("level") == "warning" and "No --config given" in r["msg"] for r in records)

    # Flags.
    version = run_muster(binary, "--version")
    assert version.returncode == 0 and version.stdout.startswith("muster "), version
    assert run_muster(binary, "run", "--version").stdout == version.stdout
    assert run_muster(binary, "version").stdout == version.stdout
    r = run_muster(binary, "run", f"--kubeconfig={server.kubeconfig}",
                   "--leader-elect-renew-deadline=20s")
    assert r.returncode == 2, r
    assert ('--leader-elect-lease-duration: Invalid value: "20s": LeaseDuration must be greater '
            'than RenewDeadline') in r.stderr, r.stderr
    r = run_muster(binary, "run", "--leader-elect-retry-period", "soon")
    assert r.returncode == 2 and "--leader-elect-retry-period soon: not a duration" in r.stderr, r
    r = run_muster(binary, "run", "--logging-format=xml")
    assert r.returncode == 2 and "--logging-format xml" in r.stderr, r
    r = run_muster(binary, "run", "--no-such-flag")
    assert r.returncode == 2 and "--no-such-flag" in r.stderr, r
    r = run_muster(binary, "validate", f"-f={kube.REPO}/examples/config")
    assert r.returncode == 0, r


if __name__ == "__main__":
    kube.main(test)
