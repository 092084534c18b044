package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"vastview/base/testtool"
	"vastview/loader"
)

// nrrdHeader describes 2 planes of 3x4 bytes.
const nrrdHeader = "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 3 2\nencoding: raw\n"

// TestInfoNamesDataFiles checks that info says which files a header makes
// vastview read: a "data" line per file in text, "data_files" in JSON,
// and neither for a file that holds its own data.
func TestInfoNamesDataFiles(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(dir, "elsewhere.raw")
	write(t, raw, strings.Repeat("x", 24))
	hdr := filepath.Join(sub, "h.nhdr")
	write(t, hdr, nrrdHeader+"data file: ../elsewhere.raw\n")
	list := filepath.Join(sub, "list.nhdr")
	var names []string
	for i := 0; i < 12; i++ { // 12 planes of 3x4
		names = append(names, fmt.Sprintf("../s%02d.raw", i))
		write(t, filepath.Join(dir, fmt.Sprintf("s%02d.raw", i)), strings.Repeat("y", 12))
	}
	write(t, list, strings.Replace(nrrdHeader, "4 3 2", "4 3 12", 1)+"data file: LIST\n"+strings.Join(names, "\n")+"\n")
	attached := filepath.Join(dir, "a.nrrd")
	write(t, attached, nrrdHeader+"\n"+strings.Repeat("z", 24))

	text := mustRun(t, "info", hdr)
	if !slices.Contains(strings.Split(text, "\n"), "  data     "+raw) {
		t.Errorf("info %s does not name %s:\n%s", hdr, raw, text)
	}
	if got := dataFilesJSON(t, hdr); !slices.Equal(got, []string{raw}) {
		t.Errorf("info --json %s: data_files %q, want %q", hdr, got, raw)
	}

	text = mustRun(t, "info", list)
	lines := linesWith(text, "  data     ")
	if len(lines) != maxDataLines || lines[0] != "  data     "+filepath.Join(dir, "s00.raw") || !strings.Contains(lines[len(lines)-1], "and 5 more") {
		t.Errorf("info %s lists its 12 data files as\n%s", list, strings.Join(lines, "\n"))
	}
	if got := dataFilesJSON(t, list); len(got) != 12 || got[11] != filepath.Join(dir, "s11.raw") {
		t.Errorf("info --json %s: data_files %q", list, got)
	}

	if text := mustRun(t, "info", attached); len(linesWith(text, "  data ")) != 0 {
		t.Errorf("info of an attached header names data files:\n%s", text)
	}
	if js := mustRun(t, "info", "--json", attached); strings.Contains(js, "data_files") {
		t.Errorf("info --json of an attached header: %s", js)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dataFilesJSON returns the data_files of `info --json path`.
func dataFilesJSON(t *testing.T, path string) []string {
	t.Helper()
	var j struct {
		DataFiles []string `json:"data_files"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", path)), &j); err != nil {
		t.Fatal(err)
	}
	return j.DataFiles
}

// linesWith returns the lines of text that start with prefix.
func linesWith(text, prefix string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// channelDisplayFixtures writes an ImageJ composite hyperstack with
// tifffile (channel 0 in green, channel 1 with a table that is not a ramp
// from black) and an OME-Zarr image with python-zarr whose omero metadata
// switches its second channel off and says greyscale.
const channelDisplayFixtures = `
import sys, numpy as np, tifffile, zarr
d = sys.argv[1]
i = np.arange(256)
green = np.stack([0 * i, i, 0 * i]).astype(np.uint8)
fire = np.stack([np.clip(3 * i, 0, 255), np.clip(3 * i - 255, 0, 255), np.clip(3 * i - 510, 0, 255)]).astype(np.uint8)
a = np.arange(2 * 2 * 6 * 7, dtype=np.uint16).reshape(2, 2, 6, 7)
tifffile.imwrite(d + '/c.tif', a, imagej=True, metadata={'axes': 'ZCYX', 'mode': 'composite',
    'Ranges': (1.0, 50.0, 2.0, 60.0), 'LUTs': [green, fire], 'Labels': ['DAPI', 'GFP', 'z1 c0', 'z1 c1']})
g = zarr.open_group(d + '/c.ome.zarr', mode='w')
g.create_dataset('0', data=a[0], chunks=(1, 6, 7))
g.attrs['multiscales'] = [{'version': '0.4', 'axes': [{'name': 'c', 'type': 'channel'},
    {'name': 'y', 'type': 'space'}, {'name': 'x', 'type': 'space'}],
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [1, 1, 1]}]}]}]
g.attrs['omero'] = {'channels': [
    {'label': 'DAPI', 'color': '0000FF', 'window': {'start': 0, 'end': 80, 'min': 0, 'max': 65535}, 'active': True},
    {'label': 'GFP', 'color': '00FF00', 'window': {'start': 5, 'end': 70, 'min': 0, 'max': 65535}, 'active': False}],
    'rdefs': {'model': 'greyscale'}}
