package measure

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Result is one row of a table of measurements: the figures of one
// channel of a named region.
type Result struct {
	Label string
	Stats
}

// ResultColumns are the columns WriteResults writes: a row number
// (headed " "), then those of Fiji's Results table (Label, Area, Mean,
// StdDev, Min, Max, IntDen, RawIntDen, Ch) with their meaning there
// (StdDev the sample standard deviation, with n−1; IntDen = Area × Mean;
// RawIntDen the sum of the samples; Ch counted from 1), then Count,
// Volume (of a prism, whose Area is empty) and Unit, which Fiji's table
// lacks.
var ResultColumns = []string{" ", "Label", "Area", "Mean", "StdDev", "Min", "Max", "IntDen", "RawIntDen", "Ch", "Count", "Volume", "Unit"}

// WriteResults writes rows as CSV with ResultColumns, one row per region
// and channel, numbers in Go's shortest exact form ("NaN" for a region
// without samples).
func WriteResults(w io.Writer, rows []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ResultColumns); err != nil {
		return err
	}
	for i, r := range rows {
		area, vol := num(r.Area), ""
		size := r.Area
		if r.Volume != 0 {
			area, vol, size = "", num(r.Volume), r.Volume
		}
		rec := []string{strconv.Itoa(i + 1), r.Label, area, num(r.Mean), num(sampleStd(r.Stats)),
			num(r.Min), num(r.Max), num(size * r.Mean), num(r.Sum), strconv.Itoa(r.Channel + 1),
			strconv.FormatInt(r.Count, 10), vol, r.Unit}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// sampleStd is the standard deviation with n−1, as Fiji's StdDev.
func sampleStd(s Stats) float64 {
	if s.Count < 2 {
		return math.NaN()
	}
	n := float64(s.Count)
	return s.Std * math.Sqrt(n/(n-1))
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ReadResults reads a table WriteResults wrote (the columns found by
// their names, in any order; missing ones left zero), turning StdDev back
// into the population deviation and Ch into a channel counted from 0.
func ReadResults(r io.Reader) ([]Result, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("measurements table: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	if _, ok := col["Mean"]; !ok {
		return nil, fmt.Errorf("measurements table: no Mean column")
	}
	var out []Result
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("measurements table: %w", err)
		}
		var bad error
		get := func(name string) float64 {
			i, ok := col[name]
			if !ok || i >= len(rec) || strings.TrimSpace(rec[i]) == "" {
				return 0
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
			if err != nil && bad == nil {
				bad = fmt.Errorf("measurements table: line %d: %s %q is not a number", line, name, rec[i])
			}
			return v
		}
		var res Result
		if i, ok := col["Label"]; ok && i < len(rec) {
			res.Label = rec[i]
		}
		if i, ok := col["Unit"]; ok && i < len(rec) {
			res.Unit = rec[i]
		}
		res.Area, res.Volume = get("Area"), get("Volume")
		res.Mean, res.Min, res.Max, res.Sum = get("Mean"), get("Min"), get("Max"), get("RawIntDen")
		res.Count = int64(get("Count"))
		res.Channel = int(get("Ch")) - 1
		if res.Channel < 0 {
			res.Channel = 0
		}
		sd := get("StdDev")
		if n := float64(res.Count); n >= 2 {
			res.Std = sd * math.Sqrt((n-1)/n)
		}
		if bad != nil {
			return nil, bad
		}
		out = append(out, res)
	}
}
