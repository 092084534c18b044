package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"vastview/downsample"
	"vastview/loader"
)

// A kernelCase is one kernel on one array; the kernel is timed against a
// copy() of its source buffer.
type kernelCase struct {
	name   string // e.g. "mean2x2x2.uint16"
	dt     loader.DType
	shape  []int
	reduce []bool
	mode   bool
}

func kernelCases() []kernelCase {
	const plane, volume = 4096, 64 << 20
	var cs []kernelCase
	for dt := loader.Uint8; dt <= loader.Float64; dt++ {
		cs = append(cs, kernelCase{name: "mean2x2." + dt.String(), dt: dt,
			shape: []int{plane, plane}, reduce: []bool{true, true}})
	}
	for dt := loader.Uint8; dt <= loader.Float64; dt++ {
		cs = append(cs, kernelCase{name: "mean2x2x2." + dt.String(), dt: dt,
			shape: []int{volume / (1 << 20) / dt.Size(), 1024, 1024}, reduce: []bool{true, true, true}})
	}
	// Last: they overwrite the source with labels.
	for _, dt := range []loader.DType{loader.Uint8, loader.Uint16, loader.Uint32, loader.Uint64} {
		cs = append(cs, kernelCase{name: "mode2x2x2." + dt.String(), dt: dt, mode: true,
			shape: []int{volume / (1 << 20) / dt.Size(), 1024, 1024}, reduce: []bool{true, true, true}})
	}
	return cs
}

// benchDownsample measures every kernel on one goroutine and reports, for each,
// its throughput in GB/s of source bytes ("downsample.mean2x2.uint16.gbps")
// and its ratio to a copy() of the same source buffer timed right beside it
// ("downsample.mean2x2.uint16.ratio_to_copy"), plus the copy bandwidth of a
// 64 MiB buffer ("downsample.copy.gbps"). Each figure is the best of a few
// runs, kernel and copy alternating. Mean kernels run on random samples,
// mode kernels on a label volume of small boxes (see fillLabels). It
// takes 5 to 20 seconds and 300 MB of memory; other work running at the
// same time skews the figures.
func benchDownsample(report func(name string, value float64, unit string)) error {
	const runs = 7
	cases := kernelCases()
	maxSrc, maxDst := 0, 0
	for _, c := range cases {
		in, out := shapeLen(c.shape, c.reduce)
		maxSrc = max(maxSrc, in*c.dt.Size())
		maxDst = max(maxDst, out*c.dt.Size())
	}
	src := make([]byte, maxSrc)
	cp := make([]byte, maxSrc)
	dst := make([]byte, maxDst)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	copy(cp, src)
	clear(dst)

	copyBest := 0.0
	for _, c := range cases {
		in, out := shapeLen(c.shape, c.reduce)
		s, d := src[:in*c.dt.Size()], dst[:out*c.dt.Size()]
		if c.mode {
			fillLabels(c.dt, s, c.shape)
		}
		run := downsample.Mean
		if c.mode {
			run = downsample.Mode
		}
		var kernel, copied time.Duration
		for i := range runs {
			t0 := time.Now()
			copy(cp[:len(s)], s)
			t1 := time.Now()
			if err := run(c.dt, d, s, c.shape, c.reduce); err != nil {
				return fmt.Errorf("downsample %s: %w", c.name, err)
			}
			t2 := time.Now()
			if i == 0 || t1.Sub(t0) < copied {
				copied = t1.Sub(t0)
			}
			if i == 0 || t2.Sub(t1) < kernel {
				kernel = t2.Sub(t1)
			}
		}
		gbps := float64(len(s)) / kernel.Seconds() / 1e9
		copyGBps := float64(len(s)) / copied.Seconds() / 1e9
		if len(s) == 64<<20 {
			copyBest = max(copyBest, copyGBps)
		}
		report("downsample."+c.name+".gbps", gbps, "GB/s")
		report("downsample."+c.name+".ratio_to_copy", gbps/copyGBps, "x")
	}
	report("downsample.copy.gbps", copyBest, "GB/s")
	simd := 0.0
	if downsample.SIMD() {
		simd = 1 // built with GOEXPERIMENT=simd on a CPU with AVX2
	}
	report("downsample.simd_kernels", simd, "bool")
	return nil
}

func shapeLen(shape []int, reduce []bool) (in, out int) {
	in, out = 1, 1
	for i, n := range shape {
		in *= n
		if reduce[i] {
			n = (n + 1) / 2
		}
		out *= n
	}
	return in, out
}

// fillLabels writes a label volume of shape (Z, Y, X) made of boxes of
// 9x15x21 samples, each with a label that depends on its position; about
// one 2x2x2 block in five straddles a border.
func fillLabels(dt loader.DType, b []byte, shape []int) {
	size := dt.Size()
	i := 0
	for z := range shape[0] {
		for y := range shape[1] {
			for x := range shape[2] {
				v := uint64(uint32(z/9*7919+y/15*104729+x/21*1299709) * 2654435761 >> 16)
				if size == 8 {
					v |= 1 << 60 // 64-bit ids beyond what a float64 tells apart
				}
				for k := range size {
					b[i+k] = byte(v >> (8 * k))
				}
				i += size
			}
		}
	}
}
