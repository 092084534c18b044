package demo

import (
	"encoding/binary"
	"math"
)

// Punctum blocks: at most one small bright dot per block of pz x py x px
// samples, placed by a hash so that the whole volume needs no storage.
const (
	pz, py, px = 16, 32, 32
	prz, pry   = 2.5, 3.0 // dot semi-axes in samples (Z, and Y and X)
)

// activeCell is a cell that touches the chunk being rendered.
type activeCell struct {
	cy, ky, dz2 float64 // centre row, 1/ry^2, normalised (dz/rz)^2
	xa, xb      int     // columns it covers, relative to the chunk
	col         []int32 // normalised (dx/rx)^2 per chunk column, fixed point
	amp         int32
	prof        *[1 << profBits]int32
}

// render computes the h x w samples at (t, z, y0.., x0..) into dst, whose
// rows are cw samples apart.
func (s *scene) render(t, z, y0, x0, h, w, cw int, dst []byte) {
	var acc [chunkXY]int32
	row := acc[:w]
	cells := s.activeCells(t, z, y0, x0, h, w)
	puncta := activePuncta(z, y0, x0, h, w)
	ringCols := s.ringColumns(x0, w)
	for yy := 0; yy < h; yy++ {
		y := y0 + yy
		clear(row)
		for i := range cells {
			cells[i].add(row, y)
		}
		for i := range puncta {
			puncta[i].add(row, y, x0, &s.fill)
		}
		for i := range s.rings {
			s.rings[i].add(row, z, y, s, ringCols)
		}
		s.finish(dst[2*yy*cw:], &acc, w, z, y, x0)
	}
}

// finish writes row (the features of row y of slice z) to out as
// little-endian uint16 after adding the smooth background and a fine
// texture: up to 1023 plus or minus an eighth of the value. Row (z, y) reads
// the noise table from an offset hashed from z and y, so that rows and
// slices are unrelated while the texture needs one load per sample.
func (s *scene) finish(out []byte, row *[chunkXY]int32, w, z, y, x0 int) {
	base := s.bgZ[z] + s.bgY[y]
	bg := s.bgX[x0:]
	off := (hash3(0, y, z) + uint32(x0)) % noiseLen
	noise := (*[chunkXY]int32)(noiseTable()[off : off+chunkXY])
	if w == chunkXY && len(out) >= 2*chunkXY && len(bg) >= chunkXY {
		o := (*[2 * chunkXY]byte)(out)
		b := (*[chunkXY]int32)(bg)
		for i := 0; i < chunkXY; i += 2 {
			v0 := texel(base+b[i]+row[i], noise[i])
			v1 := texel(base+b[i+1]+row[i+1], noise[i+1])
			binary.LittleEndian.PutUint32(o[2*i:], uint32(v0)|uint32(v1)<<16)
		}
		return
	}
	out, bg = out[:2*w], bg[:w]
	for i := 0; i < w && i < chunkXY; i++ {
		v := texel(base+bg[i]+row[i], noise[i])
		out[2*i+1], out[2*i] = byte(v>>8), byte(v)
	}
}

// texel adds noise value n (see noiseTable) to sample v (which is
// positive), clamped to uint16.
func texel(v int32, n int32) int32 {
	v += n&0xffff + v*(n>>16)>>8
	return min(v, 65535)
}

// activeCells lists the cells that touch the chunk at time t.
func (s *scene) activeCells(t, z, y0, x0, h, w int) []activeCell {
	var out []activeCell
	for i := range s.cells {
		c := &s.cells[i]
		cz, cy, cx := c.at(t)
		dz := (float64(z) - cz) / c.rz
		if dz*dz >= 1 || cy+c.ry < float64(y0) || cy-c.ry > float64(y0+h-1) ||
			cx+c.rx < float64(x0) || cx-c.rx > float64(x0+w-1) {
			continue
		}
		a := activeCell{
			cy: cy, ky: 1 / (c.ry * c.ry), dz2: dz * dz, amp: c.amp, prof: &s.fill,
			xa: max(0, int(math.Ceil(cx-c.rx))-x0), xb: min(w, int(math.Floor(cx+c.rx))+1-x0),
		}
		if c.shell {
			a.prof = &s.shell
		}
		a.col = make([]int32, w)
		for x := a.xa; x < a.xb; x++ {
			d := (float64(x0+x) - cx) / c.rx
			a.col[x] = int32(math.Min(d*d, 1) * one)
		}
		out = append(out, a)
	}
	return out
}

