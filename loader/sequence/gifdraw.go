package sequence

import (
	"compress/lzw"
	"fmt"
	"io"
)

// gifCanvas is the logical screen of a GIF as frames are drawn on it: c
// planes of w*h samples (gray, or red, green and blue).
type gifCanvas struct {
	g     *gifFile
	c     int
	depth int
	pix   []byte
	next  int    // the frame to draw next; frames before it are drawn
	saved []byte // the area under frame next-1 before it was drawn (disposal 3)
}

// newCanvas returns a blank screen for g's frames, as layout describes
// them, drawn in pix (c*w*h bytes; nil: a new buffer).
func newCanvas(g *gifFile, c, depth int, pix []byte) *gifCanvas {
	if pix == nil {
		pix = make([]byte, c*g.w*g.h)
	}
	k := &gifCanvas{g: g, c: c, depth: depth, pix: pix}
	k.reset()
	return k
}

// reset clears the screen to black, before frame 0.
func (k *gifCanvas) reset() {
	k.fill(0, 0, k.g.w, k.g.h)
	k.next, k.saved = 0, nil
}

// fill clears the clipped rectangle (x, y, w, h) to black.
func (k *gifCanvas) fill(x, y, w, h int) {
	x0, y0, x1, y1 := k.clip(x, y, w, h)
	plane := k.g.w * k.g.h
	for ch := 0; ch < k.c; ch++ {
		for yy := y0; yy < y1; yy++ {
			clear(k.pix[ch*plane+yy*k.g.w+x0 : ch*plane+yy*k.g.w+x1])
		}
	}
}

// clip returns the part of a rectangle that lies on the screen.
func (k *gifCanvas) clip(x, y, w, h int) (x0, y0, x1, y1 int) {
	x0, y0 = min(x, k.g.w), min(y, k.g.h)
	return x0, y0, min(x+w, k.g.w), min(y+h, k.g.h)
}

// seek makes the screen show frame t: it goes on from the frame drawn
// last, or starts again from the last frame before t that covers the
// whole screen with opaque pixels.
func (k *gifCanvas) seek(t int) error {
	start := k.g.keyFrame(t)
	if k.next > t+1 || k.next <= start {
		k.reset()
		k.next = start
	}
	for k.next <= t {
		if k.next > 0 {
			k.dispose(&k.g.frames[k.next-1])
		}
		if err := k.draw(k.next); err != nil {
			k.reset()
			return err
		}
		k.next++
	}
	return nil
}

// keyFrame returns the last frame up to t that covers the whole screen
// with opaque pixels and is not restored afterwards, so that what came
// before it does not show; 0 if none does.
func (g *gifFile) keyFrame(t int) int { return g.keys[t] }

// findKeys fills in keyFrame's answer for every frame.
func (g *gifFile) findKeys() {
	g.keys = make([]int, len(g.frames))
	for i := range g.frames {
		f := &g.frames[i]
		if i > 0 && !(f.transparent < 0 && f.disposal != 3 && f.x == 0 && f.y == 0 && f.w >= g.w && f.h >= g.h) {
			g.keys[i] = g.keys[i-1]
		} else {
			g.keys[i] = i
		}
	}
}

// dispose applies a drawn frame's disposal before the next is drawn.
func (k *gifCanvas) dispose(f *gifFrame) {
	switch f.disposal {
	case 2:
		k.fill(f.x, f.y, f.w, f.h)
	case 3:
		if k.saved != nil {
			k.copyArea(f, k.saved, false)
		}
	}
}

// copyArea copies the clipped area under frame f from the screen into buf
// (save) or from buf back onto the screen.
func (k *gifCanvas) copyArea(f *gifFrame, buf []byte, save bool) {
	x0, y0, x1, y1 := k.clip(f.x, f.y, f.w, f.h)
	plane, n := k.g.w*k.g.h, 0
	for ch := 0; ch < k.c; ch++ {
		for y := y0; y < y1; y++ {
			row := k.pix[ch*plane+y*k.g.w+x0 : ch*plane+y*k.g.w+x1]
			if save {
				copy(buf[n:], row)
			} else {
				copy(row, buf[n:])
			}
			n += len(row)
		}
	}
}

// draw decodes frame i onto the screen.
func (k *gifCanvas) draw(i int) error {
	f := &k.g.frames[i]
	k.saved = nil
	if f.disposal == 3 {
		x0, y0, x1, y1 := k.clip(f.x, f.y, f.w, f.h)
		k.saved = make([]byte, k.c*(x1-x0)*(y1-y0))
		k.copyArea(f, k.saved, true)
	}
	if f.w == 0 || f.h == 0 {
		return nil
	}
	t := newLUT(f.palette, k.depth)
	r := lzw.NewReader(&subBlocks{b: f.data}, lzw.LSB, f.litWidth)
	defer r.Close()
	row := make([]byte, f.w)
	for n := 0; n < f.h; n++ {
		if _, err := io.ReadFull(r, row); err == io.EOF || err == io.ErrUnexpectedEOF {
			return fmt.Errorf("gif: frame %d: not enough image data (%d of %d rows)", i, n, f.h)
		} else if err != nil {
			return fmt.Errorf("gif: frame %d: %v", i, err)
		}
		k.drawRow(f, t, f.y+rowOf(n, f.h, f.interlaced), row)
	}
	return nil
}

// drawRow paints one row of frame f's indices at screen row y, leaving
// transparent pixels and those off the screen alone.
func (k *gifCanvas) drawRow(f *gifFrame, t *lut, y int, row []byte) {
	if y >= k.g.h {
		return
	}
	plane := k.g.w * k.g.h
	for x, idx := range row[:max(0, min(len(row), k.g.w-f.x))] {
		if int(idx) == f.transparent {
			continue
		}
		p := y*k.g.w + f.x + x
		for ch := 0; ch < k.c; ch++ {
			k.pix[ch*plane+p] = t[idx][ch]
		}
	}
}

// rowOf returns the frame row that the n-th stored row of h is: n itself,
// or, for interlaced frames, the n-th row of passes that start at rows 0,
// 4, 2 and 1 and step 8, 8, 4 and 2.
func rowOf(n, h int, interlaced bool) int {
	if !interlaced {
		return n
	}
	for _, p := range [4][2]int{{0, 8}, {4, 8}, {2, 4}, {1, 2}} {
		rows := (h - p[0] + p[1] - 1) / p[1]
		if n < rows {
			return p[0] + n*p[1]
		}
		n -= rows
	}
	return h
}

// subBlocks reads the bytes of GIF data sub-blocks, without their length
// bytes; b ends with the terminator or is cut short by the file's end.
type subBlocks struct {
	b   []byte
	cur []byte
}

func (s *subBlocks) Read(p []byte) (int, error) {
	for len(s.cur) == 0 {
		if len(s.b) == 0 {
			return 0, io.ErrUnexpectedEOF
		}
		n := int(s.b[0])
		if n == 0 {
			return 0, io.EOF
		}
		n = min(n, len(s.b)-1)
		s.cur, s.b = s.b[1:1+n], s.b[1+n:]
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}

// ReadByte reads one byte, so that the LZW reader needs no buffer of its
// own.
func (s *subBlocks) ReadByte() (byte, error) {
	var b [1]byte
	if _, err := s.Read(b[:]); err != nil {
		return 0, err
	}
	return b[0], nil
}
