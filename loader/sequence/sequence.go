// Package sequence reads single PNG, JPEG, GIF and BMP files (see Picture
// and GIF), and a folder (or glob pattern) of such files or of TIFF files
// as one array, one frame per file in natural order (frame2 before
// frame10).
//
// Frames are a Z stack: axes "ZYX" for gray frames, or "ZCYX" for colour
// frames, whose C axis holds red, green and blue (Meta.RGB), or for
// multi-channel TIFF frames. Every frame must be like the first: the same
// size, sample type and colour (a gray frame among colour ones is an error
// naming both files). Opening lists the folder and reads the first frame's
// header only; each ReadChunk decodes one file.
//
// Importing the package registers the formats "png", "jpeg", "gif", "bmp"
// (by their magic bytes) and "sequence" (folders and patterns) with
// loader.Open. TIFF frames are opened with loader.Open, so a TIFF reader
// must be registered too for folders of TIFF files.
package sequence

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"vastview/loader"
)

// formats are the pictures and the folder of frames as the registry knows
// them: each picture by its signature, the frames as any folder (one that a
// format claims by a marker, a Zarr store say, is that format's) or glob
// pattern.
var formats = []loader.Format{
	{Name: "sequence", Titles: []string{"folder", "glob"}, Open: openSequence,
		Folder: func(string) bool { return true }, Patterns: true, FrameExts: frameExts},
	{Name: "png", Titles: []string{"PNG"}, Open: openPicture, Exts: []string{".png"},
		Magic: []loader.Magic{{Bytes: string(pngMagic)}}},
	{Name: "jpeg", Titles: []string{"JPEG"}, Open: openPicture, Exts: []string{".jpg", ".jpeg"},
		Magic: []loader.Magic{{Bytes: string(jpegMagic)}}},
	{Name: "bmp", Titles: []string{"BMP"}, Open: openPicture, Exts: []string{".bmp"},
		Magic: bmpMagic()},
	{Name: "gif", Titles: []string{"GIF"}, Open: openGIF, Exts: []string{".gif"},
		Magic: []loader.Magic{{Bytes: "GIF87a"}, {Bytes: "GIF89a"}}},
}

func init() {
	for _, f := range formats {
		loader.Register(f)
	}
}

// bmpMagic are the signatures of BMP files: "BM" and a known info header
// length at byte 14.
func bmpMagic() []loader.Magic {
	var out []loader.Magic
	for _, n := range slices.Sorted(maps.Keys(bmpHeaderSizes)) {
		out = append(out, loader.Magic{Bytes: "BM????????????" + string(binary.LittleEndian.AppendUint32(nil, n))})
	}
	return out
}

// The Open functions of the formats, returning loader.Source.
func openSequence(ctx context.Context, path string) (loader.Source, error) {
	return nonNil(Open(ctx, path))
}
func openPicture(ctx context.Context, path string) (loader.Source, error) {
	return nonNil(OpenPicture(ctx, path))
}
func openGIF(ctx context.Context, path string) (loader.Source, error) {
	return nonNil(OpenGIF(ctx, path))
}

// nonNil returns src as a loader.Source, or a nil Source on error.
func nonNil[S loader.Source](src S, err error) (loader.Source, error) {
	if err != nil {
		return nil, err
	}
	return src, nil
}

// Match reports whether path is a glob pattern or a folder (head is nil for
// both), leaving aside other formats: a folder a format claims by a marker
// (a Zarr store) is that format's. It is safe for concurrent use.
func Match(path string, head []byte) bool { return formats[0].Claims(path, head) }

// Source is an opened image sequence. It is safe for concurrent use.
type Source struct {
	paths  []string // frame files in order
	names  []string // frame names for messages, relative to the folder
	first  frameInfo
	meta   *loader.Meta
	closed loader.Closing // a read after Close is ErrClosed
}

