package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"vastview/loader"
	"vastview/loader/sequence"
	"vastview/session"
)

// infoJSON is the object `vastview info --json` prints (a contract).
type infoJSON struct {
	Format     string             `json:"format"`
	Axes       string             `json:"axes"`
	Shape      []int              `json:"shape"`
	DType      string             `json:"dtype"`
	Spacing    []float64          `json:"spacing"`
	Units      []string           `json:"units"`
	Levels     []levelJSON        `json:"levels"`
	Chunk      []int              `json:"chunk"`
	ValueScale *loader.ValueScale `json:"value_scale,omitempty"`
	// ValueUnit is the unit of the scaled values ("HU"); Modality the
	// acquisition's kind ("CT", "MR"), each when the file says.
	ValueUnit string `json:"value_unit,omitempty"`
	Modality  string `json:"modality,omitempty"`
	// Orientation is the anatomical direction toward which X, Y and Z
	// increase (nibabel's aff2axcodes), when the file places its samples in
	// a patient; Space is the world frame of Affine ("RAS" or "LPS"), and
	// Affine maps a level-0 sample index (x, y, z, 1) to world millimetres.
	Orientation string         `json:"orientation,omitempty"`
	Space       string         `json:"space,omitempty"`
	Affine      *[3][4]float64 `json:"affine,omitempty"`
	Oblique     bool           `json:"oblique,omitempty"`
	Label       bool           `json:"label,omitempty"`
	Channels    []channelJSON  `json:"channels,omitempty"`
	// ChannelMode is how the file says to show its channels at first
	// ("composite", "color" or "grayscale"), when it says.
	ChannelMode string   `json:"channel_mode,omitempty"`
	DataFiles   []string `json:"data_files,omitempty"` // files read besides SRC
	// Series lists the images of a file that holds several; SRC#SELECTOR
	// opens one. SeriesIndex is the one described (present with Series).
	Series      []seriesJSON `json:"series,omitempty"`
	SeriesIndex *int         `json:"series_index,omitempty"`
	Notes       []string     `json:"notes,omitempty"`
}

// seriesJSON is one image of a file that holds several.
type seriesJSON struct {
	Selector string `json:"selector"`
	Name     string `json:"name"`
	Axes     string `json:"axes"`
	Shape    []int  `json:"shape"`
	DType    string `json:"dtype"`
}

// channelJSON is what the file says about displaying one channel: its
// name, colour ("#rrggbb") and display window ([lo, hi]), each when given;
// visible false when the file shows it switched off at first; lut true
// when it has a colour table of its own (its colour is then the table's
// brightest entry).
type channelJSON struct {
	Name    string      `json:"name"`
	Color   string      `json:"color,omitempty"`
	Window  *[2]float64 `json:"window,omitempty"`
	Visible *bool       `json:"visible,omitempty"`
	LUT     bool        `json:"lut,omitempty"`
}

type levelJSON struct {
	Shape       []int     `json:"shape"`
	Scale       []float64 `json:"scale"`
	Translation []float64 `json:"translation"`
}

func cmdInfo(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"info: " + err.Error()}
	}
	if len(pos) != 1 {
		return usageError{"info needs exactly one SRC"}
	}
	src, err := openSource(pos[0])
	if err != nil {
		return err
	}
	defer src.Close()
	if err := sequence.Check(context.Background(), src); err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	m := src.Meta()
	if sc, ok := src.(loader.MissingScanner); ok {
		n, err := sc.ScanMissing(context.Background())
		if err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		if n > 0 {
			c := *m
			c.Notes = append(slices.Clip(m.Notes), fmt.Sprintf("%d chunks missing where the level above holds data (read as the fill value)", n))
			m = &c
		}
	}
	if *asJSON {
		return printInfoJSON(out, m)
	}
	printInfoText(out, pos[0], m)
	return nil
}

