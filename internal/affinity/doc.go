// Package affinity binds threads to CPUs and lists the CPUs a process
// may use (Linux; elsewhere threads are only locked, and every CPU
// counts). The profiler pins its recording thread so that a recording
// is not split across cores, and the memory probe pins the program and
// its bandwidth bandits to different cores.
package affinity
