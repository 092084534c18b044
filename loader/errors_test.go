package loader

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenMissingFileKeepsTheCauseWithoutThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.tif")
	_, err := Open(context.Background(), path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error %v is not fs.ErrNotExist", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != path {
		t.Errorf("the *fs.PathError is not kept: %v", err)
	}
	if strings.Contains(err.Error(), "missing.tif") {
		t.Errorf("%q repeats the path (callers name it)", err)
	}
	if _, err := FileIdentity(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("FileIdentity: %v is not fs.ErrNotExist", err)
	}
}

func TestCheckChunkRefusesBadArguments(t *testing.T) {
	m := NewMeta("mem", "ZYX", []int{3, 10, 10}, Uint16, []int{1, 4, 4}, nil, nil)
	ok := make([]byte, 4*4*2)
	ctx := context.Background()
	if err := CheckChunk(ctx, m, 0, []int{2, 2, 2}, ok); err != nil {
		t.Fatalf("a good chunk: %v", err)
	}
	for _, c := range []struct {
		level int
		idx   []int
		dst   []byte
	}{
		{1, []int{0, 0, 0}, ok},
		{-1, []int{0, 0, 0}, ok},
		{0, []int{0, 0}, ok},
		{0, []int{3, 0, 0}, ok},
		{0, []int{0, 3, 0}, ok},
		{0, []int{0, 0, -1}, ok},
		{0, []int{0, 0, 0}, ok[:10]},
		{0, []int{0, 0, 0}, append(ok, 0)},
	} {
		if err := CheckChunk(ctx, m, c.level, c.idx, c.dst); err == nil {
			t.Errorf("level %d chunk %v with %d bytes accepted", c.level, c.idx, len(c.dst))
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := CheckChunk(cancelled, m, 0, []int{0, 0, 0}, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read: %v", err)
	}
}

func TestOpenStopsWhenTheContextEnds(t *testing.T) {
	started := make(chan struct{})
	Register(Format{Name: "ctxtest", Patterns: true,
		Open: func(ctx context.Context, _ string) (Source, error) {
			close(started)
			<-ctx.Done() // a server that never answers
			return nil, ctx.Err()
		}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if _, err := Open(ctx, "x.ctxtest*"); !errors.Is(err, context.Canceled) {
		t.Errorf("Open cancelled while it waits: %v", err)
	}
	if _, err := Open(ctx, "y.ctxtest*"); !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a context that has ended: %v", err)
	}
}
