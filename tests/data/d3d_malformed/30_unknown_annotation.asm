ps_5_0
dcl_temps 2
mov r0.x {min8f}, r1.x
mov r0.x, r1.x {components=3}
ret 
