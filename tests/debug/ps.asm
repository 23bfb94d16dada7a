ps_5_0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 1
add r0.x, v0.x, l(-0.5)
lt r0.y, r0.x, l(0.0)
discard_nz r0.y
mov o0.xy, v0.xyxx
mov o0.zw, l(0, 0, 0, 1.0)
ret
