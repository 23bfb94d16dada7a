ps_5_0
dcl_temps 1
mov r4294967296.x, l(0)
mov r0.x, cb0[5000000000].x
ret 
