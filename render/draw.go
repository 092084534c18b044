package render

import (
	"encoding/binary"
	"math"

	"vastview/loader"
)

// fill draws the viewport rectangle [x0, x1)×[y0, y1) from level k: each
// part that lies in a chunk in memory from that chunk, each other part
// from the next coarser level, and parts outside the data in the
// background colour. Missing chunks of the frame's level are noted.
func (r *Renderer) fill(k, x0, x1, y0, y1 int) {
	if r.f.outside {
		r.blank(x0, x1, y0, y1)
		return
	}
	r.fillFrom(k, 1, x0, x1, y0, y1)
}

// fillFrom is fill going from level k in direction dir: +1 towards the
// coarser levels; when none has a part, -1 from the level finer than the
// frame's towards level 0 (a finer level in memory, such as the pages read
// to compute the frame's level, beats the background).
func (r *Renderer) fillFrom(k, dir, x0, x1, y0, y1 int) {
	if k >= r.f.nlevels {
		r.fillFrom(r.f.level-1, -1, x0, x1, y0, y1)
		return
	}
	if k < 0 {
		r.unfilled += (x1 - x0) * (y1 - y0) // data no level has in memory
		r.blank(x0, x1, y0, y1)
		return
	}
	ls := r.level(k)
	rows, cols := ls.rows.chunk, ls.cols.chunk
	for ya := y0; ya < y1; {
		yb := ya + 1
		for yb < y1 && rows[yb] == rows[ya] {
			yb++
		}
		for xa := x0; xa < x1; {
			xb := xa + 1
			for xb < x1 && cols[xb] == cols[xa] {
				xb++
			}
			r.fillChunk(k, dir, ls, rows[ya], cols[xa], xa, xb, ya, yb)
			xa = xb
		}
		ya = yb
	}
}

// fillChunk draws the rectangle that chunk (cy, cx) of level k covers.
func (r *Renderer) fillChunk(k, dir int, ls *levelState, cy, cx, xa, xb, ya, yb int) {
	if cy < 0 || cx < 0 {
		r.blank(xa, xb, ya, yb)
		return
	}
	idx := ls.idx
	if r.f.ra >= 0 {
		idx[r.f.ra] = cy
	}
	if r.f.ca >= 0 {
		idx[r.f.ca] = cx
	}
	data := r.chunk(k, &idx, ls.bytes)
	if data == nil {
		if k == r.f.level {
			if err := r.failure(k, &idx); err != nil {
				r.failed++ // not asked for again: it cannot be read
				r.failErr = err
			} else {
				dx := float64(xa+xb-r.f.v.Width) / 2
				dy := float64(ya+yb-r.f.v.Height) / 2
				r.miss = append(r.miss, missingChunk{dist: dx*dx + dy*dy, idx: idx})
			}
		}
		r.fillFrom(k+dir, dir, xa, xb, ya, yb)
		return
	}
	if r.collect {
		r.gather(ls, data, xa, xb, ya, yb)
		return
	}
	r.blit(ls, data, xa, xb, ya, yb)
}

// blank paints a rectangle in the background colour (adding nothing to a
// composite).
func (r *Renderer) blank(x0, x1, y0, y1 int) {
	if r.collect || r.add {
		return
	}
	pix, stride := r.img.Pix, r.img.Stride
	bg := r.bg
	if r.ids || r.clear {
		bg = r.none
	}
	for y := y0; y < y1; y++ {
		copy(pix[y*stride+4*x0:y*stride+4*x1], bg)
	}
}

// blit draws a rectangle from one chunk, or adds it to the picture.
// Screen rows that show the same data row as the one above are copied.
func (r *Renderer) blit(ls *levelState, data []byte, xa, xb, ya, yb int) {
	pix, stride := r.img.Pix, r.img.Stride
	cols := ls.cols.off[xa:xb]
	for y := ya; y < yb; y++ {
		dst := pix[y*stride+4*xa : y*stride+4*xb]
		if y > ya && ls.rows.sample[y] == ls.rows.sample[y-1] {
			copy(dst, pix[(y-1)*stride+4*xa:])
			continue
		}
		if r.add {
			r.addToRow(dst, data[ls.base+ls.rows.off[y]:], cols)
			continue
		}
		r.drawRow(dst, data[ls.base+ls.rows.off[y]:], cols)
	}
}

