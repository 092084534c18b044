package downsample

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"vastview/loader"
)

// kernelModes runs f once with the portable kernels and, where built and
// supported, once with the SIMD kernels.
func kernelModes(t *testing.T, f func(t *testing.T)) {
	saved := useSIMD
	defer func() { useSIMD = saved }()
	for _, simd := range []bool{false, true} {
		if simd && !simdOK() {
			continue
		}
		useSIMD = simd
		t.Run(fmt.Sprintf("simd=%v", simd), f)
	}
}

// randShape picks a small shape (at most 5000 samples), often with long rows (to cover the vector
// loops and their tails) and often with the usual trailing 2x2 or 2x2x2
// reduction.
func randShape(r *rand.Rand) ([]int, []bool) {
	rank := 1 + r.IntN(5)
	shape := make([]int, rank)
	reduce := make([]bool, rank)
	for i := range shape {
		shape[i] = []int{1, 1, 2, 2, 3, 4, 5, 7}[r.IntN(8)]
	}
	if r.IntN(2) == 0 {
		shape[rank-1] = 1 + r.IntN(300)
		if rank > 1 && r.IntN(3) == 0 {
			shape[rank-2] = 1 + r.IntN(20)
		}
	}
	for n, _ := refLen(shape, reduce); n > 5000; n, _ = refLen(shape, reduce) {
		i := 0
		for j, v := range shape {
			if v > shape[i] {
				i = j
			}
		}
		shape[i] = (shape[i] + 1) / 2
	}
	if r.IntN(2) == 0 {
		k := min(rank, 2+r.IntN(2))
		for i := rank - k; i < rank; i++ {
			reduce[i] = true
		}
	} else {
		for i := range reduce {
			reduce[i] = r.IntN(2) == 0
		}
	}
	return shape, reduce
}

// randSample draws from a mix of extremes and uniform values.
func randSample[T Number](r *rand.Rand) T {
	var v T
	u := r.Uint64()
	pick := r.IntN(8)
	switch p := any(&v).(type) {
	case *uint8:
		*p = []uint8{0, math.MaxUint8, 1, math.MaxUint8 - 1, uint8(u), uint8(u), uint8(u), uint8(u)}[pick]
	case *int8:
		*p = []int8{0, math.MaxInt8, math.MinInt8, -1, 1, int8(u), int8(u), int8(u)}[pick]
	case *uint16:
		*p = []uint16{0, math.MaxUint16, 1, math.MaxUint16 - 1, uint16(u), uint16(u), uint16(u), uint16(u)}[pick]
	case *int16:
		*p = []int16{0, math.MaxInt16, math.MinInt16, -1, 1, int16(u), int16(u), int16(u)}[pick]
	case *uint32:
		*p = []uint32{0, math.MaxUint32, 1, math.MaxUint32 - 1, uint32(u), uint32(u), uint32(u), uint32(u)}[pick]
	case *int32:
		*p = []int32{0, math.MaxInt32, math.MinInt32, -1, 1, int32(u), int32(u), int32(u)}[pick]
	case *uint64:
		*p = []uint64{0, math.MaxUint64, 1, math.MaxUint64 - 1, 1<<53 + 1, u, u, u}[pick]
	case *int64:
		*p = []int64{0, math.MaxInt64, math.MinInt64, -1, 1, int64(u), int64(u), int64(u)}[pick]
	case *float32:
		*p = float32(randFloat(r))
		if r.IntN(4) == 0 {
			*p = []float32{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-39}[r.IntN(4)]
		}
	case *float64:
		*p = randFloat(r)
	}
	return v
}

func randFloat(r *rand.Rand) float64 {
	switch r.IntN(12) {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1 - 2*r.IntN(2))
	case 2:
		return math.Copysign(0, -1)
	case 3:
		return math.MaxFloat64 * float64(1-2*r.IntN(2))
	case 4:
		return math.SmallestNonzeroFloat64 * float64(r.IntN(5)-2)
	case 5:
		return float64(r.IntN(7) - 3)
	}
	return r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
}

