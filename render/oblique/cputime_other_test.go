//go:build !linux

package oblique

import "time"

// threadCPU returns 0: the thread's CPU time is read on Linux only.
func threadCPU() time.Duration { return 0 }

// processCPU returns 0: the process's CPU time is read on Linux only.
func processCPU() time.Duration { return 0 }
