#!/usr/bin/env python3
"""Writes the hostile tuning corpus: T1 specs, results files, policy databases and the MANIFEST that
tests/test_hostile_tune.c runs. Each MANIFEST line: EXIT <tab> SUBSTRING <tab> COMMAND. COMMAND runs under sh
in a fresh copy of this folder with $V the vkocc binary, $FP a fingerprint of another device (the H100's) and
$FAST the options that keep a lavapipe tune short (and accept that fingerprint). SUBSTRING must occur in its
stdout or stderr (empty: anything). A crash, a sanitizer report or a hang fails whatever the line says.
Hand-made files (ok.json, r.json, k.comp ...) are kept; everything named g_* is written here."""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)
for f in os.listdir('.'):
    if f.startswith('g_'):
        os.remove(f)

BASE = json.load(open('ok.json'))
RES = json.load(open('r.json'))
lines = []


def case(code, sub, cmd):
    assert '\t' not in cmd and '\n' not in cmd
    lines.append('%d\t%s\t%s' % (code, sub, cmd))


def spec(name, fn=None, doc=None):
    d = copy.deepcopy(BASE) if doc is None else doc
    if fn:
        fn(d)
    path = 'g_%s.json' % name
    with open(path, 'w') as f:
        json.dump(d, f)
    return path


def write(name, obj, raw=None):
    path = 'g_%s' % name
    with open(path, 'w') as f:
        f.write(raw if raw is not None else json.dumps(obj))
    return path


KS = lambda d: d['KernelSpecification']
ARGS = lambda d: d['KernelSpecification']['Arguments']
PARAMS = lambda d: d['ConfigurationSpace']['TuningParameters']

# ---------------------------------------------------------------- the spec as it should run
case(0, '2 correct', '$V tune ok.json -o out.json $FAST')

# ---------------------------------------------------------------- crashes
def drop(key):
    return lambda d: KS(d).pop(key)
case(2, 'KernelName', '$V tune %s -o out.json $FAST' % spec('kname_missing', drop('KernelName')))
case(2, 'KernelName', '$V tune %s -o out.json $FAST' % spec('kname_empty', lambda d: KS(d).update(KernelName='')))
case(2, 'KernelName', '$V tune %s -o out.json $FAST' % spec('kname_wrong', lambda d: KS(d).update(KernelName='nosuch')))
case(2, 'KernelName', '$V tune %s -o out.json $FAST' % spec('kname_space', lambda d: KS(d).update(KernelName='ma in')))
case(2, 'KernelName', '$V tune %s -o out.json $FAST' % spec('kname_long', lambda d: KS(d).update(KernelName='m' * 300)))


def huge(d, gen=False, ps=(1 << 20, 1 << 14)):
    KS(d)['ProblemSize'] = list(ps)
    KS(d)['GlobalSize'] = {'X': '1024'}  # the buffers' size is what must be refused
    for a in ARGS(d):
        if a['MemoryType'] == 'Vector':
            a['Size'] = 'ProblemSize[0] * ProblemSize[1]'
    if gen:
        KS(d)['ReferenceArguments'] = [{'Name': 'ref', 'TargetName': 'out', 'FillType': 'Generator', 'DataSource': 'i * 2'}]


case(2, 'maxStorageBufferRange', '$V tune %s -o out.json $FAST' % spec('problem_64g', huge))
case(2, 'maxStorageBufferRange', '$V tune %s -o out.json $FAST' % spec('problem_64g_ref', lambda d: huge(d, True)))
case(2, 'maxStorageBufferRange', '$V tune %s -o out.json $FAST' % spec('gen_2g', lambda d: huge(d, True, (1 << 31, 1))))
case(2, 'maxStorageBufferRange', '$V tune %s -o out.json $FAST' % spec('const_ref_1t', lambda d: (huge(d, False, (1 << 38, 1)), KS(d).update(ReferenceArguments=[{'Name': 'r', 'TargetName': 'out', 'FillType': 'Constant', 'FillValue': 1}]))))

# replay and resume of hostile results
def results(name, fn):
    d = copy.deepcopy(RES)
    fn(d)
    return write(name + '.json', d)


