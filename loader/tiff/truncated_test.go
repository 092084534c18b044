package tiff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"vastview/base/nd"
	"vastview/base/testtool"
	"vastview/loader"
)

// truncFixtures writes whole files, each a stack of 12 pages (or a single
// page) in one of the layouts writers use, and the raw frames ImageMagick
// turns into stacks.
const truncFixtures = `
rng = np.random.default_rng(11)
def ints(dt, shape):
    i = np.iinfo(dt)
    return rng.integers(i.min, i.max, shape, dtype=dt, endpoint=True)
mb = dict(photometric='minisblack')
def w(name, data, **kw):
    tifffile.imwrite(d + '/' + name + '.tif', data, **kw)
# Images back to back after page 0's, the IFDs of the others after them.
w('shaped', ints(np.uint16, (12, 30, 40)), **mb)
w('shaped_strips', ints(np.uint16, (12, 30, 40)), rowsperstrip=8, **mb)
w('shaped_big', ints(np.uint16, (12, 30, 40)), bigtiff=True, **mb)
w('shaped_be', ints(np.uint16, (12, 30, 40)), byteorder='>', **mb)
w('rgb', ints(np.uint8, (12, 20, 30, 3)), photometric='rgb')
w('imagej', ints(np.uint16, (2, 3, 2, 30, 40)), imagej=True, metadata={'axes': 'TZCYX'})
# tifffile writes OME-XML at the end of the file; other writers before
# the images.
w('ome_end', ints(np.uint16, (3, 4, 30, 40)), ome=True, metadata={'axes': 'CZYX'})
with tifffile.TiffFile(d + '/ome_end.tif') as tf:
    xml = tf.pages[0].description
w('ome', ints(np.uint16, (3, 4, 30, 40)), description=xml, metadata=None, **mb)
w('example', ints(np.uint16, (40, 300, 400)))
with tifffile.TiffWriter(d + '/pyramid.tif') as tw:
    p = ints(np.uint16, (12, 32, 40))
    tw.write(p, subifds=1, **mb)
    tw.write(p[:, ::2, ::2], subfiletype=1, **mb)
# As ImageJ writes stacks over 4 GB: one IFD, the images after it.
w('imagej_one', ints(np.uint16, (12, 30, 40)), imagej=True, metadata={'axes': 'ZYX'})
with tifffile.TiffFile(d + '/imagej_one.tif') as tf:
    p = tf.pages[0]
    nextpos = p.offset + 2 + 12 * len(p.tags)
with open(d + '/imagej_one.tif', 'r+b') as f:
    f.seek(nextpos)
    f.write(b'\0\0\0\0')
# Each page's IFD before its data, at a constant stride.
def pages(name, data, **kw):
    with tifffile.TiffWriter(d + '/' + name + '.tif', bigtiff=kw.pop('bigtiff', False), byteorder=kw.pop('byteorder', None)) as tw:
        for k in range(len(data)):
            tw.write(data[k], contiguous=False, **kw)
a = ints(np.uint16, (12, 30, 40))
pages('interleaved', a, metadata=None, **mb)
pages('interleaved_big', a, metadata=None, bigtiff=True, **mb)
pages('interleaved_be', a, metadata=None, byteorder='>', **mb)
with tifffile.TiffWriter(d + '/interleaved_ij.tif') as tw:
    for k in range(12):
        desc = 'ImageJ=1.11a\nimages=12\nslices=12\n' if k == 0 else None
        tw.write(a[k], contiguous=False, description=desc, metadata=None, **mb)
# Compressed: pages of different sizes, found only by walking the chain.
z = np.stack([rng.integers(0, 1 + 20 * k, (30, 40)).astype(np.uint16) for k in range(12)])
w('zlib', z, compression='zlib', **mb)
pages('zlib_pages', z, compression='zlib', metadata=None, **mb)
w('tiled', ints(np.uint16, (12, 32, 48)), tile=(16, 16), **mb)
w('single', ints(np.uint16, (30, 40)), **mb)
z.astype(np.uint8).tofile(d + '/frames.raw')
`

