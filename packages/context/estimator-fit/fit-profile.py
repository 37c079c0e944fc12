# Fits one ESTIMATOR_PROFILES entry as a linear program (scipy HiGHS) on the items of
# dump-items.mjs: python3 fit-profile.py o200k|cl100k|unknown LATIN_FACTOR [items.json]
# (LATIN_FACTOR 0.8 for the committed profiles; 1.0 holds ICU Latin-name lists in full).
# Writes weights-FAMILY.json; the profile in conservative-token-estimator.ts is those
# numbers (negative zeros dropped, other / surrogate characters at their UTF-8 bytes).
import json, sys, math, collections
import numpy as np
from scipy.optimize import linprog
CLASSES = ['start','upper','lower','digit','punctuation','space','break','commonPunctuation','commonSymbol','commonOther','combining','latin','greek','cyrillic','armenian','hebrew','arabic','devanagari','bengali','gurmukhi','gujarati','oriya','tamil','telugu','kannada','malayalam','sinhala','thai','lao','tibetan','myanmar','khmer','georgian','ethiopic','han','kana','hangul','other','highSurrogate','lowSurrogate']
WORD = {'upper','lower','latin'}
def starts_run(p, c):
    if p == c or p == 'combining' or c == 'combining': return False
    if p == 'start': return True
    return not (p in WORD and c in WORD)
FIXED = {'highSurrogate': (2, 0), 'lowSurrogate': (2, 0), 'other': (3, 0)}
free = [c for c in CLASSES[1:] if c not in FIXED]
runs_free = CLASSES[1:]
ASCII = ['start','upper','lower','digit','punctuation','space','break','latin','commonOther','commonPunctuation','combining','han','kana','commonSymbol']
PAIRS = [f'{p} {c}' for p in ASCII for c in ASCII if c != 'start']
names = [f'{c}.character' for c in free] + [f'{c}.run' for c in runs_free] + ['pair.' + k for k in PAIRS]
idx = {n: i for i, n in enumerate(names)}
items = json.load(open(sys.argv[3] if len(sys.argv) > 3 else 'items.json'))
SHARED = {'alpaca_zh_demo.json','alpaca_en_demo.json','glaive_toolcall_zh_demo.json','glaive_toolcall_en_demo.json','tau-bench','swe-agent','reason_tool_use'}
def features(item):
    x = np.zeros(len(names)); fixed = 0.0
    for key, n in item['pairs'].items():
        p, c = key.split(' ')
        if c in FIXED: fixed += n * FIXED[c][0]
        else: x[idx[f'{c}.character']] += n
        if starts_run(p, c): x[idx[f'{c}.run']] += n
        if 'pair.' + key in idx: x[idx['pair.' + key]] += n
    return x, fixed
X = []; F = []
for it in items:
    x, f = features(it); X.append(x); F.append(f)
X = np.array(X); F = np.array(F)
family = sys.argv[1]
margin = 1.0
LATIN = float(sys.argv[2])
exact = np.array([max(it['o'], it['c']) if family == 'unknown' else it['o' if family == 'o200k' else 'c'] for it in items], dtype=float)
length = np.array([it['len'] for it in items]); bytes_ = np.array([it['bytes'] for it in items])
corpus = [it['corpus'] for it in items]; conv = [it['conversation'] for it in items]
convs = collections.OrderedDict()
for i, (co, cv) in enumerate(zip(corpus, conv)): convs.setdefault((co, cv), []).append(i)
A = []; b = []; rowinfo = []
for i in range(len(items)):
    if length[i] >= 200:
        m = 1.0
        if corpus[i] in ("icu","mixed-script","all-capitals") and X[i][idx["latin.character"]] + X[i][idx["lower.character"]] > 0.3 * length[i]: m = LATIN
        A.append(-X[i]); b.append(-(m * exact[i] + 0.01 - F[i])); rowinfo.append(('item', corpus[i], conv[i], i))
conv_rows = {}
for key, ids in convs.items():
    xs = X[ids].sum(0); fs = F[ids].sum(); ex = exact[ids].sum()
    if ex == 0: continue
    m = 1.0 if key[0] in SHARED else 1.01
    A.append(-xs); b.append(-(m * ex - fs)); conv_rows[key] = (xs, fs, ex); rowinfo.append(('conv',) + key)
# objective: mean relative estimate per shared corpus, equally weighted; a little weight on the rest
c = np.zeros(len(names))
by_corpus = collections.defaultdict(list)
for key, v in conv_rows.items(): by_corpus[key[0]].append(v)
for co, rows in by_corpus.items():
    w = 1.0 if co in SHARED else 0.02
    for xs, fs, ex in rows: c += w * xs / ex / len(rows)
FLOORS = {'upper.character': 0.11, 'lower.character': 0.11, 'digit.character': 1/3, 'punctuation.character': 0.12, 'space.character': 0.008, 'break.character': 0.06}
bounds = []
for n in names:
    cls, kind = (n.split('.') + [''])[:2]
    lo = FLOORS.get(n, 0.3 if kind == 'character' and cls not in ('upper','lower','digit','punctuation','space','break') else 0)
    bounds.append((lo, 3 if kind == 'character' else 2))
res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method='highs')
print(res.status, res.message, file=sys.stderr)
w = res.x
duals = res.ineqlin.marginals
order = np.argsort(duals)
for j in order[:15]:
    print('binding', duals[j], rowinfo[j], file=sys.stderr)
# round up to 4 decimals
w = np.ceil(w * 10000 - 1e-9) / 10000
est_raw = X @ w + F
est = np.minimum(np.ceil(est_raw), bytes_)
under_items = [(corpus[i], conv[i], est[i], exact[i]) for i in range(len(items)) if length[i] >= 200 and est[i] < exact[i]]
print('worst under ratio', min([e/x for _,_,e,x in under_items] or [1]), file=sys.stderr)
print('under items', len(under_items), under_items[:5], file=sys.stderr)
for co in sorted(set(corpus)):
    ratios = []; under = 0
    for key, ids in convs.items():
        if key[0] != co: continue
        e = est[ids].sum(); x = exact[ids].sum()
        if x == 0: continue
        ratios.append(e / x - 1); under += e < x
    ratios.sort()
    print(f'{co:32s} convs {len(ratios):5d} under {under} median {ratios[len(ratios)//2]*100:6.1f}% min {ratios[0]*100:6.1f}% max {ratios[-1]*100:7.1f}%', file=sys.stderr)
out = {n: float(v) for n, v in zip(names, w)}
json.dump(out, open(f'weights-{family}.json', 'w'), indent=1)
for n in names: print(n, out[n])
