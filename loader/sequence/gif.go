package sequence

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"vastview/loader"
)

// GIF is a GIF file opened as its frames: axes "YX" or "CYX" for a single
// frame, "TYX" or "TCYX" for an animation, one chunk per frame, samples as
// for a Picture (alpha dropped, palettes expanded). Frames are composed as
// a web browser plays them: each frame is drawn over the previous ones,
// its transparent pixels showing what lies beneath, and its disposal
// (restore the background or the previous picture) applied before the
// next. Where no frame has drawn, and where a frame is restored to the
// background, pixels are black (0), as a browser shows them over a black
// page: the viewer has no transparency, and the file's background colour
// index is ignored, as browsers ignore it (encoders often leave it at 0,
// whatever colour that is). T spacing is the frames' delay in seconds
// when every frame has the same non-zero delay.
//
// Reading frame t goes on from the frame read last, or from the last
// frame before t that covers the whole screen opaquely, so stepping
// forward costs one frame. It is safe for concurrent use; reads are
// serialised. The file is mapped: if it shrinks while it is open, reads
// of frames it lost fail with an error matching loader.ErrTruncated.
type GIF struct {
	file *loader.File
	g    *gifFile
	info frameInfo
	meta *loader.Meta

	mu     sync.Mutex
	canvas *gifCanvas // nil until the first read
}

var errGIFClosed = errors.New("gif: source is closed")

// OpenGIF maps the GIF file at path and indexes its frames. Errors do not
// repeat the path.
func OpenGIF(ctx context.Context, path string) (*GIF, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	file, err := loader.OpenFile(path)
	if err != nil {
		return nil, err
	}
	s, err := newGIF(file, file.Size())
	if err != nil {
		file.Close()
		return nil, err
	}
	return s, nil
}

// newGIF indexes the frames of a GIF file of size bytes, reading the
// mapping under its guard: a file that shrinks meanwhile is an error
// matching loader.ErrChanged.
func newGIF(file *loader.File, size int64) (_ *GIF, err error) {
	defer file.Guard().Recover(&err)
	b, err := file.Bytes(0, size)
	if err != nil {
		return nil, err
	}
	g, info, err := indexGIF(b)
	if err != nil {
		return nil, err
	}
	return &GIF{file: file, g: g, info: info, meta: pictureMeta(&info, len(g.frames), g.interval())}, nil
}

// indexGIF parses a GIF file held in b and describes its samples.
func indexGIF(b []byte) (*gifFile, frameInfo, error) {
	g, err := parseGIF(b)
	if err != nil {
		return nil, frameInfo{}, err
	}
	f := frameInfo{kind: kindGIF, w: g.w, h: g.h, dtype: loader.Uint8}
	f.c, f.rgb, f.depth = g.layout()
	return g, f, f.check()
}

// interval returns the frames' common delay in seconds, or nil if they
// differ or are zero.
func (g *gifFile) interval() []float64 {
	d := g.frames[0].delay
	for i := range g.frames {
		if g.frames[i].delay != d {
			return nil
		}
	}
	if d == 0 {
		return nil
	}
	return []float64{float64(d) / 100}
}

// Meta describes the frames. It is safe for concurrent use.
func (s *GIF) Meta() *loader.Meta { return s.meta }

// Frames is the number of frames.
func (s *GIF) Frames() int { return len(s.g.frames) }

// ReadChunk composes frame idx[0] (of an animation; the only frame
// otherwise) into dst. It is safe for concurrent use.
func (s *GIF) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	t := 0
	if s.meta.Axes[0] == 'T' {
		t = idx[0]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return errGIFClosed
	}
	if err := ctx.Err(); err != nil {
		return err // ended while another frame was read
	}
	if err := s.compose(t); err != nil {
		if err == loader.ErrChanged {
			s.canvas = nil // drawn in part: start again next time
			return fmt.Errorf("gif: frame %d: %w", t, err)
		}
		return err
	}
	copy(dst, s.canvas.pix)
	return nil
}

// compose draws frame t on the canvas, reading the mapping under its
// guard. The caller holds s.mu.
func (s *GIF) compose(t int) (err error) {
	defer s.file.Guard().Recover(&err)
	if s.canvas == nil {
		s.canvas = newCanvas(s.g, s.info.c, s.info.depth, nil)
	}
	return s.canvas.seek(t)
}

// Close unmaps the file; reads after Close fail.
func (s *GIF) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file, s.canvas = nil, nil
	return err
}

// gifHeader describes the GIF frame file at path, which must hold one
// frame.
func gifHeader(path string) (frameInfo, error) {
	data, err := readWhole(path)
	if err != nil {
		return frameInfo{}, err
	}
	_, f, err := singleGIF(data)
	return f, err
}

// singleGIF parses a GIF file that must hold one frame.
func singleGIF(data []byte) (*gifFile, frameInfo, error) {
	g, f, err := indexGIF(data)
	if err != nil {
		return nil, frameInfo{}, err
	}
	if n := len(g.frames); n != 1 {
		return nil, frameInfo{}, fmt.Errorf("holds %d images; a frame must be a single image", n)
	}
	return g, f, nil
}

// decodeGIFFrame decodes a one-frame GIF file held in data into dst after
// checking that it matches want.
func decodeGIFFrame(data []byte, want *frameInfo, dst []byte) error {
	g, info, err := singleGIF(data)
	if err != nil {
		return err
	}
	if !info.same(want) {
		return &mismatchError{got: info, want: *want}
	}
	if len(dst) != info.bytes() {
		return fmt.Errorf("buffer of %d bytes for a %d-byte frame", len(dst), info.bytes())
	}
	return newCanvas(g, info.c, info.depth, dst).seek(0)
}
