from remez import *
import sys
mp.mp.dps = 50
def sq(u): return mp.sqrt(u)
def run(name, g, w, a, b, deg, base=lambda u: 1):
    phis = [ (lambda k: (lambda u: u**k))(k) for k in range(deg+1)]
    c, err = remez(g, phis, w, a, b, grid=3001)
    print(name, "deg", deg, "maxrelerr", mp.nstr(err, 4), "log2", mp.nstr(mp.log(err, 2), 4))
    for v in c: print("   ", fmt32(v), mp.nstr(v, 20))
    return c
eps = mp.mpf('1e-24')
R = mp.pi/4*mp.mpf('1.0005')
which = sys.argv[1:]
if 'sin' in which:
  for d in [3]:
    run('sin', lambda u: (mp.sin(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.sin(sq(u)), eps, R**2, d)
if 'cos' in which:
  for d in [2]:
    run('cos', lambda u: (mp.cos(sq(u))-1+u/2)/u**2, lambda u: u**2/mp.cos(sq(u)), eps, R**2, d)
if 'tan' in which:
  for d in [6]:
    run('tan', lambda u: (mp.tan(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.tan(sq(u)), eps, R**2, d)
if 'exp' in which:
  L = mp.log(2)/2*mp.mpf('1.001')
  for d in [4]:
    # variable r directly, interval [-L, L] avoid 0: g smooth, use series near 0 via mp precision
    g = lambda r: (mp.exp(r)-1-r)/r**2 if abs(r) > mp.mpf('1e-12') else mp.mpf(1)/2 + r/6
    run('exp', g, lambda r: r**2/mp.exp(r), -L, L, d)
if 'exp2' in which:
  for d in [5]:
    g = lambda r: (mp.power(2,r)-1)/r if abs(r) > mp.mpf('1e-12') else mp.log(2)
    run('exp2', g, lambda r: r/mp.power(2,r) if r!=0 else mp.mpf(1)/2**60, -0.5, 0.5, d)
if 'log' in which:
  a = mp.sqrt(2)/2-1; b = mp.sqrt(2)-1
  for d in [7]:
    g = lambda f: (mp.log1p(f)-f+f**2/2)/f**3 if abs(f) > mp.mpf('1e-12') else mp.mpf(1)/3 - f/4
    run('log', g, lambda f: f**3/mp.log1p(f) if f != 0 else mp.mpf(0), a*mp.mpf('1.0001'), b*mp.mpf('1.0001'), d)
if 'atan' in which:
  for d in [8]:
    run('atan', lambda u: (mp.atan(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.atan(sq(u)), eps, 1, d)
if 'asin' in which:
  for d in [4]:
    run('asin', lambda u: (mp.asin(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.asin(sq(u)), eps, mp.mpf('0.25'), d)
if 'sinh' in which:
  for d in [3]:
    run('sinh', lambda u: (mp.sinh(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.sinh(sq(u)), eps, 1, d)
if 'tanh' in which:
  for d in [4]:
    run('tanh', lambda u: (mp.tanh(sq(u))-sq(u))/sq(u)**3, lambda u: sq(u)**3/mp.tanh(sq(u)), eps, mp.mpf('0.5494')**2, d)
