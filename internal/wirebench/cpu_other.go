//go:build !unix

package wirebench

// cpuNow is 0 where the process's CPU time is not read: the CPU metrics
// then read 0.
func cpuNow() float64 { return 0 }
