"""`kubectl pd capacity`: how many more copies of a deployment Kueue would admit, on the one admission engine."""
