vs_4_0
dcl_output o0.xyzw
mov o0.xyzw, l(1.0.0, 0.000000, 0x1g, 1.#FOO0)
ret 
