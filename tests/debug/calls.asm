// An unconditional and a conditional call: each call is one step,
// also when the subroutine returns into its lowering.
cs_5_0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 2, 1, 1
mov r0.x, l(1)
call l0
callc_nz vThreadID.x, l1
mov r1.y, l(5)
ret
label l0
iadd r0.x, r0.x, l(1)
ret
label l1
mov r1.x, l(9)
retc_nz r1.x
mov r1.x, l(8)
ret
