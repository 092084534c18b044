package cli

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
	"vastview/session"
)

// obliqueOpts are the options of an oblique plane (any orientation).
type obliqueOpts struct {
	rotate, center, size string
	pixel                float64
	interp               string
}

// flags registers the oblique plane's options.
func (ob *obliqueOpts) flags(fs *flag.FlagSet) {
	fs.StringVar(&ob.rotate, "rotate", "", "AXIS:DEG[,AXIS:DEG...]: turn the plane about the physical axes x, y, z in order")
	fs.StringVar(&ob.center, "center", "", "Z,Y,X: the plane's centre in level-0 sample indices")
	fs.StringVar(&ob.size, "size", "", "H,W: the output's rows and columns")
	fs.Float64Var(&ob.pixel, "pixel", 0, "the output's sample spacing, in the spacing's unit")
	fs.StringVar(&ob.interp, "interp", "nearest", "nearest or linear")
}

// asked reports whether the flags given ask for an oblique plane.
func (ob *obliqueOpts) asked(given map[string]bool) bool {
	return given["rotate"] || given["center"] || given["size"] || given["pixel"] || given["interp"]
}

// obliqueBudget bounds the bytes of chunks held at once while an oblique
// plane is sampled: a plane needing more is sampled in bands of rows.
const obliqueBudget = 1 << 30

// plane works out the plane the options ask for over data m: centre,
// directions, pixel and size as the command-line contract states.
func (ob *obliqueOpts) plane(m *loader.Meta, t, c int) (oblique.Plane, oblique.Interp, error) {
	var p oblique.Plane
	in, ok := oblique.ParseInterp(ob.interp)
	if !ok {
		return p, in, fmt.Errorf("--interp must be nearest or linear, not %q", ob.interp)
	}
	var turns []oblique.Turn
	if ob.rotate != "" {
		var err error
		if turns, err = oblique.ParseRotate(ob.rotate); err != nil {
			return p, in, fmt.Errorf("--rotate: %v", err)
		}
	}
	p.U, p.V, _ = oblique.Basis(turns)
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	idx := [3]float64{float64(n[0]-1) / 2, float64(n[1]-1) / 2, float64(n[2]-1) / 2}
	if ob.center != "" {
		f := strings.Split(ob.center, ",")
		if len(f) != 3 {
			return p, in, fmt.Errorf("--center wants Z,Y,X, not %q", ob.center)
		}
		for a := range f {
			v, err := strconv.ParseFloat(strings.TrimSpace(f[a]), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return p, in, fmt.Errorf("--center wants three numbers Z,Y,X, not %q", ob.center)
			}
			idx[a] = v
		}
	}
	for a := range idx {
		p.Center[a] = idx[a] * sp[a]
	}
	p.Pixel = ob.pixel
	if p.Pixel == 0 {
		p.Pixel = math.Inf(1)
		for a, c := range []byte("ZYX") {
			if m.AxisIndex(c) >= 0 {
				p.Pixel = min(p.Pixel, sp[a])
			}
		}
	}
	if !(p.Pixel > 0) || math.IsInf(p.Pixel, 0) {
		return p, in, fmt.Errorf("--pixel wants a positive number, not %v", ob.pixel)
	}
	const maxSide = 1 << 16
	if ob.size != "" {
		h, w, ok := strings.Cut(ob.size, ",")
		hv, e1 := strconv.Atoi(strings.TrimSpace(h))
		wv, e2 := strconv.Atoi(strings.TrimSpace(w))
		if !ok || e1 != nil || e2 != nil || hv < 1 || wv < 1 || hv > maxSide || wv > maxSide {
			return p, in, fmt.Errorf("--size wants H,W, whole numbers from 1 to %d, not %q", maxSide, ob.size)
		}
		p.H, p.W = hv, wv
	} else {
		p.H = int(min(maxSide, max(1, math.Round(float64(n[1])*sp[1]/p.Pixel))))
		p.W = int(min(maxSide, max(1, math.Round(float64(n[2])*sp[2]/p.Pixel))))
	}
	if int64(p.H)*int64(p.W) > 1<<28 {
		return p, in, fmt.Errorf("--size %d,%d: more than %d samples", p.H, p.W, 1<<28)
	}
	p.T, p.C = t, c
	return p, in, nil
}

