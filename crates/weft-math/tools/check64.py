import mpmath as mp, struct, collections
mp.mp.dps = 60
fn = {'sin':mp.sin,'cos':mp.cos,'tan':mp.tan,'asin':mp.asin,'acos':mp.acos,'atan':mp.atan,'sinh':mp.sinh,'cosh':mp.cosh,'tanh':mp.tanh,'exp':mp.exp,'exp2':lambda x: mp.power(2,x),'log':mp.log,'log2':lambda x: mp.log(x,2),'log10':mp.log10,'cbrt':mp.cbrt}
def ulp(v):
    v = abs(v)
    if v < mp.mpf(2)**-1022: return mp.mpf(2)**-1074
    e = mp.floor(mp.log(v, 2))
    # guard log rounding
    if mp.mpf(2)**e > v: e -= 1
    if mp.mpf(2)**(e+1) <= v: e += 1
    return mp.mpf(2)**(e-52)
worst = collections.defaultdict(lambda: (0, ''))
for line in open('f64samples.txt'):
    p = line.split()
    name = p[0]
    if name == 'pow':
        x, y, r = mp.mpf(float(p[1])), mp.mpf(float(p[2])), mp.mpf(float(p[3])); ex = mp.power(x, y)
    elif name == 'atan2':
        y, x, r = mp.mpf(float(p[1])), mp.mpf(float(p[2])), mp.mpf(float(p[3])); ex = mp.atan2(y, x)
    else:
        x, r = mp.mpf(float(p[1])), mp.mpf(float(p[2]))
        if name == 'cbrt' and x < 0: ex = -mp.cbrt(-x)
        else: ex = fn[name](x)
    if ex == 0: continue
    e = float(abs(r - ex) / ulp(ex))
    if e > worst[name][0]: worst[name] = (e, line.strip())
for k, v in worst.items(): print(f"{k:<6} max err {v[0]:.3f} ulp  at {v[1]}")
