ps_5_0
dcl_temps 1
and_sat r0.x, r0.x, l(1)
add_nz r0.x, r0.x, r0.x
ret 
