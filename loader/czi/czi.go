// Package czi reads Carl Zeiss CZI files (ZISRAW), as ZEN writes them. It
// registers the format "czi" with the loader.
//
// A CZI file is a sequence of segments, each a 32-byte header (a 16-byte
// name such as "ZISRAWSUBBLOCK", the allocated and the used size) and its
// data. The file header segment at offset 0 gives the positions of the
// subblock directory, the metadata XML and the attachment directory. The
// directory lists every subblock once: its pixel type, compression, file
// position and its coordinates (a start and size per dimension letter:
// X, Y in pixels of one plane of the whole acquisition, the others
// indices). Opening reads the header, the directory, the XML and the time
// stamps attachment — never the subblocks, whose headers are read only
// when their pixels are.
//
// Each scene (S) is a series (named by the XML's scene names, else "Scene
// #1"…), as are the values of the view, phase, illumination and rotation
// dimensions (V, H, I, R) when a file has several; the first opens by
// default. A series' plane is the bounding box of its full-resolution
// subblocks, so the tiles of a mosaic (M) are assembled at their
// positions; where they overlap, later tiles (higher M index, then later
// in the directory) are drawn on top, as ZEN shows them. Places no tile
// covers are zero. The axes are T, C, Z, Y, X, those of length one left
// out; Bgr pixels become three C samples (red, green, blue: Meta.RGB).
//
// Subblocks whose logical size exceeds their stored size are the file's
// own pyramid: those of one minification factor make a stored level when
// every plane has some. Pixel types Gray8, Gray16, Gray32, Gray32Float,
// Gray64Float, Bgr24, Bgr48, Bgr96Float and Bgra32 (alpha dropped) are
// read; compressions none, JPEG, zstd (Zstd0) and zstd with the
// low/high-byte packing of 16-bit samples (Zstd1); JPEG XR only in a
// build with the tag jxr (through libjxr, see jxr.go), else it and LZW
// are refused by name. Scaling (metres per pixel and per Z step, given in
// micrometres), channel names and colours come from the XML, T spacing
// from the time stamps attachment. A chunk is up to 1024 x 1024 samples
// of one plane (all three colour samples of a Bgr pixel); compressed
// subblocks are decoded once into a small shared cache.
package czi

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"vastview/base/lru"
	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/internal/mapped"
)

// format is CZI as the registry knows it: the ZISRAW file header
// segment's identifier, zero-padded to 16 bytes.
var format = loader.Format{
	Name: "czi", Titles: []string{"CZI"}, Exts: []string{".czi"},
	Magic: []loader.Magic{{Bytes: "ZISRAWFILE\x00\x00\x00\x00\x00\x00"}},
}

// init registers the format; Open, which checks the signature again
// through Match, is set here to keep the declaration free of a cycle.
func init() {
	format.Open = Open
	loader.Register(format)
}

// Segment layout (libCZI's published structures).
const (
	segHeader     = 32  // name, allocated size, used size
	fileHeader    = 512 // the file header segment's data
	dirFixed      = 128 // the directory's data before its entries
	entryFixed    = 32  // a DV directory entry before its dimensions
	dimEntry      = 20  // one dimension of an entry
	maxDims       = 40  // dimensions per entry libCZI allows
	subblockMin   = 256 // a subblock segment's data before its metadata, at least
	subblockFixed = 16  // metadata size, attachment size, data size
	metaFixed     = 256 // the metadata segment's data before the XML
	attDirFixed   = 256 // the attachment directory's data before its entries
	attEntry      = 128 // one attachment directory entry
	attFixed      = 256 // an attachment segment's data before its content
	maxXML        = 1 << 28
	maxSide       = 1 << 22 // longest plane side accepted, in pixels
	chunkSide     = 1024
)

