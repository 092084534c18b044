package tiff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"vastview/loader"
)

// source is an opened TIFF stack. Pages other than page 0 are parsed when
// read. It is safe for concurrent use.
type source struct {
	mu     sync.RWMutex // held for reading while the mapping is used
	closed bool
	lf     *loader.File
	fh     *os.File // the same file for positioned reads, or nil
	f      *file
	p0     *page
	idx    *pageIndex
	bands  banding // how strip pages are cut into chunks
	meta   *loader.Meta

	levels    []*page // page 0's SubIFD of each level above 0
	pageAxes  []int   // meta axes that step through pages, slowest first
	pageDims  []int
	cAxis     int // meta axis of the samples, -1 if none
	closeOnce sync.Once
	streams   streams // decoders of strips read in bands, where they stopped

	path   string
	walked *walked     // the chain as index walked it at open, or nil
	plan   *seriesPlan // the file's series when it holds several, or nil
}

// newSource parses the mapped TIFF lf (opened from path) and indexes its
// pages. A fault on the mapping (the file shrank while it was parsed) is a
// truncated error.
func newSource(lf *loader.File, path string, bands banding) (*source, error) {
	s := &source{lf: lf, idx: &pageIndex{}, path: path, bands: bands}
	if err := s.open(path); err != nil {
		s.idx.close()
		s.closeFile()
		return nil, changed(s.shrunk(err))
	}
	return s, nil
}

// open parses the header and page 0, indexes the pages and builds the
// metadata, reading the mapping under its guard.
func (s *source) open(path string) (err error) {
	defer s.lf.Guard().Recover(&err)
	lf := s.lf
	if lf.Size() < 8 {
		return truncErr("file of %d bytes is too short for a TIFF header", lf.Size())
	}
	b, err := lf.Bytes(0, lf.Size())
	if err != nil {
		return err
	}
	f, first, err := parseHeader(b)
	if err != nil {
		return err
	}
	f.bands = s.bands
	p0, err := f.parsePage(first)
	if err != nil {
		return err
	}
	s.f, s.p0 = f, p0
	if fh, err := os.Open(path); err == nil {
		s.fh = fh
	}
	l, err := s.index()
	if err != nil {
		return err
	}
	if l, err = s.findSeries(l); err != nil {
		return err
	}
	return s.describe(l, 0)
}

// describe builds the metadata of series i (0 for a file of one) from its
// first page, s.p0, and its layout l.
func (s *source) describe(l *layout, i int) error {
	f, p0 := s.f, s.p0
	m, pageAxes, cAxis := buildMeta(p0, l)
	if s.plan != nil {
		m.Series, m.SeriesIndex = s.plan.list, i
	}
	if p0.photometric == 3 {
		m.Palette = f.palette(p0)
		if p0.spp == 2 {
			m.Notes = append(m.Notes, "palette colour with alpha: C 0 holds the palette indices, C 1 the alpha")
		}
	}
	// YCbCr is read as RGB (see jpeg.go).
	m.RGB = (p0.photometric == 2 || p0.photometric == 6) && p0.spp >= 3 && m.Size('C') == p0.spp
	if s.idx.mode != modeContiguous {
		// Pages found by arithmetic have no SubIFDs of their own.
		s.levels = s.subLevels(m)
	}
	if err := m.Validate(); err != nil {
		return formatErr("%v", err)
	}
	s.meta, s.pageAxes, s.cAxis = m, pageAxes, cAxis
	for _, a := range pageAxes {
		s.pageDims = append(s.pageDims, m.Shape[a])
	}
	return nil
}

// index finds the pages of the stack and returns their layout: by the
// metadata when it gives a page count (pages the file does not hold, or
// holds only in part, are missing: reading them fails), else as a plain Z
// stack of the pages whose IFDs the file holds.
func (s *source) index() (*layout, error) {
	l := s.f.metaLayout(s.p0)
	hint := 0
	if l != nil && l.pages > 1 {
		hint = l.pages
	}
	if s.p0.next == 0 {
		return s.indexOne(l, hint)
	}
	if s.byArithmetic(l, hint) {
		return s.fit(l, s.idx.n), nil
	}
	return s.indexChain(l, hint)
}

// indexOne indexes a file with one IFD: the images the metadata says lie
// back to back, else page 0 of the pages the metadata declares (the others
// are missing), else one page.
func (s *source) indexOne(l *layout, hint int) (*layout, error) {
	x := s.idx
	if hint > 0 && l.contiguous {
		if ok, err := x.tryContiguous(s.f, s.p0, hint); ok || err != nil {
			return l, err
		}
	}
	x.mode, x.n, x.offs = modeList, max(1, hint), []int64{s.p0.ifd}
	x.done = true
	return s.fit(l, x.n), nil
}

// byArithmetic tries the modes that find pages without walking the chain.
func (s *source) byArithmetic(l *layout, hint int) bool {
	f, p0, x := s.f, s.p0, s.idx
	if hint > 0 && l.contiguous && x.tryContiguousCut(f, p0, hint) {
		return true
	}
	if hint > 0 && x.tryStride(f, p0, hint) {
		return true
	}
	return x.tryStride(f, p0, 0)
}

