package hdf5

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// BigDataViewer datasets are an XML file (SpimData) naming an HDF5 file
// (ImageLoader format="bdv.hdf5") whose groups hold, per view setup s,
// s<ss>/resolutions (the downsampling factors x, y, z of each mipmap
// level) and, per time point t, t<ttttt>/s<ss>/<level>/cells (Z, Y, X).
// Setups that differ only in their channel attribute are the C axis of
// one image; otherwise each setup is a series. Time points are the T
// axis, mipmap levels the stored levels. The spacing is the scale of the
// setup's registration (its affine transforms composed), in the unit of
// its voxelSize; the voxelSize itself when there is no registration.
// int16 cells hold unsigned samples (BigDataViewer's convention) and read
// as uint16.

const bdvFormat = "bdv"

// bdv is BigDataViewer XML as the registry knows it: a file named
// .xml whose first bytes hold a SpimData element.
var bdv = loader.Format{
	Name: bdvFormat, Titles: []string{"BigDataViewer"}, Open: OpenBDV, Exts: []string{".xml"},
	Sniff: func(path string, head []byte) bool {
		return loader.HasExt(path, ".xml") && bytes.Contains(head, []byte("<SpimData"))
	},
}

func init() { loader.Register(bdv) }

// MatchBDV reports whether path is an XML file whose head holds a
// SpimData element.
func MatchBDV(path string, head []byte) bool { return bdv.Claims(path, head) }

type bdvPath struct {
	Type string `xml:"type,attr"`
	Path string `xml:",chardata"`
}

type spimData struct {
	BasePath bdvPath `xml:"BasePath"`
	Seq      struct {
		Loader struct {
			Format string  `xml:"format,attr"`
			HDF5   bdvPath `xml:"hdf5"`
			N5     bdvPath `xml:"n5"`
		} `xml:"ImageLoader"`
		Setups []bdvSetup `xml:"ViewSetups>ViewSetup"`
		Times  struct {
			Type    string `xml:"type,attr"`
			First   string `xml:"first"`
			Last    string `xml:"last"`
			Pattern string `xml:"integerpattern"`
		} `xml:"Timepoints"`
	} `xml:"SequenceDescription"`
	Regs []struct {
		T          int `xml:"timepoint,attr"`
		Setup      int `xml:"setup,attr"`
		Transforms []struct {
			Affine string `xml:"affine"`
		} `xml:"ViewTransform"`
	} `xml:"ViewRegistrations>ViewRegistration"`
}

