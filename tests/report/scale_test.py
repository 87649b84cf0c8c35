"""The HTML report of a large run stays small and quick to open: a generated cluster of 1,000
nodes (four shapes, one with GPUs) and 10,000 pods (Deployments, Jobs that run and finish,
gangs of 8 under Coscheduling, gated pods, pods and a gang that can never fit). The report must
be under 3 MiB and open in headless Chromium in under 10 s (DOM and screenshot each), with no
console output, its charts in the DOM and drawn on the screenshot. Prints the measurements, and
how long simulate took with and without --report.

Usage: scale_test.py [MUSTER_BINARY]           the test (skipped without chromium, unless CI)
       scale_test.py --write DIR               only writes workload.yaml and config.yaml"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import chromium

MAX_BYTES = 3 * 1024 * 1024
MAX_SECONDS = 10.0
PALETTE = {"running": "#0072B2", "succeeded": "#009E73", "pending": "#E69F00"}

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: Coscheduling
    args: {mode: Group, podGroupBackoffSeconds: 30}
  plugins:
    multiPoint:
      enabled: [{name: Coscheduling}]
    queueSort:
      enabled: [{name: Coscheduling}]
      disabled: [{name: "*"}]
"""

# (name prefix, count, cpu, memory, extra allocatable)
SHAPES = [("small", 400, "8", "32Gi", ""),
          ("large", 300, "32", "128Gi", ""),
          ("gpu", 200, "16", "64Gi", ", nvidia.com/gpu: \"4\""),
          ("highmem", 100, "16", "256Gi", "")]


def container(cpu, memory, gpu=0, indent=6):
    """A pod spec's containers, at `indent` (6 in a workload's template, 2 in a Pod)."""
    pad = " " * indent
    limits = f", limits: {{nvidia.com/gpu: \"{gpu}\"}}" if gpu else ""
    return (f"{pad}containers:\n{pad}- name: main\n{pad}  image: registry.example/app:1\n"
            f"{pad}  resources: {{requests: {{cpu: \"{cpu}\", memory: {memory}}}{limits}}}\n")


def workload():
    """The manifests, and how many pods they create in all."""
    docs, pods = [], 0
    for prefix, count, cpu, memory, extra in SHAPES:
        for i in range(count):
            zone = "abc"[i % 3]
            docs.append(
                f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {prefix}-{i:03d}\n"
                f"  labels: {{kubernetes.io/hostname: {prefix}-{i:03d}, "
                f"topology.kubernetes.io/zone: zone-{zone}}}\n"
                f"status:\n  allocatable: {{cpu: \"{cpu}\", memory: {memory}, pods: \"110\"{extra}}}\n")
    # Long-running services, arriving over the first five minutes.
    for d in range(10):
        docs.append(
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc-{d}\n"
            f"  annotations: {{muster.dev/create-after: {d * 30}s}}\n"
            f"spec:\n  replicas: 300\n  selector: {{matchLabels: {{app: svc-{d}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: svc-{d}}}}}\n    spec:\n" +
            container(["500m", "1", "2"][d % 3], ["1Gi", "2Gi", "4Gi"][d % 3]))
        pods += 300
    # Batch Jobs: 100 completions, 25 at a time, each pod running one to four minutes.
    for j in range(56):
        docs.append(
            f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: batch-{j:02d}\n"
            f"  annotations: {{muster.dev/create-after: {(j * 20) % 900}s}}\n"
            f"spec:\n  parallelism: 25\n  completions: 100\n  template:\n"
            f"    metadata: {{annotations: {{muster.dev/run-for: {60 + (j % 4) * 60}s}}}}\n"
            f"    spec:\n      restartPolicy: Never\n" + container("1", "2Gi"))
        pods += 100
    # Gangs of 8 GPU pods, one every ten seconds over the first 25 minutes.
    for g in range(150):
        docs.append(
            f"apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata:\n"
            f"  name: train-{g:03d}\n  annotations: {{muster.dev/create-after: {g * 10}s}}\n"
            f"spec: {{minMember: 8}}\n")
        docs.append(
            f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train-{g:03d}\n"
            f"  annotations: {{muster.dev/create-after: {g * 10}s}}\n"
            f"spec:\n  parallelism: 8\n  completions: 8\n  template:\n"
            f"    metadata:\n      labels: {{scheduling.x-k8s.io/pod-group: train-{g:03d}}}\n"
            f"      annotations: {{muster.dev/run-for: {120 + (g % 5) * 120}s}}\n"
            f"    spec:\n      restartPolicy: Never\n" + container("4", "16Gi", gpu=1))
        pods += 8
    # Gated pods: half are ungated after a minute.
    for p in range(50):
        ungate = "\n    muster.dev/ungate-after: 60s" if p % 2 == 0 else ""
        docs.append(
            f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: gated-{p:02d}\n"
            f"  annotations:\n    muster.dev/create-after: 30s{ungate}\n"
            f"spec:\n  schedulingGates: [{{name: example.com/quota}}]\n" +
            container("1", "1Gi", indent=2))
        pods += 1
    # What can never fit: 64-CPU pods, and a gang of 50 wanting 8 GPUs each.
    docs.append(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: huge\n"
        "spec:\n  replicas: 100\n  selector: {matchLabels: {app: huge}}\n"
        "  template:\n    metadata: {labels: {app: huge}}\n    spec:\n" + container("64", "8Gi"))
    pods += 100
    docs.append("apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata:\n"
                "  name: too-big\nspec: {minMember: 50}\n")
    docs.append(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: too-big\n"
        "spec:\n  parallelism: 50\n  completions: 50\n  template:\n"
        "    metadata:\n      labels: {scheduling.x-k8s.io/pod-group: too-big}\n"
        "    spec:\n      restartPolicy: Never\n" + container("8", "32Gi", gpu=8))
    pods += 50
    return "---\n".join(docs), pods


