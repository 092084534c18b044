// Package demo is a procedural source that needs no file: a 3-D time-lapse
// of blurry cells drifting through textured tissue, with two bright rings
// that make the plane orientation recognisable (one lies in an XY plane,
// a smaller one in an XZ plane). Samples are computed on read, are the same
// on every read, and are cheap enough to stream faster than most disks.
package demo

import (
	"context"
	"fmt"

	"vastview/loader"
)

// chunkXY is the chunk's extent along Y and X.
const chunkXY = 256

// Source is the demo data. It is safe for concurrent use.
type Source struct {
	meta   *loader.Meta
	scene  *scene
	closed loader.Closing // a read after Close is ErrClosed
}

// New returns the demo: axes "TZYX", shape [4, 1024, 2048, 2048] uint16
// (32 GiB if it were stored), spacing 1 second and 1 x 0.5 x 0.5 micrometer.
func New() loader.Source { return NewSized(4, 1024, 2048, 2048) }

// NewSized returns the demo content at another size: t time points of z
// slices of y by x samples, each feature scaled to the volume's physical
// size. It panics if a size is not positive.
func NewSized(t, z, y, x int) *Source {
	if t <= 0 || z <= 0 || y <= 0 || x <= 0 {
		panic(fmt.Sprintf("demo.NewSized(%d, %d, %d, %d): sizes must be positive", t, z, y, x))
	}
	spacing := []float64{1, 1, 0.5, 0.5}
	m := loader.NewMeta("demo", "TZYX", []int{t, z, y, x}, loader.Uint16,
		[]int{1, 1, min(y, chunkXY), min(x, chunkXY)},
		spacing, []string{"second", "micrometer", "micrometer", "micrometer"})
	m.Synthetic = true
	return &Source{meta: m, scene: newScene(t, z, y, x, spacing[1], spacing[2], spacing[3])}
}

// Meta describes the demo array. It is safe for concurrent use.
func (s *Source) Meta() *loader.Meta { return s.meta }

// Close ends reading: the demo holds no resources, but a read after Close
// is an error, as from every source.
func (s *Source) Close() error {
	s.closed.SetClosed()
	return nil
}

// ReadChunk computes chunk idx = [t, z, row, column] of level 0 into dst.
// It is safe for concurrent use.
func (s *Source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	if err := s.closed.Closed(); err != nil {
		return err
	}
	l := &s.meta.Levels[0]
	ch, cw := l.Chunk[2], l.Chunk[3]
	y0, x0 := idx[2]*ch, idx[3]*cw
	h, w := min(ch, l.Shape[2]-y0), min(cw, l.Shape[3]-x0)
	if h < ch || w < cw {
		clear(dst)
	}
	s.scene.render(idx[0], idx[1], y0, x0, h, w, cw, dst)
	return nil
}
