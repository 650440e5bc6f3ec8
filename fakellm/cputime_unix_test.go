//go:build unix

package fakellm_test

import "syscall"

// cpuNanos returns the CPU time (user + system) the process has used. On a
// shared 2-core machine it is a steadier measure than wall time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