type bdvSetup struct {
	ID    int    `xml:"id"`
	Name  string `xml:"name"`
	Size  string `xml:"size"`
	Voxel struct {
		Unit string `xml:"unit"`
		Size string `xml:"size"`
	} `xml:"voxelSize"`
	Attrs struct {
		Any []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"attributes"`
}

// attrsBut is the setup's attributes other than name, as one string.
func (s *bdvSetup) attrsBut(name string) string {
	var b strings.Builder
	for _, a := range s.Attrs.Any {
		if a.XMLName.Local != name {
			fmt.Fprintf(&b, "%s=%s;", a.XMLName.Local, strings.TrimSpace(a.Value))
		}
	}
	return b.String()
}

func bdvError(path, format string, a ...any) error {
	return loader.Errorf(bdvFormat, format, a...)
}

// maxXML bounds the SpimData file read.
const maxXML = 64 << 20

// OpenBDV opens a BigDataViewer XML + HDF5 dataset: the first series.
func OpenBDV(ctx context.Context, path string) (loader.Source, error) {
	return openBDV(ctx, path, 0)
}

func openBDV(ctx context.Context, path string, series int) (loader.Source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	if st.Size() > maxXML {
		return nil, bdvError(path, "XML of %d bytes", st.Size())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	var sd spimData
	if err := xml.Unmarshal(raw, &sd); err != nil {
		return nil, bdvError(path, "XML: %v", err)
	}
	switch f := sd.Seq.Loader.Format; f {
	case "bdv.hdf5":
	case "bdv.n5":
	default:
		return nil, &loader.UnsupportedError{Format: bdvFormat, Feature: fmt.Sprintf("image loader %q", f)}
	}
	dir := filepath.Dir(path)
	base := strings.TrimSpace(sd.BasePath.Path)
	if base != "" && sd.BasePath.Type != "absolute" {
		base = filepath.Join(dir, base)
	} else if base == "" {
		base = dir
	}
	if sd.Seq.Loader.Format == "bdv.n5" {
		return openBDVN5(ctx, path, base, &sd, series)
	}
	h5 := strings.TrimSpace(sd.Seq.Loader.HDF5.Path)
	if h5 == "" {
		return nil, bdvError(path, "the image loader names no HDF5 file")
	}
	if sd.Seq.Loader.HDF5.Type != "absolute" {
		h5 = filepath.Join(base, h5)
	}
	times, err := bdvTimes(sd.Seq.Times.Type, sd.Seq.Times.First, sd.Seq.Times.Last, sd.Seq.Times.Pattern)
	if err != nil {
		return nil, bdvError(path, "%v", err)
	}
	setups := sd.Seq.Setups
	if len(setups) == 0 || len(setups) > 1<<12 {
		return nil, bdvError(path, "%d view setups", len(setups))
	}
	// Setups as channels when they differ in the channel attribute only.
	asChannels := len(setups) > 1
	for _, s := range setups[1:] {
		if s.Size != setups[0].Size || s.Voxel != setups[0].Voxel || s.attrsBut("channel") != setups[0].attrsBut("channel") {
			asChannels = false
		}
	}
	groups := [][]bdvSetup{setups}
	if !asChannels {
		groups = nil
		for _, s := range setups {
			groups = append(groups, []bdvSetup{s})
		}
	}
	if series < 0 || series >= len(groups) {
		return nil, fmt.Errorf("no series %d", series)
	}
	h5, note, err := loader.Companion(ctx, path, "the HDF5 file", h5)
	if err != nil {
		return nil, err
	}
	h, err := OpenFile(h5)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h5, err)
	}
	src, err := h.bdvSource(&sd, groups, series, times)
	if err == nil {
		if verr := src.meta.Validate(); verr != nil {
			err = errorf("%v", verr)
		}
	}
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("%s: %w", filepath.Base(h5), err)
	}
	src.path = path
	src.meta.DataFiles = []string{h5}
	if note != "" {
		src.meta.Notes = append(src.meta.Notes, note)
	}
	if len(groups) > 1 {
		names := make([]string, len(groups))
		metas := make([]*loader.Meta, len(groups))
		for i, g := range groups {
			names[i] = g[0].Name
			if names[i] == "" {
				names[i] = fmt.Sprintf("setup %d", g[0].ID)
			}
			// The series' shapes are those the XML gives (x y z).
			sz := fields(g[0].Size)
			shape := []int{1, 1, 1}
			if len(sz) == 3 {
				shape = []int{int(sz[2]), int(sz[1]), int(sz[0])}
			}
			ax := "ZYX"
			if len(times) > 1 {
				ax, shape = "TZYX", append([]int{len(times)}, shape...)
			}
			metas[i] = &loader.Meta{Axes: ax, Shape: shape, DType: src.meta.DType}
		}
		src.meta.Series = loader.SeriesList(names, metas)
		src.meta.SeriesIndex = series
		src.open = func(ctx context.Context, i int) (loader.Source, error) { return openBDV(ctx, path, i) }
	}
	return src, nil
}

// bdvTimes lists the time points of a Timepoints element.
func bdvTimes(typ, first, last, pattern string) ([]int, error) {
	switch typ {
	case "range", "":
		a, err1 := strconv.Atoi(strings.TrimSpace(first))
		b, err2 := strconv.Atoi(strings.TrimSpace(last))
		if typ == "" && first == "" {
			return []int{0}, nil
		}
		if err1 != nil || err2 != nil || b < a || b-a >= 1<<20 || a < 0 {
			return nil, fmt.Errorf("time points %q..%q", first, last)
		}
		out := make([]int, 0, b-a+1)
		for t := a; t <= b; t++ {
			out = append(out, t)
		}
		return out, nil
	case "pattern", "list":
		var out []int
		for _, part := range strings.Split(pattern, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			lo, hi, isRange := strings.Cut(part, "-")
			a, err := strconv.Atoi(strings.TrimSpace(lo))
			if err != nil || a < 0 {
				return nil, fmt.Errorf("time point pattern %q", pattern)
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
					return nil, fmt.Errorf("time point pattern %q", pattern)
				}
			}
			for t := a; t <= b; t++ {
				out = append(out, t)
				if len(out) > 1<<20 {
					return nil, fmt.Errorf("time point pattern %q: too many", pattern)
				}
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no time points in %q", pattern)
		}
		return out, nil
	}
	return nil, fmt.Errorf("time points of type %q", typ)
}

// composeAffine composes a registration's transforms (3x4, row-major) in order.
func composeAffine(list []string) ([12]float64, bool) {
	m := [12]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}
	ok := false
	for _, s := range list {
		f := fields(s)
		if len(f) != 12 {
			continue
		}
		var a [12]float64
		copy(a[:], f)
		// m = m * a
		var r [12]float64
		for i := 0; i < 3; i++ {
			for j := 0; j < 4; j++ {
				v := 0.0
				for k := 0; k < 3; k++ {
					v += m[4*i+k] * a[4*k+j]
				}
				if j == 3 {
					v += m[4*i+3]
				}
				r[4*i+j] = v
			}
		}
		m, ok = r, true
	}
	return m, ok
}

// bdvSource builds the image of setups groups[g].
// geometry is the spacing and origin (x, y, z) of setup's voxels at time
// point t: from its registration (the affine transforms composed), else
// its voxelSize.
func (sd *spimData) geometry(setup bdvSetup, t int) (spacing, origin [3]float64) {
	spacing = [3]float64{1, 1, 1}
	if vs := fields(setup.Voxel.Size); len(vs) == 3 {
		copy(spacing[:], vs)
	}
	for _, r := range sd.Regs {
		if r.Setup != setup.ID || r.T != t {
			continue
		}
		var list []string
		for _, tr := range r.Transforms {
			list = append(list, tr.Affine)
		}
		if a, ok := composeAffine(list); ok {
			for j := 0; j < 3; j++ {
				spacing[j] = math.Sqrt(a[j]*a[j] + a[4+j]*a[4+j] + a[8+j]*a[8+j])
				origin[j] = a[4*j+3]
			}
		}
	}
	return spacing, origin
}

func (h *File) bdvSource(sd *spimData, groups [][]bdvSetup, g int, times []int) (*source, error) {
	setups := groups[g]
	nt, nc := len(times), len(setups)
	// Mipmap levels from the first setup's resolutions.
	res, err := h.readMatrix(fmt.Sprintf("/s%02d/resolutions", setups[0].ID))
	if err != nil {
		return nil, err
	}
	if len(res) == 0 || len(res) > 32 {
		return nil, errorf("s%02d/resolutions: %d levels", setups[0].ID, len(res))
	}
	axes, lead := "", 0
	if nt > 1 {
		axes, lead = "T", 1
	}
	if nc > 1 {
		axes += "C"
		lead++
	}
	axes += "ZYX"
	spacing, origin := sd.geometry(setups[0], times[0])
	unit := rawvol.UnitName(setups[0].Voxel.Unit)
	m := &loader.Meta{Format: bdvFormat, Axes: axes}
	src := &source{h: h, meta: m}
	for r, f := range res {
		if len(f) != 3 || f[0] < 1 || f[1] < 1 || f[2] < 1 {
			return nil, errorf("s%02d/resolutions: level %d factors %v", setups[0].ID, r, f)
		}
		lv := level{lead: lead}
		var ll loader.Level
		var dims []uint64
		var chunk []int
		// The first view gives the level's geometry; the others are opened
		// when first read, and checked then.
		p := fmt.Sprintf("/t%05d/s%02d/%d/cells", times[0], setups[0].ID, r)
		d, err := h.datasetAt(p)
		if err != nil {
			return nil, err
		}
		if d != nil {
			if len(d.dims) != 3 {
				return nil, errorf("%s has %d dimensions, want 3", p, len(d.dims))
			}
			if err := d.image(); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			dims, chunk = d.dims, d.chunks3()
			lv.plane = d.layout != layoutChunked
			dt := d.dtype
			if dt == loader.Int16 {
				dt = loader.Uint16
				if r == 0 {
					m.Notes = append(m.Notes, "int16 cells read as uint16 (BigDataViewer's convention)")
				}
			}
			if r == 0 {
				m.DType = dt
			} else if dt != m.DType {
				return nil, errorf("%s holds %v, level 0 %v", p, dt, m.DType)
			}
			geom := geometry{size: []int{int(dims[0]), int(dims[1]), int(dims[2])}, chunk: chunk, dtype: d.dtype, planar: lv.plane}
			r := r
			lv.lazy = newLazySets(nt*nc, func(i int) (*dataset, error) {
				p := fmt.Sprintf("/t%05d/s%02d/%d/cells", times[i/nc], setups[i%nc].ID, r)
				d, err := h.datasetAt(p)
				if err != nil || d == nil {
					return nil, err
				}
				return d, geom.fits(d, p)
			})
		}
		if dims == nil {
			return nil, errorf("no cells of level %d", r)
		}
		lv.shape = []int{int(dims[0]), int(dims[1]), int(dims[2])}
		for i := 0; i < lead; i++ {
			ll.Shape = append(ll.Shape, []int{nt, nc}[strings.IndexByte("TC", axes[i])])
			ll.Chunk = append(ll.Chunk, 1)
			ll.Scale = append(ll.Scale, 1)
			ll.Translation = append(ll.Translation, 0)
		}
		ll.Shape = append(ll.Shape, lv.shape...)
		ll.Chunk = append(ll.Chunk, chunk...)
		for i := 0; i < 3; i++ {
			j := 2 - i // z, y, x -> x, y, z index
			ll.Scale = append(ll.Scale, spacing[j]*f[j])
			ll.Translation = append(ll.Translation, origin[j]+(f[j]-1)/2*spacing[j])
		}
		m.Levels = append(m.Levels, ll)
		src.levels = append(src.levels, lv)
	}
	m.Shape = append([]int(nil), m.Levels[0].Shape...)
	m.Spacing = append([]float64(nil), m.Levels[0].Scale...)
	m.Units = make([]string, len(axes))
	for i := lead; i < len(axes); i++ {
		m.Units[i] = unit
	}
	if nc > 1 {
		for _, s := range setups {
			m.Channels = append(m.Channels, loader.Channel{Label: s.Name})
		}
	}
	return src, nil
}

// datasetAt opens the dataset at path p, or nil when there is none.
func (h *File) datasetAt(p string) (*dataset, error) {
	o, err := h.lookup(p)
	if err != nil {
		var fe *loader.FormatError
		if ok := asFormatError(err, &fe); ok && strings.HasPrefix(fe.Msg, "no object") {
			return nil, nil
		}
		return nil, err
	}
	d, ok, err := h.openDataset(o, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf("%s is not a dataset", p)
	}
	d.obj = o
	return d, nil
}

// readMatrix reads a small 2-D numeric dataset (BigDataViewer's
// resolutions) as rows of float64.
func (h *File) readMatrix(p string) ([][]float64, error) {
	d, err := h.datasetAt(p)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, errorf("no %s", p)
	}
	if len(d.dims) != 2 || d.dims[0] > 64 || d.dims[1] > 64 || (d.dt.class != classFixed && d.dt.class != classFloat) {
		return nil, errorf("%s: not a small matrix", p)
	}
	es := d.dt.size
	n := int(d.dims[0] * d.dims[1])
	var raw []byte
	switch d.layout {
	case layoutCompact:
		raw = d.compact
	case layoutContiguous:
		if raw, err = h.readAt(d.addr, int64(n*es), p); err != nil {
			return nil, err
		}
	default:
		return nil, unsupported("%s: chunked matrix", p)
	}
	if len(raw) < n*es {
		return nil, errorf("%s: %d bytes for %d values", p, len(raw), n)
	}
	out := make([][]float64, d.dims[0])
	for i := range out {
		for j := 0; j < int(d.dims[1]); j++ {
			out[i] = append(out[i], d.dt.value(raw[(i*int(d.dims[1])+j)*es:]))
		}
	}
	return out, nil
}
