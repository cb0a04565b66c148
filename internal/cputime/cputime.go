// Package cputime reads the CPU time of the calling thread and of the
// whole process, where the system has such clocks (Linux). prophet uses
// them to measure benchmarks by the time they ran rather than the wall
// time (calibrate) and to tell work that ran slower from cores that sat
// idle (validate).
package cputime
