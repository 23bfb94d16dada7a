cs_5_0
dcl_thread_group 1, 1, 1
printf "value: %d, r0.x
ret 
