ps_4_1
dcl_input_ps linear centroid sample v0.xy
ret 
