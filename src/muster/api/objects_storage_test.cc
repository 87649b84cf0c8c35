#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/manifests.h"
#include "muster/api/storage.h"
#include "muster/api/testing/decode.h"

// The storage kinds' decoders: defaults, the API server's validation with its messages, and
// DefaultStorageClass admission.

namespace muster::api {
namespace {

using testing::Decode;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(StorageDecodeTest, AVolumeAClaimAndAClassWithTheirDefaults) {
  const LoadResult r = Decode(R"(
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1, labels: {topology.kubernetes.io/zone: b}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: fast
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
  claimRef: {namespace: default, name: data}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [b]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: ebs.csi.aws.com
)",
                              "s.yaml");
  ASSERT_THAT(r.errors, IsEmpty());
  const PersistentVolume& pv = r.manifests.persistent_volumes.at(0);
  EXPECT_EQ(pv.spec.capacity, *Quantity::Parse("10Gi"));
  EXPECT_EQ(pv.spec.access_modes.Names(),
            (std::vector<std::string_view>{"ReadWriteOnce", "ReadOnlyMany"}));
  EXPECT_EQ(pv.spec.reclaim_policy, "Retain");
  EXPECT_EQ(pv.spec.volume_mode, VolumeMode::kFilesystem);
  EXPECT_EQ(pv.status.phase, VolumePhase::kPending);
  ASSERT_TRUE(pv.spec.source.csi);
  EXPECT_EQ(pv.spec.source.csi->volume_handle, "vol-1");
  ASSERT_TRUE(pv.spec.claim_ref);
  EXPECT_EQ(pv.spec.claim_ref->name, "data");
  LabelSet zone_b, zone_a;
  zone_b.Set(Symbol("topology.kubernetes.io/zone"), Symbol("b"));
  zone_a.Set(Symbol("topology.kubernetes.io/zone"), Symbol("a"));
  EXPECT_TRUE(VolumeAdmits(pv, zone_b));
  EXPECT_FALSE(VolumeAdmits(pv, zone_a));

  const PersistentVolumeClaim& pvc = r.manifests.persistent_volume_claims.at(0);
  EXPECT_EQ(pvc.metadata.namespace_, Symbol("default"));
  EXPECT_EQ(pvc.spec.storage, *Quantity::Parse("5Gi"));
  // DefaultStorageClass admission: the claim named no class, and one is the default.
  EXPECT_EQ(pvc.ClassName(), "fast");
  EXPECT_FALSE(pvc.FullyBound());

