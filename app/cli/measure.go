package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"vastview/levels"
	"vastview/loader"
	"vastview/measure"
	"vastview/session"
)

// measureOpts are the options of `vastview measure`.
type measureOpts struct {
	t, c, z                  int
	rect, box, polygon, line string
	width                    int
	asJSON                   bool
	budget                   string
}

// regionJSON is what `vastview measure --json` prints for a region (a
// contract); Area or Volume, the other left out.
type regionJSON struct {
	Count  int64    `json:"count"`
	Sum    float64  `json:"sum"`
	Mean   *float64 `json:"mean"`
	Std    *float64 `json:"std"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
	Area   *float64 `json:"area,omitempty"`
	Volume *float64 `json:"volume,omitempty"`
	Unit   string   `json:"unit"`
}

// lineJSON is what `vastview measure --json` prints for a line.
type lineJSON struct {
	Profile  []float64 `json:"profile"`
	Distance []float64 `json:"distance"`
	Unit     string    `json:"unit"`
}

func cmdMeasure(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	var o measureOpts
	fs.IntVar(&o.t, "t", 0, "time point")
	fs.IntVar(&o.c, "c", 0, "channel")
	fs.IntVar(&o.z, "z", 0, "plane along Z")
	fs.StringVar(&o.rect, "rect", "", "Y0,X0,Y1,X1: the samples of rows Y0..Y1-1 and columns X0..X1-1")
	fs.StringVar(&o.box, "box", "", "Z0,Y0,X0,Z1,Y1,X1: a box of samples, half-open")
	fs.StringVar(&o.polygon, "polygon", "", "Y,X;Y,X;...: the samples whose centres lie inside")
	fs.StringVar(&o.line, "line", "", "Y0,X0,Y1,X1: the profile along a line")
	fs.IntVar(&o.width, "width", 1, "the line's width in samples")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	fs.StringVar(&o.budget, "budget", "", "memory for chunks held at once, e.g. 1GiB (default: min(25% of RAM, 4GiB))")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"measure: " + err.Error()}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	n := 0
	for _, k := range []string{"rect", "box", "polygon", "line"} {
		if given[k] {
			n++
		}
	}
	if len(pos) != 1 || n != 1 {
		return usageError{"measure needs SRC and one of --rect, --box, --polygon, --line"}
	}
	if given["width"] && !given["line"] || o.width < 1 {
		return usageError{"measure: --width wants a whole number of samples, 1 or more, with --line"}
	}
	if given["box"] && given["z"] {
		return usageError{"measure: --box gives its planes: --z goes with --rect, --polygon and --line"}
	}
	var budget int64
	if o.budget != "" {
		if budget, err = levels.ParseBudget(o.budget, false); err != nil {
			return usageError{"measure: --budget: " + err.Error()}
		}
	}
	q, line, err := o.geometry()
	if err != nil {
		return usageError{"measure: " + err.Error()}
	}
	src, err := openSource(pos[0])
	if err != nil {
		return err
	}
	defer src.Close()
	if line != nil {
		p := measure.NewProfiler(src, budget)
		prof, err := p.ProfileLine(context.Background(), q.Plane, o.c, *line)
		if err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		return printLine(stdout, o.asJSON, prof)
	}
	m := src.Meta()
	if cb := m.Levels[0].ChunkBytes(m.DType); budget > 0 && int64(cb) > budget {
		return fmt.Errorf("%s: its chunks of %s are larger than the memory budget of %s (--budget)", pos[0],
			session.HumanBytes(int64(cb)), session.HumanBytes(budget))
	}
	q.Channels = []int{o.c}
	st, err := measure.Compute(context.Background(), src, q, measure.Options{Budget: budget})
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	return printRegion(stdout, o.asJSON, q.Prism(), st[0])
}

// geometry turns the ROI option into a query on an XY plane, or a line.
func (o *measureOpts) geometry() (measure.Query, *measure.Line, error) {
	q := measure.Query{Plane: measure.Plane{Orientation: loader.XY, T: o.t, Index: o.z}}
	switch {
	case o.rect != "":
		v, err := ints(o.rect, 4, "--rect", "Y0,X0,Y1,X1")
		if err != nil {
			return q, nil, err
		}
		if v[2] <= v[0] || v[3] <= v[1] {
			return q, nil, fmt.Errorf("--rect %s is empty: want Y0 < Y1 and X0 < X1", o.rect)
		}
		q.Region = measure.Rect{Row0: v[0], Col0: v[1], Row1: v[2], Col1: v[3]}
	case o.box != "":
		v, err := ints(o.box, 6, "--box", "Z0,Y0,X0,Z1,Y1,X1")
		if err != nil {
			return q, nil, err
		}
		if v[3] <= v[0] || v[4] <= v[1] || v[5] <= v[2] {
			return q, nil, fmt.Errorf("--box %s is empty: want Z0 < Z1, Y0 < Y1 and X0 < X1", o.box)
		}
		q.Region = measure.Rect{Row0: v[1], Col0: v[2], Row1: v[4], Col1: v[5]}
		q.From, q.To = v[0], v[3]
	case o.polygon != "":
		var p measure.Polygon
		for _, pair := range strings.Split(o.polygon, ";") {
			v, err := floats(pair, 2, "--polygon", "Y,X;Y,X;...")
			if err != nil {
				return q, nil, err
			}
			p.Vertices = append(p.Vertices, measure.Pt{Row: v[0], Col: v[1]})
		}
		if len(p.Vertices) < 3 {
			return q, nil, fmt.Errorf("--polygon wants 3 vertices or more, not %d", len(p.Vertices))
		}
		q.Region = p
	default:
		v, err := floats(o.line, 4, "--line", "Y0,X0,Y1,X1")
		if err != nil {
			return q, nil, err
		}
		return q, &measure.Line{From: measure.Pt{Row: v[0], Col: v[1]}, To: measure.Pt{Row: v[2], Col: v[3]}, Width: o.width}, nil
	}
	return q, nil, nil
}

// floats reads n comma-separated numbers of the option flag (form: what
// it wants).
func floats(s string, n int, flag, form string) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%s wants %s, not %q", flag, form, s)
	}
	v := make([]float64, n)
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s wants %s, not %q", flag, form, s)
		}
		v[i] = f
	}
	return v, nil
}

// ints reads n comma-separated whole numbers, as floats does.
func ints(s string, n int, flag, form string) ([]int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%s wants %s (whole numbers), not %q", flag, form, s)
	}
	v := make([]int, n)
	for i, p := range parts {
		k, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("%s wants %s (whole numbers), not %q", flag, form, s)
		}
		v[i] = k
	}
	return v, nil
}

// finite is v, or nil (JSON's null) when v is not a number.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// printRegion prints the figures of a region (with its volume for a
// prism, else its area): one JSON object, or a table of names and values.
func printRegion(w io.Writer, asJSON, prism bool, s measure.Stats) error {
	j := regionJSON{Count: s.Count, Sum: s.Sum, Mean: finite(s.Mean), Std: finite(s.Std), Min: finite(s.Min), Max: finite(s.Max), Unit: s.Unit}
	if prism {
		j.Volume = &s.Volume
	} else {
		j.Area = &s.Area
	}
	if asJSON {
		return json.NewEncoder(w).Encode(j)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	fmt.Fprintf(tw, "count\t%d\n", s.Count)
	fmt.Fprintf(tw, "sum\t%s\n", num(&j.Sum))
	for _, r := range []struct {
		name string
		v    *float64
	}{{"mean", j.Mean}, {"std", j.Std}, {"min", j.Min}, {"max", j.Max}} {
		fmt.Fprintf(tw, "%s\t%s\n", r.name, num(r.v))
	}
	u := s.Unit
	if u == "" {
		u = "pixel"
	}
	if j.Volume != nil {
		fmt.Fprintf(tw, "volume\t%s %s³\n", num(j.Volume), u)
	} else {
		fmt.Fprintf(tw, "area\t%s %s²\n", num(j.Area), u)
	}
	return tw.Flush()
}

// printLine prints a profile: one JSON object, or a table of distances
// and values.
func printLine(w io.Writer, asJSON bool, p measure.Profile) error {
	if asJSON {
		return json.NewEncoder(w).Encode(lineJSON{Profile: p.Values, Distance: p.Distance, Unit: p.Unit})
	}
	u := p.Unit
	if u == "" {
		u = "pixel"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "distance (%s)\tvalue\t\n", u)
	for i, v := range p.Values {
		fmt.Fprintf(tw, "%s\t%s\t\n", strconv.FormatFloat(p.Distance[i], 'g', 6, 64), strconv.FormatFloat(v, 'g', -1, 64))
	}
	return tw.Flush()
}
