cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_indexableTemp x1[4], 4
dcl_tgsm_raw g0, 64
dcl_thread_group 4, 1, 1
mov r0.x, vThreadID.x
mov x1[r0.x + 0].x, l(7)
ishl r0.y, r0.x, l(2)
store_raw g0.x, r0.y, r0.x
sync_g_t
mov r1.x, l(0)
loop
  uge r1.y, r1.x, r0.x
  breakc_nz r1.y
  iadd r1.x, r1.x, l(1)
endloop
dadd r1.zw, d(1.5, 0.0), d(2.25, 0.0)
store_raw u0.x, r0.y, x1[r0.x + 0].x
ret
