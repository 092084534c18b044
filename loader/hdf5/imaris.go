package hdf5

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// Imaris (.ims) files are HDF5 files laid out as
//
//	/DataSet/ResolutionLevel N/TimePoint T/Channel C/Data   (Z, Y, X)
//	/DataSetInfo/Image       ExtMin0..2, ExtMax0..2, Unit, X, Y, Z
//	/DataSetInfo/Channel C   Name, Color ("r g b" in 0..1), ColorRange
//
// with every attribute an array of one-byte strings. Data is padded to
// whole chunks; the image's size per level is given by the Channel
// group's ImageSizeX/Y/Z (DataSetInfo/Image's X, Y, Z for level 0 when
// those are missing), and the stored levels are cropped to it. The image
// is "TCZYX", T and C left out when there is one of them.

// numbered maps the links of group o named prefix followed by a number to
// their addresses, by that number, and returns one more than the largest.
func (h *File) numbered(o *object, prefix string) (map[int]uint64, int, error) {
	ls, err := h.links(o)
	if err != nil {
		return nil, 0, err
	}
	out := map[int]uint64{}
	n := 0
	for _, l := range ls {
		s, ok := strings.CutPrefix(l.name, prefix)
		if !ok {
			continue
		}
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= 1<<16 {
			continue
		}
		out[i] = l.addr
		n = max(n, i+1)
	}
	return out, n, nil
}

// attrFloat parses attribute name of a as a number.
func attrFloat(a map[string]Attr, name string) (float64, bool) {
	v, ok := a[name]
	if !ok {
		return 0, false
	}
	if !v.IsText {
		if len(v.Nums) > 0 {
			return v.Nums[0], true
		}
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64)
	return f, err == nil
}

