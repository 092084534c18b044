package render

import (
	"encoding/binary"
	"image"

	"vastview/loader"
)

// Channel is one channel of a composite view: its index on the C axis,
// its display window and its colormap (usually a ramp from black to the
// channel's colour, "#rrggbb").
type Channel struct {
	C        int
	Lo, Hi   float64
	Colormap string
}

// channelsOf returns the channels view v of data m is drawn as: its own
// Channels, the red, green and blue samples of colour pixels shown with
// the RGB colormap, or none for a view of one channel. The slice is the
// view's or the Renderer's own: do not keep it.
func (r *Renderer) channelsOf(v View, m *loader.Meta) []Channel {
	if len(v.Channels) > 0 {
		return v.Channels
	}
	if v.Colormap != RGB || m.Size('C') != 3 || m.AxisIndex('C') < 0 {
		return nil
	}
	for c := range r.rgb {
		r.rgb[c] = Channel{C: c, Lo: v.Lo, Hi: v.Hi, Colormap: rgbRamps[c]}
	}
	return r.rgb[:]
}

// ChannelView is v showing channel ch alone.
func ChannelView(v View, ch Channel) View {
	v.Channels = nil
	v.C, v.Lo, v.Hi, v.Colormap = ch.C, ch.Lo, ch.Hi, ch.Colormap
	return v
}

// renderComposite draws every channel with a renderer of its own into one
// picture, the first writing and the others adding, and requests the
// missing chunks of all of them together, nearest the viewport's centre
// first. It allocates nothing once the buffers exist.
func (r *Renderer) renderComposite(v View, chans []Channel, p Source, gen uint64) (*image.RGBA, Info) {
	img := r.target(v.Width, v.Height)
	if len(r.subs) < len(chans) {
		subs := make([]Renderer, len(chans))
		copy(subs, r.subs)
		r.subs = subs
	}
	subs := r.subs[:len(chans)]
	for i, ch := range chans {
		subs[i].clear = r.clear
		subs[i].start(img, ChannelView(v, ch), p, i > 0)
	}
	r.fillComposite(subs, v.Width, v.Height)
	info := Info{Complete: true}
	r.miss = r.miss[:0]
	for i := range subs {
		sub := &subs[i]
		in := sub.info()
		info.Level = in.Level
		info.Missing += in.Missing
		info.Complete = info.Complete && in.Complete
		info.Unfilled = max(info.Unfilled, in.Unfilled)
		info.Failed += in.Failed
		if in.Err != nil {
			info.Err = in.Err
		}
		r.miss = append(r.miss, sub.miss...)
	}
	r.request(p, gen, info.Level, len(p.Meta().Axes))
	return img, info
}

// fillComposite draws the w×h viewport of a composite whose channels'
// renderers have started, chunk by chunk of the frame's level: where every
// channel's chunk is in memory, row by row, each row through every channel
// while it is in the cache; elsewhere each channel as it would be drawn
// alone (from coarser levels where its chunk is missing).
func (r *Renderer) fillComposite(subs []Renderer, w, h int) {
	k := subs[0].f.level
	if k >= subs[0].f.nlevels || subs[0].f.outside {
		for i := range subs {
			subs[i].fill(k, 0, w, 0, h)
		}
		return
	}
	if cap(r.data) < len(subs) {
		r.data = make([][]byte, len(subs))
	}
	r.data = r.data[:len(subs)]
	ls := subs[0].level(k)
	rows, cols := ls.rows.chunk, ls.cols.chunk
	for ya := 0; ya < h; {
		yb := ya + 1
		for yb < h && rows[yb] == rows[ya] {
			yb++
		}
		for xa := 0; xa < w; {
			xb := xa + 1
			for xb < w && cols[xb] == cols[xa] {
				xb++
			}
			r.compositeChunk(subs, k, rows[ya], cols[xa], xa, xb, ya, yb)
			xa = xb
		}
		ya = yb
	}
}

