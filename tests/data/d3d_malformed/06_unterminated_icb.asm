ps_4_0
dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},
                              { 0, 1.000000, 0, 0},
dcl_temps 1
mov r0.xyzw, icb[0].xyzw
ret 
