package sequence

import (
	"context"
	"fmt"
	"slices"

	"vastview/loader"
)

// tiffHeader describes a TIFF frame from the metadata loader.Open reports.
func tiffHeader(path string) (frameInfo, error) {
	src, err := loader.Open(path)
	if err != nil {
		return frameInfo{}, err
	}
	defer src.Close()
	return tiffInfo(src.Meta())
}

// tiffInfo describes a TIFF frame's metadata; it refuses files that hold
// more than one plane.
func tiffInfo(m *loader.Meta) (frameInfo, error) {
	planes := 1
	for i, a := range []byte(m.Axes) {
		if a != 'C' && a != 'Y' && a != 'X' {
			planes *= m.Shape[i]
		}
	}
	if planes != 1 {
		return frameInfo{}, fmt.Errorf("holds %d images (axes %s); a frame must be a single image", planes, m.Axes)
	}
	f := frameInfo{
		kind: kindTIFF, w: m.Size('X'), h: m.Size('Y'), c: m.Size('C'),
		dtype: m.DType, palette: len(m.Palette) > 0,
	}
	return f, f.check()
}

// readTIFF reads a single-image TIFF frame into dst after checking that it
// matches want.
func readTIFF(ctx context.Context, path string, want *frameInfo, dst []byte) error {
	src, err := loader.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	info, err := tiffInfo(src.Meta())
	if err != nil {
		return err
	}
	if !info.same(want) {
		return &mismatchError{got: info, want: *want}
	}
	return assemble(ctx, src, dst)
}

// assemble reads every chunk of level 0 of src into dst, which holds the
// whole level in C order.
func assemble(ctx context.Context, src loader.Source, dst []byte) error {
	m := src.Meta()
	l := &m.Levels[0]
	n := len(l.Shape)
	es := m.DType.Size()
	idx := make([]int, n)
	if slices.Equal(l.Chunk, l.Shape) {
		return src.ReadChunk(ctx, 0, idx, dst)
	}
	chunk := make([]byte, l.ChunkBytes(m.DType))
	grid := l.Grid()
	for {
		if err := src.ReadChunk(ctx, 0, idx, chunk); err != nil {
			return err
		}
		placeChunk(dst, chunk, l.Shape, l.Chunk, idx, es)
		if !loader.NextIndex(idx, grid) {
			return nil
		}
	}
}

// placeChunk copies the part of chunk (at grid index idx) that lies inside
// an array of the given shape into arr, both in C order with es-byte samples.
func placeChunk(arr, chunk []byte, shape, cshape, idx []int, es int) {
	n := len(shape)
	ext := make([]int, n)
	astr := make([]int, n)
	cstr := make([]int, n)
	astr[n-1], cstr[n-1] = es, es
	for i := n - 2; i >= 0; i-- {
		astr[i] = astr[i+1] * shape[i+1]
		cstr[i] = cstr[i+1] * cshape[i+1]
	}
	for i := range ext {
		ext[i] = min(cshape[i], shape[i]-idx[i]*cshape[i])
	}
	row := ext[n-1] * es
	pos := make([]int, n)
	for {
		ao, co := 0, 0
		for i := 0; i < n; i++ {
			ao += (idx[i]*cshape[i] + pos[i]) * astr[i]
			co += pos[i] * cstr[i]
		}
		copy(arr[ao:ao+row], chunk[co:co+row])
		if !loader.NextIndex(pos[:n-1], ext[:n-1]) {
			return
		}
	}
}
