//go:build unix

package wirebench

import "syscall"

// cpuNow is the CPU time the process has used, in nanoseconds: the
// benchmark's goroutines and the collector's on every core.
func cpuNow() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}
