# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Check the manifests of contrib/kubernetes/ and write the DaemonSet's pod
template as a Pod for podman kube play (podman 4.3 plays no DaemonSet).

    kube-pod.py DIR IMAGE PORT NAME [CAPS] > pod.yaml

Checks (one line each, exit 1 on the first that fails): every file parses;
a Namespace, and the DaemonSet and PodMonitor in it; the pod template has
hostPID, a read-only root, no privilege escalation, not privileged, every
capability dropped and only BPF, PERFMON, SETUID and SETGID added,
requests and limits for CPU and memory, liveness and readiness probes on
GET /metrics at the port schedhist --listen serves, the Prometheus scrape
annotations naming that port, /sys/kernel/btf and /sys/fs/cgroup mounted
read-only; the PodMonitor selects the template's labels and scrapes its
port by name.

The Pod: the template under NAME, its container's image IMAGE, the port
PORT (in --listen and containerPort), restartPolicy Never (a failure stays
visible), capabilities CAPS (comma-separated; default: the template's),
and the template's seccompProfile as the annotation podman 4.3 reads.
"""
import glob
import os
import sys

import yaml

d, image, port, name = sys.argv[1:5]
caps = sys.argv[5] if len(sys.argv) > 5 else None


def need(cond, what):
    if not cond:
        sys.exit(f'kube-pod: {what}')


docs = {}
for f in sorted(glob.glob(os.path.join(d, '*.yaml'))):
    with open(f) as fh:
        for doc in yaml.safe_load_all(fh):
            docs[doc['kind']] = doc
need({'Namespace', 'DaemonSet', 'PodMonitor'} <= set(docs), f'kinds {sorted(docs)}')
ns = docs['Namespace']['metadata']['name']
ds, pm = docs['DaemonSet'], docs['PodMonitor']
need(ds['metadata']['namespace'] == ns and pm['metadata']['namespace'] == ns,
     'the DaemonSet and the PodMonitor are not in the namespace')
t = ds['spec']['template']
need(ds['spec']['selector']['matchLabels'].items() <= t['metadata']['labels'].items(),
     'the selector does not select the template')
spec = t['spec']
need(spec.get('hostPID') is True, 'no hostPID')
need(not spec.get('hostNetwork'), 'hostNetwork')
(c,) = spec['containers']
sc = c['securityContext']
need(sc.get('readOnlyRootFilesystem') is True, 'root not read-only')
need(sc.get('allowPrivilegeEscalation') is False, 'privilege escalation allowed')
need(not sc.get('privileged'), 'privileged')
need(sc['capabilities']['drop'] == ['ALL'], 'not every capability dropped')
need(sorted(sc['capabilities']['add']) == ['BPF', 'PERFMON', 'SETGID', 'SETUID'],
     f"capabilities {sc['capabilities']['add']}")
for k in ('requests', 'limits'):
    need({'cpu', 'memory'} <= set(c['resources'][k]), f'no {k} for cpu and memory')
args = c['args']
listen = args[args.index('--listen') + 1]
lport = int(listen.rsplit(':', 1)[1])
(p,) = c['ports']
need(p['containerPort'] == lport, f'containerPort {p["containerPort"]}, --listen {listen}')
for probe in ('livenessProbe', 'readinessProbe'):
    g = c[probe]['httpGet']
    need(g['path'] == '/metrics' and g['port'] in (p['name'], lport), f'{probe} {g}')
a = t['metadata']['annotations']
need(a.get('prometheus.io/scrape') == 'true' and a.get('prometheus.io/port') == str(lport)
     and a.get('prometheus.io/path') == '/metrics', f'scrape annotations {a}')
mounts = {m['mountPath']: m for m in c['volumeMounts']}
for path in ('/sys/kernel/btf', '/sys/fs/cgroup'):
    need(mounts.get(path, {}).get('readOnly') is True, f'{path} not mounted read-only')
need(pm['spec']['selector']['matchLabels'].items() <= t['metadata']['labels'].items(),
     'the PodMonitor does not select the pods')
need([e['port'] for e in pm['spec']['podMetricsEndpoints']] == [p['name']],
     'the PodMonitor does not scrape the metrics port')
print('manifests: ok', file=sys.stderr)

c['image'] = image
c['imagePullPolicy'] = 'Never'
args[args.index('--listen') + 1] = f'0.0.0.0:{port}'
p['containerPort'] = int(port)
if caps is not None:
    sc['capabilities']['add'] = [x for x in caps.split(',') if x]
spec['restartPolicy'] = 'Never'
ann = dict(a)
kind = sc.get('seccompProfile', {}).get('type', 'RuntimeDefault')
ann[f'container.seccomp.security.alpha.kubernetes.io/{c["name"]}'] = \
    {'Unconfined': 'unconfined', 'RuntimeDefault': 'runtime/default'}[kind]
pod = {'apiVersion': 'v1', 'kind': 'Pod',
       'metadata': {'name': name, 'labels': t['metadata']['labels'], 'annotations': ann},
       'spec': spec}
yaml.safe_dump(pod, sys.stdout)
