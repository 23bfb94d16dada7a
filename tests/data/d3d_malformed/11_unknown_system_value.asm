vs_4_0
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, positon
mov o0.xyzw, v0.xyzw
ret 
