package lif

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// TestLambdaSweepAsChannels reads an X Y Z λ T image of one channel (a
// wavelength sweep of a time-lapse stack): the wavelengths are the
// channels, named by their wavelength; with two channels besides, such an
// image stays unreadable (a note).
func TestLambdaSweepAsChannels(t *testing.T) {
	const w, h, nz, nl, nt = 4, 3, 2, 5, 2
	data := make([]byte, w*h*nz*nl*nt)
	for i := range data {
		data[i] = byte(i * 7)
	}
	dims := []string{
		`DimID="1" NumberOfElements="4" Origin="0" Length="3e-6" Unit="m" BytesInc="1"`,
		`DimID="2" NumberOfElements="3" Origin="0" Length="2e-6" Unit="m" BytesInc="4"`,
		`DimID="3" NumberOfElements="2" Origin="0" Length="1e-6" Unit="m" BytesInc="12"`,
		`DimID="5" NumberOfElements="5" Origin="5.5e-7" Length="2e-8" Unit="m" BytesInc="24"`,
		`DimID="4" NumberOfElements="2" Origin="0" Length="30" Unit="s" BytesInc="120"`,
	}
	one := imageElement("sweep", "MemBlock_1", len(data), []string{`Resolution="8" BytesInc="0" LUTName="Green"`}, dims)
	path := writeTemp(t, makeLIF("2", one, []lifBlock{{"MemBlock_1", data}}))
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Axes != "TCZYX" || fmt.Sprint(m.Shape) != "[2 5 2 3 4]" || !near(m.Spacing[0], 30) || !near(m.Spacing[2], 1) {
		t.Fatalf("%s %v %v", m.Axes, m.Shape, m.Spacing)
	}
	var labels []string
	for _, c := range m.Channels {
		labels = append(labels, c.Label)
	}
	if strings.Join(labels, ",") != "550 nm,555 nm,560 nm,565 nm,570 nm" {
		t.Errorf("channels %q", labels)
	}
	if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "axis C holds the file's detection wavelength") {
		t.Errorf("notes %q", m.Notes)
	}
	// In storage order T λ Z Y X, as the axes are: the samples as stored.
	got, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("read %v: % x, want % x", err, got[:16], data[:16])
	}

	two := imageElement("sweep", "MemBlock_1", 2*len(data), []string{`Resolution="8" BytesInc="0"`, `Resolution="8" BytesInc="240"`}, dims) +
		imageElement("plain", "MemBlock_2", 12, []string{`Resolution="8" BytesInc="0"`}, dims[:2])
	src2, err := loader.Open(context.Background(), writeTemp(t, makeLIF("2", two, []lifBlock{{"MemBlock_1", append(data, data...)}, {"MemBlock_2", data[:12]}})))
	if err != nil {
		t.Fatal(err)
	}
	defer src2.Close()
	if n := src2.Meta().Notes; len(n) != 1 || !strings.Contains(n[0], `unreadable: "sweep"`) {
		t.Errorf("two channels and a sweep: notes %q", n)
	}
}

// lifReference decodes every image of a LIF file on its own, in Python
// from the XML header and the memory blocks' framing: each image's block
// viewed through the dimensions' and channels' byte steps, in the axis
// order T, (channel or wavelength), Z, Y, X of the steps from largest to
// smallest. It writes image i's samples to argv[2] + "_i" and prints each
// image's name and shape.
const lifReference = `
import sys, struct, json, re
import numpy as np
import xml.etree.ElementTree as ET
b = open(sys.argv[1], 'rb').read()
magic, n = struct.unpack('<ii', b[:8])
assert magic == 0x70 and b[8] == 0x2a
nchar = struct.unpack('<i', b[9:13])[0]
root = ET.fromstring(b[13:13 + 2 * nchar].decode('utf-16-le'))
pos = 13 + 2 * nchar
blocks = {}
while pos < len(b):
    magic, n = struct.unpack('<ii', b[pos:pos + 8])
    assert magic == 0x70 and b[pos + 8] == 0x2a
    size = struct.unpack('<q', b[pos + 9:pos + 17])[0]
    assert b[pos + 17] == 0x2a
    nchar = struct.unpack('<i', b[pos + 18:pos + 22])[0]
    name = b[pos + 22:pos + 22 + 2 * nchar].decode('utf-16-le')
    pos += 22 + 2 * nchar
    blocks[name] = (pos, size)
    pos += size
out = []
for el in root.iter('Element'):
    img = el.find('Data/Image')
    mem = el.find('Memory')
    if img is None or int(mem.get('Size')) == 0:
        continue
    off, size = blocks[mem.get('MemoryBlockID')]
    chans = img.findall('ImageDescription/Channels/ChannelDescription')
    dims = [(int(d.get('NumberOfElements')), int(d.get('BytesInc'))) for d in img.findall('ImageDescription/Dimensions/DimensionDescription')]
    if len(chans) > 1:
        dims.append((len(chans), int(chans[1].get('BytesInc'))))
    dims = [d for d in dims if d[0] > 1]
    dims.sort(key=lambda d: -d[1])
    a = np.lib.stride_tricks.as_strided(np.frombuffer(b, np.uint8, size, off),
                                        [d[0] for d in dims], [d[1] for d in dims])
    a.tofile('%s_%d' % (sys.argv[2], len(out)))
    out.append({'name': el.get('Name'), 'shape': list(a.shape)})
print(json.dumps(out))
`

// TestLambdaSweepRealFile opens all three images of LAS X's wavelength
// sweep example (from readlif's tests): X Y λ emission, X Y λ excitation,
// and X Y Z λ T, whose samples equal an independent decoding of the file
// (its XML and memory block offsets, in Python). VASTVIEW_LIF_SWEEP may
// name the file where the shared test data lacks it.
func TestLambdaSweepRealFile(t *testing.T) {
	path, ok := testtool.LookSharedData("lif/LeicaLASX_wavelength-sweep_example.lif")
	if p := os.Getenv("VASTVIEW_LIF_SWEEP"); p != "" {
		path, ok = p, true
	}
	if !ok {
		t.Skipf("%s is absent (not part of the shared test data yet): VASTVIEW_LIF_SWEEP may name it", path)
	}
	testtool.RequirePython(t, "numpy")
	base := filepath.Join(t.TempDir(), "ref")
	var want []struct {
		Name  string
		Shape []int
	}
	if err := json.Unmarshal(testtool.RunPython(t, lifReference, path, base), &want); err != nil {
		t.Fatal(err)
	}
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if len(m.Series) != 3 || len(want) != 3 || len(m.Notes) > 1 {
		t.Fatalf("series %v, notes %q; want 3 images: %v", m.Series, m.Notes, want)
	}
	for i, w := range want {
		s, err := loader.Open(context.Background(), fmt.Sprintf("%s#%d", path, i))
		if err != nil {
			t.Fatal(err)
		}
		sm := s.Meta()
		if fmt.Sprint(sm.Shape) != fmt.Sprint(w.Shape) || m.Series[i].Name != w.Name {
			t.Errorf("image %d %q: %s %v, reference %q %v", i, m.Series[i].Name, sm.Axes, sm.Shape, w.Name, w.Shape)
		}
		got, err := loader.ReadAll(context.Background(), s, 0, 1<<26)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := os.ReadFile(fmt.Sprintf("%s_%d", base, i))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, ref) {
			t.Errorf("image %d %q: samples differ from the reference's", i, w.Name)
		}
		s.Close()
	}
}
