package bench

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// threadClock returns a clock of the CPU time the calling goroutine's
// thread uses (CLOCK_THREAD_CPUTIME_ID), which other work on the machine
// does not inflate, and the function that unlocks the goroutine from the
// thread it locks it to.
func threadClock() (func() time.Duration, func()) {
	runtime.LockOSThread()
	return func() time.Duration {
		var ts syscall.Timespec
		syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0)
		return time.Duration(ts.Nano())
	}, runtime.UnlockOSThread
}
