package unprivileged

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// What capget and capset take (capabilities(7), capget(2)): the overrides
// are the capabilities that let root read, list and write what permission
// bits forbid.
const (
	capDACOverride   = 1
	capDACReadSearch = 2
	capVersion3      = 0x20080522
)

type capHeader struct {
	version uint32
	pid     int32 // 0: the calling thread
}

type capData struct{ effective, permitted, inheritable uint32 }

// lockAndDrop locks the calling goroutine to its thread and drops
// CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the thread's effective
// set: on Linux capabilities are each thread's own.
func lockAndDrop() {
	runtime.LockOSThread()
	hdr := capHeader{version: capVersion3}
	var data [2]capData // version 3 takes two: capabilities 0-31, 32-63
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		panic(fmt.Sprintf("unprivileged: capget: %v", e))
	}
	data[0].effective &^= 1<<capDACOverride | 1<<capDACReadSearch
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		panic(fmt.Sprintf("unprivileged: capset: %v", e))
	}
}
