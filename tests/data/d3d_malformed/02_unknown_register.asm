ps_5_0
dcl_temps 1
mov q0.x, l(0)
ret 
