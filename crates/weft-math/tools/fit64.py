from remez import *
import sys
mp.mp.dps = 80
sq = mp.sqrt
def run(name, g, w, a, b, deg):
    phis = [ (lambda k: (lambda u: u**k))(k) for k in range(deg+1)]
    c, err = remez(g, phis, w, a, b, grid=2001)
    print(name, "deg", deg, "log2err", mp.nstr(mp.log(err, 2), 4), flush=True)
    for v in c: print("   ", fmt64(v))
eps = mp.mpf('1e-40')
R = mp.pi/4*mp.mpf('1.0005')
which = sys.argv[1]; degs = [int(d) for d in sys.argv[2:]]
for d in degs:
  if which == 'sin':
    run('sin', lambda u: (mp.sin(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.sin(sq(u)), eps, R**2, d)
  if which == 'cos':
    run('cos', lambda u: (mp.cos(sq(u))-1+u/2)/u**2, lambda u: u**2/mp.cos(sq(u)), eps, R**2, d)
  if which == 'exp':
    L = mp.log(2)/2*mp.mpf('1.001')
    g = lambda r: (mp.exp(r)-1-r)/r**2 if abs(r) > mp.mpf('1e-30') else mp.mpf(1)/2 + r/6
    run('exp', g, lambda r: r**2/mp.exp(r), -L, L, d)
  if which == 'log':
    # log(1+f) = f - hfsq + s*(hfsq + R), R = w*(c0 + c1 w + ...), w = s^2; fit (R/w), weight: s*w/log(1+f)
    W = ((mp.sqrt(2)-1)/(mp.sqrt(2)+1)*mp.mpf('1.0005'))**2
    def g(w):
        s = sq(w); return (2*mp.atanh(s) - 2*s)/s/w
    run('log', g, lambda w: sq(w)*w/(2*mp.atanh(sq(w))), eps, W, d)
  if which == 'powlog':
    # R(w) = 2/3 + w*R2(w); fit R2 with weight w/(R) scaled to the log error: err_log = s^3*w*dR2 ; rel = s^2 w dR2/2
    W = ((mp.sqrt(2)-1)/(mp.sqrt(2)+1)*mp.mpf('1.0005'))**2
    def g(w):
        s = sq(w); return ((2*mp.atanh(s) - 2*s)/s**3 - mp.mpf(2)/3)/w
    run('powlog', g, lambda w: w, eps, W, d)
  if which == 'asin':
    run('asin', lambda u: (mp.asin(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.asin(sq(u)), eps, mp.mpf('0.25'), d)
  if which == 'atan':
    T = mp.mpf(7)/16*mp.mpf('1.001')
    run('atan', lambda u: (mp.atan(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.atan(sq(u)), eps, T**2, d)
  if which == 'sinh':
    run('sinh', lambda u: (mp.sinh(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.sinh(sq(u)), eps, 1, d)
  if which == 'tanh':
    run('tanh', lambda u: (mp.tanh(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.tanh(sq(u)), eps, mp.mpf('0.5494')**2, d)
