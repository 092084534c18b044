package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
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
	Label      bool               `json:"label,omitempty"`
	Channels   []channelJSON      `json:"channels,omitempty"`
	DataFiles  []string           `json:"data_files,omitempty"` // files read besides SRC
}

// channelJSON is what the file says about displaying one channel: its
// name, colour ("#rrggbb") and display window ([lo, hi]), each when given.
type channelJSON struct {
	Name   string      `json:"name"`
	Color  string      `json:"color,omitempty"`
	Window *[2]float64 `json:"window,omitempty"`
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
		ValueScale: m.ValueScale, Label: m.Label, DataFiles: m.DataFiles,
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
		s := fmt.Sprintf("%c %g", m.Axes[i], m.Spacing[i])
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
		fmt.Fprintf(out, "  values   stored × %g + %g\n", m.ValueScale.Slope, m.ValueScale.Intercept)
	}
	for i, l := range m.Levels {
		fmt.Fprintf(out, "  level %d  %s\n", i, joinInts(l.Shape, " × "))
	}
	for i, c := range m.Channels {
		fmt.Fprintf(out, "  channel %d  %s", i, c.Label)
		if c.HasColor {
			fmt.Fprintf(out, "  #%02x%02x%02x", c.Color[0], c.Color[1], c.Color[2])
		}
		if c.HasWindow {
			fmt.Fprintf(out, "  [%g, %g]", c.Lo, c.Hi)
		}
		fmt.Fprintln(out)
	}
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
		if strings.ContainsFunc(f, func(r rune) bool { return !unicode.IsPrint(r) }) {
			f = strconv.Quote(f) // no control characters to the terminal
		}
		fmt.Fprintf(out, "  data     %s\n", f)
	}
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}
