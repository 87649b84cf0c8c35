"""A gang that arrives one pod at a time (issue 47): a PodGroup of minMember 24 (Coscheduling,
Group mode), then its 24 pods created 0.1 s apart, on four nodes with room for all, with
kube-scheduler's default client limits. Every member is bound, and on the way muster costs the
cluster at most one FailedScheduling occurrence per member, at most one pods/status write per
member before its binding, and at most two scheduling attempts per member: the members wait at
PreEnqueue until the gang is whole, and are then placed in one group cycle. While the gang waits,
the PodGroup says so (its Scheduled condition), with one event, not one per member per arrival.

The counts come from the API server's own request metrics, its events, and muster's
scheduler_schedule_attempts_total. MUSTER_GANG_SIZE and MUSTER_GANG_GAP change the gang,
MUSTER_GANG_MODE Coscheduling's mode, and with MUSTER_GANG_MEASURE set it prints the figures
without holding them to the bounds (BENCHMARKS.md's gang arrival table comes from it)."""

import os
import time
import urllib.request

import kube


def status_writes(c):
    """The API server's count of writes to pods/status (every verb but reads)."""
    req = urllib.request.Request(c.url + "/metrics")
    req.add_header("Authorization", "Bearer " + c.token)
    with urllib.request.urlopen(req, context=c.ctx, timeout=30) as r:
        text = r.read().decode()
    total = 0
    for line in text.splitlines():
        if not line.startswith("apiserver_request_total{"):
            continue
        labels = line[line.index("{") + 1:line.index("}")]
        if ('resource="pods"' in labels and 'subresource="status"' in labels and
                'verb="GET"' not in labels and 'verb="LIST"' not in labels and
                'verb="WATCH"' not in labels):
            total += float(line.rsplit(" ", 1)[1])
    return int(total)


def occurrences(event):
    return (event.get("series") or {}).get("count") or event.get("deprecatedCount") or 1


def test(binary, server):
    size = int(os.environ.get("MUSTER_GANG_SIZE", "24"))
    gap = float(os.environ.get("MUSTER_GANG_GAP", "0.1"))
    c = server.client
    per_node = (size + 3) // 4
    for i in range(4):
        c.create_node(f"n{i}", cpu=str(per_node), memory="64Gi", pods="300")
    metrics_port = kube.free_port()
    mode = os.environ.get("MUSTER_GANG_MODE", "Group")
    config = kube.coscheduling_config("clientConnection: {qps: 50, burst: 100}\n",
                                      args=f"{{mode: {mode}}}")
    m = kube.Muster(binary, server.kubeconfig, config=config,
                    args=(f"--metrics-bind-address=127.0.0.1:{metrics_port}",))
    metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
    try:
        kube.wait_until("muster serving metrics", lambda: _scrape(metrics_url))
        c.create_pod_group("wide", size)
        # Time for muster to see the group before its first member.
        time.sleep(1)
        before = status_writes(c)
        names = [f"wide-{i}" for i in range(size)]
        started = time.monotonic()
        for name in names:
            c.create_pod(name, cpu="900m", group="wide")
            time.sleep(gap)
        kube.wait_until("every member bound", lambda: c.all_bound(names), timeout=120)
        whole = time.monotonic() - started
        # Writes and events are asynchronous: let them land.
        time.sleep(2)
        writes = status_writes(c) - before

        uids = {p["metadata"]["uid"]: p["metadata"]["name"] for p in c.pods()}
        failed = [e for e in c.events() if e["reason"] == "FailedScheduling" and
                  e["regarding"].get("uid") in uids]
        failed_occurrences = sum(occurrences(e) for e in failed)
        samples = _scrape(metrics_url)
        attempts = int(sum(v for k, v in samples.items()
                           if k.startswith("scheduler_schedule_attempts_total{")))
        group_events = [e for e in c.events() if e["regarding"].get("kind") == "PodGroup"]
        print(f"gang of {size}, {gap}s apart: bound {whole:.1f}s after the first member; "
              f"FailedScheduling {failed_occurrences} occurrence(s) in {len(failed)} event(s); "
              f"pods/status writes {writes}; scheduling attempts {attempts}; "
              f"PodGroup events {[(e['reason'], e['note']) for e in group_events]}")

        if os.environ.get("MUSTER_GANG_MEASURE"):
            m.stop()
            return  # the figures only (another mode, another build)
        assert failed_occurrences <= size, f"{failed_occurrences} FailedScheduling for {size}"
        assert writes <= size, f"{writes} pods/status writes for {size} members"
        assert attempts <= 2 * size, f"{attempts} attempts for {size} members"
        # Nothing on any member: the gang waited at PreEnqueue and was placed whole, at once.
        assert not failed, [e["note"] for e in failed]
        assert attempts == size, f"{attempts} attempts: each member once"
        # The PodGroup's Scheduled condition is the group cycle's (True); events on the group,
        # at most one per change of state.
        cond = next(x for x in c.pod_group("wide")["status"].get("conditions", [])
                    if x["type"] == "Scheduled")
        assert cond["status"] == "True", cond
        assert len(group_events) <= 2, group_events
        assert not [e for e in group_events if e["type"] == "Warning"], group_events

        # A gang that stays short says so once, on the PodGroup: its condition, with the count,
        # and one Normal event; its members get one condition each, and no event of their own.
        c.create_pod_group("short", 5)
        time.sleep(1)
        before = status_writes(c)
        short = [f"short-{i}" for i in range(4)]
        for name in short:
            c.create_pod(name, cpu="100m", group="short")
            time.sleep(gap)

        def said():
            conds = c.pod_group("short").get("status", {}).get("conditions", [])
            cond = next((x for x in conds if x["type"] == "Scheduled"), None)
            members = [kube.pod_scheduled_condition(c.pod(n)) for n in short]
            return (cond, members) if cond and all(members) else None

        cond, members = kube.wait_until("the short gang's wait reported", said, timeout=30)
        assert (cond["status"], cond["reason"]) == ("False", "NotReadyForScheduling"), cond
        assert cond["message"] == "waiting for pods: 4/5 exist (minMember 5)", cond
        for member in members:
            assert (member["status"], member["reason"]) == ("False", "NotReadyForScheduling"), \
                member
            assert "minMember (5)" in member["message"], member
        time.sleep(7)  # past another report's delay: nothing more is written
        writes = status_writes(c) - before
        assert writes == len(short), f"{writes} pods/status writes for {len(short)} members"
        uids = {p["metadata"]["uid"] for p in c.pods() if p["metadata"]["name"] in short}
        assert not [e for e in c.events() if e["regarding"].get("uid") in uids], \
            "events on the short gang's members"
        waiting = [e for e in c.events() if e["regarding"].get("kind") == "PodGroup" and
                   e["regarding"].get("name") == "short"]
        assert len(waiting) == 1 and waiting[0]["type"] == "Normal", waiting
        assert waiting[0]["reason"] == "NotReadyForScheduling", waiting
        # Its last member arrives: the gang is placed whole.
        c.create_pod("short-4", cpu="100m", group="short")
        kube.wait_until("the short gang bound", lambda: c.all_bound(short + ["short-4"]))
    except BaseException:
        print(m.text())
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"


def _scrape(url):
    try:
        return kube.scrape(url)
    except OSError:
        return None


if __name__ == "__main__":
    kube.main(test)
