cs_5_0
dcl_thread_group 1, 1, 1
printf "tab\q and \x4"
ret 