// compositeChunk draws the rectangle chunk (cy, cx) of level k covers.
func (r *Renderer) compositeChunk(subs []Renderer, k, cy, cx, xa, xb, ya, yb int) {
	all := cy >= 0 && cx >= 0
	for i := 0; i < len(subs) && all; i++ {
		sub := &subs[i]
		ls := sub.level(k)
		idx := ls.idx
		if sub.f.ra >= 0 {
			idx[sub.f.ra] = cy
		}
		if sub.f.ca >= 0 {
			idx[sub.f.ca] = cx
		}
		r.data[i] = sub.chunk(k, &idx, ls.bytes)
		all = r.data[i] != nil
	}
	if !all {
		for i := range subs {
			subs[i].fillChunk(k, 1, subs[i].level(k), cy, cx, xa, xb, ya, yb)
		}
		return
	}
	img := subs[0].img
	pix, stride := img.Pix, img.Stride
	first := subs[0].level(k)
	fused := len(subs) <= maxFused && subs[0].f.es <= 2
	cols := first.cols.off[xa:xb]
	run := fused && subs[0].f.es == 2 && contiguous(cols, 2)
	bytes3 := fused && subs[0].f.es == 1 && len(subs) == 3
	if run || bytes3 {
		for i := range subs {
			subs[i].prepareWide(1 << (8 * subs[0].f.es))
		}
	}
	for y := ya; y < yb; y++ {
		dst := pix[y*stride+4*xa : y*stride+4*xb]
		if y > ya && first.rows.sample[y] == first.rows.sample[y-1] {
			copy(dst, pix[(y-1)*stride+4*xa:])
			continue
		}
		if run {
			r.fuseRun(subs, dst, k, y, cols[0], len(cols))
			continue
		}
		if bytes3 {
			r.fuse3Bytes(subs, dst, k, y, cols)
			continue
		}
		if fused {
			r.fuseRow(subs, dst, k, y, cols)
			continue
		}
		for i := range subs {
			ls := subs[i].level(k)
			row, cols := r.data[i][ls.base+ls.rows.off[y]:], ls.cols.off[xa:xb]
			if i == 0 {
				subs[i].drawRow(dst, row, cols)
			} else {
				subs[i].addToRow(dst, row, cols)
			}
		}
	}
}

// contiguous reports whether the byte offsets cols are consecutive
// samples of es bytes each.
func contiguous(cols []int, es int) bool {
	for i, o := range cols {
		if o != cols[0]+es*i {
			return false
		}
	}
	return len(cols) > 0
}

// maxFused is how many channels fuseRow adds in one pass: four colours
// of at most 255 fit the ten bits each primary has in a wide pixel.
const maxFused = 4

// prepareWide readies r.wlut, the table mapping the first n raw samples
// (256 or 65536: 8- or 16-bit) straight to their wide pixels (r.wide of
// r.lut), rebuilt only when the window or colormap changes.
func (r *Renderer) prepareWide(n int) {
	if r.wideOK && r.wideKey == r.lutKey {
		return
	}
	if r.wlut == nil {
		r.wlut = new([65536]uint32)
	}
	for v, e := range r.lut[:n] {
		r.wlut[v] = r.wide[e]
	}
	r.wideKey, r.wideOK = r.lutKey, true
}

