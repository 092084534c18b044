package hdf5

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// A BigDataViewer XML whose image loader is "bdv.n5" names an N5
// container laid out as BigDataViewer writes it (setupN/timepointM/sK),
// which the N5 reader opens, each setup a series there; here each view
// setup is a series (by its name in the XML), its spacing, unit and
// origin those of the XML's voxel size and registration.

// bdvN5 is one setup of an XML + N5 dataset: the N5 reader's source with
// the XML's geometry.
type bdvN5 struct {
	loader.Source
	meta *loader.Meta
	path string
}

func (s *bdvN5) Meta() *loader.Meta { return s.meta }

// OpenSeries opens setup i of the XML (see loader.SeriesOpener).
func (s *bdvN5) OpenSeries(ctx context.Context, i int) (loader.Source, error) {
	return openBDV(ctx, s.path, i)
}

func openBDVN5(ctx context.Context, path, base string, sd *spimData, series int) (loader.Source, error) {
	n5 := strings.TrimSpace(sd.Seq.Loader.N5.Path)
	if n5 == "" {
		return nil, bdvError(path, "the image loader names no N5 container")
	}
	if sd.Seq.Loader.N5.Type != "absolute" {
		n5 = filepath.Join(base, n5)
	}
	setups := sd.Seq.Setups
	if len(setups) == 0 || len(setups) > 1<<12 {
		return nil, bdvError(path, "%d view setups", len(setups))
	}
	if series < 0 || series >= len(setups) {
		return nil, fmt.Errorf("no series %d (the XML has %d view setups)", series, len(setups))
	}
	su := setups[series]
	times, err := bdvTimes(sd.Seq.Times.Type, sd.Seq.Times.First, sd.Seq.Times.Last, sd.Seq.Times.Pattern)
	if err != nil || len(times) == 0 {
		times = []int{0}
	}
	n5, note, err := loader.Companion(ctx, path, "the N5 container", n5)
	if err != nil {
		return nil, err
	}
	src, held, err := openSetup(ctx, n5, su.ID)
	if err != nil {
		return nil, err
	}
	m := *src.Meta()
	m.Format = bdvFormat
	m.Spacing = append([]float64(nil), m.Spacing...)
	m.Units = append([]string(nil), m.Units...)
	m.Levels = append([]loader.Level(nil), m.Levels...)
	for k := range m.Levels {
		lv := &m.Levels[k]
		lv.Scale = append([]float64(nil), lv.Scale...)
		lv.Translation = append([]float64(nil), lv.Translation...)
	}
	spacing, origin := sd.geometry(su, times[0])
	unit := rawvol.UnitName(su.Voxel.Unit)
	for j, a := range []byte("XYZ") {
		i := m.AxisIndex(a)
		if i < 0 {
			continue
		}
		old := m.Spacing[i]
		m.Spacing[i], m.Units[i] = spacing[j], unit
		for k := range m.Levels {
			lv := &m.Levels[k]
			f := lv.Scale[i] / old
			lv.Scale[i] = f * spacing[j]
			lv.Translation[i] = origin[j] + (f-1)/2*spacing[j]
		}
	}
	m.DataFiles = []string{n5}
	if note != "" {
		m.Notes = append(append([]string(nil), m.Notes...), note)
	}
	names := make([]string, len(setups))
	metas := make([]*loader.Meta, len(setups))
	for i, s := range setups {
		names[i] = s.Name
		if names[i] == "" {
			names[i] = fmt.Sprintf("setup %d", s.ID)
		}
		metas[i] = &loader.Meta{Axes: m.Axes, Shape: m.Shape, DType: m.DType}
		if sz := fields(s.Size); len(sz) == 3 && i != series {
			shape := []int{int(sz[2]), int(sz[1]), int(sz[0])}
			if m.Axes[0] == 'T' {
				shape = append([]int{m.Shape[0]}, shape...)
			}
			dt := m.DType
			if k := setupSeries(held, s.ID); k >= 0 {
				dt = held[k].DType // setups may differ in sample type
			}
			metas[i] = &loader.Meta{Axes: m.Axes, Shape: shape, DType: dt}
		}
	}
	m.Series, m.SeriesIndex = nil, 0
	if len(setups) > 1 {
		m.Series, m.SeriesIndex = loader.SeriesList(names, metas), series
	}
	if err := m.Validate(); err != nil {
		src.Close()
		return nil, bdvError(path, "%v", err)
	}
	return &bdvN5{Source: src, meta: &m, path: path}, nil
}

// openSetup opens view setup id of the N5 container: the N5 reader's
// series "setupID" (its time points joined), or "setupID/timepointT" when
// the setup has one time point. It returns the container's series too.
func openSetup(ctx context.Context, n5 string, id int) (loader.Source, []loader.Series, error) {
	c, err := loader.Open(ctx, n5)
	if err != nil {
		return nil, nil, err
	}
	held := c.Meta().Series
	if i := setupSeries(held, id); i >= 0 {
		src, err := loader.OpenSelected(ctx, c, strconv.Itoa(i))
		return src, held, err
	}
	if len(held) == 0 && id == 0 {
		return c, nil, nil
	}
	c.Close()
	return nil, nil, fmt.Errorf("%s holds no view setup %d", filepath.Base(n5), id)
}

// setupSeries is the index in an N5 container's series of view setup id,
// or -1.
func setupSeries(held []loader.Series, id int) int {
	name := "setup" + strconv.Itoa(id)
	for i, s := range held {
		if s.Name == name || strings.HasPrefix(s.Name, name+"/") {
			return i
		}
	}
	return -1
}