// truncCuts writes copies of each file named in argv[2:] cut at several
// points and prints, per file, where each page's IFD, the IFD entries and
// values the reader needs, and its data end, with the size of each cut.
const truncCuts = `
import sys, json, tifffile, numpy as np
d = sys.argv[1]
res = {}
for name in sys.argv[2:]:
    path = d + '/' + name + '.tif'
    info = []
    with tifffile.TiffFile(path) as tf:
        big = tf.is_bigtiff
        for k, p in enumerate(tf.pages):
            head = p.offset + (8 + 20 * len(p.tags) + 8 if big else 2 + 12 * len(p.tags) + 4)
            need = head
            for code in (258, 273, 279, 324, 325, 339):
                if code in p.tags:
                    t = p.tags[code]
                    need = max(need, t.valueoffset + t.valuebytecount)
            ends = [o + n for o, n in zip(p.dataoffsets, p.databytecounts)]
            info.append({'ifd': p.offset, 'head': head, 'need': need,
                         'start': min(p.dataoffsets), 'end': max(ends)})
        p0 = tf.pages[0]
        meta = p0.tags[270].valueoffset + p0.tags[270].valuebytecount if 270 in p0.tags else 0
        npages = int(np.prod(tf.series[0].shape)) // int(np.prod(p0.shaped))
    # Pages without IFDs, back to back after page 0's data.
    size0 = info[0]['end'] - info[0]['start']
    for k in range(len(info), npages):
        info.append(dict(info[0], start=info[0]['start'] + k * size0, end=info[0]['end'] + k * size0))
    data = open(path, 'rb').read()
    m = len(info) // 2
    page_end = lambda k: max(info[k]['end'], info[k]['need'])
    cuts = {'header': 5, 'ifd0': info[0]['ifd'] + 10,
            'first': info[0]['start'] + (info[0]['end'] - info[0]['start']) // 2 + 1,
            'sixty': len(data) * 6 // 10, 'last': len(data) - 1}
    if len(info) > 1:
        cuts['strip'] = info[m]['start'] + (info[m]['end'] - info[m]['start']) // 2 + 1
        cuts['boundary'] = page_end(m)
        cuts['ifd'] = info[m + 1]['ifd'] + 7
    for c, n in cuts.items():
        open(d + '/' + name + '.' + c + '.tif', 'wb').write(data[:n])
    if 'strip' in cuts:
        # As a writer leaves the file before it links the next IFD: the
        # last IFD the file holds ends the chain.
        n = cuts['writing'] = cuts['strip']
        last = max(k for k, p in enumerate(info) if p['head'] <= n)
        w = 8 if big else 4
        cut = bytearray(data[:n])
        cut[info[last]['head'] - w:info[last]['head']] = bytes(w)
        open(d + '/' + name + '.writing.tif', 'wb').write(cut)
    res[name] = {'pages': info, 'cuts': cuts, 'meta': meta}
json.dump(res, sys.stdout)
`

// pageSpan is where a page lies in a whole file, as tifffile reports it.
type pageSpan struct {
	IFD   int64 `json:"ifd"`   // the IFD
	Head  int64 `json:"head"`  // end of the IFD's entries and next offset
	Need  int64 `json:"need"`  // end of the IFD and the values the reader needs
	Start int64 `json:"start"` // first byte of its data
	End   int64 `json:"end"`   // end of its data
}

type cutFile struct {
	Pages []pageSpan       `json:"pages"`
	Cuts  map[string]int64 `json:"cuts"`
	Meta  int64            `json:"meta"` // end of page 0's ImageDescription
}

// A truncated file's kind says which pages of it are readable and what
// shape it has.
const (
	// kindContiguous: the metadata's shape; a page reads when its data is
	// in the file (its IFD is not needed).
	kindContiguous = iota
	// kindDeclared: the metadata's shape; a page reads when its IFD, the
	// values the reader needs and its data are in the file.
	kindDeclared
	// kindPresent: no page count in the metadata; the shape holds the
	// pages whose IFDs are in the file, and they read as kindDeclared.
	kindPresent
)

// truncCase is a whole file and how its truncated copies read.
type truncCase struct {
	name, axes string // axes of the whole file
	kind       int
	// mode is the index mode of a copy that lacks bytes some page needs
	// but holds the IFDs of at least three pages (-1: not checked).
	mode int
}

var truncCases = []truncCase{
	{"shaped", "ZYX", kindContiguous, modeContiguous},
	{"shaped_strips", "ZYX", kindContiguous, modeContiguous},
	{"shaped_big", "ZYX", kindContiguous, modeContiguous},
	{"shaped_be", "ZYX", kindContiguous, modeContiguous},
	{"rgb", "ZCYX", kindContiguous, modeContiguous},
	{"imagej", "TZCYX", kindContiguous, modeContiguous},
	{"imagej_one", "ZYX", kindContiguous, modeContiguous},
	{"ome", "CZYX", kindContiguous, modeContiguous},
	{"ome_end", "CZYX", kindContiguous, modeContiguous},
	{"example", "ZYX", kindContiguous, modeContiguous},
	{"pyramid", "ZYX", kindContiguous, modeContiguous},
	{"interleaved_ij", "ZYX", kindDeclared, modeStride},
	{"zlib", "ZYX", kindDeclared, modeList},
	{"tiled", "ZYX", kindDeclared, -1},
	{"interleaved", "ZYX", kindPresent, modeStride},
	{"interleaved_big", "ZYX", kindPresent, modeStride},
	{"interleaved_be", "ZYX", kindPresent, modeStride},
	{"zlib_pages", "ZYX", kindPresent, modeList},
	{"single", "YX", kindPresent, -1},
	{"im", "ZYX", kindPresent, modeStride},
	{"im_zip", "ZYX", kindPresent, modeList},
}

