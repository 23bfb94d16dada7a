ps_5_0
dcl_temps 1
if r0.x
  mov r0.x, l(1)
endif 
breakc r0.x
ret 
