package sequence

import (
	"context"
	"fmt"

	"vastview/loader"
)

// tiffHeader describes a TIFF frame from the metadata loader.Open reports.
func tiffHeader(ctx context.Context, path string) (frameInfo, error) {
	src, err := loader.Open(ctx, path)
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
	src, err := loader.Open(ctx, path)
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
	return loader.ReadLevel(ctx, src, 0, dst)
}