  const StorageClass& sc = r.manifests.storage_classes.at(0);
  EXPECT_EQ(sc.volume_binding_mode, VolumeBindingMode::kImmediate);
  EXPECT_EQ(sc.reclaim_policy, "Delete");
  EXPECT_TRUE(sc.IsDefault());
}

TEST(StorageDecodeTest, TheApiServersValidation) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {R"(
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec: {accessModes: [ReadWriteOnce], hostPath: {path: /x}}
)",
       "s.yaml: document 1 (PersistentVolume pv): spec.capacity: Required value"},
      {R"(
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}
)",
       "s.yaml: document 1 (PersistentVolume pv): spec: Required value: must specify a volume "
       "type"},
      {R"(
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], local: {path: /x}}
)",
       "s.yaml: document 1 (PersistentVolume pv): spec.nodeAffinity: Required value: Local volume "
       "requires node affinity"},
      {R"(
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {resources: {requests: {storage: 1Gi}}}
)",
       "s.yaml: document 1 (PersistentVolumeClaim default/c): spec.accessModes: Required value: "
       "at least 1 access mode is required"},
      {R"(
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {accessModes: [ReadWriteOncePod, ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
)",
       "s.yaml: document 1 (PersistentVolumeClaim default/c): spec.accessModes: Forbidden: may "
       "not use ReadWriteOncePod with other access modes"},
      {R"(
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {accessModes: [ReadWriteSometimes], resources: {requests: {storage: 1Gi}}}
)",
       "s.yaml: document 1 (PersistentVolumeClaim default/c): spec.accessModes[0]: Unsupported "
       "value: \"ReadWriteSometimes\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", "
       "\"ReadWriteOnce\", \"ReadWriteOncePod\""},
      {R"(
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {accessModes: [ReadWriteOnce]}
)",
       "s.yaml: document 1 (PersistentVolumeClaim default/c): spec.resources[storage]: Required "
       "value"},
      {R"(
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sc}
provisioner: p
volumeBindingMode: Later
)",
       "s.yaml: document 1 (StorageClass sc): volumeBindingMode: Unsupported value: \"Later\": "
       "supported values: \"Immediate\", \"WaitForFirstConsumer\""},
      {R"(
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sc}
)",
       "s.yaml: document 1 (StorageClass sc): provisioner: Required value"},
      {R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: i}]
  volumes: [{name: v, emptyDir: {}, persistentVolumeClaim: {claimName: x}}]
)",
       "s.yaml: document 1 (Pod default/p): spec.volumes[0].persistentVolumeClaim: Forbidden: may "
       "not specify more than 1 volume type"},
      {R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: i}]
  volumes: [{name: v, configMap: {name: x}}, {name: v, secret: {secretName: s}}]
)",
       "s.yaml: document 1 (Pod default/p): spec.volumes[1].name: Duplicate value: \"v\""},
      {R"(
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec: {drivers: [{name: d, nodeID: x, allocatable: {count: -1}}]}
)",
       "s.yaml: document 1 (CSINode n1): spec.drivers[0].allocatable.count: Invalid value: -1: "
       "must be greater than or equal to 0"},
      {R"(
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va}
spec: {attacher: d, nodeName: n1, source: {}}
)",
       "s.yaml: document 1 (VolumeAttachment va): spec.source: Required value: must specify "
       "exactly one of inlineVolumeSpec and persistentVolumeName"},
      {R"(
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va}
spec: {attacher: d, nodeName: n1, source: {persistentVolumeName: pv, inlineVolumeSpec: {}}}
)",
       "s.yaml: document 1 (VolumeAttachment va): spec.source: Forbidden: must specify exactly "
       "one of inlineVolumeSpec and persistentVolumeName"},
      {R"(
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va}
spec: {nodeName: n1, source: {persistentVolumeName: pv}}
)",
       "s.yaml: document 1 (VolumeAttachment va): spec.attacher: Required value"},
  };
  for (const Case& c : cases) {
    const LoadResult r = Decode(c.text, "s.yaml");
    EXPECT_THAT(r.errors, ElementsAre(c.error)) << c.text;
  }
}

TEST(StorageDecodeTest, PodVolumesTheyUse) {
  const LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: i}]
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data-0}}
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        metadata: {labels: {tier: scratch}}
        spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
  - {name: disk, gcePersistentDisk: {pdName: pd-1, readOnly: true}}
  - {name: ceph, rbd: {monitors: [m1], image: img}}
  - {name: config, configMap: {name: settings}}
)",
                              "s.yaml");
  ASSERT_THAT(r.errors, IsEmpty());
  const std::vector<Volume>& v = r.manifests.pods.at(0).spec.volumes;
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0].claim_name, api::Symbol("data-0"));
  ASSERT_TRUE(v[1].ephemeral);
  EXPECT_EQ(v[1].ephemeral->spec.storage, *Quantity::Parse("1Gi"));
  EXPECT_EQ(v[1].ephemeral->labels.Get(Symbol("tier"))->str(), "scratch");
  ASSERT_TRUE(v[2].source.gce_persistent_disk);
  EXPECT_TRUE(v[2].source.gce_persistent_disk->read_only);
  ASSERT_TRUE(v[3].source.rbd);
  EXPECT_EQ(v[3].source.rbd->pool, "rbd") << "the API server's default";
  EXPECT_EQ(v[4].source.kind, "configMap");
}

TEST(StorageDecodeTest, AStatefulSetsClaimTemplates) {
  const LoadResult r = Decode(R"(
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: i}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
  - spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
)",
                              "s.yaml");
  EXPECT_THAT(r.errors, ElementsAre("s.yaml: document 1 (StatefulSet default/db): "
                                    "spec.volumeClaimTemplates[1].metadata.name: Required value"));
  ASSERT_EQ(r.manifests.stateful_sets.at(0).volume_claim_templates.size(), 2u);
  EXPECT_EQ(r.manifests.stateful_sets.at(0).volume_claim_templates[0].name, "data");
}

}  // namespace
}  // namespace muster::api