// indexChain lists the pages by walking the IFD chain: in the background
// when the metadata gives the page count, else now. A chain cut off by the
// end of the file keeps the pages walked.
func (s *source) indexChain(l *layout, hint int) (*layout, error) {
	f, p0, x := s.f, s.p0, s.idx
	r := s.chainReader()
	if hint > 0 && !(l.shaped && hint <= maxSurveyed) {
		x.n = hint
		x.walkList(f, r, p0.ifd, hint)
		return l, nil
	}
	offs, keys, next, err := survey(f, r, p0.ifd, hint)
	if err != nil && !isTruncated(err) {
		return nil, err
	}
	x.setList(offs)
	s.walked = &walked{keys: keys, next: next}
	if hint > 0 {
		x.n = hint
		return l, nil
	}
	return s.fit(l, x.n), nil
}

// chainReader returns what the IFD chain is walked with: positioned reads
// of the file where it could be opened again (see walker), else the mapping.
func (s *source) chainReader() io.ReaderAt {
	if s.fh != nil {
		return s.fh
	}
	return s.lf
}

// fit returns l if it describes n pages, else a plain stack of n pages.
func (s *source) fit(l *layout, n int) *layout {
	if l != nil && l.pages == n {
		return l
	}
	return plainLayout(n)
}

func (s *source) closeFile() {
	if s.fh != nil {
		s.fh.Close()
	}
}

// Meta implements loader.Source.
func (s *source) Meta() *loader.Meta { return s.meta }

// Close stops background indexing and unmaps the file.
func (s *source) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.idx.close()
		s.mu.Lock()
		s.closed = true
		s.streams.drop()
		s.closeFile()
		err = s.lf.Close()
		s.mu.Unlock()
	})
	return err
}

// ReadChunk implements loader.Source.
func (s *source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	k := 0
	for i, a := range s.pageAxes {
		k = k*s.pageDims[i] + idx[a]
	}
	ifd, shift, err := s.idx.locate(ctx, k)
	if err != nil {
		return err
	}
	if err := s.read(ctx, k, ifd, shift, level, idx, dst); err != loader.ErrChanged {
		return err
	}
	return inPage(k, changed(loader.ErrChanged))
}

// shrunk returns loader.ErrChanged for an error reading a file that has
// shrunk since it was mapped (the error is about bytes it lost, or zeros
// the mapping shows in their place), else err.
func (s *source) shrunk(err error) error {
	if err == nil || err == loader.ErrChanged || isTruncated(err) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || !s.lf.Shrunk() {
		return err
	}
	return loader.ErrChanged
}

// read fills dst with the chunk at idx of level, on page k (whose IFD is at
// ifd, its blocks shifted by shift), reading the mapping under its guard;
// it fails with loader.ErrChanged if the file has shrunk under it.
func (s *source) read(ctx context.Context, k int, ifd, shift int64, level int, idx []int, dst []byte) (err error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return errClosed
	}
	defer func() { err = s.shrunk(err) }()
	defer s.lf.Guard().Recover(&err)
	p, err := s.page(k, ifd, shift)
	if err == nil && level > 0 {
		p, err = s.levelPage(k, p, level)
	}
	if err != nil {
		return err
	}

	plane := 0
	if s.cAxis >= 0 && p.planar {
		plane = idx[s.cAxis]
	}
	n := len(idx)
	if p.tiled {
		err = s.readTile(ctx, p, plane, idx[n-2], idx[n-1], dst)
	} else {
		y0 := idx[n-2] * s.meta.Levels[level].Chunk[n-2]
		err = s.readRows(ctx, p, plane, y0, s.meta.Levels[level].Chunk[n-2], dst)
	}
	return inPage(k, err)
}

// levelPage returns the SubIFD of page p (page k) that holds level.
func (s *source) levelPage(k int, p *page, level int) (*page, error) {
	sp, err := s.f.subPage(p, level-1)
	if err != nil {
		return nil, inPage(k, err)
	}
	if !s.levels[level-1].sameLayout(sp) {
		return nil, inPage(k, formatErr("level %d differs from page 0's", level))
	}
	return sp, nil
}

// inPage prefixes a format error with the page it concerns.
func inPage(k int, err error) error {
	var tr *truncated
	if errors.As(err, &tr) {
		fe := tr.fe
		fe.Msg = fmt.Sprintf("page %d: %s", k, fe.Msg)
		return &truncated{fe, tr.cause}
	}
	var fe *loader.FormatError
	if errors.As(err, &fe) {
		return &loader.FormatError{Format: fe.Format, Msg: fmt.Sprintf("page %d: %s", k, fe.Msg)}
	}
	return err
}

// page returns page k, parsed from its IFD and checked against page 0.
func (s *source) page(k int, ifd, shift int64) (*page, error) {
	if k == 0 {
		return s.p0, nil
	}
	if s.idx.mode == modeContiguous {
		p := *s.p0
		p.shift = shift
		return &p, nil
	}
	p, err := s.f.parsePage(ifd)
	if err != nil {
		return nil, inPage(k, err)
	}
	if !s.p0.sameLayout(p) {
		return nil, inPage(k, formatErr("%dx%d %s with %d samples per pixel differs from page 0", p.width, p.height, p.dtype, p.spp))
	}
	if want := s.idx.nextOf(k); want >= 0 && p.next != want {
		return nil, inPage(k+1, formatErr("not where the uniform page layout puts it"))
	}
	return p, nil
}
