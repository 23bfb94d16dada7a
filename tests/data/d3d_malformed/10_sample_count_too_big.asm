ps_4_1
dcl_resource_texture2dms(200) (float,float,float,float) t0
ret 
