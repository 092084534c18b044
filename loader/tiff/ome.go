package tiff

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"

	"vastview/loader"
)

// omePixels is the part of an OME-XML Pixels element the reader uses.
type omePixels struct {
	DimensionOrder    string  `xml:"DimensionOrder,attr"`
	SizeX             int     `xml:"SizeX,attr"`
	SizeY             int     `xml:"SizeY,attr"`
	SizeZ             int     `xml:"SizeZ,attr"`
	SizeC             int     `xml:"SizeC,attr"`
	SizeT             int     `xml:"SizeT,attr"`
	PhysicalSizeX     float64 `xml:"PhysicalSizeX,attr"`
	PhysicalSizeXUnit string  `xml:"PhysicalSizeXUnit,attr"`
	PhysicalSizeY     float64 `xml:"PhysicalSizeY,attr"`
	PhysicalSizeYUnit string  `xml:"PhysicalSizeYUnit,attr"`
	PhysicalSizeZ     float64 `xml:"PhysicalSizeZ,attr"`
	PhysicalSizeZUnit string  `xml:"PhysicalSizeZUnit,attr"`
	TimeIncrement     float64 `xml:"TimeIncrement,attr"`
	TimeIncrementUnit string  `xml:"TimeIncrementUnit,attr"`
	Channels          []struct {
		Name  string `xml:"Name,attr"`
		Color string `xml:"Color,attr"` // a signed 32-bit RGBA integer
	} `xml:"Channel"`
}

// channels returns the display defaults of the image's channels (one per
// position on the C axis: an OME Channel per sample of an RGB page counts
// once), or nil when the XML names and colours none of them.
func (o *omeInfo) channels(spp int) []loader.Channel {
	px := &o.px
	n := px.SizeC / spp
	if spp > 1 || len(px.Channels) == 0 || n <= 0 {
		return nil
	}
	out := make([]loader.Channel, n)
	said := false
	for i := range min(n, len(px.Channels)) {
		c := px.Channels[i]
		out[i].Label = c.Name
		if v, err := strconv.ParseInt(strings.TrimSpace(c.Color), 10, 64); err == nil && v >= math.MinInt32 && v <= math.MaxUint32 {
			u := uint32(v)
			out[i].Color, out[i].HasColor = [3]uint8{uint8(u >> 24), uint8(u >> 16), uint8(u >> 8)}, true
		}
		said = said || c.Name != "" || out[i].HasColor
	}
	if !said {
		return nil
	}
	return out
}

type omeDoc struct {
	Images []struct {
		Pixels omePixels `xml:"Pixels"`
	} `xml:"Image"`
}

// omeInfo is the stack layout an OME-XML description gives.
type omeInfo struct {
	px     omePixels
	order  string // page axes, slowest first, e.g. "TCZ"
	planes int    // pages of the first image
}

// maxOMEBytes bounds the OME-XML the reader parses.
const maxOMEBytes = 64 << 20

// parseOME parses the OME-XML in desc for pages of spp samples each. It
// reports false if desc is not OME-XML or does not describe pages like these.
func parseOME(desc string, width, height, spp int) (omeInfo, bool) {
	if !strings.Contains(desc, "<OME") {
		return omeInfo{}, false
	}
	var doc omeDoc
	if err := xml.Unmarshal([]byte(desc), &doc); err != nil || len(doc.Images) == 0 {
		return omeInfo{}, false
	}
	px := doc.Images[0].Pixels
	if px.SizeX != width || px.SizeY != height || px.SizeZ <= 0 || px.SizeC <= 0 || px.SizeT <= 0 {
		return omeInfo{}, false
	}
	if px.SizeC%spp != 0 || (spp > 1 && px.SizeC != spp) {
		return omeInfo{}, false
	}
	order := strings.ToUpper(px.DimensionOrder)
	if len(order) != 5 || !strings.HasPrefix(order, "XY") {
		return omeInfo{}, false
	}
	var b []byte
	for i := 4; i >= 2; i-- {
		c := order[i]
		if !strings.ContainsRune("ZCT", rune(c)) || strings.IndexByte(order, c) != i {
			return omeInfo{}, false
		}
		b = append(b, c)
	}
	pc := px.SizeC / spp
	if uint64(px.SizeZ)*uint64(pc)*uint64(px.SizeT) > 1<<40 {
		return omeInfo{}, false
	}
	return omeInfo{px: px, order: string(b), planes: px.SizeZ * pc * px.SizeT}, true
}

// size returns the number of pages along page axis a (Z, C or T).
func (o *omeInfo) size(a byte, spp int) int {
	switch a {
	case 'Z':
		return o.px.SizeZ
	case 'C':
		return o.px.SizeC / spp
	}
	return o.px.SizeT
}

// omeUnit maps an OME length or time unit, def when it is absent.
func omeUnit(u, def string) string {
	if u == "" {
		u = def
	}
	return ngffUnit(u)
}
