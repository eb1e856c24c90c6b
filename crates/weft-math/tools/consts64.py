import mpmath as mp
mp.mp.dps = 400
def s64(v):
    t = repr(float(v))
    if 'e' not in t and '.' not in t: t += '.0'
    return t + '_f64'
def chop(v, bits):
    e = mp.floor(mp.log(abs(v), 2))
    scale = mp.mpf(2)**(bits - 1 - e)
    return mp.floor(v*scale)/scale if v > 0 else mp.ceil(v*scale)/scale
def hilo(name, v):
    hi = mp.mpf(float(v)); lo = float(v - hi); print(f"{name}: hi {s64(hi)} lo {s64(lo)}")
pio2 = mp.pi/2
a = chop(pio2, 33); b = chop(pio2 - a, 33); c = chop(pio2 - a - b, 33); d = float(pio2 - a - b - c)
print("PIO2 33-bit chunks:", s64(a), s64(b), s64(c), s64(d))
assert float(a) == a and float(b) == b and float(c) == c
v = 2/mp.pi
words = []
for i in range(20):
    v *= mp.mpf(2)**64; w = int(mp.floor(v)); v -= w; words.append(w)
print("2/pi u64 words:", ", ".join("0x%016x" % w for w in words))
hilo("PIO2", pio2); hilo("PI", mp.pi); hilo("PIO4", mp.pi/4); hilo("3PIO4", 3*mp.pi/4)
for t in ['0.5','1','1.5']:
    hilo("atan"+t, mp.atan(mp.mpf(t)))
l2h = chop(mp.log(2), 42); print("LN2_HI42", s64(l2h), "LO", s64(mp.log(2)-l2h))
hilo("LN2", mp.log(2))
l = chop(1/mp.log(2), 27); print("LOG2E_HI27", s64(l), "LO", s64(1/mp.log(2)-l), "full", s64(1/mp.log(2)))
l = chop(1/mp.log(10), 27); print("LOG10E_HI27", s64(l), "LO", s64(1/mp.log(10)-l), "full", s64(1/mp.log(10)))
l = chop(mp.log10(2), 42); print("LOG10_2_HI42", s64(l), "LO", s64(mp.log10(2)-l))
hilo("TWO_THIRDS", mp.mpf(2)/3)
print("INV_PIO2", s64(2/mp.pi), "2^-53", s64(mp.mpf(2)**-53), "2^-64", s64(mp.mpf(2)**-64), "2^-117", s64(mp.mpf(2)**-117))