// leBytes encodes samples as little-endian bytes at offset skew of a fresh
// buffer, so that skew 1 gives misaligned memory.
func leBytes[T Number](s []T, skew int) []byte {
	var buf bytes.Buffer
	buf.Write(make([]byte, skew))
	if err := binary.Write(&buf, binary.LittleEndian, s); err != nil {
		panic(err)
	}
	return buf.Bytes()[skew:]
}

func fromLE[T Number](b []byte) []T {
	var zero T
	s := make([]T, len(b)/int(unsafe.Sizeof(zero)))
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, s); err != nil {
		panic(err)
	}
	return s
}

func checkSame[T Number](t *testing.T, what string, shape []int, reduce []bool, src, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s shape %v reduce %v: %d samples, want %d", what, shape, reduce, len(got), len(want))
	}
	for i := range want {
		if !same(got[i], want[i]) {
			t.Fatalf("%s shape %v reduce %v: sample %d is %v, want %v (source %v)",
				what, shape, reduce, i, got[i], want[i], clip(src))
		}
	}
}

func clip[T any](s []T) []T { return s[:min(len(s), 64)] }

// propMean compares Mean and MeanOf with the reference on random arrays,
// through typed slices, aligned bytes and misaligned bytes.
func propMean[T Number](t *testing.T, dt loader.DType, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(dt)))
	for range 400 {
		shape, reduce := randShape(r)
		in, out := refLen(shape, reduce)
		src := make([]T, in)
		for i := range src {
			src[i] = randSample[T](r)
		}
		want := refMean(src, shape, reduce)

		got := make([]T, out)
		if err := MeanOf(got, src, shape, reduce); err != nil {
			t.Fatal(err)
		}
		checkSame(t, "MeanOf", shape, reduce, src, got, want)

		for skew := range 2 {
			dst := leBytes(make([]T, out), skew)
			if err := Mean(dt, dst, leBytes(src, skew), shape, reduce); err != nil {
				t.Fatal(err)
			}
			checkSame(t, fmt.Sprintf("Mean (skew %d)", skew), shape, reduce, src, fromLE[T](dst), want)
		}
	}
}

func propMode[T Label](t *testing.T, dt loader.DType, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(dt)))
	for range 300 {
		shape, reduce := randShape(r)
		in, out := refLen(shape, reduce)
		src := make([]T, in)
		// Few distinct labels make ties and majorities common.
		labels := []T{randSample[T](r), randSample[T](r), randSample[T](r), randSample[T](r)}
		n := 1 + r.IntN(len(labels))
		for i := range src {
			src[i] = labels[r.IntN(n)]
		}
		want := refMode(src, shape, reduce)

		got := make([]T, out)
		if err := ModeOf(got, src, shape, reduce); err != nil {
			t.Fatal(err)
		}
		checkSame(t, "ModeOf", shape, reduce, src, got, want)

		for skew := range 2 {
			dst := leBytes(make([]T, out), skew)
			if err := Mode(dt, dst, leBytes(src, skew), shape, reduce); err != nil {
				t.Fatal(err)
			}
			checkSame(t, fmt.Sprintf("Mode (skew %d)", skew), shape, reduce, src, fromLE[T](dst), want)
		}
	}
}

