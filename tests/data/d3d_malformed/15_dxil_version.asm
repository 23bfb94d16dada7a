ps_6_0
ret 
