package session

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"vastview/base/fsutil"
	"vastview/loader"
	"vastview/measure"
	"vastview/render"
)

// ResultsColumns are the columns of the measurements table as CSV, named
// as Fiji's Results table names them (Label: the ROI's name and the
// channel's, "Line 1:C0"; Length and Angle for lines; Volume for a region
// over several planes; Estimate is 1 while the figures are a coarse
// level's).
var ResultsColumns = []string{" ", "Label", "ROI", "Type", "Ch", "Area", "Volume", "Mean", "StdDev", "Min", "Max",
	"IntDen", "RawIntDen", "N", "Length", "Angle", "Unit", "Estimate"}

// ResultsCSV is the measurements table as CSV: one row per ROI and
// visible channel, ResultsColumns first.
func (s *Session) ResultsCSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(ResultsColumns)
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	for i, r := range s.Results() {
		est := "0"
		if r.Estimate || !r.Final {
			est = "1"
		}
		w.Write([]string{strconv.Itoa(i + 1), r.Name + ":" + r.Channel, r.Name, string(r.Kind), strconv.Itoa(r.C),
			g(r.Area), g(r.Volume), g(r.Mean), g(r.Std), g(r.Min), g(r.Max), g(r.Sum), g(r.Sum), strconv.FormatInt(r.Count, 10),
			g(r.Length), g(r.Angle), r.Unit, est})
	}
	w.Flush()
	return b.Bytes()
}

// ExportResults writes the measurements table (ResultsCSV) to path.
func (s *Session) ExportResults(path string) error {
	return fsutil.WriteAtomic(path, s.ResultsCSV())
}

// roiFile is the JSON of a list of ROIs.
type roiFile struct {
	ROIs []roiJSON `json:"rois"`
}

// roiJSON is one ROI in a file: its vertices in level-0 sample
// coordinates of its plane ([row, col], a sample's centre at its index)
// and, for other tools, in physical units ([z, y, x]).
type roiJSON struct {
	Name     string       `json:"name"`
	Kind     ROIKind      `json:"kind"`
	Plane    string       `json:"plane"`
	T        int          `json:"t"`
	At       int          `json:"index"`
	Points   [][2]float64 `json:"points"`
	Ats      []int        `json:"indices,omitempty"`
	Physical [][3]float64 `json:"coordinates,omitempty"`
	Unit     string       `json:"unit,omitempty"`
	Width    int          `json:"width,omitempty"`
	Depth    int          `json:"depth,omitempty"`
	Hidden   bool         `json:"hidden,omitempty"`
}

// encodeROIs is the JSON of list, for data m.
func encodeROIs(m *loader.Meta, list []ROI) ([]byte, error) {
	f := roiFile{ROIs: make([]roiJSON, 0, len(list))}
	for i := range list {
		r := &list[i]
		j := roiJSON{Name: r.Name, Kind: r.Kind, Plane: r.Plane.String(), T: r.T, At: r.At, Ats: r.Ats,
			Width: r.Width, Depth: r.Depth, Hidden: r.Hidden}
		for k, p := range r.Pts {
			j.Points = append(j.Points, [2]float64{p.Row, p.Col})
			if m != nil {
				pl := r.MeasurePlane()
				if r.Ats != nil {
					pl.Index = r.Ats[k]
				}
				ph := pl.Physical(m, measurePt(p))
				j.Physical = append(j.Physical, ph)
				_, _, _, j.Unit = pl.Spacing(m)
			}
		}
		f.ROIs = append(f.ROIs, j)
	}
	return json.MarshalIndent(f, "", " ")
}