func TestMeanMatchesReference(t *testing.T) {
	kernelModes(t, func(t *testing.T) {
		t.Run("uint8", func(t *testing.T) { propMean[uint8](t, loader.Uint8, 1) })
		t.Run("int8", func(t *testing.T) { propMean[int8](t, loader.Int8, 2) })
		t.Run("uint16", func(t *testing.T) { propMean[uint16](t, loader.Uint16, 3) })
		t.Run("int16", func(t *testing.T) { propMean[int16](t, loader.Int16, 4) })
		t.Run("uint32", func(t *testing.T) { propMean[uint32](t, loader.Uint32, 5) })
		t.Run("int32", func(t *testing.T) { propMean[int32](t, loader.Int32, 6) })
		t.Run("uint64", func(t *testing.T) { propMean[uint64](t, loader.Uint64, 9) })
		t.Run("int64", func(t *testing.T) { propMean[int64](t, loader.Int64, 10) })
		t.Run("float32", func(t *testing.T) { propMean[float32](t, loader.Float32, 7) })
		t.Run("float64", func(t *testing.T) { propMean[float64](t, loader.Float64, 8) })
	})
}

func TestModeMatchesReference(t *testing.T) {
	t.Run("uint8", func(t *testing.T) { propMode[uint8](t, loader.Uint8, 11) })
	t.Run("int8", func(t *testing.T) { propMode[int8](t, loader.Int8, 12) })
	t.Run("uint16", func(t *testing.T) { propMode[uint16](t, loader.Uint16, 13) })
	t.Run("int16", func(t *testing.T) { propMode[int16](t, loader.Int16, 14) })
	t.Run("uint32", func(t *testing.T) { propMode[uint32](t, loader.Uint32, 15) })
	t.Run("int32", func(t *testing.T) { propMode[int32](t, loader.Int32, 16) })
	t.Run("uint64", func(t *testing.T) { propMode[uint64](t, loader.Uint64, 17) })
	t.Run("int64", func(t *testing.T) { propMode[int64](t, loader.Int64, 18) })
}

// TestFastKernelsLongRows checks the 8- and 16-bit 2x2 and 2x2x2 kernels
// on rows of every length around the vector widths, with extreme values.
func TestFastKernelsLongRows(t *testing.T) {
	kernelModes(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 22))
		for n := 1; n <= 200; n++ {
			for _, shape := range [][]int{{2, n}, {3, n}, {2, 2, n}, {3, 3, n}} {
				reduce := []bool{true, true, true}[:len(shape)]
				longRows[uint8](t, r, shape, reduce)
				longRows[int8](t, r, shape, reduce)
				longRows[uint16](t, r, shape, reduce)
				longRows[int16](t, r, shape, reduce)
			}
		}
	})
}

// TestFastKernelsExtremes checks the 8- and 16-bit 2x2 and 2x2x2 kernels
// on blocks of only the smallest and largest values, where the lane sums
// are largest and every rounding carry happens, on rows with and without
// a tail.
func TestFastKernelsExtremes(t *testing.T) {
	kernelModes(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(23, 24))
		extremes[uint8](t, r, 0, math.MaxUint8)
		extremes[int8](t, r, math.MinInt8, math.MaxInt8)
		extremes[uint16](t, r, 0, math.MaxUint16)
		extremes[int16](t, r, math.MinInt16, math.MaxInt16)
		extremes[uint64](t, r, 0, math.MaxUint64)
		extremes[int64](t, r, math.MinInt64, math.MaxInt64)
	})
}

func extremes[T Number](t *testing.T, r *rand.Rand, lo, hi T) {
	t.Helper()
	for _, shape := range [][]int{{2, 64}, {2, 77}, {2, 2, 64}, {2, 2, 77}} {
		reduce := []bool{true, true, true}[:len(shape)]
		in, out := refLen(shape, reduce)
		src := make([]T, in)
		for _, pick := range []func(i int) T{
			func(int) T { return hi },
			func(int) T { return lo },
			func(int) T { return hi - 1 },
			func(int) T { return lo + 1 },
			func(i int) T { return []T{lo, hi}[i%2] },
			func(int) T { return []T{lo, hi}[r.IntN(2)] },
			func(int) T { return []T{lo, hi, lo + 1, hi - 1}[r.IntN(4)] },
		} {
			for i := range src {
				src[i] = pick(i)
			}
			got := make([]T, out)
			if err := MeanOf(got, src, shape, reduce); err != nil {
				t.Fatal(err)
			}
			checkSame(t, "MeanOf", shape, reduce, src, got, refMean(src, shape, reduce))
		}
	}
}

