ps_5_0
dcl_resource_texture2d (float,float,flaot,float) t0
dcl_resource_texture2d (float,float,float) t1
ret 
