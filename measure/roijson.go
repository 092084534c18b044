package measure

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"vastview/loader"
	"vastview/render/oblique"
)

// ROI is a named geometry on a plane, as a list of regions keeps it:
// exactly one of Region (with From, To for a prism), Line and Point is
// set.
type ROI struct {
	Name     string
	Plane    Plane
	Region   Region
	From, To int
	Line     *Line
	Point    *Point
}

// Query is the measurement of r's region, of channels.
func (r ROI) Query(channels ...int) Query {
	return Query{Plane: r.Plane, Region: r.Region, From: r.From, To: r.To, Channels: channels}
}

// The JSON of a list of ROIs is a GeoJSON FeatureCollection: each ROI a
// Feature whose geometry (Polygon, LineString or Point) has physical
// coordinates [x, y, z] in the data's unit (a sample's centre at index ×
// spacing; a rectangle's outline on its samples' outer edges, an
// ellipse's drawn with 64 vertices), and whose properties hold the ROI
// exactly in sample coordinates (rows and columns of its plane), so that
// reading it back gives the same ROI.
type (
	roiFile struct {
		Type     string       `json:"type"`
		Unit     string       `json:"unit,omitempty"`
		Features []roiFeature `json:"features"`
	}
	roiFeature struct {
		Type       string   `json:"type"`
		Geometry   geometry `json:"geometry"`
		Properties roiProps `json:"properties"`
	}
	geometry struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	roiProps struct {
		Name     string       `json:"name"`
		Shape    string       `json:"shape,omitempty"`
		Plane    string       `json:"plane,omitempty"`
		T        int          `json:"t"`
		Index    int          `json:"index"`
		Oblique  *obliqueJSON `json:"oblique,omitempty"`
		From     *int         `json:"from,omitempty"`
		To       *int         `json:"to,omitempty"`
		Rect     []int        `json:"rect,omitempty"`     // row0, col0, row1, col1
		Center   []float64    `json:"center,omitempty"`   // row, col
		Radii    []float64    `json:"radii,omitempty"`    // rows, cols
		Vertices [][2]float64 `json:"vertices,omitempty"` // [row, col]...
		Ends     [][2]float64 `json:"ends,omitempty"`     // a line's [row, col] from and to
		Width    int          `json:"width,omitempty"`
		At       []float64    `json:"at,omitempty"` // a point's row, col
	}
	obliqueJSON struct {
		Center [3]float64 `json:"center"` // z, y, x
		U      [3]float64 `json:"u"`
		V      [3]float64 `json:"v"`
		Pixel  float64    `json:"pixel"`
		W      int        `json:"w"`
		H      int        `json:"h"`
		T      int        `json:"t"`
		C      int        `json:"c"`
	}
)

