from remez import *
mp.mp.dps = 60
sq = mp.sqrt
def run(name, g, w, a, b, deg):
    phis = [ (lambda k: (lambda u: u**k))(k) for k in range(deg+1)]
    c, err = remez(g, phis, w, a, b, grid=3001)
    print(name, "deg", deg, "log2err", mp.nstr(mp.log(err, 2), 4))
    for v in c: print("   ", fmt64(v))
W = (mp.sqrt(2)-1)/(mp.sqrt(2)+1); W = (W*mp.mpf('1.001'))**2
for d in [3,4,5]:
    run('log_s', lambda w: (2*mp.atanh(sq(w))-2*sq(w))/sq(w)**3, lambda w: sq(w)**3/(2*mp.atanh(sq(w))), mp.mpf('1e-30'), W, d)
for d in [7,8,9]:
    g = lambda r: (mp.power(2,r)-1)/r if abs(r) > mp.mpf('1e-20') else mp.log(2)
    run('exp2_64', g, lambda r: r/mp.power(2,r) if r!=0 else mp.mpf(1)/2**60, -0.5, 0.5, d)
