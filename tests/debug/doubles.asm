cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_temps 2
dcl_thread_group 1, 1, 1
dmov r1.xyzw, d(1.0, -2.0)
dmovc r0.xyzw, l(1, 0, 0, 0), d(1.5, -2.5), d(3.0, 4.0)
dadd r1.zw, r1.zwzw, r0.zwzw
ret
