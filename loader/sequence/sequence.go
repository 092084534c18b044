// Package sequence reads a folder (or glob pattern) of PNG, JPEG or TIFF
// files as one array, one frame per file in natural order (frame2 before
// frame10). Frames are a Z stack: axes "ZYX", or "ZCYX" for multi-channel
// frames, whose channels are returned as planes. Opening lists the folder
// and reads the first frame's header only; each ReadChunk decodes one file.
//
// Importing the package registers the format "sequence" with loader.Open.
// TIFF frames are opened with loader.Open, so a TIFF reader must be
// registered too for folders of TIFF files.
package sequence

import (
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"

	"vastview/loader"
)

func init() {
	loader.Register(loader.Format{
		Name:  "sequence",
		Match: Match,
		Open: func(ctx context.Context, path string) (loader.Source, error) {
			s, err := Open(ctx, path)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
	})
}

// zarrMarkers are files whose presence makes a folder a Zarr store rather
// than a folder of frames.
var zarrMarkers = []string{".zgroup", ".zarray", ".zattrs", "zarr.json"}

// Match reports whether path is a glob pattern or a folder (head is nil for
// both) that is not a Zarr store or a URL. It is safe for concurrent use.
func Match(path string, head []byte) bool {
	if head != nil || loader.IsURL(path) {
		return false
	}
	if loader.IsPattern(path) {
		return true
	}
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	for _, m := range zarrMarkers {
		if _, err := os.Stat(filepath.Join(path, m)); err == nil {
			return false
		}
	}
	return true
}

// Source is an opened image sequence. It is safe for concurrent use.
type Source struct {
	paths []string // frame files in order
	names []string // frame names for messages, relative to the folder
	first frameInfo
	meta  *loader.Meta
}

// Open lists the frames of a folder or glob pattern and reads the first
// frame's header. Errors do not repeat the path.
func Open(ctx context.Context, path string) (*Source, error) {
	var paths, names []string
	var err error
	if loader.IsPattern(path) {
		paths, names, err = listPattern(path)
	} else {
		paths, names, err = listFolder(path)
	}
	if err != nil {
		return nil, loader.StripPath(err)
	}
	s := &Source{paths: paths, names: names}
	if s.first, err = readHeader(ctx, paths[0]); err != nil {
		return nil, &FrameError{Frame: names[0], Err: err}
	}
	s.meta = newMeta(len(paths), &s.first)
	if err := s.fillFromFirst(ctx); err != nil {
		return nil, &FrameError{Frame: names[0], Err: err}
	}
	return s, nil
}

// newMeta describes n frames like f.
func newMeta(n int, f *frameInfo) *loader.Meta {
	if f.c == 1 {
		return loader.NewMeta("sequence", "ZYX", []int{n, f.h, f.w}, f.dtype, []int{1, f.h, f.w}, nil, nil)
	}
	return loader.NewMeta("sequence", "ZCYX", []int{n, f.c, f.h, f.w}, f.dtype, []int{1, f.c, f.h, f.w}, nil, nil)
}

// fillFromFirst copies what only the first frame's file knows into the
// metadata: a PNG palette, or a TIFF frame's pixel spacing and palette.
func (s *Source) fillFromFirst(ctx context.Context) error {
	switch {
	case s.first.kind == kindPNG && s.first.palette:
		return s.readPNGPalette()
	case s.first.kind == kindTIFF:
		src, err := loader.Open(ctx, s.paths[0])
		if err != nil {
			return err
		}
		defer src.Close()
		fm := src.Meta()
		s.meta.Palette = fm.Palette
		for _, a := range []byte("YX") {
			i, j := s.meta.AxisIndex(a), fm.AxisIndex(a)
			s.meta.Spacing[i], s.meta.Units[i] = fm.Spacing[j], fm.Units[j]
			s.meta.Levels[0].Scale[i] = fm.Spacing[j]
		}
	}
	return nil
}

func (s *Source) readPNGPalette() error {
	f, err := os.Open(s.paths[0])
	if err != nil {
		return loader.StripPath(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		return err
	}
	s.meta.Palette = paletteOf(cfg.ColorModel)
	return nil
}

// Meta describes the sequence. It is safe for concurrent use.
func (s *Source) Meta() *loader.Meta { return s.meta }

// Len is the number of frames.
func (s *Source) Len() int { return len(s.paths) }

// Frame returns the file name of frame i, relative to the folder or to the
// pattern's fixed directory.
func (s *Source) Frame(i int) string { return s.names[i] }

// Close releases nothing: frames are opened while they are read.
func (s *Source) Close() error { return nil }

// ReadChunk decodes frame idx[0] into dst (the chunk of level 0 is one whole
// frame). It is safe for concurrent use.
func (s *Source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	if err := s.readFrame(ctx, idx[0], dst); err != nil {
		return s.frameError(idx[0], err)
	}
	return nil
}

// readFrame decodes frame i into dst.
func (s *Source) readFrame(ctx context.Context, i int, dst []byte) error {
	f, err := os.Open(s.paths[i])
	if err != nil {
		return loader.StripPath(err)
	}
	defer f.Close()
	var head [8]byte
	n, _ := io.ReadFull(f, head[:])
	k := sniff(head[:n])
	if k == kindTIFF {
		f.Close()
		return readTIFF(ctx, s.paths[i], &s.first, dst)
	}
	if k == kindUnknown {
		return errNotImage
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() > maxFrameBytes {
		return fmt.Errorf("file of %d bytes is too large for one frame", st.Size())
	}
	data := make([]byte, st.Size())
	n, err = f.ReadAt(data, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	data = data[:n]
	if err := ctx.Err(); err != nil {
		return err
	}
	return decodeFrame(data, &s.first, dst)
}

// FrameError reports a frame file that cannot be read or that disagrees
// with the first frame in size or sample type.
type FrameError struct {
	Frame string // file name relative to the folder or pattern
	Err   error
}

func (e *FrameError) Error() string { return e.Frame + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *FrameError) Unwrap() error { return e.Err }

// frameError names frame i in err, and the first frame in a mismatch.
func (s *Source) frameError(i int, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var mm *mismatchError
	if errors.As(err, &mm) {
		err = fmt.Errorf("%v, but %s is %v", &mm.got, s.names[0], &mm.want)
	}
	return &FrameError{Frame: s.names[i], Err: err}
}