// openImaris opens an Imaris file's image; ok is false for other files.
func (h *File) openImaris(p string) (*source, bool, error) {
	root, err := h.readObject(h.rootAddr)
	if err != nil {
		return nil, false, err
	}
	ls, err := h.links(root)
	if err != nil {
		return nil, false, err
	}
	var dsAddr, infoAddr uint64 = undef, undef
	for _, l := range ls {
		switch l.name {
		case "DataSet":
			dsAddr = l.addr
		case "DataSetInfo":
			infoAddr = l.addr
		}
	}
	if dsAddr == undef || infoAddr == undef {
		return nil, false, nil
	}
	fail := func(format string, a ...any) (*source, bool, error) {
		return nil, true, errorf("Imaris: "+format, a...)
	}
	dsObj, err := h.readObject(dsAddr)
	if err != nil {
		return nil, true, err
	}
	levels, nl, err := h.numbered(dsObj, "ResolutionLevel ")
	if err != nil {
		return nil, true, err
	}
	if nl == 0 || len(levels) != nl {
		return fail("no resolution levels 0..%d", nl-1)
	}
	// Image extents and channel display.
	var info map[string]Attr
	infoObj, err := h.readObject(infoAddr)
	if err != nil {
		return nil, true, err
	}
	infoGroups, _, err := h.numbered(infoObj, "Channel ")
	if err != nil {
		return nil, true, err
	}
	if il, err := h.links(infoObj); err == nil {
		for _, l := range il {
			if l.name == "Image" {
				if o, err := h.readObject(l.addr); err == nil {
					info, _ = h.attrs(o)
				}
			}
		}
	}
	type lv struct {
		tps    map[int]uint64 // time point groups
		size   [3]int         // Z, Y, X
		chunk  []int
		dtype  loader.DType
		planar bool
	}
	var lvs []lv
	nt, nc := 0, 0
	for r := 0; r < nl; r++ {
		lo, err := h.readObject(levels[r])
		if err != nil {
			return nil, true, err
		}
		tps, ntr, err := h.numbered(lo, "TimePoint ")
		if err != nil {
			return nil, true, err
		}
		if r == 0 {
			nt = ntr
		}
		if ntr == 0 || ntr != nt {
			return fail("resolution level %d has %d time points, level 0 %d", r, ntr, nt)
		}
		// The first time point's first channel gives the level's geometry;
		// the other data are opened when first read, and checked then.
		l := lv{tps: tps}
		addr, ok := tps[0]
		if !ok {
			return fail("resolution level %d has no time point 0", r)
		}
		to, err := h.readObject(addr)
		if err != nil {
			return nil, true, err
		}
		chs, ncr, err := h.numbered(to, "Channel ")
		if err != nil {
			return nil, true, err
		}
		if r == 0 {
			nc = ncr
		}
		if ncr != nc || nc == 0 {
			return fail("level %d time point 0 has %d channels, want %d", r, ncr, nc)
		}
		caddr, ok := chs[0]
		if !ok {
			return fail("resolution level %d has no channel 0", r)
		}
		co, err := h.readObject(caddr)
		if err != nil {
			return nil, true, err
		}
		name := fmt.Sprintf("/DataSet/ResolutionLevel %d/TimePoint 0/Channel 0/Data", r)
		d, err := h.childDataset(co, "Data", name)
		if err != nil {
			return nil, true, err
		}
		if d == nil {
			return fail("no %s", name)
		}
		if len(d.dims) != 3 {
			return fail("%s has %d dimensions, want 3", name, len(d.dims))
		}
		if err := d.image(); err != nil {
			return nil, true, fmt.Errorf("%s: %w", name, err)
		}
		l.chunk, l.dtype, l.planar = d.chunks3(), d.dtype, d.layout != layoutChunked
		ca, _ := h.attrs(co)
		for i, k := range []string{"ImageSizeZ", "ImageSizeY", "ImageSizeX"} {
			v, ok := attrFloat(ca, k)
			if !ok && r == 0 {
				v, ok = attrFloat(info, k[len(k)-1:])
			}
			n := int(d.dims[i])
			if ok && v >= 1 && v <= float64(n) {
				n = int(v)
			}
			l.size[i] = n
		}
		if r > 0 && l.dtype != lvs[0].dtype {
			return fail("resolution level %d holds %v, level 0 %v", r, l.dtype, lvs[0].dtype)
		}
		lvs = append(lvs, l)
	}
	// Axes: T and C when there are several.
	axes, lead := "", 0
	if nt > 1 {
		axes += "T"
		lead++
	}
	if nc > 1 {
		axes += "C"
		lead++
	}
	axes += "ZYX"
	// Physical extents: the image spans ExtMin..ExtMax on each axis.
	// Without a Unit attribute the extents are in Imaris's default unit.
	unit := "micrometer"
	if u, ok := info["Unit"]; ok && u.IsText {
		unit = rawvol.UnitName(u.Str)
	}
	var ext [3][2]float64 // Z, Y, X
	hasExt := true
	for i, k := range []string{"2", "1", "0"} {
		lo, ok1 := attrFloat(info, "ExtMin"+k)
		hi, ok2 := attrFloat(info, "ExtMax"+k)
		if !ok1 || !ok2 || !(hi > lo) || math.IsInf(hi-lo, 0) {
			hasExt = false
		}
		ext[i] = [2]float64{lo, hi}
	}
	m := &loader.Meta{Format: "imaris", Axes: axes, DType: lvs[0].dtype}
	src := &source{h: h, meta: m, path: p}
	for r, l := range lvs {
		var ll loader.Level
		level := level{lead: lead, shape: l.size[:], plane: l.planar}
		for i := 0; i < lead; i++ {
			ll.Shape = append(ll.Shape, []int{nt, nc}[strings.IndexByte("TC", axes[i])])
			ll.Chunk = append(ll.Chunk, 1)
			ll.Scale = append(ll.Scale, 1)
			ll.Translation = append(ll.Translation, 0)
		}
		ll.Shape = append(ll.Shape, l.size[:]...)
		ll.Chunk = append(ll.Chunk, l.chunk...)
		for i := 0; i < 3; i++ {
			s, tr := 1.0, 0.0
			if hasExt {
				s = (ext[i][1] - ext[i][0]) / float64(l.size[i])
				tr = ext[i][0] + s/2
			}
			ll.Scale = append(ll.Scale, s)
			ll.Translation = append(ll.Translation, tr)
		}
		tps, r := l.tps, r
		geom := geometry{size: l.size[:], chunk: l.chunk, dtype: l.dtype, planar: l.planar}
		level.lazy = newLazySets(nt*nc, func(i int) (*dataset, error) {
			t, c := i/nc, i%nc
			addr, ok := tps[t]
			if !ok {
				return nil, nil
			}
			to, err := h.readObject(addr)
			if err != nil {
				return nil, err
			}
			chs, _, err := h.numbered(to, "Channel ")
			if err != nil {
				return nil, err
			}
			caddr, ok := chs[c]
			if !ok {
				return nil, nil
			}
			co, err := h.readObject(caddr)
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("/DataSet/ResolutionLevel %d/TimePoint %d/Channel %d/Data", r, t, c)
			d, err := h.childDataset(co, "Data", name)
			if err != nil || d == nil {
				return nil, err
			}
			return d, geom.fits(d, name)
		})
		m.Levels = append(m.Levels, ll)
		src.levels = append(src.levels, level)
		if r == 0 {
			m.Shape = append([]int(nil), ll.Shape...)
			m.Spacing = append([]float64(nil), ll.Scale...)
		}
	}
	m.Units = make([]string, len(axes))
	for i := lead; i < len(axes); i++ {
		if hasExt {
			m.Units[i] = unit
		}
	}
	// The T step: the time from the first to the last time point
	// (DataSetInfo/TimeInfo TimePoint1..N), evenly divided.
	if nt > 1 && axes[0] == 'T' {
		if ti, err := h.lookup("/DataSetInfo/TimeInfo"); err == nil {
			a, _ := h.attrs(ti)
			t0, ok0 := imarisTime(a, "TimePoint1")
			t1, ok1 := imarisTime(a, fmt.Sprintf("TimePoint%d", nt))
			if dt := t1.Sub(t0).Seconds() / float64(nt-1); ok0 && ok1 && dt > 0 {
				m.Spacing[0], m.Units[0] = dt, "second"
				for i := range m.Levels {
					m.Levels[i].Scale[0] = dt
				}
			}
		}
	}
	// Channels.
	for c := 0; c < nc; c++ {
		var ch loader.Channel
		if addr, ok := infoGroups[c]; ok {
			if o, err := h.readObject(addr); err == nil {
				a, _ := h.attrs(o)
				if v, ok := a["Name"]; ok && v.IsText {
					ch.Label = v.Str
				}
				if v, ok := a["Color"]; ok {
					if f := fields(v.Text()); len(f) == 3 {
						for i := range f {
							ch.Color[i] = uint8(math.Round(math.Max(0, math.Min(1, f[i])) * 255))
						}
						ch.HasColor = true
					}
				}
				if v, ok := a["ColorRange"]; ok {
					if f := fields(v.Text()); len(f) == 2 && f[1] > f[0] {
						ch.Lo, ch.Hi, ch.HasWindow = f[0], f[1], true
					}
				}
			}
		}
		m.Channels = append(m.Channels, ch)
	}
	return src, true, nil
}

// imarisTime parses a TimeInfo attribute ("2021-05-04 10:00:02.500").
func imarisTime(a map[string]Attr, name string) (time.Time, bool) {
	v, ok := a[name]
	if !ok || !v.IsText {
		return time.Time{}, false
	}
	s := strings.TrimSpace(v.Str)
	for _, layout := range []string{"2006-01-02 15:04:05.000", "2006-01-02 15:04:05", "2006-01-02 15:04:05.000000"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// fields parses the space-separated numbers of s; nil if any is not one.
func fields(s string) []float64 {
	var out []float64
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// childDataset opens the dataset linked as name from group o (nil when
// there is none).
func (h *File) childDataset(o *object, name, path string) (*dataset, error) {
	ls, err := h.links(o)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		if l.name != name {
			continue
		}
		do, err := h.readObject(l.addr)
		if err != nil {
			return nil, err
		}
		d, ok, err := h.openDataset(do, path)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf("%s is not a dataset", path)
		}
		d.obj = do
		return d, nil
	}
	return nil, nil
}
