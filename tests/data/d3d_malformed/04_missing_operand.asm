ps_5_0
dcl_temps 2
add r0.x, r1.x
ret 