func longRows[T Number](t *testing.T, r *rand.Rand, shape []int, reduce []bool) {
	t.Helper()
	in, out := refLen(shape, reduce)
	src := make([]T, in)
	for i := range src {
		src[i] = randSample[T](r)
	}
	got := make([]T, out)
	if err := MeanOf(got, src, shape, reduce); err != nil {
		t.Fatal(err)
	}
	checkSame(t, "MeanOf", shape, reduce, src, got, refMean(src, shape, reduce))
}

// TestRules checks the documented rules on small cases worked by hand.
func TestRules(t *testing.T) {
	i8 := func(v ...int8) []int8 { return v }
	u8 := func(v ...uint8) []uint8 { return v }
	cases := []struct {
		name      string
		src, want any
		shape     []int
		reduce    []bool
		mode      bool
	}{
		{"half up", u8(2, 3), u8(3), []int{2}, []bool{true}, false},
		{"negative half up", i8(-2, -3), i8(-2), []int{2}, []bool{true}, false},
		{"negative below half", i8(-2, -3, -3, -3), i8(-3), []int{2, 2}, []bool{true, true}, false},
		{"odd edge keeps its samples", u8(1, 2, 3), u8(2, 3), []int{3}, []bool{true}, false},
		{"kept axis", u8(1, 2, 3, 5), u8(2, 4), []int{2, 2}, []bool{true, false}, false},
		{"mode tie takes smallest", u8(5, 3, 5, 3), u8(3), []int{2, 2}, []bool{true, true}, true},
		{"mode majority", i8(-1, 7, 7, 2), i8(7), []int{2, 2}, []bool{true, true}, true},
		{"mode odd edge", i8(-1, 7, 7, -1, 2, 2), i8(-1, 2), []int{2, 3}, []bool{true, true}, true},
	}
	for _, c := range cases {
		var got any
		var err error
		switch src := c.src.(type) {
		case []uint8:
			d := make([]uint8, len(c.want.([]uint8)))
			if c.mode {
				err = ModeOf(d, src, c.shape, c.reduce)
			} else {
				err = MeanOf(d, src, c.shape, c.reduce)
			}
			got = d
		case []int8:
			d := make([]int8, len(c.want.([]int8)))
			if c.mode {
				err = ModeOf(d, src, c.shape, c.reduce)
			} else {
				err = MeanOf(d, src, c.shape, c.reduce)
			}
			got = d
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOutShape(t *testing.T) {
	got := OutShape([]int{5, 7, 1, 0, 4}, []bool{false, true, true, true, true})
	if fmt.Sprint(got) != "[5 4 1 0 2]" {
		t.Errorf("OutShape = %v", got)
	}
	if OutShape([]int{2}, nil) != nil || OutShape([]int{-1}, []bool{true}) != nil {
		t.Error("OutShape accepted a bad shape")
	}
}

func TestErrors(t *testing.T) {
	b := func(n int) []byte { return make([]byte, n) }
	cases := []struct {
		name     string
		err      error
		shape    bool // wraps ErrShape
		contains string
	}{
		{"short source", Mean(loader.Uint8, b(2), b(7), []int{2, 4}, []bool{true, true}), true, "source holds 7"},
		{"long source", Mean(loader.Uint8, b(2), b(9), []int{2, 4}, []bool{true, true}), true, "source holds 9"},
		{"wrong destination", Mean(loader.Uint16, b(2), b(16), []int{2, 4}, []bool{true, true}), true, "destination holds 1"},
		{"odd bytes", Mean(loader.Uint16, b(4), b(15), []int{2, 4}, []bool{true, true}), true, "whole 2-byte samples"},
		{"flags", Mean(loader.Uint8, b(2), b(8), []int{2, 4}, []bool{true}), true, "2 axes but 1 reduce flags"},
		{"negative", Mean(loader.Uint8, b(0), b(0), []int{-2, 4}, []bool{true, true}), true, "negative"},
		{"overflow", Mean(loader.Uint8, b(1), b(8), []int{1 << 40, 1 << 40}, []bool{true, true}), true, "too large"},
		{"too many axes", Mean(loader.Uint8, b(1), b(128), []int{2, 2, 2, 2, 2, 2, 2}, []bool{true, true, true, true, true, true, true}), true, "more than 6 reduced axes"},
		{"float mode", Mode(loader.Float32, b(4), b(16), []int{2, 2}, []bool{true, true}), false, "mode of float32"},
		{"invalid type", Mean(loader.Invalid, b(1), b(4), []int{2, 2}, []bool{true, true}), false, "mean of invalid"},
		{"typed", MeanOf(make([]float64, 3), make([]float64, 4), []int{4}, []bool{true}), true, "destination holds 3"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := c.err.Error()
		if errors.Is(c.err, ErrShape) != c.shape || !strings.Contains(msg, c.contains) ||
			strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "downsample: ") {
			t.Errorf("%s: error %q", c.name, msg)
		}
	}
}

// TestEmptyAndTrivial covers zero-length axes and shapes with nothing to
// reduce.
func TestEmptyAndTrivial(t *testing.T) {
	if err := Mean(loader.Float32, nil, nil, []int{3, 0, 5}, []bool{true, true, true}); err != nil {
		t.Error(err)
	}
	if err := Mode(loader.Uint8, nil, nil, []int{0}, []bool{false}); err != nil {
		t.Error(err)
	}
	src := []int16{1, -2, 3, -4, 5, -6}
	dst := make([]int16, 6)
	if err := MeanOf(dst, src, []int{2, 3}, []bool{false, false}); err != nil || fmt.Sprint(dst) != fmt.Sprint(src) {
		t.Errorf("nothing reduced: %v, %v", dst, err)
	}
	one := make([]uint32, 1)
	if err := MeanOf(one, []uint32{math.MaxUint32}, nil, nil); err != nil || one[0] != math.MaxUint32 {
		t.Errorf("scalar: %v, %v", one, err)
	}
}

func TestNoAllocations(t *testing.T) {
	shape, reduce := []int{3, 5, 67}, []bool{true, true, true}
	in, out := refLen(shape, reduce)
	for dt := loader.Uint8; dt <= loader.Float64; dt++ {
		src, dst := make([]byte, in*dt.Size()), make([]byte, out*dt.Size())
		n := testing.AllocsPerRun(20, func() {
			if err := Mean(dt, dst, src, shape, reduce); err != nil {
				t.Fatal(err)
			}
			if !dt.Float() {
				if err := Mode(dt, dst, src, shape, reduce); err != nil {
					t.Fatal(err)
				}
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per call", dt, n)
		}
	}
}

// TestMode8 compares the branch-free 8-value mode with the reference on
// values from small alphabets, where runs and ties abound.
func TestMode8(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for range 20000 {
		var v [8]int16
		k := 1 + r.IntN(5)
		for i := range v {
			v[i] = int16(r.IntN(k)*9000 - 18000)
		}
		want := refMode(v[:], []int{2, 2, 2}, []bool{true, true, true})
		got := mode8(int64(v[0]), int64(v[1]), int64(v[2]), int64(v[3]), int64(v[4]), int64(v[5]), int64(v[6]), int64(v[7]))
		if int16(got) != want[0] {
			t.Fatalf("mode of %v = %d, want %d", v, got, want[0])
		}
	}
}

// TestModeWords checks the 2x2x2 and 2x2 modes on rows of every length
// around the word widths, made of runs of a few labels whose borders fall
// at every column, between the rows or not, so that words of uniform
// rows, of equal pairs, of rows equal two by two and of mixed blocks all
// occur, with ties.
func TestModeWords(t *testing.T) {
	t.Run("uint8", func(t *testing.T) { checkModeWords[uint8](t, 41) })
	t.Run("int8", func(t *testing.T) { checkModeWords[int8](t, 42) })
	t.Run("uint16", func(t *testing.T) { checkModeWords[uint16](t, 43) })
	t.Run("int16", func(t *testing.T) { checkModeWords[int16](t, 44) })
	t.Run("uint32", func(t *testing.T) { checkModeWords[uint32](t, 45) })
	t.Run("int32", func(t *testing.T) { checkModeWords[int32](t, 46) })
}

func checkModeWords[T Label](t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0))
	for n := 1; n <= 70; n++ {
		for _, shape := range [][]int{{2, 2, n}, {3, 3, n}, {2, n}, {3, n}} {
			reduce := []bool{true, true, true}[:len(shape)]
			in, out := refLen(shape, reduce)
			rows := in / n
			for range 20 {
				labels := []T{randSample[T](r), randSample[T](r), randSample[T](r)}
				src := make([]T, in)
				// Each row is a copy of one of a few runs of labels, or its own.
				base := make([][]T, 3)
				for k := range base {
					base[k] = make([]T, n)
					run := 1 + r.IntN(6)
					l := labels[r.IntN(len(labels))]
					for x := range n {
						if x%run == 0 && r.IntN(2) == 0 {
							l = labels[r.IntN(len(labels))]
						}
						base[k][x] = l
					}
				}
				for y := range rows {
					row := src[y*n : (y+1)*n]
					if k := r.IntN(len(base) + 1); k < len(base) {
						copy(row, base[k])
					} else {
						for x := range row {
							row[x] = labels[r.IntN(len(labels))]
						}
					}
				}
				got := make([]T, out)
				if err := ModeOf(got, src, shape, reduce); err != nil {
					t.Fatal(err)
				}
				checkSame(t, "ModeOf", shape, reduce, src, got, refMode(src, shape, reduce))
			}
		}
	}
}

// TestLaneMode4 compares the lane mode of four words with the reference on
// every lane.
func TestLaneMode4(t *testing.T) {
	t.Run("uint8", func(t *testing.T) { laneMode4Ref[uint8](t) })
	t.Run("int8", func(t *testing.T) { laneMode4Ref[int8](t) })
	t.Run("uint16", func(t *testing.T) { laneMode4Ref[uint16](t) })
	t.Run("int16", func(t *testing.T) { laneMode4Ref[int16](t) })
	t.Run("uint32", func(t *testing.T) { laneMode4Ref[uint32](t) })
	t.Run("int32", func(t *testing.T) { laneMode4Ref[int32](t) })
}

func laneMode4Ref[T Label](t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	l := lanesOf[T]()
	per := int(32 / l.shift)
	for range 20000 {
		labels := []T{randSample[T](r), randSample[T](r), randSample[T](r), randSample[T](r)}
		var v [4][]T // the samples of each word, two per block
		var w [4]uint64
		for k := range v {
			v[k] = make([]T, 2*per)
			for i := range v[k] {
				v[k][i] = labels[r.IntN(len(labels))]
			}
			b := make([]byte, 8)
			copy(b, asBytes(v[k]))
			w[k] = binary.LittleEndian.Uint64(b)
		}
		got := l.pack(laneMode4[T](l.even(w[0]), l.odd(w[1]), l.even(w[2]), l.odd(w[3])))
		for i := range per {
			block := []T{v[0][2*i], v[1][2*i+1], v[2][2*i], v[3][2*i+1]}
			want := refMode(block, []int{2, 2}, []bool{true, true})[0]
			b := make([]byte, 4)
			binary.LittleEndian.PutUint32(b, got)
			if g := fromLE[T](b)[i]; g != want {
				t.Fatalf("mode of %v = %v, want %v", block, g, want)
			}
		}
	}
}
