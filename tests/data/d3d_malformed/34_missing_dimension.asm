ps_5_0
dcl_resource (float,float,float,float) t0
dcl_uav_typed_glc (float,float,float,float) u0
ret 