// add adds the cell's contribution to row y.
func (a *activeCell) add(row []int32, y int) {
	dy := float64(y) - a.cy
	r := a.dz2 + dy*dy*a.ky
	if r >= 1 {
		return
	}
	base := int32(r * one)
	prof, amp := a.prof, int64(a.amp)
	for x := a.xa; x < a.xb; x++ {
		if v := base + a.col[x]; v < one {
			row[x] += int32(int64(prof[v>>(20-profBits)]) * amp >> 16)
		}
	}
}

// punctum is a small dot that touches the chunk being rendered.
type punctum struct {
	cy, dz2 float64 // centre row, normalised (dz/prz)^2
	cx      int     // centre column
	amp     int64
}

// activePuncta lists the dots that touch slice z of the chunk. Each block
// holds a dot with probability one half; a dot stays inside its block along
// Y and X, and may reach into the blocks above and below along Z.
func activePuncta(z, y0, x0, h, w int) []punctum {
	var out []punctum
	for bz := z/pz - 1; bz <= z/pz+1; bz++ {
		for by := y0 / py; by*py < y0+h; by++ {
			for bx := x0 / px; bx*px < x0+w; bx++ {
				hs := hash3(bx, by, bz)
				if hs&1 != 0 {
					continue
				}
				dz := (float64(z) - float64(bz*pz) - float64(hs>>2%pz)) / prz
				if dz*dz >= 1 {
					continue
				}
				out = append(out, punctum{
					cy: float64(by*py) + 4 + float64(hs>>6%24), dz2: dz * dz,
					cx: bx*px + 4 + int(hs>>11%24), amp: int64(5000 + hs>>16%9000),
				})
			}
		}
	}
	return out
}

// add adds the dot's contribution to row y, whose first column is x0.
func (p *punctum) add(row []int32, y, x0 int, prof *[1 << profBits]int32) {
	dy := (float64(y) - p.cy) / pry
	r := p.dz2 + dy*dy
	if r >= 1 {
		return
	}
	for x := max(p.cx-3, x0); x <= p.cx+3 && x < x0+len(row); x++ {
		dx := float64(x-p.cx) / pry
		if v := r + dx*dx; v < 1 {
			row[x-x0] += int32(int64(prof[int(v*(1<<profBits))]) * p.amp >> 16)
		}
	}
}

// hash3 mixes three block coordinates into 32 well-spread bits.
func hash3(a, b, c int) uint32 {
	h := uint32(a)*0x9e3779b1 ^ uint32(b)*0x85ebca6b ^ uint32(c)*0xc2b2ae35
	h ^= h >> 16
	h *= 0x7feb352d
	h ^= h >> 15
	h *= 0x846ca68b
	return h ^ h>>16
}

// ringColumns returns the physical X coordinate of each chunk column.
func (s *scene) ringColumns(x0, w int) []float64 {
	xs := make([]float64, w)
	for i := range xs {
		xs[i] = float64(x0+i) * s.sx
	}
	return xs
}

// add adds the ring's contribution to row (z, y); xs holds the physical X of
// each column.
func (g *ring) add(row []int32, z, y int, s *scene, xs []float64) {
	dz, dy := float64(z)*s.sz-g.cz, float64(y)*s.sy-g.cy
	in2, out2 := dy*dy, dz*dz // squared distances in the ring's plane and off it
	if g.axisY {
		in2, out2 = dz*dz, dy*dy
	}
	r2 := g.r * g.r
	if out2 >= r2 {
		return
	}
	q := math.Sqrt(r2 - out2)
	lo, hi := math.Max(g.big-q, 0), g.big+q
	lo2, hi2 := lo*lo, hi*hi
	if in2 >= hi2 {
		return
	}
	for i, x := range xs {
		dx := x - g.cx
		rho2 := dx*dx + in2
		if rho2 <= lo2 || rho2 >= hi2 {
			continue
		}
		d := math.Sqrt(rho2) - g.big
		if v := (d*d + out2) / r2; v < 1 {
			row[i] += int32(int64(s.fill[int(v*(1<<profBits))]) * int64(g.amp) >> 16)
		}
	}
}
