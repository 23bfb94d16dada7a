hs_5_0
hs_decls 
dcl_input_control_point_count 64
dcl_output_control_point_count 3
ret 
