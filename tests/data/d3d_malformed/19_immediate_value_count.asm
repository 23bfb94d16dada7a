ps_5_0
dcl_temps 1
mov r0.xy, l(1, 2)
mov r0.x, d(1.000000l, 2.000000l, 3.000000l)
ret 
