ps_5_0
dcl_temps 2
add [precise(yx)] r0.xy, r1.xyxx, r1.yxyy
and [precise] r0.x, r0.x, r0.y
ret 
