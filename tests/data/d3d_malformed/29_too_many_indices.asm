gs_5_0
dcl_temps 1
mov r0.x, v[0][1][2][3].x
ret 
