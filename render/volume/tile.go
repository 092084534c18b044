package volume

import (
	"math"

	"vastview/render/oblique"
)

// work renders tiles of the frame until none is left; id is the worker.
func (f *frame) work(id int) {
	w := f.ws[id]
	for {
		t := int(f.next.Add(1)) - 1
		if t >= f.tiles {
			return
		}
		ty, tx := t/f.tilesX, t%f.tilesX
		i0, j0 := ty*tileH, tx*tileW
		w.tile(f, i0, j0, min(f.p.H, i0+tileH), min(f.p.W, j0+tileW))
	}
}

func growF(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// rangeOf returns the ks of the ray from x (physical) whose points
// P + k·D·w lie within [lo, hi] in level-0 indices on every axis (with
// bounds that may be infinite), widened by tol.
func (f *frame) rangeOf(x oblique.Vec, lo, hi *[3]float64, tol float64) (ka, kb float64) {
	ka, kb = math.Inf(-1), math.Inf(1)
	for a := 0; a < 3; a++ {
		d := f.step * f.w[a] / f.sp[a] // index change per step
		q := x[a] / f.sp[a]
		if d == 0 || math.Abs(d) < 1e-12 {
			if q < lo[a]-tol*1e-6 || q > hi[a]+tol*1e-6 {
				return 1, 0
			}
			continue
		}
		k1, k2 := (lo[a]-q)/d, (hi[a]-q)/d
		if k1 > k2 {
			k1, k2 = k2, k1
		}
		ka, kb = max(ka, k1-tol), min(kb, k2+tol)
	}
	return ka, kb
}

// limits returns the integer ks the ray from x may sample: within the
// volume (with a margin: the sampler says which are inside), the clip box
// and the clip plane; ka > kb when none.
func (f *frame) limits(x oblique.Vec) (int32, int32) {
	var vlo, vhi [3]float64
	for a := range vlo {
		vlo[a], vhi[a] = -0.5-f.margin[a], float64(f.n[a])-0.5+f.margin[a]
	}
	ka, kb := f.rangeOf(x, &vlo, &vhi, 0)
	if f.clipped {
		ca, cb := f.rangeOf(x, &f.clipLo, &f.clipHi, 0)
		ka, kb = max(ka, ca), min(kb, cb)
	}
	if cp := f.o.ClipPlane; cp != nil {
		// (x + k·D·w − Point)·Normal ≥ 0.
		dn := f.step * f.w.Dot(cp.Normal)
		r := cp.Point.Add(x.Scale(-1)).Dot(cp.Normal)
		switch {
		case dn > 0:
			ka = max(ka, r/dn-1e-9)
		case dn < 0:
			kb = min(kb, r/dn+1e-9)
		case r > 0:
			return 1, 0
		}
	}
	ka, kb = math.Ceil(ka), math.Floor(kb)
	const lim = 1 << 30
	if !(ka <= kb) || ka > lim || kb < -lim {
		return 1, 0
	}
	return int32(max(ka, -lim)), int32(min(kb, lim))
}

// reserve sizes the worker's tile buffers for the frame's largest tile, so
// that which worker takes which tile does not decide whether they grow.
// (Its sampler's chunk map and row buffers still grow the first time the
// worker meets a tile that needs more: a bounded number of times.)
func (w *worker) reserve(f *frame) {
	th, tw := min(tileH, f.p.H), min(tileW, f.p.W)
	n := th * tw
	border, ring := 0, 1
	if f.o.Mode == Iso {
		border, ring = f.isoB, 2*f.isoM+1
	}
	qn := (th + 2*border) * (tw + 2*border)
	w.ka, w.kb = grow(w.ka, n), grow(w.kb, n)
	for len(w.buf) < ring {
		w.buf, w.mask = append(w.buf, nil), append(w.mask, nil)
	}
	for b := range w.buf[:ring] {
		w.buf[b] = growF(w.buf[b], qn)
		w.mask[b] = grow(w.mask[b], qn)
	}
	if f.lab != nil {
		w.nat = grow(w.nat, qn*f.meta.DType.Size())
	}
	w.begin(f, n)
}

// tile renders output rows i0..i1−1, columns j0..j1−1.
func (w *worker) tile(f *frame, i0, j0, i1, j1 int) {
	th, tw := i1-i0, j1-j0
	n := th * tw
	w.ka, w.kb = grow(w.ka, n), grow(w.kb, n)
	kmin, kmax := int32(math.MaxInt32), int32(math.MinInt32)
	for i := 0; i < th; i++ {
		for j := 0; j < tw; j++ {
			ka, kb := f.limits(f.p.At(float64(i0+i), float64(j0+j)))
			if f.stop != nil {
				kb = min(kb, f.stop[(i0+i)*f.p.W+j0+j]-1)
			}
			w.ka[i*tw+j], w.kb[i*tw+j] = ka, kb
			if ka <= kb {
				kmin, kmax = min(kmin, ka), max(kmax, kb)
			}
		}
	}
	// The tile's plane: its centre is that of the tile, with a border
	// for Iso's gradient.
	border, ring, m := 0, 1, int32(0)
	if f.o.Mode == Iso {
		border, m = f.isoB, int32(f.isoM)
		ring = 2*f.isoM + 1
	}
	q := f.p
	q.W, q.H = tw+2*border, th+2*border
	q.Center = f.p.At(float64(i0)+float64(th-1)/2, float64(j0)+float64(tw-1)/2)
	center := q.Center
	qn := q.W * q.H
	for len(w.buf) < ring {
		w.buf, w.mask = append(w.buf, nil), append(w.mask, nil)
	}
	for b := range w.buf[:ring] {
		w.buf[b] = growF(w.buf[b], qn)
		w.mask[b] = grow(w.mask[b], qn)
	}
	w.begin(f, n)
	if kmin <= kmax {
		lo, hi := kmin-m, kmax+m
		active := n
		for k := lo; k <= hi && active > 0; k++ {
			b := int(k-lo) % ring
			q.Center = center.Add(f.w.Scale(float64(k) * f.step))
			sq, dir := q, f.w
			if f.lab != nil {
				sq, dir = f.toLayer(q), mulVec(f.w, f.lscale)
			}
			if w.sk.on {
				if vlo, vhi, ok := w.sk.rangeOf(f, &sq, dir, float64(m)*f.step); ok && w.skippable(f, vlo, vhi) {
					w.skipped += int64(qn)
					w.after(f, k, n)
					continue
				}
			}
			var info oblique.Info
			s := w.sampler(f)
			s.Mask = w.mask[b]
			if f.lab != nil {
				info = s.Native(w.nat, sq, f.src, f.level)
				w.labelMask(f, b, qn)
			} else {
				info = s.Float(w.buf[b], q, f.src, f.level, f.o.Interp)
			}
			w.note(s, &info)
			w.sampled += int64(qn)
			active = w.merge(f, k, lo, b, tw, th)
		}
	}
	w.end(f, i0, j0, tw, th)
}

// note keeps what a sampling of a slice said about the chunks.
func (w *worker) note(s *oblique.Sampler, info *oblique.Info) {
	if !info.Complete {
		w.done = false
	}
	w.failed += info.Failed
	if w.err == nil && info.Err != nil {
		w.err = info.Err
	}
	lvl, idxs := s.Missing()
	for _, idx := range idxs {
		k := missKey{level: int32(lvl), n: int8(len(idx))}
		for i, v := range idx {
			k.idx[i] = int32(v)
		}
		w.missed[k] = struct{}{}
	}
}

// begin readies the accumulators of a tile of n rays.
func (w *worker) begin(f *frame, n int) {
	switch f.o.Mode {
	case MIP, MinIP:
		w.acc = growF(w.acc, n)
		init := float32(math.Inf(-1))
		if f.o.Mode == MinIP {
			init = float32(math.Inf(1))
		}
		for i := range w.acc {
			w.acc[i] = init
		}
		w.thr = init
	case Mean:
		w.sum, w.cnt = grow(w.sum, n), grow(w.cnt, n)
		clear(w.sum)
		clear(w.cnt)
	case Alpha:
		w.col = grow(w.col, n)
		clear(w.col)
	case Iso:
		w.hit, w.col = grow(w.hit, n), grow(w.col, n)
		for i := range w.hit {
			w.hit[i] = math.MinInt32
		}
		clear(w.col)
		if f.lab != nil {
			w.hk, w.hid = grow(w.hk, n), grow(w.hid, n)
			for i := range w.hk {
				w.hk[i] = math.MaxInt32
			}
		}
	}
}

// merge adds slice k (in buffer b; lo the first slice sampled) to the
// tile's rays and returns how many rays may still change.
func (w *worker) merge(f *frame, k, lo int32, b, tw, th int) int {
	vals, mask := w.buf[b], w.mask[b]
	active := 0
	switch f.o.Mode {
	case MIP:
		// thr: the smallest running max of the rays that sample the
		// next slice.
		thr := float32(math.Inf(1))
		for p, v := range vals[:tw*th] {
			ka, kb := w.ka[p], w.kb[p]
			if k < ka || k > kb {
				if k < ka {
					active++
					if ka == k+1 {
						thr = float32(math.Inf(-1))
					}
				}
				continue
			}
			active++
			a := w.acc[p]
			if mask[p] == oblique.Sampled && v > a {
				a = v
				w.acc[p] = a
			}
			if kb > k && a < thr {
				thr = a
			}
		}
		w.thr = thr
	case MinIP:
		thr := float32(math.Inf(-1))
		for p, v := range vals[:tw*th] {
			ka, kb := w.ka[p], w.kb[p]
			if k < ka || k > kb {
				if k < ka {
					active++
					if ka == k+1 {
						thr = float32(math.Inf(1))
					}
				}
				continue
			}
			active++
			a := w.acc[p]
			if mask[p] == oblique.Sampled && v < a {
				a = v
				w.acc[p] = a
			}
			if kb > k && a > thr {
				thr = a
			}
		}
		w.thr = thr
	case Mean:
		for p, v := range vals[:tw*th] {
			if k < w.ka[p] || k > w.kb[p] {
				active += b2i(k < w.ka[p])
				continue
			}
			active++
			if mask[p] == oblique.Sampled {
				w.sum[p] += float64(v)
				w.cnt[p]++
			}
		}
	case Alpha:
		span := f.hi - f.lo
		for p, v := range vals[:tw*th] {
			c := &w.col[p]
			if k < w.ka[p] || k > w.kb[p] || c[3] >= opaque {
				active += b2i(k < w.ka[p] && c[3] < opaque)
				continue
			}
			active++
			if mask[p] != oblique.Sampled {
				continue
			}
			e := ramp(float64(v), f.lo, span)
			a := f.alpha[e] * (1 - c[3])
			rgb := &f.rgb[e]
			c[0] += a * rgb[0]
			c[1] += a * rgb[1]
			c[2] += a * rgb[2]
			c[3] += a
		}
	case Iso:
		active = w.mergeIso(f, k, lo, b, tw, th)
	}
	return active
}

// after readies MIP's and MinIP's threshold for slice k+1 when slice k
// was skipped: the running max (min) of the rays that sample it.
func (w *worker) after(f *frame, k int32, n int) {
	if f.o.Mode != MIP && f.o.Mode != MinIP {
		return
	}
	thr := float32(math.Inf(1))
	if f.o.Mode == MinIP {
		thr = float32(math.Inf(-1))
	}
	for p, a := range w.acc[:n] {
		if k+1 < w.ka[p] || k+1 > w.kb[p] {
			continue
		}
		if f.o.Mode == MIP && a < thr || f.o.Mode == MinIP && a > thr {
			thr = a
		}
	}
	w.thr = thr
}

// skippable reports whether samples all within [lo, hi] would change
// none of the tile's rays.
func (w *worker) skippable(f *frame, lo, hi float64) bool {
	if f.lab != nil {
		return lo == 0 && hi == 0 // no label
	}
	switch f.o.Mode {
	case MIP:
		return hi <= float64(w.thr)
	case MinIP:
		return lo >= float64(w.thr)
	case Alpha:
		// Entry 0 of the ramp is transparent: values below half an
		// entry above the window's low end.
		span := f.hi - f.lo
		if span == 0 {
			return hi < f.lo
		}
		return span > 0 && (hi-f.lo)*255/span < 0.5
	case Iso:
		return hi < f.o.Iso
	}
	return false
}

// opaque is the accumulated opacity at which a ray stops: what is behind
// changes no byte of its colour.
const opaque = 1 - 0.5/255

// ramp maps a value through the window [lo, lo+span] to 0..255.
func ramp(v, lo, span float64) int {
	if span == 0 {
		if v >= lo {
			return 255
		}
		return 0
	}
	t := (v - lo) * 255 / span
	if !(t > 0) {
		return 0
	}
	return int(min(255, t) + 0.5)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mergeIso notes the rays whose first sample at or above the threshold
// is on slice k, and shades those whose hit was on slice k−1 now that the
// slices on both sides of it are sampled.
func (w *worker) mergeIso(f *frame, k, lo int32, b, tw, th int) int {
	B, m := f.isoB, int32(f.isoM)
	ring := 2*f.isoM + 1
	qw := tw + 2*B
	vals, mask := w.buf[b], w.mask[b]
	iso := float32(f.o.Iso)
	active := 0
	for i := 0; i < th; i++ {
		for j := 0; j < tw; j++ {
			p := i*tw + j
			at := (i+B)*qw + j + B
			h := w.hit[p]
			switch {
			case h == k-m:
				// The slices m before and after the hit are sampled:
				// the oldest in the ring, and this one.
				w.shade(f, p, at, qw, (b+1)%ring, (b+ring-f.isoM)%ring, b)
				w.hit[p] = math.MaxInt32 // shaded
			case h == math.MaxInt32:
			case h != math.MinInt32:
				active++ // to be shaded
			case k < w.ka[p]:
				active++
			case k > w.kb[p]:
			default:
				active++
				if mask[at] == oblique.Sampled && vals[at] >= iso {
					w.hit[p] = k
					if f.lab != nil {
						w.hk[p], w.hid[p] = k, f.lab.id(w.nat, f.meta.DType, at)
					}
				}
			}
		}
	}
	return active
}

// ambient is the light every iso surface gets, whatever its slope.
const ambient = 0.2

// shade colours ray p (at sample at of the bordered tile, qw wide) hit on
// the slice in buffer cur, by the gradient there: central differences
// over isoB samples of the tile on each side and over the slices isoM
// before (prev) and after (next), spans no shorter than the level's
// samples so that nearest samples give a slope.
func (w *worker) shade(f *frame, p, at, qw, prev, cur, next int) {
	B := f.isoB
	sl := [3][]float32{w.buf[prev], w.buf[cur], w.buf[next]}
	// Sobel's weights across each difference (1, 2, 1 over the two
	// other directions) steady the slope of a staircase surface.
	wt := [3]float64{1, 2, 1}
	du, dv := B, B*qw
	var gu, gv, gw float64
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			k := wt[a] * wt[b]
			// Along u: slice a, row offset b; along v: slice a, column
			// offset b; along w: row offset a, column offset b.
			s, ob := sl[a], (b-1)*dv
			gu += k * float64(s[at+du+ob]-s[at-du+ob])
			ob = (b - 1) * du
			gv += k * float64(s[at+dv+ob]-s[at-dv+ob])
			o := (a-1)*dv + (b-1)*du
			gw += k * float64(sl[2][at+o]-sl[0][at+o])
		}
	}
	h := float64(2*B) * f.p.Pixel * 16
	gu, gv = gu/h, gv/h
	gw /= float64(2*f.isoM) * f.step * 16
	g := math.Sqrt(gu*gu + gv*gv + gw*gw)
	l := 1.0
	if g > 0 {
		// The surface's outward normal is −g/|g|; the light comes from
		// the eye, along −w.
		l = ambient + (1-ambient)*max(0, gw/g)
	}
	top := &f.rgb[255]
	if f.lab != nil {
		c := f.lab.colour(w.hid[p])
		top = &c
	}
	w.col[p] = [4]float32{top[0] * float32(l), top[1] * float32(l), top[2] * float32(l), 1}
}

