//go:build unix

package bandit

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapWords returns words words of memory outside the Go heap, and a
// function that gives them back. A bandit's buffer (tens of MiB) on the
// heap would pace the garbage collector of the program it streams
// beside: a program that allocates as it runs would collect far less
// often than without the probe, and be recorded faster than it runs.
// Where the system refuses, the memory comes from the heap.
func mapWords(words int) ([]uint64, func()) {
	b, err := unix.Mmap(-1, 0, words*8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]uint64, words), func() {}
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), words), func() { _ = unix.Munmap(b) }
}