func printInfoJSON(out io.Writer, m *loader.Meta) error {
	j := infoJSON{
		Format: m.Format, Axes: m.Axes, Shape: m.Shape, DType: m.DType.String(),
		Spacing: m.Spacing, Units: m.Units, Chunk: m.Levels[0].Chunk,
		ValueScale: m.ValueScale, ValueUnit: m.ValueUnit, Modality: m.Modality, Label: m.Label, DataFiles: m.DataFiles,
		ChannelMode: m.ChannelMode, Notes: m.Notes,
	}
	if a := m.Anatomy; a != nil {
		j.Orientation, j.Space, j.Affine, j.Oblique = a.Codes(), a.Space, &a.Affine, a.Oblique()
	}
	for _, s := range m.Series {
		j.Series = append(j.Series, seriesJSON{Selector: s.Selector, Name: s.Name, Axes: s.Axes, Shape: s.Shape, DType: s.DType.String()})
	}
	if len(m.Series) > 0 {
		j.SeriesIndex = &m.SeriesIndex
	}
	for _, l := range m.Levels {
		j.Levels = append(j.Levels, levelJSON{Shape: l.Shape, Scale: l.Scale, Translation: l.Translation})
	}
	for _, c := range m.Channels {
		cj := channelJSON{Name: c.Label}
		if c.HasColor {
			cj.Color = fmt.Sprintf("#%02x%02x%02x", c.Color[0], c.Color[1], c.Color[2])
		}
		if c.HasWindow {
			cj.Window = &[2]float64{c.Lo, c.Hi}
		}
		if c.Hidden {
			cj.Visible = new(bool)
		}
		cj.LUT = c.LUT != nil
		j.Channels = append(j.Channels, cj)
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s\n", b)
	return err
}

func printInfoText(out io.Writer, path string, m *loader.Meta) {
	fmt.Fprintf(out, "%s\n  format   %s\n", path, m.Format)
	printDataFiles(out, m.DataFiles)
	fmt.Fprintf(out, "  axes     %s\n  shape    %s\n  dtype    %s\n", m.Axes, joinInts(m.Shape, " × "), m.DType)
	var sp []string
	for i := range m.Axes {
		s := fmt.Sprintf("%c %s", m.Axes[i], loader.FormatValue(m.Spacing[i]))
		if m.Units[i] != "" {
			s += " " + m.Units[i]
		}
		sp = append(sp, s)
	}
	fmt.Fprintf(out, "  spacing  %s\n", strings.Join(sp, ", "))
	size := float64(m.DType.Size())
	for _, s := range m.Shape {
		size *= float64(s)
	}
	fmt.Fprintf(out, "  size     %s\n  chunk    %s\n", session.HumanBytes(int64(size)), joinInts(m.Levels[0].Chunk, " × "))
	if m.ValueScale != nil {
		fmt.Fprintf(out, "  values   stored × %s + %s", loader.FormatValue(m.ValueScale.Slope), loader.FormatValue(m.ValueScale.Intercept))
		if m.ValueUnit != "" {
			fmt.Fprintf(out, " %s", printable(m.ValueUnit))
		}
		fmt.Fprintln(out)
	} else if m.ValueUnit != "" {
		fmt.Fprintf(out, "  values   %s\n", printable(m.ValueUnit))
	}
	if a := m.Anatomy; a != nil {
		fmt.Fprintf(out, "  orientation %s (world: %s mm", a.Codes(), a.Space)
		if a.Oblique() {
			o := a.Obliquity()
			fmt.Fprintf(out, "; oblique, up to %s°", loader.FormatValue(math.Round(max(o[0], o[1], o[2])*180/math.Pi*10)/10))
		}
		fmt.Fprintln(out, ")")
	}
	for i, l := range m.Levels {
		fmt.Fprintf(out, "  level %d  %s\n", i, joinInts(l.Shape, " × "))
	}
	if m.ChannelMode != "" {
		fmt.Fprintf(out, "  channels %s\n", m.ChannelMode)
	}
	for i, c := range m.Channels {
		fmt.Fprintf(out, "  channel %d", i)
		if c.Label != "" {
			fmt.Fprintf(out, "  %s", printable(c.Label))
		}
		if c.HasColor {
			fmt.Fprintf(out, "  #%02x%02x%02x", c.Color[0], c.Color[1], c.Color[2])
		}
		if c.LUT != nil {
			fmt.Fprint(out, " (colour table)")
		}
		if c.HasWindow {
			fmt.Fprintf(out, "  [%s, %s]", loader.FormatValue(c.Lo), loader.FormatValue(c.Hi))
		}
		if c.Hidden {
			fmt.Fprint(out, "  hidden")
		}
		fmt.Fprintln(out)
	}
	for _, n := range m.Notes {
		fmt.Fprintf(out, "  note     %s\n", printable(n))
	}
	printSeries(out, path, m)
}

// printSeries lists the images of a file that holds several, marking the
// one described, and how to open another.
func printSeries(out io.Writer, path string, m *loader.Meta) {
	if len(m.Series) == 0 {
		return
	}
	fmt.Fprintf(out, "  series   %d images (open one as %s#N or #NAME)\n", len(m.Series), printable(seriesBase(path)))
	for i, s := range m.Series {
		mark := " "
		if i == m.SeriesIndex {
			mark = "*"
		}
		fmt.Fprintf(out, "  %s #%-5s %-24s %s %s %s\n", mark, s.Selector, printable(s.Name), s.Axes, joinInts(s.Shape, "×"), s.DType)
	}
}

// seriesBase is path without its series selector.
func seriesBase(path string) string {
	p, _ := loader.SplitSelector(path)
	return p
}

// maxDataLines bounds the data files info lists in text; --json lists all.
const maxDataLines = 8

// printDataFiles lists the files the source reads besides the one given,
// one "data" line each: a header may name any file.
func printDataFiles(out io.Writer, files []string) {
	for i, f := range files {
		if i == maxDataLines-1 && len(files) > maxDataLines {
			fmt.Fprintf(out, "  data     ... and %d more (info --json lists them)\n", len(files)-i)
			return
		}
		fmt.Fprintf(out, "  data     %s\n", printable(f))
	}
}

// printable returns s, quoted when it holds a character that is not
// printable, so that no control character from a file reaches the
// terminal.
func printable(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}
