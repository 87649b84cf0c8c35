"""`muster simulate --kubeconfig`: what if these manifests were submitted to this live cluster?
(issue 50). The cluster is read once, as a ServiceAccount bound to deploy/rbac-simulate.yaml's
role alone, and the API server's audit log shows that it only read. Bound pods keep their nodes
and hold their resources, pending pods are scheduled with the new manifests, a pod of another
schedulerName is left alone, a pod's PriorityClass is read with it. The snapshot saved with
--save-snapshot gives the same output byte for byte, and the same objects written as files give
the same placements."""

import json
import os
import re
import subprocess
import sys
import tempfile

import kube

SA = "system:serviceaccount:kube-system:muster-simulate"

NEW = """apiVersion: v1
kind: Pod
metadata:
  name: new-1
spec:
  containers:
  - name: c
    image: nginx
    resources:
      requests: {cpu: "3", memory: 100Mi}
"""

# The cluster below as manifests: what the live objects are, without what the server adds.
AS_FILES = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""


def pod_yaml(name, cpu, node=None, scheduler="default-scheduler", priority_class=None):
    spec = {"schedulerName": scheduler,
            "containers": [{"name": "c", "image": "nginx",
                            "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}]}
    if node:
        spec["nodeName"] = node
    if priority_class:
        spec["priorityClassName"] = priority_class
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": "default"}, "spec": spec})


def node_yaml(name):
    resources = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return json.dumps({"apiVersion": "v1", "kind": "Node",
                       "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                       "status": {"capacity": resources, "allocatable": resources,
                                  "conditions": [{"type": "Ready", "status": "True"}]}})


def simulate(binary, *args):
    r = subprocess.run([binary, "simulate", *args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


def placements(output):
    return {p["name"]: (p["nodeName"] or None, p["phase"]) for p in json.loads(output)["pods"]}


def test(binary, server, audit_log):
    c = server.client
    c.apply_file(os.path.join(kube.REPO, "deploy", "rbac-simulate.yaml"))
    kubeconfig = c.kubeconfig_for(c.service_account_token("muster-simulate", "kube-system"))

    for i in range(3):
        c.create_node(f"n{i}", cpu="4")
    c.must("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
           {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000})
    c.create_pod("bound-a", cpu="3", node="n0")
    c.create_pod("bound-b", cpu="3", node="n1")
    c.create_pod("pending-p", cpu="2")
    c.create_pod("other-q", cpu="1", scheduler="other-scheduler")
    c.create_pod("high-h", cpu="1", priority_class="high")
    c.create_pod("done-d", cpu="4", node="n2")
    c.set_pod_phase("done-d", "Succeeded")  # finished: holds nothing

    work = tempfile.mkdtemp()
    new = os.path.join(work, "new.yaml")
    with open(new, "w") as f:
        f.write(NEW)
    snapshot = os.path.join(work, "snapshot.json")

    code, live, err = simulate(binary, "--kubeconfig", kubeconfig, "-f", new, "-o", "json",
                               "--save-snapshot", snapshot)
    assert code == 0, f"exit {code}: {err}"
    assert "read 3 nodes, 2 bound pods, 3 pending pods" in err, err
    got = placements(live)
    # The bound pods keep their nodes; the pending ones share n2, the high-priority one first;
    # the new pod of 3 cpus fits nowhere now; the other scheduler's pod is nobody's here.
    assert got["bound-a"] == ("n0", "Running"), got
    assert got["bound-b"] == ("n1", "Running"), got
    assert got["high-h"][0] == "n2" and got["pending-p"][0] == "n2", got
    assert got["new-1"] == (None, "Pending"), got
    assert got["other-q"] == (None, "Pending"), got
    assert "done-d" not in got, got
    new_1 = next(p for p in json.loads(live)["pods"] if p["name"] == "new-1")
    assert "Insufficient cpu" in json.dumps(new_1), new_1

    # explain reads the cluster the same way: why would new-1 stay pending there?
    r = subprocess.run([binary, "explain", "--kubeconfig", kubeconfig, "-f", new, "new-1"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr}"
    assert "Insufficient cpu" in r.stdout, r.stdout

    # The snapshot, offline, is the same simulation.
    code, offline, err = simulate(binary, "-f", snapshot, "-f", new, "-o", "json")
    assert code == 0, f"exit {code}: {err}"
    assert offline == live, "the snapshot simulates differently from the live read"

    # The same objects as files: the same placements.
    files = os.path.join(work, "cluster.yaml")
    with open(files, "w") as f:
        f.write("\n---\n".join([AS_FILES] + [node_yaml(f"n{i}") for i in range(3)] + [
            pod_yaml("bound-a", "3", node="n0"), pod_yaml("bound-b", "3", node="n1"),
            pod_yaml("high-h", "1", priority_class="high"), pod_yaml("pending-p", "2"),
            pod_yaml("other-q", "1", scheduler="other-scheduler")]))
    code, as_files, err = simulate(binary, "-f", files, "-f", new, "-o", "json")
    assert code == 0, f"exit {code}: {err}"
    assert placements(as_files) == got, (placements(as_files), got)

    # --scheduler-name keeps only the pending pods of that name.
    code, only, err = simulate(binary, "--kubeconfig", kubeconfig, "-o", "json",
                               "--scheduler-name", "default-scheduler")
    assert code == 0, f"exit {code}: {err}"
    assert "other-q" not in placements(only) and "pending-p" in placements(only), only

    # A name taken in the cluster is taken: the API server would refuse the create.
    taken = os.path.join(work, "taken.yaml")
    with open(taken, "w") as f:
        f.write(pod_yaml("pending-p", "1"))
    code, _, err = simulate(binary, "--kubeconfig", kubeconfig, "-f", taken)
    assert code == 2 and "Duplicate value" in err, f"exit {code}: {err}"

    # capacity reads the cluster the same way: after the pending pods take n2's room, one CPU is
    # left on each node, so three more 1-CPU pods fit, one a node, and the fourth does not.
    one = os.path.join(work, "one.yaml")
    with open(one, "w") as f:
        f.write(pod_yaml("one", "1"))
    r = subprocess.run([binary, "capacity", "--kubeconfig", kubeconfig, one],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr}"
    assert "  3 more fit\n" in r.stdout, r.stdout
    assert "the 4th does not: 0/3 nodes are available: 3 Insufficient cpu." in r.stdout, r.stdout
    for node in ("n0", "n1", "n2"):
        assert re.search(node + r" +1 +NodeResourcesFit: Insufficient cpu", r.stdout), r.stdout

    # compare reads the cluster once for both sides. B replaces the pending pod with one of 5
    # CPUs, which no node holds: pending on B, bound on A.
    bigger = os.path.join(work, "bigger.yaml")
    with open(bigger, "w") as f:
        f.write(pod_yaml("pending-p", "5"))
    r = subprocess.run([binary, "compare", "-o", "json", "--kubeconfig", kubeconfig, "--b-file",
                        bigger], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr}"
    assert r.stderr.count("muster: read 3 nodes") == 1, r.stderr
    comparison = json.loads(r.stdout)
    replaced = comparison["sides"][1]["replaced"]
    assert len(replaced) == 1 and replaced[0].startswith(
        f"Pod default/pending-p ({bigger}: document 1 replaces cluster "), replaced
    differing = {p["pod"]: p for p in comparison["pods"]["items"]}
    assert differing["default/pending-p"]["differs"] == "binding", differing
    assert differing["default/pending-p"]["a"]["bound"] == 1, differing
    assert "Insufficient cpu" in differing["default/pending-p"]["b"]["message"], differing

    # It only read: every request of its ServiceAccount is a get or a list.
    verbs = {}
    with open(audit_log) as f:
        for line in f:
            event = json.loads(line)
            if event.get("user", {}).get("username") == SA and event.get("stage") == "ResponseComplete":
                verbs[event["verb"]] = verbs.get(event["verb"], 0) + 1
    assert verbs.get("list", 0) > 0, f"no list by {SA} in the audit log: {verbs}"
    assert set(verbs) <= {"get", "list"}, f"{SA} did more than read: {verbs}"

    # Without the role: a 403 names the role to bind, and nothing is simulated.
    unbound = c.kubeconfig_for(c.service_account_token("nobody", "default"))
    code, out, err = simulate(binary, "--kubeconfig", unbound)
    assert code == 1 and "deploy/rbac-simulate.yaml" in err and out == "", f"exit {code}: {err}"


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(kube.REPO, "build", "release",
                                                                "muster")
    work = tempfile.mkdtemp()
    policy = os.path.join(work, "audit-policy.yaml")
    with open(policy, "w") as f:
        f.write("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
    audit_log = os.path.join(work, "audit.log")
    with kube.ApiServer(extra_args=[f"--audit-policy-file={policy}",
                                    f"--audit-log-path={audit_log}"]) as server:
        test(binary, server, audit_log)
    print("PASS")


if __name__ == "__main__":
    main()