`

// TestInfoChannelDisplay checks that info says how the file shows its
// channels: "channel_mode", "visible": false for a channel switched off
// (and no "visible" otherwise), "lut": true for a channel with a colour
// table (and no "lut" otherwise); in text, a "channels" line and the
// table and hidden state on each channel's line.
func TestInfoChannelDisplay(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "zarr", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, channelDisplayFixtures, dir)
	cases := []struct {
		file  string
		mode  string
		chans []map[string]any
		text  []string
	}{
		{"c.tif", "composite", []map[string]any{
			{"name": "DAPI", "color": "#00ff00", "window": []any{1.0, 50.0}},
			{"name": "GFP", "color": "#ffffff", "window": []any{2.0, 60.0}, "lut": true},
		}, []string{"  channels composite", "  channel 0  DAPI  #00ff00  [1, 50]", "  channel 1  GFP  #ffffff (colour table)  [2, 60]"}},
		{"c.ome.zarr", "grayscale", []map[string]any{
			{"name": "DAPI", "color": "#0000ff", "window": []any{0.0, 80.0}},
			{"name": "GFP", "color": "#00ff00", "window": []any{5.0, 70.0}, "visible": false},
		}, []string{"  channels grayscale", "  channel 0  DAPI  #0000ff  [0, 80]", "  channel 1  GFP  #00ff00  [5, 70]  hidden"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			var j struct {
				Mode     string           `json:"channel_mode"`
				Channels []map[string]any `json:"channels"`
			}
			if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", path)), &j); err != nil {
				t.Fatal(err)
			}
			if j.Mode != c.mode {
				t.Errorf("channel_mode %q, want %q", j.Mode, c.mode)
			}
			if !reflect.DeepEqual(j.Channels, c.chans) {
				t.Errorf("channels %v\nwant     %v", j.Channels, c.chans)
			}
			lines := strings.Split(mustRun(t, "info", path), "\n")
			for _, l := range c.text {
				if !slices.Contains(lines, l) {
					t.Errorf("no line %q in\n%s", l, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

// TestInfoQuotesControlCharacters: a channel name from a file reaches the
// terminal quoted when it holds a control character.
func TestInfoQuotesControlCharacters(t *testing.T) {
	var b strings.Builder
	printInfoText(&b, "x", &loader.Meta{Format: "f", Axes: "YX", Shape: []int{1, 1},
		Spacing: []float64{1, 1}, Units: []string{"", ""}, Levels: []loader.Level{{Shape: []int{1, 1}, Chunk: []int{1, 1}}},
		Channels: []loader.Channel{{Label: "red\x1b[2J"}}})
	if !strings.Contains(b.String(), `  channel 0  "red\x1b[2J"`) {
		t.Errorf("info text:\n%s", b.String())
	}
}

// TestInfoListsSeries: info --json of a Leica LIF file lists its three
// images as series, and SRC#NAME describes (and plane reads) another; a
// selector that names none is one line listing them.
func TestInfoListsSeries(t *testing.T) {
	lif := testtool.SharedData(t, "lif/testdata_2channel_xz.lif")
	type series struct {
		Selector, Name, Axes, DType string
		Shape                       []int
	}
	info := func(src string) (j struct {
		Axes   string
		Shape  []int
		Series []series
		Index  *int `json:"series_index"`
	}) {
		var out, errb bytes.Buffer
		if rc := Run([]string{"info", "--json", src}, &out, &errb); rc != 0 {
			t.Fatalf("info %s: %s", src, errb.String())
		}
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	want := []series{{"0", "xzt", "TCYX", "uint8", []int{20, 2, 128, 128}},
		{"1", "xzy", "CZYX", "uint8", []int{2, 23, 128, 128}}, {"2", "xz", "CYX", "uint8", []int{2, 512, 512}}}
	for sel, idx := range map[string]int{"": 0, "#1": 1, "#xzy": 1, "#2": 2} {
		j := info(lif + sel)
		if !reflect.DeepEqual(j.Series, want) || j.Index == nil || *j.Index != idx ||
			j.Axes != want[idx].Axes || !reflect.DeepEqual(j.Shape, want[idx].Shape) {
			t.Errorf("%q: %s %v index %v series %v", sel, j.Axes, j.Shape, j.Index, j.Series)
		}
	}
	raw := filepath.Join(t.TempDir(), "p.raw")
	var out, errb bytes.Buffer
	if rc := Run([]string{"plane", lif + "#xz", "--c", "1", "--out", raw}, &out, &errb); rc != 0 {
		t.Fatalf("plane: %s", errb.String())
	}
	if st, err := os.Stat(raw); err != nil || st.Size() != 512*512 {
		t.Errorf("plane of #xz: %v %v", st, err)
	}
	errb.Reset()
	if rc := Run([]string{"info", lif + "#yz"}, &out, &errb); rc != 1 ||
		!strings.Contains(errb.String(), `no series "yz": the file holds 3 (#0 "xzt", #1 "xzy", #2 "xz")`) || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("#yz: rc %d %q", rc, errb.String())
	}
}

