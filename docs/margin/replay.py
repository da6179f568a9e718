#!/usr/bin/env python3
"""Replays margin policies on recorded oversleep series (one nanosecond value per line, as
printed by `cargo run --release -p punctual --example oversleep_series -- 970us 12000`).

For each sleep after the first window, the margin comes from the previous WINDOW samples; a
sleep whose oversleep exceeds it is a miss (the hybrid wait wakes late by the difference),
otherwise it spins for margin - oversleep. Prints miss rate, mean spin per wait and the p99 /
p99.9 lateness each policy would have produced.

usage: replay.py SERIES.txt [SERIES.txt ...]
"""
import sys, math
def q(sorted_, t):
    n=len(sorted_); r=min(max(math.ceil(t*n),1),n-1)-1; return sorted_[r]
def sim(xs, policy, W=100):
    miss=0; spin=0; lat=[]
    for i in range(W, len(xs)):
        win=sorted(xs[i-W:i]); m=policy(win)
        x=xs[i]
        if x>m: miss+=1; lat.append(x-m)
        else: spin+=m-x; lat.append(0)
    n=len(xs)-W; lat.sort()
    return miss/n*100, spin/n/1000, lat[int(n*0.99)]/1000, lat[int(n*0.999)]/1000
pol={
 'q99 (2nd largest)': lambda w: q(w,0.99),
 'q99+(q99-q50)/2': lambda w: q(w,0.99)+(q(w,0.99)-w[len(w)//2])//2,
 'q99+(q99-q50)': lambda w: q(w,0.99)+(q(w,0.99)-w[len(w)//2]),
 'q99*1.25': lambda w: q(w,0.99)*1.25,
 'q90+2*(q90-q50)': lambda w: q(w,0.9)+2*(q(w,0.9)-w[len(w)//2]),
 'q99+2*(q90-q50)': lambda w: q(w,0.99)+2*(q(w,0.9)-w[len(w)//2]),
}
for f in sys.argv[1:]:
    xs=[int(l) for l in open(f)]
    s=sorted(xs); print(f, "n=%d p50=%.1f p90=%.1f p99=%.1f p999=%.1f max=%.0f us"%(len(xs), s[len(s)//2]/1e3, s[int(len(s)*.9)]/1e3, s[int(len(s)*.99)]/1e3, s[int(len(s)*.999)]/1e3, s[-1]/1e3))
    for name,p in pol.items():
        m,sp,p99,p999=sim(xs,p)
        print("   %-22s miss %5.2f%%  spin/wait %6.1f us  lateness p99 %6.1f us  p99.9 %7.1f us"%(name,m,sp,p99,p999))
print("---- exp-tail family")
import math
def exptail(p):
    def f(w):
        q90=q(w,0.9); top=q(w,0.99)   # 2nd largest ~ q(1-2/(n+1))
        n=len(w); ptop=1-2/(n+1)
        s=(top-q90)/math.log((0.1)/(1-ptop))
        return q90+s*math.log(0.1/(1-p))
    return f
for f in sys.argv[1:]:
    xs=[int(l) for l in open(f)]
    print(f)
    for p in [0.99,0.995,0.997,0.999]:
        m,sp,p99,p999=sim(xs,exptail(p))
        print("   exp-tail q%-6s       miss %5.2f%%  spin/wait %6.1f us  lateness p99 %6.1f us  p99.9 %7.1f us"%(p,m,sp,p99,p999))
