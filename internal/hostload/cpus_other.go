//go:build !linux

package hostload

// ourCPUs returns nil: this system does not say which CPUs the process
// may run on (nor does it have /proc/stat, so nothing is read).
func ourCPUs() []int { return nil }