// TestInfoPrintsValuesAsStored checks that info prints spacings at the
// precision the file stores them: NIfTI's float32 zooms as numpy prints
// them, tifffile's rational resolution of 1/0.3 µm as 0.3 (in --json too),
// a spacing computed from timestamps without float noise; and an unnamed
// channel without an empty name's gap.
func TestInfoPrintsValuesAsStored(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "tifffile", "numpy")
	dir := t.TempDir()
	out := testtool.RunPython(t, `
import sys, numpy as np, nibabel as nib, tifffile
d = sys.argv[1]
img = nib.Nifti1Image(np.zeros((4, 3, 2), np.uint8), np.eye(4))
img.header.set_zooms((0.7, 0.3, 2.3))
img.header.set_xyzt_units('mm')
nib.save(img, d + '/v.nii')
tifffile.imwrite(d + '/ij.tif', np.zeros((3, 4, 5), np.uint8), imagej=True, resolution=(1 / 0.3, 1 / 0.3), metadata={'unit': 'um', 'axes': 'ZYX'})
r = tifffile.TiffFile(d + '/ij.tif').pages[0].tags['XResolution'].value
z = nib.load(d + '/v.nii').header.get_zooms()
print('Z %s millimeter, Y %s millimeter, X %s millimeter' % (z[2], z[1], z[0]), r[0], r[1])
`, dir)
	fields := strings.Fields(string(out))
	wantNii := strings.Join(fields[:len(fields)-2], " ")
	if strings.Contains(wantNii, "0000") {
		t.Fatalf("numpy's float32 zooms: %s", wantNii)
	}
	if text := mustRun(t, "info", filepath.Join(dir, "v.nii")); !strings.Contains(text, "  spacing  "+wantNii+"\n") {
		t.Errorf("NIfTI: want spacing %q in\n%s", wantNii, text)
	}
	// tifffile stores 1/0.3 as 4294967295/1288490188, whose reciprocal is
	// 0.29999999988358467 in float64.
	if fields[len(fields)-2] != "4294967295" {
		t.Logf("tifffile stored the resolution as %s/%s", fields[len(fields)-2], fields[len(fields)-1])
	}
	ij := filepath.Join(dir, "ij.tif")
	if text := mustRun(t, "info", ij); !strings.Contains(text, "Y 0.3 micrometer, X 0.3 micrometer\n") {
		t.Errorf("ImageJ TIFF: want Y and X 0.3 micrometer in\n%s", text)
	}
	if j := infoOf(t, ij); j.Spacing[len(j.Spacing)-1] != 0.3 || j.Spacing[len(j.Spacing)-2] != 0.3 {
		t.Errorf("ImageJ TIFF: --json spacing %v", j.Spacing)
	}
	// Real files: ZEN's time stamps, Imaris's unnamed channel.
	czi := testtool.SharedData(t, "czi/CD_s_1_t_3_c_2_z_5.czi")
	if text := mustRun(t, "info", czi); !strings.Contains(text, "  spacing  T 59.99543155 second,") {
		t.Errorf("CZI: want T 59.99543155 second in\n%s", text)
	}
	ims := testtool.SharedData(t, "ims/Minimal_IMS_File.ims")
	if text := mustRun(t, "info", ims); !strings.Contains(text, "\n  channel 0\n") {
		t.Errorf("unnamed channel: want a bare %q in\n%s", "  channel 0", text)
	}
}