// end writes the tile's rays into the frame's output.
func (w *worker) end(f *frame, i0, j0, tw, th int) {
	if f.vals != nil {
		for i := 0; i < th; i++ {
			row := f.vals[(i0+i)*f.p.W+j0 : (i0+i)*f.p.W+j0+tw]
			for j := range row {
				p := i*tw + j
				var v float32
				switch f.o.Mode {
				case MIP, MinIP:
					if a := w.acc[p]; !math.IsInf(float64(a), 0) {
						v = a
					}
				case Mean:
					if c := w.cnt[p]; c > 0 {
						v = float32(w.sum[p] / float64(c))
					}
				}
				row[j] = v
			}
		}
		return
	}
	if f.lab != nil {
		for i := 0; i < th; i++ {
			for j := 0; j < tw; j++ {
				p, o := i*tw+j, (i0+i)*f.p.W+j0+j
				// The ray's first label of every layer: the nearest, the
				// upper layer's on a tie.
				if k := w.hk[p]; k != math.MaxInt32 && k <= f.lk[o] {
					c := &w.col[p]
					f.lk[o], f.lid[o], f.lcol[o] = k, w.hid[p], [3]float32{c[0], c[1], c[2]}
				}
			}
		}
		return
	}
	if f.trans != nil {
		for i := 0; i < th; i++ {
			t := f.trans[(i0+i)*f.p.W+j0 : (i0+i)*f.p.W+j0+tw]
			for j := range t {
				t[j] *= 1 - min(1, w.col[i*tw+j][3])
			}
		}
	}
	for i := 0; i < th; i++ {
		px := f.pix[(i0+i)*f.stride+4*j0 : (i0+i)*f.stride+4*(j0+tw)]
		for j := 0; j < tw; j++ {
			c := &w.col[i*tw+j]
			px[4*j] = uint8(min(255, c[0]+0.5))
			px[4*j+1] = uint8(min(255, c[1]+0.5))
			px[4*j+2] = uint8(min(255, c[2]+0.5))
			px[4*j+3] = 255
		}
	}
}
