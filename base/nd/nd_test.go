package nd

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestNextWalksEveryPositionInCOrder(t *testing.T) {
	ext := []int{2, 3, 2}
	idx := make([]int, 3)
	var got [][]int
	for {
		got = append(got, slices.Clone(idx))
		if !Next(idx, ext) {
			break
		}
	}
	if len(got) != 12 {
		t.Fatalf("%d positions, want 12", len(got))
	}
	for k, p := range got {
		if want := []int{k / 6, k / 2 % 3, k % 2}; !slices.Equal(p, want) {
			t.Fatalf("position %d is %v, want %v", k, p, want)
		}
	}
	if !slices.Equal(idx, []int{0, 0, 0}) {
		t.Errorf("idx %v after the walk, want the origin", idx)
	}
	if Next(nil, nil) {
		t.Error("a walk over no axes has one position")
	}
}

func TestNextInWalksTheBox(t *testing.T) {
	lo, end := []int{1, 5}, []int{3, 7}
	idx := slices.Clone(lo)
	var got [][]int
	for {
		got = append(got, slices.Clone(idx))
		if !NextIn(idx, lo, end) {
			break
		}
	}
	want := [][]int{{1, 5}, {1, 6}, {2, 5}, {2, 6}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("walk %v, want %v", got, want)
	}
}

// TestCopyBoxMatchesElementwiseCopy copies random boxes between random
// arrays and compares with a copy element by element.
func TestCopyBoxMatchesElementwiseCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		n := 1 + r.IntN(5)
		es := []int{1, 2, 4, 8}[r.IntN(4)]
		srcShape, dstShape := make([]int, n), make([]int, n)
		srcOff, dstOff, box := make([]int, n), make([]int, n), make([]int, n)
		for i := range n {
			box[i] = r.IntN(4)
			if trial%7 != 0 {
				box[i]++
			}
			srcOff[i], dstOff[i] = r.IntN(3), r.IntN(3)
			srcShape[i] = srcOff[i] + box[i] + r.IntN(3)
			dstShape[i] = dstOff[i] + box[i] + r.IntN(3)
		}
		src := make([]byte, Product(srcShape)*es)
		for i := range src {
			src[i] = byte(r.IntN(256))
		}
		dst := make([]byte, Product(dstShape)*es)
		want := slices.Clone(dst)
		ss, ds := Strides(srcShape), Strides(dstShape)
		pos := make([]int, n)
		if Product(box) > 0 {
			for {
				so, do := 0, 0
				for i := range n {
					so += (srcOff[i] + pos[i]) * ss[i]
					do += (dstOff[i] + pos[i]) * ds[i]
				}
				copy(want[do*es:(do+1)*es], src[so*es:(so+1)*es])
				if !Next(pos, box) {
					break
				}
			}
		}
		CopyBox(dst, dstShape, dstOff, src, srcShape, srcOff, box, es)
		if !slices.Equal(dst, want) {
			t.Fatalf("trial %d: box %v from %v@%v to %v@%v differs", trial, box, srcShape, srcOff, dstShape, dstOff)
		}
	}
}

func TestCopyBoxAllocatesNothing(t *testing.T) {
	src, dst := make([]byte, 4*5*6*2), make([]byte, 4*5*6*2)
	shape, off, box := []int{4, 5, 6}, []int{1, 1, 1}, []int{3, 3, 4}
	if n := testing.AllocsPerRun(10, func() { CopyBox(dst, shape, off, src, shape, off, box, 2) }); n != 0 {
		t.Errorf("%v allocations per copy", n)
	}
}
