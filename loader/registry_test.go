package loader

import (
	"errors"
	"slices"
	"testing"
)

// TestMagicWildcards: a '?' of a signature matches any byte, and a head
// shorter than the signature does not match.
func TestMagicWildcards(t *testing.T) {
	m := Magic{Offset: 2, Bytes: "A?C"}
	for head, want := range map[string]bool{"xxABC": true, "xxAzC": true, "xxAB": false, "xABC": false, "xxaBC": false} {
		if got := m.match([]byte(head)); got != want {
			t.Errorf("%q: %v", head, got)
		}
	}
}

// TestDecide: one claim reads the path; several are an error naming them,
// unless a precedence leaves one; none is no claim.
func TestDecide(t *testing.T) {
	a, b, c := Format{Name: "a"}, Format{Name: "b"}, Format{Name: "c"}
	prec := []Precedence{{Over: "a", Under: "b"}}
	for _, x := range []struct {
		cands []Format
		want  string
		amb   []string
	}{
		{[]Format{b}, "b", nil},
		{[]Format{a, b}, "a", nil},
		{[]Format{b, c}, "", []string{"b", "c"}},
		{[]Format{a, b, c}, "", []string{"a", "b", "c"}},
	} {
		f, ok, err := decide(x.cands, prec)
		var amb *AmbiguousError
		switch {
		case x.amb != nil:
			if !errors.As(err, &amb) || !slices.Equal(amb.Formats, x.amb) {
				t.Errorf("%v: %v, want the candidates named", x.cands, err)
			}
		case err != nil || !ok || f.Name != x.want:
			t.Errorf("%v: %q %v %v, want %s", x.cands, f.Name, ok, err, x.want)
		}
	}
	if _, ok, err := decide(nil, prec); ok || err != nil {
		t.Errorf("no candidate: %v %v", ok, err)
	}
}

// TestClaims: a format without a signature claims files by name, one with
// a signature by content, neither a folder (see loader/formats for how the
// registry weighs them).
func TestClaims(t *testing.T) {
	named := Format{Name: "named", Exts: []string{".nm"}, ByName: true}
	sig := Format{Name: "sig", Magic: []Magic{{Bytes: "SIG"}}}
	if !named.Claims("x.nm", []byte("anything")) || named.Claims("x.other", []byte("SIG")) {
		t.Error("a format by name claims by name only")
	}
	if !sig.Claims("x.nm", []byte("SIG1")) || sig.Claims("x.nm", nil) {
		t.Error("a format by signature claims by content only")
	}
}
