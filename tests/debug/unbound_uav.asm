cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_uav_typed_texture2darray (uint,uint,uint,uint) u1
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 2, 1, 1
ishl r0.x, vThreadID.x, l(2)
store_raw u0.x, r0.x, vThreadID.x
store_uav_typed u1.xyzw, l(1, 0, 2, 9), l(3, 4, 5, 6)
ret
