"""Two `muster run --leader-elect` instances on one server: only the holder of the Lease binds;
killing it hands over within the lease; a leader cut off from the server for longer than its
renew deadline stops scheduling and exits non-zero. Each instance talks through its own proxy,
which counts the bindings it made."""

import signal
import time

import kube

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  leaseDuration: 4s
  renewDeadline: 3s
  retryPeriod: 500ms
  resourceNamespace: kube-system
  resourceName: muster-test
"""


def binds(proxy):
    """The bindings the server accepted through `proxy`."""
    with proxy.faults.lock:
        return sum(proxy.faults.binds_accepted.values())


def test(binary, server):
    c = server.client
    c.create_node("n1", cpu="64", pods="200")
    with kube.LeaderElection(binary, server, CONFIG) as election:
        pa, pb = election.proxy("a"), election.proxy("b")
        a = election.lead("a")
        b = election.follow("b")
        first = [f"first-{i}" for i in range(10)]
        for n in first:
            c.create_pod(n)
        kube.wait_until("the first pods bound", lambda: c.all_bound(first), timeout=30)
        # The server commits a binding before the proxy reads its answer and counts it.
        kube.wait_until("a's proxy to count the bindings", lambda: binds(pa) == 10, timeout=10)
        assert binds(pb) == 0, pb.faults.binds_accepted
        assert "took lease" not in b.text()

        # The leader dies without giving the lease up: b takes over once it expires.
        killed = time.monotonic()
        a.stop(signal.SIGKILL)
        kube.wait_until("b to lead", lambda: "took lease" in b.text(), timeout=30)
        handover = time.monotonic() - killed
        assert handover < 4 + 2, f"handover took {handover:.1f}s (lease 4s)"
        second = [f"second-{i}" for i in range(10)]
        for n in second:
            c.create_pod(n)
        kube.wait_until("the second pods bound", lambda: c.all_bound(second), timeout=30)
        kube.wait_until("b's proxy to count the bindings", lambda: binds(pb) == 10, timeout=10)
        assert binds(pa) == 10, pa.faults.binds_accepted

        # Cut off from the server past its renew deadline, b stops and exits non-zero.
        with pb.faults.lock:
            pb.faults.down = True
        code = b.proc.wait(timeout=30)
        assert code == 1, f"b exited {code}:\n{b.text()}"
        assert "lost lease" in b.text()


if __name__ == "__main__":
    kube.main(test)
