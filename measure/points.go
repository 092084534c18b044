package measure

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"vastview/loader"
)

// WritePoints writes points as napari's points layer saves them to CSV:
// columns index, axis-0, axis-1, ... (one per coordinate, in the order of
// the data's axes, as napari's layer data), then one column per property
// (props, each with a value per point), a row per point numbered from 0.
// Each point has the same number of coordinates, at least one.
func WritePoints(w io.Writer, pts [][]float64, props []Property) error {
	if len(pts) == 0 {
		return fmt.Errorf("no points")
	}
	d := len(pts[0])
	head := []string{"index"}
	for i := range d {
		head = append(head, "axis-"+strconv.Itoa(i))
	}
	for _, p := range props {
		if len(p.Values) != len(pts) {
			return fmt.Errorf("property %s has %d values for %d points", p.Name, len(p.Values), len(pts))
		}
		head = append(head, p.Name)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(head); err != nil {
		return err
	}
	for i, pt := range pts {
		if len(pt) != d {
			return fmt.Errorf("point %d has %d coordinates, point 0 has %d", i, len(pt), d)
		}
		rec := []string{strconv.Itoa(i)}
		for _, v := range pt {
			rec = append(rec, num(v))
		}
		for _, p := range props {
			rec = append(rec, num(p.Values[i]))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Property is a named value per point (a column of a points CSV after the
// coordinates).
type Property struct {
	Name   string
	Values []float64
}

// maxPoints bounds the rows ReadPoints accepts.
const maxPoints = 1 << 24

// ReadPoints reads a points CSV napari (or WritePoints) wrote: the
// coordinates of each row from its axis-N columns, in order, and the
// numeric values of the other columns but index as properties. Rows come
// in the file's order.
func ReadPoints(r io.Reader) ([][]float64, []Property, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("points table: %w", err)
	}
	axisCol := map[int]int{}
	var propCols []int
	var props []Property
	for i, h := range head {
		h = strings.TrimSpace(h)
		if n, ok := strings.CutPrefix(h, "axis-"); ok {
			k, err := strconv.Atoi(n)
			if err != nil || k < 0 || k >= len(head) {
				return nil, nil, fmt.Errorf("points table: column %q", h)
			}
			axisCol[k] = i
			continue
		}
		if h != "index" {
			propCols = append(propCols, i)
			props = append(props, Property{Name: h})
		}
	}
	d := len(axisCol)
	for k := range d {
		if _, ok := axisCol[k]; !ok {
			return nil, nil, fmt.Errorf("points table: no column axis-%d", k)
		}
	}
	if d == 0 {
		return nil, nil, fmt.Errorf("points table: no axis-0 column (napari's points CSV has index, axis-0, axis-1, ...)")
	}
	var pts [][]float64
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("points table: %w", err)
		}
		if len(pts) >= maxPoints {
			return nil, nil, fmt.Errorf("points table: more than %d points", maxPoints)
		}
		pt := make([]float64, d)
		for k := range d {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[axisCol[k]]), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("points table: line %d: axis-%d %q is not a number", line, k, rec[axisCol[k]])
			}
			pt[k] = v
		}
		pts = append(pts, pt)
		for j, c := range propCols {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[c]), 64)
			if err != nil {
				v = math.NaN()
			}
			props[j].Values = append(props[j].Values, v)
		}
	}
	return pts, props, nil
}

// PointAxes returns the axes of m's storage order a point's coordinates
// follow in a points CSV (every axis but C, as napari's layer over the
// image shows them) for data with axes axes.
func PointAxes(axes string) string { return strings.ReplaceAll(axes, "C", "") }

// PointCoords returns the coordinates of position p of plane pl of data
// m in the order PointAxes gives (level-0 sample indexes: napari's data
// coordinates of the image opened as an array).
func PointCoords(m *loader.Meta, pl Plane, p Pt) []float64 {
	q := pl.Index3(m, p)
	var out []float64
	for i := range len(m.Axes) {
		switch m.Axes[i] {
		case 'T':
			t := pl.T
			if pl.Oblique != nil {
				t = pl.Oblique.T
			}
			out = append(out, float64(t))
		case 'Z':
			out = append(out, q[0])
		case 'Y':
			out = append(out, q[1])
		case 'X':
			out = append(out, q[2])
		}
	}
	return out
}