// Match reports whether head starts with the ZISRAW file header segment.
// It is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// Open opens a CZI file at its first series. The returned Source is safe
// for concurrent use and is a loader.SeriesOpener over the file's series.
func Open(ctx context.Context, path string) (loader.Source, error) {
	return mapped.Open(ctx, path, func(f *loader.File) (*mapped.Catalogue[*scene], error) {
		c, err := parse(f)
		if err != nil {
			return nil, err
		}
		return &c.Catalogue, nil
	})
}

// pixel describes a CZI pixel type.
type pixel struct {
	name  string
	dtype loader.DType
	comps int // samples stored per pixel
	shown int // samples read per pixel (3 for Bgr, the gray one otherwise)
}

var pixels = map[int32]pixel{
	0:  {"Gray8", loader.Uint8, 1, 1},
	1:  {"Gray16", loader.Uint16, 1, 1},
	2:  {"Gray32Float", loader.Float32, 1, 1},
	3:  {"Bgr24", loader.Uint8, 3, 3},
	4:  {"Bgr48", loader.Uint16, 3, 3},
	8:  {"Bgr96Float", loader.Float32, 3, 3},
	9:  {"Bgra32", loader.Uint8, 4, 3},
	12: {"Gray32", loader.Int32, 1, 1},
	13: {"Gray64Float", loader.Float64, 1, 1},
}

var pixelNames = map[int32]string{10: "Gray64ComplexFloat", 11: "Bgr192ComplexFloat"}

// bytes is the size of one stored pixel.
func (p pixel) bytes() int { return p.comps * p.dtype.Size() }

// Compressions.
const (
	cNone  = 0
	cJPEG  = 1
	cLZW   = 2
	cJPGXR = 4
	cZstd0 = 5
	cZstd1 = 6
)

var compressionNames = map[int32]string{cLZW: "LZW"}

// The dimension letters a subblock may have besides X and Y, and the
// ones that make series of their own.
const (
	dimLetters = "TCZSMBRIHV"
	seriesDims = "SVHIR"
)

// tile is one subblock: where its pixels are and where they go.
type tile struct {
	pos        int64 // the subblock segment
	pixel      int32
	comp       int32
	x, y, w, h int // logical rectangle, in full-resolution pixels
	sw, sh     int // stored size
	coord      [len(dimLetters)]int
	has        [len(dimLetters)]bool
	order      int // place in the directory
}

func (t *tile) at(letter byte) int { return t.coord[strings.IndexByte(dimLetters, letter)] }

func (t *tile) mIndex() int {
	i := strings.IndexByte(dimLetters, 'M')
	if !t.has[i] {
		return math.MaxInt32
	}
	return t.coord[i]
}

// catalogue is what a file's headers say, immutable once parsed and
// shared by the sources of its series.
type catalogue struct {
	mapped.Catalogue[*scene]
	cache *tileCache
}

// scene is one series: its planes' tiles per level.
type scene struct {
	name       string
	pix        pixel
	x0, y0     int // full-resolution position of the plane's first pixel
	nt, nc, nz int
	t0, c0, z0 int
	cAxis      int // position of C in the axes, or -1
	levels     []level
}

// level is a resolution: its minification factor and each plane's tiles
// in drawing order.
type level struct {
	factor int
	planes [][]*tile // by plane index, (t*nc + c)*nz + z
	filled int       // planes that have tiles
}

// plane is the index in level.planes of plane (t, c, z).
func (s *scene) plane(t, c, z int) int { return (t*s.nc+c)*s.nz + z }

func (l *level) add(p int, t *tile) {
	if len(l.planes[p]) == 0 {
		l.filled++
	}
	l.planes[p] = append(l.planes[p], t)
}