// drawRow colours the samples of row at the byte offsets cols into dst.
func (r *Renderer) drawRow(dst, row []byte, cols []int) {
	if r.ids {
		r.idRow(dst, row, cols)
		return
	}
	le := binary.LittleEndian
	dst = dst[:4*len(cols)]
	dt := r.f.m.DType
	switch {
	// Two samples an iteration, as render.Painter's loops (see paint8):
	// about a third of the axis-aligned frame faster.
	case dt.Size() == 1:
		lut, pal := (*[256]uint8)(r.lut[:256]), &r.pal
		n := len(cols)
		for i := 0; i+1 < n; i += 2 {
			d := dst[4*i : 4*i+8 : 4*i+8]
			le.PutUint32(d, pal[lut[row[cols[i]]]])
			le.PutUint32(d[4:], pal[lut[row[cols[i+1]]]])
		}
		if n%2 == 1 {
			le.PutUint32(dst[4*n-4:], pal[lut[row[cols[n-1]]]])
		}
	case dt.Size() == 2:
		lut, pal := r.lut, &r.pal
		n := len(cols)
		for i := 0; i+1 < n; i += 2 {
			d := dst[4*i : 4*i+8 : 4*i+8]
			le.PutUint32(d, pal[lut[le.Uint16(row[cols[i]:])]])
			le.PutUint32(d[4:], pal[lut[le.Uint16(row[cols[i+1]:])]])
		}
		if n%2 == 1 {
			le.PutUint32(dst[4*n-4:], pal[lut[le.Uint16(row[cols[n-1]:])]])
		}
	case dt == loader.Float32 && !r.cm.Label:
		lo, span, pal := r.lo, r.span, &r.pal
		n := len(cols)
		for i := 0; i+1 < n; i += 2 {
			d := dst[4*i : 4*i+8 : 4*i+8]
			v0 := float64(math.Float32frombits(le.Uint32(row[cols[i]:])))
			v1 := float64(math.Float32frombits(le.Uint32(row[cols[i+1]:])))
			le.PutUint32(d, pal[index(v0, lo, span)])
			le.PutUint32(d[4:], pal[index(v1, lo, span)])
		}
		if n%2 == 1 {
			v := float64(math.Float32frombits(le.Uint32(row[cols[n-1]:])))
			le.PutUint32(dst[4*n-4:], pal[index(v, lo, span)])
		}
	case dt.Is64BitInt() && r.cm.Label: // exact ids: a float64 rounds those beyond 2^53
		pal, signed := &r.pal, dt.Signed()
		for i, o := range cols {
			le.PutUint32(dst[4*i:], pal[labelIndexBits(le.Uint64(row[o:]), signed)])
		}
	default:
		for i, o := range cols {
			v := wideSample(row[o:], dt)
			le.PutUint32(dst[4*i:], r.pal[r.cm.entry(v, r.lo, r.span)])
		}
	}
}

// addToRow adds the colours of the samples of row at the byte offsets
// cols to the pixels of dst, each byte clamped at 255.
func (r *Renderer) addToRow(dst, row []byte, cols []int) {
	le := binary.LittleEndian
	dst = dst[:4*len(cols)]
	switch r.f.m.DType.Size() {
	case 1:
		lut, pal := (*[256]uint8)(r.lut[:256]), &r.pal
		for i, o := range cols {
			le.PutUint32(dst[4*i:], addSat(le.Uint32(dst[4*i:]), pal[lut[row[o]]]))
		}
	case 2:
		lut, pal := r.lut, &r.pal
		for i, o := range cols {
			le.PutUint32(dst[4*i:], addSat(le.Uint32(dst[4*i:]), pal[lut[le.Uint16(row[o:])]]))
		}
	default:
		r.drawRow(r.row, row, cols)
		addRow(dst, r.row)
	}
}

// wideSample reads one sample of a 32- or 64-bit type (64-bit integers
// beyond ±2^53 rounded to float64, which windows them well enough).
func wideSample(b []byte, dt loader.DType) float64 {
	le := binary.LittleEndian
	switch dt {
	case loader.Uint32:
		return float64(le.Uint32(b))
	case loader.Int32:
		return float64(int32(le.Uint32(b)))
	case loader.Float32:
		return float64(math.Float32frombits(le.Uint32(b)))
	case loader.Float64:
		return math.Float64frombits(le.Uint64(b))
	case loader.Uint64:
		return float64(le.Uint64(b))
	case loader.Int64:
		return float64(int64(le.Uint64(b)))
	}
	return Sample(b, dt, 0)
}

// gather collects the values of every step-th screen pixel of a rectangle
// drawn from one chunk.
func (r *Renderer) gather(ls *levelState, data []byte, xa, xb, ya, yb int) {
	dt := r.f.m.DType
	es := r.f.es
	s := r.step
	for y := (ya + s - 1) / s * s; y < yb; y += s {
		row := data[ls.base+ls.rows.off[y]:]
		for x := (xa + s - 1) / s * s; x < xb; x += s {
			o := ls.cols.off[x]
			r.vals = append(r.vals, Sample(row[o:o+es], dt, 0))
		}
	}
}