// Open lists the frames of a folder or glob pattern and reads the first
// frame's header. Errors do not repeat the path.
func Open(ctx context.Context, path string) (*Source, error) {
	var names []string
	var err error
	dir := path
	if loader.IsPattern(path) {
		_, names, err = listPattern(path)
		dir = patternBase(path)
	} else {
		_, names, err = listFolder(path)
	}
	if err != nil {
		return nil, loader.StripPath(err)
	}
	// A frame that is a link leading out of the folder is refused when
	// serving (like a companion file outside) and noted when viewing.
	paths, note, err := loader.Members(ctx, dir, "the frame", names)
	if err != nil {
		return nil, err
	}
	s := &Source{paths: paths, names: names}
	if s.first, err = readHeader(ctx, paths[0]); err != nil {
		return nil, &FrameError{Frame: names[0], Err: err}
	}
	s.meta = newMeta(len(paths), &s.first)
	if note != "" {
		s.meta.Notes = append(s.meta.Notes, note)
	}
	if err := s.fillFromFirst(ctx); err != nil {
		return nil, &FrameError{Frame: names[0], Err: err}
	}
	return s, nil
}

// newMeta describes n frames like f.
func newMeta(n int, f *frameInfo) *loader.Meta {
	var m *loader.Meta
	if f.c == 1 {
		m = loader.NewMeta("sequence", "ZYX", []int{n, f.h, f.w}, f.dtype, []int{1, f.h, f.w}, nil, nil)
	} else {
		m = loader.NewMeta("sequence", "ZCYX", []int{n, f.c, f.h, f.w}, f.dtype, []int{1, f.c, f.h, f.w}, nil, nil)
	}
	describe(m, f)
	return m
}

// fillFromFirst copies what only the first frame's file knows into the
// metadata: a TIFF frame's pixel spacing, palette and colour.
func (s *Source) fillFromFirst(ctx context.Context) error {
	if s.first.kind != kindTIFF {
		return nil
	}
	src, err := loader.Open(ctx, s.paths[0])
	if err != nil {
		return err
	}
	defer src.Close()
	fm := src.Meta()
	s.meta.Palette, s.meta.RGB = fm.Palette, fm.RGB
	for _, a := range []byte("YX") {
		i, j := s.meta.AxisIndex(a), fm.AxisIndex(a)
		s.meta.Spacing[i], s.meta.Units[i] = fm.Spacing[j], fm.Units[j]
		s.meta.Levels[0].Scale[i] = fm.Spacing[j]
	}
	return nil
}

// Meta describes the sequence. It is safe for concurrent use.
func (s *Source) Meta() *loader.Meta { return s.meta }

// Len is the number of frames.
func (s *Source) Len() int { return len(s.paths) }

// Frame returns the file name of frame i, relative to the folder or to the
// pattern's fixed directory.
func (s *Source) Frame(i int) string { return s.names[i] }

// Close ends reading; it releases nothing, as frames are opened while they
// are read.
func (s *Source) Close() error {
	s.closed.SetClosed()
	return nil
}

// ReadChunk decodes frame idx[0] into dst (the chunk of level 0 is one whole
// frame). It is safe for concurrent use.
func (s *Source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	if err := s.closed.Closed(); err != nil {
		return err
	}
	if err := s.readFrame(ctx, idx[0], dst); err != nil {
		return s.frameError(idx[0], err)
	}
	return nil
}

// readFrame decodes frame i into dst.
func (s *Source) readFrame(ctx context.Context, i int, dst []byte) error {
	var head [18]byte // enough for sniff
	n, _, err := readHead(s.paths[i], head[:])
	if err != nil {
		return loader.StripPath(err)
	}
	switch sniff(head[:n]) {
	case kindUnknown:
		return errNotImage
	case kindTIFF:
		return readTIFF(ctx, s.paths[i], &s.first, dst)
	}
	data, err := readWhole(s.paths[i])
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if sniff(data) == kindGIF {
		return decodeGIFFrame(data, &s.first, dst)
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
