// Package gid identifies the calling goroutine cheaply: G returns a
// value that differs between goroutines alive at the same time and stays
// the same for a goroutine while it lives (the address of the runtime's
// descriptor of it, read from thread-local storage, which the runtime
// keeps pointing at the running goroutine).
//
// The profiler records one goroutine's annotations; G on every event
// tells it, for about a nanosecond, when another goroutine calls in,
// which would otherwise corrupt its buffers. Where there is no such
// thread-local slot to read (other architectures), G returns 0 for every
// goroutine and Supported is false: callers then cannot tell goroutines
// apart.
package gid