// WriteROIs writes rois, on data described by m, as JSON (see roiFile).
func WriteROIs(w io.Writer, m *loader.Meta, rois []ROI) error {
	f := roiFile{Type: "FeatureCollection", Unit: lengthUnit(m), Features: []roiFeature{}}
	for i, r := range rois {
		feat, err := toFeature(m, r)
		if err != nil {
			return fmt.Errorf("ROI %d (%s): %w", i+1, r.Name, err)
		}
		f.Features = append(f.Features, feat)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(f)
}

// toFeature is r as a GeoJSON feature.
func toFeature(m *loader.Meta, r ROI) (roiFeature, error) {
	p := roiProps{Name: r.Name, T: r.Plane.T, Index: r.Plane.Index}
	if r.Plane.Oblique != nil {
		o := r.Plane.Oblique
		p.Oblique = &obliqueJSON{o.Center, o.U, o.V, o.Pixel, o.W, o.H, o.T, o.C}
	} else {
		p.Plane = r.Plane.Orientation.String()
	}
	phys := func(pts ...Pt) [][3]float64 {
		out := make([][3]float64, len(pts))
		for i, q := range pts {
			v := r.Plane.Physical(m, q)
			out[i] = [3]float64{v[oblique.X], v[oblique.Y], v[oblique.Z]}
		}
		return out
	}
	ring := func(pts []Pt) any { return [][][3]float64{phys(append(pts, pts[0])...)} }
	var geomType string
	var coords any
	switch {
	case r.Line != nil:
		p.Shape, geomType = "line", "LineString"
		p.Ends = [][2]float64{{r.Line.From.Row, r.Line.From.Col}, {r.Line.To.Row, r.Line.To.Col}}
		p.Width = max(1, r.Line.Width)
		coords = phys(r.Line.From, r.Line.To)
	case r.Point != nil:
		p.Shape, geomType = "point", "Point"
		p.At = []float64{r.Point.At.Row, r.Point.At.Col}
		coords = phys(r.Point.At)[0]
	case r.Region != nil:
		geomType = "Polygon"
		if r.To > r.From {
			p.From, p.To = &r.From, &r.To
		}
		switch g := r.Region.(type) {
		case Rect:
			p.Shape, p.Rect = "rect", []int{g.Row0, g.Col0, g.Row1, g.Col1}
			a, b := float64(g.Row0)-0.5, float64(g.Col0)-0.5
			c, d := float64(g.Row1)-0.5, float64(g.Col1)-0.5
			coords = ring([]Pt{{a, b}, {a, d}, {c, d}, {c, b}})
		case Ellipse:
			p.Shape, p.Center, p.Radii = "ellipse", []float64{g.Center.Row, g.Center.Col}, []float64{g.RadiusRow, g.RadiusCol}
			pts := make([]Pt, 64)
			for i := range pts {
				th := 2 * math.Pi * float64(i) / 64
				pts[i] = Pt{g.Center.Row + g.RadiusRow*math.Sin(th), g.Center.Col + g.RadiusCol*math.Cos(th)}
			}
			coords = ring(pts)
		case Polygon:
			if len(g.Vertices) < 3 {
				return roiFeature{}, errors.New("a polygon needs 3 vertices or more")
			}
			p.Shape = "polygon"
			for _, v := range g.Vertices {
				p.Vertices = append(p.Vertices, [2]float64{v.Row, v.Col})
			}
			coords = ring(append([]Pt(nil), g.Vertices...))
		default:
			return roiFeature{}, fmt.Errorf("a region of kind %s cannot be written", r.Region.Kind())
		}
	default:
		return roiFeature{}, errors.New("no geometry")
	}
	raw, err := json.Marshal(coords)
	if err != nil {
		return roiFeature{}, err
	}
	return roiFeature{Type: "Feature", Geometry: geometry{geomType, raw}, Properties: p}, nil
}

// maxROIs bounds the features ReadROIs accepts.
const maxROIs = 1 << 20

// ReadROIs reads ROIs that WriteROIs wrote for data described by m. A
// feature without the sample-coordinate properties (GeoJSON from another
// tool) is read from its geometry, physical coordinates [x, y, z] (z
// optional) on the XY plane (index from z, else its "index" property): a
// Polygon's outer ring as a polygon, a LineString of two points as a
// line, a Point as a point.
func ReadROIs(r io.Reader, m *loader.Meta) ([]ROI, error) {
	var f roiFile
	dec := json.NewDecoder(io.LimitReader(r, 1<<30))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("ROI file: %w", err)
	}
	if f.Type != "FeatureCollection" {
		return nil, fmt.Errorf("ROI file: type %q, want FeatureCollection", f.Type)
	}
	if len(f.Features) > maxROIs {
		return nil, fmt.Errorf("ROI file: more than %d features", maxROIs)
	}
	out := make([]ROI, 0, len(f.Features))
	for i, feat := range f.Features {
		roi, err := fromFeature(m, feat)
		if err != nil {
			return nil, fmt.Errorf("ROI file: feature %d: %w", i+1, err)
		}
		out = append(out, roi)
	}
	return out, nil
}