// fuseRun draws screen row y of a composite of 16-bit channels whose
// samples under the row are n consecutive ones from byte offset o: one
// look-up a channel a pixel, from sample straight to wide pixel.
func (r *Renderer) fuseRun(subs []Renderer, dst []byte, k, y, o, n int) {
	var rows [maxFused][]byte
	for i := range subs {
		ls := subs[i].level(k)
		rows[i] = r.data[i][ls.base+ls.rows.off[y]+o:][:2*n]
	}
	le := binary.LittleEndian
	dst = dst[:4*n]
	switch len(subs) {
	case 1:
		t0, r0 := subs[0].wlut, rows[0]
		for len(r0) >= 2 && len(dst) >= 4 {
			le.PutUint32(dst, narrow(t0[le.Uint16(r0)]))
			r0, dst = r0[2:], dst[4:]
		}
	case 2:
		t0, t1, r0, r1 := subs[0].wlut, subs[1].wlut, rows[0], rows[1]
		for len(r0) >= 2 && len(r1) >= 2 && len(dst) >= 4 {
			le.PutUint32(dst, narrow(t0[le.Uint16(r0)]+t1[le.Uint16(r1)]))
			r0, r1, dst = r0[2:], r1[2:], dst[4:]
		}
	case 3:
		t0, t1, t2 := subs[0].wlut, subs[1].wlut, subs[2].wlut
		r0, r1, r2 := rows[0], rows[1], rows[2]
		for len(r0) >= 8 && len(r1) >= 8 && len(r2) >= 8 && len(dst) >= 16 {
			a, b, c := le.Uint64(r0), le.Uint64(r1), le.Uint64(r2)
			p0 := narrow(t0[uint16(a)] + t1[uint16(b)] + t2[uint16(c)])
			p1 := narrow(t0[uint16(a>>16)] + t1[uint16(b>>16)] + t2[uint16(c>>16)])
			p2 := narrow(t0[uint16(a>>32)] + t1[uint16(b>>32)] + t2[uint16(c>>32)])
			p3 := narrow(t0[a>>48] + t1[b>>48] + t2[c>>48])
			le.PutUint64(dst, uint64(p0)|uint64(p1)<<32)
			le.PutUint64(dst[8:], uint64(p2)|uint64(p3)<<32)
			r0, r1, r2, dst = r0[8:], r1[8:], r2[8:], dst[16:]
		}
		for len(r0) >= 4 && len(r1) >= 4 && len(r2) >= 4 && len(dst) >= 8 {
			a, b, c := le.Uint32(r0), le.Uint32(r1), le.Uint32(r2)
			p := narrow(t0[uint16(a)] + t1[uint16(b)] + t2[uint16(c)])
			q := narrow(t0[a>>16] + t1[b>>16] + t2[c>>16])
			le.PutUint64(dst, uint64(p)|uint64(q)<<32)
			r0, r1, r2, dst = r0[4:], r1[4:], r2[4:], dst[8:]
		}
		for len(r0) >= 2 && len(r1) >= 2 && len(r2) >= 2 && len(dst) >= 4 {
			le.PutUint32(dst, narrow(t0[le.Uint16(r0)]+t1[le.Uint16(r1)]+t2[le.Uint16(r2)]))
			r0, r1, r2, dst = r0[2:], r1[2:], r2[2:], dst[4:]
		}
	default:
		t0, t1, t2, t3 := subs[0].wlut, subs[1].wlut, subs[2].wlut, subs[3].wlut
		r0, r1, r2, r3 := rows[0], rows[1], rows[2], rows[3]
		for len(r0) >= 2 && len(r1) >= 2 && len(r2) >= 2 && len(r3) >= 2 && len(dst) >= 4 {
			le.PutUint32(dst, narrow(t0[le.Uint16(r0)]+t1[le.Uint16(r1)]+t2[le.Uint16(r2)]+t3[le.Uint16(r3)]))
			r0, r1, r2, r3, dst = r0[2:], r1[2:], r2[2:], r3[2:], dst[4:]
		}
	}
}

// fuse3Bytes draws screen row y of a composite of three channels of
// 8-bit samples (colour pixels, say) at the byte offsets cols: one
// look-up a channel a pixel, from sample straight to wide pixel.
func (r *Renderer) fuse3Bytes(subs []Renderer, dst []byte, k, y int, cols []int) {
	var rows [3][]byte
	for i := range rows {
		ls := subs[i].level(k)
		rows[i] = r.data[i][ls.base+ls.rows.off[y]:]
	}
	t0, t1, t2 := (*[256]uint32)(subs[0].wlut[:256]), (*[256]uint32)(subs[1].wlut[:256]), (*[256]uint32)(subs[2].wlut[:256])
	r0, r1, r2 := rows[0], rows[1], rows[2]
	le := binary.LittleEndian
	dst = dst[:4*len(cols)]
	for len(cols) >= 4 && len(dst) >= 16 {
		a, b, c, d := cols[0], cols[1], cols[2], cols[3]
		p0 := narrow(t0[r0[a]] + t1[r1[a]] + t2[r2[a]])
		p1 := narrow(t0[r0[b]] + t1[r1[b]] + t2[r2[b]])
		p2 := narrow(t0[r0[c]] + t1[r1[c]] + t2[r2[c]])
		p3 := narrow(t0[r0[d]] + t1[r1[d]] + t2[r2[d]])
		le.PutUint64(dst, uint64(p0)|uint64(p1)<<32)
		le.PutUint64(dst[8:], uint64(p2)|uint64(p3)<<32)
		cols, dst = cols[4:], dst[16:]
	}
	for i, o := range cols {
		le.PutUint32(dst[4*i:], narrow(t0[r0[o]]+t1[r1[o]]+t2[r2[o]]))
	}
}

