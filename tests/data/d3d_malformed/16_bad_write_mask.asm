ps_5_0
dcl_temps 2
mov r0.yx, r1.xyxx
mov r0.xx, r1.xyxx
ret 