def no_param(d):
    d['results'][1]['config'] = {}
case(2, 'WG', '$V tune --replay %s' % results('r_missing_param', no_param))
case(2, 'WG', '$V tune --replay %s' % results('r_all_missing_param', lambda d: [r.update(config={}) for r in d['results']]))
case(2, '', '$V tune --replay %s' % results('r_param_null', lambda d: d['results'][0]['config'].update(WG=None)))
case(2, '', '$V tune --replay %s' % results('r_param_obj', lambda d: d['results'][0]['config'].update(WG={'a': 1})))


def dup(d, fake=True):
    e = copy.deepcopy(d['results'][0])
    if fake:
        e['median_ns'] = 1.0
        e['times_ns'] = [1.0, 1.0, 1.0]
        e['min_ns'] = e['max_ns'] = 1.0
    d['results'].append(e)
case(2, 'twice', 'cp %s out.json && $V tune ok.json -o out.json --resume $FAST' % results('r_dup', dup))
case(2, 'twice', 'cp %s out.json && $V tune ok.json -o out.json --resume $FAST' % results('r_dup_same', lambda d: dup(d, False)))
case(2, 'twice', '$V policy build %s -o db.json' % results('r_dup_policy', dup))
case(2, '', 'cp %s out.json && $V tune ok.json -o out.json --resume $FAST' % results('r_not_in_space', lambda d: d['results'][0]['config'].update(WG=48)))
case(2, '', 'cp %s out.json && $V tune ok.json -o out.json --resume $FAST' % results('r_times_str', lambda d: d['results'][0].update(times_ns=['x', 1, 2])))
case(2, '', 'cp %s out.json && $V tune ok.json -o out.json --resume $FAST' % results('r_times_neg', lambda d: d['results'][0].update(times_ns=[-5.0, -5.0, -5.0], median_ns=-5.0)))
case(2, '', 'cp %s out.json && $V tune ok.json -o out.json --resume $FAST' % results('r_median_lie', lambda d: d['results'][0].update(median_ns=1.0)))
case(2, '', 'cp %s out.json && $V tune ok.json -o out.json --resume $FAST' % results('r_local_huge', lambda d: d['results'][0].update(local_size=[1e300, -1, 'x'])))

# T4 replays: a parameter left out of some results, or of every one
T4 = json.load(open('t4.json'))
def t4(name, fn):
    d = copy.deepcopy(T4)
    fn(d)
    return write(name + '.json', d)
case(0, 'optimum', '$V tune --replay t4.json')
# a configuration with no parameter, or one configuration for every record: refused naming the entry
case(2, 'an empty configuration', '$V tune --replay %s' % t4('t4_missing_param', lambda d: d['results'][1].update(configuration={})))
case(2, 'appears twice', '$V tune --replay %s' % t4('t4_all_missing_param', lambda d: [r.update(configuration={'X': 1}) for r in d['results']]))
case(2, '', '$V tune --replay %s' % t4('t4_param_object', lambda d: d['results'][0]['configuration'].update(WG={'a': [1]})))
case(2, '', '$V tune --replay %s' % t4('t4_no_results', lambda d: d.update(results=[])))
case(2, 'runtimes', '$V tune --replay %s' % t4('t4_times_str', lambda d: (d['results'][0].pop('measurements'), d['results'][0]['times'].update(runtimes=['x']))))
# 20000 distinct values of two parameters (written here: 8 MB): the values were looked up by a scan (quadratic)
case(0, '', 'python3 -c "import json; d = json.load(open(\'t4.json\')); r = d[\'results\'][0]; '
     'd[\'results\'] = [dict(r, configuration={\'WG\': i, \'V\': i * 0.5}) for i in range(20000)]; '
     'json.dump(d, open(\'big.json\', \'w\'))" && $V tune --replay big.json --strategy random_sample --seeds 1 --budget 10')

# policies that would serve values a parameter never had
for tag, v in (('zero', 0), ('neg', -1), ('big', 1e308), ('str', '16'), ('bool', True), ('null', None), ('float', 32.5)):
    case(2, 'WG', '$V policy build %s -o db.json' % results('r_value_' + tag, lambda d, v=v: d['results'][1]['config'].update(WG=v)))
