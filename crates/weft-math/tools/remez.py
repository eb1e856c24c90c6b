# Discretised Remez exchange with mpmath.  approx: g(x) ~ sum c_j * phi_j(x), weighted error w(x)*(g - p).
import mpmath as mp
mp.mp.dps = 50

def remez(g, phis, w, a, b, grid=4000, iters=30, verbose=False):
    n = len(phis)
    a = mp.mpf(a); b = mp.mpf(b)
    # dense grid with chebyshev clustering
    G = [ (a+b)/2 + (b-a)/2*mp.cos(mp.pi*(grid-i)/grid) for i in range(grid+1)]
    gv = [g(x) for x in G]; wv = [w(x) for x in G]
    pv = [[phi(x) for phi in phis] for x in G]
    # initial reference: n+1 chebyshev points
    idx = [int(round(grid*i/n)) for i in range(n+1)]
    best = None
    for it in range(iters):
        # solve sum c_j phi_j(x_i) + (-1)^i E / w(x_i) = g(x_i)
        A = mp.matrix(n+1, n+1); rhs = mp.matrix(n+1, 1)
        for r, i in enumerate(idx):
            for j in range(n):
                A[r, j] = pv[i][j]
            A[r, n] = (-1)**r / wv[i]
            rhs[r] = gv[i]
        sol = mp.lu_solve(A, rhs)
        c = [sol[j] for j in range(n)]
        E = sol[n]
        err = [wv[i]*(gv[i] - sum(c[j]*pv[i][j] for j in range(n))) for i in range(len(G))]
        # find alternating extrema
        ext = []
        i = 0
        # split into sign runs, take max abs in each run
        runs = []
        cur = [0]
        for i in range(1, len(G)):
            if (err[i] >= 0) == (err[cur[-1]] >= 0):
                cur.append(i)
            else:
                runs.append(cur); cur = [i]
        runs.append(cur)
        ext = [max(r, key=lambda k: abs(err[k])) for r in runs]
        while len(ext) > n+1:
            # drop smallest at ends or merge
            if abs(err[ext[0]]) < abs(err[ext[-1]]): ext.pop(0)
            else: ext.pop()
        maxerr = max(abs(e) for e in err)
        if verbose: print(it, mp.nstr(abs(E), 5), mp.nstr(maxerr, 5))
        best = (c, maxerr)
        if len(ext) < n+1:
            break
        if maxerr <= abs(E)*(1+mp.mpf('1e-6')):
            break
        idx = ext
    return best

def f32(v):
    import struct
    return struct.unpack('f', struct.pack('f', float(v)))[0]

def fmt32(v):
    return repr(f32(v)) + "_f32"
def fmt64(v):
    return repr(float(v)) + "_f64"