// fuseRow draws screen row y of a composite of at most maxFused channels
// of 8- or 16-bit samples, each chunk in r.data: every pixel's channels
// looked up and added at once in wide pixels (ten bits a primary, see
// widePalette), then clamped and packed.
func (r *Renderer) fuseRow(subs []Renderer, dst []byte, k, y int, cols []int) {
	var rows [maxFused][]byte
	var luts [maxFused]*[65536]uint8
	var pals [maxFused]*[256]uint32
	n := len(subs)
	for i := range subs {
		ls := subs[i].level(k)
		rows[i], luts[i], pals[i] = r.data[i][ls.base+ls.rows.off[y]:], subs[i].lut, &subs[i].wide
	}
	for i := n; i < maxFused; i++ { // unused: a channel adding black
		rows[i], luts[i], pals[i] = rows[0], luts[0], &black
	}
	le := binary.LittleEndian
	dst = dst[:4*len(cols)]
	if subs[0].f.es == 1 {
		for i, o := range cols {
			w := pals[0][luts[0][rows[0][o]]] + pals[1][luts[1][rows[1][o]]] +
				pals[2][luts[2][rows[2][o]]] + pals[3][luts[3][rows[3][o]]]
			le.PutUint32(dst[4*i:], narrow(w))
		}
		return
	}
	for i, o := range cols {
		w := pals[0][luts[0][le.Uint16(rows[0][o:])]] + pals[1][luts[1][le.Uint16(rows[1][o:])]] +
			pals[2][luts[2][le.Uint16(rows[2][o:])]] + pals[3][luts[3][le.Uint16(rows[3][o:])]]
		le.PutUint32(dst[4*i:], narrow(w))
	}
}

// black is the wide palette of a channel that adds nothing.
var black [256]uint32

// widePalette packs the colours of a colormap as wide pixels: red, green
// and blue in ten bits each, room for the sum of four colours.
func widePalette(pal *[256]uint32, cm *Colormap) {
	for i, c := range cm.LUT {
		pal[i] = uint32(c[0]) | uint32(c[1])<<10 | uint32(c[2])<<20
	}
}

// narrow clamps each primary of a wide pixel at 255 and packs it as an
// opaque RGBA pixel.
func narrow(w uint32) uint32 {
	const low = 1 | 1<<10 | 1<<20
	w |= ((w>>8 | w>>9) & low) * 0xff // a primary beyond 255 becomes 255
	return w&0xff | w>>2&0xff00 | w>>4&0xff0000 | 0xff<<24
}

// addRow adds the pixels of src to those of dst, each byte clamped at
// 255: additive blending of packed RGBA pixels.
func addRow(dst, src []byte) {
	le := binary.LittleEndian
	src = src[:len(dst)]
	for i := 0; i+3 < len(dst); i += 4 {
		le.PutUint32(dst[i:], addSat(le.Uint32(dst[i:]), le.Uint32(src[i:])))
	}
}

// AddPixels adds the RGBA pixels of src to those of dst, each byte
// clamped at 255, as a composite adds its channels' colours.
func AddPixels(dst, src []byte) { addRow(dst, src) }

// addSat adds two packed pixels byte by byte, each sum clamped at 255,
// without branches: the low seven bits of each byte are added, the top
// bit and the carry out of it worked out from the operands.
func addSat(a, b uint32) uint32 {
	const top = 0x80808080
	s := (a &^ top) + (b &^ top)
	sum := s ^ ((a ^ b) & top)
	carry := ((a & b) | (s & (a | b))) & top
	return sum | (carry>>7)*0xff
}

// PlaneComposite draws planes of w×h samples of type dt, one per channel
// of chans (planes[i] is chans[i]'s), each through its window and
// colormap, and adds them per pixel, each byte clamped at 255, as a
// composite view shows them.
func PlaneComposite(planes [][]byte, dt loader.DType, w, h int, chans []Channel) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	var scratch []byte
	for i, ch := range chans {
		cm := ColormapOrGray(ch.Colormap)
		if i == 0 {
			Draw(out.Pix, planes[i][:w*h*dt.Size()], dt, ch.Lo, ch.Hi, cm)
			continue
		}
		if scratch == nil {
			scratch = make([]byte, len(out.Pix))
		}
		Draw(scratch, planes[i][:w*h*dt.Size()], dt, ch.Lo, ch.Hi, cm)
		addRow(out.Pix, scratch)
	}
	return out
}
