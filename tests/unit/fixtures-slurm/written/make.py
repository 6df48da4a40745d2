#!/usr/bin/env python3
"""Writes the v0.0.39..v0.0.42 fixtures from the captured v0.0.38 ones,
applying the documented shape changes (shared/slurm/README.md's version
table, MAPPING.md "Newer versions"). Written, not captured: no Slurm 23.x/24.x
ran. Usage: python3 make.py (from this directory)."""
import json, os
here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, '..', 'v0.0.38')
def load(n): return json.load(open(os.path.join(src, n)))
NUMS = {'time_limit', 'priority', 'submit_time', 'start_time', 'end_time', 'eligible_time',
        'cpus', 'node_count', 'array_job_id', 'array_task_id', 'memory_per_node',
        'memory_per_cpu', 'restart_cnt', 'real_memory', 'last_update'}
def tnum(v):
    if v is None: return {'set': False, 'infinite': False, 'number': 0}
    if v in (4294967294,): return {'set': True, 'infinite': True, 'number': 0}
    return {'set': True, 'infinite': False, 'number': v}
def meta(minor):
    return {'plugin': {'type': 'openapi/slurmctld', 'name': 'Slurm OpenAPI slurmctld',
                       'data_parser': 'data_parser/v0.0.%d' % minor},
            'client': {'source': '[127.0.0.1]:40000', 'user': 'alice', 'group': 'alice'},
            'command': [], 'slurm': {'version': {'major': '24', 'micro': '1', 'minor': '11' if minor >= 42 else '05'},
                                     'release': '24.11.1' if minor >= 42 else '24.05.1', 'cluster': 'ci'}}
def exitobj(ws):
    if ws is None: ws = 0
    sig = ws & 0x7f
    if sig:
        return {'status': ['SIGNALED'], 'return_code': tnum(None),
                'signal': {'id': tnum(sig), 'name': 'SIGTERM' if sig == 15 else 'SIG%d' % sig}}
    rc = (ws >> 8) & 0xff
    return {'status': ['SUCCESS' if rc == 0 else 'ERROR'], 'return_code': tnum(rc),
            'signal': {'id': tnum(None), 'name': ''}}
def job(j, minor):
    j = dict(j)
    for k in NUMS:
        if k in j and minor >= 39: j[k] = tnum(j[k])
    if minor >= 40:
        st = [j['job_state']]
        j['job_state'] = st
        j['exit_code'] = exitobj(j['exit_code'])
        j['hold'] = j['state_reason'] in ('JobHeldUser', 'JobHeldAdmin')
        # the TRES form replaces gres strings
        if j.get('tres_per_node'): j['tres_per_node'] = j['tres_per_node'].replace('gres:', 'gres/')
        j['standard_output'] = j['standard_output'].replace('%j', str(j['job_id']))
    return j
def node(n, minor):
    n = dict(n)
    if minor >= 40:
        n['state'] = [n['state'].upper()] + list(n.get('state_flags', []))
        del n['state_flags']
    for k in ('cpus', 'real_memory'):
        if minor >= 39 and k in n: n[k] = n[k]  # plain integers stay plain for nodes
    return n
def write(name, obj):
    with open(os.path.join(here, name), 'w') as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write('\n')
for minor in (39, 40, 41, 42):
    v = 'v0.0.%d' % minor
    jobs = load('jobs_final.json')
    write(v + '_jobs.json', {'meta': meta(minor), 'errors': [], 'warnings': [],
                             'jobs': [job(j, minor) for j in jobs['jobs']],
                             'last_backfill': tnum(1795947700), 'last_update': tnum(1795947700)})
    nodes = load('nodes_final.json')
    write(v + '_nodes.json', {'meta': meta(minor), 'errors': [], 'warnings': [],
                              'nodes': [node(n, minor) for n in nodes['nodes']]})
    ping = {'meta': meta(minor), 'errors': [], 'warnings': [],
            'pings': [{'hostname': 'vm', 'pinged': 'UP', 'latency': 120, 'mode': 'primary'}]}
    if minor >= 42: ping['pings'][0].update({'responding': True, 'primary': True})
    write(v + '_ping.json', ping)
    sub = {'meta': meta(minor), 'errors': [], 'warnings': [], 'job_id': 4, 'step_id': 'batch',
           'job_submit_user_msg': ''}
    if minor in (40, 41):
        sub['result'] = {'job_id': 4, 'step_id': 'batch', 'error_code': 0, 'error': '',
                         'job_submit_user_msg': ''}
    write(v + '_job_submit_response.json', sub)
    write(v + '_error_job_not_found.json', {'meta': meta(minor), 'warnings': [], 'jobs': [],
        'errors': [{'description': 'Unable to find JobId=999999', 'error_number': 2017,
                    'error': 'Invalid job id specified', 'source': 'slurm_load_job'}]})
    write(v + '_error_permission.json', {'meta': meta(minor), 'warnings': [],
        'results': [{'job_id': 13, 'step_id': 'batch', 'error_code': 2010, 'error': 'Invalid user id', 'why': ''}],
        'errors': [{'description': 'job update failed', 'error_number': 2010,
                    'error': 'Invalid user id', 'source': '_update_job'}]})
