package downsample

import (
	"math"
	"math/rand/v2"
	"testing"

	"vastview/loader"
)

// projectCase checks Project on random outer × n × inner arrays of T
// against a plain reference: max and min (a NaN wins, as in NumPy), and
// the float64 sum, folding planes k0..k1 in two calls (the first with
// init), from aligned and misaligned buffers.
func projectCase[T Number](t *testing.T, dt loader.DType, r *rand.Rand) {
	for trial := 0; trial < 40; trial++ {
		outer, n, inner := 1+r.IntN(3), 1+r.IntN(6), 1+r.IntN(80) // rows long enough for vectors
		src := make([]T, outer*n*inner)
		for i := range src {
			src[i] = randSample[T](r)
		}
		k0 := r.IntN(n)
		k1 := k0 + 1 + r.IntN(n-k0)
		mid := k0 + r.IntN(k1-k0)
		for _, skew := range []int{0, 1} {
			b := leBytes(src, skew)
			for _, f := range []Fold{FoldMax, FoldMin, FoldSum} {
				acc := leBytes(make([]T, outer*inner), skew)
				sum := make([]float64, outer*inner)
				if f == FoldSum {
					acc = nil
				}
				if err := Project(f, dt, acc, sum, b, outer, n, inner, k0, mid+1, true); err != nil {
					t.Fatal(err)
				}
				if err := Project(f, dt, acc, sum, b, outer, n, inner, mid+1, k1, false); err != nil {
					t.Fatal(err)
				}
				for o := 0; o < outer; o++ {
					for i := 0; i < inner; i++ {
						want := float64(src[(o*n+k0)*inner+i])
						if f == FoldSum {
							want = 0
						}
						for k := k0; k < k1; k++ {
							v := float64(src[(o*n+k)*inner+i])
							switch {
							case f == FoldSum:
								want += v
							case k == k0:
							case f == FoldMax:
								want = max(want, v)
							default:
								want = min(want, v)
							}
						}
						var got float64
						if f == FoldSum {
							got = sum[o*inner+i]
						} else {
							got = dt.At(acc, o*inner+i)
						}
						if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
							t.Fatalf("%s fold %d planes %d..%d skew %d at (%d, %d): %v, want %v", dt, f, k0, k1, skew, o, i, got, want)
						}
					}
				}
			}
		}
	}
}

func TestProjectMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	projectCase[uint8](t, loader.Uint8, r)
	projectCase[int8](t, loader.Int8, r)
	projectCase[uint16](t, loader.Uint16, r)
	projectCase[int16](t, loader.Int16, r)
	projectCase[uint32](t, loader.Uint32, r)
	projectCase[int32](t, loader.Int32, r)
	projectCase[uint64](t, loader.Uint64, r)
	projectCase[int64](t, loader.Int64, r)
	projectCase[float32](t, loader.Float32, r)
	projectCase[float64](t, loader.Float64, r)
}

// BenchmarkProjectMax folds a 2048² uint16 plane into another by max,
// beside copy() of the same bytes.
func BenchmarkProjectMax(b *testing.B) {
	src := make([]byte, 2*2048*2048)
	acc := make([]byte, len(src))
	for i := range src {
		src[i] = byte(i * 7)
	}
	b.Run("uint16", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			Project(FoldMax, loader.Uint16, acc, nil, src, 1, 1, 2048*2048, 0, 1, false)
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			copy(acc, src)
		}
	})
}
