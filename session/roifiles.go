package session

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"vastview/base/fsutil"
	"vastview/loader"
	"vastview/measure"
	"vastview/render"
)

// ResultsCSV is the measurements table of the regions as CSV, a row per
// region and visible channel, in the columns of Fiji's Results table
// (measure.ResultColumns; Label is "ROI name:channel name"). Rows still
// measuring hold their estimate.
func (s *Session) ResultsCSV() []byte {
	var rows []measure.Result
	for _, r := range s.Results() {
		if r.Kind == KindLine || r.Count == 0 && !r.Final {
			continue
		}
		rows = append(rows, measure.Result{Label: r.Name + ":" + r.Channel, Stats: r.Stats})
	}
	var b bytes.Buffer
	measure.WriteResults(&b, rows)
	return b.Bytes()
}

// ExportResults writes the measurements table (ResultsCSV) to path.
func (s *Session) ExportResults(path string) error {
	return fsutil.WriteAtomic(path, s.ResultsCSV())
}

// toMeasure is r as package measure's list of ROIs keeps it: a set of
// points becomes one entry per point, of the set's name.
func (r *ROI) toMeasure() []measure.ROI {
	mr := measure.ROI{Name: r.Name, Plane: r.MeasurePlane()}
	switch r.Kind {
	case KindLine:
		l := r.Line()
		mr.Line = &l
	case KindPoints:
		out := make([]measure.ROI, len(r.Pts))
		for k, p := range r.Pts {
			out[k] = mr
			out[k].Plane.Index = r.Ats[k]
			out[k].Point = &measure.Point{At: measurePt(p)}
		}
		return out
	default:
		mr.Region = r.Region()
		if r.Depth > 1 {
			mr.From, mr.To = r.At, r.At+r.Depth
		}
	}
	return []measure.ROI{mr}
}

// fromMeasure turns package measure's ROIs into the list's: consecutive
// points of one name become a set. Regions on turned planes are left out
// (skipped counts them).
func fromMeasure(list []measure.ROI) (out []ROI, skipped int) {
	for _, mr := range list {
		if mr.Plane.Oblique != nil && mr.Line == nil && mr.Point == nil {
			skipped++
			continue
		}
		r := ROI{Name: mr.Name, Plane: mr.Plane.Orientation, T: mr.Plane.T, At: mr.Plane.Index, Width: 1, Obl: mr.Plane.Oblique}
		switch {
		case mr.Point != nil:
			p := render.Point{Row: mr.Point.At.Row, Col: mr.Point.At.Col}
			if n := len(out); n > 0 && out[n-1].Kind == KindPoints && out[n-1].Name == r.Name &&
				out[n-1].Plane == r.Plane && out[n-1].T == r.T && (r.Obl == nil) == (out[n-1].Obl == nil) &&
				(r.Obl == nil || *r.Obl == *out[n-1].Obl) {
				out[n-1].Pts = append(out[n-1].Pts, p)
				out[n-1].Ats = append(out[n-1].Ats, r.At)
				continue
			}
			r.Kind, r.Pts, r.Ats = KindPoints, []render.Point{p}, []int{r.At}
		case mr.Line != nil:
			r.Kind, r.Width = KindLine, max(1, mr.Line.Width)
			r.Pts = []render.Point{{Row: mr.Line.From.Row, Col: mr.Line.From.Col}, {Row: mr.Line.To.Row, Col: mr.Line.To.Col}}
		default:
			switch g := mr.Region.(type) {
			case measure.Rect:
				r.Kind = KindRect
				r.Pts = []render.Point{{Row: float64(g.Row0) - 0.5, Col: float64(g.Col0) - 0.5},
					{Row: float64(g.Row1) - 0.5, Col: float64(g.Col1) - 0.5}}
			case measure.Ellipse:
				r.Kind = KindEllipse
				r.Pts = []render.Point{{Row: g.Center.Row - g.RadiusRow, Col: g.Center.Col - g.RadiusCol},
					{Row: g.Center.Row + g.RadiusRow, Col: g.Center.Col + g.RadiusCol}}
			case measure.Polygon:
				r.Kind = KindPolygon
				for _, v := range g.Vertices {
					r.Pts = append(r.Pts, render.Point{Row: v.Row, Col: v.Col})
				}
			default:
				skipped++
				continue
			}
			if mr.To > mr.From {
				r.At, r.Depth = mr.From, mr.To-mr.From
			}
		}
		out = append(out, r)
	}
	return out, skipped
}

// encodeROIs is the JSON of list on data m (measure.WriteROIs: GeoJSON
// with physical coordinates, and the sample coordinates).
func encodeROIs(m *loader.Meta, list []ROI) ([]byte, error) {
	var all []measure.ROI
	for i := range list {
		all = append(all, list[i].toMeasure()...)
	}
	var b bytes.Buffer
	if err := measure.WriteROIs(&b, m, all); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ExportROIs writes the ROIs to path as JSON (see encodeROIs).
func (s *Session) ExportROIs(path string) error {
	s.mu.Lock()
	if s.data == nil {
		s.mu.Unlock()
		return errors.New("no image shown")
	}
	b, err := encodeROIs(s.data.Pyr.Meta(), s.rois.list)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, b)
}

