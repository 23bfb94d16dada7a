ps_5_0
dcl_temps 1
sample(1,0,0) r0.xyzw, r0.xyxx, t0.xyzw, s0
sample_indexable(1,0,0) r0.xyzw, r0.xyxx, t0.xyzw, s0
ret 
