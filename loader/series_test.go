package loader

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// threeImages is a file of three images, "a" 4×4, "b" 2×8 and "c" 1×1,
// whose samples are the series index.
type threeImages struct {
	meta   *Meta
	closed *int
}

func openThree(i int, closed *int) *threeImages {
	names := []string{"a", "b", "Cells 1"}
	shapes := [][]int{{4, 4}, {2, 8}, {1, 1}}
	var metas []*Meta
	for _, s := range shapes {
		metas = append(metas, NewMeta("threetest", "YX", s, Uint8, s, nil, nil))
	}
	m := metas[i]
	m.Series, m.SeriesIndex = SeriesList(names, metas), i
	return &threeImages{meta: m, closed: closed}
}

func (s *threeImages) Meta() *Meta { return s.meta }
func (s *threeImages) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	for i := range dst {
		dst[i] = byte(s.meta.SeriesIndex)
	}
	return nil
}
func (s *threeImages) Close() error { *s.closed++; return nil }
func (s *threeImages) OpenSeries(_ context.Context, i int) (Source, error) {
	return openThree(i, s.closed), nil
}

var threeClosed int

func init() {
	Register(Format{Name: "threetest", Exts: []string{".three"}, ByName: true,
		Open: func(context.Context, string) (Source, error) { return openThree(0, &threeClosed), nil }})
}

// TestOpenSelectsASeries opens each image of a file of three by index and
// by name, and refuses a selector that names none with the list of what
// the file holds.
func TestOpenSelectsASeries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.three")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sel  string
		want int
	}{{"", 0}, {"#0", 0}, {"#1", 1}, {"#b", 1}, {"#2", 2}, {"#Cells 1", 2}, {"#cells 1", 2}} {
		before := threeClosed
		src, err := Open(context.Background(), path+c.sel)
		if err != nil {
			t.Fatalf("%q: %v", c.sel, err)
		}
		m := src.Meta()
		if m.SeriesIndex != c.want || len(m.Series) != 3 || m.Series[c.want].Selector != []string{"0", "1", "2"}[c.want] {
			t.Errorf("%q: series %d of %v, want %d", c.sel, m.SeriesIndex, m.Series, c.want)
		}
		b, err := ReadAll(context.Background(), src, 0, 1<<20)
		if err != nil || b[0] != byte(c.want) {
			t.Errorf("%q: read %v, %v", c.sel, b[:1], err)
		}
		src.Close()
		// The first image, opened to learn the list, is closed when
		// another is asked for.
		if opened := 1 + btoi(c.want != 0); threeClosed-before != opened {
			t.Errorf("%q: %d sources closed, want %d", c.sel, threeClosed-before, opened)
		}
	}
	_, err := Open(context.Background(), path+"#9")
	if err == nil || !strings.Contains(err.Error(), `no series "9": the file holds 3 (#0 "a", #1 "b", #2 "Cells 1")`) {
		t.Errorf("#9: %v", err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSplitSelector keeps a '#' that is part of an existing file's name and
// takes a URL's fragment as its selector.
func TestSplitSelector(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "scan#3.tif")
	if err := os.WriteFile(odd, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, file, sel string }{
		{odd, odd, ""},
		{odd + "#1", odd, "1"},
		{filepath.Join(dir, "a.lif#xz"), filepath.Join(dir, "a.lif"), "xz"},
		{"https://h/a.czi#2", "https://h/a.czi", "2"},
		{"s3://b/k#x/a.zarr#1", "s3://b/k#x/a.zarr", "1"},
		{"plain.tif", "plain.tif", ""},
	} {
		if f, s := SplitSelector(c.in); f != c.file || s != c.sel {
			t.Errorf("%q: %q %q, want %q %q", c.in, f, s, c.file, c.sel)
		}
	}
}

// TestOneImageHasOnlySeriesZero: a file of one image takes "#0" and refuses
// any other selector in one line.
func TestOneImageHasOnlySeriesZero(t *testing.T) {
	if i, err := SeriesIndex(nil, "0"); i != 0 || err != nil {
		t.Errorf("#0: %d %v", i, err)
	}
	if _, err := SeriesIndex(nil, "1"); err == nil || err.Error() != `no series "1": the file holds one image (#0)` {
		t.Errorf("#1: %v", err)
	}
}

// TestSeriesByName: a name selects its series exactly, then ignoring case,
// then, for a path from "/", without its leading slash; an index wins.
func TestSeriesByName(t *testing.T) {
	list := []Series{{Name: "/raw/data"}, {Name: "Cells"}, {Name: "/2"}}
	for sel, want := range map[string]int{"/raw/data": 0, "raw/data": 0, "cells": 1, "Cells": 1, "2": 2, "1": 1} {
		if i, err := SeriesIndex(list, sel); err != nil || i != want {
			t.Errorf("%q: series %d, %v; want %d", sel, i, err, want)
		}
	}
	if _, err := SeriesIndex(list, "raw"); err == nil {
		t.Error(`"raw" selected a series`)
	}
}