// parse reads the file header, the directory, the XML and the time
// stamps of the mapped file f.
func parse(f *loader.File) (c *catalogue, err error) {
	defer f.Guard().Recover(&err)
	size := f.Size()
	if size < segHeader+fileHeader {
		return nil, formatError("the file ends inside its %d-byte header: %v", segHeader+fileHeader, loader.ErrTruncated)
	}
	h, _ := f.Bytes(0, segHeader+fileHeader)
	if !Match("", h) {
		return nil, formatError("no ZISRAWFILE header")
	}
	d := h[segHeader:]
	if part := int32(binary.LittleEndian.Uint32(d[48:])); part != 0 {
		return nil, unsupported(fmt.Sprintf("file part %d of a multi-file document (open its first part)", part))
	}
	dirPos := int64(binary.LittleEndian.Uint64(d[52:]))
	metaPos := int64(binary.LittleEndian.Uint64(d[60:]))
	attPos := int64(binary.LittleEndian.Uint64(d[72:]))
	tiles, err := directory(f, dirPos)
	if err != nil {
		return nil, err
	}
	var doc xDoc
	var notes []string
	if x, err := metadataXML(f, metaPos); err != nil {
		notes = append(notes, fmt.Sprintf("metadata XML not read: %v", err))
	} else if err := doc.parse(x); err != nil {
		notes = append(notes, fmt.Sprintf("metadata XML not read: %v", err))
	}
	stamps := timeStamps(f, attPos)
	c = &catalogue{Catalogue: mapped.Catalogue[*scene]{Format: "czi", Size: size}, cache: newTileCache(64 << 20)}
	c.New = func(s *mapped.Series[*scene]) loader.Source { return &source{Series: s, cache: c.cache} }
	if err := c.build(tiles, &doc, stamps, notes); err != nil {
		return nil, err
	}
	return c, nil
}

// segment checks that a segment called name starts at pos with at least
// n bytes of data, and returns its data's offset and used size.
func segment(f *loader.File, pos int64, name string, n int64) (int64, int64, error) {
	size := f.Size()
	if pos < segHeader+fileHeader || pos > size-segHeader {
		return 0, 0, formatError("the %s segment's position %d lies outside the file of %d bytes", name, pos, size)
	}
	h, _ := f.Bytes(pos, segHeader)
	if got := string(bytes.TrimRight(h[:16], "\x00")); got != name {
		return 0, 0, formatError("no %s segment at %d (found %q)", name, pos, textutil.Clip(got))
	}
	used := int64(binary.LittleEndian.Uint64(h[24:]))
	if alloc := int64(binary.LittleEndian.Uint64(h[16:])); used <= 0 || used > alloc {
		used = alloc
	}
	if used < n || used > size-pos-segHeader {
		if n > size-pos-segHeader {
			return 0, 0, formatError("the %s segment at %d ends past the end of the file: %v", name, pos, loader.ErrTruncated)
		}
		used = size - pos - segHeader
	}
	return pos + segHeader, used, nil
}

// directory reads the subblock directory at pos.
func directory(f *loader.File, pos int64) ([]*tile, error) {
	if pos == 0 {
		return nil, formatError("the file has no subblock directory")
	}
	at, used, err := segment(f, pos, "ZISRAWDIRECTORY", dirFixed)
	if err != nil {
		return nil, err
	}
	b, _ := f.Bytes(at, used)
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	if n <= 0 {
		return nil, formatError("the subblock directory lists no subblocks")
	}
	if n > (used-dirFixed)/entryFixed {
		return nil, formatError("a subblock directory of %d entries in %d bytes: %v", n, used, loader.ErrTruncated)
	}
	tiles := make([]*tile, 0, n)
	o := int64(dirFixed)
	for i := int64(0); i < n; i++ {
		if o+entryFixed > used {
			return nil, formatError("the subblock directory ends inside entry %d of %d: %v", i, n, loader.ErrTruncated)
		}
		e := b[o:]
		if string(e[:2]) != "DV" {
			return nil, unsupported(fmt.Sprintf("subblock directory entries of schema %q", textutil.Clip(string(e[:2]))))
		}
		nd := int64(int32(binary.LittleEndian.Uint32(e[28:])))
		if nd < 2 || nd > maxDims || o+entryFixed+nd*dimEntry > used {
			return nil, formatError("subblock directory entry %d has %d dimensions", i, nd)
		}
		t, err := parseEntry(e[:entryFixed+nd*dimEntry], f.Size())
		if err != nil {
			return nil, formatError("subblock %d: %v", i, err)
		}
		t.order = int(i)
		tiles = append(tiles, t)
		o += entryFixed + nd*dimEntry
	}
	return tiles, nil
}

