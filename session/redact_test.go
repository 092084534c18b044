package session

import (
	"net"
	"strings"
	"testing"
)

// TestAddressSecretsStayOutOfTheViewer opens an address carrying a
// password and a signature, from a server that is not listening: the
// trace, the problem shown, the title and the status bar name the address
// without them.
func TestAddressSecretsStayOutOfTheViewer(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	const secret = "pa55-SeCrEt-9q7"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	h := newHarness(t, Options{})
	h.open(small(), "http://user:"+secret+"@"+dead+"/shown.ome.zarr?X-Amz-Signature="+secret)
	addr := "http://user:" + secret + "@" + dead + "/img.ome.zarr?X-Amz-Signature=" + secret
	h.s.Open(addr)
	u := h.waitUpdate(func(u Update) bool { return len(u.Problems) > 0 })
	shown := []string{h.s.Title(), h.s.Status().Text}
	for _, p := range u.Problems {
		shown = append(shown, p.Message())
	}
	for _, e := range h.trace.events() {
		for _, v := range e {
			if s, ok := v.(string); ok {
				shown = append(shown, s)
			}
		}
	}
	if !strings.Contains(strings.Join(shown, "\n"), dead+"/img.ome.zarr") {
		t.Errorf("the address is named nowhere: %q", shown)
	}
	for _, s := range shown {
		if strings.Contains(s, secret) {
			t.Errorf("the secret is shown: %q", s)
		}
	}
}