case(2, '', '$V policy build %s -o db.json' % results('r_extra_param', lambda d: d['results'][1]['config'].update(EXTRA=1)))
case(2, '', '$V policy build %s -o db.json' % results('r_params_missing', lambda d: d.pop('parameters')))
case(0, '', '$V policy build r.json -o db.json && $V policy header db.json -o h.h')

# ---------------------------------------------------------------- hangs
def many_values(d, n, dup=False):
    PARAMS(d)[0]['Values'] = '[x for x in range(%d)]' % n if not dup else '[x %% %d for x in range(%d)]' % (n - 1, n)
    d['ConfigurationSpace']['Conditions'] = [{'Parameters': ['WG'], 'Expression': 'WG == 64'}]
case(0, '1 correct', '$V tune %s -o out.json $FAST' % spec('values_2_17', lambda d: many_values(d, 1 << 17)))
case(0, '1 correct', '$V tune %s -o out.json $FAST' % spec('values_2_20', lambda d: many_values(d, 1 << 20)))
case(2, 'appears twice', '$V tune %s -o out.json $FAST' % spec('values_2_20_dup', lambda d: many_values(d, 1 << 20, True)))

case(2, '', '$V tune %s -o out.json $FAST' % spec('values_2_21', lambda d: many_values(d, 1 << 21)))

# ---------------------------------------------------------------- silent wrong answers
def nowrite(d):
    KS(d)['KernelFile'] = 'nowrite.comp'
case(1, 'no valid configuration', '$V tune %s -o out.json $FAST' % spec('nowrite', nowrite))


def no_add(d):
    KS(d)['Arguments'] = ARGS(d)[:3]
case(2, 'push-constant', '$V tune %s -o out.json $FAST' % spec('scalar_missing', no_add))


def nofill(d):
    ARGS(d)[0].update(FillType='Constant', FillValue=5)
    ARGS(d)[0].pop('RandomSeed')
    ARGS(d)[3].pop('FillType')
    KS(d)['ReferenceArguments'] = [{'Name': 'ref', 'TargetName': 'out', 'FillType': 'Constant', 'FillValue': 13}]
case(0, '2 correct', '$V tune %s -o out.json $FAST' % spec('scalar_nofilltype', nofill))

STR = 'A' * 89
with open('strdef.comp', 'w') as f:
    f.write('#version 450\n// MODE is a -D define holding a string-valued parameter\'s text; the two modes differ only after 79\n'
            '// characters (written by generate.py).\nlayout(local_size_x = 64) in;\n'
            'layout(std430, set = 0, binding = 0) writeonly buffer Out { uint b[]; };\n'
            '#define %s1 1u\n#define %s2 2u\nvoid main() { b[gl_GlobalInvocationID.x] = MODE; }\n' % (STR, STR))
def strdef(d):
    d['ConfigurationSpace']['TuningParameters'] = [{'Name': 'MODE', 'Type': 'string', 'Values': '["%s1", "%s2"]' % (STR, STR)}]
    KS(d).update(KernelFile='strdef.comp', LocalSize={'X': '64'}, GlobalSize={'X': '4'}, GlobalSizeType='Vulkan')
    KS(d)['Arguments'] = [{'Name': 'out', 'Type': 'uint32', 'MemoryType': 'Vector', 'AccessType': 'WriteOnly', 'Output': 1, 'Size': 256}]
case(0, '1 correct, 0 compile, 0 runtime, 0 timeout, 1 correctness', '$V tune %s -o out.json $FAST' % spec('string_80', strdef))

case(2, '--name', '$V tune ok.json -o out.json --name %s $FAST' % ('k' * 200))
case(0, '', '$V tune ok.json -o out.json --name %s $FAST' % ('k' * 100))


def count1(d):
    d['Budget'] = [{'Type': 'ConfigurationCount', 'BudgetValue': 1}]
case(0, '2 measured', '$V tune %s -o out.json --fraction 1 $FAST' % spec('budget_count1', count1))
case(0, '1 measured', '$V tune %s -o out.json $FAST' % spec('budget_count1b', count1))

