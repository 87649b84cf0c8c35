"""KEP-5278 (NominatedNodeNameForExpectation, on since 1.35): a pod whose PreBind has writes to
make is nominated to the node chosen for it as its binding begins, so that the cluster's other
components (an autoscaler) know the room is taken. A pod on a WaitForFirstConsumer claim (no
provisioner runs here: the binding waits on it) gets status.nominatedNodeName set to the node
VolumeBinding selected for the claim; a pod without volumes, bound at once, gets none. (The
1.25 API server keeps a nomination after the binding; 1.35's clears it.)"""

import kube

SELECTED_NODE = "volume.kubernetes.io/selected-node"


def test(binary, server):
    c = server.client
    for i in range(2):
        c.create_node(f"n{i}", cpu="4", memory="8Gi", pods="110")
    c.must("POST", "/apis/storage.k8s.io/v1/storageclasses",
           {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "late"}, "provisioner": "csi.example.com",
            "volumeBindingMode": "WaitForFirstConsumer"})
    c.must("POST", "/api/v1/namespaces/default/persistentvolumeclaims",
           {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "late",
                     "resources": {"requests": {"storage": "1Gi"}}}})
    m = kube.Muster(binary, server.kubeconfig, args=("--leader-elect=false",))

    def nominated(name):
        return (c.pod(name) or {}).get("status", {}).get("nominatedNodeName")

    def selected():
        claim = c.must("GET", "/api/v1/namespaces/default/persistentvolumeclaims/data")
        return claim["metadata"].get("annotations", {}).get(SELECTED_NODE)

    try:
        c.must("POST", "/api/v1/namespaces/default/pods",
               {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "db", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "nginx",
                                         "resources": {"requests": {"cpu": "1"}}}],
                         "volumes": [{"name": "data",
                                      "persistentVolumeClaim": {"claimName": "data"}}]}})
        kube.wait_until("db nominated as its binding waits on its claim",
                        lambda: nominated("db") and selected())
        assert nominated("db") == selected(), (nominated("db"), selected())
        assert not c.node_of("db"), "bound before its claim"
        c.create_pod("web", cpu="1")
        kube.wait_until("web bound", lambda: c.node_of("web"))
        assert not nominated("web"), nominated("web")
    except BaseException:
        print(m.text())
        for p in c.pods():
            print(p["metadata"]["name"], p["spec"].get("nodeName"),
                  p.get("status", {}).get("nominatedNodeName"))
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"


if __name__ == "__main__":
    kube.main(test)
