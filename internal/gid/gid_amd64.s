#include "textflag.h"

// func G() uintptr
// The runtime keeps the running goroutine's g in the thread-local slot
// that (TLS) addresses.
TEXT ·G(SB),NOSPLIT,$0-8
	MOVQ	(TLS), AX
	MOVQ	AX, ret+0(FP)
	RET
