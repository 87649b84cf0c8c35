"""The volume plugins through `muster run` on a real API server (no PV controller or provisioner
runs there, so claims stay as the test leaves them):
 - a pod on a WaitForFirstConsumer claim of a class allowed only in zone a: bound to zone a's
   node, the claim annotated with that node for the provisioner (volume.kubernetes.io/selected-
   node), as kube-scheduler's PreBind does;
 - a pod on an unbound claim of an Immediate class: left Pending with upstream's message;
 - a pod on a claim bound to a volume only zone b reaches: bound to zone b's node;
 - a pod on a claim that does not exist: Pending, naming the claim."""

import kube

SELECTED_NODE = "volume.kubernetes.io/selected-node"


def create(c, path, obj):
    return c.must("POST", path, obj)


def claim(name, storage_class, volume_name=None, bound=False):
    meta = {"name": name, "namespace": "default"}
    if bound:
        meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
            "resources": {"requests": {"storage": "1Gi"}}}
    if volume_name:
        spec["volumeName"] = volume_name
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def pod(name, claim_name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx",
                                     "resources": {"requests": {"cpu": "100m"}}}],
                     "volumes": [{"name": "data",
                                  "persistentVolumeClaim": {"claimName": claim_name}}]}}


def test(binary, server):
    c = server.client
    for zone in ("a", "b", "c"):
        c.create_node(f"node-{zone}", labels={"topology.kubernetes.io/zone": zone})
    create(c, "/apis/storage.k8s.io/v1/storageclasses",
           {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "zone-a-only"}, "provisioner": "csi.example.com",
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowedTopologies": [{"matchLabelExpressions": [
                {"key": "topology.kubernetes.io/zone", "values": ["a"]}]}]})
    create(c, "/apis/storage.k8s.io/v1/storageclasses",
           {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "static"}, "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "Immediate"})
    create(c, "/api/v1/persistentvolumes",
           {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-b"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": "static",
                     "csi": {"driver": "csi.example.com", "volumeHandle": "vol-b"},
                     "claimRef": {"namespace": "default", "name": "in-zone-b"},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "topology.kubernetes.io/zone", "operator": "In",
                          "values": ["b"]}]}]}}}})
    claims = "/api/v1/namespaces/default/persistentvolumeclaims"
    create(c, claims, claim("wait", "zone-a-only"))
    create(c, claims, claim("unbound", "static"))
    create(c, claims, claim("in-zone-b", "static", volume_name="pv-b", bound=True))
    pods = "/api/v1/namespaces/default/pods"
    create(c, pods, pod("waits-for-consumer", "wait"))
    create(c, pods, pod("immediate", "unbound"))
    create(c, pods, pod("zoned", "in-zone-b"))
    create(c, pods, pod("no-claim", "nowhere"))

    m = kube.Muster(binary, server.kubeconfig)
    try:
        kube.wait_until("the WaitForFirstConsumer pod bound",
                        lambda: c.node_of("waits-for-consumer"), timeout=60)
        assert c.node_of("waits-for-consumer") == "node-a"
        wait = c.must("GET", f"{claims}/wait")
        assert wait["metadata"].get("annotations", {}).get(SELECTED_NODE) == "node-a", wait

        kube.wait_until("the zone-b pod bound", lambda: c.node_of("zoned"), timeout=60)
        assert c.node_of("zoned") == "node-b"

        def refused(name):
            p = c.pod(name)
            cond = kube.pod_scheduled_condition(p) or {}
            return cond if cond.get("status") == "False" else None

        cond = kube.wait_until("the Immediate claim's pod refused", lambda: refused("immediate"),
                               timeout=60)
        assert cond["message"].startswith(
            "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims."), cond
        assert c.node_of("immediate") is None
        cond = kube.wait_until("the missing claim's pod refused", lambda: refused("no-claim"),
                               timeout=60)
        assert 'persistentvolumeclaim "nowhere" not found' in cond["message"], cond
    except BaseException:
        print(m.text())
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"


if __name__ == "__main__":
    kube.main(test)
