#define ONE l(1.000000)
ps_5_0
dcl_temps 1
mov r0.x, ONE
ret 
