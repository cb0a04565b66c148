package fpu

// vzeroupper executes VZEROUPPER. The caller checks that the CPU has AVX.
func vzeroupper()