// Truncated copies of stacks open with the pages the file holds reading as
// tifffile reads the whole file, and the others failing with
// loader.ErrTruncated naming the page; a file cut inside its header or
// first IFD fails to open with loader.ErrTruncated.
func TestTruncated(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	python(t, dir, truncFixtures)
	raw := filepath.Join(dir, "frames.raw")
	testtool.Run(t, "convert", "-size", "40x30", "-depth", "8", "gray:"+raw, filepath.Join(dir, "im.tif"))
	testtool.Run(t, "convert", "-size", "40x30", "-depth", "8", "gray:"+raw, "-compress", "Zip", filepath.Join(dir, "im_zip.tif"))
	var names, paths []string
	for _, c := range truncCases {
		names = append(names, c.name)
		paths = append(paths, filepath.Join(dir, c.name+".tif"))
	}
	refs := tifffileRead(t, paths...)
	var files map[string]cutFile
	js := testtool.RunPython(t, truncCuts, append([]string{dir}, names...)...)
	if err := json.Unmarshal(js, &files); err != nil {
		t.Fatalf("cuts: %v: %s", err, js)
	}
	for i, c := range truncCases {
		t.Run(c.name, func(t *testing.T) {
			r, cf := refs[paths[i]], files[c.name]
			expectRef(t, paths[i], c.axes, r)
			for _, cut := range sortedCuts(cf.Cuts) {
				t.Run(cut, func(t *testing.T) {
					expectCut(t, filepath.Join(dir, c.name+"."+cut+".tif"), c, r, cf, cf.Cuts[cut])
				})
			}
		})
	}
}

