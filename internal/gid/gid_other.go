//go:build !amd64

package gid

// Supported reports whether G tells goroutines apart here.
const Supported = false

// G returns 0: goroutines cannot be told apart on this architecture.
func G() uintptr { return 0 }
