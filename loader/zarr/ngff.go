package zarr

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"

	"vastview/base/textutil"
)

// ngffAttrs is the OME-NGFF part of a group's attributes: the .zattrs of
// OME-NGFF 0.4 and earlier, or the "ome" attribute of 0.5.
type ngffAttrs struct {
	Multiscales []multiscale    `json:"multiscales"`
	Omero       *omero          `json:"omero"`
	ImageLabel  *imageLabel     `json:"image-label"`
	Labels      []string        `json:"labels"`
	Layout      json.RawMessage `json:"bioformats2raw.layout"`
	Plate       json.RawMessage `json:"plate"`
	Well        json.RawMessage `json:"well"`
}

// multiscale is one entry of "multiscales".
type multiscale struct {
	Version    string      `json:"version"`
	Type       string      `json:"type"`
	Axes       []ngffAxis  `json:"axes"`
	Datasets   []dataset   `json:"datasets"`
	Transforms []transform `json:"coordinateTransformations"`
}

// ngffAxis is one entry of "axes": an object in 0.4 and later, a bare name
// in 0.3.
type ngffAxis struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Unit string `json:"unit"`
}

// UnmarshalJSON accepts the object and the bare-name forms.
func (a *ngffAxis) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '"' {
		return json.Unmarshal(t, &a.Name)
	}
	type plain ngffAxis
	return json.Unmarshal(b, (*plain)(a))
}

// dataset is one level of a multiscale image.
type dataset struct {
	Path       string      `json:"path"`
	Transforms []transform `json:"coordinateTransformations"`
}

// transform is one coordinate transformation.
type transform struct {
	Type        string          `json:"type"`
	Scale       []float64       `json:"scale"`
	Translation []float64       `json:"translation"`
	Path        json.RawMessage `json:"path"`
}

// parseAttrs reads NGFF attributes from a group's attribute object: the
// "ome" member when present (OME-NGFF 0.5), else the object itself.
func parseAttrs(doc []byte) (*ngffAttrs, error) {
	var wrap struct {
		OME json.RawMessage `json:"ome"`
	}
	if err := unmarshal(doc, &wrap); err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(wrap.OME); len(t) > 0 && string(t) != "null" {
		doc = t
	}
	var a ngffAttrs
	if err := unmarshal(doc, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// axisLetters maps NGFF axes to loader axis letters and units. Without
// axes (OME-NGFF 0.1 and 0.2) the axes follow from the number of
// dimensions.
func axisLetters(axes []ngffAxis, ndim int) (string, []string, error) {
	if len(axes) == 0 {
		letters, err := axesByDims(ndim)
		return letters, make([]string, ndim), err
	}
	var sb strings.Builder
	units := make([]string, len(axes))
	for i, a := range axes {
		l, err := axisLetter(a)
		if err != nil {
			return "", nil, err
		}
		if strings.IndexByte(sb.String(), l) >= 0 {
			return "", nil, formatError("axis %q appears twice", textutil.Clip(a.Name))
		}
		sb.WriteByte(l)
		units[i] = a.Unit
	}
	letters := sb.String()
	if !strings.HasSuffix(letters, "YX") {
		return "", nil, unsupported("axes %q (the last two must be y and x)", names(axes))
	}
	return letters, units, nil
}

// axisLetter maps one NGFF axis to a letter of "TCZYX".
func axisLetter(a ngffAxis) (byte, error) {
	name := strings.ToLower(a.Name)
	switch strings.ToLower(a.Type) {
	case "time":
		return 'T', nil
	case "channel":
		return 'C', nil
	case "space":
		if l, ok := letterOf(name); ok && strings.Contains("ZYX", string(l)) {
			return l, nil
		}
		return 0, unsupported("space axis %q", textutil.Clip(a.Name))
	case "":
		if l, ok := letterOf(name); ok {
			return l, nil
		}
	}
	return 0, unsupported("axis %q of type %q", textutil.Clip(a.Name), textutil.Clip(a.Type))
}

// letterOf maps an axis name t, c, z, y or x to its letter.
func letterOf(name string) (byte, bool) {
	if len(name) == 1 && strings.Contains("tczyx", name) {
		return name[0] - 'a' + 'A', true
	}
	return 0, false
}

// axesByDims is the axis order of data without axis names: YX, ZYX,
// CZYX or TCZYX.
func axesByDims(n int) (string, error) {
	if n < 2 || n > 5 {
		return "", unsupported("%d-dimensional array", n)
	}
	return "TCZYX"[5-n:], nil
}

// axesByNames uses dimension names when they are t, c, z, y, x (in any
// case) ending in y, x, else the order by number of dimensions.
func axesByNames(names []string, n int) (string, error) {
	if len(names) == n && n >= 2 {
		var sb strings.Builder
		for _, nm := range names {
			l, ok := letterOf(strings.ToLower(nm))
			if !ok || strings.IndexByte(sb.String(), l) >= 0 {
				return axesByDims(n)
			}
			sb.WriteByte(l)
		}
		if s := sb.String(); strings.HasSuffix(s, "YX") {
			return s, nil
		}
	}
	return axesByDims(n)
}

// names lists axis names for a message.
func names(axes []ngffAxis) string {
	var s []string
	for _, a := range axes {
		s = append(s, a.Name)
	}
	return textutil.Clip(strings.Join(s, ","))
}

// geometry combines a dataset's transformations with the multiscale's into
// one scale and translation per axis.
func geometry(ds, ms []transform, n int) (scale, trans []float64, err error) {
	scale, trans = make([]float64, n), make([]float64, n)
	for i := range scale {
		scale[i] = 1
	}
	for _, t := range append(append([]transform(nil), ds...), ms...) {
		if len(bytes.TrimSpace(t.Path)) > 0 {
			return nil, nil, unsupported("coordinate transformations stored in a file")
		}
		switch t.Type {
		case "identity":
		case "scale":
			if len(t.Scale) != n {
				return nil, nil, formatError("scale %v does not have %d entries", t.Scale, n)
			}
			for i, s := range t.Scale {
				if !(s > 0) || math.IsInf(s, 0) {
					return nil, nil, formatError("scale %v: entry %d is not a positive number", t.Scale, i)
				}
				scale[i] *= s
				trans[i] *= s
			}
		case "translation":
			if len(t.Translation) != n {
				return nil, nil, formatError("translation %v does not have %d entries", t.Translation, n)
			}
			for i, v := range t.Translation {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, nil, formatError("translation %v: entry %d is not a number", t.Translation, i)
				}
				trans[i] += v
			}
		default:
			return nil, nil, unsupported("coordinate transformation %q", textutil.Clip(t.Type))
		}
	}
	return scale, trans, nil
}

// impliedGeometry is the geometry of a level without transformations
// (OME-NGFF 0.1 to 0.3): each axis scaled by its reduction from level 0,
// a whole factor when the shapes fit one, with the origin of block means.
func impliedGeometry(shape0, shape []int) (scale, trans []float64) {
	n := len(shape)
	scale, trans = make([]float64, n), make([]float64, n)
	for i := range shape {
		f := float64(shape0[i]) / float64(shape[i])
		if r := math.Round(f); r >= 1 {
			c := (shape0[i] + int(r) - 1) / int(r)
			if c == shape[i] || shape0[i]/int(r) == shape[i] {
				f = r
			}
		}
		scale[i], trans[i] = f, (f-1)/2
	}
	return scale, trans
}
