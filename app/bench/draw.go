package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math/rand/v2"
	"time"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
)

// drawRounds is how many times each picture is drawn; the fastest of
// them is reported (the least disturbed by the rest of the machine).
const drawRounds = 30

// benchDraw measures the drawing of a 1024 × 1024 view from chunks in
// memory: a composite of three 16-bit channels beside one of them
// (draw.composite.ratio_to_one_channel), and a label layer's colouring
// pass over a picture beside a copy of the picture's pixels
// (draw.labels.ratio_to_copy); each the fastest of drawRounds, drawn in
// turns so that both see the same moments of the machine.
func benchDraw(ctx context.Context, env *benchEnv) error {
	src := newMemChannels(3, 2048, 2048)
	p, err := levels.Open(src, levels.Options{CacheBytes: 256 << 20})
	if err != nil {
		return err
	}
	defer p.Close()
	one := render.View{Zoom: 1, Center: render.Point{Col: 1024, Row: 1024}, Lo: 400, Hi: 3000, Colormap: "#00ff00",
		Width: 1024, Height: 1024}
	three := one
	three.Channels = []render.Channel{{C: 0, Lo: 400, Hi: 3000, Colormap: "#ff00ff"}, {C: 1, Lo: 500, Hi: 2800, Colormap: "#00ff00"},
		{C: 2, Lo: 300, Hi: 3200, Colormap: "#00ffff"}}
	var r1, r3 render.Renderer
	for _, c := range []struct {
		r *render.Renderer
		v render.View
	}{{&r1, one}, {&r3, three}} {
		if err := drawComplete(ctx, c.r, c.v, p); err != nil {
			return err
		}
	}
	best := [2]time.Duration{time.Hour, time.Hour}
	for range drawRounds {
		for i, r := range []*render.Renderer{&r1, &r3} {
			v := one
			if i == 1 {
				v = three
			}
			t0 := time.Now()
			r.Render(v, p, 1)
			best[i] = min(best[i], time.Since(t0))
		}
	}
	env.report("draw.one_channel_1024.ms", ms(best[0]), "ms")
	env.report("draw.composite_3ch_1024.ms", ms(best[1]), "ms")
	env.report("draw.composite.ratio_to_one_channel", float64(best[1])/float64(best[0]), "x")

	// A label layer of 80-pixel boxes over a gray picture, filled at
	// opacity 0.7, as a view with a label layer draws it.
	const w, h = 1024, 1024
	img, ids, dst := image.NewRGBA(image.Rect(0, 0, w, h)), image.NewRGBA(image.Rect(0, 0, w, h)), image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(3, 4))
	for y := range h {
		for x := range w {
			i := 4 * (y*w + x)
			binary.LittleEndian.PutUint32(ids.Pix[i:], uint32((y/80)*30+x/80))
			g := uint8(rng.IntN(256))
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = g, g, g, 255
		}
	}
	best = [2]time.Duration{time.Hour, time.Hour}
	for range drawRounds {
		t0 := time.Now()
		copy(dst.Pix, img.Pix)
		t1 := time.Now()
		render.OverlayLabels(dst, ids, render.LabelStyle{Opacity: 0.7})
		t2 := time.Now()
		best[0], best[1] = min(best[0], t1.Sub(t0)), min(best[1], t2.Sub(t1))
	}
	env.report("draw.labels_1024.copy.ms", ms(best[0]), "ms")
	env.report("draw.labels_1024.colouring.ms", ms(best[1]), "ms")
	env.report("draw.labels.ratio_to_copy", float64(best[1])/float64(best[0]), "x")
	return nil
}

// drawComplete draws v until every chunk it needs is in memory.
func drawComplete(ctx context.Context, r *render.Renderer, v render.View, p *levels.Pyramid) error {
	deadline := time.Now().Add(time.Minute)
	for {
		if _, info := r.Render(v, p, 1); info.Complete {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("draw: the view's chunks did not come within a minute")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// memChannels is a CYX uint16 volume in memory, like a microscope's
// channels: smooth structure plus noise, values in a few thousand.
type memChannels struct {
	meta *loader.Meta
	data []byte
}

func newMemChannels(c, y, x int) *memChannels {
	m := loader.NewMeta("memory", "CYX", []int{c, y, x}, loader.Uint16, []int{1, 256, 256}, nil, nil)
	d := make([]byte, 2*c*y*x)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range c * y * x {
		yy, xx := (i/x)%y, i%x
		v := 1000 + (xx*3+yy*5+(i/(x*y))*700)%2000 + rng.IntN(200)
		binary.LittleEndian.PutUint16(d[2*i:], uint16(v))
	}
	return &memChannels{meta: m, data: d}
}

func (s *memChannels) Meta() *loader.Meta { return s.meta }
func (s *memChannels) Close() error       { return nil }

// ReadChunk copies chunk idx (C, Y, X) of level 0 into dst.
func (s *memChannels) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	sh, ch := s.meta.Shape, s.meta.Levels[0].Chunk
	for r := range ch[1] {
		y := idx[1]*ch[1] + r
		o := 2 * ((idx[0]*sh[1]+y)*sh[2] + idx[2]*ch[2])
		copy(dst[2*r*ch[2]:2*(r+1)*ch[2]], s.data[o:o+2*ch[2]])
	}
	return nil
}