// parseEntry reads a DV directory entry (or a subblock's copy of it).
func parseEntry(e []byte, fileSize int64) (*tile, error) {
	t := &tile{
		pixel: int32(binary.LittleEndian.Uint32(e[2:])),
		pos:   int64(binary.LittleEndian.Uint64(e[6:])),
		comp:  int32(binary.LittleEndian.Uint32(e[18:])),
	}
	if part := int32(binary.LittleEndian.Uint32(e[14:])); part != 0 {
		return nil, unsupported(fmt.Sprintf("subblocks in file part %d of a multi-file document", part))
	}
	if t.pos < segHeader+fileHeader || t.pos > fileSize-segHeader-subblockMin {
		return nil, fmt.Errorf("its position %d lies outside the file of %d bytes: %w", t.pos, fileSize, loader.ErrTruncated)
	}
	nd := int(int32(binary.LittleEndian.Uint32(e[28:])))
	var hasX, hasY bool
	for k := 0; k < nd; k++ {
		d := e[entryFixed+k*dimEntry:]
		name := string(bytes.TrimRight(d[:4], "\x00 "))
		start := int(int32(binary.LittleEndian.Uint32(d[4:])))
		sz := int(int32(binary.LittleEndian.Uint32(d[8:])))
		stored := int(int32(binary.LittleEndian.Uint32(d[16:])))
		switch name {
		case "X", "Y":
			if sz <= 0 || stored <= 0 || sz > maxSide || stored > sz || start < -maxSide || start > maxSide {
				return nil, fmt.Errorf("its %s extent: start %d, size %d, stored %d", name, start, sz, stored)
			}
			if name == "X" {
				t.x, t.w, t.sw, hasX = start, sz, stored, true
			} else {
				t.y, t.h, t.sh, hasY = start, sz, stored, true
			}
		default:
			if len(name) != 1 {
				continue
			}
			if j := strings.IndexByte(dimLetters, name[0]); j >= 0 {
				if start < 0 || start > 1<<24 {
					return nil, fmt.Errorf("its %s index %d", name, start)
				}
				t.coord[j], t.has[j] = start, true
			}
		}
	}
	if !hasX || !hasY {
		return nil, fmt.Errorf("it has no X or Y extent")
	}
	return t, nil
}

// metadataXML returns the metadata segment's XML.
func metadataXML(f *loader.File, pos int64) ([]byte, error) {
	if pos == 0 {
		return nil, fmt.Errorf("the file has none")
	}
	at, used, err := segment(f, pos, "ZISRAWMETADATA", metaFixed)
	if err != nil {
		return nil, err
	}
	b, _ := f.Bytes(at, metaFixed)
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	if n < 0 || n > used-metaFixed || n > maxXML {
		return nil, fmt.Errorf("%d bytes of XML in a segment of %d: %w", n, used, loader.ErrTruncated)
	}
	x, _ := f.Bytes(at+metaFixed, n)
	return bytes.Clone(x), nil
}