def write(directory):
    os.makedirs(directory, exist_ok=True)
    manifests, pods = workload()
    paths = (os.path.join(directory, "workload.yaml"), os.path.join(directory, "config.yaml"))
    with open(paths[0], "w") as f:
        f.write(manifests)
    with open(paths[1], "w") as f:
        f.write(CONFIG)
    return paths, pods


def simulate(binary, workload_path, config_path, report=None):
    args = [binary, "simulate", "-f", workload_path, "--config", config_path, "-o", "json"]
    if report:
        args += ["--report", report]
    start = time.monotonic()
    run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         timeout=1800)
    seconds = time.monotonic() - start
    assert run.returncode == 0, f"simulate exited {run.returncode}:\n{run.stderr[-4000:]}"
    return seconds, run.stdout


def test(binary, tmp):
    (workload_path, config_path), pods = write(tmp)
    assert pods == 10_000, pods
    report = os.path.join(tmp, "report.html")
    with_report, out = simulate(binary, workload_path, config_path, report)
    without_report, out_plain = simulate(binary, workload_path, config_path)
    assert out == out_plain, "--report changed simulate's output"
    summary = re.search(r'"summary": \{[^}]*\}', out, re.S).group(0)
    size = os.path.getsize(report)
    with open(report) as f:
        html = f.read()
    chromium.static_checks(html)
    print(f"simulate: {without_report:.1f}s without --report, {with_report:.1f}s with it; "
          + " ".join(summary.split()))
    print(f"report: {size} bytes ({size / 1024:.0f} KiB)")
    assert size < MAX_BYTES, f"the report is {size} bytes"
    assert "1,000" in html and "10,000" in html
    assert "The first 500 of 10,000 pods" in html
    assert "PodGroup short of quorum" in html, "too-big never reaches quorum"

    loaded = chromium.load(report, dump_dom=True, timeout=120)
    assert not loaded.console, "console output:\n" + "\n".join(loaded.console)
    svgs = re.findall(r"<svg\b.*?</svg>", loaded.dom, re.S)
    assert len(svgs) >= 5, f"{len(svgs)} charts"
    assert re.search(r'<path d="M[^"]*[VH]', svgs[0]), "the pods chart has no areas"

    png = os.path.join(tmp, "report.png")
    shot = chromium.load(report, screenshot=png, window=(1400, 2400), timeout=120)
    assert not shot.console, "console output:\n" + "\n".join(shot.console)
    with open(png, "rb") as f:
        image = chromium.decode_png(f.read())
    stats = chromium.analyse(image, PALETTE)
    print(f"chromium: DOM in {loaded.seconds:.2f}s, screenshot (1400x2400) in {shot.seconds:.2f}s;"
          f" {stats['distinct']} distinct colours, {stats['drawn_fraction']:.0%} drawn, "
          f"{stats['counts']}")
    assert loaded.seconds < MAX_SECONDS, f"DOM took {loaded.seconds:.1f}s"
    assert shot.seconds < MAX_SECONDS, f"screenshot took {shot.seconds:.1f}s"
    assert stats["distinct"] >= 50
    for name in ("running", "succeeded"):
        assert stats["rows_with"][name] >= 20, f"{name}: no band of colour: {stats}"


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        (workload_path, config_path), pods = write(sys.argv[2])
        print(f"wrote {workload_path} ({pods} pods) and {config_path}")
        return
    chromium.require_chromium()
    binary = chromium.default_binary()
    tmp = tempfile.mkdtemp(prefix="muster-report-scale-")
    try:
        test(binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