// ImportROIs adds the ROIs of a JSON file (as ExportROIs writes it, or
// GeoJSON of physical coordinates) to the list.
func (s *Session) ImportROIs(path string) error {
	m := s.Meta()
	if m == nil {
		return errors.New("no image to lay the ROIs on")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	list, err := measure.ReadROIs(f, m)
	if err != nil {
		return err
	}
	rois, skipped := fromMeasure(list)
	s.addROIs(m, rois)
	if skipped > 0 {
		return fmt.Errorf("%d regions on turned planes were left out", skipped)
	}
	return nil
}

// addROIs adds rois, read for data m, if m is still the data shown.
func (s *Session) addROIs(m *loader.Meta, rois []ROI) {
	s.mu.Lock()
	if s.data == nil || s.data.Pyr.Meta() != m {
		s.mu.Unlock()
		return
	}
	for _, r := range rois {
		s.addROILocked(r)
	}
	s.unlockNotify(ROIChanged)
}

// restoreROIsLocked lays the ROIs remembered with the data shown over it.
func (s *Session) restoreROIsLocked() {
	if !s.data.Persist() {
		return
	}
	saved, ok := s.prefs.View(s.data.Name)
	if !ok || len(saved.ROIs) == 0 {
		return
	}
	list, err := measure.ReadROIs(bytes.NewReader(saved.ROIs), s.data.Pyr.Meta())
	if err != nil {
		return // an older or damaged entry: nothing drawn
	}
	rois, _ := fromMeasure(list)
	for _, r := range rois {
		s.addROILocked(r)
	}
	s.rois.sel = -1
}

// measurePt is plane position p as package measure has it.
func measurePt(p render.Point) measure.Pt { return measure.Pt{Row: p.Row, Col: p.Col} }

// ExportPoints writes the points of set i to path as napari's points
// layer saves a CSV (measure.WritePoints): index, then the level-0
// coordinates on every axis but C in the data's order (axis-0, …), then
// each visible channel's value there.
func (s *Session) ExportPoints(i int, path string) error {
	s.mu.Lock()
	if s.data == nil || i < 0 || i >= len(s.rois.list) || s.rois.list[i].Kind != KindPoints {
		s.mu.Unlock()
		return errors.New("no set of points selected")
	}
	m := s.data.Pyr.Meta()
	r := s.rois.list[i].clone()
	s.mu.Unlock()
	vals := s.PointValues(i)
	var pts [][]float64
	for k, p := range r.Pts {
		pl := r.MeasurePlane()
		pl.Index = r.Ats[k]
		pts = append(pts, measure.PointCoords(m, pl, measurePt(p)))
	}
	var props []measure.Property
	if len(vals) > 0 && len(vals[0].Values) > 0 {
		chans := measureChannels(m, s.View())
		for c := range vals[0].Values {
			p := measure.Property{Name: "value-" + chanLabel(m, chans[min(c, len(chans)-1)])}
			for _, v := range vals {
				if c < len(v.Values) && v.Found[c] {
					p.Values = append(p.Values, v.Values[c])
				} else {
					p.Values = append(p.Values, math.NaN())
				}
			}
			props = append(props, p)
		}
	}
	var b bytes.Buffer
	if err := measure.WritePoints(&b, pts, props); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, b.Bytes())
}

// ImportPoints adds the points of a CSV as napari's points layer saves it
// (index, axis-0, axis-1, …: level-0 coordinates on every axis of the
// data but C, in its order) as a set of points on XY planes.
func (s *Session) ImportPoints(path string) error {
	m := s.Meta()
	if m == nil {
		return errors.New("no image to lay the points on")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	pts, _, err := measure.ReadPoints(f)
	if err != nil {
		return err
	}
	axes := measure.PointAxes(m.Axes)
	r := ROI{Kind: KindPoints, Plane: render.XY, Name: strings.TrimSuffix(displayName(path), ".csv")}
	for n, p := range pts {
		if len(p) != len(axes) {
			return fmt.Errorf("point %d has %d coordinates; the data's points have %d (%s)", n, len(p), len(axes), axes)
		}
		at := map[byte]float64{}
		for k := range axes {
			at[axes[k]] = p[k]
		}
		z, t := int(math.Floor(at['Z']+0.5)), int(math.Floor(at['T']+0.5))
		if z < 0 || z >= m.Size('Z') || t < 0 || t >= m.Size('T') {
			return fmt.Errorf("point %d lies beyond the data (z %g, t %g)", n, at['Z'], at['T'])
		}
		if n == 0 {
			r.T, r.At = t, z
		} else if t != r.T {
			return fmt.Errorf("point %d is of time point %d, point 0 of %d: a set lies in one", n, t, r.T)
		}
		r.Pts = append(r.Pts, render.Point{Row: at['Y'], Col: at['X']})
		r.Ats = append(r.Ats, z)
	}
	if len(r.Pts) == 0 {
		return errors.New("no points")
	}
	s.addROIs(m, []ROI{r})
	return nil
}
