ps_5_0
ret 5
dcl_temps 1 2
