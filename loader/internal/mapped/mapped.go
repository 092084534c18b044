// Package mapped is what the readers of a mapped file that holds several
// series (a LIF file's images, a CZI file's scenes) share: the headers
// parsed once into a Catalogue that the sources of all its series share,
// and each source with a mapping of its own, so that series open, read
// and close independently of each other.
package mapped

import (
	"context"
	"fmt"
	"sync"

	"vastview/loader"
)

// Catalogue is what a file's headers say: its series (I describes where
// one's samples are), immutable once parsed.
type Catalogue[I any] struct {
	Format string         // the format's name, for errors
	Path   string         // the file, mapped anew for each series opened
	Size   int64          // the file's size when parsed
	Series []I            // the series, in the order of Meta.Series
	Metas  []*loader.Meta // the series' metadata
	// New makes the format's source over a series from its shared part.
	New func(*Series[I]) loader.Source
}

// Open maps the file at path, parses its headers with parse (which does
// not keep f) and opens its first series. Errors do not repeat the path;
// it returns ctx.Err() if ctx ends first.
func Open[I any](ctx context.Context, path string, parse func(f *loader.File) (*Catalogue[I], error)) (loader.Source, error) {
	f, err := loader.OpenFile(path)
	if err != nil {
		return nil, err
	}
	c, err := parse(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	c.Path = path
	if err := ctx.Err(); err != nil {
		f.Close()
		return nil, err
	}
	return c.open(f, 0)
}

// List fills in the Series and SeriesIndex of every series' metadata from
// names, one per series: the list, or none for a file of one series.
func (c *Catalogue[I]) List(names []string) {
	series := loader.SeriesList(names, c.Metas)
	if len(series) == 1 {
		series = nil
	}
	for i, m := range c.Metas {
		m.Series, m.SeriesIndex = series, i
	}
}

// open returns the source over series i, reading the mapped file f
// (which it then owns).
func (c *Catalogue[I]) open(f *loader.File, i int) (loader.Source, error) {
	if f.Size() != c.Size {
		f.Close()
		return nil, &loader.FormatError{Format: c.Format, Msg: loader.ErrChanged.Error()}
	}
	return c.New(&Series[I]{Cat: c, Image: c.Series[i], File: f, meta: c.Metas[i]}), nil
}

// Series is the shared part of a source over one series: the catalogue,
// the series, and the file mapped for this source alone. A format's
// source embeds it and adds ReadChunk, which reads File under its Guard.
type Series[I any] struct {
	Cat   *Catalogue[I]
	Image I
	File  *loader.File

	meta      *loader.Meta
	closeOnce sync.Once
	closeErr  error
}

// Meta describes the series.
func (s *Series[I]) Meta() *loader.Meta { return s.meta }

// OpenSeries opens series i of the file, mapping it anew (see
// loader.SeriesOpener).
func (s *Series[I]) OpenSeries(ctx context.Context, i int) (loader.Source, error) {
	if i < 0 || i >= len(s.Cat.Series) {
		return nil, fmt.Errorf("no series %d (the file holds %d)", i, len(s.Cat.Series))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := loader.OpenFile(s.Cat.Path)
	if err != nil {
		return nil, err
	}
	return s.Cat.open(f, i)
}

// Close unmaps the file. It is safe to call more than once; reads after
// it find no bytes.
func (s *Series[I]) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.File.Close() })
	return s.closeErr
}