// fromFeature is the ROI a feature describes.
func fromFeature(m *loader.Meta, feat roiFeature) (ROI, error) {
	p := feat.Properties
	r := ROI{Name: p.Name, Plane: Plane{T: p.T, Index: p.Index}}
	if p.Oblique != nil {
		o := p.Oblique
		if !(o.Pixel > 0) || o.W <= 0 || o.H <= 0 {
			return r, errors.New("oblique plane without a pixel size and extent")
		}
		r.Plane.Oblique = &oblique.Plane{Center: o.Center, U: o.U, V: o.V, Pixel: o.Pixel, W: o.W, H: o.H, T: o.T, C: o.C}
		r.Plane.T = o.T
	} else {
		or, err := loader.ParseOrientation(p.Plane)
		if err != nil {
			return r, err
		}
		r.Plane.Orientation = or
	}
	if p.From != nil && p.To != nil {
		r.From, r.To = *p.From, *p.To
	}
	switch p.Shape {
	case "rect":
		if len(p.Rect) != 4 {
			return r, errors.New("rect wants [row0, col0, row1, col1]")
		}
		r.Region = Rect{p.Rect[0], p.Rect[1], p.Rect[2], p.Rect[3]}
	case "ellipse":
		if len(p.Center) != 2 || len(p.Radii) != 2 {
			return r, errors.New("ellipse wants center [row, col] and radii [rows, cols]")
		}
		r.Region = Ellipse{Pt{p.Center[0], p.Center[1]}, p.Radii[0], p.Radii[1]}
	case "polygon":
		if len(p.Vertices) < 3 {
			return r, errors.New("a polygon needs 3 vertices or more")
		}
		var g Polygon
		for _, v := range p.Vertices {
			g.Vertices = append(g.Vertices, Pt{v[0], v[1]})
		}
		r.Region = g
	case "line":
		if len(p.Ends) != 2 {
			return r, errors.New("a line wants two ends")
		}
		r.Line = &Line{Pt{p.Ends[0][0], p.Ends[0][1]}, Pt{p.Ends[1][0], p.Ends[1][1]}, max(1, p.Width)}
	case "point":
		if len(p.At) != 2 {
			return r, errors.New("a point wants at [row, col]")
		}
		r.Point = &Point{Pt{p.At[0], p.At[1]}}
	case "":
		return fromGeometry(m, r, feat.Geometry)
	default:
		return r, fmt.Errorf("unknown shape %q", p.Shape)
	}
	return r, nil
}

// fromGeometry reads a feature's physical geometry on the XY plane.
func fromGeometry(m *loader.Meta, r ROI, g geometry) (ROI, error) {
	sp := oblique.Spacing(m)
	r.Plane = Plane{Orientation: loader.XY, T: r.Plane.T, Index: r.Plane.Index}
	toPt := func(c []float64) (Pt, error) {
		if len(c) < 2 || len(c) > 3 {
			return Pt{}, fmt.Errorf("a position wants [x, y] or [x, y, z], not %v", c)
		}
		if len(c) == 3 {
			r.Plane.Index = int(math.Round(c[2] / sp[oblique.Z]))
		}
		return Pt{c[1] / sp[oblique.Y], c[0] / sp[oblique.X]}, nil
	}
	var err error
	switch g.Type {
	case "Point":
		var c []float64
		if err = json.Unmarshal(g.Coordinates, &c); err != nil {
			return r, err
		}
		var p Pt
		if p, err = toPt(c); err == nil {
			r.Point = &Point{p}
		}
	case "LineString":
		var cs [][]float64
		if err = json.Unmarshal(g.Coordinates, &cs); err != nil {
			return r, err
		}
		if len(cs) != 2 {
			return r, fmt.Errorf("a line wants 2 positions, not %d", len(cs))
		}
		var a, b Pt
		if a, err = toPt(cs[0]); err == nil {
			if b, err = toPt(cs[1]); err == nil {
				r.Line = &Line{a, b, 1}
			}
		}
	case "Polygon":
		var rings [][][]float64
		if err = json.Unmarshal(g.Coordinates, &rings); err != nil {
			return r, err
		}
		if len(rings) == 0 || len(rings[0]) < 4 {
			return r, errors.New("a polygon wants a ring of 3 positions or more")
		}
		var poly Polygon
		for _, c := range rings[0][:len(rings[0])-1] {
			p, err := toPt(c)
			if err != nil {
				return r, err
			}
			poly.Vertices = append(poly.Vertices, p)
		}
		r.Region = poly
	default:
		return r, fmt.Errorf("geometry %q (want Polygon, LineString or Point)", g.Type)
	}
	return r, err
}
