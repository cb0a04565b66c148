// Package hostload tells whether other work shares this machine's cores:
// what prophet checks before and while it times real runs to compare
// with a prediction (validate and the demo), since a real speedup
// measured beside another program measures the contention, not the
// program.
//
// It reads the kernel's CPU accounting (/proc/stat, /proc/loadavg) where
// there is one and says so where there is not: on other systems every
// check answers "unknown" (ok false), never "busy".
package hostload
