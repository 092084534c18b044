package hdf5

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"sync"

	"vastview/loader"
)

// format is HDF5 as the registry knows it: the signature at byte 0, 512,
// 1024 or 2048 (after a user block).
var format = loader.Format{
	Name: formatName, Titles: []string{"HDF5", "Imaris"}, Open: Open,
	Exts: []string{".h5", ".hdf5", ".he5", ".hdf", ".ims"},
	Magic: []loader.Magic{
		{Bytes: string(signature)}, {Offset: 512, Bytes: string(signature)},
		{Offset: 1024, Bytes: string(signature)}, {Offset: 2048, Bytes: string(signature)},
	},
}

func init() { loader.Register(format) }

// maxObjects bounds the objects a walk of the file visits.
const maxObjects = 1 << 16

// lookup returns the object at the slash-separated path p ("/" the root).
func (h *File) lookup(p string) (*object, error) {
	o, err := h.readObject(h.rootAddr)
	if err != nil {
		return nil, err
	}
	for _, name := range strings.Split(strings.Trim(p, "/"), "/") {
		if name == "" {
			continue
		}
		ls, err := h.links(o)
		if err != nil {
			return nil, err
		}
		found := false
		for _, l := range ls {
			if l.name == name {
				if o, err = h.readObject(l.addr); err != nil {
					return nil, err
				}
				found = true
				break
			}
		}
		if !found {
			return nil, errorf("no object %q", p)
		}
	}
	return o, nil
}

