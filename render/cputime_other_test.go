//go:build !linux

package render

import "time"

// threadCPU is not known here: the benchmarks use wall time.
func threadCPU() (func() time.Duration, func(), bool) {
	return func() time.Duration { return 0 }, func() {}, false
}
