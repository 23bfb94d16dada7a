ps_5_0
dcl_temps 3
mov r0.x, r1.x, r2.x
ret 
