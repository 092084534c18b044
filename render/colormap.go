package render

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"vastview/loader"
)

// Colormap maps a display intensity 0..255 to a colour. A label colormap
// (Label set) instead gives each integer value a colour of its own, with no
// window: value 0 is LUT[0] and value v is LUT[1+(v-1) mod 255]. Values are
// immutable and safe for concurrent use.
type Colormap struct {
	Name  string
	LUT   [256][3]uint8
	Label bool
}

func grayLUT(invert bool) (l [256][3]uint8) {
	for i := range l {
		v := uint8(i)
		if invert {
			v = 255 - v
		}
		l[i] = [3]uint8{v, v, v}
	}
	return l
}

// fireLUT is a black-red-yellow-white ramp, as ImageJ's "Fire" reads.
func fireLUT() (l [256][3]uint8) {
	for i := range l {
		f := float64(i) / 255
		l[i] = [3]uint8{clamp8(f * 3 * 255), clamp8((f*3 - 1) * 255), clamp8((f*3 - 2) * 255)}
	}
	return l
}

func clamp8(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }

var colormaps = map[string]*Colormap{
	"gray":          {Name: "gray", LUT: grayLUT(false)},
	"gray-inverted": {Name: "gray-inverted", LUT: grayLUT(true)},
	"fire":          {Name: "fire", LUT: fireLUT()},
	"viridis":       {Name: "viridis", LUT: viridisTable},
	"magma":         {Name: "magma", LUT: magmaTable},
	"glasbey":       {Name: "glasbey", LUT: glasbeyLUT(), Label: true},
}

// ColormapNames lists the colormaps ColormapNamed knows, sorted.
func ColormapNames() []string {
	names := make([]string, 0, len(colormaps))
	for n := range colormaps {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ColormapNamed returns the colormap called name: "gray", "gray-inverted",
// "fire", "viridis", "magma", or "glasbey" (also "labels"), the label
// colormap; "#rrggbb" or a colour's name (ColourNames), a ramp from black
// to that colour (a channel's colour in a fluorescence image); or a name
// TableColormap gave.
func ColormapNamed(name string) (*Colormap, error) {
	n := strings.ToLower(name)
	if n == "labels" || n == "label" {
		n = "glasbey"
	}
	if cm, ok := colormaps[n]; ok {
		return cm, nil
	}
	if strings.HasPrefix(n, "table-") {
		if cm, ok := ramps.Load(n); ok {
			return cm.(*Colormap), nil
		}
	}
	if hex, ok := ColourNames[n]; ok {
		n = hex
	}
	if c, ok := ParseColor(n); ok {
		if cm, ok := ramps.Load(n); ok {
			return cm.(*Colormap), nil
		}
		cm, _ := ramps.LoadOrStore(n, &Colormap{Name: n, LUT: rampLUT(c)})
		return cm.(*Colormap), nil
	}
	return nil, fmt.Errorf("unknown colormap %q (have %s, a colour: red, green, blue, cyan, magenta, yellow, orange, white, or #rrggbb)", name, strings.Join(ColormapNames(), ", "))
}

// ColourNames are the colours of fluorescence channels known by name, as
// "#rrggbb".
var ColourNames = map[string]string{
	"red": "#ff0000", "green": "#00ff00", "blue": "#0000ff", "cyan": "#00ffff",
	"magenta": "#ff00ff", "yellow": "#ffff00", "orange": "#ff8000", "white": "#ffffff",
}

// ramps holds the colour ramps and tables made so far, by name.
var ramps sync.Map

// TableColormap returns the name of a colormap with the colours of table
// (a file's own colour table, as ImageJ's LUTs), which ColormapNamed
// then knows: "table-" and a digest of the colours. The same table gets
// the same name in every run.
func TableColormap(table *[256][3]uint8) string {
	h := fnv.New64a()
	for _, c := range table {
		h.Write(c[:])
	}
	name := fmt.Sprintf("table-%016x", h.Sum64())
	ramps.LoadOrStore(name, &Colormap{Name: name, LUT: *table})
	return name
}

// ParseColor reads a colour written "#rrggbb" or "rrggbb".
func ParseColor(s string) ([3]uint8, bool) {
	s = strings.TrimPrefix(s, "#")
	var c [3]uint8
	if len(s) != 6 {
		return c, false
	}
	for i := range c {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return c, false
		}
		c[i] = uint8(v)
	}
	return c, true
}

// rampLUT runs from black to colour c.
func rampLUT(c [3]uint8) (l [256][3]uint8) {
	for i := range l {
		for j := range c {
			l[i][j] = uint8((int(c[j])*i + 127) / 255)
		}
	}
	return l
}

// ColormapOrGray is ColormapNamed with gray for an unknown name.
func ColormapOrGray(name string) *Colormap {
	if cm, err := ColormapNamed(name); err == nil {
		return cm
	}
	return colormaps["gray"]
}

// index maps a value to a colormap entry: lo and below (and NaN) to 0, hi
// and above to 255, linearly with rounding in between. It has no branches
// (the values of an image are not predictable); the mask keeps NaN, whose
// integer conversion is unspecified, within the table.
func index(v, lo, span float64) int {
	f := (v - lo) * 255 / span
	if f != f {
		return 0
	}
	return int(max(0, min(255, f))+0.5) & 255
}

// labelIndex maps a label value to its entry of a label colormap: 0 (and
// NaN, and values beyond int64) to entry 0, other integers cycling through
// entries 1..255. Fractions are dropped towards minus infinity.
func labelIndex(v float64) int {
	if !(v > -9e18 && v < 9e18) {
		return 0
	}
	i := int64(math.Floor(v))
	if i == 0 {
		return 0
	}
	m := (i - 1) % 255
	if m < 0 {
		m += 255
	}
	return int(1 + m)
}

// labelIndexBits is labelIndex of an integer id given as 64 bits (read as
// int64 when signed), exact for every id: 1 + (id-1) mod 255, 0 for 0.
func labelIndexBits(b uint64, signed bool) int {
	if b == 0 {
		return 0
	}
	r := int(b % 255)
	if signed {
		if r = int(int64(b) % 255); r < 0 {
			r += 255
		}
	}
	return 1 + (r+254)%255
}

// entry is the colormap entry of value v through the window [lo, lo+span].
func (cm *Colormap) entry(v, lo, span float64) int {
	if cm.Label {
		return labelIndex(v)
	}
	return index(v, lo, span)
}

// palette packs the colours of a colormap.
func palette(pal *[256]uint32, cm *Colormap) {
	for i := range pal {
		pal[i] = pack(cm.LUT[i])
	}
}

// pack makes a little-endian RGBA pixel of an opaque colour.
func pack(c [3]uint8) uint32 {
	return uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16 | 0xff<<24
}

// fillLUT maps every raw bit pattern of an 8- or 16-bit type (len(lut) is
// 256 or 65536) to its colormap entry through the window [lo, hi].
func fillLUT(lut []uint8, dt loader.DType, lo, hi float64, cm *Colormap) {
	span := hi - lo
	for raw := range lut {
		var v float64
		switch dt {
		case loader.Uint8, loader.Uint16:
			v = float64(raw)
		case loader.Int8:
			v = float64(int8(raw))
		case loader.Int16:
			v = float64(int16(raw))
		}
		lut[raw] = uint8(cm.entry(v, lo, span))
	}
}