// timeStamps returns the seconds of the TimeStamps attachment (CZTIMS),
// or nil.
func timeStamps(f *loader.File, pos int64) []float64 {
	if pos == 0 {
		return nil
	}
	at, used, err := segment(f, pos, "ZISRAWATTDIR", attDirFixed)
	if err != nil {
		return nil
	}
	b, _ := f.Bytes(at, used)
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	for i := int64(0); i >= 0 && i < n && attDirFixed+(i+1)*attEntry <= used; i++ {
		e := b[attDirFixed+i*attEntry:]
		if string(e[:2]) != "A1" || string(bytes.TrimRight(e[40:48], "\x00")) != "CZTIMS" {
			continue
		}
		apos := int64(binary.LittleEndian.Uint64(e[12:]))
		aat, aused, err := segment(f, apos, "ZISRAWATTACH", attFixed+8)
		if err != nil {
			return nil
		}
		d, _ := f.Bytes(aat+attFixed, aused-attFixed)
		cnt := int64(int32(binary.LittleEndian.Uint32(d[4:])))
		if cnt <= 0 || cnt > (int64(len(d))-8)/8 {
			return nil
		}
		out := make([]float64, cnt)
		for k := range out {
			out[k] = math.Float64frombits(binary.LittleEndian.Uint64(d[8+8*k:]))
		}
		return out
	}
	return nil
}

// build groups the tiles into series and describes each.
func (c *catalogue) build(tiles []*tile, doc *xDoc, stamps []float64, notes []string) error {
	// The dimensions that make series: those with several values.
	var split []int
	for _, l := range []byte(seriesDims) {
		j := strings.IndexByte(dimLetters, l)
		for _, t := range tiles {
			if t.coord[j] != tiles[0].coord[j] {
				split = append(split, j)
				break
			}
		}
	}
	type key [len(seriesDims)]int
	groups := map[key][]*tile{}
	var keys []key
	for _, t := range tiles {
		var k key
		for i, j := range split {
			k[i] = t.coord[j]
		}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], t)
	}
	sort.Slice(keys, func(a, b int) bool {
		for i := range keys[a] {
			if keys[a][i] != keys[b][i] {
				return keys[a][i] < keys[b][i]
			}
		}
		return false
	})
	var names []string
	var firstErr error
	var bad []string
	for _, k := range keys {
		g := groups[k]
		name := c.seriesName(g[0], split, doc)
		img, meta, err := describe(g, doc, stamps)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			bad = append(bad, name)
			continue
		}
		img.name = name
		meta.Notes = append(meta.Notes, notes...)
		c.Series = append(c.Series, img)
		c.Metas = append(c.Metas, meta)
		names = append(names, name)
	}
	if len(c.Series) == 0 {
		return firstErr
	}
	c.List(names)
	for _, m := range c.Metas {
		if len(bad) > 0 {
			m.Notes = append(m.Notes, fmt.Sprintf("not listed, unreadable: %s (%v)", strings.Join(bad, ", "), firstErr))
		}
	}
	return nil
}

// seriesName names the series of tile t: its scene's name from the XML,
// else "Scene #N" (N counted from 1, as ZEN does), with the other
// dimensions that split the file.
func (c *catalogue) seriesName(t *tile, split []int, doc *xDoc) string {
	var parts []string
	for _, j := range split {
		v := t.coord[j]
		switch dimLetters[j] {
		case 'S':
			if n := doc.sceneName(v); n != "" {
				parts = append(parts, n)
			} else {
				parts = append(parts, fmt.Sprintf("Scene #%d", v+1))
			}
		default:
			parts = append(parts, fmt.Sprintf("%c%d", dimLetters[j], v))
		}
	}
	return strings.Join(parts, " ")
}

