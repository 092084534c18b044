package dicom_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/app/cli"
	"vastview/loader/dicom"
)

// TestCLI runs info --json and plane --out x.raw on a folder of two
// pydicom-written series (file names without an extension, beside a text
// file and a PNG picture), opened with every format registered: the folder
// is DICOM, not a sequence of one PNG frame.
func TestCLI(t *testing.T) {
	dir, want := dicom.Generate(t, "",
		dicom.Series{N: 4, Rows: 6, Cols: 7, DType: "<i2", Desc: "Axial", Number: dicom.Ptr(2), Shuffle: true, Prefix: "a",
			Slope: dicom.Ptr(1.0), Intercept: dicom.Ptr(-1024.0), WC: dicom.Ptr(40.0), WW: dicom.Ptr(400.0), PixelSpacing: []float64{0.7, 0.7}},
		dicom.Series{N: 2, Rows: 3, Cols: 3, DType: "<u1", Desc: "Scout", Number: dicom.Ptr(1), Prefix: "b"},
	)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an image"), 0o644)
	var pngb bytes.Buffer
	png.Encode(&pngb, image.NewGray(image.Rect(0, 0, 7, 6)))
	os.WriteFile(filepath.Join(dir, "preview.png"), pngb.Bytes(), 0o644)
	var out, errb bytes.Buffer
	if rc := cli.Run([]string{"info", "--json", dir}, &out, &errb); rc != 0 {
		t.Fatalf("info: %d %s", rc, errb.String())
	}
	var info struct {
		Format     string    `json:"format"`
		Axes       string    `json:"axes"`
		Shape      []int     `json:"shape"`
		DType      string    `json:"dtype"`
		Spacing    []float64 `json:"spacing"`
		Units      []string  `json:"units"`
		ValueScale *struct {
			Slope, Intercept float64
		} `json:"value_scale"`
		Channels []struct {
			Window []float64 `json:"window"`
		} `json:"channels"`
		Series []struct {
			Selector, Name string
			Shape          []int
		} `json:"series"`
	}
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if info.Format != "dicom" || info.Axes != "ZYX" || info.DType != "int16" || len(info.Shape) != 3 || info.Shape[0] != 4 {
		t.Errorf("info %+v", info)
	}
	if info.Spacing[1] != 0.7 || info.Units[1] != "millimeter" {
		t.Errorf("spacing %v %v", info.Spacing, info.Units)
	}
	if info.ValueScale == nil || info.ValueScale.Intercept != -1024 {
		t.Errorf("value scale %+v", info.ValueScale)
	}
	if len(info.Channels) != 1 || len(info.Channels[0].Window) != 2 || info.Channels[0].Window[0] != 864 || info.Channels[0].Window[1] != 1264 {
		t.Errorf("channels %+v", info.Channels)
	}
	if len(info.Series) != 2 || info.Series[0].Name != "Scout (1)" || info.Series[1].Name != "Axial (2)" {
		t.Errorf("series %+v", info.Series)
	}
	// Plane 2 of the default series, and plane 1 of the other by name.
	for _, c := range []struct {
		src string
		z   string
		k   int
	}{{dir, "2", 0}, {dir + "#Scout (1)", "1", 1}} {
		raw := filepath.Join(t.TempDir(), "x.raw")
		errb.Reset()
		if rc := cli.Run([]string{"plane", c.src, "--out", raw, "--z", c.z}, &out, &errb); rc != 0 {
			t.Fatalf("plane: %d %s", rc, errb.String())
		}
		got, _ := os.ReadFile(raw)
		w := want[c.k]
		n := len(w.Data) / w.Shape[0]
		z := int(c.z[0] - '0')
		if !bytes.Equal(got, w.Data[z*n:(z+1)*n]) {
			t.Errorf("%s plane %d: %v, pydicom %v", c.src, z, got, w.Data[z*n:(z+1)*n])
		}
	}
	// A truncated file: one line naming it.
	p := filepath.Join(t.TempDir(), "cut.dcm")
	b, _ := os.ReadFile(filepath.Join(dir, want[0].Files[0]))
	os.WriteFile(p, b[:len(b)-10], 0o644)
	errb.Reset()
	if rc := cli.Run([]string{"info", p}, &out, &errb); rc != 1 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.Contains(errb.String(), "cut.dcm") {
		t.Errorf("truncated: exit %d, %q", rc, errb.String())
	} else {
		t.Log(errb.String())
	}
}
