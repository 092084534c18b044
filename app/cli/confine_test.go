package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// bdvXML is a BigDataViewer XML naming the HDF5 file h5: one view setup
// of 8x8x4 samples.
func bdvXML(h5 string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<SpimData version="0.2">
  <BasePath type="relative">.</BasePath>
  <SequenceDescription>
    <ImageLoader format="bdv.hdf5"><hdf5 type="relative">` + h5 + `</hdf5></ImageLoader>
    <ViewSetups>
      <ViewSetup><id>0</id><name>s</name><size>8 8 4</size>
        <voxelSize><unit>um</unit><size>1 1 1</size></voxelSize></ViewSetup>
    </ViewSetups>
    <Timepoints type="range"><first>0</first><last>0</last></Timepoints>
  </SequenceDescription>
  <ViewRegistrations>
    <ViewRegistration timepoint="0" setup="0">
      <ViewTransform type="affine"><affine>1 0 0 0 0 1 0 0 0 0 1 0</affine></ViewTransform>
    </ViewRegistration>
  </ViewRegistrations>
</SpimData>
`
}

// n5Block is an N5 block of 8x8 uint8 samples, uncompressed.
func n5Block(data []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, 0)
	b = binary.BigEndian.AppendUint16(b, 2)
	b = binary.BigEndian.AppendUint32(b, 8)
	b = binary.BigEndian.AppendUint32(b, 8)
	return append(b, data...)
}

// serveOrRefuse runs `vastview serve` on src until the test ends: it
// returns the URL printed, or the error serve ended with before it served.
func serveOrRefuse(t *testing.T, src string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var served error
	done := make(chan struct{})
	go func() {
		served = serveUntil(ctx, []string{"--addr", "127.0.0.1:0", src}, pw, io.Discard)
		pw.Close()
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		<-done
		return "", served
	}
	go io.Copy(io.Discard, pr)
	url, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
	return url, nil
}

// TestServeReadsNothingOutside: a BigDataViewer XML, MetaImage header,
// NRRD header and NIfTI pair whose data file lies outside their folder
// (named by "../", or a link in the folder that leads out), and a Zarr or N5 folder whose chunk is a
// link to a file elsewhere: `serve` refuses the first in one line and
// answers the chunk with an error, never with the other file's bytes;
// `info` reads them and notes where the data lies; the same datasets with
// their files inside are served.
func TestServeReadsNothingOutside(t *testing.T) {
	testtool.RequirePython(t, "h5py", "numpy", "nibabel")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	out, ds := filepath.Join(root, "outside"), filepath.Join(root, "ds")
	os.MkdirAll(out, 0o755)
	os.MkdirAll(ds, 0o755)
	secret := make([]byte, 256)
	for i := range secret {
		secret[i] = byte(i*7 + 3)
	}
	testtool.RunPython(t, `
import sys, h5py, numpy as np
a = np.frombuffer(open(sys.argv[2], 'rb').read(), np.uint8).astype(np.int16).reshape(4, 8, 8)
for p in sys.argv[1].split(','):
    with h5py.File(p, 'w') as f:
        f['s00/resolutions'] = np.array([[1, 1, 1]], 'f8')
        f['s00/subdivisions'] = np.array([[8, 8, 4]], 'i4')
        f.create_dataset('t00000/s00/0/cells', data=a, chunks=(4, 8, 8))
`, filepath.Join(out, "data.h5")+","+filepath.Join(ds, "inside.h5"), writeFile(t, filepath.Join(root, "secret.bin"), secret))
	testtool.RunPython(t, `
import sys, shutil, numpy as np, nibabel as nib
nib.save(nib.Nifti1Pair(np.arange(64, dtype=np.uint8).reshape(8, 8), np.eye(4)), sys.argv[1] + '/pair.img')
shutil.copy(sys.argv[1] + '/pair.hdr', sys.argv[2] + '/p.hdr')
`, out, ds)
	os.Symlink(filepath.Join(out, "pair.img"), filepath.Join(ds, "p.img"))
	os.WriteFile(filepath.Join(out, "m.raw"), secret[:64], 0o644)
	os.WriteFile(filepath.Join(out, "block"), n5Block(secret[:64]), 0o644)
	os.WriteFile(filepath.Join(out, "chunk"), secret[:64], 0o644)

	os.WriteFile(filepath.Join(ds, "up.xml"), []byte(bdvXML("../outside/data.h5")), 0o644)
	os.Symlink(filepath.Join(out, "data.h5"), filepath.Join(ds, "linked.h5"))
	os.WriteFile(filepath.Join(ds, "link.xml"), []byte(bdvXML("linked.h5")), 0o644)
	os.WriteFile(filepath.Join(ds, "in.xml"), []byte(bdvXML("inside.h5")), 0o644)
	mhd := "ObjectType = Image\nNDims = 2\nDimSize = 8 8\nElementType = MET_UCHAR\nElementDataFile = ../outside/m.raw\n"
	os.WriteFile(filepath.Join(ds, "m.mhd"), []byte(mhd), 0o644)
	nhdr := "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 8 8\nencoding: raw\ndata file: ../outside/m.raw\n"
	os.WriteFile(filepath.Join(ds, "n.nhdr"), []byte(nhdr), 0o644)

	n5 := filepath.Join(ds, "img.n5")
	os.MkdirAll(filepath.Join(n5, "0"), 0o755)
	os.WriteFile(filepath.Join(n5, "attributes.json"),
		[]byte(`{"dimensions":[8,8],"blockSize":[8,8],"dataType":"uint8","compression":{"type":"raw"}}`), 0o644)
	os.Symlink(filepath.Join(out, "block"), filepath.Join(n5, "0", "0"))
	zr := filepath.Join(ds, "img.zarr")
	os.MkdirAll(zr, 0o755)
	os.WriteFile(filepath.Join(zr, ".zarray"), []byte(`{"zarr_format":2,"shape":[8,8],"chunks":[8,8],"dtype":"|u1",`+
		`"compressor":null,"fill_value":0,"order":"C","filters":null}`), 0o644)
	os.Symlink("../../outside/chunk", filepath.Join(zr, "0.0"))

	get := func(url string) (int, []byte) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, name := range []string{"up.xml", "link.xml", "m.mhd", "n.nhdr", "p.hdr"} {
		src := filepath.Join(ds, name)
		url, err := serveOrRefuse(t, src)
		if err == nil {
			chunk := "/0/0/0"
			if strings.HasSuffix(name, ".xml") {
				chunk = "/0/0/0/0"
			}
			code, b := get(url + chunk)
			t.Errorf("serve %s: served (a chunk: %d, %d bytes, the outside file's: %v)", name, code, len(b), bytes.Contains(secret, b[:min(len(b), 16)]))
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "outside the dataset's folder") || strings.Contains(msg, "\n") {
			t.Errorf("serve %s: %q", name, msg)
		}
		code, stdout, stderr := vv("info", src)
		if code != 0 || !strings.Contains(stdout, "note") || !strings.Contains(stdout, "outside the dataset's folder") {
			t.Errorf("info %s: exit %d, %q %q: want a note that the data lies outside", name, code, stdout, stderr)
		}
	}
	for _, name := range []string{"img.n5", "img.zarr"} {
		url, err := serveOrRefuse(t, filepath.Join(ds, name))
		if err != nil {
			t.Fatalf("serve %s: %v", name, err)
		}
		code, b := get(url + "/0/0/0")
		if code == 200 || bytes.Contains(b, secret[:16]) {
			t.Errorf("serve %s: the chunk linked to a file outside: %d, %d bytes", name, code, len(b))
		}
	}
	url, err := serveOrRefuse(t, filepath.Join(ds, "in.xml"))
	if err != nil {
		t.Fatalf("serve in.xml: %v", err)
	}
	code, b := get(url + "/0/0/0/0")
	if code != 200 || len(b) < 16 || !bytes.Equal(b[:16], []byte{3, 0, 10, 0, 17, 0, 24, 0, 31, 0, 38, 0, 45, 0, 52, 0}) {
		t.Errorf("in.xml chunk: %d, %v", code, b[:min(len(b), 16)])
	}
}

// writeFile writes b to p and returns p.
func writeFile(t *testing.T, p string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dicomScript writes an 8x8 uint8 CT slice at each path of argv[1]
// (comma-separated; z from its place, one series), and a DICOMDIR at
// argv[2] naming the files of argv[3] (comma-separated, each a
// backslash-separated ReferencedFileID).
const dicomScript = `
import sys, numpy as np, pydicom
from pydicom.dataset import FileDataset, FileMetaDataset, Dataset
from pydicom.sequence import Sequence
from pydicom.uid import generate_uid, ExplicitVRLittleEndian
series, study = generate_uid(), generate_uid()
for z, p in enumerate(sys.argv[1].split(',')):
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(p, {}, file_meta=meta, preamble=b'\0' * 128)
    ds.SOPClassUID, ds.SOPInstanceUID = meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID
    ds.Modality, ds.SeriesInstanceUID, ds.StudyInstanceUID = 'CT', series, study
    ds.InstanceNumber = z + 1
    ds.ImagePositionPatient, ds.ImageOrientationPatient = [0, 0, z], [1, 0, 0, 0, 1, 0]
    ds.Rows, ds.Columns, ds.SamplesPerPixel, ds.PhotometricInterpretation = 8, 8, 1, 'MONOCHROME2'
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 8, 8, 7, 0
    ds.PixelData = (np.arange(64, dtype=np.uint8) + 100 * z).tobytes()
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.save_as(p, write_like_original=False)
meta = FileMetaDataset()
meta.MediaStorageSOPClassUID = '1.2.840.10008.1.3.10'
meta.MediaStorageSOPInstanceUID = generate_uid()
meta.TransferSyntaxUID = ExplicitVRLittleEndian
d = FileDataset(sys.argv[2], {}, file_meta=meta, preamble=b'\0' * 128)
recs = []
for ref in sys.argv[3].split(','):
    r = Dataset()
    r.DirectoryRecordType = 'IMAGE'
    r.ReferencedFileID = ref.split('\\')
    recs.append(r)
d.DirectoryRecordSequence = Sequence(recs)
d.is_little_endian, d.is_implicit_VR = True, False
d.save_as(sys.argv[2], write_like_original=False)
`

// TestServeReadsNoFrameOutside: a folder of frames or a glob whose frame
// is a link to a file outside the folder, a folder of DICOM files holding
// such a link (opened as the folder or as one of its files), and a
// DICOMDIR naming a file by "../": `serve` refuses each in one line
// naming the file, `info` and the viewer read them and note that a file
// lies outside; the same frames linked within their folder are served.
func TestServeReadsNoFrameOutside(t *testing.T) {
	testtool.RequirePython(t, "pydicom", "numpy")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	out := filepath.Join(root, "outside")
	for _, d := range []string{"outside", "seq", "seqin", "dcm", "dd"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	frame := func(p string, v byte) {
		img := image.NewGray(image.Rect(0, 0, 8, 8))
		for i := range img.Pix {
			img.Pix[i] = v + byte(i)
		}
		var b bytes.Buffer
		png.Encode(&b, img)
		writeFile(t, p, b.Bytes())
	}
	frame(filepath.Join(root, "seq", "a.png"), 0)
	frame(filepath.Join(out, "b.png"), 100)
	os.Symlink(filepath.Join(out, "b.png"), filepath.Join(root, "seq", "b.png"))
	frame(filepath.Join(root, "seqin", "a.png"), 0)
	os.Symlink("a.png", filepath.Join(root, "seqin", "b.png"))
	testtool.RunPython(t, dicomScript,
		filepath.Join(root, "dcm", "IM1")+","+filepath.Join(out, "IM2")+","+filepath.Join(root, "dd", "IM1"),
		filepath.Join(root, "dd", "DICOMDIR"), `IM1,..\outside\IM2`)
	os.Symlink(filepath.Join(out, "IM2"), filepath.Join(root, "dcm", "IM2"))

	for _, c := range []struct{ src, file string }{
		{"seq", "b.png"},
		{"seq/*.png", "b.png"},
		{"dcm", "IM2"},
		{"dcm/IM1", "IM2"},
		{"dd/DICOMDIR", "../outside/IM2"},
	} {
		src := filepath.Join(root, c.src)
		url, err := serveOrRefuse(t, src)
		if err == nil {
			resp, err := http.Get(url + "/0/1/0/0")
			if err == nil {
				resp.Body.Close()
				t.Errorf("serve %s: served (the second frame: %d)", c.src, resp.StatusCode)
			}
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.file+" lies outside the dataset's folder") || strings.Contains(msg, "\n") {
			t.Errorf("serve %s: %q", c.src, msg)
		}
		code, stdout, stderr := vv("info", src)
		if code != 0 || !strings.Contains(stdout, c.file) || !strings.Contains(stdout, "outside the dataset's folder") {
			t.Errorf("info %s: exit %d, %q %q: want a note that %s lies outside", c.src, code, stdout, stderr, c.file)
		}
		s, err := loader.Open(context.Background(), src)
		if err != nil {
			t.Errorf("open %s: %v", c.src, err)
			continue
		}
		if !slices.ContainsFunc(s.Meta().Notes, func(n string) bool { return strings.HasSuffix(n, loader.OutsideNote) }) {
			t.Errorf("open %s: notes %q: none for the status bar", c.src, s.Meta().Notes)
		}
		s.Close()
	}
	url, err := serveOrRefuse(t, filepath.Join(root, "seqin"))
	if err != nil {
		t.Fatalf("serve seqin: %v", err)
	}
	resp, err := http.Get(url + "/0/1/0/0")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(b) < 4 || !bytes.Equal(b[:4], []byte{0, 1, 2, 3}) {
		t.Errorf("seqin frame 1: %d, %v", resp.StatusCode, b[:min(len(b), 4)])
	}
}
