"""Serving as kube-scheduler serves (issue 29): /healthz, /livez, /readyz and /metrics over
HTTPS on --secure-port, authentication by the API server's TokenReview and authorization by its
SubjectAccessReview (`get` on the non-resource path /metrics). No token: 401. A ServiceAccount
without the grant: 403. One bound to a ClusterRole with `get /metrics`: the metrics. The health
checks need no credentials. A certificate given with --tls-cert-file is the one served, and
--metrics-bind-address adds a plain-HTTP listener only when asked for. A second instance on a
port taken exits 2 naming the address, as kube-scheduler does (no SO_REUSEPORT sharing)."""

import json
import os
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.request

import kube

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
"""


def get(url, token=None, context=None):
    """(status, body text) of a GET."""
    if context is None:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, context=context if url.startswith("https") else None,
                                    timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, ConnectionError) as e:
        return 0, str(e)  # not listening yet


def test(binary, server):
    c = server.client
    c.create_node("n1")
    # muster runs as deploy/ installs it: its ServiceAccount and ClusterRole, whose grants must
    # cover scheduling and the reviews; the scraper is bound to deploy/'s metrics reader role.
    c.apply_file(os.path.join(kube.REPO, "deploy", "rbac.yaml"))
    muster_token = c.service_account_token("muster", "kube-system")
    as_muster = c.kubeconfig_for(muster_token)
    scraper = c.service_account_token("scraper")
    nobody = c.service_account_token("nobody")
    c.must("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
           {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": "scraper"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": "muster-metrics-reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "scraper", "namespace": "default"}]})

    port = kube.free_port()
    base = f"https://127.0.0.1:{port}"
    m = kube.Muster(binary, as_muster, config=CONFIG,
                    args=(f"--secure-port={port}", "--bind-address=127.0.0.1", "--v=10"))
    try:
        kube.wait_until("/readyz", lambda: get(base + "/readyz")[0] == 200, timeout=30)
        for path in ("/healthz", "/livez", "/readyz"):
            status, body = get(base + path)
            assert (status, body) == (200, "ok"), (path, status, body)

        status, body = get(base + "/metrics")
        assert status == 401, (status, body)
        assert json.loads(body)["reason"] == "Unauthorized", body
        status, body = get(base + "/metrics", token="not-a-token")
        assert status == 401, (status, body)

        status, body = get(base + "/metrics", token=nobody)
        assert status == 403, (status, body)
        message = json.loads(body)["message"]
        assert message == ('forbidden: User "system:serviceaccount:default:nobody" cannot get '
                           'path "/metrics"'), message

        status, body = get(base + "/metrics", token=scraper)
        assert status == 200, (status, body)
        assert "scheduler_schedule_attempts_total" in body, body[:2000]
        # The gauges follow the scheduler's loop, which starts once the informers synced.
        kube.wait_until("the node counted", lambda: 'scheduler_scheduler_cache_size{type="nodes"} 1'
                        in get(base + "/metrics", token=scraper)[1])
        # system:masters may do anything.
        assert get(base + "/metrics", token=server.token)[0] == 200
        # And with deploy/'s grants muster schedules.
        c.create_pod("web", scheduler="default-scheduler")
        kube.wait_until("web bound", lambda: c.node_of("web") == "n1")
        # No plain-HTTP listener unless asked for.
        assert "insecurely" not in m.text()
        # A second instance on the same port (a standby started by hand, a leftover) does not
        # share it: it fails as kube-scheduler does, naming the address, exit status 2.
        second = subprocess.run([binary, "run", "--kubeconfig", server.kubeconfig,
                                 f"--secure-port={port}", "--bind-address=127.0.0.1"],
                                capture_output=True, text=True, timeout=30)
        assert second.returncode == 2, second
        assert f"listen tcp 127.0.0.1:{port}" in second.stderr, second.stderr
        assert "already in use" in second.stderr, second.stderr
        assert get(base + "/healthz") == (200, "ok")
    except BaseException:
        print(m.text())
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"
    # Its reviews are logged at -v=10, the tokens they carry are not.
    text = m.text()
    assert "tokenreviews" in text and "subjectaccessreviews" in text, text
    for token in (scraper, nobody, muster_token, server.token):
        assert token not in text, "a bearer token was logged"

    # A certificate of our own, and the plain-HTTP listener asked for.
    work = tempfile.mkdtemp()
    cert, key = os.path.join(work, "tls.crt"), os.path.join(work, "tls.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=muster-e2e", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    port = kube.free_port()
    plain = kube.free_port()
    m = kube.Muster(binary, server.kubeconfig, config=CONFIG,
                    args=("--secure-port", str(port), "--bind-address", "127.0.0.1",
                          f"--tls-cert-file={cert}", f"--tls-private-key-file={key}",
                          f"--metrics-bind-address=127.0.0.1:{plain}"))
    try:
        verify = ssl.create_default_context(cafile=cert)  # only our certificate is trusted
        kube.wait_until("/healthz over verified TLS",
                        lambda: get(f"https://127.0.0.1:{port}/healthz", context=verify)[0] == 200,
                        timeout=30)
        assert get(f"https://127.0.0.1:{port}/metrics", token=scraper, context=verify)[0] == 200
        status, body = get(f"http://127.0.0.1:{plain}/metrics")
        assert status == 200 and "scheduler_pending_pods" in body, (status, body[:500])
    except BaseException:
        print(m.text())
        raise
    code = m.stop()
    assert code == 0, f"muster exited {code}:\n{m.text()}"

    # A certificate without its key is bad input.
    bad = subprocess.run([binary, "run", "--kubeconfig", server.kubeconfig,
                          f"--tls-cert-file={cert}"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2, bad
    assert "--tls-private-key-file" in bad.stderr, bad.stderr


if __name__ == "__main__":
    kube.main(test)