// writeOblique writes the oblique plane the options ask for: its samples
// (.raw: the data's type for nearest, float32 for linear) or its picture
// (.png, one channel, as the window draws a turned plane). It reads only the chunks the
// plane crosses, of --level (a computed level is computed from the ones
// it covers).
func (o *planeOpts) writeOblique(name string, src loader.Source, ob *obliqueOpts, ext string) error {
	for _, f := range []string{"plane", "index", "z", "channels", "colors", "windows"} {
		if o.given[f] {
			return usageError{"plane: --" + f + " does not go with an oblique plane (--rotate, --center, --size, --pixel, --interp)"}
		}
	}
	m := src.Meta()
	if m.RGB && ext == ".png" && !o.given["c"] {
		return usageError{"plane: an oblique plane draws one channel: pick one of the colour samples with --c"}
	}
	p, in, err := ob.plane(m, o.t, o.c)
	if err != nil {
		return usageError{"plane: " + err.Error()}
	}
	for _, a := range []byte("TC") {
		at := map[byte]int{'T': o.t, 'C': o.c}[a]
		if at < 0 || at >= m.Size(a) {
			return usageError{fmt.Sprintf("plane: --%c %d is outside 0..%d", a+'a'-'A', at, m.Size(a)-1)}
		}
	}
	op, sl, err := o.obliqueSlab(m, p)
	if err != nil {
		return err
	}
	if ext == ".png" {
		return o.drawOblique(name, src, p, in, op, sl)
	}
	var from loader.Source = src
	if o.level >= len(m.Levels) {
		pyr, err := levels.Open(src, levels.Options{CacheBytes: 512 << 20})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer pyr.Close()
		from = pyr
	}
	fm := from.Meta()
	if o.level < 0 || o.level >= len(fm.Levels) {
		return usageError{fmt.Sprintf("plane: no level %d (%d with the computed ones)", o.level, len(fm.Levels))}
	}
	n := p.W * p.H
	var nat []byte
	var flt []float32
	switch {
	case in != oblique.Nearest:
		flt = make([]float32, n)
	case op == loader.ProjectMean:
		nat = make([]byte, 4*n)
	default:
		nat = make([]byte, n*m.DType.Size())
	}
	if err := sampleOblique(context.Background(), from, p, o.level, in, nat, flt, op, sl); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if in == oblique.Linear {
		return writeOut(o.out, float32Bytes(flt))
	}
	return writeOut(o.out, nat)
}

// drawOblique writes the PNG of oblique plane p of src (named name, which
// it owns) as the window draws a turned plane (session.Picture): in the
// channel, window and colormap pictureView picks, the background where
// the plane leaves the data, with the scale bar.
func (o *planeOpts) drawOblique(name string, src loader.Source, p oblique.Plane, in oblique.Interp,
	op loader.Projection, sl oblique.Slab) error {
	if o.colormap == render.RGB {
		return usageError{"plane: an oblique plane draws one channel, not --colormap rgb"}
	}
	d, err := session.OpenData(session.Canonical(name), src, session.DataOptions{Hold: true, DiskRoot: "-"})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer d.Release()
	m := d.Pyr.Meta()
	sel := loader.Plane{Orientation: render.XY, At: map[byte]int{'T': o.t, 'C': o.c}}
	v, err := o.pictureView("plane", m, sel.Orientation, sel, nil)
	if err != nil {
		return err
	}
	pc, err := session.NewPicture(d, v, o.scalebar)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer pc.Close()
	if err := pc.Sample(p, o.level, in == oblique.Linear); err != nil {
		return usageError{"plane: " + err.Error()}
	}
	if op != loader.NoProjection {
		if err := pc.ProjectSlab(op, sl); err != nil {
			return usageError{"plane: " + err.Error()}
		}
	}
	if o.overlay != "" {
		if err := o.addLabels(pc, name, m, sel, true); err != nil {
			return err
		}
	}
	img, err := pc.Draw(context.Background())
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return writePNG(o.out, img)
}

