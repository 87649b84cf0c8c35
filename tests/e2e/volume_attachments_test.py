"""NodeVolumeLimits counting VolumeAttachments (1.32+) through `muster run` on a real API server:
one node whose CSINode allows two volumes of csi.example.com, one of them still attached for a
pod that has gone (its VolumeAttachment left, as the attach/detach controller leaves it until the
volume is detached). A pod on two other volumes of the driver is left Pending with upstream's
reason; once the VolumeAttachment is deleted (the volume detached), muster hears of it and binds
the pod."""

import kube

DRIVER = "csi.example.com"


def volume(name):
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": "static",
                     "csi": {"driver": DRIVER, "volumeHandle": f"handle-{name}"},
                     "claimRef": {"namespace": "default", "name": name}}}


def claim(name):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default",
                         "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "static",
                     "volumeName": name, "resources": {"requests": {"storage": "1Gi"}}}}


def test(binary, server):
    c = server.client
    c.create_node("node-1")
    c.must("POST", "/apis/storage.k8s.io/v1/csinodes",
           {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node-1"},
            "spec": {"drivers": [{"name": DRIVER, "nodeID": "node-1",
                                  "allocatable": {"count": 2}}]}})
    c.must("POST", "/apis/storage.k8s.io/v1/storageclasses",
           {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "static"}, "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "Immediate"})
    for name in ("left-behind", "data-0", "data-1"):
        c.must("POST", "/api/v1/persistentvolumes", volume(name))
        c.must("POST", "/api/v1/namespaces/default/persistentvolumeclaims", claim(name))
    attachments = "/apis/storage.k8s.io/v1/volumeattachments"
    c.must("POST", attachments,
           {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
            "metadata": {"name": "csi-left-behind"},
            "spec": {"attacher": DRIVER, "nodeName": "node-1",
                     "source": {"persistentVolumeName": "left-behind"}}})
    c.must("POST", "/api/v1/namespaces/default/pods",
           {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "two-volumes"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}],
                     "volumes": [{"name": "a", "persistentVolumeClaim": {"claimName": "data-0"}},
                                 {"name": "b", "persistentVolumeClaim": {"claimName": "data-1"}}]}})

    m = kube.Muster(binary, server.kubeconfig)
    try:
        def refused():
            cond = kube.pod_scheduled_condition(c.pod("two-volumes")) or {}
            return cond if cond.get("status") == "False" else None

        cond = kube.wait_until("the pod refused", refused, timeout=60)
        assert cond["message"].startswith(
            "0/1 nodes are available: 1 node(s) exceed max volume count."), cond
        assert c.node_of("two-volumes") is None

        c.must("DELETE", f"{attachments}/csi-left-behind")
        kube.wait_until("the pod bound once the volume is detached",
                        lambda: c.node_of("two-volumes"), timeout=60)
        assert c.node_of("two-volumes") == "node-1"
    except BaseException:
        print(m.text())
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"


if __name__ == "__main__":
    kube.main(test)
