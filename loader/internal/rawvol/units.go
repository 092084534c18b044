package rawvol

import "strings"

var unitNames = map[string]string{
	"m": "meter", "meter": "meter", "meters": "meter", "metre": "meter",
	"cm": "centimeter", "centimeter": "centimeter", "centimeters": "centimeter",
	"mm": "millimeter", "millimeter": "millimeter", "millimeters": "millimeter", "millimetre": "millimeter",
	"um": "micrometer", "µm": "micrometer", "μm": "micrometer", "micron": "micrometer",
	"microns": "micrometer", "micrometer": "micrometer", "micrometers": "micrometer", "micrometre": "micrometer",
	"nm": "nanometer", "nanometer": "nanometer", "nanometers": "nanometer",
	"s": "second", "sec": "second", "second": "second", "seconds": "second",
	"ms": "millisecond", "msec": "millisecond", "millisecond": "millisecond", "milliseconds": "millisecond",
	"us": "microsecond", "µs": "microsecond", "μs": "microsecond", "usec": "microsecond",
	"microsecond": "microsecond", "microseconds": "microsecond",
	"min": "minute", "minute": "minute", "minutes": "minute",
	"h": "hour", "hour": "hour", "hours": "hour",
}

// UnitName returns the OME-NGFF name of a unit written as in file headers
// ("mm", "µm", "micron", "sec", ...), or "" when it is not a known length
// or time unit.
func UnitName(s string) string {
	return unitNames[strings.ToLower(strings.TrimSpace(s))]
}
