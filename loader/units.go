package loader

// The kinds of physical unit an axis may have.
const (
	Length = "length"
	Time   = "time"
)

// ngffUnits are the units OME-NGFF lists for space and time axes (the
// UDUNITS-2 names), in metres and seconds.
var ngffUnits = map[string]struct {
	factor float64
	kind   string
}{
	"angstrom": {1e-10, Length}, "attometer": {1e-18, Length}, "centimeter": {1e-2, Length},
	"decimeter": {1e-1, Length}, "exameter": {1e18, Length}, "femtometer": {1e-15, Length},
	"foot": {0.3048, Length}, "gigameter": {1e9, Length}, "hectometer": {1e2, Length},
	"inch": {0.0254, Length}, "kilometer": {1e3, Length}, "megameter": {1e6, Length},
	"meter": {1, Length}, "micrometer": {1e-6, Length}, "mile": {1609.344, Length},
	"millimeter": {1e-3, Length}, "nanometer": {1e-9, Length}, "parsec": {3.0856775814913673e16, Length},
	"petameter": {1e15, Length}, "picometer": {1e-12, Length}, "terameter": {1e12, Length},
	"yard": {0.9144, Length}, "yoctometer": {1e-24, Length}, "yottameter": {1e24, Length},
	"zeptometer": {1e-21, Length}, "zettameter": {1e21, Length},

	"attosecond": {1e-18, Time}, "centisecond": {1e-2, Time}, "day": {86400, Time},
	"decisecond": {1e-1, Time}, "exasecond": {1e18, Time}, "femtosecond": {1e-15, Time},
	"gigasecond": {1e9, Time}, "hectosecond": {1e2, Time}, "hour": {3600, Time},
	"kilosecond": {1e3, Time}, "megasecond": {1e6, Time}, "microsecond": {1e-6, Time},
	"millisecond": {1e-3, Time}, "minute": {60, Time}, "nanosecond": {1e-9, Time},
	"petasecond": {1e15, Time}, "picosecond": {1e-12, Time}, "second": {1, Time},
	"terasecond": {1e12, Time}, "yoctosecond": {1e-24, Time}, "yottasecond": {1e24, Time},
	"zeptosecond": {1e-21, Time}, "zettasecond": {1e21, Time},
}

// UnitScale returns how many metres (a Length unit) or seconds (a Time
// unit) one unit is, for the unit names of OME-NGFF (Meta.Units); 0 and
// "" for any other name.
func UnitScale(unit string) (factor float64, kind string) {
	u, ok := ngffUnits[unit]
	if !ok {
		return 0, ""
	}
	return u.factor, u.kind
}
