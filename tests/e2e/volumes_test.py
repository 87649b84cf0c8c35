"""The volume plugins through `muster run` on a real API server (no PV controller or provisioner
runs there: the test plays both):
 - a pod on a WaitForFirstConsumer claim of a class allowed only in zone a: the claim annotated
   with zone a's node for the provisioner (volume.kubernetes.io/selected-node), as
   kube-scheduler's PreBind does, and the pod bound only once the claim is; when the provisioner
   takes the node back (it failed), the attempt fails with upstream's error and is retried;
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
        def selected():
            meta = c.must("GET", f"{claims}/wait")["metadata"]
            return meta.get("annotations", {}).get(SELECTED_NODE)

        def patch_claim(body):
            c.must("PATCH", f"{claims}/wait", body, content_type="application/merge-patch+json")

        # muster picks a node for the claim, then waits for it to be bound: nothing binds it yet,
        # so the pod must still be unbound whenever we look.
        assert kube.wait_until("the claim given a node", selected, timeout=60) == "node-a"
        assert c.node_of("waits-for-consumer") is None, "bound before its claim"

        # The provisioner fails and takes the node back (the PV controller has named it on the
        # claim meanwhile): muster gives up this binding, says why, and tries again.
        patch_claim({"metadata": {"annotations": {
            SELECTED_NODE: None, "volume.kubernetes.io/storage-provisioner": "csi.example.com"}}})

        def failed():
            cond = kube.pod_scheduled_condition(c.pod("waits-for-consumer")) or {}
            return cond if 'provisioning failed for PVC "wait"' in cond.get("message", "") else None

        cond = kube.wait_until("the failed provisioning reported", failed, timeout=60)
        assert cond["reason"] == "SchedulerError", cond
        assert kube.wait_until("the claim given a node again", selected, timeout=60) == "node-a"
        assert c.node_of("waits-for-consumer") is None, "bound before its claim"

        # The provisioner succeeds this time: a volume in zone a, bound to the claim.
        uid = c.must("GET", f"{claims}/wait")["metadata"]["uid"]
        create(c, "/api/v1/persistentvolumes",
               {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pvc-wait"},
                "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                         "storageClassName": "zone-a-only",
                         "csi": {"driver": "csi.example.com", "volumeHandle": "vol-wait"},
                         "claimRef": {"namespace": "default", "name": "wait", "uid": uid},
                         "nodeAffinity": {"required": {"nodeSelectorTerms": [
                             {"matchExpressions": [{"key": "topology.kubernetes.io/zone",
                                                    "operator": "In", "values": ["a"]}]}]}}}})
        patch_claim({"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                     "spec": {"volumeName": "pvc-wait"}})
        kube.wait_until("the WaitForFirstConsumer pod bound",
                        lambda: c.node_of("waits-for-consumer"), timeout=60)
        assert c.node_of("waits-for-consumer") == "node-a"

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
