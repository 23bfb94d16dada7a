ps_5_0
dcl_output o0.xyzw
mvo o0.xyzw, l(1.000000, 0.000000, 0.000000, 1.000000)
ret 
