package zarr_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/app/cli"
)

// putArray uploads a 2-D uint8 Zarr v2 array of 8x8 samples in 4x4 chunks,
// sample i being value(i), to bucket/key through the S3 API, and returns
// its samples.
func putArray(t *testing.T, base, bucket, key string, value func(i int) byte) []byte {
	t.Helper()
	want := make([]byte, 64)
	for i := range want {
		want[i] = value(i)
	}
	zarray := `{"zarr_format":2,"shape":[8,8],"chunks":[4,4],"dtype":"|u1","compressor":null,` +
		`"fill_value":0,"order":"C","filters":null}`
	s3Must(t, http.MethodPut, base+"/"+bucket+"/"+key+"/.zarray", []byte(zarray))
	for cy := range 2 {
		for cx := range 2 {
			var c []byte
			for y := range 4 {
				c = append(c, want[(cy*4+y)*8+cx*4:][:4]...)
			}
			s3Must(t, http.MethodPut, fmt.Sprintf("%s/%s/%s/%d.%d", base, bucket, key, cy, cx), c)
		}
	}
	return want
}

// TestChunkCacheKeepsEndpointsApart reads s3://same/img.zarr through two
// S3 gateways, each holding a bucket of that name with different data,
// then stops both: each endpoint's cached values serve only that
// endpoint's reads, and AWS_ENDPOINT_URL naming a port where nothing
// listens fails in one line instead of answering from another endpoint's
// values.
func TestChunkCacheKeepsEndpointsApart(t *testing.T) {
	addrA, stopA := startGateway(t)
	addrB, stopB := startGateway(t)
	var data [2][]byte
	for i, addr := range []string{addrA, addrB} {
		base := "http://" + addr
		s3Must(t, http.MethodPut, base+"/same", nil)
		data[i] = putArray(t, base, "same", "img.zarr", func(j int) byte { return byte(j*3 + 100*i + 1) })
	}
	if bytes.Equal(data[0], data[1]) {
		t.Fatal("the two gateways hold the same data")
	}
	isolateAWS(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
	const src = "s3://same/img.zarr"
	plane := func(t *testing.T, endpoint string) []byte {
		t.Helper()
		t.Setenv("AWS_ENDPOINT_URL", endpoint)
		out := filepath.Join(t.TempDir(), "p.raw")
		var o, e bytes.Buffer
		if code := cli.Run([]string{"plane", src, "--out", out}, &o, &e); code != 0 {
			t.Fatalf("plane through %s: exit %d: %s", endpoint, code, e.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	check := func(t *testing.T, endpoint string, want []byte, what string) {
		t.Helper()
		if got := plane(t, endpoint); !bytes.Equal(got, want) {
			t.Errorf("%s: plane %v, want %v", what, got[:8], want[:8])
		}
	}
	check(t, "http://"+addrA, data[0], "endpoint A")
	check(t, "http://"+addrB, data[1], "endpoint B after A")
	stopB()
	check(t, "http://"+addrB, data[1], "endpoint B stopped, from its cached values")
	stopA()
	check(t, "http://"+addrA, data[0], "endpoint A stopped, from its cached values")

	// A port where nothing listens: nothing is cached for it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	t.Setenv("AWS_ENDPOINT_URL", dead)
	var o, e bytes.Buffer
	code := cli.Run([]string{"info", src}, &o, &e)
	msg := e.String()
	if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, src) {
		t.Fatalf("info through %s: exit %d, stdout %q, stderr %q; want exit 1 and one line naming %s", dead, code, o.String(), msg, src)
	}
	t.Log(msg)
}
