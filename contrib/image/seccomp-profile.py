#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Write a seccomp profile for the schedhist container: the container
runtime's default profile (containers-common's
/usr/share/containers/seccomp.json unless named), which allows bpf(2) and
perf_event_open(2) only to CAP_SYS_ADMIN, with those two taken out of its
rules and one rule allowing both instead. The
kernel still asks for CAP_BPF and CAP_PERFMON (the capabilities schedhist
runs with; kernel.unprivileged_bpf_disabled refuses bpf(2) without), so the
container needs no CAP_SYS_ADMIN. (The rule names no capability: podman 4.3
does not match CAP_BPF or CAP_PERFMON in a rule's "includes".) Every other
rule stays as the runtime ships it.

    contrib/image/seccomp-profile.py [DEFAULT.json] > schedhist-seccomp.json
    podman run --security-opt seccomp=schedhist-seccomp.json ...
"""
import json
import sys


path = sys.argv[1] if len(sys.argv) > 1 else '/usr/share/containers/seccomp.json'
try:
    with open(path) as f:
        profile = json.load(f)
except (OSError, ValueError) as e:
    sys.exit(f'seccomp-profile: cannot read the default profile {path}: {e}')
WANT = ['bpf', 'perf_event_open']
for rule in profile['syscalls']:
    rule['names'] = [n for n in rule['names'] if n not in WANT]
profile['syscalls'] = [r for r in profile['syscalls'] if r['names']]
profile['syscalls'].append({'names': WANT, 'action': 'SCMP_ACT_ALLOW',
                            'args': [], 'comment': 'schedhist: the kernel asks for CAP_BPF '
                            'and CAP_PERFMON', 'includes': {}, 'excludes': {}})
json.dump(profile, sys.stdout, indent=1)
print()