// float32Bytes returns the little-endian bytes of f.
func float32Bytes(f []float32) []byte {
	b := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// chunkStore is an oblique.Source over the chunks read so far.
type chunkStore struct {
	meta   *loader.Meta
	chunks map[string][]byte
}

func chunkName(level int, idx []int) string { return fmt.Sprint(level, idx) }

func (c *chunkStore) Meta() *loader.Meta                             { return c.meta }
func (c *chunkStore) Get(level int, idx []int) []byte                { return c.chunks[chunkName(level, idx)] }
func (c *chunkStore) Request(levels.Priority, uint64, int, ...[]int) {}
func (c *chunkStore) Failed(int, []int) error                        { return nil }

// obliqueSlab is the projection --project asks for of oblique plane p
// of data m (NoProjection for none), and its slab: the planes p + k·D·w,
// D the smallest spacing, for k in --slab's A..B, or every k whose plane
// meets the data.
func (o *planeOpts) obliqueSlab(m *loader.Meta, p oblique.Plane) (loader.Projection, oblique.Slab, error) {
	if o.project == "" {
		return loader.NoProjection, oblique.Slab{}, nil
	}
	op, _ := loader.ParseProjection(o.project)
	d := session.SlabStep(m)
	sl := oblique.SlabAll(m, p, d)
	if o.slab != "" {
		a, b, err := o.slabRange("plane", 0, 0)
		if err != nil {
			return op, sl, err
		}
		if b < a || b-a >= 1<<16 {
			return op, sl, usageError{fmt.Sprintf("plane: --slab %q: want A ≤ B, at most %d planes", o.slab, 1<<16)}
		}
		sl.A, sl.B = a, b
	}
	return op, sl, nil
}

// sampleOblique samples plane p of level of src into nat (nearest) or flt
// (linear), or with op its projection along its normal over slab sl (nat
// then float32 for the mean), reading the chunks the planes cross and no
// others: in bands of rows when they would hold more than obliqueBudget
// bytes at once.
func sampleOblique(ctx context.Context, src loader.Source, p oblique.Plane, level int, in oblique.Interp,
	nat []byte, flt []float32, op loader.Projection, sl oblique.Slab) error {
	m := src.Meta()
	store := &chunkStore{meta: m, chunks: map[string][]byte{}}
	cb := int64(m.Levels[level].ChunkBytes(m.DType))
	var s oblique.Sampler
	var pj oblique.Projector
	s.NoFallback, pj.S.NoFallback = true, true
	run := func() oblique.Info {
		switch {
		case op != loader.NoProjection && in == oblique.Nearest:
			return pj.Native(nat, p, sl, store, level, op)
		case op != loader.NoProjection:
			return pj.Float(flt, p, sl, store, level, in, op)
		case in == oblique.Nearest:
			return s.Native(nat, p, store, level)
		}
		return s.Float(flt, p, store, level, in)
	}
	missing := func() [][]int {
		_, need := s.Missing()
		if op != loader.NoProjection {
			_, need = pj.Missing()
		}
		return need
	}
	for from := 0; from < p.H; {
		// The band from this row: as many rows as fit in the budget.
		to := p.H
		var need [][]int
		for {
			s.FromRow, s.ToRow = from, to
			pj.S.FromRow, pj.S.ToRow = from, to
			s.Forget()
			pj.S.Forget()
			run()
			need = missing()
			if int64(len(need))*cb <= obliqueBudget || to-from == 1 {
				break
			}
			to = from + (to-from)/2
		}
		clear(store.chunks)
		for _, idx := range need {
			b := make([]byte, cb)
			if err := src.ReadChunk(ctx, level, idx, b); err != nil {
				return err
			}
			store.chunks[chunkName(level, idx)] = b
		}
		s.Forget()
		pj.S.Forget()
		if info := run(); !info.Complete {
			return fmt.Errorf("oblique plane: %d chunks of level %d not read", info.Missing, level)
		}
		from = to
	}
	return nil
}