// decodeROIs reads a list of ROIs from JSON.
func decodeROIs(b []byte) ([]ROI, error) {
	var f roiFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	out := make([]ROI, 0, len(f.ROIs))
	for i, j := range f.ROIs {
		o, err := loader.ParseOrientation(j.Plane)
		if err != nil {
			return nil, fmt.Errorf("ROI %d: %v", i+1, err)
		}
		need := map[ROIKind]int{KindLine: 2, KindRect: 2, KindEllipse: 2, KindPolygon: 3, KindPoints: 1}[j.Kind]
		if need == 0 || len(j.Points) < need || j.Kind != KindPolygon && j.Kind != KindPoints && len(j.Points) != need {
			return nil, fmt.Errorf("ROI %d: a %q with %d points", i+1, j.Kind, len(j.Points))
		}
		r := ROI{Name: j.Name, Kind: j.Kind, Plane: o, T: j.T, At: j.At, Width: max(1, j.Width), Depth: j.Depth, Hidden: j.Hidden}
		for _, p := range j.Points {
			r.Pts = append(r.Pts, render.Point{Row: p[0], Col: p[1]})
		}
		if j.Kind == KindPoints {
			r.Ats = j.Ats
			if len(r.Ats) != len(r.Pts) {
				r.Ats = make([]int, len(r.Pts))
				for k := range r.Ats {
					r.Ats[k] = j.At
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// ExportROIs writes the ROIs to path as JSON.
func (s *Session) ExportROIs(path string) error {
	s.mu.Lock()
	var m *loader.Meta
	if s.data != nil {
		m = s.data.Pyr.Meta()
	}
	b, err := encodeROIs(m, s.rois.list)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, b)
}

// ImportROIs adds the ROIs of the JSON file at path to the list.
func (s *Session) ImportROIs(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	list, err := decodeROIs(b)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	s.mu.Lock()
	if s.data == nil {
		s.mu.Unlock()
		return errors.New("no image to lay the ROIs on")
	}
	for _, r := range list {
		s.addROILocked(r)
	}
	s.unlockNotify(ROIChanged)
	return nil
}

// measurePt is plane position p as package measure has it.
func measurePt(p render.Point) measure.Pt { return measure.Pt{Row: p.Row, Col: p.Col} }

// PointsColumns are the columns of a points CSV, as napari's points layer
// writes them: the point's index (from 0) and its level-0 sample
// coordinates, Z, Y, X (Y, X for data without Z).
func pointsColumns(m *loader.Meta) []string {
	if m.Size('Z') > 1 {
		return []string{"index", "axis-0", "axis-1", "axis-2"}
	}
	return []string{"index", "axis-0", "axis-1"}
}

// ExportPoints writes the points of set i to path as napari's points
// layer writes a CSV.
func (s *Session) ExportPoints(i int, path string) error {
	s.mu.Lock()
	if s.data == nil || i < 0 || i >= len(s.rois.list) || s.rois.list[i].Kind != KindPoints {
		s.mu.Unlock()
		return errors.New("no set of points selected")
	}
	m := s.data.Pyr.Meta()
	r := s.rois.list[i].clone()
	s.mu.Unlock()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	cols := pointsColumns(m)
	w.Write(cols)
	for k, p := range r.Pts {
		pl := r.MeasurePlane()
		pl.Index = r.Ats[k]
		q := pl.Index3(m, measurePt(p))
		row := []string{strconv.Itoa(k)}
		for _, v := range q[3-(len(cols)-1):] {
			row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
		}
		w.Write(row)
	}
	w.Flush()
	return fsutil.WriteAtomic(path, b.Bytes())
}

// ImportPoints adds the points of a CSV as napari's points layer writes
// it (index, axis-0, axis-1[, axis-2]) as a set of points on XY planes.
func (s *Session) ImportPoints(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) < 2 || len(recs[0]) < 3 || recs[0][1] != "axis-0" {
		return fmt.Errorf("%s: not a points CSV (index, axis-0, axis-1, …)", path)
	}
	m := s.Meta()
	if m == nil {
		return errors.New("no image to lay the points on")
	}
	r := ROI{Kind: KindPoints, Plane: render.XY}
	for n, rec := range recs[1:] {
		if len(rec) != len(recs[0]) {
			return fmt.Errorf("%s: line %d has %d fields, the header %d", path, n+2, len(rec), len(recs[0]))
		}
		var q [3]float64 // Z, Y, X
		for k, field := range rec[1:] {
			v, err := strconv.ParseFloat(field, 64)
			if err != nil || v != v {
				return fmt.Errorf("%s: line %d: %q is not a number", path, n+2, field)
			}
			q[3-(len(rec)-1)+k] = v
		}
		z := int(q[0] + 0.5)
		if q[0] < -0.5 || z >= max(1, m.Size('Z')) {
			return fmt.Errorf("%s: line %d: z %g is beyond the data's %d planes", path, n+2, q[0], m.Size('Z'))
		}
		r.Pts = append(r.Pts, render.Point{Row: q[1], Col: q[2]})
		r.Ats = append(r.Ats, z)
	}
	r.At = r.Ats[0]
	s.mu.Lock()
	if s.data == nil || s.data.Pyr.Meta() != m {
		s.mu.Unlock()
		return errors.New("the image changed meanwhile")
	}
	r.T = s.view.T
	s.addROILocked(r)
	s.unlockNotify(ROIChanged)
	return nil
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
	list, err := decodeROIs(saved.ROIs)
	if err != nil {
		return // an older or damaged entry: nothing drawn
	}
	for _, r := range list {
		s.addROILocked(r)
	}
	s.rois.sel = -1
}