func sortedCuts(cuts map[string]int64) []string {
	var names []string
	for n := range cuts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// expectCut checks the copy at path of a file, cut after size bytes.
func expectCut(t *testing.T, path string, c truncCase, r ref, cf cutFile, size int64) {
	src, err := loader.Open(context.Background(), path)
	if size < cf.Pages[0].Need {
		if err == nil {
			src.Close()
			t.Fatalf("a file cut at %d, inside its header or first IFD (which ends at %d), opens", size, cf.Pages[0].Need)
		}
		expectTruncErr(t, err, "")
		return
	}
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer src.Close()
	if size < cf.Meta {
		// The metadata is cut off: a stack of the pages present.
		c.kind, c.mode = kindPresent, -1
	}
	n := expectCutMeta(t, src.Meta(), c, r, cf.Pages, size)
	if mode := src.(*source).idx.mode; c.mode >= 0 && mode != c.mode &&
		cutShort(c.kind, cf.Pages, size) && presentPages(cf.Pages, size) >= 3 {
		t.Errorf("indexed in mode %d, want %d", mode, c.mode)
	}
	// Missing pages first: reading them must not disturb the others.
	for _, order := range [][]int{descending(n), ascending(n)} {
		for _, k := range order {
			expectCutPage(t, src, r, cf.Pages, k, readable(c.kind, cf.Pages, k, size))
		}
	}
}

// expectCutMeta checks the shape and sample type of a file of c's kind cut
// at size and returns the number of pages it has.
func expectCutMeta(t *testing.T, m *loader.Meta, c truncCase, r ref, pages []pageSpan, size int64) int {
	t.Helper()
	n, axes, shape := len(pages), c.axes, r.Shape
	if c.kind == kindPresent {
		n = presentPages(pages, size)
		dt, err := loader.ParseDType(r.DType)
		if err != nil {
			t.Fatal(err)
		}
		axes, shape = presentShape(c.axes, r.Shape, len(r.Data)/len(pages)/dt.Size(), n)
	}
	if m.Axes != axes || !slices.Equal(m.Shape, shape) || m.DType.String() != r.DType {
		t.Fatalf("meta %s %v %s, want %s %v %s", m.Axes, m.Shape, m.DType, axes, shape, r.DType)
	}
	return n
}

// expectCutPage checks that page k reads as in r, or fails with
// loader.ErrTruncated naming it when it is not all in the file.
func expectCutPage(t *testing.T, src loader.Source, r ref, pages []pageSpan, k int, whole bool) {
	t.Helper()
	got, err := readPage(src, k)
	if !whole {
		if err == nil {
			t.Fatalf("page %d, cut off, reads without error", k)
		}
		expectTruncErr(t, err, fmt.Sprintf("page %d", k))
		return
	}
	if err != nil {
		t.Fatalf("page %d, all in the file: %v", k, err)
	}
	pb := len(r.Data) / len(pages)
	if want := r.Data[k*pb : (k+1)*pb]; !bytes.Equal(got, want) {
		t.Fatalf("page %d differs from tifffile's at byte %d", k, firstDiff(got, want))
	}
}

// cutShort reports whether a file of the given kind cut at size lacks
// bytes that a page needs.
func cutShort(kind int, pages []pageSpan, size int64) bool {
	for k := range pages {
		if !readable(kind, pages, k, size) {
			return true
		}
	}
	return false
}

// presentPages is the number of leading pages whose IFDs (entries and
// next offset) a file cut at size holds.
func presentPages(pages []pageSpan, size int64) int {
	n := 0
	for n < len(pages) && pages[n].Head <= size {
		n++
	}
	return n
}

// presentShape is the shape of the first n pages of a stack of the given
// axes and shape whose pages hold samples each: a Z stack, or one page.
func presentShape(axes string, shape []int, samples, n int) (string, []int) {
	i := len(shape)
	for p := 1; p < samples; p *= shape[i] {
		i--
	}
	if n == 1 {
		return axes[i:], shape[i:]
	}
	return "Z" + axes[i:], append([]int{n}, shape[i:]...)
}

// readable reports whether page k of a file of the given kind, cut at size,
// is all in the file.
func readable(kind int, pages []pageSpan, k int, size int64) bool {
	p := pages[k]
	if kind == kindContiguous {
		return p.End <= size
	}
	return p.Need <= size && p.End <= size
}

// readPage reads page k at level 0, every chunk of it, in C order over the
// axes that do not step through pages.
func readPage(src loader.Source, k int) ([]byte, error) {
	m, pa := src.Meta(), len(src.(*source).pageAxes)
	l := &m.Levels[0]
	idx := make([]int, len(m.Axes))
	for a := pa - 1; a >= 0; a-- {
		idx[a] = k % m.Shape[a]
		k /= m.Shape[a]
	}
	shape, chunk, grid := m.Shape[pa:], l.Chunk[pa:], l.Grid()[pa:]
	es := m.DType.Size()
	out := make([]byte, nd.Product(shape)*es)
	buf := make([]byte, l.ChunkBytes(m.DType))
	g := idx[pa:]
	for {
		if err := src.ReadChunk(context.Background(), 0, idx, buf); err != nil {
			return nil, err
		}
		off, box := make([]int, len(g)), make([]int, len(g))
		for i := range g {
			off[i] = g[i] * chunk[i]
			box[i] = min(chunk[i], shape[i]-off[i])
		}
		nd.CopyBox(out, shape, off, buf, chunk, make([]int, len(g)), box, es)
		if !nd.Next(g, grid) {
			return out, nil
		}
	}
}

// expectTruncErr checks that err is one line, matches loader.ErrTruncated,
// is a *loader.FormatError and names what (e.g. "page 3") as a whole word.
func expectTruncErr(t *testing.T, err error, what string) {
	t.Helper()
	var fe *loader.FormatError
	if !errors.Is(err, loader.ErrTruncated) || !errors.As(err, &fe) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q (%T) is not one line matching loader.ErrTruncated", err, err)
	}
	if what != "" && !regexp.MustCompile(`\b`+what+`\b`).MatchString(err.Error()) {
		t.Fatalf("error %q does not name %s", err, what)
	}
}

