cs_5_0
dcl_resource_structured t0, 5000
dcl_thread_group 1, 1, 1
dcl_temps 1
ld_structured_indexable(structured_buffer, stride=5000)(mixed,mixed,mixed,mixed) r0.x, l(0), l(0), t0.xxxx
ret 
