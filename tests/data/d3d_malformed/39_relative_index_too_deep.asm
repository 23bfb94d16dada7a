ps_5_0
dcl_indexableTemp x0[4], 4
mov r0.x, x0[x0[x0[x0[x0[r0.x + 0].x + 0].x + 0].x + 0].x + 0].x
ret 