# FillValue that does not fit the argument's type
for typ, v, tag in (('uint32', 2 ** 40, 'u32_2_40'), ('uint32', -1, 'u32_neg'), ('uint32', 1.5, 'u32_frac'),
                    ('uint8', 256, 'u8_256'), ('int8', -129, 'i8_m129'), ('int32', 2 ** 31, 'i32_2_31'),
                    ('int16', 40000, 'i16_40000'), ('uint64', -3, 'u64_neg'), ('int64', 1e19, 'i64_1e19'),
                    ('float', 1e39, 'f32_1e39'), ('bool', 2, 'bool_2'), ('uint32', 1e300, 'u32_1e300')):
    def fv(d, typ=typ, v=v):
        ARGS(d)[3].update(Type=typ, FillValue=v)
    case(2, 'FillValue', '$V tune %s -o out.json $FAST' % spec('fill_scalar_' + tag, fv))
    def fvv(d, typ=typ, v=v):
        ARGS(d)[0].update(Type=typ, FillType='Constant', FillValue=v)
        ARGS(d)[0].pop('RandomSeed')
    case(2, 'FillValue', '$V tune %s -o out.json $FAST' % spec('fill_vector_' + tag, fvv))

# ---------------------------------------------------------------- messages
case(2, 'expected an integer', '$V tune %s -o out.json $FAST' % spec('local_frac', lambda d: KS(d).update(LocalSize={'X': 'WG / 3'})))
case(2, 'expected an integer', '$V tune %s -o out.json $FAST' % spec('local_string', lambda d: KS(d).update(LocalSize={'X': '"a"'})))
case(2, 'expected an integer', '$V tune %s -o out.json $FAST' % spec('global_frac', lambda d: KS(d).update(GlobalSize={'X': 'ProblemSize[0] / 3'})))
case(0, '2 correct', '$V tune %s -o out.json $FAST' % spec('local_z_int', lambda d: KS(d).update(LocalSize={'X': 'WG', 'Y': 1, 'Z': 1})))
case(0, '2 correct', '$V tune %s -o out.json $FAST' % spec('global_int', lambda d: KS(d).update(GlobalSize={'X': 1024, 'Z': 1})))
case(2, '', '$V tune %s -o out.json $FAST' % spec('local_real', lambda d: KS(d).update(LocalSize={'X': 'WG', 'Z': 1.5})))


def refargs(d):
    KS(d)['ReferenceArguments'] = [{'Name': 'ref', 'TargetName': 'out', 'FillType': 'Constant', 'FillValue': 0}]
case(2, '--reference', '$V tune %s -o out.json --reference WG=32 $FAST' % spec('refargs', refargs))
for strat in ('brute_force', 'random_sample', 'genetic_algorithm', 'simulated_annealing', 'random_forest',
              'iterated_local_search'):
    case(2, 'bogus', '$V tune %s -o out.json $FAST' % spec('attr_' + strat, lambda d, s=strat: d.update(
        Search={'Name': s, 'Attributes': [{'Name': 'bogus', 'Value': 1}]})))

# ---------------------------------------------------------------- lost data: an output that is an input
case(2, 'same file', 'cp r.json x.json && $V tune --replay x.json -o x.json; rc=$?; cmp -s x.json r.json || rc=9; exit $rc')
case(2, 'same file', 'cp r.json x.json && $V tune --replay x.json -o ./x.json; rc=$?; cmp -s x.json r.json || rc=9; exit $rc')
case(2, 'same file', 'cp r.json x.json && $V policy build x.json -o x.json; rc=$?; cmp -s x.json r.json || rc=9; exit $rc')
case(2, 'same file', 'cp r.json x.json && ln -s x.json y.json && $V policy build y.json -o x.json; rc=$?; cmp -s x.json r.json || rc=9; exit $rc')
case(2, 'same file', '$V policy build r.json -o db.json && cp db.json d2.json && $V policy header d2.json -o d2.json; rc=$?; cmp -s d2.json db.json || rc=9; exit $rc')
case(2, 'same file', 'cp ok.json s.json && $V tune s.json -o s.json $FAST; rc=$?; cmp -s s.json ok.json || rc=9; exit $rc')
case(2, 'same file', 'cp ok.json s.json && $V tune s.json -o out.json --t4 s.json $FAST; rc=$?; cmp -s s.json ok.json || rc=9; exit $rc')
case(2, 'same file', 'cp k.comp kk.comp && $V tune ok.json -o k.comp $FAST; rc=$?; cmp -s k.comp kk.comp || rc=9; exit $rc')

