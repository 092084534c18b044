package tiff

import (
	"context"
	"fmt"
	"os"

	"vastview/loader"
)

// A file whose pages differ in shape or sample type holds several images:
// it opens as series, grouped the way tifffile groups them. In a file that
// tifffile wrote with shape descriptions, each series is the run of pages
// from one described page to the next (its description gives its axes);
// in other files pages alike make one series, wherever they lie, in the
// order of their first pages. Series 0 holds page 0 and opens by default.
//
// Finding them needs each page's key, which only a walk of the chain gives.
// A file without a page count in its metadata is walked at open anyway
// (unless its uniform layout gives its pages by arithmetic, which makes
// its pages alike). A file with tifffile's shape description declares how
// many pages its first series has; the pages after those are walked at
// open, and so are the first series' own when they are at most
// maxSurveyed and not found by arithmetic. Pages of ImageJ and OME-TIFF
// files are the images their metadata describes; pages after those are
// not read.

// maxSurveyed is the largest first series of a described file whose pages
// are walked at open to find the series after it (a longer one is indexed
// in the background, and series after it are not listed).
const maxSurveyed = 4096

// walked is what index's walk of the chain at open found besides the
// pages: their keys, and where the chain goes on after them (0 at its end).
type walked struct {
	keys []pageKey
	next int64
}

// seriesPlan is where each series of a file lies, shared by the sources of
// its series. It is not changed once made.
type seriesPlan struct {
	list    []loader.Series
	offs    [][]int64 // each series' stack pages; nil for series 0 when indexed otherwise
	layouts []*layout
}

// findSeries finds the series of the file from what index found, l being
// the layout of its pages (or of its first series). It returns the layout
// of series 0, and when there are several, sets s.plan and s.idx to list
// series 0's pages.
func (s *source) findSeries(l *layout) (*layout, error) {
	shaped := l != nil && l.shaped
	var keys []pageKey
	var rest int64
	switch x := s.idx; {
	case s.walked != nil:
		keys, rest = s.walked.keys, s.walked.next
	case shaped && x.mode == modeStride && x.present == x.n:
		if _, next, err := s.f.ifdHead(x.offsetOf(x.n - 1)); err == nil {
			rest = next
		}
	}
	var groups [][]int64
	switch {
	case rest != 0:
		// Series 0 is the pages its description counts; the others follow.
		offs, keys, _, err := survey(s.f, s.chainReader(), rest, 0)
		if err != nil && !isTruncated(err) {
			return nil, err
		}
		groups = append(groups, nil)
		for _, g := range groupPages(keys, true) {
			groups = append(groups, pick(offs, g))
		}
	case keys != nil:
		gs := groupPages(keys, shaped)
		if len(gs) <= 1 {
			return l, nil
		}
		for _, g := range gs {
			groups = append(groups, pick(s.idx.offs, g))
		}
		s.idx.setList(groups[0])
		l = s.fit(l, len(groups[0]))
	}
	if len(groups) <= 1 {
		return l, nil
	}
	plan := &seriesPlan{offs: groups, layouts: []*layout{l}}
	metas := []*loader.Meta{}
	m0, _, _ := buildMeta(s.p0, l)
	metas = append(metas, m0)
	for i, offs := range groups[1:] {
		p, err := s.f.parsePage(offs[0])
		if err != nil {
			return nil, fmt.Errorf("series %d: %w", i+1, err)
		}
		sl := s.seriesLayout(p, len(offs), shaped)
		m, _, _ := buildMeta(p, sl)
		metas = append(metas, m)
		plan.layouts = append(plan.layouts, sl)
	}
	plan.list = loader.SeriesList(nil, metas)
	s.plan = plan
	return l, nil
}

// pick returns the offsets of offs at the indexes idx.
func pick(offs []int64, idx []int) []int64 {
	out := make([]int64, len(idx))
	for i, k := range idx {
		out[i] = offs[k]
	}
	return out
}

// seriesLayout is the layout of a series of n pages from page p on: the
// one p's shape description gives when it describes n pages, else a stack.
func (s *source) seriesLayout(p *page, n int, shaped bool) *layout {
	if shaped {
		if l := shapedLayout(s.f.ascii(p.desc, maxOMEBytes), p); l != nil && l.pages == n {
			return l
		}
	}
	return plainLayout(n)
}

// OpenSeries implements loader.SeriesOpener.
func (s *source) OpenSeries(ctx context.Context, i int) (loader.Source, error) {
	if s.plan == nil || i < 0 || i >= len(s.plan.list) {
		return nil, fmt.Errorf("tiff: no series %d", i)
	}
	if s.plan.offs[i] == nil {
		return Open(ctx, s.path)
	}
	lf, err := loader.OpenFile(s.path)
	if err != nil {
		return nil, err
	}
	t := &source{lf: lf, idx: &pageIndex{}, path: s.path, plan: s.plan}
	if err := t.openSeries(i); err != nil {
		t.closeFile()
		lf.Close()
		return nil, changed(t.shrunk(err))
	}
	return t, nil
}

// openSeries opens series i of the plan from its pages' offsets.
func (s *source) openSeries(i int) (err error) {
	defer s.lf.Guard().Recover(&err)
	lf := s.lf
	b, err := lf.Bytes(0, lf.Size())
	if err != nil {
		return err
	}
	f, _, err := parseHeader(b)
	if err != nil {
		return err
	}
	offs := s.plan.offs[i]
	p0, err := f.parsePage(offs[0])
	if err != nil {
		return err
	}
	if fh, err := os.Open(s.path); err == nil {
		s.fh = fh
	}
	s.f, s.p0 = f, p0
	s.idx.setList(offs)
	return s.describe(s.plan.layouts[i], i)
}
