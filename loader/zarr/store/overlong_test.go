package store

import (
	"bytes"
	"context"
	"log"
	"testing"
	"testing/synctest"
)

// TestHTTPOverlongBodyLogsNothing: a server that sends more than its
// Content-Length leaves bytes on the connection; net/http's Transport
// would print a line about them to the standard logger. Nothing is
// printed, and later reads work.
func TestHTTPOverlongBodyLogsNothing(t *testing.T) { synctest.Test(t, testHTTPOverlongBodyLogsNothing) }

func testHTTPOverlongBodyLogsNothing(t *testing.T) {
	var logged bytes.Buffer
	out, flags := log.Writer(), log.Flags()
	log.SetOutput(&logged)
	defer func() {
		log.SetOutput(out)
		log.SetFlags(flags)
	}()
	s := newFaultServer(t)
	h := newStore(t, s, testOptions())
	want := s.put("k", 100)
	s.plan("k", overlong)
	got, err := h.Get(context.Background(), "k")
	if err != nil || !bytes.Equal(got, want[:50]) {
		t.Errorf("Get = %d bytes, %v; want the 50 the server announced", len(got), err)
	}
	synctest.Wait() // the Transport has seen the bytes left over
	if got, err := h.Get(context.Background(), "k"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the next Get = %d bytes, %v", len(got), err)
	}
	synctest.Wait()
	if logged.Len() != 0 {
		t.Errorf("logged %q", logged.String())
	}
	log.Print("other news")
	if !bytes.HasSuffix(logged.Bytes(), []byte(" other news\n")) {
		t.Errorf("another line logged as %q", logged.String())
	}
}
