//go:build !unix

package bandit

// mapWords returns words words from the Go heap (systems other than
// Unix), and a function that does nothing.
func mapWords(words int) ([]uint64, func()) { return make([]uint64, words), func() {} }
