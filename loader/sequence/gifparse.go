package sequence

import (
	"encoding/binary"
	"errors"
	"fmt"

	"vastview/loader"
)

// gifFile is the block structure of a GIF file: its logical screen and
// where each frame's data lies. Parsing it reads every block header but
// decodes no pixels.
type gifFile struct {
	w, h   int
	global [][3]uint8 // global colour table (nil if none)
	frames []gifFrame
	keys   []int // see keyFrame
}

// gifFrame is one image of a GIF file and the graphic control that goes
// with it.
type gifFrame struct {
	x, y, w, h  int        // rectangle on the logical screen
	interlaced  bool       // rows stored in four passes
	palette     [][3]uint8 // local colour table, or the global one
	transparent int        // index left undrawn, or -1
	disposal    int        // 0, 1: keep; 2: restore background; 3: restore previous
	delay       int        // hundredths of a second
	litWidth    int        // LZW minimum code size
	data        []byte     // the sub-blocks of image data, size bytes included
}

// gifControl is a graphic control extension, which applies to the next
// image.
type gifControl struct{ transparent, disposal, delay int }

var noControl = gifControl{transparent: -1}

// parseGIF walks the blocks of a GIF file held in b. A file that ends
// after a frame without the trailer is accepted, as viewers do.
func parseGIF(b []byte) (*gifFile, error) {
	g, off, err := parseScreen(b)
	if err != nil {
		return nil, err
	}
	ctl := noControl
	for off < len(b) {
		switch b[off] {
		case 0x3b: // trailer
			return g.finish()
		case 0x21:
			if off, err = g.extension(b, off, &ctl); err != nil {
				return nil, err
			}
		case 0x2c:
			if off, err = g.image(b, off, ctl); err != nil {
				return nil, err
			}
			ctl = noControl
		default:
			return nil, fmt.Errorf("gif: unknown block 0x%02x at offset %d", b[off], off)
		}
	}
	return g.finish()
}

// parseScreen reads the header, the logical screen descriptor and the
// global colour table; it returns the offset of the first block.
func parseScreen(b []byte) (*gifFile, int, error) {
	if len(b) < 13 {
		return nil, 0, fmt.Errorf("gif: truncated header: %w", loader.ErrTruncated)
	}
	le := binary.LittleEndian
	g := &gifFile{w: int(le.Uint16(b[6:])), h: int(le.Uint16(b[8:]))}
	flags := b[10]
	off := 13
	if flags&0x80 != 0 {
		var err error
		if g.global, off, err = colourTable(b, off, flags); err != nil {
			return nil, 0, err
		}
	}
	if g.w == 0 || g.h == 0 {
		return nil, 0, fmt.Errorf("gif: empty image %dx%d", g.w, g.h)
	}
	return g, off, nil
}

// colourTable reads the colour table whose size the flags give at off.
func colourTable(b []byte, off int, flags byte) ([][3]uint8, int, error) {
	n := 2 << (flags & 7)
	if len(b)-off < 3*n {
		return nil, 0, fmt.Errorf("gif: truncated colour table at offset %d: %w", off, loader.ErrTruncated)
	}
	t := make([][3]uint8, n)
	for i := range t {
		t[i] = [3]uint8{b[off+3*i], b[off+3*i+1], b[off+3*i+2]}
	}
	return t, off + 3*n, nil
}

// skipSubBlocks returns the offset after the sub-blocks that start at off
// (after their zero-length terminator), or false if they run past the end
// of b.
func skipSubBlocks(b []byte, off int) (int, bool) {
	for {
		if off >= len(b) {
			return 0, false
		}
		n := int(b[off])
		off++
		if n == 0 {
			return off, true
		}
		off += n
	}
}

// extension reads the extension block at off; a graphic control extension
// sets ctl.
func (g *gifFile) extension(b []byte, off int, ctl *gifControl) (int, error) {
	if len(b)-off < 3 {
		return 0, fmt.Errorf("gif: truncated extension at offset %d: %w", off, loader.ErrTruncated)
	}
	if b[off+1] == 0xf9 && b[off+2] >= 4 && len(b)-off >= 7 {
		flags := b[off+3]
		ctl.disposal = int(flags>>2) & 7
		ctl.delay = int(binary.LittleEndian.Uint16(b[off+4:]))
		ctl.transparent = -1
		if flags&1 != 0 {
			ctl.transparent = int(b[off+6])
		}
	}
	end, ok := skipSubBlocks(b, off+2)
	if !ok {
		return 0, fmt.Errorf("gif: extension at offset %d runs past the end of the file: %w", off, loader.ErrTruncated)
	}
	return end, nil
}

// image reads the image descriptor at off, its colour table and the extent
// of its data.
func (g *gifFile) image(b []byte, off int, ctl gifControl) (int, error) {
	if len(b)-off < 11 {
		return 0, fmt.Errorf("gif: truncated image descriptor at offset %d: %w", off, loader.ErrTruncated)
	}
	le := binary.LittleEndian
	f := gifFrame{
		x: int(le.Uint16(b[off+1:])), y: int(le.Uint16(b[off+3:])),
		w: int(le.Uint16(b[off+5:])), h: int(le.Uint16(b[off+7:])),
		transparent: ctl.transparent, disposal: ctl.disposal, delay: ctl.delay,
		palette: g.global,
	}
	flags := b[off+9]
	f.interlaced = flags&0x40 != 0
	off += 10
	if flags&0x80 != 0 {
		var err error
		if f.palette, off, err = colourTable(b, off, flags); err != nil {
			return 0, err
		}
	}
	if f.palette == nil {
		return 0, fmt.Errorf("gif: frame %d has no colour table", len(g.frames))
	}
	if off >= len(b) {
		return 0, fmt.Errorf("gif: frame %d: truncated image data: %w", len(g.frames), loader.ErrTruncated)
	}
	f.litWidth = int(b[off])
	if f.litWidth < 2 || f.litWidth > 8 {
		return 0, fmt.Errorf("gif: frame %d: LZW code size %d", len(g.frames), f.litWidth)
	}
	end, ok := skipSubBlocks(b, off+1)
	if !ok {
		return 0, fmt.Errorf("gif: frame %d: image data runs past the end of the file: %w", len(g.frames), loader.ErrTruncated)
	}
	f.data = b[off+1 : end]
	g.frames = append(g.frames, f)
	return end, nil
}

// finish checks that the file held a frame.
func (g *gifFile) finish() (*gifFile, error) {
	if len(g.frames) == 0 {
		return nil, errors.New("gif: no image in the file")
	}
	g.findKeys()
	return g, nil
}

// layout decides the samples the frames become, as paletteLayout does for
// one palette: gray if every colour table is gray, keeping the indices if
// every table is the same gray ramp.
func (g *gifFile) layout() (c int, rgb bool, depth int) {
	tables := [][][3]uint8{g.global}
	for i := range g.frames {
		tables = append(tables, g.frames[i].palette)
	}
	depth = -1
	for _, t := range tables {
		if t == nil {
			continue
		}
		if !grayPalette(t) {
			return 3, true, 0
		}
		switch d := rampBits(t, tableBits(len(t))); {
		case depth < 0:
			depth = d
		case d != depth:
			depth = 0
		}
	}
	return 1, false, max(depth, 0)
}

// tableBits is the bit depth of a colour table of n (a power of two)
// entries.
func tableBits(n int) int {
	b := 1
	for 1<<b < n {
		b++
	}
	return b
}
