#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Checks a schedhist exposition beyond what promtool lints.

usage: prom-check.py [--openmetrics] FILE            structure and histogram rules
       prom-check.py --monotone BEFORE AFTER         no counter went backwards

The first form checks: every line is a comment or a sample, each sample
belongs to a family declared before it with HELP and TYPE, no series
appears twice, each histogram's le bounds are increasing and end with
+Inf, its buckets are cumulative, _count equals the +Inf bucket; the
families and labels of the contract (schedhist(8), OUTPUT) are present;
the interval max, where present, is a gauge with the key's labels, tid and comm;
OpenMetrics names counter families without _total, has the info family
schedhist_build, and ends with "# EOF"; the culprit and cgroup counter
families, where present, are counters with the key's labels.
Exemplars (OpenMetrics only): on histogram bucket lines only, at most one
per histogram, labels tid (a number), comm and optionally stack_id (16
hex digits) within OpenMetrics' 128 characters of label names and values,
a value inside its bucket (above the previous le, at most its own) and
equal to the key's interval max of the same tid and comm, a timestamp.
Exits 1 with one line per problem, else prints "ok: N series".
"""
import math
import re
import sys

LABELS = r'(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*'
# a sample, and in OpenMetrics its exemplar: " # {LABELS} VALUE [TIMESTAMP]"
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(' + LABELS + r')\})? (\S+)'
                    r'(?: # \{(' + LABELS + r')\} (\S+)(?: (\S+))?)?$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')
EXEMPLAR_LABELS = {'tid', 'comm', 'stack_id'}
EXEMPLAR_MAX_CHARS = 128	# OpenMetrics: label names and values of one exemplar


def unescape(v):
    """A label value as the scraper reads it (\\\\, \\", \\n)."""
    return re.sub(r'\\(.)', lambda m: '\n' if m.group(1) == 'n' else m.group(1), v)
FAMILIES = {
    'schedhist_wait_seconds': 'histogram',
    'schedhist_events_total': 'counter',
    'schedhist_lost_events_total': 'counter',
    'schedhist_overflow_events_total': 'counter',
    'schedhist_keys': 'gauge',
    'schedhist_build_info': 'gauge',
}

# Families exported only with some options (--culprits, -k cgroup), and
# only once they have a sample: counters with the key's labels (and culprit).
OPTIONAL = {
    'schedhist_culprit_wait_seconds_total': ('metric=', 'key_type=', 'key=', 'culprit=',
                                             'culprit_mode='),
    'schedhist_culprit_waits_total': ('metric=', 'key_type=', 'key=', 'culprit=',
                                      'culprit_mode='),
    'schedhist_cgroup_periods_total': ('metric=', 'key_type="cgroup"', 'key='),
    'schedhist_cgroup_throttled_periods_total': ('metric=', 'key_type="cgroup"', 'key='),
    'schedhist_cgroup_throttled_seconds_total': ('metric=', 'key_type="cgroup"', 'key='),
    'schedhist_cgroup_pressure_some_seconds_total': ('metric=', 'key_type="cgroup"', 'key='),
    'schedhist_cgroup_pressure_full_seconds_total': ('metric=', 'key_type="cgroup"', 'key='),
    'schedhist_stacks_lost_total': (),
}

# The interval's exact max: a gauge, exported once a key had a wait.
MAX_GAUGE = ('schedhist_interval_max_wait_seconds',
             ('metric=', 'key_type=', 'key=', 'tid=', 'comm='))


def parse_labels(text, problems, line):
    labels, pos = [], 0
    while pos < len(text):
        m = LABEL.match(text, pos)
        if not m:
            problems.append(f'bad labels: {line}')
            return None
        labels.append((m.group(1), m.group(2)))
        pos = m.end()
    return labels


def parse(text, om):
    """(samples {series: value}, families {name: type}, problems)."""
    problems, samples, families, helps = [], {}, {}, set()
    exemplars = []
    lines = text.split('\n')
    if lines[-1] != '':
        problems.append('does not end with a newline')
    lines = lines[:-1]
    if om:
        if not lines or lines[-1] != '# EOF':
            problems.append('OpenMetrics text does not end with "# EOF"')
        else:
            lines = lines[:-1]
    hist = {}
    for line in lines:
        if line.startswith('#'):
            parts = line.split(' ', 3)
            if len(parts) < 3 or parts[1] not in ('HELP', 'TYPE', 'UNIT'):
                problems.append(f'bad comment line: {line}')
                continue
            name = parts[2]
            if parts[1] == 'HELP':
                helps.add(name)
            elif parts[1] == 'TYPE':
                families[name] = parts[3]
            continue
        m = SAMPLE.match(line)
        if not m:
            problems.append(f'bad sample line: {line}')
            continue
        name, labels = m.group(1), parse_labels(m.group(3) or '', problems, line)
        try:
            value = float(m.group(4))
        except ValueError:
            problems.append(f'bad value: {line}')
            continue
        if labels is None:
            continue
        series = name + '{' + ','.join(f'{k}="{v}"' for k, v in labels) + '}'
        if m.group(5) is not None:
            check_exemplar(line, name, labels, m, om, families, exemplars, problems)
        if series in samples:
            problems.append(f'duplicate series: {series}')
        samples[series] = value
        fam = family_of(name, families, om)
        if fam is None:
            problems.append(f'sample of an undeclared family: {line}')
            continue
        if fam not in helps:
            problems.append(f'family {fam} has no HELP')
        if families[fam] == 'histogram':
            key = tuple(kv for kv in labels if kv[0] != 'le')
            h = hist.setdefault(key, {'le': [], 'sum': None, 'count': None})
            if name.endswith('_bucket'):
                le = dict(labels).get('le')
                if le is None:
                    problems.append(f'bucket without le: {line}')
                    continue
                h['le'].append((float(le), value))
                if m.group(5) is not None:
                    h.setdefault('exemplars', []).append(float(le))
            elif name.endswith('_sum'):
                h['sum'] = value
            elif name.endswith('_count'):
                h['count'] = value
    for key, h in hist.items():
        bounds = [b for b, _ in h['le']]
        counts = [c for _, c in h['le']]
        if not bounds or bounds[-1] != math.inf:
            problems.append(f'histogram {key} does not end with le="+Inf"')
        if any(b2 <= b1 for b1, b2 in zip(bounds, bounds[1:])):
            problems.append(f'histogram {key}: le bounds not increasing')
        if any(c2 < c1 for c1, c2 in zip(counts, counts[1:])):
            problems.append(f'histogram {key}: buckets not cumulative')
        if h['count'] is None or h['sum'] is None:
            problems.append(f'histogram {key} lacks _sum or _count')
        elif counts and h['count'] != counts[-1]:
            problems.append(f'histogram {key}: _count {h["count"]} != +Inf bucket {counts[-1]}')
        elif h['sum'] < 0:
            problems.append(f'histogram {key}: negative _sum')
        ex = h.get('exemplars', [])
        if len(ex) > 1:
            problems.append(f'histogram {key}: {len(ex)} exemplars, not one')
    for line, key, le, ev, labels in exemplars:
        bounds = [b for b, _ in hist.get(key, {'le': []})['le']]
        lower = max([b for b in bounds if b < le], default=0)
        if not lower < ev <= le:
            problems.append(f'exemplar value {ev} outside its bucket ({lower}, {le}]: {line}')
        gauge = MAX_GAUGE[0] + '{' + ','.join(f'{k}="{v}"' for k, v in key + (
            ('tid', labels.get('tid')), ('comm', labels.get('comm')))) + '}'
        if samples.get(gauge) != ev:
            problems.append(f'exemplar {ev} is not {gauge} ({samples.get(gauge)}): {line}')
    return samples, families, problems


def check_exemplar(line, name, labels, m, om, families, exemplars, problems):
    """One exemplar's syntax and labels; its bucket and value are checked once all is read."""
    if not om:
        problems.append(f'exemplar in the text format 0.0.4: {line}')
        return
    fam = family_of(name, families, om)
    if fam is None or families[fam] != 'histogram' or not name.endswith('_bucket'):
        problems.append(f'exemplar on a line that is no histogram bucket: {line}')
        return
    ex = parse_labels(m.group(5), problems, line)
    if ex is None:
        return
    names = [k for k, _ in ex]
    exd = {k: unescape(v) for k, v in ex}
    if len(set(names)) != len(names) or not {'tid', 'comm'} <= set(names) or \
            not set(names) <= EXEMPLAR_LABELS:
        problems.append(f'exemplar labels {names}, not tid, comm [, stack_id]: {line}')
    if not re.fullmatch(r'[0-9]+', exd.get('tid', '')):
        problems.append(f'exemplar tid not a number: {line}')
    if 'stack_id' in exd and not re.fullmatch(r'[0-9a-f]{16}', exd['stack_id']):
        problems.append(f'exemplar stack_id not 16 hex digits: {line}')
    chars = sum(len(k) + len(v) for k, v in exd.items())
    if chars > EXEMPLAR_MAX_CHARS:
        problems.append(f'exemplar labels of {chars} characters, over {EXEMPLAR_MAX_CHARS}: {line}')
    try:
        ev = float(m.group(6))
        if m.group(7) is not None:
            float(m.group(7))
        else:
            problems.append(f'exemplar without a timestamp: {line}')
    except ValueError:
        problems.append(f'bad exemplar value or timestamp: {line}')
        return
    key = tuple(kv for kv in labels if kv[0] != 'le')
    exemplars.append((line, key, float(dict(labels)['le']), ev,
                      {k: v for k, v in ex}))


def family_of(name, families, om):
    for suffix in ('', '_bucket', '_sum', '_count', '_total', '_info'):
        if suffix and not name.endswith(suffix):
            continue
        base = name[:-len(suffix)] if suffix else name
        if base in families:
            return base
    return None


def check(path, om):
    text = open(path, encoding='utf-8').read()
    samples, families, problems = parse(text, om)
    for name, typ in FAMILIES.items():
        declared = name[:-len('_total')] if om and typ == 'counter' else name
        if om and name == 'schedhist_build_info':
            declared, typ = 'schedhist_build', 'info'
        if families.get(declared) != typ:
            problems.append(f'family {declared} missing or not a {typ}')
    if om and any(n.endswith('_total') and t == 'counter' for n, t in families.items()):
        problems.append('OpenMetrics counter family named with _total')
    if not om and '# EOF' in text:
        problems.append('text format with "# EOF"')
    for name, labels in OPTIONAL.items():
        declared = name[:-len('_total')] if om else name
        if declared in families and families[declared] != 'counter':
            problems.append(f'family {declared} is not a counter')
        for s in samples:
            if s.startswith(name + '{'):
                problems += [f'{s} lacks label {l}' for l in labels if l not in s]
    name, labels = MAX_GAUGE
    if name in families and families[name] != 'gauge':
        problems.append(f'family {name} is not a gauge')
    for s in samples:
        if s.startswith(name + '{'):
            problems += [f'{s} lacks label {l}' for l in labels if l not in s]
    waits = [s for s in samples if s.startswith('schedhist_wait_seconds_count{')]
    for s in waits:
        for label in ('metric=', 'key_type=', 'key='):
            if label not in s:
                problems.append(f'{s} lacks label {label}')
    if not any(s.startswith('schedhist_build_info{version=') and v == 1
               for s, v in samples.items()):
        problems.append('no schedhist_build_info{version=...} 1')
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f'ok: {len(samples)} series, {len(waits)} histograms')
    return 0


def monotone(before_path, after_path):
    before, fam_b, _ = parse(open(before_path, encoding='utf-8').read(), False)
    after, _, _ = parse(open(after_path, encoding='utf-8').read(), False)
    bad = 0
    for s, v in before.items():
        if fam_b.get(family_of(s.split('{')[0], fam_b, False)) == 'gauge':
            continue	# a gauge may go down
        if s in after and after[s] < v:
            print(f'{s} went back from {v} to {after[s]}')
            bad += 1
    if bad:
        return 1
    print(f'ok: {len(before)} series, none went back')
    return 0


if __name__ == '__main__':
    args = sys.argv[1:]
    if args[:1] == ['--monotone'] and len(args) == 3:
        sys.exit(monotone(args[1], args[2]))
    om = args[:1] == ['--openmetrics']
    if om:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    sys.exit(check(args[0], om))
