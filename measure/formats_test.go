package measure

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/render/oblique"
)

// pyCSV reads a CSV file with Python's csv module and prints its header
// and rows as JSON.
const pyCSV = `
import csv, json, sys
with open(sys.argv[1], newline='') as f:
    print(json.dumps(list(csv.reader(f))))
`

func readWithPython(t *testing.T, data []byte) [][]string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	if err := json.Unmarshal(testtool.RunPython(t, pyCSV, p), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestResultsCSVHasFijiColumnsAndReadsBack(t *testing.T) {
	rows := []Result{
		{Label: "cell, 1", Stats: Stats{Channel: 0, Count: 12, Sum: 120.5, Mean: 120.5 / 12, Std: 2.25, Min: 1, Max: 30, Area: 0.75, Unit: "micrometer"}},
		{Label: "cell, 1", Stats: Stats{Channel: 1, Count: 12, Sum: 60, Mean: 5, Std: 0.5, Min: 4, Max: 6, Area: 0.75, Unit: "micrometer"}},
		{Label: `box "b"`, Stats: Stats{Channel: 0, Count: 1000, Sum: 5000, Mean: 5, Std: 1, Min: 0, Max: 9, Volume: 22.5, Unit: "micrometer"}},
	}
	var b bytes.Buffer
	if err := WriteResults(&b, rows); err != nil {
		t.Fatal(err)
	}
	py := readWithPython(t, b.Bytes())
	if !reflect.DeepEqual(py[0], ResultColumns) {
		t.Errorf("Python reads the columns %q, want %q", py[0], ResultColumns)
	}
	for _, want := range []string{"Label", "Area", "Mean", "StdDev", "Min", "Max", "IntDen", "RawIntDen"} {
		if !strings.Contains(strings.Join(py[0], ","), want) {
			t.Errorf("no column %s", want)
		}
	}
	if len(py) != 4 || py[1][1] != "cell, 1" || py[3][1] != `box "b"` || py[2][9] != "2" {
		t.Errorf("Python reads the rows %q", py[1:])
	}
	// Fiji's StdDev is the sample deviation; IntDen is Area × Mean.
	col := func(name string) int {
		for i, c := range py[0] {
			if c == name {
				return i
			}
		}
		return -1
	}
	if got, want := py[1][col("StdDev")], num(2.25*math.Sqrt(12.0/11)); got != want {
		t.Errorf("StdDev %s, want %s", got, want)
	}
	if got, want := py[1][col("IntDen")], num(0.75*120.5/12); got != want {
		t.Errorf("IntDen %s, want %s", got, want)
	}
	back, err := ReadResults(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rows) {
		t.Fatalf("%d rows back, want %d", len(back), len(rows))
	}
	for i := range rows {
		g, w := back[i], rows[i]
		if g.Label != w.Label || g.Channel != w.Channel || g.Count != w.Count || g.Sum != w.Sum || g.Mean != w.Mean ||
			!near(g.Std, w.Std) || g.Min != w.Min || g.Max != w.Max || g.Area != w.Area || g.Volume != w.Volume || g.Unit != w.Unit {
			t.Errorf("row %d back as %+v, want %+v", i, g, w)
		}
	}
}

func TestPointsCSVIsNapari(t *testing.T) {
	pts := [][]float64{{3, 10.5, 20.25}, {0, 0, 0}, {7, 1e-3, 99}}
	var b bytes.Buffer
	if err := WritePoints(&b, pts, []Property{{"value", []float64{5, 6.5, -1}}}); err != nil {
		t.Fatal(err)
	}
	py := readWithPython(t, b.Bytes())
	if want := []string{"index", "axis-0", "axis-1", "axis-2", "value"}; !reflect.DeepEqual(py[0], want) {
		t.Errorf("Python reads the columns %q, want %q", py[0], want)
	}
	if len(py) != 4 || py[2][0] != "1" || py[1][2] != "10.5" {
		t.Errorf("Python reads %q", py)
	}
	back, props, err := ReadPoints(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, pts) || len(props) != 1 || props[0].Name != "value" || props[0].Values[1] != 6.5 {
		t.Errorf("read back %v %v", back, props)
	}
	// A file as napari writes it: floats everywhere, the index too.
	nap := "index,axis-0,axis-1\n0.0,12.0,30.5\n1.0,4.0,2.0\n"
	back, _, err = ReadPoints(strings.NewReader(nap))
	if err != nil || !reflect.DeepEqual(back, [][]float64{{12, 30.5}, {4, 2}}) {
		t.Errorf("napari's file read as %v, %v", back, err)
	}
	for _, bad := range []string{"", "index,x,y\n0,1,2\n", "index,axis-0,axis-2\n0,1,2\n", "index,axis-0\n0,zz\n", "index,axis-0\n0,1,2\n"} {
		if _, _, err := ReadPoints(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read without error", bad)
		}
	}
	s := newMem("TZYX", []int{2, 3, 4, 5}, []int{1, 1, 4, 5}, loader.Uint8, []float64{1, 2, 0.5, 0.25}, 1)
	if got := PointCoords(s.meta, Plane{Orientation: loader.XY, T: 1, Index: 2}, Pt{3, 4}); !reflect.DeepEqual(got, []float64{1, 2, 3, 4}) {
		t.Errorf("point coordinates %v", got)
	}
}

func TestROIJSONRoundTripAndPhysicalGeometry(t *testing.T) {
	s := newMem("ZYX", []int{5, 40, 50}, []int{5, 40, 50}, loader.Uint8, []float64{2, 0.5, 0.25}, 1)
	m := s.meta
	ob := &oblique.Plane{Center: oblique.Vec{4, 10, 6}, U: oblique.Vec{0, 0.6, 0.8}, V: oblique.Vec{1, 0, 0}, Pixel: 0.25, W: 30, H: 20, T: 0, C: 0}
	rois := []ROI{
		{Name: "r", Plane: Plane{Index: 2}, Region: Rect{1, 2, 10, 20}},
		{Name: "box", Plane: Plane{}, Region: Rect{0, 0, 4, 4}, From: 1, To: 4},
		{Name: "e", Plane: Plane{Orientation: loader.XZ, Index: 7}, Region: Ellipse{Pt{2, 20}, 1.5, 6}},
		{Name: "p", Plane: Plane{Index: 1}, Region: Polygon{[]Pt{{1, 1}, {2.5, 30}, {30, 2}}}},
		{Name: "l", Plane: Plane{Index: 3}, Line: &Line{Pt{1, 2}, Pt{30.5, 40}, 3}},
		{Name: "turned", Plane: Plane{Oblique: ob}, Line: &Line{Pt{0, 0}, Pt{19, 29}, 1}},
		{Name: "pt", Plane: Plane{Index: 4}, Point: &Point{Pt{10, 11}}},
	}
	var b bytes.Buffer
	if err := WriteROIs(&b, m, rois); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	feats := doc["features"].([]any)
	geom := func(i int) map[string]any { return feats[i].(map[string]any)["geometry"].(map[string]any) }
	// The rectangle's outline on its samples' outer edges, physical [x, y, z].
	ring := geom(0)["coordinates"].([]any)[0].([]any)
	if first := ring[0].([]any); first[0].(float64) != 1.5*0.25 || first[1].(float64) != 0.5*0.5 || first[2].(float64) != 4 {
		t.Errorf("rectangle's first corner %v, want [0.375 0.25 4]", first)
	}
	if p := geom(6)["coordinates"].([]any); p[0].(float64) != 11*0.25 || p[1].(float64) != 10*0.5 || p[2].(float64) != 8 {
		t.Errorf("point at %v, want [2.75 5 8]", p)
	}
	if geom(4)["type"] != "LineString" || doc["unit"] != "micrometer" {
		t.Errorf("line geometry %v, unit %v", geom(4)["type"], doc["unit"])
	}
	back, err := ReadROIs(bytes.NewReader(b.Bytes()), m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rois) {
		t.Errorf("read back\n%+v\nwant\n%+v", back, rois)
	}
	// GeoJSON from elsewhere: physical coordinates only.
	other := `{"type":"FeatureCollection","features":[
	 {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0,4],[2.5,0,4],[2.5,5,4],[0,0,4]]]},"properties":{"name":"tri"}},
	 {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"p","index":3}}]}`
	back, err = ReadROIs(strings.NewReader(other), m)
	if err != nil {
		t.Fatal(err)
	}
	want := []ROI{
		{Name: "tri", Plane: Plane{Index: 2}, Region: Polygon{[]Pt{{0, 0}, {0, 10}, {10, 10}}}},
		{Name: "p", Plane: Plane{Index: 3}, Point: &Point{Pt{4, 4}}},
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("GeoJSON read as\n%+v\nwant\n%+v", back, want)
	}
	for _, bad := range []string{`{}`, `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Circle"},"properties":{}}]}`,
		`{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon"},"properties":{"shape":"rect","rect":[1]}}]}`} {
		if _, err := ReadROIs(strings.NewReader(bad), m); err == nil {
			t.Errorf("%s read without error", bad)
		}
	}
}

// FuzzReadFormats feeds the readers of measurement tables, points and
// ROIs arbitrary bytes: they return an error or values, never panic.
func FuzzReadFormats(f *testing.F) {
	f.Add([]byte("index,axis-0,axis-1\n0,1,2\n"))
	f.Add([]byte(" ,Label,Area,Mean,StdDev\n1,a,2,3,4\n"))
	f.Add([]byte(`{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"shape":"polygon","vertices":[[1,2]]}}]}`))
	m := loader.NewMeta("mem", "ZYX", []int{2, 3, 4}, loader.Uint8, []int{2, 3, 4}, nil, nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		ReadPoints(bytes.NewReader(data))
		ReadResults(bytes.NewReader(data))
		ReadROIs(bytes.NewReader(data), m)
	})
}