// describe lays out the series made of tiles g.
func describe(g []*tile, doc *xDoc, stamps []float64) (*scene, *loader.Meta, error) {
	img := &scene{}
	var full, reduced []*tile
	for _, t := range g {
		if t.w == t.sw && t.h == t.sh {
			full = append(full, t)
		} else {
			reduced = append(reduced, t)
		}
	}
	if len(full) == 0 {
		return nil, nil, formatError("no full-resolution subblocks")
	}
	pt := full[0].pixel
	pix, ok := pixels[pt]
	if !ok {
		if n, named := pixelNames[pt]; named {
			return nil, nil, unsupported(n + " pixels")
		}
		return nil, nil, unsupported(fmt.Sprintf("pixel type %d", pt))
	}
	img.pix = pix
	x0, y0, x1, y1 := math.MaxInt, math.MaxInt, math.MinInt, math.MinInt
	lo := [3]int{math.MaxInt, math.MaxInt, math.MaxInt}
	hi := [3]int{math.MinInt, math.MinInt, math.MinInt}
	for _, t := range full {
		if t.pixel != pt {
			p2 := pixels[t.pixel].name
			if p2 == "" {
				p2 = strconv.Itoa(int(t.pixel))
			}
			return nil, nil, unsupported(fmt.Sprintf("subblocks of different pixel types (%s and %s)", pix.name, p2))
		}
		x0, y0 = min(x0, t.x), min(y0, t.y)
		x1, y1 = max(x1, t.x+t.w), max(y1, t.y+t.h)
		for k, l := range []byte("TCZ") {
			v := t.at(l)
			lo[k], hi[k] = min(lo[k], v), max(hi[k], v)
		}
	}
	w, h := x1-x0, y1-y0
	if w > maxSide || h > maxSide {
		return nil, nil, formatError("a plane of %d x %d pixels", w, h)
	}
	img.x0, img.y0 = x0, y0
	img.t0, img.c0, img.z0 = lo[0], lo[1], lo[2]
	img.nt, img.nc, img.nz = hi[0]-lo[0]+1, hi[1]-lo[1]+1, hi[2]-lo[2]+1
	if int64(img.nt)*int64(img.nc)*int64(img.nz) > 1<<24 {
		return nil, nil, formatError("%d x %d x %d planes", img.nt, img.nc, img.nz)
	}
	nplanes := img.nt * img.nc * img.nz
	l0 := level{factor: 1, planes: make([][]*tile, nplanes)}
	for _, t := range full {
		l0.add(img.plane(t.at('T')-lo[0], t.at('C')-lo[1], t.at('Z')-lo[2]), t)
	}
	img.levels = []level{l0}
	// The file's pyramid: the reduced subblocks of each factor.
	byFactor := map[int]*level{}
	for _, t := range reduced {
		if t.pixel != pt {
			continue
		}
		pt, pc, pz := t.at('T')-lo[0], t.at('C')-lo[1], t.at('Z')-lo[2]
		if pt < 0 || pc < 0 || pz < 0 || pt >= img.nt || pc >= img.nc || pz >= img.nz {
			continue
		}
		fct := int(math.Round(float64(t.w) / float64(t.sw)))
		if fct < 2 || int(math.Round(float64(t.h)/float64(t.sh))) != fct {
			continue
		}
		l := byFactor[fct]
		if l == nil {
			l = &level{factor: fct, planes: make([][]*tile, nplanes)}
			byFactor[fct] = l
		}
		l.add(img.plane(pt, pc, pz), t)
	}
	var factors []int
	for fct, l := range byFactor {
		if l.filled == l0.filled {
			factors = append(factors, fct)
		}
	}
	sort.Ints(factors)
	for _, fct := range factors {
		if w/fct < 1 || h/fct < 1 {
			break
		}
		img.levels = append(img.levels, *byFactor[fct])
	}
	for _, l := range img.levels {
		for _, ts := range l.planes {
			sort.SliceStable(ts, func(i, j int) bool {
				if mi, mj := ts[i].mIndex(), ts[j].mIndex(); mi != mj {
					return mi < mj
				}
				return ts[i].order < ts[j].order
			})
		}
	}

	// Axes.
	var axes string
	var shape, chunk []int
	nc := img.nc * pix.shown
	if pix.shown == 1 && img.nc == 1 {
		nc = 1
	}
	add := func(a byte, n, ch int) {
		if n > 1 {
			axes += string(a)
			shape = append(shape, n)
			chunk = append(chunk, ch)
		}
	}
	add('T', img.nt, 1)
	add('C', nc, pix.shown)
	add('Z', img.nz, 1)
	axes += "YX"
	shape = append(shape, h, w)
	chunk = append(chunk, min(h, chunkSide), min(w, chunkSide))
	img.cAxis = strings.IndexByte(axes, 'C')
	spacing := make([]float64, len(axes))
	units := make([]string, len(axes))
	for i := range spacing {
		spacing[i] = 1
	}
	for i, a := range []byte(axes) {
		if a == 'X' || a == 'Y' || a == 'Z' {
			if v := doc.scale(a); v > 0 {
				spacing[i], units[i] = v*1e6, "micrometer"
			}
		}
	}
	var notes []string
	if t := strings.IndexByte(axes, 'T'); t >= 0 && len(stamps) == img.nt {
		if step := (stamps[img.nt-1] - stamps[0]) / float64(img.nt-1); step > 0 && !math.IsInf(step, 0) {
			spacing[t], units[t] = step, "second"
		}
	}
	meta := loader.NewMeta("czi", axes, shape, pix.dtype, chunk, spacing, units)
	for _, l := range img.levels[1:] {
		n := len(axes)
		lv := loader.Level{
			Shape:       append([]int(nil), shape...),
			Chunk:       append([]int(nil), chunk...),
			Scale:       append([]float64(nil), spacing...),
			Translation: make([]float64, n),
		}
		lv.Shape[n-2], lv.Shape[n-1] = ceilDiv(h, l.factor), ceilDiv(w, l.factor)
		lv.Chunk[n-2], lv.Chunk[n-1] = min(lv.Shape[n-2], chunkSide), min(lv.Shape[n-1], chunkSide)
		for a := n - 2; a < n; a++ {
			lv.Scale[a] = spacing[a] * float64(l.factor)
			lv.Translation[a] = float64(l.factor-1) / 2 * spacing[a]
		}
		meta.Levels = append(meta.Levels, lv)
	}
	if pix.shown == 3 {
		if img.nc == 1 {
			meta.RGB = true
		} else {
			notes = append(notes, fmt.Sprintf("%s pixels: each channel's red, green and blue are three positions on C", pix.name))
		}
	} else {
		meta.Channels = doc.channels(img.c0, img.nc)
		if len(meta.Channels) > 1 {
			meta.ChannelMode = loader.ChannelsComposite
		}
	}
	if pix.comps == 4 {
		notes = append(notes, "Bgra32 pixels: alpha not shown")
	}
	if len(img.levels) > 1 {
		var fs []string
		for _, l := range img.levels[1:] {
			fs = append(fs, strconv.Itoa(l.factor))
		}
		notes = append(notes, "the file's own pyramid, reduced by "+strings.Join(fs, ", "))
	}
	if doc.bits > 0 && doc.bits < 8*pix.dtype.Size() && !pix.dtype.Float() {
		notes = append(notes, fmt.Sprintf("%d-bit samples (ComponentBitCount) in %s", doc.bits, pix.dtype))
	}
	if a := strings.TrimSpace(doc.Acquired); a != "" {
		notes = append(notes, "acquired "+textutil.Clip(a))
	}
	if len(full) > img.nt*img.nc*img.nz {
		notes = append(notes, fmt.Sprintf("a mosaic of %d tiles, later tiles on top where they overlap", len(full)/(img.nt*img.nc*img.nz)))
	}
	meta.Notes = notes
	if err := meta.Validate(); err != nil {
		return nil, nil, formatError("%v", err)
	}
	return img, meta, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// source is one series of an opened file.
type source struct {
	*mapped.Series[*scene]
	cache *tileCache // the file's, shared by its series
}

// tileCache keeps decoded compressed subblocks, shared by a file's series.
type tileCache struct {
	mu sync.Mutex
	c  *lru.Cache[int64, []byte]
}

func newTileCache(budget int64) *tileCache {
	return &tileCache{c: lru.New[int64, []byte](budget)}
}

func (c *tileCache) get(pos int64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.Get(pos)
}

func (c *tileCache) put(pos int64, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.Put(pos, b, int64(len(b)))
}

func formatError(format string, args ...any) error {
	return loader.Errorf("czi", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "czi", Feature: feature}
}
