package render

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns a clock of the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID, exact to the nanosecond, unlike the rusage
// figures, which count whole scheduler ticks), and a function that undoes
// the locking of the goroutine to its thread that makes the figure mean
// something; ok is false where it is not known.
func threadCPU() (func() time.Duration, func(), bool) {
	runtime.LockOSThread()
	return func() time.Duration {
		var ts syscall.Timespec
		syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0)
		return time.Duration(ts.Nano())
	}, runtime.UnlockOSThread, true
}