// datasets lists every dataset of the file, depth first in link order;
// each object is visited once. A dataset whose header messages cannot be
// read is listed with only its path and why (bad).
func (h *File) datasets() ([]*dataset, error) {
	var out []*dataset
	seen := map[uint64]bool{}
	var walk func(addr uint64, p string, depth int) error
	walk = func(addr uint64, p string, depth int) error {
		if seen[addr] {
			return nil
		}
		seen[addr] = true
		if len(seen) > maxObjects || depth > 64 {
			return errorf("more than %d objects or nested too deep", maxObjects)
		}
		o, err := h.readObject(addr)
		if err != nil {
			return err
		}
		if d, ok, err := h.openDataset(o, p); ok {
			if err != nil {
				// A dataset the reader cannot describe is listed with
				// why, so that it is named if nothing else can be shown.
				out = append(out, &dataset{h: h, path: p, bad: bare(err)})
				return nil
			}
			d.obj = o
			out = append(out, d)
			return nil
		}
		ls, err := h.links(o)
		if err != nil {
			return err
		}
		for _, l := range ls {
			if err := walk(l.addr, path.Join(p, l.name), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(h.rootAddr, "/", 0); err != nil {
		return nil, err
	}
	return out, nil
}

// bare is err from openDataset without the dataset's path and the
// format's name, which the message that lists it gives once.
func bare(err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	var fe *loader.FormatError
	var ue *loader.UnsupportedError
	switch {
	case errors.As(err, &fe):
		return errors.New(fe.Msg)
	case errors.As(err, &ue):
		return errors.New("unsupported " + ue.Feature)
	}
	return err
}

// image is a dataset viewable as an image: 2 to 5 dimensions, every one
// non-empty, numeric samples.
func (d *dataset) image() error {
	if d.bad != nil {
		return d.bad
	}
	if n := len(d.dims); n < 2 || n > 5 {
		return fmt.Errorf("%d dimensions", n)
	}
	for _, n := range d.dims {
		if n == 0 || n > 1<<40 {
			return fmt.Errorf("dimension of %d", n)
		}
	}
	dt, err := d.dt.dtype()
	if err != nil {
		return err
	}
	d.dtype = dt
	if d.layout == layoutChunked {
		if err := checkFilters(d.filters); err != nil {
			return err
		}
	} else if len(d.filters) > 0 {
		return errors.New("filters on unchunked data")
	}
	return nil
}

// source is an opened image: one dataset, or (Imaris, BigDataViewer) a
// grid of them per level, selected by the leading axes.
type source struct {
	h      *File
	meta   *loader.Meta
	levels []level
	path   string
	open   func(ctx context.Context, i int) (loader.Source, error)
	closed loader.Closing // a read after Close is ErrClosed
}

// level is one stored level: lead leading axes select a dataset of sets
// (row-major), and the remaining axes index the dataset's own chunks;
// shape is the level's extent over those (it may crop the datasets).
type level struct {
	lead  int
	sets  []*dataset
	shape []int // per axis after lead
	// plane is true for contiguous or compact data read plane by plane.
	plane bool
	// lazy, when set, opens the datasets (in place of sets) as they are
	// first read.
	lazy *lazySets
}

// dataset returns dataset i of the level (nil when not stored).
func (l *level) dataset(i int) (*dataset, error) {
	if l.lazy != nil {
		return l.lazy.get(i)
	}
	if i >= len(l.sets) {
		return nil, nil
	}
	return l.sets[i], nil
}

// lazySets opens datasets on first use, each once.
type lazySets struct {
	open func(i int) (*dataset, error)
	once []sync.Once
	ds   []*dataset
	errs []error
}

func newLazySets(n int, open func(i int) (*dataset, error)) *lazySets {
	return &lazySets{open: open, once: make([]sync.Once, n), ds: make([]*dataset, n), errs: make([]error, n)}
}

func (z *lazySets) get(i int) (*dataset, error) {
	if i < 0 || i >= len(z.ds) {
		return nil, nil
	}
	z.once[i].Do(func() { z.ds[i], z.errs[i] = z.open(i) })
	return z.ds[i], z.errs[i]
}

// geometry is what every dataset of a level must share: at least the
// level's size, the same chunks, sample type and storage.
type geometry struct {
	size   []int
	chunk  []int
	dtype  loader.DType
	planar bool
}

// fits checks dataset d (named name) against g.
func (g *geometry) fits(d *dataset, name string) error {
	if len(d.dims) != len(g.size) {
		return errorf("%s has %d dimensions, want %d", name, len(d.dims), len(g.size))
	}
	if err := d.image(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := d.check(); err != nil {
		return err
	}
	for i, n := range g.size {
		if int(d.dims[i]) < n {
			return errorf("%s of %v is smaller than the image of %v", name, d.dims, g.size)
		}
	}
	if fmt.Sprint(d.chunks3()) != fmt.Sprint(g.chunk) || d.dtype.Size() != g.dtype.Size() || (d.layout != layoutChunked) != g.planar {
		return errorf("%s is stored unlike the first dataset of its level", name)
	}
	return nil
}

// chunks3 is the dataset's chunk shape, or a plane for unchunked data.
func (d *dataset) chunks3() []int {
	n := len(d.dims)
	c := make([]int, n)
	if d.layout == layoutChunked {
		for i := range c {
			c[i] = int(d.chunk[i])
		}
		return c
	}
	for i := range c {
		c[i] = 1
	}
	c[n-1], c[n-2] = int(d.dims[n-1]), int(d.dims[n-2])
	return c
}

func (s *source) Meta() *loader.Meta { return s.meta }

// Close closes the file; a read after Close is an error, also of data
// the file holds in its header (compact datasets).
func (s *source) Close() error {
	if s.closed.SetClosed() {
		return nil
	}
	return s.h.Close()
}

func (s *source) OpenSeries(ctx context.Context, i int) (loader.Source, error) {
	if s.open == nil {
		return nil, fmt.Errorf("%s: cannot open series %d", formatName, i)
	}
	return s.open(ctx, i)
}

// Open opens an HDF5 file: an Imaris file as its image, else the
// largest of its datasets.
func Open(ctx context.Context, p string) (loader.Source, error) {
	return openIndex(ctx, p, -1)
}

// openIndex opens series i of the file at p (-1: the largest).
func openIndex(ctx context.Context, p string, i int) (loader.Source, error) {
	h, err := OpenFile(p)
	if err != nil {
		return nil, err
	}
	src, err := h.openImage(ctx, p, i)
	if err == nil {
		if verr := src.meta.Validate(); verr != nil {
			err = errorf("%v", verr)
		}
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	return src, nil
}

func (h *File) openImage(ctx context.Context, p string, want int) (*source, error) {
	if want < 0 {
		if src, ok, err := h.openImaris(p); ok || err != nil {
			return src, err
		}
	}
	all, err := h.datasets()
	if err != nil {
		return nil, err
	}
	var sets []*dataset
	var why []string
	for _, d := range all {
		if err := d.image(); err != nil {
			why = append(why, d.path+": "+err.Error())
			continue
		}
		sets = append(sets, d)
	}
	if len(sets) == 0 {
		if len(why) > 0 {
			return nil, &loader.FormatError{Format: formatName, Msg: "no dataset can be shown as an image (" + strings.Join(why[:min(len(why), 3)], "; ") + ")"}
		}
		return nil, errorf("no dataset of 2 to 5 dimensions")
	}
	metas := make([]*loader.Meta, len(sets))
	names := make([]string, len(sets))
	for i, d := range sets {
		names[i] = d.path
		if metas[i], err = d.meta(); err != nil {
			return nil, err
		}
	}
	if want < 0 {
		want = 0
		best := uint64(0)
		for i, d := range sets {
			n := d.count() * uint64(d.dt.size)
			if n > best {
				want, best = i, n
			}
		}
	}
	if want >= len(sets) {
		return nil, fmt.Errorf("no series %d", want)
	}
	d := sets[want]
	m := metas[want]
	// Listed also for a lone dataset, so that its path selects it.
	m.Series = loader.SeriesList(names, metas)
	m.SeriesIndex = want
	if err := d.check(); err != nil {
		return nil, err
	}
	src := &source{h: h, meta: m, path: p, levels: []level{d.level(m)}}
	src.open = func(ctx context.Context, i int) (loader.Source, error) { return openIndex(ctx, p, i) }
	return src, nil
}

// count is the number of samples (saturating at 2^63).
func (d *dataset) count() uint64 {
	n := uint64(1)
	for _, x := range d.dims {
		if x != 0 && n > (1<<63)/x {
			return 1 << 63
		}
		n *= x
	}
	return n
}

// check verifies that the dataset's stored samples lie in the file.
func (d *dataset) check() error {
	total := d.count()
	if total > 1<<62/uint64(max(d.dt.size, 1)) {
		return errorf("%s: %v samples", d.path, d.dims)
	}
	total *= uint64(d.dt.size)
	switch d.layout {
	case layoutContiguous:
		if d.addr == undef {
			return nil
		}
		if d.size < total {
			return errorf("%s: contiguous storage of %d bytes for %d", d.path, d.size, total)
		}
		if _, err := d.h.readAt(d.addr+d.size-1, 1, d.path+": data"); err != nil {
			return errorf("%s: %d bytes of samples at %#x exceed the file of %d bytes", d.path, total, d.addr, d.h.size)
		}
	case layoutCompact:
		if uint64(len(d.compact)) < total {
			return errorf("%s: compact storage of %d bytes for %d", d.path, len(d.compact), total)
		}
	}
	return nil
}

// level is the loader level of a lone dataset.
func (d *dataset) level(m *loader.Meta) level {
	l := level{sets: []*dataset{d}, shape: m.Shape}
	l.plane = d.layout != layoutChunked
	return l
}

// bandBytes is the size of the bands of rows contiguous data is read in.
const bandBytes = 4 << 20

// meta describes the dataset alone.
func (d *dataset) meta() (*loader.Meta, error) {
	d.readAttrs()
	n := len(d.dims)
	shape := make([]int, n)
	for i, x := range d.dims {
		shape[i] = int(x)
	}
	chunk := make([]int, n)
	switch d.layout {
	case layoutChunked:
		for i, c := range d.chunk {
			chunk[i] = int(c)
		}
	case layoutCompact:
		copy(chunk, shape)
	default:
		// Bands of whole rows of about bandBytes.
		for i := range chunk {
			chunk[i] = 1
		}
		row := shape[n-1] * d.dt.size
		chunk[n-1] = shape[n-1]
		chunk[n-2] = max(1, min(shape[n-2], bandBytes/max(row, 1)))
	}
	axes := d.axes()
	spacing, units := d.spacing(axes)
	m := loader.NewMeta(formatName, axes, shape, d.dtype, chunk, spacing, units)
	return m, nil
}

// spacing reads the element_size_um attribute (ilastik, Fiji's HDF5
// plugins): the size of a step in micrometres, one value per dimension or
// per spatial axis (Z, Y, X, the last ones).
func (d *dataset) spacing(axes string) ([]float64, []string) {
	a, ok := d.attrs["element_size_um"]
	if !ok || a.IsText {
		return nil, nil
	}
	n := len(axes)
	first := 0
	switch len(a.Nums) {
	case n:
	case strings.Count(axes, "Z") + 2:
		first = n - len(a.Nums)
	default:
		return nil, nil
	}
	spacing := make([]float64, n)
	units := make([]string, n)
	for i := range spacing {
		spacing[i] = 1
	}
	for i, v := range a.Nums {
		ax := axes[first+i]
		if ax != 'Z' && ax != 'Y' && ax != 'X' {
			continue
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, nil
		}
		spacing[first+i], units[first+i] = v, "micrometer"
	}
	return spacing, units
}

// axes names the dataset's dimensions: from ilastik's axistags attribute
// when it gives an order ending in y, x, or from its dimension scales
// (see dimensionAxes); else the last two are YX, a third
// from the end Z, and before it C (4-D with a first dimension of at most 8)
// or T, then T before C for 5-D.
func (d *dataset) axes() string {
	n := len(d.dims)
	if a, ok := d.attrs["axistags"]; ok && a.IsText {
		var tags struct {
			Axes []struct {
				Key string `json:"key"`
			} `json:"axes"`
		}
		if json.Unmarshal([]byte(a.Str), &tags) == nil && len(tags.Axes) == n {
			var s strings.Builder
			for _, t := range tags.Axes {
				s.WriteString(strings.ToUpper(t.Key))
			}
			ax := s.String()
			if validAxes(ax) {
				return ax
			}
		}
	}
	if ax := d.dimensionAxes(); ax != "" {
		return ax
	}
	switch n {
	case 2:
		return "YX"
	case 3:
		return "ZYX"
	case 4:
		if d.dims[0] <= 8 {
			return "CZYX"
		}
		return "TZYX"
	}
	return "TCZYX"
}

func validAxes(ax string) bool {
	if len(ax) < 2 || !strings.HasSuffix(ax, "YX") {
		return false
	}
	for i := 0; i < len(ax); i++ {
		if !strings.ContainsRune("TCZYX", rune(ax[i])) || strings.IndexByte(ax, ax[i]) != i {
			return false
		}
	}
	return true
}

// ReadChunk reads one chunk: the chunk of the HDF5 dataset (for chunked
// data), or one plane (contiguous), cropped to the level's shape.
func (s *source) ReadChunk(ctx context.Context, lv int, idx []int, dst []byte) error {
	m := s.meta
	if err := loader.CheckChunk(ctx, m, lv, idx, dst); err != nil {
		return err
	}
	if err := s.closed.Closed(); err != nil {
		return err
	}
	l := &s.levels[lv]
	chunk := m.Levels[lv].Chunk
	// The dataset the leading axes select.
	si := 0
	for i := 0; i < l.lead; i++ {
		si = si*m.Levels[lv].Shape[i] + idx[i]
	}
	d, err := l.dataset(si)
	if err != nil {
		return err
	}
	if d == nil {
		clear(dst)
		return nil
	}
	idx, chunk = idx[l.lead:], chunk[l.lead:]
	if l.plane {
		if err := d.readPlane(idx, chunk, dst); err != nil {
			return err
		}
	} else {
		scaled := make([]uint64, len(idx))
		for i, v := range idx {
			scaled[i] = uint64(v)
		}
		if err := d.readChunkData(ctx, scaled, dst); err != nil {
			return err
		}
	}
	// Zero what lies beyond the level's edge (an edge chunk holds fill
	// values there, an Imaris one padding).
	cropEdge(dst, idx, chunk, l.shape, d.dtype.Size())
	return nil
}

// readPlane reads the plane at idx (the leading coordinates; the last two
// are 0) of contiguous or compact data.
func (d *dataset) readPlane(idx, chunk []int, dst []byte) error {
	n := len(d.dims)
	es := uint64(d.dt.size)
	var off uint64
	for i := 0; i < n; i++ {
		off = off*d.dims[i] + uint64(idx[i]*chunk[i])
	}
	off *= es
	if d.layout == layoutCompact {
		if off > uint64(len(d.compact)) {
			return errorf("%s: plane beyond the compact data", d.path)
		}
		copy(dst, d.compact[off:])
	} else if d.addr == undef {
		d.fillBuf(dst)
		return nil
	} else {
		// A band of rows; the last band of a plane may be cut short.
		rows := min(chunk[n-2], int(d.dims[n-2])-idx[n-2]*chunk[n-2])
		want := rows * chunk[n-1] * int(es)
		if rows < 0 || want > len(dst) {
			return errorf("%s: band %v outside the plane", d.path, idx)
		}
		if err := d.h.readInto(dst[:want], d.addr+off, d.path+": plane"); err != nil {
			return err
		}
		clear(dst[want:])
	}
	if d.dt.bigEndian {
		loader.SwapBytes(dst, int(es))
	}
	return nil
}

// cropEdge zeroes the samples of the chunk at idx that lie beyond shape.
func cropEdge(dst []byte, idx, chunk, shape []int, es int) {
	n := len(chunk)
	edge := false
	for i := 0; i < n; i++ {
		if (idx[i]+1)*chunk[i] > shape[i] {
			edge = true
		}
	}
	if !edge {
		return
	}
	// Walk rows of the last dimension.
	rows := 1
	for i := 0; i < n-1; i++ {
		rows *= chunk[i]
	}
	co := make([]int, n-1)
	rowBytes := chunk[n-1] * es
	keepX := min(chunk[n-1], shape[n-1]-idx[n-1]*chunk[n-1]) * es
	for r := 0; r < rows; r++ {
		in := true
		for i := 0; i < n-1; i++ {
			if idx[i]*chunk[i]+co[i] >= shape[i] {
				in = false
			}
		}
		row := dst[r*rowBytes : (r+1)*rowBytes]
		if !in {
			clear(row)
		} else if keepX < rowBytes {
			clear(row[max(keepX, 0):])
		}
		for i := n - 2; i >= 0; i-- {
			co[i]++
			if co[i] < chunk[i] {
				break
			}
			co[i] = 0
		}
	}
}