# concurrent writers to one results file: each run is either written or refused with a message, never lost (or, as
# below, its clock calibration refused as disturbed by the machine's load)
case(0, '', 'for i in 1 2 3; do ($V tune ok.json -o c.json $FAST >o$i 2>e$i; echo $? >rc$i) & done; wait; '
     'ok=0; for i in 1 2 3; do r=$(cat rc$i); if [ "$r" = 0 ]; then ok=$((ok+1)); elif ! grep -q "another vkocc\\|calibration disturbed\\|calibration implausible" e$i; then cat e$i; exit 8; fi; done; '
     '[ $ok -ge 1 ] && python3 -c "import json; json.load(open(\'c.json\'))"')

# concurrent tunes on one cold cache: each calibrates and probes with the device to itself (core/devlock.c), so
# every P is what one process alone measures (LP_NUM_THREADS=2), never a crowded device's smaller P kept in the cache.
# A process whose clock calibration the machine's load disturbed refuses honestly (exit 1, "calibration disturbed" or
# "calibration implausible": this test runs beside others, and a fresh-clone run beside three CPU hogs met it); the
# others must give P = 2.
def p_launched(d):
    KS(d).update(GlobalSizeType='Vulkan', GlobalSize={'X': 'ProblemSize[0] // WG + P * 0'})
case(0, '', 'mkdir cc; for i in 1 2 3 4 5 6; do (XDG_CACHE_HOME=$PWD/cc $V tune %s -o p$i.json $FAST >o$i 2>e$i; echo $? >rc$i) & done; wait; '
     'ok=""; for i in 1 2 3 4 5 6; do r=$(cat rc$i); if [ "$r" = 0 ]; then ok="$ok $i"; '
     'elif [ "$r" != 1 ] || ! grep -q "calibration disturbed\\|calibration implausible" e$i || [ -e p$i.json ]; then cat e$i; exit 8; fi; done; '
     '[ -n "$ok" ] && python3 -c "import json, sys; ps=[r[\'P\'] for i in sys.argv[1:] for r in json.load(open(\'p%%s.json\' %% i))[\'results\']]; '
     'assert ps == [2] * len(ps) and ps, ps" $ok' % spec('p_concurrent', p_launched))

# ---------------------------------------------------------------- another device's fingerprint
case(2, '--allow-other-device', '$V tune ok.json -o out.json --fingerprint $FP --max-runs 3 --warmup-ms 0 --sentinel 0')
case(2, '--allow-other-device', '$V tune reduce --size 4096 -o out.json --fingerprint $FP --max-runs 3')

# ---------------------------------------------------------------- -o
case(0, '"schema": "vkocc.tune-results/1"', '$V tune ok.json -o - $FAST 2>/dev/null')
case(0, '', '$V tune ok.json -o out.json $FAST >so; test ! -s so')
case(0, '"schema": "vkocc.policy-db', '$V policy build r.json -o - 2>/dev/null')
case(0, '#define VKOCC_TUNED_H', '$V policy build r.json -o db.json && $V policy header db.json -o - 2>/dev/null')
case(0, '', '$V policy build r.json -o db.json >so && test ! -s so && test -s db.json')
case(0, '', '$V policy build r.json -o db.json && $V policy header db.json -o h.h >so && test ! -s so && test -s h.h')
case(0, '', 'rm -f ./-; $V policy build r.json -o - >/dev/null && test ! -e ./-')

# ---------------------------------------------------------------- policy header: code that data cannot subvert
CC = ('printf \'#include "h.h"\\nint main(void){return 0;}\\n\' > m.c && cc -std=c11 -Wall -Werror -o m m.c && ./m && '
      'test ! -e pwned')


