package tiff

import (
	"encoding/json"
	"slices"
	"strings"
)

// shapedLayout reads the JSON ImageDescription tifffile writes, such as
// {"axes": "TZYX", "shape": [2, 3, 16, 24]}. Only axes T, Z and C step
// through pages; S (samples) and Y, X must match the page. Without axes
// (as in {"shape": [40, 300, 400]}) the pages are a Z stack. It returns nil
// when the description is not such a one.
func shapedLayout(desc string, p0 *page) *layout {
	if !strings.HasPrefix(desc, "{") {
		return nil
	}
	var sh struct {
		Axes  string `json:"axes"`
		Shape []int  `json:"shape"`
	}
	if json.Unmarshal([]byte(desc), &sh) != nil {
		return nil
	}
	if sh.Axes == "" {
		return shapeOnlyLayout(sh.Shape, p0)
	}
	if len(sh.Axes) != len(sh.Shape) || len(sh.Axes) < 2 {
		return nil
	}
	l := &layout{format: "tiff", pages: 1, contiguous: true, shaped: true, spacing: map[byte]float64{}, units: map[byte]string{}}
	spp := 1
	for i := 0; i < len(sh.Axes); i++ {
		a, n := sh.Axes[i], sh.Shape[i]
		if n <= 0 || n > 1<<40 || strings.IndexByte(sh.Axes, a) != i {
			return nil
		}
		switch a {
		case 'Y':
			if n != p0.height {
				return nil
			}
		case 'X':
			if n != p0.width {
				return nil
			}
		case 'S':
			spp = n
		case 'T', 'Z', 'C':
			if n > 1 {
				l.axes = append(l.axes, a)
				l.dims = append(l.dims, n)
			}
			if l.pages *= n; l.pages > 1<<40 {
				return nil
			}
		default:
			return nil
		}
	}
	if spp != p0.spp || (spp > 1 && strings.Contains(string(l.axes), "C")) {
		return nil
	}
	return l
}

// shapeOnlyLayout is a Z stack of the pages a shape without axes holds:
// its last dimensions must be those of page p0 (rows, columns and samples
// in storage order), the others multiply to the page count.
func shapeOnlyLayout(shape []int, p0 *page) *layout {
	pg := []int{p0.height, p0.width}
	switch {
	case p0.spp > 1 && p0.planar:
		pg = []int{p0.spp, p0.height, p0.width}
	case p0.spp > 1:
		pg = []int{p0.height, p0.width, p0.spp}
	}
	lead := len(shape) - len(pg)
	if lead < 0 || !slices.Equal(shape[lead:], pg) {
		return nil
	}
	n := 1
	for _, d := range shape[:lead] {
		if d <= 0 || d > 1<<40 {
			return nil
		}
		if n *= d; n > 1<<40 {
			return nil
		}
	}
	l := plainLayout(n)
	l.contiguous, l.shaped = true, true
	return l
}
