"""One leader under a partition (issue 29): instance A reaches the server through a proxy that
stops answering (a partition, not a refused connection) while its open watches keep flowing, so
A keeps seeing new pods; instance B talks to the server directly. A must stop leading when its
renew deadline passes: no binding request leaves it after that, it exits non-zero, and B takes
over once the lease expires. No pod is bound twice."""

import time

import kube

LEASE, RENEW, RETRY = 6.0, 4.0, 1.0
CONFIG = f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  leaseDuration: {LEASE:g}s
  renewDeadline: {RENEW:g}s
  retryPeriod: {RETRY:g}s
  resourceNamespace: kube-system
  resourceName: muster-partition
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 1
"""


def test(binary, server):
    c = server.client
    c.create_node("n1", cpu="64", pods="200")
    with kube.LeaderElection(binary, server, CONFIG) as election:
        pa, pb = election.proxy("a"), election.proxy("b")
        a = election.lead("a")
        c.create_pod("before")
        kube.wait_until("a binds", lambda: c.node_of("before") == "n1", timeout=30)
        b = election.follow("b")

        # The partition: A's requests hang; its watches still bring it every new pod.
        with pa.faults.lock:
            pa.faults.stall = True
        cut = time.monotonic()
        names = []
        b_led_at = None
        while time.monotonic() - cut < LEASE + 6:
            name = f"p-{len(names)}"
            c.create_pod(name)
            names.append(name)
            if b_led_at is None and "took lease" in b.text():
                b_led_at = time.monotonic()
            time.sleep(0.25)
        code = a.proc.wait(timeout=30)
        assert code == 1, f"a exited {code}:\n{a.text()}"
        assert "lost lease" in a.text(), a.text()
        kube.wait_until("b to lead", lambda: "took lease" in b.text(), timeout=30)
        b_led_at = b_led_at or time.monotonic()

        # A's last renewal was before the cut: its deadline is at most RENEW after it. No
        # binding request may leave A past it (a little slack for the proxy's own timing).
        with pa.faults.lock:
            late = [t - cut for t in pa.faults.bind_requests if t > cut + RENEW + 0.3]
        assert not late, f"a sent bindings {late}s after the cut (renew deadline {RENEW}s)"
        assert b_led_at - cut >= RENEW, f"b led {b_led_at - cut:.1f}s after the cut"

        kube.wait_until("every pod bound", lambda: c.all_bound(names), timeout=60)
        with pa.faults.lock, pb.faults.lock:
            for n in names + ["before"]:
                key = f"default/{n}"
                twice = pa.faults.binds_accepted.get(key, 0) + pb.faults.binds_accepted.get(key, 0)
                assert twice <= 1, f"{key} bound {twice} times"


if __name__ == "__main__":
    kube.main(test)
