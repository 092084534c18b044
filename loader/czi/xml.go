package czi

import (
	"bytes"
	"encoding/hex"
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"vastview/base/textutil"
	"vastview/loader"
)

// xDoc is what the metadata XML says that a viewer uses.
type xDoc struct {
	Scaling  []xDistance `xml:"Metadata>Scaling>Items>Distance"`
	Channels []xChannel  `xml:"Metadata>Information>Image>Dimensions>Channels>Channel"`
	Display  []xChannel  `xml:"Metadata>DisplaySetting>Channels>Channel"`
	Scenes   []xScene    `xml:"Metadata>Information>Image>Dimensions>S>Scenes>Scene"`
	Acquired string      `xml:"Metadata>Information>Image>AcquisitionDateAndTime"`
	Bits     string      `xml:"Metadata>Information>Image>ComponentBitCount"`
	bits     int
}

type xDistance struct {
	ID    string `xml:"Id,attr"`
	Value string `xml:"Value"`
}

type xChannel struct {
	ID      string `xml:"Id,attr"`
	Name    string `xml:"Name,attr"`
	Color   string `xml:"Color"`
	DyeName string `xml:"DyeName"`
}

type xScene struct {
	Index string `xml:"Index,attr"`
	Name  string `xml:"Name,attr"`
}

// parse decodes the XML x into d.
func (d *xDoc) parse(x []byte) error {
	x = bytes.TrimRight(x, "\x00")
	dec := xml.NewDecoder(bytes.NewReader(x))
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := dec.Decode(d); err != nil {
		*d = xDoc{}
		return err
	}
	d.bits, _ = strconv.Atoi(strings.TrimSpace(d.Bits))
	return nil
}

// scale is the size of one step along axis a in metres, or 0.
func (d *xDoc) scale(a byte) float64 {
	for _, s := range d.Scaling {
		if strings.TrimSpace(s.ID) == string(a) {
			v, err := strconv.ParseFloat(strings.TrimSpace(s.Value), 64)
			if err == nil && v > 0 && v < 1 {
				return v
			}
		}
	}
	return 0
}

// sceneName is the name the XML gives scene s, or "".
func (d *xDoc) sceneName(s int) string {
	for i, sc := range d.Scenes {
		idx, err := strconv.Atoi(strings.TrimSpace(sc.Index))
		if err != nil {
			idx = i
		}
		if idx == s {
			return textutil.Clip(strings.TrimSpace(sc.Name))
		}
	}
	return ""
}

// channels describes channels c0 to c0+n-1: the name and colour the
// acquisition information gives, else the display settings'.
func (d *xDoc) channels(c0, n int) []loader.Channel {
	if len(d.Channels) == 0 && len(d.Display) == 0 {
		return nil
	}
	out := make([]loader.Channel, n)
	for i := range out {
		k := c0 + i
		var info, disp xChannel
		if k < len(d.Channels) {
			info = d.Channels[k]
		}
		if k < len(d.Display) {
			disp = d.Display[k]
		}
		for _, c := range d.Display {
			if info.ID != "" && c.ID == info.ID {
				disp = c
			}
		}
		ch := &out[i]
		for _, name := range []string{info.Name, disp.Name, info.DyeName, disp.DyeName} {
			if ch.Label = textutil.Clip(strings.TrimSpace(name)); ch.Label != "" {
				break
			}
		}
		for _, col := range []string{info.Color, disp.Color} {
			if rgb, ok := parseColor(col); ok {
				ch.Color, ch.HasColor = rgb, true
				break
			}
		}
	}
	return out
}

// parseColor reads "#AARRGGBB" or "#RRGGBB".
func parseColor(s string) ([3]uint8, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	b, err := hex.DecodeString(s)
	if err != nil || (len(b) != 3 && len(b) != 4) {
		return [3]uint8{}, false
	}
	b = b[len(b)-3:]
	return [3]uint8{b[0], b[1], b[2]}, true
}
