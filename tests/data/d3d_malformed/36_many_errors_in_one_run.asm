vs_5_0
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_temps 1
mul r0.xyzw, v0.xyzw, cb0[0
mad r0.xyzw, v0.yyyy, cb0[1].xyzw
dp4 o0.x, r0.xyzw, cb0[3].xyzv
movv o0.yzw, r0.yyzw
ret 
