import mpmath as mp, struct
mp.mp.dps = 120
def f32(v): return struct.unpack('f', struct.pack('f', float(v)))[0]
def s32(v):
    v = f32(v)
    for d in range(1, 12):
        s = '%.*e' % (d, v)
        if f32(float(s)) == v:
            t = repr(float(s))
            if 'e' not in t and '.' not in t: t += '.0'
            return t + '_f32'
def s64(v):
    t = repr(float(v))
    if 'e' not in t and '.' not in t: t += '.0'
    return t + '_f64'
def chop(v, bits):
    # round v to `bits` significant bits (truncate)
    e = mp.floor(mp.log(abs(v), 2))
    scale = mp.mpf(2)**(bits - 1 - e)
    return mp.floor(v*scale)/scale
def parts(v, bitslist, last_f32=True):
    out = []
    rem = v
    for b in bitslist:
        p = chop(rem, b); out.append(p); rem = rem - p
    out.append(f32(rem) if last_f32 else float(rem))
    return out
pio2 = mp.pi/2
print("// pi/2 in 16-bit chunks + f32 tail (f32 Cody-Waite)")
for p in parts(pio2, [16,16,16]): print(s32(p), mp.nstr(p, 30))
print("// 2/pi words")
v = 2/mp.pi
for i in range(8):
    v *= 2**32; w = int(mp.floor(v)); v -= w
    print("0x%08x" % w)
print("pio2 * 2^-64 as f64:", s64(pio2 * mp.mpf(2)**-64))
def hilo32(name, v):
    hi = f32(v); lo = f32(v - mp.mpf(hi)); print(name, s32(hi), s32(lo))
def hilo64(name, v):
    hi = float(v); lo = float(v - mp.mpf(hi)); print(name, s64(hi), s64(lo))
hilo32("PIO2", pio2); hilo32("PI", mp.pi); hilo32("PIO4", mp.pi/4)
print("ln2 16-bit:", [s32(p) for p in parts(mp.log(2), [16])])
print("log2e 12-bit:", [s32(p) for p in parts(1/mp.log(2), [12])])
print("log10e 12-bit:", [s32(p) for p in parts(1/mp.log(10), [12])])
print("log10_2 16-bit:", [s32(p) for p in parts(mp.log10(2), [16])])
hilo32("LN2", mp.log(2))
print("log2e", s32(1/mp.log(2)), "log2e_f64", s64(1/mp.log(2)), "ln2_64", s64(mp.log(2)), "2pi", s32(2*mp.pi), "invpio2", s32(2/mp.pi))
print("sqrt2/2 bits", hex(struct.unpack('I', struct.pack('f', f32(mp.sqrt(2)/2)))[0]))
