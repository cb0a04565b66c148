package gid

// Supported reports whether G tells goroutines apart here.
const Supported = true

// G returns the calling goroutine's identity (see the package doc).
//
//go:noescape
func G() uintptr