def db(kernels):
    return {'schema': 'vkocc.policy-db/1', 'kernels': kernels}


def entry(cluster, params, when=None):
    e = {'cluster': cluster, 'params': params}
    if when:
        e['when'] = when
    return e


INJ = 'x */ __attribute__((constructor)) static void pwn(void){ fopen("pwned","w"); } /*'
dbs = {
    'inject_kernel': db({INJ: {'default': {'params': {'wg': 64}}, 'entries': [entry('c1-aaaa', {'wg': 128})]}}),
    'inject_cluster': db({'k': {'default': {'params': {'wg': 64}}, 'entries': [entry(INJ, {'wg': 128})]}}),
    'inject_cluster_quote': db({'k': {'entries': [entry('a"b\\c\n', {'wg': 128})]}}),
    'inject_param': db({'k': {'default': {'params': {INJ: 64}}, 'entries': [entry('c1-a', {INJ: 1})]}}),
    'inject_string': db({'k': {'default': {'params': {'s': '*/ #error x /* "\\\n\x01'}}}}),
    'inject_newline': db({'k\n#error boom\n': {'default': {'params': {'wg': 64}}}}),
    'param_cluster_id': db({'k': {'default': {'params': {'cluster_id': 1}}, 'entries': [entry('c', {'cluster_id': 2})]}}),
    'param_int': db({'k': {'default': {'params': {'int': 1}}, 'entries': [entry('c', {'int': 2})]}}),
    'param_psmin': db({'k': {'default': {'params': {'problem_size_min': 1}}, 'entries': [entry('c', {'problem_size_min': 2})]}}),
    'param_while': db({'k': {'default': {'params': {'while': 1, 'static': 2, '_Bool': 3}}}}),
    'param_128': db({'k': {'default': {'params': {'p' * 128: 1}}, 'entries': [entry('c', {'p' * 128: 2})]}}),
    'param_case': db({'k': {'default': {'params': {'wg': 1, 'WG': 2}}}}),
    'param_punct': db({'k': {'default': {'params': {'w-g': 1, 'w_g': 2}}}}),
    'kernel_case': db({'Reduce': {'default': {'params': {'wg': 1}}}, 'reduce': {'default': {'params': {'wg': 2}}}}),
    'kernel_128': db({'k' * 300: {'default': {'params': {'wg': 1}}}}),
    'kernel_digit': db({'1k': {'default': {'params': {'wg': 1}}}}),
    'kernel_empty': db({'': {'default': {'params': {'wg': 1}}}}),
    'cluster_case': db({'k': {'entries': [entry('c-1', {'wg': 1}), entry('c_1', {'wg': 2})]}}),
    'value_600': db({'k': {'default': {'params': {'s': 'v' * 600}}, 'entries': [entry('c', {'s': 'w' * 5000})]}}),
    'value_types_mixed': db({'k': {'default': {'params': {'v': 1}}, 'entries': [entry('c', {'v': 'x'}), entry('d', {'v': 2.5})]}}),
    'value_missing': db({'k': {'default': {'params': {'a': 1, 'b': 2}}, 'entries': [entry('c', {'a': 3})]}}),
    'value_extra': db({'k': {'default': {'params': {'a': 1}}, 'entries': [entry('c', {'a': 3, 'zz': 4})]}}),
    'value_bigint': db({'k': {'default': {'params': {'a': 9223372036854775807}}, 'entries': [entry('c', {'a': -9223372036854775807 - 1})]}}),
    'value_nonfinite': db({'k': {'default': {'params': {'a': 1e308}}, 'entries': [entry('c', {'a': -1e308})]}}),
    'value_array': db({'k': {'default': {'params': {'a': [1, 2]}}}}),
    'value_object': db({'k': {'default': {'params': {'a': {'b': 1}}}}}),
    'value_null': db({'k': {'default': {'params': {'a': None}}}}),
    'params_empty': db({'k': {'default': {'params': {}}}}),
    'when_huge': db({'k': {'entries': [entry('c', {'a': 1}, {'problem_size': {'min': 1e300, 'max': 1e301}})]}}),
    'when_float': db({'k': {'entries': [entry('c', {'a': 1}, {'problem_size': {'min': 1.5}})]}}),
    'unicode': db({'k\u00e9': {'default': {'params': {'\u00e9': '\u2603'}}}}),
    'no_default_no_entries': db({'k': {}}),
}
for name, d in dbs.items():
    p = write('db_%s.json' % name, d)
    # any database vkocc accepts gives a header that compiles; one it refuses says why (exit 2)
    case(0, '', 'if $V policy header %s -o h.h 2>err; then %s; else rc=$?; cat err; [ $rc = 2 ] && grep -q "%s" err; fi' % (p, CC, p))
