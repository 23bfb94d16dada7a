ps_5_0
dcl_globalFlags refactoringAllowed | enableDoubles
ret 
