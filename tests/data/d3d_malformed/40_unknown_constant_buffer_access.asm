ps_5_0
dcl_constantbuffer CB0[4], immediateindex
dcl_sampler s0, mode_compare
ret 
