//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// POSITION                 0   xyzq        0     NONE   float   xyzw
// NORMAL                   x   xyz         1     NONE   float   xyz 
//
vs_4_0
dcl_input v0.xyzw
ret 