for f in ('g_db_inject_kernel.json', 'g_db_inject_cluster.json', 'g_db_inject_param.json', 'g_db_inject_string.json'):
    case(0, '', 'if $V policy header %s -o h.h; then ! grep -q "__attribute__((constructor))" h.h; else test $? = 2; fi' % f)

# ---------------------------------------------------------------- type confusion over every member of the spec
WRONG = [None, True, [], {}, 'x', '', -1, 0, 1.5, 1e308, 2 ** 63, [1, 2, 3, 4]]
paths = [
    ('KernelSpecification', 'Language'), ('KernelSpecification', 'KernelName'), ('KernelSpecification', 'KernelFile'),
    ('KernelSpecification', 'ProblemSize'), ('KernelSpecification', 'LocalSize'), ('KernelSpecification', 'GlobalSize'),
    ('KernelSpecification', 'GlobalSizeType'), ('KernelSpecification', 'Arguments'), ('KernelSpecification', 'CompilerOptions'),
    ('KernelSpecification', 'ReferenceArguments'), ('ConfigurationSpace', 'TuningParameters'), ('ConfigurationSpace', 'Conditions'),
]
n = 0
for sect, key in paths:
    for w in WRONG:
        def mut(d, sect=sect, key=key, w=w):
            d[sect][key] = w
        if w in ('x',) and key == 'KernelName':
            continue
        ok = w == [] and key in ('CompilerOptions', 'ReferenceArguments', 'Conditions')  # an empty list is one
        big = w == 2 ** 63  # beyond JSON integers in jansson: refused as not JSON, with its line and column
        case(0 if ok else 2, '' if ok or big else '$.', '$V tune %s -o out.json $FAST' % spec('type_%d' % n, mut))
        n += 1
for i, key in enumerate(('Name', 'Type', 'MemoryType', 'AccessType', 'Size', 'FillType', 'FillValue', 'Output', 'TypeSize')):
    for w in (None, [], {}, -1, 1e308, 'Nope'):
        def mut(d, key=key, w=w):
            ARGS(d)[0][key] = w
        if key == 'Name' and w == 'Nope':
            continue
        if key == 'FillValue' and w in (-1, 1e308):  # a number beside FillType Random: ignored, as Kernel Tuner writes it
            case(0, '2 correct', '$V tune %s -o out.json $FAST' % spec('arg_%d' % n, mut))
            n += 1
            continue
        case(2, '$.', '$V tune %s -o out.json $FAST' % spec('arg_%d' % n, mut))
        n += 1
for key in ('Name', 'Type', 'Values', 'Default'):
    for w in (None, [], {}, -1, 1e308, 'Nope', '[1, 2', '[]', '[1, "a"]', '[1e400]'):
        def mut(d, key=key, w=w):
            PARAMS(d)[0][key] = w
        case(2, '$.', '$V tune %s -o out.json $FAST' % spec('param_%d' % n, mut))
        n += 1

# ---------------------------------------------------------------- published T1 files (published/, README.md there)
for f in sorted(os.listdir('published')):
    if f.endswith('.json'):
        case(2, 'Language', '$V tune published/%s -o out.json $FAST' % f)

with open('MANIFEST', 'w') as f:
    f.write('# EXIT\tSUBSTRING\tCOMMAND  (written by generate.py; $V vkocc, $FP another device\'s fingerprint, $FAST short lavapipe options)\n')
    f.write('\n'.join(lines) + '\n')
print(len(lines), 'cases')
