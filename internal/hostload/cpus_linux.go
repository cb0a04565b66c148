package hostload

import "golang.org/x/sys/unix"

// ourCPUs returns the CPUs this process may run on (nil where the
// system does not say: then every CPU counts).
func ourCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}