func ascending(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func descending(n int) []int {
	s := ascending(n)
	slices.Reverse(s)
	return s
}

// An ImageJ stack over 4 GB (one IFD, the images back to back) cut inside
// its last image: the images the file holds read, offsets beyond 4 GiB
// included, and the part of the last image that is cut off fails.
func TestTruncatedImageJOver4GB(t *testing.T) {
	testtool.Long(t, "writes a sparse 6 GiB file")
	dir := t.TempDir()
	python(t, dir, `
import os
path = d + '/big.tif'
tifffile.imwrite(path, shape=(3, 32768, 32768), dtype=np.uint16, imagej=True, metadata={'axes': 'ZYX'})
with tifffile.TiffFile(path) as tf:
    start = tf.pages[0].dataoffsets[0]
row = np.arange(32768, dtype='<u2')
with open(path, 'r+b') as f:
    for page, y in ((1, 32767), (2, 0), (2, 255)):
        f.seek(start + (page * 32768 + y) * 65536)
        f.write((row + page * 1000 + y).astype('<u2').tobytes())
os.truncate(path, 5 << 30)
`)
	src := openTIFF(t, filepath.Join(dir, "big.tif"))
	m := src.Meta()
	if m.Format != "imagej-tiff" || m.Axes != "ZYX" || !slices.Equal(m.Shape, []int{3, 32768, 32768}) || m.Levels[0].Chunk[1] != 256 {
		t.Fatalf("meta %s %s %v chunk %v", m.Format, m.Axes, m.Shape, m.Levels[0].Chunk)
	}
	buf := make([]byte, m.Levels[0].ChunkBytes(m.DType))
	for _, c := range []struct{ page, band, y int }{{1, 127, 255}, {2, 0, 0}, {2, 0, 255}} {
		if err := src.ReadChunk(context.Background(), 0, []int{c.page, c.band, 0}, buf); err != nil {
			t.Fatalf("page %d, band %d: %v", c.page, c.band, err)
		}
		for x := 0; x < 32768; x += 4099 {
			v := int(buf[(c.y*32768+x)*2]) | int(buf[(c.y*32768+x)*2+1])<<8
			if want := (x + c.page*1000 + c.band*256 + c.y) & 0xffff; v != want {
				t.Fatalf("page %d, band %d, row %d, column %d: %d, want %d", c.page, c.band, c.y, x, v, want)
			}
		}
	}
	err := src.ReadChunk(context.Background(), 0, []int{2, 127, 0}, buf)
	expectTruncErr(t, err, "page 2")
}

// Pages read in bands: in a file that ends inside an uncompressed strip,
// the bands whose rows it holds read, the others fail.
func TestTruncatedBands(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, `
rng = np.random.default_rng(12)
tifffile.imwrite(d + '/gray.tif', rng.integers(0, 65535, (3, 61, 40), dtype=np.uint16), photometric='minisblack')
tifffile.imwrite(d + '/rgb.tif', rng.integers(0, 255, (3, 61, 40, 3), dtype=np.uint8), photometric='rgb')
for name in ('gray', 'rgb'):
    with tifffile.TiffFile(d + '/' + name + '.tif') as tf:
        p = tf.pages[0]
        start, rb = p.dataoffsets[0], p.databytecounts[0] // 61
    data = open(d + '/' + name + '.tif', 'rb').read()
    open(d + '/' + name + '.cut.tif', 'wb').write(data[:start + (61 + 30) * rb + rb // 2])
`)
	for _, name := range []string{"gray", "rgb"} {
		t.Run(name, func(t *testing.T) {
			r := tifffileRead(t, filepath.Join(dir, name+".tif"))[filepath.Join(dir, name+".tif")]
			src := openBandedTIFF(t, filepath.Join(dir, name+".cut.tif"), smallBands)
			m := src.Meta()
			l := &m.Levels[0]
			rows, planes := l.Chunk[len(l.Chunk)-2], l.ChunkBytes(m.DType)/(l.Chunk[len(l.Chunk)-2]*40*m.DType.Size())
			buf := make([]byte, l.ChunkBytes(m.DType))
			for page := 0; page < 3; page++ {
				for band := 0; band*rows < 61; band++ {
					idx := make([]int, len(m.Axes))
					idx[0], idx[len(idx)-2] = page, band
					err := src.ReadChunk(context.Background(), 0, idx, buf)
					// The file ends in row 30 of page 1.
					if whole := page == 0 || (page == 1 && (band+1)*rows <= 30); !whole {
						expectTruncErr(t, err, fmt.Sprintf("page %d", page))
						continue
					}
					if err != nil {
						t.Fatalf("page %d, band %d: %v", page, band, err)
					}
					expectBand(t, buf, r.Data, page, band, rows, planes, 40*m.DType.Size())
				}
			}
		})
	}
}

// expectBand checks a band of rows of one page (of planes sample planes,
// 61 rows of rb bytes) against the whole stack in ref.
func expectBand(t *testing.T, got, ref []byte, page, band, rows, planes, rb int) {
	t.Helper()
	for c := 0; c < planes; c++ {
		for y := band * rows; y < min(61, (band+1)*rows); y++ {
			g := got[(c*rows+y-band*rows)*rb:][:rb]
			w := ref[((page*planes+c)*61+y)*rb:][:rb]
			if !bytes.Equal(g, w) {
				t.Fatalf("page %d, band %d, plane %d, row %d differs from tifffile's", page, band, c, y)
			}
		}
	}
}
