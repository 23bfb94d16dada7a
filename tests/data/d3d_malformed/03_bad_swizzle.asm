ps_5_0
dcl_temps 2
mov r0.x, r1.xq
ret 
