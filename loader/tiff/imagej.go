package tiff

import (
	"math"
	"strconv"
	"strings"

	"vastview/loader"
)

// imagejInfo is what an ImageJ ImageDescription says about the stack.
type imagejInfo struct {
	images, channels, slices, frames int
	spacing, finterval               float64
	unit, yunit, zunit, tunit        string
	mode                             string // a loader.Channels* constant, or ""
	// min and max are the display range ImageJ showed the image with when
	// it saved it (it writes them for 16- and 32-bit images and for 8-bit
	// ones with a range other than 0-255); hasMin and hasMax say they were
	// given.
	min, max       float64
	hasMin, hasMax bool
}

// parseImageJ parses an ImageDescription of the form "ImageJ=1.x\nkey=value
// ...". It reports false if desc is not one.
func parseImageJ(desc string) (imagejInfo, bool) {
	if !strings.HasPrefix(desc, "ImageJ=") {
		return imagejInfo{}, false
	}
	ij := imagejInfo{images: 1, channels: 1, slices: 1, frames: 1}
	for _, line := range strings.Split(desc, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			ij.set(k, v)
		}
	}
	if ij.images <= 0 || ij.channels <= 0 || ij.slices <= 0 || ij.frames <= 0 {
		return imagejInfo{}, false
	}
	if ij.channels*ij.slices*ij.frames != ij.images {
		// Not a consistent hyperstack: a plain stack of images.
		ij.channels, ij.slices, ij.frames = 1, ij.images, 1
	}
	return ij, true
}

// set records one key=value line of the description.
func (ij *imagejInfo) set(k, v string) {
	switch k {
	case "images":
		ij.images = atoiPos(v)
	case "channels":
		ij.channels = atoiPos(v)
	case "slices":
		ij.slices = atoiPos(v)
	case "frames":
		ij.frames = atoiPos(v)
	case "spacing":
		ij.spacing = atofPos(v)
	case "finterval":
		ij.finterval = atofPos(v)
	case "unit":
		ij.unit = unescapeUnit(v)
	case "yunit":
		ij.yunit = unescapeUnit(v)
	case "zunit":
		ij.zunit = unescapeUnit(v)
	case "tunit":
		ij.tunit = unescapeUnit(v)
	case "mode":
		ij.mode = imagejMode(v)
	case "min":
		ij.min, ij.hasMin = atofFinite(v)
	case "max":
		ij.max, ij.hasMax = atofFinite(v)
	}
}

// imagejMode maps the value of ImageJ's "mode=" to a loader.Channels*
// constant, or "" for one it does not know. ImageJ writes "composite",
// "color" and "grayscale" (and reads any value starting with "gray" as
// grayscale); "custom" and "transparent" are composites drawn another way.
func imagejMode(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	switch {
	case strings.HasPrefix(v, "composite"), v == "custom", v == "transparent":
		return loader.ChannelsComposite
	case v == "color", v == "colour":
		return loader.ChannelsColor
	case strings.HasPrefix(v, "gray"), strings.HasPrefix(v, "grey"):
		return loader.ChannelsGray
	}
	return ""
}

// atofFinite parses a finite number, reporting whether it is one.
func atofFinite(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// atoiPos parses a positive count, returning 0 for anything else (including
// counts too large to be real).
func atoiPos(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n <= 0 || n > 1<<40 {
		return 0
	}
	return n
}

// atofPos parses a positive finite number, returning 0 for anything else.
func atofPos(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f > 0) || f > 1e300 {
		return 0
	}
	return f
}

// unescapeUnit undoes ImageJ's \uXXXX escapes (it writes "\u00B5m").
func unescapeUnit(s string) string {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, `\u`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+6 <= len(s) && s[i+1] == 'u' {
			if r, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				b.WriteRune(rune(r))
				i += 5
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ngffUnit maps a unit name as ImageJ or OME write it to the OME-NGFF name,
// or "" if it is unknown.
func ngffUnit(u string) string {
	switch strings.TrimSpace(u) {
	case "micron", "microns", "um", "µm", "μm", "micrometer", "micrometre":
		return "micrometer"
	case "nm", "nanometer", "nanometre":
		return "nanometer"
	case "mm", "millimeter", "millimetre":
		return "millimeter"
	case "cm", "centimeter", "centimetre":
		return "centimeter"
	case "m", "meter", "metre":
		return "meter"
	case "km", "kilometer":
		return "kilometer"
	case "pm", "picometer":
		return "picometer"
	case "\u00c5", "\u212b", "angstrom":
		return "angstrom"
	case "in", "inch", "inches":
		return "inch"
	case "ft", "foot", "feet":
		return "foot"
	case "s", "sec", "second", "seconds":
		return "second"
	case "ms", "msec", "millisecond", "milliseconds":
		return "millisecond"
	case "us", "µs", "μs", "usec", "microsecond", "microseconds":
		return "microsecond"
	case "ns", "nanosecond", "nanoseconds":
		return "nanosecond"
	case "min", "minute", "minutes":
		return "minute"
	case "h", "hr", "hour", "hours":
		return "hour"
	case "d", "day", "days":
		return "day"
	}
	return ""
}
