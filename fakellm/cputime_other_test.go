//go:build !unix

package fakellm_test

// cpuNanos is not measured on this platform; the cpu-ns/op metric reads 0.
func cpuNanos() int64 { return 0 }
